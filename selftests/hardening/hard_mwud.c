// SPDX-License-Identifier: GPL-2.0-only
/*
 * hard_mwud: memory windows bound to a QP that is gone, and UD datagrams
 * too long for the path MTU or for the receive WQE.
 *
 * MW2_QPN_reused_*: a type 2 window belongs to the QP that bound it (IBA
 * 10.6.7.2.2), not to its number. B's QP X binds a window, X is destroyed,
 * and a new QP Y on B gets X's QPN (the device's debugfs qp_next, see
 * Documentation/fault-injection.md), in X's PD or in another one. A's
 * WRITE through the window to Y is seed-rules R3.4 "WRITE: bad R_Key"
 * (R3.5: the R_Key check): REM_ACCESS_ERR on A, QP_ACCESS_ERR and ERROR
 * on Y, the window's memory untouched.
 *
 * UD_over_MTU_dropped: a UD datagram longer than the port's active MTU is
 * malformed (seed-rules R1.1: a UD message is at most one path MTU): it is
 * dropped and counted (rx_drop_ud_over_mtu) without a completion, an event
 * or a state change, like the silent drops of R1.5; a datagram of exactly
 * the MTU is received.
 *
 * UD_too_long_for_WQE: a datagram within the MTU but longer than the
 * receive WQE completes it with LOC_LEN_ERR and the QP goes to ERROR
 * (seed-rules R3.2; IBA: a receive WQE completed in error takes the QP
 * to ERROR).
 *
 * GSI_survives_oversized: the GSI QP (QP1, owned by ib_mad) neither dies
 * of an over-MTU datagram nor of one longer than a MAD buffer with the GSI
 * Q_Key: both are dropped and counted (rx_drop_ud_over_mtu,
 * rx_drop_gsi_too_long), QP1 stays RTS (`rdma resource show qp`) and an
 * rdma_cm connection (rping, whose CM MADs go through QP1) still works.
 */
#include <errno.h>
#include <unistd.h>
#include "../errors/err.h"

#define MW_REMOTE (IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ)
#define MR_FULL (IBV_ACCESS_LOCAL_WRITE | MW_REMOTE | IBV_ACCESS_MW_BIND)
#define WIN_LEN 4096
#define GSI_QKEY 0x80010000u

static void post_write(struct dp_pair *p, uint64_t addr, uint32_t rkey, uint64_t wr_id)
{
	struct ibv_sge ls = { (uintptr_t)p->a.buf.p, 64, p->a.buf.mr->lkey };
	struct ibv_send_wr wr = {
		.wr_id = wr_id, .opcode = IBV_WR_RDMA_WRITE, .sg_list = &ls,
		.num_sge = 1, .send_flags = IBV_SEND_SIGNALED,
	};

	memset(p->a.buf.p, 0xc3, 64);
	wr.wr.rdma.remote_addr = addr;
	wr.wr.rdma.rkey = rkey;
	dp_post_send(&p->a, &wr);
}

/*
 * seed-rules R3.4, R3.5: a type 2 window bound by QP X is no key for the
 * QP Y that later gets X's number (c->op 0: Y in X's PD, 1: in another).
 */
static void test_mw2_qpn_reused(const struct dp_case *c)
{
	struct dp_cfg cfg = { .type = IBV_QPT_RC };
	struct ibv_pd *pd_b, *pd2 = NULL;
	struct dp_pair px, py;
	unsigned char *win;
	struct ibv_mr *mr;
	struct ibv_mw *mw;
	struct dp_dev d[2];
	uint32_t qpn;

	dp_open(&d[0], 0, c->fam);
	dp_open(&d[1], 1, c->fam);
	pd_b = d[1].pd;
	win = aligned_alloc(4096, WIN_LEN);
	CHECK(win, "aligned_alloc");
	mr = ibv_reg_mr(pd_b, win, WIN_LEN, MR_FULL);
	CHECK(mr, "reg_mr: %m");
	mw = ibv_alloc_mw(pd_b, IBV_MW_TYPE_2);
	CHECK(mw, "alloc_mw type 2: %m");

	/* X binds the window and uses it. */
	dp_pair_create(&px, &d[0], &d[1], &cfg);
	CHECK_EQ(err_bind_mw2(&px.b, mw, mr, (uintptr_t)win, WIN_LEN, MW_REMOTE),
		 IBV_WC_SUCCESS, "bind on X");
	memset(win, 0x5a, WIN_LEN);
	post_write(&px, (uintptr_t)win, mw->rkey, 21);
	err_expect_wc(px.a.scq, IBV_WC_SUCCESS, 21, px.a.qp, "WRITE through the window to X");
	dp_check_fill(win, 64, 0xc3, "window bytes written through X");
	qpn = px.b.qp->qp_num;
	dp_pair_destroy(&px);

	/* Y gets X's number, in X's PD or another one. */
	if (c->op) {
		pd2 = ibv_alloc_pd(d[1].ctx);
		CHECK(pd2, "alloc_pd: %m");
		d[1].pd = pd2;
	}
	dp_debugfs_write(&d[1], "qp_next", qpn);
	dp_pair_create(&py, &d[0], &d[1], &cfg);
	d[1].pd = pd_b;
	CHECK_EQ(py.b.qp->qp_num, qpn, "Y's QPN (X's, through qp_next)");

	memset(win, 0x5a, WIN_LEN);
	post_write(&py, (uintptr_t)win, mw->rkey, 22);
	err_expect_wc(py.a.scq, IBV_WC_REM_ACCESS_ERR, 22, py.a.qp,
		      "requester WRITE through X's window to Y");
	err_expect_event(d[1].ctx, IBV_EVENT_QP_ACCESS_ERR, py.b.qp, 5000, "Y");
	err_expect_state(py.b.qp, IBV_QPS_ERR, "Y");
	err_expect_state(py.a.qp, IBV_QPS_ERR, "requester QP");
	dp_check_fill(win, WIN_LEN, 0x5a, "window memory");
	NOTE("window of destroyed QP 0x%x denied to its successor (%s PD)", qpn,
	     c->op ? "another" : "the same");

	dp_pair_destroy(&py);
	CHECK(!ibv_dealloc_mw(mw), "dealloc_mw");
	CHECK(!ibv_dereg_mr(mr), "dereg_mr");
	free(win);
	if (pd2)
		CHECK(!ibv_dealloc_pd(pd2), "dealloc_pd");
	dp_close(&d[1]);
	dp_close(&d[0]);
}

/* @count UD SEND ONLY of @len bytes to B's QP @qpn from A's address. */
static void inject_ud(const struct dp_pair *p, uint32_t qpn, uint32_t qkey,
		      unsigned int len, unsigned int count)
{
	err_inject_ud(p, qpn, 0xFFFF, qkey, len, count);
}

static void post_ud_recv(struct dp_pair *p, uint64_t wr_id, uint32_t len)
{
	struct ibv_sge rs = { (uintptr_t)p->b.buf.p, DP_GRH + len, p->b.buf.mr->lkey };

	dp_post_recv(&p->b, wr_id, &rs, 1);
}

/* seed-rules R1.1, R1.5: over the MTU: dropped, counted, nothing else. */
static void test_ud_over_mtu(const struct dp_case *c)
{
	struct dp_cfg cfg = { .type = IBV_QPT_UD };
	struct dp_dev d[2];
	struct dp_pair p;
	long n0;

	dp_setup(&p, d, c->fam, &cfg);
	CHECK(p.mtu + 4 + 100 <= 1500, "an over-MTU datagram fits the veth");
	post_ud_recv(&p, 1, 2 * p.mtu);
	n0 = err_counter(&d[1], "rx_drop_ud_over_mtu");
	inject_ud(&p, p.b.qp->qp_num, p.qkey, p.mtu + 4, 1);
	dp_expect_none(p.b.rcq, 300, "B's receive CQ after an over-MTU datagram");
	err_expect_no_event(d[1].ctx, 50, "B's context");
	err_expect_state(p.b.qp, IBV_QPS_RTS, "B's UD QP");
	CHECK_EQ(err_counter(&d[1], "rx_drop_ud_over_mtu") - n0, 1,
		 "rx_drop_ud_over_mtu delta");
	/* The WQE is still there for a datagram of exactly the MTU. */
	inject_ud(&p, p.b.qp->qp_num, p.qkey, p.mtu, 1);
	err_expect_ud_recv(&p, 1, p.mtu);
	CHECK_EQ(err_counter(&d[1], "rx_drop_ud_over_mtu") - n0, 1,
		 "rx_drop_ud_over_mtu delta");
	NOTE("%u bytes dropped and counted, %u received", p.mtu + 4, p.mtu);
	dp_teardown(&p, d);
}

/* seed-rules R3.2: within the MTU, too long for the WQE: LOC_LEN_ERR. */
static void test_ud_too_long_for_wqe(const struct dp_case *c)
{
	struct dp_cfg cfg = { .type = IBV_QPT_UD };
	struct dp_dev d[2];
	struct dp_pair p;
	struct ibv_wc wc;

	dp_setup(&p, d, c->fam, &cfg);
	post_ud_recv(&p, 3, 128);
	inject_ud(&p, p.b.qp->qp_num, p.qkey, 512, 1);
	dp_poll(p.b.rcq, &wc, 5000, "B's receive");
	dp_check_wc(&wc, IBV_WC_LOC_LEN_ERR, IBV_WC_RECV, 3, p.b.qp->qp_num,
		    "B's receive of 512 bytes into 128");
	err_expect_state(p.b.qp, IBV_QPS_ERR, "B's UD QP");
	NOTE("512-byte datagram into a 128-byte WQE: LOC_LEN_ERR, QP in ERROR");
	dp_teardown(&p, d);
}

/* The state of @d's GSI QP as `rdma resource show qp` prints it. */
static void qp1_state(const struct dp_dev *d, char *st, size_t n)
{
	char cmd[256], tok[128], prev[128] = "";
	FILE *f;

	snprintf(st, n, "?");
	snprintf(cmd, sizeof(cmd), "rdma resource show qp link %s/1 lqpn 1", d->name);
	f = popen(cmd, "r");
	CHECK(f, "popen: %m");
	while (fscanf(f, "%127s", tok) == 1) {
		if (!strcmp(prev, "state"))
			snprintf(st, n, "%.31s", tok);
		snprintf(prev, sizeof(prev), "%s", tok);
	}
	CHECK(pclose(f) == 0, "%s failed", cmd);
}

static void expect_qp1_rts(const struct dp_dev *d, const char *what)
{
	char st[32];

	qp1_state(d, st, sizeof(st));
	CHECK(!strcmp(st, "RTS"), "%s: %s's QP1 is %s, want RTS", what, d->name, st);
}

/*
 * An rdma_cm connection from B to A (rping, 2 iterations): its CM MADs go
 * through both devices' QP1. Returns rping's exit status (0 works).
 */
static int rdma_cm_works(const struct dp_pair *p)
{
	const char *na = getenv("NS_A"), *nb = getenv("NS_B");
	const struct dp_dev *a = p->a.dev;
	char cmd[1024], ip[32];
	int rc;

	if (!na || !nb)
		dp_skip("needs NS_A and NS_B (sroce target)");
	if (system("command -v rping >/dev/null"))
		dp_skip("no rping (rdmacm-utils)");
	snprintf(ip, sizeof(ip), "%u.%u.%u.%u", a->ip[0], a->ip[1], a->ip[2], a->ip[3]);
	snprintf(cmd, sizeof(cmd),
		 "ip netns exec %s timeout 30 rping -s -a %s -p 7471 -C 2 >/dev/null 2>&1 & s=$!; "
		 "sleep 1; ip netns exec %s timeout 20 rping -c -a %s -p 7471 -C 2 -S 64; c=$?; "
		 "wait $s; s=$?; echo \"rping client $c server $s\"; [ $c = 0 ] && [ $s = 0 ]",
		 na, ip, nb, ip);
	NOTE("%s", cmd);
	rc = system(cmd);
	return rc;
}

/* seed-rules R1.1, R1.5: QP1 survives any datagram; rdma_cm still works. */
static void test_gsi_survives(const struct dp_case *c)
{
	struct dp_cfg cfg = { .type = IBV_QPT_UD };
	long m0, g0;
	struct dp_dev d[2];
	struct dp_pair p;

	dp_setup(&p, d, c->fam, &cfg);
	expect_qp1_rts(&d[1], "before");
	CHECK(!rdma_cm_works(&p), "rdma_cm connection before any injection");
	m0 = err_counter(&d[1], "rx_drop_ud_over_mtu");
	g0 = err_counter(&d[1], "rx_drop_gsi_too_long");
	/* Over the MTU. */
	inject_ud(&p, 1, GSI_QKEY, p.mtu + 4, 1);
	/* Within the MTU, longer than any MAD (256 bytes) and its buffer. */
	inject_ud(&p, 1, GSI_QKEY, p.mtu, 3);
	usleep(300 * 1000);
	expect_qp1_rts(&d[1], "after the oversized datagrams");
	CHECK(!rdma_cm_works(&p), "rdma_cm connection after the oversized datagrams");
	CHECK_EQ(err_counter(&d[1], "rx_drop_ud_over_mtu") - m0, 1,
		 "rx_drop_ud_over_mtu delta");
	CHECK_EQ(err_counter(&d[1], "rx_drop_gsi_too_long") - g0, 3,
		 "rx_drop_gsi_too_long delta");
	NOTE("QP1 dropped and counted 1 over-MTU and 3 over-MAD datagrams; rdma_cm works");
	dp_teardown(&p, d);
}

static const struct dp_case cases[] = {
	/* seed-rules R3.4, R3.5 */
	{ "MW2_QPN_reused_same_PD", test_mw2_qpn_reused, IBV_QPT_RC, 4, 0 },
	{ "MW2_QPN_reused_other_PD", test_mw2_qpn_reused, IBV_QPT_RC, 4, 1 },
	/* seed-rules R1.1, R1.5 */
	{ "UD_over_MTU_dropped", test_ud_over_mtu, IBV_QPT_UD, 4 },
	/* seed-rules R3.2 */
	{ "UD_too_long_for_WQE", test_ud_too_long_for_wqe, IBV_QPT_UD, 4 },
	/* seed-rules R1.1, R1.5 */
	{ "GSI_survives_oversized", test_gsi_survives, IBV_QPT_UD, 4 },
};

int main(int argc, char **argv)
{
	return dp_main(argc, argv, cases, ARRAY_SIZE(cases));
}
