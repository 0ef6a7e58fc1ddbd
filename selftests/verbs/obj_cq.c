// SPDX-License-Identifier: GPL-2.0-only
/*
 * CQ verbs on sroce: size bounds and errnos, resize, notification,
 * extended CQs, and polling without system calls.
 */
#include <fcntl.h>
#include "harness.h"

TEST(cq_create_bounds)
{
	struct hctx c;
	struct ibv_cq *cq;
	int max;

	HCTX_SETUP(&c);
	max = c.attr.orig_attr.max_cqe;
	ASSERT_GE(max, 1);
	ASSERT_NULL_ERRNO(ibv_create_cq(c.ctx, 0, NULL, NULL, 0), EINVAL);
	ASSERT_NULL_ERRNO(ibv_create_cq(c.ctx, -1, NULL, NULL, 0), EINVAL);
	ASSERT_NULL_ERRNO(ibv_create_cq(c.ctx, max + 1, NULL, NULL, 0), EINVAL);
	ASSERT_NULL_ERRNO(ibv_create_cq(c.ctx, 1, NULL, NULL,
					c.ctx->num_comp_vectors), EINVAL);
	cq = ASSERT_PTR(ibv_create_cq(c.ctx, 1, NULL, NULL, 0));
	ASSERT_GE(cq->cqe, 1);
	ASSERT_OK(ibv_destroy_cq(cq));
	cq = ASSERT_PTR(ibv_create_cq(c.ctx, max, NULL, NULL,
				      c.ctx->num_comp_vectors - 1));
	ASSERT_GE(cq->cqe, max);
	ASSERT_OK(ibv_destroy_cq(cq));
	cq = ASSERT_PTR(ibv_create_cq(c.ctx, 100, NULL, NULL, 0));
	ASSERT_GE(cq->cqe, 100);
	ASSERT_OK(ibv_destroy_cq(cq));
	hctx_teardown(&c);
}

TEST(cq_resize)
{
	struct hctx c;
	struct ibv_wc wc;
	struct ibv_cq *cq;
	int max;

	HCTX_SETUP(&c);
	max = c.attr.orig_attr.max_cqe;
	cq = ASSERT_PTR(ibv_create_cq(c.ctx, 16, NULL, NULL, 0));
	ASSERT_OK(ibv_resize_cq(cq, 1000));
	ASSERT_GE(cq->cqe, 1000);
	ASSERT_EQ(ibv_poll_cq(cq, 1, &wc), 0);
	ASSERT_OK(ibv_resize_cq(cq, 4));
	ASSERT_GE(cq->cqe, 4);
	ASSERT_EQ(ibv_poll_cq(cq, 1, &wc), 0);
	ASSERT_RET(ibv_resize_cq(cq, 0), EINVAL);
	ASSERT_RET(ibv_resize_cq(cq, max + 1), EINVAL);
	ASSERT_OK(ibv_resize_cq(cq, max));
	ASSERT_GE(cq->cqe, max);
	ASSERT_EQ(ibv_poll_cq(cq, 1, &wc), 0);
	ASSERT_OK(ibv_destroy_cq(cq));
	hctx_teardown(&c);
}

TEST(cq_notify)
{
	struct ibv_comp_channel *ch;
	struct ibv_cq *cq, *ev_cq;
	struct hctx c;
	void *ev_ctx;

	HCTX_SETUP(&c);
	ch = ASSERT_PTR(ibv_create_comp_channel(c.ctx));
	cq = ASSERT_PTR(ibv_create_cq(c.ctx, 8, (void *)0x1234, ch, 0));
	ASSERT_OK(ibv_req_notify_cq(cq, 0));
	ASSERT_OK(ibv_req_notify_cq(cq, 1));
	ASSERT_OK(ibv_req_notify_cq(cq, 0));
	/* Nothing completed: no event. */
	ASSERT_OK(fcntl(ch->fd, F_SETFL, fcntl(ch->fd, F_GETFL) | O_NONBLOCK));
	ASSERT_EQ(ibv_get_cq_event(ch, &ev_cq, &ev_ctx), -1);
	ASSERT_EQ(errno, EAGAIN);
	ASSERT_OK(ibv_destroy_cq(cq));
	ASSERT_OK(ibv_destroy_comp_channel(ch));
	hctx_teardown(&c);
}

TEST(cq_ex)
{
	struct ibv_cq_init_attr_ex a = {
		.cqe = 32,
		.wc_flags = IBV_WC_STANDARD_FLAGS,
	};
	struct ibv_poll_cq_attr pa = {};
	struct ibv_cq_ex *cq;
	struct hctx c;

	HCTX_SETUP(&c);
	cq = ASSERT_PTR(ibv_create_cq_ex(c.ctx, &a));
	ASSERT_GE(cq->cqe, 32);
	ASSERT_RET(ibv_start_poll(cq, &pa), ENOENT);
	ASSERT_OK(ibv_destroy_cq(ibv_cq_ex_to_cq(cq)));
	a.wc_flags = IBV_WC_EX_WITH_COMPLETION_TIMESTAMP;
	ASSERT_NULL_ERRNO(ibv_create_cq_ex(c.ctx, &a), EOPNOTSUPP);
	a.wc_flags = 0;
	a.cqe = 0;
	ASSERT_NULL_ERRNO(ibv_create_cq_ex(c.ctx, &a), EINVAL);
	hctx_teardown(&c);
}

/* Polling an empty CQ makes no system call (the ring is mapped). */
TEST(cq_poll_no_syscall)
{
	struct ibv_cq_init_attr_ex a = { .cqe = 8, .wc_flags = IBV_WC_STANDARD_FLAGS };
	struct ibv_poll_cq_attr pa = {};
	struct ibv_cq_ex *cqx;
	struct ibv_wc wc[4];
	struct ibv_cq *cq;
	struct hctx c;
	int i;

	HCTX_SETUP(&c);
	cq = ASSERT_PTR(ibv_create_cq(c.ctx, 8, NULL, NULL, 0));
	cqx = ASSERT_PTR(ibv_create_cq_ex(c.ctx, &a));
	harness_forbid_fd_syscalls(c.ctx->cmd_fd);
	for (i = 0; i < 1000; i++) {
		ASSERT_EQ(ibv_poll_cq(cq, 4, wc), 0);
		ASSERT_RET(ibv_start_poll(cqx, &pa), ENOENT);
	}
	/* Control: a verb that does talk to the kernel now fails. */
	ASSERT_NE(ibv_req_notify_cq(cq, 0), 0);
}

TEST(cq_many)
{
	struct ibv_cq *cq[64];
	struct hctx c;
	int i;

	HCTX_SETUP(&c);
	for (i = 0; i < 64; i++)
		cq[i] = ASSERT_PTR(ibv_create_cq(c.ctx, 64 * (i + 1), NULL, NULL,
						 i % c.ctx->num_comp_vectors));
	for (i = 0; i < 64; i++)
		ASSERT_OK(ibv_destroy_cq(cq[i]));
	hctx_teardown(&c);
}

HARNESS_MAIN
