// SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause
/*
 * libsroce shared receive queues, and the receive-ring producer that QP
 * receive queues use too. Posting never makes a system call.
 */
#include <stdlib.h>
#include <string.h>
#include <errno.h>

#include <infiniband/driver.h>

#include "sroce.h"
#include "sroce_wqe.h"

static int sroce_post_srq_recv(struct ibv_srq *ibsrq, struct ibv_recv_wr *wr,
			       struct ibv_recv_wr **bad_wr)
{
	struct sroce_srq *srq = to_ssrq(ibsrq);
	bool flush;
	int ret;

	pthread_spin_lock(&srq->lock);
	/* An SRQ's WRs are never flushed (R3.3): no doorbell either. */
	ret = sroce_rq_post(&srq->ring, srq->max_sge, wr, bad_wr, &flush);
	pthread_spin_unlock(&srq->lock);
	return ret;
}

static int sroce_srq_setup(struct sroce_srq *srq, struct ibv_context *ctx,
			   const struct sroce_create_srq_resp *resp,
			   uint32_t max_sge)
{
	int ret;

	srq->max_sge = max_sge;
	srq->srq_num = resp->srq_num;
	ret = sroce_uring_map(&srq->ring, ctx->cmd_fd, &resp->ring,
			      sizeof(struct sroce_recv_wqe) +
			      max_sge * sizeof(struct sroce_sge),
			      1U << resp->ring.log2_size);
	if (ret)
		return ret;
	ret = pthread_spin_init(&srq->lock, PTHREAD_PROCESS_PRIVATE);
	if (ret)
		sroce_uring_unmap(&srq->ring);
	return ret;
}

static struct ibv_srq *sroce_create_srq(struct ibv_pd *pd,
					struct ibv_srq_init_attr *attr)
{
	struct {
		struct ib_uverbs_create_srq_resp ibv_resp;
		struct sroce_create_srq_resp drv;
	} resp = {};
	struct ibv_create_srq cmd;
	struct sroce_srq *srq;
	int ret;

	srq = calloc(1, sizeof(*srq));
	if (!srq)
		return NULL;
	ret = ibv_cmd_create_srq(pd, &srq->vsrq.srq, attr, &cmd, sizeof(cmd),
				 &resp.ibv_resp, sizeof(resp));
	if (ret)
		goto err_free;
	ret = sroce_srq_setup(srq, pd->context, &resp.drv, attr->attr.max_sge);
	if (ret)
		goto err_destroy;
	return &srq->vsrq.srq;

err_destroy:
	ibv_cmd_destroy_srq(&srq->vsrq.srq);
err_free:
	free(srq);
	errno = ret;
	return NULL;
}

/*
 * Basic and XRC SRQs (no tag matching). An XRC SRQ takes receives for
 * the XRC target QPs of its domain and completes them on its own CQ;
 * ibv_get_srq_num() gives its number to the initiators' WRs.
 */
static struct ibv_srq *sroce_create_srq_ex(struct ibv_context *ctx,
					   struct ibv_srq_init_attr_ex *attr)
{
	const uint32_t xrc_mask = IBV_SRQ_INIT_ATTR_XRCD | IBV_SRQ_INIT_ATTR_CQ;
	struct {
		struct ib_uverbs_create_srq_resp ibv_resp;
		struct sroce_create_srq_resp drv;
	} resp = {};
	struct ibv_create_xsrq cmd;
	struct sroce_srq *srq;
	int ret;

	bool xrc = (attr->comp_mask & IBV_SRQ_INIT_ATTR_TYPE) &&
		   attr->srq_type == IBV_SRQT_XRC;

	if ((attr->comp_mask & ~(IBV_SRQ_INIT_ATTR_TYPE | IBV_SRQ_INIT_ATTR_PD |
				 xrc_mask)) ||
	    ((attr->comp_mask & IBV_SRQ_INIT_ATTR_TYPE) &&
	     attr->srq_type != IBV_SRQT_BASIC && !xrc)) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	if (!(attr->comp_mask & IBV_SRQ_INIT_ATTR_PD) || !attr->pd ||
	    (xrc && ((attr->comp_mask & xrc_mask) != xrc_mask ||
		     !attr->xrcd || !attr->cq))) {
		errno = EINVAL;
		return NULL;
	}
	srq = calloc(1, sizeof(*srq));
	if (!srq)
		return NULL;
	ret = ibv_cmd_create_srq_ex(ctx, &srq->vsrq, attr, &cmd, sizeof(cmd),
				    &resp.ibv_resp, sizeof(resp));
	if (ret)
		goto err_free;
	ret = sroce_srq_setup(srq, ctx, &resp.drv, attr->attr.max_sge);
	if (ret)
		goto err_destroy;
	return &srq->vsrq.srq;

err_destroy:
	ibv_cmd_destroy_srq(&srq->vsrq.srq);
err_free:
	free(srq);
	errno = ret;
	return NULL;
}

static int sroce_modify_srq(struct ibv_srq *srq, struct ibv_srq_attr *attr,
			    int mask)
{
	struct ibv_modify_srq cmd;

	return ibv_cmd_modify_srq(srq, attr, mask, &cmd, sizeof(cmd));
}

static int sroce_query_srq(struct ibv_srq *srq, struct ibv_srq_attr *attr)
{
	struct ibv_query_srq cmd;

	return ibv_cmd_query_srq(srq, attr, &cmd, sizeof(cmd));
}

static int sroce_get_srq_num(struct ibv_srq *ibsrq, uint32_t *srq_num)
{
	*srq_num = to_ssrq(ibsrq)->srq_num;
	return 0;
}

static int sroce_destroy_srq(struct ibv_srq *ibsrq)
{
	struct sroce_srq *srq = to_ssrq(ibsrq);
	int ret;

	ret = ibv_cmd_destroy_srq(ibsrq);
	if (ret)
		return ret;
	sroce_uring_unmap(&srq->ring);
	pthread_spin_destroy(&srq->lock);
	free(srq);
	return 0;
}

const struct verbs_context_ops sroce_srq_ctx_ops = {
	.create_srq = sroce_create_srq,
	.create_srq_ex = sroce_create_srq_ex,
	.destroy_srq = sroce_destroy_srq,
	.get_srq_num = sroce_get_srq_num,
	.modify_srq = sroce_modify_srq,
	.post_srq_recv = sroce_post_srq_recv,
	.query_srq = sroce_query_srq,
};
