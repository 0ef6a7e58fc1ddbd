// SPDX-License-Identifier: GPL-2.0-only
/*
 * hard_mwud: memory windows bound to a QP that is gone.
 *
 * MW2_QPN_reused_*: a type 2 window belongs to the QP that bound it (IBA
 * 10.6.7.2.2), not to its number. B's QP X binds a window, X is destroyed,
 * and a new QP Y on B gets X's QPN (the device's debugfs qp_next, see
 * Documentation/fault-injection.md), in X's PD or in another one. A's
 * WRITE through the window to Y is seed-rules R3.4 "WRITE: bad R_Key"
 * (R3.5: the R_Key check): REM_ACCESS_ERR on A, QP_ACCESS_ERR and ERROR
 * on Y, the window's memory untouched.
 */
#include <errno.h>
#include <unistd.h>
#include "../errors/err.h"

#define MW_REMOTE (IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ)
#define MR_FULL (IBV_ACCESS_LOCAL_WRITE | MW_REMOTE | IBV_ACCESS_MW_BIND)
#define WIN_LEN 4096

/* Write @val to B's debugfs file @file (/sys/kernel/debug/sroce/<dev>/). */
static void debugfs_write(const struct dp_dev *d, const char *file, unsigned int val)
{
	char path[256];
	FILE *f;

	snprintf(path, sizeof(path), "/sys/kernel/debug/sroce/%s/%s", d->name, file);
	f = fopen(path, "w");
	if (!f && errno == ENOENT)
		dp_skip("no %s (debugfs not mounted?)", path);
	CHECK(f, "open %s: %m", path);
	CHECK(fprintf(f, "%u\n", val) > 0 && fclose(f) == 0, "write %s: %m", path);
}

static enum ibv_wc_status bind2(struct dp_end *e, struct ibv_mw *mw,
				struct ibv_mr *mr, uint64_t addr, uint64_t len)
{
	struct ibv_send_wr wr = {
		.wr_id = 12, .opcode = IBV_WR_BIND_MW,
		.send_flags = IBV_SEND_SIGNALED,
	}, *bad;
	struct ibv_wc wc;

	wr.bind_mw.mw = mw;
	wr.bind_mw.rkey = ibv_inc_rkey(mw->rkey);
	wr.bind_mw.bind_info = (struct ibv_mw_bind_info){
		.mr = mr, .addr = addr, .length = len, .mw_access_flags = MW_REMOTE,
	};
	CHECK(!ibv_post_send(e->qp, &wr, &bad), "post BIND_MW: %m");
	dp_poll(e->scq, &wc, 5000, "bind type 2");
	CHECK_EQ(wc.wr_id, 12, "bind wr_id");
	if (wc.status == IBV_WC_SUCCESS)
		mw->rkey = wr.bind_mw.rkey;
	return wc.status;
}

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
	CHECK_EQ(bind2(&px.b, mw, mr, (uintptr_t)win, WIN_LEN), IBV_WC_SUCCESS, "bind on X");
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
	debugfs_write(&d[1], "qp_next", qpn);
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

static const struct dp_case cases[] = {
	/* seed-rules R3.4, R3.5 */
	{ "MW2_QPN_reused_same_PD", test_mw2_qpn_reused, IBV_QPT_RC, 4, 0 },
	{ "MW2_QPN_reused_other_PD", test_mw2_qpn_reused, IBV_QPT_RC, 4, 1 },
};

int main(int argc, char **argv)
{
	return dp_main(argc, argv, cases, ARRAY_SIZE(cases));
}
