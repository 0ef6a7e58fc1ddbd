// SPDX-License-Identifier: GPL-2.0-only
/*
 * SRQ verbs on sroce: bounds, query, limit arming (seed-rules R3.9: the
 * limit event itself needs traffic and is tested with the QP engine),
 * posting without system calls, full queue and too many SGEs.
 */
#include "harness.h"

static struct ibv_srq *mk_srq(struct hctx *c, int wr, int sge)
{
	struct ibv_srq_init_attr a = { .attr = { .max_wr = wr, .max_sge = sge } };

	return ibv_create_srq(c->pd, &a);
}

TEST(srq_bounds)
{
	struct ibv_srq_init_attr a = {};
	struct ibv_srq *srq;
	struct hctx c;
	int mwr, msge;

	HCTX_SETUP(&c);
	mwr = c.attr.orig_attr.max_srq_wr;
	msge = c.attr.orig_attr.max_srq_sge;
	ASSERT_GE(c.attr.orig_attr.max_srq, 1);
	ASSERT_NULL_ERRNO(mk_srq(&c, 0, 1), EINVAL);
	ASSERT_NULL_ERRNO(mk_srq(&c, mwr + 1, 1), EINVAL);
	ASSERT_NULL_ERRNO(mk_srq(&c, 16, msge + 1), EINVAL);
	a.attr.max_wr = 5;
	a.attr.max_sge = 3;
	srq = ASSERT_PTR(ibv_create_srq(c.pd, &a));
	ASSERT_GE(a.attr.max_wr, 5);
	ASSERT_GE(a.attr.max_sge, 3);
	ASSERT_OK(ibv_destroy_srq(srq));
	srq = ASSERT_PTR(mk_srq(&c, mwr, msge));
	ASSERT_OK(ibv_destroy_srq(srq));
	hctx_teardown(&c);
}

TEST(srq_query_modify)
{
	struct ibv_srq_attr q = {};
	struct ibv_srq *srq;
	struct hctx c;

	HCTX_SETUP(&c);
	srq = ASSERT_PTR(mk_srq(&c, 64, 2));
	ASSERT_OK(ibv_query_srq(srq, &q));
	ASSERT_GE(q.max_wr, 64);
	ASSERT_EQ(q.max_sge, 2);
	ASSERT_EQ(q.srq_limit, 0);
	/* Arm the limit (seed-rules R3.9). */
	q.srq_limit = 10;
	ASSERT_OK(ibv_modify_srq(srq, &q, IBV_SRQ_LIMIT));
	memset(&q, 0, sizeof(q));
	ASSERT_OK(ibv_query_srq(srq, &q));
	ASSERT_EQ(q.srq_limit, 10);
	/* A limit above the queue size is refused. */
	q.srq_limit = q.max_wr + 1;
	ASSERT_RET(ibv_modify_srq(srq, &q, IBV_SRQ_LIMIT), EINVAL);
	/* No resize (IBV_DEVICE_SRQ_RESIZE not advertised), as mlx5. */
	q.max_wr = 128;
	ASSERT_RET(ibv_modify_srq(srq, &q, IBV_SRQ_MAX_WR), EINVAL);
	ASSERT_OK(ibv_query_srq(srq, &q));
	ASSERT_EQ(q.srq_limit, 10);
	ASSERT_OK(ibv_destroy_srq(srq));
	hctx_teardown(&c);
}

/* mlx5's errnos: ENOMEM when full, EINVAL for too many SGEs. */
TEST(srq_post_full_and_sge)
{
	static char buf[4096];
	struct ibv_recv_wr wr = {}, *bad = NULL;
	struct ibv_sge sge[4];
	struct ibv_srq_attr q;
	struct ibv_srq *srq;
	struct ibv_mr *mr;
	struct hctx c;
	unsigned int i;

	HCTX_SETUP(&c);
	mr = ASSERT_PTR(ibv_reg_mr(c.pd, buf, sizeof(buf), IBV_ACCESS_LOCAL_WRITE));
	srq = ASSERT_PTR(mk_srq(&c, 8, 2));
	ASSERT_OK(ibv_query_srq(srq, &q));
	for (i = 0; i < 4; i++)
		sge[i] = (struct ibv_sge){ (uintptr_t)buf + i * 64, 64, mr->lkey };
	wr.sg_list = sge;
	wr.num_sge = 3;
	ASSERT_RET(ibv_post_srq_recv(srq, &wr, &bad), EINVAL);
	ASSERT_TRUE(bad == &wr);
	harness_forbid_fd_syscalls(c.ctx->cmd_fd);
	wr.num_sge = 2;
	for (i = 0; i < q.max_wr; i++) {
		wr.wr_id = i;
		ASSERT_OK(ibv_post_srq_recv(srq, &wr, &bad));
	}
	bad = NULL;
	ASSERT_RET(ibv_post_srq_recv(srq, &wr, &bad), ENOMEM);
	ASSERT_TRUE(bad == &wr);
}

/* A list stops at the first bad WR; the ones before it are posted. */
TEST(srq_post_list)
{
	struct ibv_recv_wr wr[3] = {}, *bad = NULL;
	struct ibv_srq_attr q;
	struct ibv_srq *srq;
	struct hctx c;
	unsigned int i;

	HCTX_SETUP(&c);
	srq = ASSERT_PTR(mk_srq(&c, 4, 1));
	ASSERT_OK(ibv_query_srq(srq, &q));
	wr[0].next = &wr[1];
	wr[1].next = &wr[2];
	wr[1].num_sge = 2;	/* too many */
	ASSERT_RET(ibv_post_srq_recv(srq, wr, &bad), EINVAL);
	ASSERT_TRUE(bad == &wr[1]);
	/* wr[0] took one slot: max_wr - 1 more fit. */
	wr[0].next = NULL;
	for (i = 0; i < q.max_wr - 1; i++)
		ASSERT_OK(ibv_post_srq_recv(srq, wr, &bad));
	ASSERT_RET(ibv_post_srq_recv(srq, wr, &bad), ENOMEM);
	ASSERT_OK(ibv_destroy_srq(srq));
	hctx_teardown(&c);
}

TEST(srq_ex)
{
	struct ibv_srq_init_attr_ex a = {
		.attr = { .max_wr = 16, .max_sge = 1 },
		.comp_mask = IBV_SRQ_INIT_ATTR_TYPE | IBV_SRQ_INIT_ATTR_PD,
		.srq_type = IBV_SRQT_BASIC,
	};
	struct ibv_srq *srq;
	struct hctx c;

	HCTX_SETUP(&c);
	a.pd = c.pd;
	srq = ASSERT_PTR(ibv_create_srq_ex(c.ctx, &a));
	ASSERT_GE(a.attr.max_wr, 16);
	ASSERT_OK(ibv_destroy_srq(srq));
	a.srq_type = IBV_SRQT_TM;
	a.comp_mask |= IBV_SRQ_INIT_ATTR_CQ;
	ASSERT_TRUE(ibv_create_srq_ex(c.ctx, &a) == NULL);
	hctx_teardown(&c);
}

HARNESS_MAIN
