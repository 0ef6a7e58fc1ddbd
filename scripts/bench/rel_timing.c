// SPDX-License-Identifier: GPL-2.0-only
/*
 * timing: how long the RC recovery paths take, measured against what the
 * seed rules say (a benchmark: it prints measured and expected times and
 * checks only completion statuses, never times). Run by
 * scripts/bench/reliability.sh.
 *
 *   tail_T<t>:  the last packet of a SEND lost: recovery after about
 *               T = 4.096 us * 2^t (the spec allows T..4T; seed-rules R2.2)
 *   rnr_<c>:    RNR NAK waits with min_rnr_timer code c: the spacing of
 *               retries against the R2.4 table
 *   exhaust_T<t>: 100% loss, retry_cnt 7: IBV_WC_RETRY_EXC_ERR after
 *               about (retry_cnt + 1) * T
 */
#include <arpa/inet.h>
#include <time.h>
#include "../../selftests/reliability/rel.h"

static double now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

static double t_us(int code)
{
	return 4.096 * (double)(1ULL << code);
}

static void setup(struct dp_pair *p, struct dp_dev d[2], int timeout,
		  int retry_cnt, int rnr_retry, int min_rnr)
{
	struct dp_cfg cfg = { .type = IBV_QPT_RC, .rc_timers = 1,
			      .timeout = timeout, .retry_cnt = retry_cnt,
			      .rnr_retry = rnr_retry, .min_rnr_timer = min_rnr };

	dp_setup(p, d, 4, &cfg);
	rel_fault_off(&p->a);
	rel_fault_off(&p->b);
}

/* A one-packet SEND whose only packet is lost once: post to completion. */
static void bench_tail(const struct dp_case *c)
{
	enum { ROUNDS = 5 };
	double sum = 0, lo = 1e18, hi = 0, t;
	struct dp_pair p;
	struct dp_dev d[2];
	struct ibv_sge sge;
	struct ibv_wc wc;
	int i;

	setup(&p, d, c->arg, 7, 7, 1);
	sge = (struct ibv_sge){ (uintptr_t)p.b.buf.p, 64, p.b.buf.mr->lkey };
	for (i = 0; i <= ROUNDS; i++) {
		dp_post_recv(&p.b, i, &sge, 1);
		if (i)	/* round 0 brings the first credits */
			rel_fault(&p.a, "tx", "opcode=%d", OP_SEND_ONLY);
		t = now_us();
		dp_send_wr(&p, IBV_WR_SEND, i, NULL, IBV_SEND_SIGNALED, 0, 0, 0);
		dp_poll(p.a.scq, &wc, DP_TIMEOUT_MS, "SEND");
		t = now_us() - t;
		dp_check_wc(&wc, IBV_WC_SUCCESS, IBV_WC_SEND, i, p.a.qp->qp_num, "SEND");
		dp_poll(p.b.rcq, &wc, DP_TIMEOUT_MS, "RECV");
		if (!i)
			continue;
		sum += t;
		lo = t < lo ? t : lo;
		hi = t > hi ? t : hi;
	}
	printf("# BENCH tail loss recovery, timeout %ld: measured mean %.0f us (min %.0f, max %.0f) over %d; expected T = %.0f us (spec allows up to 4T = %.0f us)\n",
	       c->arg, sum / ROUNDS, lo, hi, ROUNDS, t_us(c->arg), 4 * t_us(c->arg));
	dp_teardown(&p, d);
}

/* R2.4 table (ms), code 0 = 655.36 */
static const double rnr_ms[32] = {
	655.36, 0.01, 0.02, 0.03, 0.04, 0.06, 0.08, 0.12, 0.16, 0.24, 0.32,
	0.48, 0.64, 0.96, 1.28, 1.92, 2.56, 3.84, 5.12, 7.68, 10.24, 15.36,
	20.48, 30.72, 40.96, 61.44, 81.92, 122.88, 163.84, 245.76, 327.68,
	491.52,
};

/* rnr_retry 6 with no receive WQE: 6 waits, then RNR_RETRY_EXC_ERR. */
static void bench_rnr(const struct dp_case *c)
{
	enum { RETRIES = 6 };
	struct dp_pair p;
	struct dp_dev d[2];
	struct ibv_wc wc;
	double t;

	setup(&p, d, 14, 7, RETRIES, c->arg);
	t = now_us();
	dp_send_wr(&p, IBV_WR_SEND, 1, NULL, IBV_SEND_SIGNALED, 0, 0, 0);
	dp_poll(p.a.scq, &wc, DP_TIMEOUT_MS, "SEND");
	t = now_us() - t;
	dp_check_wc(&wc, IBV_WC_RNR_RETRY_EXC_ERR, IBV_WC_SEND, 1, p.a.qp->qp_num,
		    "SEND with no receive WQE");
	printf("# BENCH RNR retry spacing, min_rnr_timer %ld: measured %.1f us per retry (%d retries in %.0f us); expected %.0f us (R2.4 table)\n",
	       c->arg, t / RETRIES, RETRIES, t, rnr_ms[c->arg] * 1000);
	dp_teardown(&p, d);
}

/* 100% loss, retry_cnt 7: post to IBV_WC_RETRY_EXC_ERR. */
static void bench_exhaust(const struct dp_case *c)
{
	struct dp_pair p;
	struct dp_dev d[2];
	struct ibv_wc wc;
	double t;

	setup(&p, d, c->arg, 7, 7, 1);
	rel_fault(&p.a, "tx", "drop=1000000");
	t = now_us();
	dp_send_wr(&p, IBV_WR_SEND, 1, NULL, IBV_SEND_SIGNALED, 0, 0, 0);
	dp_poll(p.a.scq, &wc, 600000, "SEND");
	t = now_us() - t;
	dp_check_wc(&wc, IBV_WC_RETRY_EXC_ERR, IBV_WC_SEND, 1, p.a.qp->qp_num,
		    "SEND with every packet lost");
	printf("# BENCH 100%% loss, retry_cnt 7, timeout %ld: IBV_WC_RETRY_EXC_ERR after %.1f ms; expected (7 + 1) * T = %.1f ms (%.2f T)\n",
	       c->arg, t / 1000, 8 * t_us(c->arg) / 1000, t / t_us(c->arg));
	rel_fault_off(&p.a);
	dp_teardown(&p, d);
}

static const struct dp_case cases[] = {
	{ "tail_T10", bench_tail, IBV_QPT_RC, 4, 0, 10 },
	{ "tail_T12", bench_tail, IBV_QPT_RC, 4, 0, 12 },
	{ "tail_T14", bench_tail, IBV_QPT_RC, 4, 0, 14 },
	{ "rnr_10", bench_rnr, IBV_QPT_RC, 4, 0, 10 },
	{ "rnr_14", bench_rnr, IBV_QPT_RC, 4, 0, 14 },
	{ "rnr_18", bench_rnr, IBV_QPT_RC, 4, 0, 18 },
	{ "exhaust_T10", bench_exhaust, IBV_QPT_RC, 4, 0, 10 },
	{ "exhaust_T14", bench_exhaust, IBV_QPT_RC, 4, 0, 14 },
};

int main(int argc, char **argv)
{
	return dp_main(argc, argv, cases, ARRAY_SIZE(cases));
}
