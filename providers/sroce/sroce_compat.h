/* SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause */
/*
 * sroce_compat.h - what differs between the rdma-core releases libsroce
 * builds in (README, "Supported kernels and rdma-core").
 *
 * libsroce is written against rdma-core 56.1 (private ABI 34). A later
 * private ABI changed ibv_cmd_get_context(), ibv_cmd_create_cq_ex() and
 * ibv_cmd_create_qp_ex2()
 * (65.0, private ABI 65, has the forms below; the first private ABI after
 * 34 that has them is not checked here). Only this header tests
 * IBVERBS_PABI_VERSION, which rdma-core raises with every change of the
 * provider interface.
 */
#ifndef SROCE_PROV_COMPAT_H
#define SROCE_PROV_COMPAT_H

#include <config.h>
#include <infiniband/driver.h>

#if IBVERBS_PABI_VERSION > 34
/* Context creation may pass file descriptors: sroce passes none. */
static inline int sroce_cmd_get_context(struct verbs_context *ctx,
					struct ibv_get_context *cmd,
					size_t cmd_size,
					struct ib_uverbs_get_context_resp *resp,
					size_t resp_size)
{
	return ibv_cmd_get_context(ctx, cmd, cmd_size, NULL, resp, resp_size);
}

/* CQ creation may carry provider attributes: sroce has none. */
static inline int sroce_cmd_create_cq_ex(struct ibv_context *ctx,
					 const struct ibv_cq_init_attr_ex *attr,
					 struct verbs_cq *cq,
					 struct ibv_create_cq_ex *cmd,
					 size_t cmd_size,
					 struct ib_uverbs_ex_create_cq_resp *resp,
					 size_t resp_size, uint32_t cmd_flags)
{
	return ibv_cmd_create_cq_ex(ctx, attr, NULL, cq, cmd, cmd_size, resp,
				    resp_size, cmd_flags);
}

/* QP creation may carry driver attributes: sroce has none. */
static inline int sroce_cmd_create_qp_ex2(struct ibv_context *ctx,
					  struct verbs_qp *qp,
					  struct ibv_qp_init_attr_ex *attr,
					  struct ibv_create_qp_ex *cmd,
					  size_t cmd_size,
					  struct ib_uverbs_ex_create_qp_resp *resp,
					  size_t resp_size)
{
	return ibv_cmd_create_qp_ex2(ctx, qp, attr, cmd, cmd_size, resp,
				     resp_size, NULL);
}
#else
static inline int sroce_cmd_get_context(struct verbs_context *ctx,
					struct ibv_get_context *cmd,
					size_t cmd_size,
					struct ib_uverbs_get_context_resp *resp,
					size_t resp_size)
{
	return ibv_cmd_get_context(ctx, cmd, cmd_size, resp, resp_size);
}

static inline int sroce_cmd_create_cq_ex(struct ibv_context *ctx,
					 const struct ibv_cq_init_attr_ex *attr,
					 struct verbs_cq *cq,
					 struct ibv_create_cq_ex *cmd,
					 size_t cmd_size,
					 struct ib_uverbs_ex_create_cq_resp *resp,
					 size_t resp_size, uint32_t cmd_flags)
{
	return ibv_cmd_create_cq_ex(ctx, attr, cq, cmd, cmd_size, resp,
				    resp_size, cmd_flags);
}

static inline int sroce_cmd_create_qp_ex2(struct ibv_context *ctx,
					  struct verbs_qp *qp,
					  struct ibv_qp_init_attr_ex *attr,
					  struct ibv_create_qp_ex *cmd,
					  size_t cmd_size,
					  struct ib_uverbs_ex_create_qp_resp *resp,
					  size_t resp_size)
{
	return ibv_cmd_create_qp_ex2(ctx, qp, attr, cmd, cmd_size, resp,
				     resp_size);
}
#endif

#endif /* SROCE_PROV_COMPAT_H */
