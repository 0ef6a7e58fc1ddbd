// SPDX-License-Identifier: GPL-2.0-only
/*
 * hard_rxq: the per-QP receive queue is bounded.
 *
 * sroce_qp_deliver() queues every packet that passed the device and QP
 * checks (ICRC, state, transport, P_Key) on the QP's rx_req or rx_resp
 * list for its engines, before any PSN check; a packet that finds
 * SROCE_MAX_RX_QUEUE (one send window, SROCE_WIN_MAX = 2048) already
 * queued is dropped and counted (rx_drop_queue_full). The lists drain at
 * once while the engines run inline in the receive softirq; they grow
 * only while nobody can run the engines.
 *
 * RC_flood_out_of_sequence makes them grow: with inline_engines off every
 * engine run goes to the QP's work item, queued on the CPU of the receive
 * softirq, and the injector (selftests/net/roce_flood.py), pinned to CPU 0
 * as SCHED_FIFO with RT throttling off, sends from A's namespace through
 * the veth, whose receive softirq runs on CPU 0 after each send: the
 * kworker of CPU 0 cannot run until the flood ends. FLOOD_N copies of one
 * valid RC SEND ONLY to B's QP, with a PSN 4096 ahead of the expected one,
 * pile up in B's rx_req. Checked:
 * - 0 < rx_drop_queue_full <= FLOOD_N - 2048 (a packet is dropped only
 *   when 2048 wait), exactly FLOOD_N - 2048 when the kworker was starved
 *   for the whole flood (from Linux 6.12 the fair server of CPU 0 must be
 *   off for that), and every packet not dropped reached the responder
 *   (out_of_sequence + rx_drop_queue_full == FLOOD_N);
 * - the slab memory (/proc/meminfo Slab:, sampled from CPU 1 during the
 *   flood) grew by at most what 2048 queued packets take, and is back
 *   near its baseline after the drain;
 * - the responder answers the gap with one PSN sequence error NAK and no
 *   state change (seed-rules R2.5): B's QP stays RTS, A (which sent
 *   nothing) ignores the NAK;
 * - then A's SEND and WRITE reach B with every byte right.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <unistd.h>
#include "../errors/err.h"

#define RXQ_BOUND	2048	/* SROCE_MAX_RX_QUEUE */
#define FLOOD_N		8000
#define FLOOD_PAYLOAD	256
#define FLOOD_AHEAD	0x1000	/* PSNs ahead of B's expected one */
#define SEND_LEN	(4 * KiB)
#define WRITE_LEN	(16 * KiB)

/* Slab: of /proc/meminfo, in KiB. */
static long slab_kib(void)
{
	char line[128];
	long v = -1;
	FILE *f = fopen("/proc/meminfo", "r");

	CHECK(f, "/proc/meminfo: %m");
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "Slab: %ld kB", &v) == 1)
			break;
	fclose(f);
	CHECK(v >= 0, "no Slab: in /proc/meminfo");
	return v;
}

/* Samples Slab: every few ms until told to stop; keeps the highest. */
struct sampler {
	pthread_t t;
	int stop;	/* __atomic: set by the case, read by the sampler */
	long peak;
};

static void *sampler_fn(void *arg)
{
	struct sampler *s = arg;

	while (!__atomic_load_n(&s->stop, __ATOMIC_RELAXED)) {
		long v = slab_kib();

		if (v > s->peak)
			s->peak = v;
		usleep(2000);
	}
	return NULL;
}

static void pin_self(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	CHECK(!sched_setaffinity(0, sizeof(set), &set), "pin to CPU %d: %m", cpu);
}

/*
 * roce_flood.py in A's namespace: @count RC SEND ONLY to B's QP with PSN
 * @psn, SCHED_FIFO on CPU 0. Returns the packets sent; @starved tells
 * whether the fair server of CPU 0 was off too, so that no normal task
 * ran there during the flood.
 */
static unsigned long flood(const struct dp_pair *p, uint32_t psn,
			   unsigned int count, double *secs, int *starved)
{
	const char *pkt = getenv("ROCE_PKT"), *ns = getenv("NS_A");
	const unsigned char *ip = p->b.dev->ip;
	char cmd[1024], line[256], dir[512], dst[64], opts[256];
	unsigned long sent = 0;
	FILE *f;

	if (!pkt || !ns)
		dp_skip("flooding needs ROCE_PKT and NS_A (sroce target)");
	CHECK(p->b.dev->family == 4, "flooding is over IPv4");
	snprintf(dir, sizeof(dir), "%s", pkt);
	CHECK(strrchr(dir, '/'), "ROCE_PKT %s is no path", pkt);
	*strrchr(dir, '/') = 0;
	snprintf(dst, sizeof(dst), "%u.%u.%u.%u", ip[0], ip[1], ip[2], ip[3]);
	snprintf(opts, sizeof(opts), "--qpn 0x%x --psn 0x%x --opcode 0x04 --payload %u --count %u",
		 p->b.qp->qp_num, psn, FLOOD_PAYLOAD, count);
	/* The ping resolves the neighbour: a raw packet may wait for ARP. */
	snprintf(cmd, sizeof(cmd), "ip netns exec %s ping -q -c 1 -W 5 %s >/dev/null && ",
		 ns, dst);
	snprintf(cmd + strlen(cmd), sizeof(cmd) - strlen(cmd),
		 "ip netns exec %s python3 %s/roce_flood.py %s %s --cpu 0 --fifo 50",
		 ns, dir, dst, opts);
	NOTE("%s", cmd);
	f = popen(cmd, "r");
	CHECK(f, "popen: %m");
	while (fgets(line, sizeof(line), f)) {
		printf("# %s", line);
		if (sscanf(line, "sent %lu secs %lf", &sent, secs) == 2)
			*starved = !!strstr(line, "fair_server off");
	}
	CHECK(pclose(f) == 0, "roce_flood.py failed");
	return sent;
}

static void post_write(struct dp_pair *p, const struct dp_sgl *s,
		       unsigned long long raddr, unsigned long long wr_id)
{
	dp_send_wr(p, IBV_WR_RDMA_WRITE, wr_id, s, IBV_SEND_SIGNALED, 0, raddr,
		   p->b.buf.mr->rkey);
}

/* A's SEND and WRITE reach B whole, each byte right. */
static void real_traffic(struct dp_pair *p)
{
	struct ibv_sge rs = { (uintptr_t)p->b.buf.p, SEND_LEN, p->b.buf.mr->lkey };
	unsigned char *wdst = p->b.buf.p + 2 * SEND_LEN;
	struct dp_sgl s;
	struct ibv_wc wc;

	memset(p->b.buf.p, 0xa5, p->b.buf.len);
	dp_post_recv(&p->b, 1, &rs, 1);
	dp_sgl_make(&s, &p->a.buf, 0, SEND_LEN, 1, 0);
	dp_sgl_fill(&s, 11);
	dp_send_wr(p, IBV_WR_SEND, 2, &s, IBV_SEND_SIGNALED, 0, 0, 0);
	dp_poll(p->a.scq, &wc, DP_TIMEOUT_MS, "SEND after the flood");
	dp_check_wc(&wc, IBV_WC_SUCCESS, IBV_WC_SEND, 2, p->a.qp->qp_num,
		    "SEND after the flood");
	dp_poll(p->b.rcq, &wc, DP_TIMEOUT_MS, "receive after the flood");
	dp_check_wc(&wc, IBV_WC_SUCCESS, IBV_WC_RECV, 1, p->b.qp->qp_num,
		    "receive after the flood");
	CHECK_EQ(wc.byte_len, SEND_LEN, "received bytes");
	dp_check_range(p->b.buf.p, SEND_LEN, 11, "SEND data at B");
	dp_check_fill(p->b.buf.p + SEND_LEN, SEND_LEN, 0xa5, "past the receive");

	dp_sgl_make(&s, &p->a.buf, 0, WRITE_LEN, 1, 0);
	dp_sgl_fill(&s, 12);
	post_write(p, &s, (uintptr_t)wdst, 3);
	dp_poll(p->a.scq, &wc, DP_TIMEOUT_MS, "WRITE after the flood");
	dp_check_wc(&wc, IBV_WC_SUCCESS, IBV_WC_RDMA_WRITE, 3, p->a.qp->qp_num,
		    "WRITE after the flood");
	dp_check_range(wdst, WRITE_LEN, 12, "WRITE data at B");
	dp_check_fill(wdst + WRITE_LEN, p->b.buf.len - 2 * SEND_LEN - WRITE_LEN,
		      0xa5, "past the WRITE");
	dp_expect_none(p->b.rcq, 50, "B's receive CQ (a WRITE consumes no WQE)");
}

static void test_flood(const struct dp_case *c)
{
	struct dp_cfg cfg = { .type = IBV_QPT_RC };
	unsigned long long drop0, oos0, nak0, drops, oos = 0, naks, t0;
	struct sampler smp = { 0 };
	long slab0, slab1;
	unsigned long sent;
	struct dp_dev d[2];
	struct dp_pair p;
	double secs = 0;
	int starved = 0;

	if (sysconf(_SC_NPROCESSORS_ONLN) < 2)
		dp_skip("needs 2 CPUs: the flood holds CPU 0");
	/* This process samples and waits on CPU 1; the flood owns CPU 0. */
	pin_self(1);
	dp_setup(&p, d, c->fam, &cfg);
	/* The work items of the engines only: the kworker that cannot run. */
	dp_param_set("inline_engines", "N");
	drop0 = dp_counter(&d[1], "rx_drop_queue_full");
	oos0 = dp_counter(&d[1], "out_of_sequence");
	nak0 = dp_counter(&d[1], "seq_nak_sent");
	slab0 = slab_kib();
	smp.peak = slab0;
	CHECK(!pthread_create(&smp.t, NULL, sampler_fn, &smp), "pthread_create");
	sent = flood(&p, (p.cfg.psn_a + FLOOD_AHEAD) & 0xffffff, FLOOD_N, &secs,
		     &starved);
	__atomic_store_n(&smp.stop, 1, __ATOMIC_RELAXED);
	pthread_join(smp.t, NULL);
	dp_param_set("inline_engines", "Y");
	CHECK_EQ(sent, FLOOD_N, "packets the flood sent");

	/* The kworker drains what was queued: each one out of sequence. */
	t0 = dp_now_ms();
	for (;;) {
		drops = dp_counter(&d[1], "rx_drop_queue_full") - drop0;
		oos = dp_counter(&d[1], "out_of_sequence") - oos0;
		if (drops + oos >= sent || dp_now_ms() - t0 > 20000)
			break;
		usleep(100000);
	}
	naks = dp_counter(&d[1], "seq_nak_sent") - nak0;
	slab1 = slab_kib();
	NOTE("sent %lu in %.2f s: rx_drop_queue_full +%llu, out_of_sequence +%llu",
	     sent, secs, drops, oos);
	NOTE("seq_nak_sent +%llu; Slab %ld kB, peak +%ld kB, after the drain %+ld kB",
	     naks, slab0, smp.peak - slab0, slab1 - slab0);
	CHECK(drops > 0, "no packet dropped: the queue took all %lu packets", sent);
	CHECK(drops <= sent - RXQ_BOUND, "%llu dropped of %lu: the queue took fewer than %d",
	      drops, sent, RXQ_BOUND);
	/* The kworker never ran: the first 2048 waited, all others dropped. */
	if (starved)
		CHECK_EQ(drops, sent - RXQ_BOUND, "dropped, CPU 0's kworker starved");
	CHECK(drops + oos == sent, "dropped %llu + handled out of sequence %llu != %lu sent",
	      drops, oos, sent);
	/*
	 * At most 2048 packets were held at once, each its skb and a kmalloc
	 * of its head and data: about 1.6 KiB with slub_debug (3.2 MiB for
	 * 2048 measured); FLOOD_N queued would take 4 times that.
	 */
	CHECK(smp.peak - slab0 < RXQ_BOUND * 2 + 2048,
	      "Slab grew by %ld kB during the flood, more than %d queued packets take",
	      smp.peak - slab0, RXQ_BOUND);
	CHECK(slab1 - slab0 < 2048, "Slab %+ld kB after the drain",
	      slab1 - slab0);

	/* seed-rules R2.5: one sequence error NAK for the gap, no error. */
	CHECK_EQ(naks, 1, "PSN sequence error NAKs for one gap");
	err_expect_state(p.b.qp, IBV_QPS_RTS, "B's QP after the flood");
	err_expect_state(p.a.qp, IBV_QPS_RTS, "A's QP (a NAK for nothing it sent)");
	dp_expect_none(p.a.scq, 50, "A's send CQ");
	err_expect_no_event(d[1].ctx, 50, "B's context");
	real_traffic(&p);
	err_expect_state(p.b.qp, IBV_QPS_RTS, "B's QP after real traffic");
	NOTE("queue bounded at %d, the QP carries traffic again", RXQ_BOUND);
	dp_teardown(&p, d);
}

static const struct dp_case cases[] = {
	/* seed-rules R2.5 */
	{ "RC_flood_out_of_sequence", test_flood, IBV_QPT_RC, 4, 0 },
};

int main(int argc, char **argv)
{
	return dp_main(argc, argv, cases, ARRAY_SIZE(cases));
}
