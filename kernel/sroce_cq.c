// SPDX-License-Identifier: GPL-2.0-only
/*
 * sroce completion queues: create, resize, destroy, kernel poll and notify,
 * and sroce_cq_post() for the engines.
 */
#include <linux/log2.h>
#include <linux/etherdevice.h>
#include <linux/slab.h>
#include <rdma/ib_verbs.h>
#include <rdma/uverbs_ioctl.h>

#include "sroce.h"
#include "sroce_cq.h"
#include "sroce_param.h"
#include "sroce_qp.h"
#include "sroce_trace.h"

static u32 sroce_cq_slots_for(int cqe)
{
	return roundup_pow_of_two((u32)cqe);
}

static int sroce_cq_check_size(struct sroce_dev *sdev, int cqe)
{
	if (cqe < 1 || cqe > sdev->attr.max_cqe)
		return -EINVAL;
	return 0;
}

/* Sets up a ring (and for a kernel CQ its slot -> QP array). */
static int sroce_cq_alloc_ring(struct sroce_cq *cq, struct sroce_ring *r,
			       struct ib_qp ***wc_qp, int cqe,
			       struct ib_udata *udata)
{
	int err;

	memset(r, 0, sizeof(*r));
	err = sroce_ring_init(r, sroce_cq_slots_for(cqe),
			      sizeof(struct sroce_cqe), udata);
	if (err)
		return err;
	*wc_qp = NULL;
	if (udata)
		return 0;
	*wc_qp = kvcalloc(sroce_ring_slots(r), sizeof(**wc_qp), GFP_KERNEL);
	if (!*wc_qp) {
		sroce_ring_free(r);
		return -ENOMEM;
	}
	return 0;
}

static int sroce_create_cq(struct ib_cq *ibcq, const struct ib_cq_init_attr *attr,
			   SROCE_CREATE_CQ_ARG *attrs)
{
	struct ib_udata *udata = sroce_create_cq_udata(attrs);
	struct sroce_dev *sdev = to_sroce_dev(ibcq->device);
	struct sroce_cq *cq = to_sroce_cq(ibcq);
	struct sroce_create_cq_resp resp = {};
	int err;

	if (attr->flags)
		return -EOPNOTSUPP;
	err = sroce_cq_check_size(sdev, attr->cqe);
	if (err)
		return err;
	if (attr->comp_vector >= ibcq->device->num_comp_vectors)
		return -EINVAL;
	if (udata && udata->outlen < sizeof(resp))
		return -EINVAL;

	err = sroce_obj_get(sdev, SROCE_OBJ_CQ);
	if (err)
		return err;
	spin_lock_init(&cq->lock);
	cq->user = !!udata;
	err = sroce_cq_alloc_ring(cq, &cq->ring, &cq->wc_qp, attr->cqe, udata);
	if (err)
		goto err_put;
	ibcq->cqe = sroce_ring_slots(&cq->ring);

	if (udata) {
		sroce_ring_info(&cq->ring, &resp.ring);
		err = ib_copy_to_udata(udata, &resp, sizeof(resp));
		if (err)
			goto err_free_ring;
	}
	return 0;

err_free_ring:
	sroce_ring_free(&cq->ring);
err_put:
	sroce_obj_put(sdev, SROCE_OBJ_CQ);
	return err;
}

static int sroce_destroy_cq(struct ib_cq *ibcq, struct ib_udata *udata)
{
	struct sroce_cq *cq = to_sroce_cq(ibcq);

	/* The core holds no QP on this CQ any more: no engine posts to it. */
	sroce_ring_free(&cq->ring);
	kvfree(cq->wc_qp);
	cq->wc_qp = NULL;
	sroce_obj_put(to_sroce_dev(ibcq->device), SROCE_OBJ_CQ);
	return 0;
}

/* Entries in the ring not yet polled. Caller holds cq->lock. */
static int sroce_cq_outstanding(struct sroce_cq *cq, u32 *n)
{
	struct sroce_ring *r = &cq->ring;
	u32 cons = cq->user ? sroce_ring_user_cons(r) : r->cons;

	lockdep_assert_held(&cq->lock);
	*n = r->prod - cons;
	/* A user consumer index beyond the producer is garbage. */
	return *n > sroce_ring_slots(r) ? -EINVAL : 0;
}

/*
 * Moves the unpolled CQEs into @nr at the same free-running indices (user
 * space keeps its consumer index across a resize) and swaps the rings.
 * Caller holds cq->lock and has checked that they fit.
 */
static void sroce_cq_move(struct sroce_cq *cq, struct sroce_ring *nr,
			  struct ib_qp **nqp, u32 n)
{
	struct sroce_ring *r = &cq->ring;
	u32 cons = r->prod - n, i;

	for (i = cons; i != r->prod; i++) {
		memcpy(sroce_ring_slot(nr, i), sroce_ring_slot(r, i),
		       sizeof(struct sroce_cqe));
		if (nqp)
			nqp[i & nr->mask] = cq->wc_qp[i & r->mask];
	}
	nr->prod = r->prod;
	nr->cons = cons;
	nr->hdr->prod = r->prod;
	nr->hdr->cons = cons;
	nr->hdr->flags = READ_ONCE(r->hdr->flags);
	swap(*r, *nr);
	swap(cq->wc_qp, nqp);
}

static int sroce_resize_cq(struct ib_cq *ibcq, int cqe, struct ib_udata *udata)
{
	struct sroce_dev *sdev = to_sroce_dev(ibcq->device);
	struct sroce_cq *cq = to_sroce_cq(ibcq);
	struct sroce_resize_cq_resp resp = {};
	struct ib_qp **nqp;
	struct sroce_ring nr;
	unsigned long flags;
	u32 n;
	int err;

	err = sroce_cq_check_size(sdev, cqe);
	if (err)
		return err;
	if (udata && udata->outlen < sizeof(resp))
		return -EINVAL;
	err = sroce_cq_alloc_ring(cq, &nr, &nqp, cqe, cq->user ? udata : NULL);
	if (err)
		return err;
	if (udata) {
		sroce_ring_info(&nr, &resp.ring);
		err = ib_copy_to_udata(udata, &resp, sizeof(resp));
		if (err)
			goto out_free;
	}

	spin_lock_irqsave(&cq->lock, flags);
	err = sroce_cq_outstanding(cq, &n);
	if (!err && n > sroce_ring_slots(&nr))
		err = -EINVAL;	/* fewer entries than outstanding CQEs */
	if (err) {
		spin_unlock_irqrestore(&cq->lock, flags);
		goto out_free;
	}
	sroce_cq_move(cq, &nr, nqp, n);	/* nr, nqp now hold the old ring */
	ibcq->cqe = sroce_ring_slots(&cq->ring);
	spin_unlock_irqrestore(&cq->lock, flags);

out_free:	/* the new ring on error, the old one after the swap */
	sroce_ring_free(&nr);
	kvfree(nqp);
	return err;
}

static void sroce_cqe_to_wc(const struct sroce_cqe *c, struct ib_qp *qp,
			    struct ib_wc *wc)
{
	u32 f = c->wc_flags;

	memset(wc, 0, sizeof(*wc));
	wc->wr_id = c->wr_id;
	wc->status = c->status <= IB_WC_GENERAL_ERR ? c->status :
						      IB_WC_GENERAL_ERR;
	wc->opcode = c->opcode;
	wc->vendor_err = c->vendor_err;
	wc->byte_len = c->byte_len;
	wc->qp = qp;
	wc->src_qp = c->src_qp;
	wc->pkey_index = c->pkey_index;
	wc->sl = c->sl;
	wc->port_num = 1;
	if (f & SROCE_WC_GRH)
		wc->wc_flags |= IB_WC_GRH;
	if (f & SROCE_WC_IP_CSUM_OK)
		wc->wc_flags |= IB_WC_IP_CSUM_OK;
	if (f & SROCE_WC_WITH_IMM) {
		wc->wc_flags |= IB_WC_WITH_IMM;
		wc->ex.imm_data = (__force __be32)c->ex;
	} else if (f & SROCE_WC_WITH_INV) {
		wc->wc_flags |= IB_WC_WITH_INVALIDATE;
		wc->ex.invalidate_rkey = c->ex;
	}
	if (c->network_hdr_type == RDMA_NETWORK_IPV4 ||
	    c->network_hdr_type == RDMA_NETWORK_IPV6) {
		wc->network_hdr_type = c->network_hdr_type;
		wc->wc_flags |= IB_WC_WITH_NETWORK_HDR_TYPE;
	}
	if (!is_zero_ether_addr(c->smac)) {
		ether_addr_copy(wc->smac, c->smac);
		wc->wc_flags |= IB_WC_WITH_SMAC;
	}
}

/* Kernel users only: user space polls its mapped ring itself. */
static int sroce_poll_cq(struct ib_cq *ibcq, int num_entries, struct ib_wc *wc)
{
	struct sroce_cq *cq = to_sroce_cq(ibcq);
	struct sroce_ring *r = &cq->ring;
	struct sroce_cqe cqe;
	unsigned long flags;
	int i = 0;
	u32 n;

	if (cq->user)
		return -EOPNOTSUPP;
	spin_lock_irqsave(&cq->lock, flags);
	if (sroce_ring_cons_count(r, &n))
		n = 0;	/* cannot happen: the kernel wrote prod */
	for (; i < num_entries && n; i++, n--) {
		memcpy(&cqe, sroce_ring_cons_slot(r), sizeof(cqe));
		sroce_cqe_to_wc(&cqe, cq->wc_qp[r->cons & r->mask], &wc[i]);
		sroce_ring_cons_advance(r);
	}
	spin_unlock_irqrestore(&cq->lock, flags);
	return i;
}

static int sroce_req_notify_cq(struct ib_cq *ibcq, enum ib_cq_notify_flags flags)
{
	struct sroce_cq *cq = to_sroce_cq(ibcq);
	unsigned long irqflags;
	u32 n;
	int err;

	spin_lock_irqsave(&cq->lock, irqflags);
	/* NEXT_COMP is the wider arming; SOLICITED does not narrow it. */
	if (cq->notify != IB_CQ_NEXT_COMP)
		cq->notify = flags & IB_CQ_SOLICITED_MASK;
	err = sroce_cq_outstanding(cq, &n);
	spin_unlock_irqrestore(&cq->lock, irqflags);

	if ((flags & IB_CQ_REPORT_MISSED_EVENTS) && (err || n))
		return 1;
	return 0;
}

static void sroce_cq_overflow_event(struct sroce_cq *cq)
{
	struct ib_event ev = {
		.device = cq->ibcq.device,
		.element.cq = &cq->ibcq,
		.event = IB_EVENT_CQ_ERR,
	};

	sroce_count(to_sroce_dev(cq->ibcq.device), SROCE_CNT_CQ_OVERFLOW);
	ibdev_warn_ratelimited(cq->ibcq.device, "CQ overrun: CQ in error\n");
	if (cq->ibcq.event_handler)
		cq->ibcq.event_handler(&ev, cq->ibcq.cq_context);
}

u32 sroce_cq_user_cons(struct sroce_cq *cq)
{
	unsigned long flags;
	u32 cons;

	if (!cq->user)
		return 0;
	/* The lock keeps the ring (hdr) from being swapped by a resize. */
	spin_lock_irqsave(&cq->lock, flags);
	cons = READ_ONCE(cq->ring.hdr->cons);
	spin_unlock_irqrestore(&cq->lock, flags);
	return cons;
}

/**
 * sroce_cq_post - add a completion to a CQ
 * @cq: the CQ; the caller's QP holds it (the core forbids destroying a CQ
 *      that QPs use)
 * @cqe: the completion, in the ABI format
 * @ibqp: its QP (kernel CQs hand it to pollers in ib_wc.qp); the caller
 *        owns the QP's engines
 * @solicited: the completion is for a solicited receive
 *
 * Any context; takes cq->lock. Counts COMPLETIONS and COMPLETION_ERRORS,
 * on the device and on the QP.
 * When the ring is full the CQ goes into error once (SROCE_CQ_OVERFLOW in
 * the ring header, CQ_OVERFLOW counted, IB_EVENT_CQ_ERR dispatched) and
 * this and every later call return -EOVERFLOW (seed-rules R3.9). Calls
 * the completion handler (outside the lock) when the CQ was armed for it.
 */
int sroce_cq_post(struct sroce_cq *cq, const struct sroce_cqe *cqe,
		  struct ib_qp *ibqp, bool solicited)
{
	struct sroce_dev *sdev = to_sroce_dev(cq->ibcq.device);
	void (*count)(struct sroce_qp *qp, enum sroce_qp_counter c, u64 n);
	bool fire = false, overflow = false, recv;
	struct sroce_ring *r = &cq->ring;
	unsigned long flags;
	void *slot;
	int err = 0;

	spin_lock_irqsave(&cq->lock, flags);
	if (cq->error) {
		err = -EOVERFLOW;
		goto unlock;
	}
	slot = sroce_ring_prod_slot(r);
	if (!slot) {
		cq->error = true;
		WRITE_ONCE(r->hdr->flags, SROCE_CQ_OVERFLOW);
		overflow = true;
		err = -EOVERFLOW;
		goto unlock;
	}
	memcpy(slot, cqe, sizeof(*cqe));
	if (cq->wc_qp)
		cq->wc_qp[r->prod & r->mask] = ibqp;
	sroce_ring_prod_commit(r);
	if (cq->notify == IB_CQ_NEXT_COMP ||
	    (cq->notify == IB_CQ_SOLICITED &&
	     (solicited || cqe->status != IB_WC_SUCCESS))) {
		cq->notify = 0;
		fire = true;
	}
unlock:
	spin_unlock_irqrestore(&cq->lock, flags);

	if (overflow)
		sroce_cq_overflow_event(cq);
	if (err)
		return err;
	sroce_count(sdev, SROCE_CNT_COMPLETIONS);
	/* A receive's is the responder's, counted by its owner apart. */
	recv = cqe->opcode >= IB_WC_RECV;
	count = recv ? sroce_resp_count : sroce_qp_count;
	count(to_sroce_qp(ibqp), SROCE_QCNT_COMPLETIONS, 1);
	if (cqe->status != IB_WC_SUCCESS) {
		sroce_count(sdev, SROCE_CNT_COMPLETION_ERRORS);
		count(to_sroce_qp(ibqp), SROCE_QCNT_COMPLETION_ERRORS, 1);
		trace_sroce_cqe_err(sdev, cqe);
	}
	if (fire && cq->ibcq.comp_handler)
		cq->ibcq.comp_handler(&cq->ibcq, cq->ibcq.cq_context);
	return 0;
}

SROCE_RESIZE_CQ_OP(sroce_resize_cq)

const struct ib_device_ops sroce_cq_ops = {
	SROCE_CQ_OPS(sroce_create_cq, sroce_resize_cq),
	.destroy_cq = sroce_destroy_cq,
	.poll_cq = sroce_poll_cq,
	.req_notify_cq = sroce_req_notify_cq,

	INIT_RDMA_OBJ_SIZE(ib_cq, sroce_cq, ibcq),
};
