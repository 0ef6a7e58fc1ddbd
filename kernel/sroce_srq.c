// SPDX-License-Identifier: GPL-2.0-only
/*
 * sroce receive queues (struct sroce_rq, shared by QP RQs and SRQs) and the
 * SRQ verbs.
 */
#include <linux/slab.h>
#include <rdma/ib_verbs.h>
#include <rdma/uverbs_ioctl.h>

#include "sroce.h"
#include "sroce_param.h"
#include "sroce_ref.h"
#include "sroce_srq.h"

static u32 sroce_rq_stride(u32 max_sge)
{
	return sizeof(struct sroce_recv_wqe) + max_sge * sizeof(struct sroce_sge);
}

/**
 * sroce_rq_init - set up a receive queue
 * @rq: the queue, zeroed by the caller
 * @max_wr: WQEs it must hold (1..limit checked by the caller)
 * @max_sge: SGEs per WQE (checked by the caller)
 * @udata: non-NULL for a user queue (its ring is mapped by user space)
 *
 * Process context. The ring holds max_wr rounded up to a power of two,
 * which rq->max_wr then reports. Returns 0 or a negative errno.
 */
int sroce_rq_init(struct sroce_rq *rq, u32 max_wr, u32 max_sge,
		  struct ib_udata *udata)
{
	int err;

	spin_lock_init(&rq->lock);
	rq->max_sge = max_sge;
	rq->user = !!udata;
	rq->limit = 0;
	err = sroce_ring_init(&rq->ring, max(max_wr, 1U),
			      sroce_rq_stride(max_sge), udata);
	if (err)
		return err;
	rq->max_wr = sroce_ring_slots(&rq->ring);
	return 0;
}

void sroce_rq_free(struct sroce_rq *rq)
{
	sroce_ring_free(&rq->ring);
}

static void sroce_srq_event(struct ib_srq *ibsrq, enum ib_event_type type)
{
	struct ib_event ev = {
		.device = ibsrq->device,
		.element.srq = ibsrq,
		.event = type,
	};

	if (ibsrq->event_handler)
		ibsrq->event_handler(&ev, ibsrq->srq_context);
}

/**
 * sroce_rq_pop - take the next receive WQE
 * @rq: the queue
 * @wqe_out: the WQE header, copied out of the ring
 * @sges_out: room for rq->max_sge SGEs, copied out of the ring
 *
 * Any context; takes rq->lock. The slot is copied before anything in it is
 * looked at. Returns 0; -ENOENT if the queue is empty; -EINVAL if the WQE
 * claims more than max_sge SGEs (it is consumed, wqe_out->wr_id is valid,
 * wqe_out->num_sge is set to 0: complete it with an error); -EIO if the
 * producer index is or once was impossible (nothing consumed: the queue is
 * broken for good; an SRQ dispatches IB_EVENT_SRQ_ERR the first time, as
 * a real RNIC reports an SRQ it cannot fetch from, seed-rules R3.9).
 * When an armed SRQ limit is crossed, dispatches IB_EVENT_SRQ_LIMIT_REACHED
 * once and disarms (seed-rules R3.9).
 */
int sroce_rq_pop(struct sroce_rq *rq, struct sroce_recv_wqe *wqe_out,
		 struct sroce_sge *sges_out)
{
	struct sroce_ring *r = &rq->ring;
	unsigned long flags;
	bool fire = false, broke = false;
	const u8 *slot;
	int err = -EIO;
	u32 n;

	spin_lock_irqsave(&rq->lock, flags);
	if (rq->broken)
		goto unlock;
	err = sroce_ring_cons_count(r, &n);
	if (err) {
		rq->broken = true;
		broke = true;
		goto unlock;
	}
	if (!n) {
		err = -ENOENT;
		goto unlock;
	}
	slot = sroce_ring_cons_slot(r);
	memcpy(wqe_out, slot, sizeof(*wqe_out));
	if (wqe_out->num_sge > rq->max_sge) {
		wqe_out->num_sge = 0;
		err = -EINVAL;
	} else {
		memcpy(sges_out, slot + sizeof(*wqe_out),
		       wqe_out->num_sge * sizeof(*sges_out));
	}
	sroce_ring_cons_advance(r);
	n--;
	if (rq->limit && n < rq->limit) {
		rq->limit = 0;
		fire = true;
	}
unlock:
	spin_unlock_irqrestore(&rq->lock, flags);
	if (fire && rq->ibsrq)
		sroce_srq_event(rq->ibsrq, IB_EVENT_SRQ_LIMIT_REACHED);
	if (broke && rq->ibsrq)
		sroce_srq_event(rq->ibsrq, IB_EVENT_SRQ_ERR);
	return err;
}

/* WQEs waiting in the queue (0 if the producer index is impossible). */
u32 sroce_rq_count(struct sroce_rq *rq)
{
	unsigned long flags;
	u32 n;

	spin_lock_irqsave(&rq->lock, flags);
	if (sroce_ring_cons_count(&rq->ring, &n))
		n = 0;
	spin_unlock_irqrestore(&rq->lock, flags);
	return n;
}

/**
 * sroce_rq_post_kernel - post receive WRs from a kernel user
 * @rq: a kernel queue (not user-mapped)
 * @wr: the WR list
 * @bad_wr: set to the first WR not posted
 *
 * Any context. Returns 0, -EINVAL (too many SGEs) or -ENOMEM (queue full),
 * as mlx5 does; the WRs before *bad_wr are posted.
 */
int sroce_rq_post_kernel(struct sroce_rq *rq, const struct ib_recv_wr *wr,
			 const struct ib_recv_wr **bad_wr)
{
	struct sroce_recv_wqe *wqe;
	struct sroce_sge *sge;
	unsigned long flags;
	int err = 0, i;

	if (rq->user) {
		*bad_wr = wr;
		return -EINVAL;
	}
	spin_lock_irqsave(&rq->lock, flags);
	for (; wr; wr = wr->next) {
		if (wr->num_sge < 0 || wr->num_sge > rq->max_sge) {
			err = -EINVAL;
			break;
		}
		wqe = sroce_ring_prod_slot(&rq->ring);
		if (!wqe) {
			err = -ENOMEM;
			break;
		}
		wqe->wr_id = wr->wr_id;
		wqe->num_sge = wr->num_sge;
		wqe->reserved = 0;
		sge = (struct sroce_sge *)(wqe + 1);
		for (i = 0; i < wr->num_sge; i++) {
			sge[i].addr = wr->sg_list[i].addr;
			sge[i].length = wr->sg_list[i].length;
			sge[i].lkey = wr->sg_list[i].lkey;
		}
		sroce_ring_prod_commit(&rq->ring);
	}
	spin_unlock_irqrestore(&rq->lock, flags);
	if (err)
		*bad_wr = wr;
	return err;
}

/**
 * sroce_xrc_srq_get - the XRC SRQ an XRC request names
 * @sdev: the device
 * @srqn: the XRCETH's SRQ number
 * @xrcd: the XRC domain of the target QP the request came to
 *
 * Any context. Returns the SRQ with a reference (sroce_srq_put()), or
 * NULL when there is no XRC SRQ of that number in that domain (IBA annex
 * A14: the request is invalid). The reference is taken under the
 * xarray's lock, which destroy_srq's erase also takes.
 */
struct sroce_srq *sroce_xrc_srq_get(struct sroce_dev *sdev, u32 srqn,
				    const struct ib_xrcd *xrcd)
{
	struct sroce_srq *srq;
	unsigned long flags;

	xa_lock_irqsave(&sdev->srq_xa, flags);
	srq = xa_load(&sdev->srq_xa, srqn);
	if (srq && (srq->ibsrq.srq_type != IB_SRQT_XRC ||
		    srq->ibsrq.ext.xrc.xrcd != xrcd ||
		    !refcount_inc_not_zero(&srq->ref)))
		srq = NULL;
	xa_unlock_irqrestore(&sdev->srq_xa, flags);
	return srq;
}

void sroce_srq_put(struct sroce_srq *srq)
{
	sroce_ref_put(&srq->ref);
}

static int sroce_create_srq(struct ib_srq *ibsrq,
			    struct ib_srq_init_attr *init_attr,
			    struct ib_udata *udata)
{
	struct sroce_dev *sdev = to_sroce_dev(ibsrq->device);
	struct sroce_srq *srq = to_sroce_srq(ibsrq);
	struct sroce_create_srq_resp resp = {};
	struct ib_srq_attr *attr = &init_attr->attr;
	int err;

	/* The core keeps an XRC SRQ's domain and CQ in ibsrq->ext. */
	if (init_attr->srq_type != IB_SRQT_BASIC &&
	    init_attr->srq_type != IB_SRQT_XRC)
		return -EOPNOTSUPP;
	if (attr->max_wr < 1 || attr->max_wr > sdev->attr.max_srq_wr ||
	    attr->max_sge > sdev->attr.max_srq_sge)
		return -EINVAL;
	if (udata && udata->outlen < sizeof(resp))
		return -EINVAL;

	err = sroce_obj_get(sdev, SROCE_OBJ_SRQ);
	if (err)
		return err;
	refcount_set(&srq->ref, 1);
	/* The number now, the SRQ once it is whole (below). */
	err = xa_alloc_cyclic_irq(&sdev->srq_xa, &srq->srq_num, NULL,
				  XA_LIMIT(1, SROCE_MAX_SRQ), &sdev->srq_next,
				  GFP_KERNEL);
	if (err < 0) {
		err = err == -EBUSY ? -ENOMEM : err;
		goto err_put;
	}
	srq->rq.ibsrq = ibsrq;
	err = sroce_rq_init(&srq->rq, attr->max_wr, attr->max_sge, udata);
	if (err)
		goto err_erase;
	attr->max_wr = srq->rq.max_wr;
	ibsrq->ext.xrc.srq_num = srq->srq_num;	/* what uverbs reports */
	if (udata) {
		resp.srq_num = srq->srq_num;
		sroce_ring_info(&srq->rq.ring, &resp.ring);
		err = ib_copy_to_udata(udata, &resp, sizeof(resp));
		if (err)
			goto err_free_rq;
	}
	xa_store_irq(&sdev->srq_xa, srq->srq_num, srq, GFP_KERNEL);
	return 0;

err_free_rq:
	sroce_rq_free(&srq->rq);
err_erase:
	xa_erase_irq(&sdev->srq_xa, srq->srq_num);
err_put:
	sroce_obj_put(sdev, SROCE_OBJ_SRQ);
	return err;
}

static int sroce_modify_srq(struct ib_srq *ibsrq, struct ib_srq_attr *attr,
			    enum ib_srq_attr_mask mask, struct ib_udata *udata)
{
	struct sroce_srq *srq = to_sroce_srq(ibsrq);
	unsigned long flags;

	if (mask & ~(IB_SRQ_MAX_WR | IB_SRQ_LIMIT))
		return -EINVAL;
	/* No resize (IB_DEVICE_SRQ_RESIZE is not advertised), as mlx5. */
	if (mask & IB_SRQ_MAX_WR)
		return -EINVAL;
	if (mask & IB_SRQ_LIMIT) {
		if (attr->srq_limit > srq->rq.max_wr)
			return -EINVAL;
		/* Arms the limit event; 0 disarms (seed-rules R3.9). */
		spin_lock_irqsave(&srq->rq.lock, flags);
		srq->rq.limit = attr->srq_limit;
		spin_unlock_irqrestore(&srq->rq.lock, flags);
	}
	return 0;
}

static int sroce_query_srq(struct ib_srq *ibsrq, struct ib_srq_attr *attr)
{
	struct sroce_srq *srq = to_sroce_srq(ibsrq);

	attr->max_wr = srq->rq.max_wr;
	attr->max_sge = srq->rq.max_sge;
	attr->srq_limit = READ_ONCE(srq->rq.limit);
	return 0;
}

static int sroce_destroy_srq(struct ib_srq *ibsrq, struct ib_udata *udata)
{
	struct sroce_dev *sdev = to_sroce_dev(ibsrq->device);
	struct sroce_srq *srq = to_sroce_srq(ibsrq);

	/*
	 * The core holds no QP on this SRQ any more; an XRC target's
	 * responder may still be using it for one packet.
	 */
	xa_erase_irq(&sdev->srq_xa, srq->srq_num);
	sroce_srq_put(srq);
	sroce_ref_wait_zero(&srq->ref);
	sroce_rq_free(&srq->rq);
	sroce_obj_put(sdev, SROCE_OBJ_SRQ);
	return 0;
}

static int sroce_post_srq_recv(struct ib_srq *ibsrq,
			       const struct ib_recv_wr *wr,
			       const struct ib_recv_wr **bad_wr)
{
	return sroce_rq_post_kernel(&to_sroce_srq(ibsrq)->rq, wr, bad_wr);
}

const struct ib_device_ops sroce_srq_ops = {
	.create_srq = sroce_create_srq,
	.destroy_srq = sroce_destroy_srq,
	.modify_srq = sroce_modify_srq,
	.post_srq_recv = sroce_post_srq_recv,
	.query_srq = sroce_query_srq,

	INIT_RDMA_OBJ_SIZE(ib_srq, sroce_srq, ibsrq),
};
