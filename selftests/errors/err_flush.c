// SPDX-License-Identifier: GPL-2.0-only
/*
 * err_flush: what an error does to a QP and its queues (seed-rules R3.2,
 * R3.3) and the immediate errors of posting (R3.8), with the errno a real
 * RNIC's provider (mlx5) returns.
 */
#include <errno.h>
#include <unistd.h>
#include "err.h"

static void post_send_n(struct dp_pair *p, struct dp_end *e, struct ibv_ah *ah,
			uint32_t qpn, uint64_t wr_id, struct ibv_sge *sge)
{
	struct ibv_send_wr wr = { .wr_id = wr_id, .sg_list = sge, .num_sge = 1,
				  .opcode = IBV_WR_SEND,
				  .send_flags = IBV_SEND_SIGNALED };

	if (ah) {
		wr.wr.ud.ah = ah;
		wr.wr.ud.remote_qpn = qpn;
		wr.wr.ud.remote_qkey = p->qkey;
	}
	dp_post_send(e, &wr);
}

/*
 * RC (seed-rules R3.2, R3.3): a WRITE to a dead R_Key fails with
 * REM_ACCESS_ERR; the three SENDs behind it, both QPs' posted receives,
 * and every WR posted afterwards (send or receive, either end) complete
 * with WR_FLUSH_ERR, in order; both QPs are in ERROR.
 */
static void test_rc_flush(const struct dp_case *c)
{
	struct dp_cfg cfg = { .type = IBV_QPT_RC };
	struct ibv_sge ls, rs[2];
	struct dp_dev d[2];
	struct dp_pair p;
	uint64_t i;

	dp_setup(&p, d, c->fam, &cfg);
	ls = (struct ibv_sge){ (uintptr_t)p.a.buf.p, 64, p.a.buf.mr->lkey };
	for (i = 0; i < 2; i++) {
		rs[i] = (struct ibv_sge){ (uintptr_t)p.b.buf.p + 512 * i, 256,
					  p.b.buf.mr->lkey };
		dp_post_recv(&p.b, 20 + i, &rs[i], 1);
		dp_post_recv(&p.a, 30 + i, &ls, 1);
	}
	{
		struct dp_sgl s;	/* not zero-length: that checks no R_Key */

		dp_sgl_make(&s, &p.a.buf, 0, 64, 1, 0);
		dp_send_wr(&p, IBV_WR_RDMA_WRITE, 1, &s, IBV_SEND_SIGNALED, 0,
			   (uintptr_t)p.b.buf.p,
			   err_dead_key(p.b.dev->pd, p.b.buf.p, 4096, 1));
	}
	for (i = 2; i <= 4; i++)
		post_send_n(&p, &p.a, NULL, 0, i, &ls);
	err_expect_wc(p.a.scq, IBV_WC_REM_ACCESS_ERR, 1, p.a.qp, "failed WRITE");
	for (i = 2; i <= 4; i++)
		err_expect_wc(p.a.scq, IBV_WC_WR_FLUSH_ERR, i, p.a.qp,
			      "SEND behind the failed WRITE");
	for (i = 0; i < 2; i++) {
		err_expect_wc(p.a.rcq, IBV_WC_WR_FLUSH_ERR, 30 + i, p.a.qp,
			      "requester's posted receive");
		err_expect_wc(p.b.rcq, IBV_WC_WR_FLUSH_ERR, 20 + i, p.b.qp,
			      "responder's posted receive");
	}
	err_expect_state(p.a.qp, IBV_QPS_ERR, "requester QP");
	err_expect_state(p.b.qp, IBV_QPS_ERR, "responder QP");
	/* Newly posted WRs complete at once with WR_FLUSH_ERR (R3.3). */
	post_send_n(&p, &p.a, NULL, 0, 5, &ls);
	err_expect_wc(p.a.scq, IBV_WC_WR_FLUSH_ERR, 5, p.a.qp, "send posted in ERROR");
	post_send_n(&p, &p.b, NULL, 0, 6, &rs[0]);
	err_expect_wc(p.b.scq, IBV_WC_WR_FLUSH_ERR, 6, p.b.qp, "send posted in ERROR");
	dp_post_recv(&p.a, 7, &ls, 1);
	err_expect_wc(p.a.rcq, IBV_WC_WR_FLUSH_ERR, 7, p.a.qp, "receive posted in ERROR");
	dp_post_recv(&p.b, 8, &rs[0], 1);
	err_expect_wc(p.b.rcq, IBV_WC_WR_FLUSH_ERR, 8, p.b.qp, "receive posted in ERROR");
	dp_expect_none(p.a.scq, 50, "requester send CQ");
	dp_expect_none(p.b.rcq, 50, "responder receive CQ");
	NOTE("1 error + 3 flushed sends, 4 flushed receives, new WRs flushed");
	dp_teardown(&p, d);
}

/*
 * UC and UD (seed-rules R3.2, R3.3): a send-side error moves the QP to SQE,
 * not ERROR: later sends are flushed, the receive side keeps working, and
 * SQE -> RTS brings sending back.
 */
static void test_sqe(const struct dp_case *c)
{
	struct dp_cfg cfg = { .type = c->type };
	struct ibv_qp_attr at = { .qp_state = IBV_QPS_RTS };
	int ud = c->type == IBV_QPT_UD;
	struct ibv_sge bad, ls, rs, bs;
	struct dp_dev d[2];
	struct dp_pair p;
	struct ibv_wc wc;

	dp_setup(&p, d, c->fam, &cfg);
	ls = (struct ibv_sge){ (uintptr_t)p.a.buf.p, 64, p.a.buf.mr->lkey };
	rs = (struct ibv_sge){ (uintptr_t)p.a.buf.p + 4096, 64 + (ud ? DP_GRH : 0),
			       p.a.buf.mr->lkey };
	bad = (struct ibv_sge){ (uintptr_t)p.a.buf.p, 64,
				err_dead_key(p.a.dev->pd, p.a.buf.p, 4096, 0) };
	post_send_n(&p, &p.a, p.a.ah, p.b.qp->qp_num, 1, &bad);
	err_expect_wc(p.a.scq, IBV_WC_LOC_PROT_ERR, 1, p.a.qp, "send with a dead L_Key");
	err_expect_state(p.a.qp, IBV_QPS_SQE, "sender QP");
	post_send_n(&p, &p.a, p.a.ah, p.b.qp->qp_num, 2, &ls);
	err_expect_wc(p.a.scq, IBV_WC_WR_FLUSH_ERR, 2, p.a.qp, "send posted in SQE");
	/* The receive side of a QP in SQE still works. */
	dp_post_recv(&p.a, 3, &rs, 1);
	bs = (struct ibv_sge){ (uintptr_t)p.b.buf.p + 8192, 64, p.b.buf.mr->lkey };
	post_send_n(&p, &p.b, p.b.ah, p.a.qp->qp_num, 4, &bs);
	dp_poll(p.a.rcq, &wc, 10000, "receive in SQE");
	dp_check_wc(&wc, IBV_WC_SUCCESS, IBV_WC_RECV, 3, p.a.qp->qp_num, "receive in SQE");
	err_expect_wc(p.b.scq, IBV_WC_SUCCESS, 4, p.b.qp, "peer's send");
	err_expect_state(p.b.qp, IBV_QPS_RTS, "peer QP");
	/* SQE -> RTS: sending works again. */
	at.cur_qp_state = IBV_QPS_SQE;
	CHECK(!ibv_modify_qp(p.a.qp, &at, IBV_QP_STATE), "modify_qp SQE -> RTS: %m");
	rs.addr = (uintptr_t)p.b.buf.p;
	rs.lkey = p.b.buf.mr->lkey;
	dp_post_recv(&p.b, 5, &rs, 1);
	post_send_n(&p, &p.a, p.a.ah, p.b.qp->qp_num, 6, &ls);
	err_expect_wc(p.a.scq, IBV_WC_SUCCESS, 6, p.a.qp, "send after SQE -> RTS");
	dp_poll(p.b.rcq, &wc, 10000, "peer receive");
	dp_check_wc(&wc, IBV_WC_SUCCESS, IBV_WC_RECV, 5, p.b.qp->qp_num, "peer receive");
	err_expect_no_event(p.a.dev->ctx, 50, "sender context");
	NOTE("LOC_PROT_ERR -> SQE, later sends flushed, receives work, RTS again");
	dp_teardown(&p, d);
}

static struct ibv_qp *ud_qp(struct dp_dev *d, struct ibv_cq *cq, int inl)
{
	struct ibv_qp_init_attr qa = {
		.send_cq = cq, .recv_cq = cq, .qp_type = IBV_QPT_UD,
		.cap = { .max_send_wr = 4, .max_recv_wr = 4, .max_send_sge = 1,
			 .max_recv_sge = 1, .max_inline_data = inl },
	};
	struct ibv_qp *qp = ibv_create_qp(d->pd, &qa);

	CHECK(qp, "create_qp: %m");
	return qp;
}

static int try_send(struct ibv_qp *qp, struct ibv_send_wr *wr)
{
	struct ibv_send_wr *bad = NULL;
	int rc = ibv_post_send(qp, wr, &bad);

	if (rc)
		CHECK(bad == wr, "post_send failed (%s) but bad_wr is not the WR",
		      strerror(rc));
	return rc;
}

static int try_recv(struct ibv_qp *qp, struct ibv_recv_wr *wr)
{
	struct ibv_recv_wr *bad = NULL;
	int rc = ibv_post_recv(qp, wr, &bad);

	if (rc)
		CHECK(bad == wr, "post_recv failed (%s) but bad_wr is not the WR",
		      strerror(rc));
	return rc;
}

/*
 * seed-rules R3.8: posting a send in RESET, INIT or RTR, or a receive in
 * RESET, fails at once with EINVAL (nothing is queued); a receive in INIT
 * is fine.
 */
static void test_post_state(const struct dp_case *c)
{
	struct dp_dev d;
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	struct ibv_qp_attr at = { .qp_state = IBV_QPS_INIT, .port_num = 1,
				  .qkey = 0x11111111 };
	struct ibv_sge sge;
	struct ibv_send_wr swr = { .wr_id = 1, .num_sge = 1, .sg_list = &sge,
				   .opcode = IBV_WR_SEND };
	struct ibv_recv_wr rwr = { .wr_id = 2, .num_sge = 1, .sg_list = &sge };
	struct ibv_ah_attr aa = { .is_global = 1, .port_num = 1 };
	struct ibv_mr *mr;
	static char buf[256];
	int rc;

	dp_open(&d, 0, c->fam);
	cq = ibv_create_cq(d.ctx, 16, NULL, NULL, 0);
	CHECK(cq, "create_cq: %m");
	mr = ibv_reg_mr(d.pd, buf, sizeof(buf), IBV_ACCESS_LOCAL_WRITE);
	CHECK(mr, "reg_mr: %m");
	sge = (struct ibv_sge){ (uintptr_t)buf, 64, mr->lkey };
	aa.grh.dgid = d.gid;
	aa.grh.sgid_index = d.gid_index;
	aa.grh.hop_limit = 1;
	swr.wr.ud.ah = ibv_create_ah(d.pd, &aa);
	CHECK(swr.wr.ud.ah, "create_ah: %m");
	swr.wr.ud.remote_qpn = 0x1234;
	swr.wr.ud.remote_qkey = 0x11111111;
	qp = ud_qp(&d, cq, 0);
	rc = try_send(qp, &swr);
	CHECK_EQ(rc, EINVAL, "post_send in RESET");
	rc = try_recv(qp, &rwr);
	CHECK_EQ(rc, EINVAL, "post_recv in RESET");
	CHECK(!ibv_modify_qp(qp, &at, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
			     IBV_QP_PORT | IBV_QP_QKEY), "to INIT: %m");
	rc = try_send(qp, &swr);
	CHECK_EQ(rc, EINVAL, "post_send in INIT");
	rc = try_recv(qp, &rwr);
	CHECK_EQ(rc, 0, "post_recv in INIT");
	at.qp_state = IBV_QPS_RTR;
	CHECK(!ibv_modify_qp(qp, &at, IBV_QP_STATE), "to RTR: %m");
	rc = try_send(qp, &swr);
	CHECK_EQ(rc, EINVAL, "post_send in RTR");
	at.qp_state = IBV_QPS_RTS;
	at.sq_psn = 0;
	CHECK(!ibv_modify_qp(qp, &at, IBV_QP_STATE | IBV_QP_SQ_PSN), "to RTS: %m");
	swr.send_flags = IBV_SEND_SIGNALED;
	rc = try_send(qp, &swr);
	CHECK_EQ(rc, 0, "post_send in RTS");
	err_expect_wc(cq, IBV_WC_SUCCESS, 1, qp, "send in RTS");
	dp_expect_none(cq, 50, "CQ: nothing from the refused posts");
	NOTE("send: RESET/INIT/RTR EINVAL, RTS ok; recv: RESET EINVAL, INIT ok");
	CHECK(!ibv_destroy_qp(qp), "destroy_qp");
	CHECK(!ibv_destroy_ah(swr.wr.ud.ah), "destroy_ah");
	CHECK(!ibv_dereg_mr(mr), "dereg_mr");
	CHECK(!ibv_destroy_cq(cq), "destroy_cq");
	dp_close(&d);
}

/*
 * seed-rules R3.8: bad WRs are refused at post time with mlx5's errnos:
 * too many send SGEs ENOMEM, too many receive SGEs EINVAL, inline data
 * over max_inline_data ENOMEM, an opcode the QP type does not support
 * EINVAL, a full send or receive queue ENOMEM. The QP stays usable.
 */
static void test_post_errno(const struct dp_case *c)
{
	struct dp_cfg cfg = { .type = c->type, .max_send_wr = 8, .max_recv_wr = 8,
			      .max_inline = 64 };
	struct ibv_send_wr *chain;
	struct ibv_recv_wr *rchain, *rbad;
	struct ibv_send_wr *bad;
	struct ibv_sge sge[DP_MAX_SGE + 1];
	struct dp_dev d[2];
	struct dp_pair p;
	struct ibv_send_wr wr = { .wr_id = 1, .sg_list = sge, .opcode = IBV_WR_SEND };
	struct ibv_recv_wr rwr = { .wr_id = 2, .sg_list = sge };
	unsigned int i, n, ok;
	int rc;

	dp_setup(&p, d, c->fam, &cfg);
	for (i = 0; i <= DP_MAX_SGE; i++)
		sge[i] = (struct ibv_sge){ (uintptr_t)p.a.buf.p + 8 * i, 8,
					   p.a.buf.mr->lkey };
	if (c->type == IBV_QPT_UD) {
		wr.wr.ud.ah = p.a.ah;
		wr.wr.ud.remote_qpn = p.b.qp->qp_num;
		wr.wr.ud.remote_qkey = p.qkey;
	}
	wr.num_sge = p.a.cap.max_send_sge + 1;
	CHECK(wr.num_sge <= DP_MAX_SGE, "max_send_sge %u too big for the test",
	      p.a.cap.max_send_sge);
	CHECK_EQ(try_send(p.a.qp, &wr), ENOMEM, "post_send with max_send_sge + 1 SGEs");
	rwr.num_sge = p.a.cap.max_recv_sge + 1;
	CHECK_EQ(try_recv(p.a.qp, &rwr), EINVAL, "post_recv with max_recv_sge + 1 SGEs");
	sge[DP_MAX_SGE].length = p.a.cap.max_inline_data + 1;
	wr.sg_list = &sge[DP_MAX_SGE];
	wr.num_sge = 1;
	wr.send_flags = IBV_SEND_INLINE;
	CHECK_EQ(try_send(p.a.qp, &wr), ENOMEM, "inline send of max_inline_data + 1");
	wr.send_flags = 0;
	wr.sg_list = sge;
	wr.opcode = c->type == IBV_QPT_UD ? IBV_WR_RDMA_WRITE : IBV_WR_RDMA_READ;
	CHECK_EQ(try_send(p.a.qp, &wr), EINVAL, "an opcode the QP type does not support");
	wr.opcode = IBV_WR_ATOMIC_FETCH_AND_ADD;
	CHECK_EQ(try_send(p.a.qp, &wr), EINVAL, "ATOMIC on a QP type without it");
	/* A full SQ: a chain twice the QP's size must stop with ENOMEM. */
	n = 2 * p.a.cap.max_send_wr + 2;
	chain = calloc(n, sizeof(*chain));
	CHECK(chain, "calloc");
	for (i = 0; i < n; i++) {
		chain[i] = wr;
		chain[i].opcode = IBV_WR_SEND;
		chain[i].wr_id = 100 + i;
		chain[i].send_flags = IBV_SEND_SIGNALED;
		chain[i].next = i + 1 < n ? &chain[i + 1] : NULL;
	}
	/* B posts no receive on UC/UD (dropped) - RC would wait for RNR. */
	rc = ibv_post_send(p.a.qp, chain, &bad);
	CHECK_EQ(rc, ENOMEM, "post_send of a chain longer than the SQ");
	ok = bad - chain;
	CHECK(ok >= p.a.cap.max_send_wr && ok < n, "SQ took %u WRs, max_send_wr %u",
	      ok, p.a.cap.max_send_wr);
	for (i = 0; i < ok; i++)
		err_expect_wc(p.a.scq, IBV_WC_SUCCESS, 100 + i, p.a.qp, "queued send");
	/* A full RQ likewise. */
	rchain = calloc(n, sizeof(*rchain));
	CHECK(rchain, "calloc");
	for (i = 0; i < n; i++) {
		rchain[i] = (struct ibv_recv_wr){ .wr_id = 200 + i, .sg_list = sge,
						  .num_sge = 1,
						  .next = i + 1 < n ? &rchain[i + 1] : NULL };
	}
	rc = ibv_post_recv(p.b.qp, rchain, &rbad);
	CHECK_EQ(rc, ENOMEM, "post_recv of a chain longer than the RQ");
	ok = rbad - rchain;
	CHECK(ok >= p.b.cap.max_recv_wr && ok < n, "RQ took %u WRs, max_recv_wr %u",
	      ok, p.b.cap.max_recv_wr);
	err_expect_state(p.a.qp, IBV_QPS_RTS, "QP after refused posts");
	NOTE("SGEs ENOMEM/EINVAL, inline ENOMEM, opcode EINVAL, full SQ after %u, "
	     "full RQ after %u: ENOMEM", (unsigned int)(bad - chain), ok);
	free(chain);
	free(rchain);
	dp_teardown(&p, d);
}

static const struct dp_case cases[] = {
	{ "RC_error_flushes_everything", test_rc_flush, IBV_QPT_RC, 4 },
	{ "UC_send_error_SQE", test_sqe, IBV_QPT_UC, 4 },
	{ "UD_send_error_SQE", test_sqe, IBV_QPT_UD, 4 },
	{ "post_in_wrong_state", test_post_state, IBV_QPT_UD, 4 },
	{ "UC_post_errno", test_post_errno, IBV_QPT_UC, 4 },
	{ "UD_post_errno", test_post_errno, IBV_QPT_UD, 6 },
};

int main(int argc, char **argv)
{
	return dp_main(argc, argv, cases, ARRAY_SIZE(cases));
}
