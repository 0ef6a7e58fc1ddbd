// SPDX-License-Identifier: GPL-2.0-only
/*
 * err_mw: memory windows and invalidation, with their errors, checked on
 * both sides (seed-rules R3.4, R3.5, R5.1; IBA 10.6.7).
 *
 * Windows live on end B (the responder) and are bound by B's QP; end A
 * accesses them with RDMA WRITE. Every "denied" access is the R3.4 row
 * "WRITE: bad R_Key": A's WRITE completes with REM_ACCESS_ERR, B gets
 * IBV_EVENT_QP_ACCESS_ERR, both QPs go to ERROR and B's memory is
 * untouched. Every case first shows the key working, so that the denial
 * comes from the invalidation, unbinding or fault the case makes.
 *
 * A failed bind completes on B's send CQ with IBV_WC_MW_BIND_ERR and moves
 * B's QP to ERROR (R3.2) with no async event; A's QP is untouched. Binds
 * that libibverbs' ibv_bind_mw can refuse before posting (a type 1 window
 * outside its MR or of another PD) are immediate EINVAL (R3.1).
 *
 * Not reachable from user space: fast-registration MRs. libibverbs has no
 * verb to allocate one (ib_alloc_mr is kernel-only) nor a REG_MR work
 * request, so REG_MR, LOCAL_INV of a fast-reg MR and re-registration of a
 * valid one are kernel-ULP paths (sroce_mr_fast_reg,
 * sroce_mr_local_invalidate); from user space LOCAL_INV can only name a
 * type 2 window or an ordinary MR, and the latter fails (MR_LOCAL_INV).
 */
#include <errno.h>
#include <unistd.h>
#include "err.h"

#define MW_REMOTE (IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ)
#define MR_FULL (IBV_ACCESS_LOCAL_WRITE | MW_REMOTE | IBV_ACCESS_MW_BIND)
#define WIN_OFF 4096	/* the window: B's buffer bytes [4096, 8192) */
#define WIN_LEN 4096

struct mwt {
	struct dp_dev d[2];
	struct dp_pair p;
	struct ibv_mr *mr;	/* B's buffer, bindable */
	struct ibv_mw *mw;
	struct ibv_pd *pd2;
	uint64_t win;		/* address of the window */
};

static void mwt_setup(struct mwt *t, const struct dp_case *c, int mw_type,
		      int mr_access)
{
	struct dp_cfg cfg = { .type = IBV_QPT_RC };

	memset(t, 0, sizeof(*t));
	dp_setup(&t->p, t->d, c->fam, &cfg);
	t->mr = ibv_reg_mr(t->d[1].pd, t->p.b.buf.p, t->p.b.buf.len, mr_access);
	CHECK(t->mr, "reg_mr with access 0x%x: %m", mr_access);
	t->mw = ibv_alloc_mw(t->d[1].pd, mw_type);
	CHECK(t->mw, "alloc_mw type %d: %m", mw_type);
	t->win = (uintptr_t)t->p.b.buf.p + WIN_OFF;
}

static void mwt_teardown(struct mwt *t)
{
	if (t->mw)
		CHECK(!ibv_dealloc_mw(t->mw), "dealloc_mw");
	CHECK(!ibv_dereg_mr(t->mr), "dereg_mr");
	if (t->pd2)
		CHECK(!ibv_dealloc_pd(t->pd2), "dealloc_pd");
	dp_teardown(&t->p, t->d);
}

/* Type 1: ibv_bind_mw (length 0 unbinds); returns the completion status. */
static enum ibv_wc_status bind1(struct dp_end *e, struct ibv_mw *mw,
				struct ibv_mr *mr, uint64_t addr, uint64_t len,
				unsigned int access)
{
	struct ibv_mw_bind b = {
		.wr_id = 11, .send_flags = IBV_SEND_SIGNALED,
		.bind_info = { .mr = len ? mr : NULL, .addr = len ? addr : 0,
			       .length = len, .mw_access_flags = access },
	};

	CHECK(!ibv_bind_mw(e->qp, mw, &b), "ibv_bind_mw: %m");
	return err_local_wc(e, 11, IBV_WC_BIND_MW, "bind type 1");
}

static void post_write(struct dp_pair *p, uint64_t addr, uint32_t rkey,
		       uint64_t wr_id)
{
	struct ibv_sge ls = { (uintptr_t)p->a.buf.p, 64, p->a.buf.mr->lkey };
	struct ibv_send_wr wr = {
		.wr_id = wr_id, .opcode = IBV_WR_RDMA_WRITE, .sg_list = &ls,
		.num_sge = 1, .send_flags = IBV_SEND_SIGNALED,
	};

	wr.wr.rdma.remote_addr = addr;
	wr.wr.rdma.rkey = rkey;
	dp_post_send(&p->a, &wr);
}

/* A's 64-byte WRITE through @rkey lands. */
static void write_ok(struct dp_pair *p, uint64_t addr, uint32_t rkey)
{
	static uint32_t seed = 100;

	seed++;
	for (int i = 0; i < 64; i++)
		p->a.buf.p[i] = dp_pat(i, seed);
	post_write(p, addr, rkey, 21);
	err_expect_wc(p->a.scq, IBV_WC_SUCCESS, 21, p->a.qp, "WRITE through the key");
	dp_check_range((unsigned char *)(uintptr_t)addr, 64, seed, "written bytes");
}

/* seed-rules R3.4 "WRITE: bad R_Key": both sides, memory untouched. */
static void write_denied(struct dp_pair *p, uint64_t addr, uint32_t rkey)
{
	memset(p->b.buf.p, 0x5a, p->b.buf.len);
	post_write(p, addr, rkey, 22);
	err_expect_wc(p->a.scq, IBV_WC_REM_ACCESS_ERR, 22, p->a.qp, "requester WRITE");
	err_expect_event(p->b.dev->ctx, IBV_EVENT_QP_ACCESS_ERR, p->b.qp, 5000,
			 "responder");
	err_expect_state(p->b.qp, IBV_QPS_ERR, "responder QP");
	err_expect_state(p->a.qp, IBV_QPS_ERR, "requester QP");
	dp_expect_none(p->b.rcq, 50, "responder receive CQ");
	err_expect_no_event(p->a.dev->ctx, 50, "requester context");
	dp_check_fill(p->b.buf.p, p->b.buf.len, 0x5a, "responder memory");
}

/* seed-rules R3.2: a failed local WR puts B's QP in ERROR, A untouched. */
static void local_failed(struct dp_pair *p)
{
	err_expect_state(p->b.qp, IBV_QPS_ERR, "B's QP after the failed WR");
	dp_expect_none(p->b.scq, 50, "B's send CQ");
	err_expect_no_event(p->b.dev->ctx, 50, "B's context");
	err_expect_state(p->a.qp, IBV_QPS_RTS, "A's QP");
	dp_expect_none(p->a.scq, 50, "A's send CQ");
	err_expect_no_event(p->a.dev->ctx, 50, "A's context");
}

/*
 * Type 1 window made unusable (op): 0 unbound (length-0 bind), old key
 * used; 1 unbound, its current key used; 2 rebound, old key used; 3
 * deallocated; 4 never bound; 5 WRITE past the window's end; 6 WRITE
 * through a read-only window.
 */
static void test_mw1_denied(const struct dp_case *c)
{
	unsigned int access = c->op == 6 ? IBV_ACCESS_REMOTE_READ : MW_REMOTE;
	struct mwt t;
	uint32_t key;

	mwt_setup(&t, c, IBV_MW_TYPE_1, MR_FULL);
	if (c->op == 4) {
		write_denied(&t.p, t.win, t.mw->rkey);
		NOTE("never-bound type 1 window: REM_ACCESS_ERR / QP_ACCESS_ERR");
		goto out;
	}
	CHECK_EQ(bind1(&t.p.b, t.mw, t.mr, t.win, WIN_LEN, access),
		 IBV_WC_SUCCESS, "bind");
	key = t.mw->rkey;
	if (c->op != 6)
		write_ok(&t.p, t.win, key);
	switch (c->op) {
	case 0:
	case 1:
		CHECK_EQ(bind1(&t.p.b, t.mw, t.mr, 0, 0, 0), IBV_WC_SUCCESS, "unbind");
		if (c->op == 1)
			key = t.mw->rkey;
		break;
	case 2:
		CHECK_EQ(bind1(&t.p.b, t.mw, t.mr, t.win + 64, 64, MW_REMOTE),
			 IBV_WC_SUCCESS, "rebind");
		write_ok(&t.p, t.win + 64, t.mw->rkey);
		break;
	case 3:
		CHECK(!ibv_dealloc_mw(t.mw), "dealloc_mw: %m");
		t.mw = NULL;
		break;
	}
	write_denied(&t.p, c->op == 5 ? t.win + WIN_LEN - 32 : t.win, key);
	NOTE("type 1 window case %d: REM_ACCESS_ERR / QP_ACCESS_ERR, both ERROR",
	     c->op);
out:
	mwt_teardown(&t);
}

/*
 * Type 2 window invalidated: op 0 by B's LOCAL_INV, op 1 by A's
 * SEND_WITH_INV (B's receive says which key it invalidated); then the
 * key is denied.
 */
static void test_mw2_invalidated(const struct dp_case *c)
{
	struct ibv_sge rs;
	struct ibv_wc wc;
	struct mwt t;
	uint32_t key;

	mwt_setup(&t, c, IBV_MW_TYPE_2, MR_FULL);
	CHECK_EQ(err_bind_mw2(&t.p.b, t.mw, t.mr, t.win, WIN_LEN, MW_REMOTE),
		 IBV_WC_SUCCESS, "bind");
	key = t.mw->rkey;
	write_ok(&t.p, t.win, key);
	if (c->op == 0) {
		CHECK_EQ(err_local_inv(&t.p.b, key), IBV_WC_SUCCESS, "LOCAL_INV");
	} else {
		struct ibv_send_wr wr = {
			.wr_id = 31, .opcode = IBV_WR_SEND_WITH_INV,
			.send_flags = IBV_SEND_SIGNALED, .invalidate_rkey = key,
		};

		rs = (struct ibv_sge){ (uintptr_t)t.p.b.buf.p, 64, t.p.b.buf.mr->lkey };
		dp_post_recv(&t.p.b, 32, &rs, 1);
		dp_post_send(&t.p.a, &wr);
		err_expect_wc(t.p.a.scq, IBV_WC_SUCCESS, 31, t.p.a.qp, "SEND_WITH_INV");
		dp_poll(t.p.b.rcq, &wc, 5000, "receive of the SEND_WITH_INV");
		dp_check_wc(&wc, IBV_WC_SUCCESS, IBV_WC_RECV, 32, t.p.b.qp->qp_num,
			    "receive of the SEND_WITH_INV");
		CHECK(wc.wc_flags & IBV_WC_WITH_INV, "receive has no IBV_WC_WITH_INV");
		CHECK_EQ(wc.invalidated_rkey, key, "invalidated_rkey");
	}
	write_denied(&t.p, t.win, key);
	NOTE("type 2 window invalidated by %s: REM_ACCESS_ERR / QP_ACCESS_ERR",
	     c->op ? "SEND_WITH_INV" : "LOCAL_INV");
	mwt_teardown(&t);
}

/*
 * SEND_WITH_INV naming a type 2 window that is no longer bound (seed-rules
 * R3.4 "SEND: other"): B's receive completes with LOC_QP_OP_ERR, A's SEND
 * with REM_OP_ERR, both QPs in ERROR, no async event.
 */
static void test_send_inv_unbound(const struct dp_case *c)
{
	struct ibv_send_wr wr = {
		.wr_id = 41, .opcode = IBV_WR_SEND_WITH_INV,
		.send_flags = IBV_SEND_SIGNALED,
	};
	struct ibv_sge rs;
	struct mwt t;

	mwt_setup(&t, c, IBV_MW_TYPE_2, MR_FULL);
	CHECK_EQ(err_bind_mw2(&t.p.b, t.mw, t.mr, t.win, WIN_LEN, MW_REMOTE),
		 IBV_WC_SUCCESS, "bind");
	CHECK_EQ(err_local_inv(&t.p.b, t.mw->rkey), IBV_WC_SUCCESS, "LOCAL_INV");
	rs = (struct ibv_sge){ (uintptr_t)t.p.b.buf.p, 64, t.p.b.buf.mr->lkey };
	dp_post_recv(&t.p.b, 42, &rs, 1);
	wr.invalidate_rkey = t.mw->rkey;
	dp_post_send(&t.p.a, &wr);
	err_expect_wc(t.p.b.rcq, IBV_WC_LOC_QP_OP_ERR, 42, t.p.b.qp, "responder receive");
	err_expect_wc(t.p.a.scq, IBV_WC_REM_OP_ERR, 41, t.p.a.qp, "requester SEND_WITH_INV");
	err_expect_state(t.p.b.qp, IBV_QPS_ERR, "responder QP");
	err_expect_state(t.p.a.qp, IBV_QPS_ERR, "requester QP");
	err_expect_no_event(t.p.b.dev->ctx, 50, "responder context");
	err_expect_no_event(t.p.a.dev->ctx, 50, "requester context");
	NOTE("SEND_WITH_INV of an unbound window: LOC_QP_OP_ERR / REM_OP_ERR");
	mwt_teardown(&t);
}

/*
 * A type 2 window belongs to the QP that bound it (IBA 10.6.7.2.2): the
 * same key through another QP of the same PD is denied; the binding QP
 * still uses it.
 */
static void test_mw2_other_qp(const struct dp_case *c)
{
	struct dp_cfg cfg = { .type = IBV_QPT_RC };
	struct dp_pair p2;
	struct mwt t;

	mwt_setup(&t, c, IBV_MW_TYPE_2, MR_FULL);
	dp_pair_create(&p2, &t.d[0], &t.d[1], &cfg);
	CHECK_EQ(err_bind_mw2(&t.p.b, t.mw, t.mr, t.win, WIN_LEN, MW_REMOTE),
		 IBV_WC_SUCCESS, "bind");
	write_denied(&p2, t.win, t.mw->rkey);
	write_ok(&t.p, t.win, t.mw->rkey);
	NOTE("type 2 key through another QP: denied; through its own QP: works");
	dp_pair_destroy(&p2);
	mwt_teardown(&t);
}

/*
 * Binds that fail with IBV_WC_MW_BIND_ERR (type c->op): op_arg 0 an MR
 * without IBV_ACCESS_MW_BIND, 1 remote write on an MR without local write
 * (IBA 10.6.7.2.4), 2 a window past the MR's end (type 2 only), 3 a window
 * of another PD (type 2 only), 4 a type 2 window already bound.
 */
static void test_bind_err(const struct dp_case *c)
{
	int type = c->op, mr_access = MR_FULL;
	uint64_t addr, len = WIN_LEN;
	struct ibv_mw *mw;
	struct mwt t;

	if (c->arg == 0)
		mr_access = IBV_ACCESS_LOCAL_WRITE | MW_REMOTE;
	else if (c->arg == 1)
		mr_access = IBV_ACCESS_REMOTE_READ | IBV_ACCESS_MW_BIND;
	mwt_setup(&t, c, type, mr_access);
	mw = t.mw;
	addr = t.win;
	if (c->arg == 2) {
		addr = (uintptr_t)t.p.b.buf.p + t.p.b.buf.len - 64;
		len = 128;
	} else if (c->arg == 3) {
		t.pd2 = ibv_alloc_pd(t.d[1].ctx);
		CHECK(t.pd2, "alloc_pd: %m");
		mw = ibv_alloc_mw(t.pd2, type);
		CHECK(mw, "alloc_mw in the second PD: %m");
	} else if (c->arg == 4) {
		CHECK_EQ(err_bind_mw2(&t.p.b, mw, t.mr, addr, len, MW_REMOTE),
			 IBV_WC_SUCCESS, "first bind");
	}
	if (type == IBV_MW_TYPE_1)
		CHECK_EQ(bind1(&t.p.b, mw, t.mr, addr, len, MW_REMOTE),
			 IBV_WC_MW_BIND_ERR, "bind status");
	else
		CHECK_EQ(err_bind_mw2(&t.p.b, mw, t.mr, addr, len, MW_REMOTE),
			 IBV_WC_MW_BIND_ERR, "bind status");
	local_failed(&t.p);
	if (mw != t.mw)
		CHECK(!ibv_dealloc_mw(mw), "dealloc_mw");
	NOTE("type %d bind case %ld: MW_BIND_ERR, B's QP ERROR, A untouched",
	     type, c->arg);
	mwt_teardown(&t);
}

/*
 * ibv_bind_mw refuses before posting (seed-rules R3.1 immediate error):
 * op 0 a window past the MR's end (EINVAL, libsroce's check; mlx5 posts
 * it and fails the bind in hardware), 1 a window of another PD than the MR
 * (EPERM, libibverbs' own check). Nothing is posted, B's QP stays RTS.
 */
static void test_bind1_immediate(const struct dp_case *c)
{
	struct ibv_mw_bind b = { .wr_id = 51, .send_flags = IBV_SEND_SIGNALED };
	struct ibv_mw *mw;
	struct mwt t;

	mwt_setup(&t, c, IBV_MW_TYPE_1, MR_FULL);
	mw = t.mw;
	b.bind_info = (struct ibv_mw_bind_info){
		.mr = t.mr, .addr = t.win, .length = WIN_LEN,
		.mw_access_flags = MW_REMOTE,
	};
	if (c->op == 0) {
		b.bind_info.addr = (uintptr_t)t.p.b.buf.p + t.p.b.buf.len - 64;
		b.bind_info.length = 128;
	} else {
		t.pd2 = ibv_alloc_pd(t.d[1].ctx);
		CHECK(t.pd2, "alloc_pd: %m");
		mw = ibv_alloc_mw(t.pd2, IBV_MW_TYPE_1);
		CHECK(mw, "alloc_mw: %m");
	}
	CHECK_EQ(ibv_bind_mw(t.p.b.qp, mw, &b), c->op ? EPERM : EINVAL,
		 "ibv_bind_mw return");
	dp_expect_none(t.p.b.scq, 100, "B's send CQ");
	err_expect_state(t.p.b.qp, IBV_QPS_RTS, "B's QP");
	if (mw != t.mw)
		CHECK(!ibv_dealloc_mw(mw), "dealloc_mw");
	NOTE("ibv_bind_mw case %d: %s, nothing posted", c->op,
	     c->op ? "EPERM" : "EINVAL");
	mwt_teardown(&t);
}

/*
 * LOCAL_INV of an ordinary (not fast-registration) MR: only fast-reg MRs
 * and type 2 windows can be invalidated; the WR completes with
 * LOC_PROT_ERR, B's QP goes to ERROR, and the MR's R_Key stays valid
 * (a second pair still writes through it).
 */
static void test_mr_local_inv(const struct dp_case *c)
{
	struct dp_cfg cfg = { .type = IBV_QPT_RC };
	struct dp_pair p2;
	struct mwt t;

	mwt_setup(&t, c, IBV_MW_TYPE_1, MR_FULL);
	CHECK_EQ(err_local_inv(&t.p.b, t.mr->rkey), IBV_WC_LOC_PROT_ERR, "LOCAL_INV status");
	local_failed(&t.p);
	dp_pair_create(&p2, &t.d[0], &t.d[1], &cfg);
	write_ok(&p2, t.win, t.mr->rkey);
	dp_pair_destroy(&p2);
	NOTE("LOCAL_INV of a non-fast-reg MR: LOC_PROT_ERR, the MR still valid");
	mwt_teardown(&t);
}

#define MW1(n, op) { "MW1_" n, test_mw1_denied, IBV_QPT_RC, 4, op, 0 }
#define BERR(n, type, a) { "bind_err_MW" #type "_" n, test_bind_err, IBV_QPT_RC, 4, type, a }

static const struct dp_case cases[] = {
	/* seed-rules R3.4, R3.5 (the checks through a window's R_Key) */
	MW1("unbound_old_rkey", 0),
	MW1("unbound_current_rkey", 1),
	MW1("rebound_old_rkey", 2),
	MW1("deallocated", 3),
	MW1("never_bound", 4),
	MW1("write_past_window", 5),
	MW1("write_read_only_window", 6),
	{ "MW2_LOCAL_INV", test_mw2_invalidated, IBV_QPT_RC, 4, 0 },
	{ "MW2_SEND_WITH_INV", test_mw2_invalidated, IBV_QPT_RC, 4, 1 },
	{ "MW2_SEND_WITH_INV_unbound", test_send_inv_unbound, IBV_QPT_RC, 4 },
	/* seed-rules R5.1: a type 2 window is bound to one QP */
	{ "MW2_other_QP", test_mw2_other_qp, IBV_QPT_RC, 4 },
	/* seed-rules R3.2: bind errors */
	BERR("mr_without_MW_BIND", 1, 0),
	BERR("mr_without_MW_BIND", 2, 0),
	BERR("remote_write_mr_without_local_write", 1, 1),
	BERR("remote_write_mr_without_local_write", 2, 1),
	BERR("window_past_mr", 2, 2),
	BERR("other_PD", 2, 3),
	BERR("already_bound", 2, 4),
	/* seed-rules R3.1 */
	{ "bind_MW1_past_mr_immediate", test_bind1_immediate, IBV_QPT_RC, 4, 0 },
	{ "bind_MW1_other_PD_immediate", test_bind1_immediate, IBV_QPT_RC, 4, 1 },
	{ "MR_LOCAL_INV", test_mr_local_inv, IBV_QPT_RC, 4 },
};

int main(int argc, char **argv)
{
	return dp_main(argc, argv, cases, ARRAY_SIZE(cases));
}
