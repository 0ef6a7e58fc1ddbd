// SPDX-License-Identifier: GPL-2.0-only
/*
 * qp_ex: the extended verbs. Work requests posted with ibv_qp_ex's
 * ibv_wr_* API (send, send with immediate, inline, write, write with
 * immediate, read, compare-and-swap, fetch-and-add; UD addressing with
 * ibv_wr_set_ud_addr; several WRs in one ibv_wr_start/complete batch), and
 * completions read with ibv_cq_ex (ibv_start_poll / ibv_next_poll /
 * ibv_end_poll and the ibv_wc_read_* accessors).
 */
#include <arpa/inet.h>
#include <unistd.h>
#include "dp.h"

/* One completion read through the ibv_cq_ex API into a struct ibv_wc. */
static void poll_ex(struct ibv_cq_ex *cq, struct ibv_wc *wc, const char *what)
{
	struct ibv_poll_cq_attr pa = { 0 };
	uint64_t t0 = dp_now_ms();
	int rc;

	while ((rc = ibv_start_poll(cq, &pa)) == ENOENT) {
		CHECK(dp_now_ms() - t0 < 10000, "%s: no completion within 10 s", what);
		usleep(200);
	}
	CHECK(!rc, "%s: ibv_start_poll: %d", what, rc);
	memset(wc, 0, sizeof(*wc));
	wc->wr_id = cq->wr_id;
	wc->status = cq->status;
	wc->opcode = ibv_wc_read_opcode(cq);
	wc->qp_num = ibv_wc_read_qp_num(cq);
	wc->wc_flags = ibv_wc_read_wc_flags(cq);
	if (wc->status == IBV_WC_SUCCESS) {
		wc->byte_len = ibv_wc_read_byte_len(cq);
		if (wc->wc_flags & IBV_WC_WITH_IMM)
			wc->imm_data = ibv_wc_read_imm_data(cq);
		wc->src_qp = ibv_wc_read_src_qp(cq);
	}
	ibv_end_poll(cq);
}

static void setup(const struct dp_case *c, struct dp_pair *p, struct dp_dev d[2])
{
	struct dp_cfg cfg = {
		.type = c->type, .qpex = 1, .max_send_sge = 4, .max_recv_sge = 4,
		.max_inline = 64, .buf_len = 256 * KiB,
	};

	dp_setup(p, d, c->fam, &cfg);
}

static void post_recv(struct dp_pair *p, struct dp_sgl *r, uint64_t id, size_t len,
		      size_t off)
{
	dp_sgl_make(r, &p->b.buf, off, len, 1, p->cfg.type == IBV_QPT_UD);
	dp_sgl_clear(r, 0x5a);
	dp_post_recv(&p->b, id, r->sge, r->n);
}

static void ud_addr(struct dp_pair *p)
{
	if (p->cfg.type == IBV_QPT_UD)
		ibv_wr_set_ud_addr(p->a.qpx, p->a.ah, p->b.qp->qp_num, p->qkey);
}

static void check_recv(struct dp_pair *p, struct dp_sgl *r, uint64_t id, uint32_t seed,
		       enum ibv_wc_opcode op, int imm, uint32_t immv, size_t len,
		       const char *what)
{
	int ud = p->cfg.type == IBV_QPT_UD;
	struct ibv_wc wc;

	poll_ex(p->b.rcq_ex, &wc, what);
	dp_check_wc(&wc, IBV_WC_SUCCESS, op, id, p->b.qp->qp_num, what);
	CHECK_EQ(wc.byte_len, len + (ud ? DP_GRH : 0), "receive byte_len (ibv_wc_read_byte_len)");
	CHECK_EQ(wc.wc_flags & (IBV_WC_WITH_IMM | (ud ? IBV_WC_GRH : 0)),
		 (imm ? IBV_WC_WITH_IMM : 0) | (ud ? IBV_WC_GRH : 0),
		 "receive wc_flags (ibv_wc_read_wc_flags)");
	if (imm)
		CHECK_EQ(ntohl(wc.imm_data), immv, "imm_data (ibv_wc_read_imm_data)");
	if (ud)
		CHECK_EQ(wc.src_qp, p->a.qp->qp_num, "src_qp (ibv_wc_read_src_qp)");
	if (op == IBV_WC_RECV)
		dp_sgl_check(r, seed, 0x5a, what);
}

static void check_send(struct dp_pair *p, uint64_t id, enum ibv_wc_opcode op,
		       int byte_len, const char *what)
{
	struct ibv_wc wc;

	poll_ex(p->a.scq_ex, &wc, what);
	dp_check_wc(&wc, IBV_WC_SUCCESS, op, id, p->a.qp->qp_num, what);
	if (byte_len >= 0)
		CHECK_EQ(wc.byte_len, byte_len, "send-side byte_len");
}

/* seed-rules R1.2: SEND, SEND with immediate, inline on RC/UC/UD. */
static void test_send(const struct dp_case *c)
{
	struct ibv_qp_ex *qx;
	struct dp_dev d[2];
	struct dp_pair p;
	struct dp_sgl s, r;
	unsigned char inl[64];
	size_t len, i;
	int nsge = c->arg ? (int)c->arg : 1;

	setup(c, &p, d);
	qx = p.a.qpx;
	len = c->type == IBV_QPT_UD ? p.mtu : 3 * p.mtu + 7;

	/* Three WRs in one batch: send over 4 SGEs, send_imm, inline send. */
	post_recv(&p, &r, 1, len, 0);
	dp_sgl_make(&s, &p.a.buf, 0, len, nsge, 0);
	dp_sgl_fill(&s, 301);
	{
		struct dp_sgl r2, r3, s2;

		post_recv(&p, &r2, 2, 1000, 64 * KiB);
		post_recv(&p, &r3, 3, sizeof(inl), 128 * KiB);
		dp_sgl_make(&s2, &p.a.buf, 64 * KiB, 1000, 1, 0);
		dp_sgl_fill(&s2, 302);
		for (i = 0; i < sizeof(inl); i++)
			inl[i] = dp_pat(i, 303);

		ibv_wr_start(qx);
		qx->wr_id = 1;
		qx->wr_flags = IBV_SEND_SIGNALED;
		ibv_wr_send(qx);
		ud_addr(&p);
		ibv_wr_set_sge_list(qx, s.n, s.sge);
		qx->wr_id = 2;
		qx->wr_flags = IBV_SEND_SIGNALED;
		ibv_wr_send_imm(qx, htonl(0xfeedf00d));
		ud_addr(&p);
		ibv_wr_set_sge(qx, s2.sge[0].lkey, s2.sge[0].addr, s2.sge[0].length);
		qx->wr_id = 3;
		qx->wr_flags = IBV_SEND_SIGNALED | IBV_SEND_INLINE;
		ibv_wr_send(qx);
		ud_addr(&p);
		ibv_wr_set_inline_data(qx, inl, sizeof(inl));
		CHECK(!ibv_wr_complete(qx), "ibv_wr_complete: %m");
		memset(inl, 0xee, sizeof(inl));

		check_send(&p, 1, IBV_WC_SEND, -1, "ibv_wr_send");
		check_send(&p, 2, IBV_WC_SEND, -1, "ibv_wr_send_imm");
		check_send(&p, 3, IBV_WC_SEND, -1, "ibv_wr_send inline");
		check_recv(&p, &r, 1, 301, IBV_WC_RECV, 0, 0, len, "ibv_wr_send receive");
		check_recv(&p, &r2, 2, 302, IBV_WC_RECV, 1, 0xfeedf00d, 1000,
			   "ibv_wr_send_imm receive");
		check_recv(&p, &r3, 3, 303, IBV_WC_RECV, 0, 0, sizeof(inl),
			   "ibv_wr_set_inline_data receive");
	}
	NOTE("ibv_wr_send (%d SGEs, %zu bytes), send_imm, inline in one batch", nsge, len);
	dp_teardown(&p, d);
}

/* seed-rules R1.2, R1.6: WRITE, WRITE with immediate (RC/UC), READ (RC). */
static void test_rdma(const struct dp_case *c)
{
	struct ibv_qp_ex *qx;
	struct dp_dev d[2];
	struct dp_pair p;
	struct dp_sgl s, r;
	unsigned char *dst;
	size_t len = 2 * 4096 + 3, i;
	int nsge = c->arg ? (int)c->arg : 1;

	setup(c, &p, d);
	qx = p.a.qpx;
	dst = p.b.buf.p + 4096;
	memset(dst - 64, 0x5a, len + 128);
	dp_sgl_make(&s, &p.a.buf, 0, len, nsge, 0);
	dp_sgl_fill(&s, 401);
	ibv_wr_start(qx);
	qx->wr_id = 1;
	qx->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_rdma_write(qx, p.b.buf.mr->rkey, (uintptr_t)dst);
	ibv_wr_set_sge_list(qx, s.n, s.sge);
	CHECK(!ibv_wr_complete(qx), "ibv_wr_complete: %m");
	check_send(&p, 1, IBV_WC_RDMA_WRITE, -1, "ibv_wr_rdma_write");

	/* WRITE with immediate: consumes a receive, data in place (R1.6). */
	post_recv(&p, &r, 2, 16, 200 * KiB);
	ibv_wr_start(qx);
	qx->wr_id = 2;
	qx->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_rdma_write_imm(qx, p.b.buf.mr->rkey, (uintptr_t)dst + len, htonl(0x01020304));
	ibv_wr_set_sge_list(qx, 0, NULL);
	CHECK(!ibv_wr_complete(qx), "ibv_wr_complete: %m");
	check_send(&p, 2, IBV_WC_RDMA_WRITE, -1, "ibv_wr_rdma_write_imm");
	check_recv(&p, &r, 2, 0, IBV_WC_RECV_RDMA_WITH_IMM, 1, 0x01020304, 0,
		   "ibv_wr_rdma_write_imm receive");
	dp_check_fill((unsigned char *)(uintptr_t)r.sge[0].addr, 16, 0x5a,
		      "receive buffer of WRITE_WITH_IMM");
	/* The zero-length WRITE_WITH_IMM came after the WRITE: data is there. */
	dp_check_fill(dst - 64, 64, 0x5a, "guard before the written range");
	dp_check_range(dst, len, 401, "data of ibv_wr_rdma_write");
	dp_check_fill(dst + len, 64, 0x5a, "guard after the written range");

	if (c->type == IBV_QPT_RC) {
		struct dp_sgl l;

		for (i = 0; i < len; i++)
			dst[i] = dp_pat(i, 402);
		dp_sgl_make(&l, &p.a.buf, 32 * KiB, len, nsge, 0);
		dp_sgl_clear(&l, 0x5a);
		ibv_wr_start(qx);
		qx->wr_id = 3;
		qx->wr_flags = IBV_SEND_SIGNALED;
		ibv_wr_rdma_read(qx, p.b.buf.mr->rkey, (uintptr_t)dst);
		ibv_wr_set_sge_list(qx, l.n, l.sge);
		CHECK(!ibv_wr_complete(qx), "ibv_wr_complete: %m");
		check_send(&p, 3, IBV_WC_RDMA_READ, len, "ibv_wr_rdma_read");
		dp_sgl_check(&l, 402, 0x5a, "data of ibv_wr_rdma_read");
	}
	NOTE("ibv_wr_rdma_write (%d SGEs), write_imm%s", nsge,
	     c->type == IBV_QPT_RC ? ", rdma_read" : "");
	dp_teardown(&p, d);
}

/* seed-rules R1.2: atomics on RC through ibv_wr_atomic_*. */
static void test_atomic(const struct dp_case *c)
{
	struct ibv_qp_ex *qx;
	struct dp_dev d[2];
	struct dp_pair p;
	uint64_t *word, *res;

	setup(c, &p, d);
	if (d[0].attr.orig_attr.atomic_cap == IBV_ATOMIC_NONE)
		dp_skip("device reports atomic_cap NONE");
	qx = p.a.qpx;
	word = (uint64_t *)(p.b.buf.p + 4096);
	res = (uint64_t *)p.a.buf.p;
	*word = 41;
	res[0] = res[1] = res[2] = ~0ULL;
	ibv_wr_start(qx);
	qx->wr_id = 1;
	qx->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_atomic_cmp_swp(qx, p.b.buf.mr->rkey, (uintptr_t)word, 41, 100);
	ibv_wr_set_sge(qx, p.a.buf.mr->lkey, (uintptr_t)&res[0], 8);
	qx->wr_id = 2;
	qx->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_atomic_fetch_add(qx, p.b.buf.mr->rkey, (uintptr_t)word, 5);
	ibv_wr_set_sge(qx, p.a.buf.mr->lkey, (uintptr_t)&res[1], 8);
	qx->wr_id = 3;
	qx->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_atomic_cmp_swp(qx, p.b.buf.mr->rkey, (uintptr_t)word, 41, 7);
	ibv_wr_set_sge(qx, p.a.buf.mr->lkey, (uintptr_t)&res[2], 8);
	CHECK(!ibv_wr_complete(qx), "ibv_wr_complete: %m");
	check_send(&p, 1, IBV_WC_COMP_SWAP, 8, "ibv_wr_atomic_cmp_swp");
	check_send(&p, 2, IBV_WC_FETCH_ADD, 8, "ibv_wr_atomic_fetch_add");
	check_send(&p, 3, IBV_WC_COMP_SWAP, 8, "ibv_wr_atomic_cmp_swp (mismatch)");
	CHECK_EQ(res[0], 41, "CMP_SWP (match) returned value");
	CHECK_EQ(res[1], 100, "FETCH_ADD returned value");
	CHECK_EQ(res[2], 105, "CMP_SWP (mismatch) returned value");
	CHECK_EQ(*word, 105, "remote word after swap 41->100, +5, failed swap");
	NOTE("cmp_swp, fetch_add, failed cmp_swp in one batch: values right");
	dp_teardown(&p, d);
}

/* ibv_next_poll drains several completions in one start/end session. */
static void test_batch_poll(const struct dp_case *c)
{
	struct ibv_poll_cq_attr pa = { 0 };
	struct ibv_qp_ex *qx;
	struct dp_dev d[2];
	struct dp_pair p;
	struct dp_sgl r[8];
	uint64_t t0;
	int i, n = 0, rc;

	setup(c, &p, d);
	qx = p.a.qpx;
	for (i = 0; i < 8; i++)
		post_recv(&p, &r[i], i, 64, i * 256);
	ibv_wr_start(qx);
	for (i = 0; i < 8; i++) {
		qx->wr_id = i;
		qx->wr_flags = IBV_SEND_SIGNALED;
		ibv_wr_send_imm(qx, htonl(i));
		ud_addr(&p);
		ibv_wr_set_sge(qx, p.a.buf.mr->lkey, (uintptr_t)p.a.buf.p, 64);
	}
	CHECK(!ibv_wr_complete(qx), "ibv_wr_complete: %m");
	/* Let all 8 arrive, then read them in one session. */
	t0 = dp_now_ms();
	for (;;) {
		struct ibv_wc wc[8];
		int k = ibv_poll_cq(p.a.scq, 8 - n, wc);

		CHECK(k >= 0, "poll_cq");
		n += k;
		if (n == 8)
			break;
		CHECK(dp_now_ms() - t0 < 10000, "only %d of 8 sends completed", n);
		usleep(1000);
	}
	usleep(200000);
	rc = ibv_start_poll(p.b.rcq_ex, &pa);
	CHECK(!rc, "ibv_start_poll on the receive CQ: %d", rc);
	for (i = 0; i < 8; i++) {
		CHECK(i == 0 || (rc = ibv_next_poll(p.b.rcq_ex)) == 0,
		      "ibv_next_poll for completion %d: %d", i, rc);
		CHECK_EQ(p.b.rcq_ex->status, IBV_WC_SUCCESS, "status");
		CHECK_EQ(p.b.rcq_ex->wr_id, i, "wr_id");
		CHECK_EQ(ibv_wc_read_opcode(p.b.rcq_ex), IBV_WC_RECV, "opcode");
		CHECK_EQ(ntohl(ibv_wc_read_imm_data(p.b.rcq_ex)), i, "imm_data");
		CHECK_EQ(ibv_wc_read_qp_num(p.b.rcq_ex), p.b.qp->qp_num, "qp_num");
	}
	rc = ibv_next_poll(p.b.rcq_ex);
	CHECK(rc == ENOENT, "ibv_next_poll after the last completion: %d, want ENOENT", rc);
	ibv_end_poll(p.b.rcq_ex);
	NOTE("8 completions read in one ibv_start_poll/next_poll session");
	dp_teardown(&p, d);
}

static const struct dp_case cases[] = {
	{ "RC_qpex_send_v4", test_send, IBV_QPT_RC, 4 },
	{ "UC_qpex_send_v4", test_send, IBV_QPT_UC, 4 },
	{ "UD_qpex_send_v4", test_send, IBV_QPT_UD, 4 },
	{ "UD_qpex_send_v6", test_send, IBV_QPT_UD, 6 },
	{ "RC_qpex_write_read_v4", test_rdma, IBV_QPT_RC, 4 },
	{ "RC_qpex_write_read_v6", test_rdma, IBV_QPT_RC, 6 },
	{ "UC_qpex_write_v4", test_rdma, IBV_QPT_UC, 4 },
	/*
	 * ibv_wr_set_sge_list with SGEs of unequal lengths. Known librxe bug
	 * (rdma-core 56.1 providers/rxe/rxe.c wr_set_sge_list): the total
	 * length sums the first SGE's length num_sge times, so rxe sends
	 * num_sge * sge[0].length bytes; these cases rightly fail on rxe.
	 */
	{ "RC_qpex_send_sge_list_v4", test_send, IBV_QPT_RC, 4, 0, 4 },
	{ "RC_qpex_write_read_sge_list_v4", test_rdma, IBV_QPT_RC, 4, 0, 3 },
	{ "RC_qpex_atomic_v4", test_atomic, IBV_QPT_RC, 4 },
	{ "RC_cqex_batch_poll_v4", test_batch_poll, IBV_QPT_RC, 4 },
	{ "UD_cqex_batch_poll_v4", test_batch_poll, IBV_QPT_UD, 4 },
};

int main(int argc, char **argv)
{
	return dp_main(argc, argv, cases, ARRAY_SIZE(cases));
}
