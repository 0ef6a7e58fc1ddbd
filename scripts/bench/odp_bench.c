// SPDX-License-Identifier: GPL-2.0-only
/*
 * odp_bench: the two ODP benchmarks of seed-rules R5.3, each run
 * with ODP and, as the reference, with pinned MRs. Benchmarks: they print
 * numbers (tables, and "data" lines for the plot), they do not judge
 * speed; they fail only if a transfer fails or its bytes are wrong.
 *
 *   damming: one RC QP; the client (end A) posts two 100-byte RDMA READs
 *     from the server (end B), the second one INTERVAL us after the first,
 *     and waits for both. Both sides use ODP, and every run touches pages
 *     that neither device has mapped yet (fresh pages on both sides). 10
 *     runs per interval; time per run from the first post to the second
 *     completion. On RNICs that dam, runs with intervals of 500-4500 us
 *     take hundreds of ms (the second READ waits behind the first one's
 *     fault for a timer).
 *
 *   flood: 8192 RDMA READs of 100 bytes, posted back to back round-robin
 *     over 1, 2, 4, ..., 256 QPs, into fresh pages of a client-side ODP MR
 *     (the server's memory is pinned). Time for all of them, and request
 *     packets sent per READ (the client's req_pkts_sent counter), plus the
 *     client's retransmissions and ODP faults. On RNICs that flood this
 *     takes up to tens of seconds with far more than one request packet
 *     per READ (retransmitted while faults are pending).
 *
 * Uses the data-path harness (selftests/datapath/dp.h) for devices and QP
 * pairs: run it as "scripts/bench/odp_bench.sh -t damming" or "-t flood".
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>
#include "../../selftests/datapath/dp.h"

#define PG 4096UL
#define RD_LEN 100
#define RUNS 10
#define ATTEMPTS 4	/* pairs per damming slot at most (undisturbed table) */
#define STALL_US 500	/* off the CPU this long in user space: disturbed */

static const int intervals_us[] = { 0, 100, 500, 1000, 2000, 3000, 4500, 5000 };
#define NPOINTS ((int)ARRAY_SIZE(intervals_us))

static uint64_t now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000ull + t.tv_nsec;
}

static unsigned char *fresh(size_t len)
{
	void *p = mmap(NULL, len, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	CHECK(p != MAP_FAILED, "mmap %zu: %s", len, strerror(errno));
	/*
	 * Fresh 4 KiB pages, one per run: Debian's kernel backs anonymous
	 * memory with transparent huge pages, and a first touch would then
	 * zero 2 MiB (milliseconds under TCG) and map the next runs' pages.
	 */
	CHECK(!madvise(p, len, MADV_NOHUGEPAGE), "madvise: %s", strerror(errno));
	return p;
}

static struct ibv_mr *reg(struct dp_dev *d, void *p, size_t len, int odp)
{
	int access = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_READ |
		     IBV_ACCESS_REMOTE_WRITE | (odp ? IBV_ACCESS_ON_DEMAND : 0);
	struct ibv_mr *mr = ibv_reg_mr(d->pd, p, len, access);

	CHECK(mr, "reg_mr %zu (odp %d): %s", len, odp, strerror(errno));
	return mr;
}

static void post_read(struct dp_end *e, uint64_t wr_id, void *local, uint32_t lkey,
		      const void *remote, uint32_t rkey)
{
	struct ibv_sge sge = { (uintptr_t)local, RD_LEN, lkey };
	struct ibv_send_wr wr = {
		.wr_id = wr_id, .sg_list = &sge, .num_sge = 1,
		.opcode = IBV_WR_RDMA_READ, .send_flags = IBV_SEND_SIGNALED,
	};

	wr.wr.rdma.remote_addr = (uintptr_t)remote;
	wr.wr.rdma.rkey = rkey;
	dp_post_send(e, &wr);
}

/*
 * The longest time between two clock reads of the run's user-space loops
 * (us): the process was off its CPU that long, taken by an interrupt,
 * another task, or the host not running the vCPU. The loops read the
 * clock every round, so on a running CPU it is a few us.
 */
static uint64_t spin_last, spin_gap;

static uint64_t spin_now(void)
{
	uint64_t t = now_ns();

	if (spin_last && t - spin_last > spin_gap)
		spin_gap = t - spin_last;
	spin_last = t;
	return t;
}

static void spin_us(uint64_t t0, int us)
{
	while (spin_now() - t0 < (uint64_t)us * 1000)
		;
	spin_last = 0;	/* a doorbell follows: a system call, not spinning */
}

/*
 * Wait for one completion spinning, as a latency benchmark polls
 * (perftest does): dp_poll() sleeps 200 us between rounds once a
 * completion is late, which would add the guest's timer and wake-up
 * latency to the run.
 */
static void poll_spin(struct ibv_cq *cq, struct ibv_wc *wc)
{
	uint64_t t0 = spin_now();
	int n;

	while ((n = ibv_poll_cq(cq, 1, wc)) == 0)
		CHECK(spin_now() - t0 < DP_TIMEOUT_MS * 1000000ull,
		      "damming READ: no completion within %d ms", DP_TIMEOUT_MS);
	spin_last = 0;
	CHECK(n == 1, "damming READ: poll_cq returned %d", n);
}

/*
 * ODP_BENCH_TRACE=1: write each damming run's start and end to ftrace's
 * trace_marker, so that a trace taken around the benchmark
 * (scripts/bench/odp_bench_trace.sh) can be cut into runs.
 */
static int trace_fd = -2;

static void trace_mark(const char *fmt, ...)
{
	char buf[128];
	va_list ap;
	int n;

	if (trace_fd == -2) {
		const char *e = getenv("ODP_BENCH_TRACE");

		trace_fd = e && *e == '1' ?
			   open("/sys/kernel/tracing/trace_marker", O_WRONLY) : -1;
	}
	if (trace_fd < 0)
		return;
	va_start(ap, fmt);
	n = vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (n > 0 && write(trace_fd, buf, n) != n)
		trace_fd = -1;
}

static long invol_switches(void)
{
	struct rusage ru;

	CHECK(!getrusage(RUSAGE_SELF, &ru), "getrusage: %s", strerror(errno));
	return ru.ru_nivcsw;
}

/*
 * One damming run on fresh pages: client page @la, server page @ra (the
 * server's CPU wrote it). Returns the time in us; *@preempted: the
 * involuntary context switches during it; *@gap: its longest stretch off
 * the CPU while it spun in user space (us, see spin_gap); @odp only names
 * the run in the trace.
 */
static double damming_run(struct dp_pair *p, unsigned char *la, struct ibv_mr *lmr,
			  unsigned char *ra, struct ibv_mr *rmr, int interval,
			  int odp, long *preempted, double *gap)
{
	struct ibv_wc wc;
	uint64_t t0, t1;
	long sw0;
	int i;

	for (i = 0; i < 2 * RD_LEN + 28; i++)
		ra[i] = dp_pat(i, interval);
	sw0 = invol_switches();
	trace_mark("damming begin odp=%d interval=%d", odp, interval);
	spin_last = spin_gap = 0;
	t0 = now_ns();
	post_read(&p->a, 1, la, lmr->lkey, ra, rmr->rkey);
	spin_us(t0, interval);
	post_read(&p->a, 2, la + 128, lmr->lkey, ra + 128, rmr->rkey);
	for (i = 1; i <= 2; i++) {
		poll_spin(p->a.scq, &wc);
		dp_check_wc(&wc, IBV_WC_SUCCESS, IBV_WC_RDMA_READ, i,
			    p->a.qp->qp_num, "damming READ");
	}
	t1 = now_ns();
	*gap = spin_gap / 1000.0;
	trace_mark("damming end odp=%d interval=%d us=%.0f gap=%.0f", odp,
		   interval, (t1 - t0) / 1000.0, *gap);
	*preempted = invol_switches() - sw0;
	for (i = 0; i < RD_LEN; i++) {
		CHECK_EQ(la[i], ra[i], "first READ's bytes");
		CHECK_EQ(la[128 + i], ra[128 + i], "second READ's bytes");
	}
	return (t1 - t0) / 1000.0;
}

/* One table of damming times: per interval, min/median/max and the worst pair. */
static void damming_table(double t[2][NPOINTS][RUNS])
{
	int i, r;

	printf("%11s %10s %10s %10s %10s %10s %10s %11s %11s\n", "interval_us",
	       "pinned_min", "odp_min", "pinned_med", "odp_med", "pinned_max",
	       "odp_max", "worst_ratio", "worst_extra");
	for (i = 0; i < NPOINTS; i++) {
		double ratio = 0, extra = -1e9, omin = 1e18, omax = 0, pmax = 0;
		double pmin = 1e18;
		double so[RUNS], sp[RUNS], x;
		int a, b;

		for (r = 0; r < RUNS; r++) {
			so[r] = t[1][i][r];
			sp[r] = t[0][i][r];
			x = t[1][i][r] / t[0][i][r];
			ratio = x > ratio ? x : ratio;
			x = t[1][i][r] - t[0][i][r];
			extra = x > extra ? x : extra;
			omin = so[r] < omin ? so[r] : omin;
			omax = so[r] > omax ? so[r] : omax;
			pmax = sp[r] > pmax ? sp[r] : pmax;
			pmin = sp[r] < pmin ? sp[r] : pmin;
		}
		for (a = 0; a < RUNS; a++)	/* sort for the medians */
			for (b = a + 1; b < RUNS; b++) {
				if (so[b] < so[a]) { x = so[a]; so[a] = so[b]; so[b] = x; }
				if (sp[b] < sp[a]) { x = sp[a]; sp[a] = sp[b]; sp[b] = x; }
			}
		printf("%11d %10.0f %10.0f %10.0f %10.0f %10.0f %10.0f %11.2f %11.0f\n",
		       intervals_us[i], pmin, omin, (sp[4] + sp[5]) / 2,
		       (so[4] + so[5]) / 2, pmax, omax, ratio, extra);
	}
}

static void bench_damming(const struct dp_case *c)
{
	const size_t pages = (size_t)NPOINTS * RUNS * ATTEMPTS + 1;
	struct dp_cfg cfg = { .type = IBV_QPT_RC };
	double t[2][NPOINTS][RUNS];
	long pre[2][NPOINTS][RUNS];
	double gap[2][NPOINTS][RUNS], tu[2][NPOINTS][RUNS];
	int repeats = 0, rep_slots = 0, never = 0;
	unsigned char *la[2], *ra[2];
	struct ibv_mr *lmr[2], *rmr[2];
	static const char *const retx[] = {
		"ack_timer_expired", "retrans_timeout", "retrans_seq_nak",
		"retrans_rnr", "retrans_implied_nak", "rnr_nak_sent", "seq_nak_sent",
		"duplicate_request",
	};
	uint64_t f0a, f0b, rx0[2][ARRAY_SIZE(retx)], tmo[2] = { 0, 0 }, x0;
	size_t k;
	struct dp_dev d[2];
	struct dp_pair p;
	int m, i, r;

	alarm(0);	/* a benchmark, not a test case: no harness timeout */
	dp_setup(&p, d, 4, &cfg);
	for (m = 0; m < 2; m++) {	/* m = 1: ODP */
		la[m] = fresh(pages * PG);
		ra[m] = fresh(pages * PG);
		lmr[m] = reg(&d[0], la[m], pages * PG, m);
		rmr[m] = reg(&d[1], ra[m], pages * PG, m);
	}
	/*
	 * A warm-up pair on the last page, not counted: the first time the
	 * guest runs the fault path, TCG translates all of it (tens of ms).
	 */
	for (m = 0; m < 2; m++) {
		double wg;
		long wp;

		damming_run(&p, la[m] + (pages - 1) * PG, lmr[m],
			    ra[m] + (pages - 1) * PG, rmr[m], 0, m, &wp, &wg);
	}
	f0a = dp_counter(&d[0], "odp_faults");
	f0b = dp_counter(&d[1], "odp_faults");
	for (k = 0; k < ARRAY_SIZE(retx); k++) {
		rx0[0][k] = dp_counter(&d[0], retx[k]);
		rx0[1][k] = dp_counter(&d[1], retx[k]);
	}
	/*
	 * Interleave: run r of a point without ODP, then with. The first pair
	 * of each slot is the plain result (t); a pair in which either run
	 * was disturbed is repeated on fresh pages, and the first undisturbed
	 * one (or the last) is the slot's undisturbed result (tu).
	 */
	for (i = 0; i < NPOINTS; i++)
		for (r = 0; r < RUNS; r++) {
			int a, dist = 1;

			for (a = 0; a < ATTEMPTS && dist; a++) {
				size_t pg = (((size_t)i * RUNS + r) * ATTEMPTS + a) * PG;
				double tm[2], gp[2];
				long pr[2];

				dist = 0;
				for (m = 0; m < 2; m++) {
					x0 = dp_counter(&d[0], "ack_timer_expired");
					tm[m] = damming_run(&p, la[m] + pg, lmr[m],
							    ra[m] + pg, rmr[m],
							    intervals_us[i], m,
							    &pr[m], &gp[m]);
					/* Each run's own: did it need a retransmission? */
					tmo[m] += dp_counter(&d[0], "ack_timer_expired") - x0;
					dist |= pr[m] > 0 || gp[m] > STALL_US;
					tu[m][i][r] = tm[m];
					if (!a) {
						t[m][i][r] = tm[m];
						pre[m][i][r] = pr[m];
						gap[m][i][r] = gp[m];
					}
				}
			}
			/* a pairs were run: the first, and a - 1 repeats */
			repeats += a - 1;
			rep_slots += a > 1;
			never += dist;
		}
	printf("packet damming: 2 READs of %d bytes, one RC QP, both sides ODP, "
	       "fresh pages each run, %d runs per interval (times in us)\n",
	       RD_LEN, RUNS);
	damming_table(t);
	printf("packet damming, undisturbed pairs: a pair is run again (fresh "
	       "pages) while either run was preempted or held off the CPU over "
	       "%d us in user space, up to %d times (times in us)\n",
	       STALL_US, ATTEMPTS);
	damming_table(tu);
	printf("packet damming, undisturbed pairs: %d of %d slots repeated, "
	       "%d repeats in all; %d slots without an undisturbed pair (their "
	       "last pair is in the table)\n", rep_slots, NPOINTS * RUNS,
	       repeats, never);
	/*
	 * The same per-run comparison with no ODP on either side: how much a
	 * pinned run exceeded the pinned run before it. What the machine's
	 * own noise gives the "1 ms over its twin" test.
	 */
	printf("packet damming A/A: the worst extra of a pinned run over the "
	       "pinned run before it (no ODP either side), us:");
	for (i = 0; i < NPOINTS; i++) {
		double aa = -1e9, x;

		for (r = 1; r < RUNS; r++) {
			x = t[0][i][r] - t[0][i][r - 1];
			aa = x > aa ? x : aa;
		}
		printf(" %d:%.0f", intervals_us[i], aa);
	}
	printf("\n");
	/*
	 * Was a slow run taken off its CPU by another task of the guest (an
	 * involuntary context switch while it ran), or held off it while it
	 * spun in user space, where sroce does nothing (a gap of over
	 * STALL_US between two clock reads: an interrupt storm, or the host not
	 * running the vCPU)?
	 */
	{
		int slow = 0, slow_pre = 0, slow_gap = 0, any[2] = { 0, 0 };
		int gaps[2] = { 0, 0 };

		for (i = 0; i < NPOINTS; i++)
			for (r = 0; r < RUNS; r++) {
				for (m = 0; m < 2; m++) {
					any[m] += pre[m][i][r] > 0;
					gaps[m] += gap[m][i][r] > STALL_US;
				}
				if (t[1][i][r] - t[0][i][r] > 1000) {
					slow++;
					slow_pre += pre[1][i][r] > 0;
					slow_gap += gap[1][i][r] > STALL_US;
				}
			}
		printf("packet damming preemptions: runs with an involuntary "
		       "context switch: pinned %d, ODP %d; ODP runs over 1 ms "
		       "more than their twin: %d, of them preempted: %d\n",
		       any[0], any[1], slow, slow_pre);
		printf("packet damming stalls: runs held off the CPU over %d us "
		       "while spinning in user space: pinned %d, ODP %d; of the "
		       "ODP runs over 1 ms more than their twin: %d\n",
		       STALL_US, gaps[0], gaps[1], slow_gap);
	}
	for (i = 0; i < NPOINTS; i++)
		for (r = 0; r < RUNS; r++)
			printf("data damming %d %d %.1f %.1f %.0f %.0f %.1f %.1f\n",
			       intervals_us[i], r, t[0][i][r], t[1][i][r],
			       gap[0][i][r], gap[1][i][r], tu[0][i][r], tu[1][i][r]);
	printf("client ACK timer expiries: in pinned runs %llu, in ODP runs %llu\n",
	       (unsigned long long)tmo[0], (unsigned long long)tmo[1]);
	printf("client odp_faults %llu, server odp_faults %llu\n",
	       (unsigned long long)(dp_counter(&d[0], "odp_faults") - f0a),
	       (unsigned long long)(dp_counter(&d[1], "odp_faults") - f0b));
	for (k = 0; k < ARRAY_SIZE(retx); k++)
		printf("client %s %llu, server %s %llu\n", retx[k],
		       (unsigned long long)(dp_counter(&d[0], retx[k]) - rx0[0][k]),
		       retx[k],
		       (unsigned long long)(dp_counter(&d[1], retx[k]) - rx0[1][k]));
	for (m = 0; m < 2; m++) {
		CHECK(!ibv_dereg_mr(lmr[m]) && !ibv_dereg_mr(rmr[m]), "dereg");
		munmap(la[m], pages * PG);
		munmap(ra[m], pages * PG);
	}
	dp_teardown(&p, d);
}

#define FLOOD_READS 8192
#define FLOOD_MAXQP 256
#define FLOOD_DEPTH 64		/* send queue of each QP */
#define FLOOD_STRIDE 128	/* bytes between READ destinations */

struct flood_res {
	double ms;
	uint64_t req_pkts, retrans, faults;
};

/* 8192 READs round-robin over @nqp QPs into a fresh buffer. */
static void flood_run(struct dp_pair *p, int nqp, int odp, const unsigned char *src,
		      struct ibv_mr *smr, struct flood_res *res)
{
	const size_t len = (size_t)FLOOD_READS * FLOOD_STRIDE;
	int out[FLOOD_MAXQP] = { 0 };
	unsigned char *dst = fresh(len);
	struct ibv_mr *dmr = reg(p[0].a.dev, dst, len, odp);
	uint64_t pk0, rt0, f0, t0, t1;
	int posted = 0, done = 0, q, n, k;
	struct ibv_wc wc[32];
	size_t i, j;

	pk0 = dp_counter(p[0].a.dev, "req_pkts_sent");
	rt0 = dp_counter(p[0].a.dev, "retrans_timeout") +
	      dp_counter(p[0].a.dev, "retrans_seq_nak") +
	      dp_counter(p[0].a.dev, "retrans_implied_nak");
	f0 = dp_counter(p[0].a.dev, "odp_faults");
	t0 = now_ns();
	while (done < FLOOD_READS) {
		/* Post in strict round-robin order while the next QP has room. */
		while (posted < FLOOD_READS && out[posted % nqp] < FLOOD_DEPTH) {
			q = posted % nqp;
			post_read(&p[q].a, posted,
				  dst + (size_t)posted * FLOOD_STRIDE, dmr->lkey,
				  src + (size_t)posted * FLOOD_STRIDE, smr->rkey);
			out[q]++;
			posted++;
		}
		for (q = 0; q < nqp; q++) {
			if (!out[q])
				continue;
			n = ibv_poll_cq(p[q].a.scq, ARRAY_SIZE(wc), wc);
			CHECK(n >= 0, "poll_cq");
			for (k = 0; k < n; k++) {
				CHECK(wc[k].status == IBV_WC_SUCCESS,
				      "flood READ %llu: %s", (unsigned long long)wc[k].wr_id,
				      ibv_wc_status_str(wc[k].status));
				out[q]--;
				done++;
			}
		}
		CHECK((now_ns() - t0) / 1000000 < 120000, "flood: 120 s passed");
	}
	t1 = now_ns();
	for (i = 0; i < FLOOD_READS; i++)
		for (j = 0; j < RD_LEN; j++)
			CHECK_EQ(dst[i * FLOOD_STRIDE + j], src[i * FLOOD_STRIDE + j],
				 "flood READ byte");
	res->ms = (t1 - t0) / 1e6;
	res->req_pkts = dp_counter(p[0].a.dev, "req_pkts_sent") - pk0;
	res->retrans = dp_counter(p[0].a.dev, "retrans_timeout") +
		       dp_counter(p[0].a.dev, "retrans_seq_nak") +
		       dp_counter(p[0].a.dev, "retrans_implied_nak") - rt0;
	res->faults = dp_counter(p[0].a.dev, "odp_faults") - f0;
	CHECK(!ibv_dereg_mr(dmr), "dereg");
	munmap(dst, len);
}

static void bench_flood(const struct dp_case *c)
{
	struct dp_cfg cfg = { .type = IBV_QPT_RC, .max_send_wr = FLOOD_DEPTH,
			      .max_recv_wr = 1, .buf_len = PG };
	const size_t len = (size_t)FLOOD_READS * FLOOD_STRIDE;
	static struct dp_pair p[FLOOD_MAXQP];
	struct flood_res res[2];
	unsigned char *src;
	struct ibv_mr *smr;
	struct dp_dev d[2];
	size_t i;
	int nqp, m;

	alarm(0);	/* a benchmark, not a test case: no harness timeout */
	dp_setup(&p[0], d, 4, &cfg);
	for (i = 1; i < FLOOD_MAXQP; i++)
		dp_pair_create(&p[i], &d[0], &d[1], &cfg);
	src = fresh(len);
	for (i = 0; i < len; i++)
		src[i] = dp_pat(i, 42);
	smr = reg(&d[1], src, len, 0);
	printf("packet flood: %d READs of %d bytes round-robin over N RC QPs, "
	       "client-side ODP into fresh pages (server pinned)\n",
	       FLOOD_READS, RD_LEN);
	printf("%5s %10s %10s %8s %10s %10s %8s %8s %10s\n", "qps", "pinned_ms",
	       "odp_ms", "odp/pin", "pkts/READ", "pkts/READ", "retx", "retx",
	       "odp_faults");
	printf("%5s %10s %10s %8s %10s %10s %8s %8s %10s\n", "", "", "", "",
	       "pinned", "odp", "pinned", "odp", "");
	for (nqp = 1; nqp <= FLOOD_MAXQP; nqp *= 2) {
		for (m = 0; m < 2; m++)
			flood_run(p, nqp, m, src, smr, &res[m]);
		printf("%5d %10.1f %10.1f %8.2f %10.3f %10.3f %8llu %8llu %10llu\n",
		       nqp, res[0].ms, res[1].ms, res[1].ms / res[0].ms,
		       (double)res[0].req_pkts / FLOOD_READS,
		       (double)res[1].req_pkts / FLOOD_READS,
		       (unsigned long long)res[0].retrans,
		       (unsigned long long)res[1].retrans,
		       (unsigned long long)res[1].faults);
		printf("data flood %d %.2f %.2f %.4f %.4f\n", nqp, res[0].ms, res[1].ms,
		       (double)res[0].req_pkts / FLOOD_READS,
		       (double)res[1].req_pkts / FLOOD_READS);
	}
	CHECK(!ibv_dereg_mr(smr), "dereg");
	for (i = FLOOD_MAXQP - 1; i > 0; i--)
		dp_pair_destroy(&p[i]);
	dp_teardown(&p[0], d);
}

static const struct dp_case cases[] = {
	{ "damming", bench_damming, IBV_QPT_RC, 4 },
	{ "flood", bench_flood, IBV_QPT_RC, 4 },
};

int main(int argc, char **argv)
{
	return dp_main(argc, argv, cases, ARRAY_SIZE(cases));
}
