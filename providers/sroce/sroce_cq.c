// SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause
/*
 * libsroce completion queues. The kernel writes CQEs into a ring mapped
 * here; polling reads it without any system call.
 */
#include <stdlib.h>
#include <string.h>
#include <errno.h>

#include <infiniband/driver.h>

#include "sroce.h"
#include "sroce_compat.h"

#define SROCE_CQ_WC_FLAGS (IBV_WC_EX_WITH_BYTE_LEN | IBV_WC_EX_WITH_IMM | \
			   IBV_WC_EX_WITH_QP_NUM | IBV_WC_EX_WITH_SRC_QP | \
			   IBV_WC_EX_WITH_SLID | IBV_WC_EX_WITH_SL | \
			   IBV_WC_EX_WITH_DLID_PATH_BITS)

static void sroce_cqe_to_wc(const struct sroce_cqe *c, struct ibv_wc *wc)
{
	memset(wc, 0, sizeof(*wc));
	wc->wr_id = c->wr_id;
	wc->status = c->status;
	wc->opcode = c->opcode;
	wc->vendor_err = c->vendor_err;
	wc->byte_len = c->byte_len;
	wc->imm_data = c->ex;	/* or invalidated_rkey: the same union */
	wc->qp_num = c->qp_num;
	wc->src_qp = c->src_qp;
	wc->wc_flags = c->wc_flags;
	wc->pkey_index = c->pkey_index;
	wc->sl = c->sl;
}

static int sroce_poll_cq(struct ibv_cq *ibcq, int ne, struct ibv_wc *wc)
{
	struct sroce_cq *cq = to_scq(ibcq);
	const struct sroce_cqe *c;
	int n = 0;

	pthread_spin_lock(&cq->lock);
	while (n < ne && (c = sroce_uring_cons_slot(&cq->ring))) {
		sroce_cqe_to_wc(c, &wc[n++]);
		sroce_uring_cons_advance(&cq->ring);
	}
	pthread_spin_unlock(&cq->lock);
	return n;
}

/* ibv_cq_ex polling: the lock is held from start_poll to end_poll. */
static void sroce_cq_set_cur(struct sroce_cq *cq, const struct sroce_cqe *c)
{
	cq->cur = c;
	cq->vcq.cq_ex.wr_id = c->wr_id;
	cq->vcq.cq_ex.status = c->status;
}

static int sroce_start_poll(struct ibv_cq_ex *ibcq, struct ibv_poll_cq_attr *attr)
{
	struct sroce_cq *cq = container_of(ibcq, struct sroce_cq, vcq.cq_ex);
	const struct sroce_cqe *c;

	if (attr->comp_mask)
		return EINVAL;
	pthread_spin_lock(&cq->lock);
	c = sroce_uring_cons_slot(&cq->ring);
	if (!c) {
		pthread_spin_unlock(&cq->lock);
		return ENOENT;
	}
	sroce_cq_set_cur(cq, c);
	return 0;
}

static int sroce_next_poll(struct ibv_cq_ex *ibcq)
{
	struct sroce_cq *cq = container_of(ibcq, struct sroce_cq, vcq.cq_ex);
	const struct sroce_cqe *c;

	sroce_uring_cons_advance(&cq->ring);
	c = sroce_uring_cons_slot(&cq->ring);
	if (!c) {
		cq->cur = NULL;
		return ENOENT;
	}
	sroce_cq_set_cur(cq, c);
	return 0;
}

static void sroce_end_poll(struct ibv_cq_ex *ibcq)
{
	struct sroce_cq *cq = container_of(ibcq, struct sroce_cq, vcq.cq_ex);

	if (cq->cur) {
		sroce_uring_cons_advance(&cq->ring);
		cq->cur = NULL;
	}
	pthread_spin_unlock(&cq->lock);
}

#define SROCE_CUR(ibcq) (container_of(ibcq, struct sroce_cq, vcq.cq_ex)->cur)

static enum ibv_wc_opcode sroce_read_opcode(struct ibv_cq_ex *ibcq)
{
	return SROCE_CUR(ibcq)->opcode;
}

static uint32_t sroce_read_vendor_err(struct ibv_cq_ex *ibcq)
{
	return SROCE_CUR(ibcq)->vendor_err;
}

static uint32_t sroce_read_byte_len(struct ibv_cq_ex *ibcq)
{
	return SROCE_CUR(ibcq)->byte_len;
}

static __be32 sroce_read_imm_data(struct ibv_cq_ex *ibcq)
{
	return (__be32)SROCE_CUR(ibcq)->ex;
}

static uint32_t sroce_read_qp_num(struct ibv_cq_ex *ibcq)
{
	return SROCE_CUR(ibcq)->qp_num;
}

static uint32_t sroce_read_src_qp(struct ibv_cq_ex *ibcq)
{
	return SROCE_CUR(ibcq)->src_qp;
}

static unsigned int sroce_read_wc_flags(struct ibv_cq_ex *ibcq)
{
	return SROCE_CUR(ibcq)->wc_flags;
}

static uint32_t sroce_read_slid(struct ibv_cq_ex *ibcq)
{
	return 0;	/* RoCE: no LIDs */
}

static uint8_t sroce_read_sl(struct ibv_cq_ex *ibcq)
{
	return SROCE_CUR(ibcq)->sl;
}

static uint8_t sroce_read_dlid_path_bits(struct ibv_cq_ex *ibcq)
{
	return 0;
}

static void sroce_cq_set_ex_ops(struct sroce_cq *cq)
{
	struct ibv_cq_ex *ex = &cq->vcq.cq_ex;

	ex->start_poll = sroce_start_poll;
	ex->next_poll = sroce_next_poll;
	ex->end_poll = sroce_end_poll;
	ex->read_opcode = sroce_read_opcode;
	ex->read_vendor_err = sroce_read_vendor_err;
	ex->read_wc_flags = sroce_read_wc_flags;
	ex->read_byte_len = sroce_read_byte_len;
	ex->read_imm_data = sroce_read_imm_data;
	ex->read_qp_num = sroce_read_qp_num;
	ex->read_src_qp = sroce_read_src_qp;
	ex->read_slid = sroce_read_slid;
	ex->read_sl = sroce_read_sl;
	ex->read_dlid_path_bits = sroce_read_dlid_path_bits;
}

/* Maps the ring from a create response; on failure the caller undoes. */
static int sroce_cq_setup(struct sroce_cq *cq, struct ibv_context *ctx,
			  const struct sroce_ring_info *info)
{
	int ret;

	ret = sroce_uring_map(&cq->ring, ctx->cmd_fd, info,
			      sizeof(struct sroce_cqe), UINT32_MAX);
	if (ret)
		return ret;
	ret = pthread_spin_init(&cq->lock, PTHREAD_PROCESS_PRIVATE);
	if (ret)
		sroce_uring_unmap(&cq->ring);
	return ret;
}

/*
 * The part of create_cq and create_cq_ex after the kernel made the CQ: map
 * its ring and set the ibv_cq_ex callbacks. On failure the kernel CQ is
 * destroyed again; the caller frees @cq.
 */
static int sroce_cq_finish(struct sroce_cq *cq, struct ibv_context *ctx,
			   const struct sroce_ring_info *ring)
{
	int ret = sroce_cq_setup(cq, ctx, ring);

	if (ret) {
		ibv_cmd_destroy_cq(&cq->vcq.cq);
		return ret;
	}
	sroce_cq_set_ex_ops(cq);
	return 0;
}

static struct ibv_cq *sroce_create_cq(struct ibv_context *ctx, int cqe,
				      struct ibv_comp_channel *channel,
				      int comp_vector)
{
	struct {
		struct ib_uverbs_create_cq_resp ibv_resp;
		struct sroce_create_cq_resp drv;
	} resp = {};
	struct ibv_create_cq cmd;
	struct sroce_cq *cq;
	int ret;

	cq = calloc(1, sizeof(*cq));
	if (!cq)
		return NULL;
	ret = ibv_cmd_create_cq(ctx, cqe, channel, comp_vector, &cq->vcq.cq,
				&cmd, sizeof(cmd), &resp.ibv_resp, sizeof(resp));
	if (ret)
		goto err_free;
	ret = sroce_cq_finish(cq, ctx, &resp.drv.ring);
	if (ret)
		goto err_free;
	return &cq->vcq.cq;

err_free:
	free(cq);
	errno = ret;
	return NULL;
}

static struct ibv_cq_ex *sroce_create_cq_ex(struct ibv_context *ctx,
					    struct ibv_cq_init_attr_ex *attr)
{
	struct {
		struct ib_uverbs_ex_create_cq_resp ibv_resp;
		struct sroce_create_cq_resp drv;
	} resp = {};
	struct ibv_create_cq_ex cmd;
	struct sroce_cq *cq;
	int ret;

	if ((attr->comp_mask & ~IBV_CQ_INIT_ATTR_MASK_FLAGS) || attr->flags ||
	    (attr->wc_flags & ~SROCE_CQ_WC_FLAGS)) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	cq = calloc(1, sizeof(*cq));
	if (!cq)
		return NULL;
	ret = sroce_cmd_create_cq_ex(ctx, attr, &cq->vcq, &cmd, sizeof(cmd),
				     &resp.ibv_resp, sizeof(resp), 0);
	if (ret)
		goto err_free;
	ret = sroce_cq_finish(cq, ctx, &resp.drv.ring);
	if (ret)
		goto err_free;
	return &cq->vcq.cq_ex;

err_free:
	free(cq);
	errno = ret;
	return NULL;
}

static int sroce_req_notify_cq(struct ibv_cq *ibcq, int solicited_only)
{
	return ibv_cmd_req_notify_cq(ibcq, solicited_only);
}

/*
 * The kernel copies the unpolled CQEs into a new ring (same indices) and
 * hands out a new mapping; the lock keeps pollers off meanwhile.
 */
static int sroce_resize_cq(struct ibv_cq *ibcq, int cqe)
{
	struct {
		struct ib_uverbs_resize_cq_resp ibv_resp;
		struct sroce_resize_cq_resp drv;
	} resp = {};
	struct sroce_cq *cq = to_scq(ibcq);
	struct ibv_resize_cq cmd;
	struct sroce_uring nr = {};
	int ret;

	pthread_spin_lock(&cq->lock);
	ret = ibv_cmd_resize_cq(ibcq, cqe, &cmd, sizeof(cmd), &resp.ibv_resp,
				sizeof(resp));
	if (!ret)
		ret = sroce_uring_map(&nr, ibcq->context->cmd_fd,
				      &resp.drv.ring, sizeof(struct sroce_cqe),
				      UINT32_MAX);
	if (!ret) {
		sroce_uring_unmap(&cq->ring);
		cq->ring = nr;
	}
	pthread_spin_unlock(&cq->lock);
	return ret;
}

static bool sroce_cqe_of_qp(const void *slot, void *qpn)
{
	return ((const struct sroce_cqe *)slot)->qp_num == *(uint32_t *)qpn;
}

/* A QP went to RESET: its completions leave the CQ (as mlx5 does). */
void sroce_cq_clean(struct ibv_cq *ibcq, uint32_t qpn)
{
	struct sroce_cq *cq = to_scq(ibcq);

	pthread_spin_lock(&cq->lock);
	sroce_uring_cons_remove(&cq->ring, sroce_cqe_of_qp, &qpn);
	pthread_spin_unlock(&cq->lock);
}

static int sroce_destroy_cq(struct ibv_cq *ibcq)
{
	struct sroce_cq *cq = to_scq(ibcq);
	int ret;

	ret = ibv_cmd_destroy_cq(ibcq);
	if (ret)
		return ret;
	sroce_uring_unmap(&cq->ring);
	pthread_spin_destroy(&cq->lock);
	free(cq);
	return 0;
}

const struct verbs_context_ops sroce_cq_ctx_ops = {
	.create_cq = sroce_create_cq,
	.create_cq_ex = sroce_create_cq_ex,
	.destroy_cq = sroce_destroy_cq,
	.poll_cq = sroce_poll_cq,
	.req_notify_cq = sroce_req_notify_cq,
	.resize_cq = sroce_resize_cq,
};
