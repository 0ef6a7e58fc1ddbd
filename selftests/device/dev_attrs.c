// SPDX-License-Identifier: GPL-2.0-only
/*
 * dev_attrs: known traffic on one RC pair (A on device A, B on device B),
 * driven line by line from stdin, with the QPs kept alive in between so
 * that device/rdma_attrs.sh can read what "rdma resource show" and "rdma
 * statistic show" say of them (a stock tool such as ibv_rc_pingpong
 * destroys its QPs, and with them their counter objects, as it exits).
 *
 *   dev_attrs -d devA,devB -4 ipA,ipB
 * prints "READY <qpn A> <qpn B> <sq_psn A> <sq_psn B>", then runs each
 * command line and answers "OK ..." (or "# FAIL ..." and exits 1):
 *   pp N         N ping-pongs: A sends 64 bytes to B, then B to A, each
 *                SEND one packet, every completion polled (after a
 *                "drain": receives left by "tail" are taken first)
 *   tail RA RB K A posts RA receives, B posts RB + K, then A sends K
 *                messages to B that nobody polls: they stay in A's send
 *                CQ and B's receive CQ
 *   drain        polls every completion waiting in the four CQs;
 *                answers "OK drain <count>"
 *   mrs          registers an explicit ODP MR of 1 MiB and an implicit
 *                ODP MR, and prefetches 4 MiB (two 2 MiB slices) through
 *                the implicit one; answers "OK <lkey> <lkey>" (hex)
 * and tears everything down at end of input.
 */
#include <errno.h>
#include <unistd.h>
#include "../datapath/dp.h"

#define MSG_LEN 64

static struct dp_pair pair;
static struct dp_dev devs[2];
static unsigned long wr_seq;
/* The MRs of "mrs" and their memory, released at the end. */
static struct ibv_mr *odp_mrs[2];
static void *odp_mem[2];

static void post_recv(struct dp_end *e)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)e->buf.p + MSG_LEN,
		.length = MSG_LEN,
		.lkey = e->buf.mr->lkey,
	};

	dp_post_recv(e, ++wr_seq, &sge, 1);
}

static void post_send(struct dp_end *e)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)e->buf.p,
		.length = MSG_LEN,
		.lkey = e->buf.mr->lkey,
	};
	struct ibv_send_wr wr = {
		.wr_id = ++wr_seq,
		.sg_list = &sge,
		.num_sge = 1,
		.opcode = IBV_WR_SEND,
		.send_flags = IBV_SEND_SIGNALED,
	};

	dp_post_send(e, &wr);
}

/* @from sends one message to @to, both completions polled. */
static void one_way(struct dp_end *from, struct dp_end *to)
{
	struct ibv_wc wc;

	post_recv(to);
	post_send(from);
	dp_poll(from->scq, &wc, DP_TIMEOUT_MS, "send completion");
	dp_check_wc(&wc, IBV_WC_SUCCESS, IBV_WC_SEND, wr_seq, from->qp->qp_num,
		    "send");
	dp_poll(to->rcq, &wc, DP_TIMEOUT_MS, "receive completion");
	/* Not necessarily the receive just posted: see "tail". */
	dp_check_wc(&wc, IBV_WC_SUCCESS, IBV_WC_RECV, wc.wr_id, to->qp->qp_num,
		    "receive");
	CHECK_EQ(wc.byte_len, MSG_LEN, "received bytes");
}

static void cmd_pp(unsigned long n)
{
	unsigned long i;

	for (i = 0; i < n; i++) {
		one_way(&pair.a, &pair.b);
		one_way(&pair.b, &pair.a);
	}
	printf("OK pp %lu\n", n);
}

static void cmd_tail(unsigned long ra, unsigned long rb, unsigned long k)
{
	unsigned long i;

	for (i = 0; i < ra; i++)
		post_recv(&pair.a);
	for (i = 0; i < rb + k; i++)
		post_recv(&pair.b);
	for (i = 0; i < k; i++)
		post_send(&pair.a);
	printf("OK tail\n");
}

static void cmd_drain(void)
{
	struct ibv_cq *cqs[] = { pair.a.scq, pair.a.rcq, pair.b.scq, pair.b.rcq };
	unsigned int i, n = 0;
	struct ibv_wc wc;

	for (i = 0; i < ARRAY_SIZE(cqs); i++)
		while (ibv_poll_cq(cqs[i], 1, &wc) == 1) {
			CHECK(wc.status == IBV_WC_SUCCESS, "drained completion status %d",
			      wc.status);
			n++;
		}
	printf("OK drain %u\n", n);
}

static void cmd_mrs(void)
{
	const size_t slice = 2 * MiB;
	struct dp_dev *d = &devs[0];
	struct ibv_mr *exp, *imp;
	struct ibv_sge sge;
	void *p, *q;

	CHECK(!odp_mrs[0], "mrs twice");
	CHECK(!posix_memalign(&p, 4096, MiB), "no memory");
	CHECK(!posix_memalign(&q, slice, 2 * slice), "no memory");
	odp_mem[0] = p;
	odp_mem[1] = q;
	exp = ibv_reg_mr(d->pd, p, MiB,
			 IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_ON_DEMAND);
	CHECK(exp, "reg_mr ODP: %s", strerror(errno));
	odp_mrs[0] = exp;
	imp = ibv_reg_mr(d->pd, NULL, SIZE_MAX,
			 IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_ON_DEMAND);
	CHECK(imp, "reg_mr implicit ODP: %s", strerror(errno));
	odp_mrs[1] = imp;
	memset(q, 1, 2 * slice);
	sge.addr = (uintptr_t)q;
	sge.length = 2 * slice;
	sge.lkey = imp->lkey;
	CHECK(!ibv_advise_mr(d->pd, IBV_ADVISE_MR_ADVICE_PREFETCH_WRITE,
			     IBV_ADVISE_MR_FLAG_FLUSH, &sge, 1),
	      "advise_mr: %s", strerror(errno));
	/* As rdma -j shows keys: hex digits. */
	printf("OK %x %x\n", exp->lkey, imp->lkey);
}

static void session(const struct dp_case *c)
{
	struct dp_cfg cfg = { .type = IBV_QPT_RC };
	char line[128];
	unsigned long x, y, z;
	size_t i;

	/* The shell reads the devices between commands: no case timeout. */
	alarm(0);
	dp_setup(&pair, devs, 4, &cfg);
	printf("READY %u %u %u %u\n", pair.a.qp->qp_num, pair.b.qp->qp_num,
	       pair.cfg.psn_a, pair.cfg.psn_b);
	fflush(stdout);
	while (fgets(line, sizeof(line), stdin)) {
		if (sscanf(line, "pp %lu", &x) == 1)
			cmd_pp(x);
		else if (sscanf(line, "tail %lu %lu %lu", &x, &y, &z) == 3)
			cmd_tail(x, y, z);
		else if (!strncmp(line, "drain", 5))
			cmd_drain();
		else if (!strncmp(line, "mrs", 3))
			cmd_mrs();
		else
			FAIL("unknown command: %s", line);
		fflush(stdout);
	}
	for (i = 0; i < ARRAY_SIZE(odp_mrs); i++) {
		if (odp_mrs[i])
			CHECK(!ibv_dereg_mr(odp_mrs[i]), "dereg_mr: %s",
			      strerror(errno));
		free(odp_mem[i]);
	}
	dp_teardown(&pair, devs);
	printf("OK done\n");
}

static const struct dp_case cases[] = {
	{ .name = "session", .fn = session, .type = IBV_QPT_RC, .fam = 4 },
};

int main(int argc, char **argv)
{
	return dp_main(argc, argv, cases, ARRAY_SIZE(cases));
}
