// SPDX-License-Identifier: GPL-2.0-only
/*
 * sroce QP verbs: create, modify (the IBA state machine of
 * kernel/core/qp_fsm.c), query, destroy, and the post verbs. The QP
 * object is sroce_qp.h, its errors sroce_qp_err.c, the engines
 * sroce_req.c, sroce_resp.c and sroce_comp.c (sroce_engine.h), who runs
 * them and where sroce_exec.c.
 */
#include <linux/log2.h>
#include <linux/sched/mm.h>
#include <linux/slab.h>
#include <rdma/ib_cache.h>
#include <rdma/uverbs_ioctl.h>

#include "sroce_cc.h"
#include "sroce_engine.h"
#include "sroce_exec.h"
#include "sroce_qp.h"
#include "sroce_qp_verbs.h"
#include "sroce_work.h"
#include "sroce_mcast.h"
#include "sroce_param.h"
#include "sroce_cq.h"
#include "qp_fsm.h"
#include "psn.h"
#include "sroce_trace.h"

#define SROCE_GSI_QKEY	0x80010000
#define SROCE_QPN_MIN	2		/* 0 and 1 are SMI and GSI (R1.4) */
#define SROCE_QPN_MAX	0xFFFFFE	/* 0xFFFFFF is multicast (R1.4) */

/* Last sroce_qp.uid given out; 64 bits do not wrap. */
static atomic64_t sroce_qp_last_uid = ATOMIC64_INIT(0);

static enum sroce_qp_type sroce_qpt(enum ib_qp_type t)
{
	switch (t) {
	case IB_QPT_RC:		return SROCE_QPT_RC;
	case IB_QPT_UC:		return SROCE_QPT_UC;
	case IB_QPT_XRC_INI:	return SROCE_QPT_XRC_INI;
	case IB_QPT_XRC_TGT:	return SROCE_QPT_XRC_TGT;
	default:		return SROCE_QPT_UD;	/* UD, GSI */
	}
}

/* An XRC initiator has no receive queue, an XRC target no queue at all. */
static bool sroce_qpt_has_recv(enum ib_qp_type t)
{
	return t != IB_QPT_XRC_INI && t != IB_QPT_XRC_TGT;
}

/* Back to empty on a move to RESET; user space reloads its indices. */
static void sroce_ring_reset(struct sroce_ring *r)
{
	r->prod = 0;
	r->cons = 0;
	WRITE_ONCE(r->hdr->prod, 0);
	WRITE_ONCE(r->hdr->cons, 0);
}

static int sroce_qp_check_caps(struct sroce_dev *sdev,
			       struct ib_qp_init_attr *init)
{
	struct ib_qp_cap *cap = &init->cap;

	if (init->qp_type == IB_QPT_XRC_TGT)
		return 0;	/* its capabilities are its XRC SRQs' */
	if (!cap->max_send_wr || cap->max_send_wr > SROCE_MAX_QP_WR ||
	    cap->max_send_sge > SROCE_MAX_SGE ||
	    cap->max_inline_data > SROCE_MAX_INLINE)
		return -EINVAL;
	if (init->srq || !sroce_qpt_has_recv(init->qp_type))
		return 0;
	if (!cap->max_recv_wr || cap->max_recv_wr > SROCE_MAX_QP_WR ||
	    cap->max_recv_sge > SROCE_MAX_SGE)
		return -EINVAL;
	return 0;
}

static int sroce_qp_alloc_qpn(struct sroce_qp *qp, bool gsi)
{
	struct sroce_dev *sdev = qp->sdev;

	if (gsi)
		return xa_insert_irq(&sdev->qp_xa, 1, NULL, GFP_KERNEL);
	return xa_alloc_cyclic_irq(&sdev->qp_xa, &qp->qpn, NULL,
				   XA_LIMIT(SROCE_QPN_MIN, SROCE_QPN_MAX),
				   &sdev->qp_next, GFP_KERNEL) < 0 ? -ENOMEM : 0;
}

/* SQ slot: WQE header, then SGEs or inline data, rounded to 64 bytes. */
static u32 sroce_sq_stride(const struct ib_qp_cap *cap)
{
	u32 body = max_t(u32, cap->max_send_sge * sizeof(struct sroce_sge),
			 cap->max_inline_data);

	return ALIGN(sizeof(struct sroce_send_wqe) + body, 64);
}

static int sroce_qp_create_queues(struct sroce_qp *qp,
				  struct ib_qp_init_attr *init,
				  struct ib_udata *udata,
				  struct sroce_create_qp_resp *resp)
{
	struct ib_qp_cap *cap = &init->cap;
	u32 stride, slots;
	int err;

	/*
	 * An XRC target posts nothing: one kernel slot that nothing fills
	 * keeps every SQ path (reset, flush, query) as it is for the rest.
	 */
	if (qp->type == SROCE_QPT_XRC_TGT)
		memset(cap, 0, sizeof(*cap));
	stride = sroce_sq_stride(cap);
	err = sroce_ring_init(&qp->sq, max(cap->max_send_wr, 1U), stride,
			      udata);
	if (err)
		return err;
	sroce_ring_info(&qp->sq, &resp->sq);
	slots = sroce_ring_slots(&qp->sq);
	cap->max_send_wr = slots;
	qp->max_inline = min_t(u32, stride - sizeof(struct sroce_send_wqe),
			       SROCE_MAX_INLINE);
	cap->max_inline_data = qp->max_inline;
	qp->sq_max_sge = min_t(u32, SROCE_MAX_SGE,
			       (stride - sizeof(struct sroce_send_wqe)) /
			       sizeof(struct sroce_sge));
	cap->max_send_sge = qp->sq_max_sge;
	resp->max_inline = qp->max_inline;

	qp->swqe_size = sizeof(struct sroce_swqe) + stride;
	qp->swqe = kvcalloc(slots, qp->swqe_size, sroce_user_gfp(udata));
	if (!qp->swqe) {
		err = -ENOMEM;
		goto err_sq;
	}
	if (!udata) {
		qp->kptr = kvcalloc(slots, sizeof(*qp->kptr), GFP_KERNEL);
		if (!qp->kptr) {
			err = -ENOMEM;
			goto err_swqe;
		}
	}
	if (qp->type == SROCE_QPT_XRC_TGT) {
		memset(cap, 0, sizeof(*cap));
		/* Any XRC SRQ of its domain. */
		qp->rsge_cap = SROCE_MAX_SGE;
	} else if (init->srq) {
		qp->rsge_cap = to_sroce_srq(init->srq)->rq.max_sge;
	} else if (sroce_qpt_has_recv(init->qp_type)) {
		err = sroce_rq_init(&qp->rq, cap->max_recv_wr,
				    max_t(u32, cap->max_recv_sge, 1), udata);
		if (err)
			goto err_swqe;
		qp->has_rq = true;
		sroce_ring_info(&qp->rq.ring, &resp->rq);
		cap->max_recv_wr = qp->rq.max_wr;
		cap->max_recv_sge = qp->rq.max_sge;
		qp->rsge_cap = qp->rq.max_sge;
	}
	if (qp->rsge_cap) {
		qp->rsge = kcalloc(qp->rsge_cap, sizeof(*qp->rsge),
				   sroce_user_gfp(udata));
		if (!qp->rsge) {
			err = -ENOMEM;
			goto err_rq;
		}
	}
	return 0;

err_rq:
	if (qp->has_rq) {
		sroce_rq_free(&qp->rq);
		qp->has_rq = false;
	}
err_swqe:
	kvfree(qp->kptr);
	kvfree(qp->swqe);
err_sq:
	sroce_ring_free(&qp->sq);
	return err;
}

static void sroce_qp_free_queues(struct sroce_qp *qp)
{
	kfree(qp->rsge);
	if (qp->has_rq)
		sroce_rq_free(&qp->rq);
	kvfree(qp->kptr);
	kvfree(qp->swqe);
	sroce_ring_free(&qp->sq);
}

static void sroce_qp_init_engines(struct sroce_qp *qp)
{
	sroce_req_reset(qp);
	sroce_resp_reset(qp);
	sroce_comp_reset(qp);
}

static int sroce_create_qp(struct ib_qp *ibqp, struct ib_qp_init_attr *init,
			   struct ib_udata *udata)
{
	struct sroce_dev *sdev = to_sroce_dev(ibqp->device);
	struct sroce_qp *qp = to_sroce_qp(ibqp);
	struct sroce_create_qp_resp resp = {};
	bool gsi = init->qp_type == IB_QPT_GSI;
	int err;

	switch (init->qp_type) {
	case IB_QPT_RC:
	case IB_QPT_UC:
	case IB_QPT_UD:
	case IB_QPT_GSI:
		break;
	case IB_QPT_XRC_INI:
		/* struct ib_send_wr has no XRC SRQ number: user space only */
		if (!udata)
			return -EOPNOTSUPP;
		break;
	case IB_QPT_XRC_TGT:
		/* The core creates it for user space, as a kernel QP. */
		if (!init->xrcd)
			return -EINVAL;
		break;
	default:
		return -EOPNOTSUPP;
	}
	if (init->create_flags)
		return -EOPNOTSUPP;
	if (udata && udata->outlen < sizeof(resp))
		return -EINVAL;
	err = sroce_qp_check_caps(sdev, init);
	if (err)
		return err;

	qp->sdev = sdev;
	qp->type = sroce_qpt(init->qp_type);
	qp->is_gsi = gsi;
	qp->is_user = !!udata;
	qp->sig_all = init->sq_sig_type == IB_SIGNAL_ALL_WR;
	/* An XRC target has neither (NULL), an XRC initiator no rcq. */
	qp->pd = ibqp->pd ? to_sroce_pd(ibqp->pd) : NULL;
	qp->scq = init->send_cq ? to_sroce_cq(init->send_cq) : NULL;
	qp->rcq = init->recv_cq ? to_sroce_cq(init->recv_cq) : NULL;
	qp->xrcd = init->xrcd;
	qp->srq = init->srq ? to_sroce_srq(init->srq) : NULL;
	qp->state = IB_QPS_RESET;
	qp->attr.qkey = gsi ? SROCE_GSI_QKEY : 0;
	qp->attr.pmtu = 256;
	qp->attr.path_mtu = IB_MTU_256;
	spin_lock_init(&qp->state_lock);
	spin_lock_init(&qp->sq_lock);
	sroce_engine_init(qp);
	sroce_txbatch_init(&qp->txb, &qp->stats);
	sroce_txbatch_init(&qp->rtxb, &qp->rstats);
	refcount_set(&qp->ref, 1);
	INIT_WORK(&qp->work, sroce_qp_work);
	INIT_WORK(&qp->uwork, sroce_qp_unbound_work);
	skb_queue_head_init(&qp->rx_req);
	skb_queue_head_init(&qp->rx_resp);
	sroce_comp_init_timers(qp);

	err = sroce_obj_get(sdev, SROCE_OBJ_QP);
	if (err)
		return err;
	err = sroce_cc_init(qp);
	if (err)
		goto err_put;
	err = sroce_qp_alloc_qpn(qp, gsi);
	if (err)
		goto err_cc;
	if (gsi)
		qp->qpn = 1;
	ibqp->qp_num = qp->qpn;
	qp->uid = atomic64_inc_return(&sroce_qp_last_uid);

	err = sroce_qp_create_queues(qp, init, udata, &resp);
	if (err)
		goto err_qpn;
	sroce_qp_init_engines(qp);

	if (udata) {
		err = ib_copy_to_udata(udata, &resp, sizeof(resp));
		if (err)
			goto err_queues;
		qp->owner_mm = current->mm;
		mmgrab(qp->owner_mm);
	}
	/* Visible to the receive path from here on. */
	xa_store_irq(&sdev->qp_xa, qp->qpn, qp, GFP_KERNEL);
	return 0;

err_queues:
	sroce_qp_free_queues(qp);
err_qpn:
	xa_erase_irq(&sdev->qp_xa, qp->qpn);
err_cc:
	sroce_cc_free(qp);
err_put:
	sroce_obj_put(sdev, SROCE_OBJ_QP);
	return err;
}

static int sroce_destroy_qp(struct ib_qp *ibqp, struct ib_udata *udata)
{
	struct sroce_qp *qp = to_sroce_qp(ibqp);

	/* No new packets, timers or work after this. */
	sroce_mcast_qp_gone(qp);
	xa_erase_irq(&qp->sdev->qp_xa, qp->qpn);
	WRITE_ONCE(qp->state, IB_QPS_RESET);
	hrtimer_cancel(&qp->ack_timer);
	hrtimer_cancel(&qp->rnr_timer);
	sroce_cc_stop(qp);
	if (cancel_work_sync(&qp->work))
		sroce_qp_put(qp);	/* the cancelled work's reference */
	if (cancel_work_sync(&qp->uwork))
		sroce_qp_put(qp);
	/* Drop the initial reference; wait for in-flight lookups. */
	sroce_qp_put(qp);
	sroce_ref_wait_zero(&qp->ref);
	/* Work queued by a lookup that raced with us has run or was cancelled. */
	flush_work(&qp->work);
	flush_work(&qp->uwork);
	/*
	 * That work may have re-armed a timer after the cancel above. Timers
	 * hold no reference (their callback only tries to take one), so stop
	 * them again now that nothing can arm them, before the QP is freed.
	 */
	hrtimer_cancel(&qp->ack_timer);
	hrtimer_cancel(&qp->rnr_timer);
	sroce_cc_free(qp);
	skb_queue_purge(&qp->rx_req);
	skb_queue_purge(&qp->rx_resp);
	sroce_engine_release(qp);
	sroce_resp_free(qp);
	/* Every engine run sends its batch before it ends. */
	WARN_ON_ONCE(!skb_queue_empty(&qp->txb.skbs));
	sroce_route_release(&qp->route);
	WARN_ON_ONCE(!skb_queue_empty(&qp->rtxb.skbs));
	sroce_route_release(&qp->rroute);
	sroce_qp_free_queues(qp);
	rdma_destroy_ah_attr(&qp->attr.ah_attr);
	if (qp->owner_mm)
		mmdrop(qp->owner_mm);
	sroce_obj_put(qp->sdev, SROCE_OBJ_QP);
	return 0;
}

static int sroce_qp_check_values(struct sroce_qp *qp, struct ib_qp_attr *attr,
				 int mask)
{
	if ((mask & IB_QP_PORT) && attr->port_num != 1)
		return -EINVAL;
	if ((mask & IB_QP_PKEY_INDEX) && attr->pkey_index >= SROCE_PKEY_TBL_LEN)
		return -EINVAL;
	if ((mask & IB_QP_PATH_MTU) &&
	    (attr->path_mtu < IB_MTU_256 || attr->path_mtu > IB_MTU_4096))
		return -EINVAL;
	if ((mask & IB_QP_TIMEOUT) && attr->timeout > 31)
		return -EINVAL;
	if ((mask & IB_QP_RETRY_CNT) && attr->retry_cnt > 7)
		return -EINVAL;
	if ((mask & IB_QP_RNR_RETRY) && attr->rnr_retry > 7)
		return -EINVAL;
	if ((mask & IB_QP_MIN_RNR_TIMER) && attr->min_rnr_timer > 31)
		return -EINVAL;
	if ((mask & IB_QP_MAX_QP_RD_ATOMIC) &&
	    attr->max_rd_atomic > SROCE_MAX_QP_RD_ATOM)
		return -EINVAL;
	if ((mask & IB_QP_MAX_DEST_RD_ATOMIC) &&
	    attr->max_dest_rd_atomic > SROCE_MAX_QP_RD_ATOM)
		return -EINVAL;
	if ((mask & IB_QP_DEST_QPN) && attr->dest_qp_num > 0xFFFFFF)
		return -EINVAL;
	/*
	 * FLUSH_GLOBAL lets the peer FLUSH; FLUSH_PERSISTENT is accepted as
	 * real RNICs accept it (rdma-core's tests always set it) but no MR
	 * can grant it (sroce_resp_rdma_flush). ON_DEMAND (rdma-core's
	 * test_odp sets it) grants nothing: on-demand paging is a property
	 * of MRs.
	 */
	if ((mask & IB_QP_ACCESS_FLAGS) &&
	    (attr->qp_access_flags & ~(IB_ACCESS_LOCAL_WRITE |
				       IB_ACCESS_REMOTE_WRITE |
				       IB_ACCESS_REMOTE_READ |
				       IB_ACCESS_REMOTE_ATOMIC |
				       IB_ACCESS_FLUSH_GLOBAL |
				       IB_ACCESS_FLUSH_PERSISTENT |
				       IB_ACCESS_ON_DEMAND)))
		return -EINVAL;
	/* The queues cannot be resized. */
	if ((mask & IB_QP_CAP) &&
	    (attr->cap.max_send_wr > sroce_ring_slots(&qp->sq) ||
	     attr->cap.max_send_sge > qp->sq_max_sge ||
	     attr->cap.max_inline_data > qp->max_inline))
		return -EINVAL;
	return 0;
}

/* Engine state that a state change (re)initialises. Caller owns the engines. */
static void sroce_qp_enter_state(struct sroce_qp *qp, enum ib_qp_state cur,
				 enum ib_qp_state next)
{
	if (next == IB_QPS_RESET) {
		skb_queue_purge(&qp->rx_req);
		skb_queue_purge(&qp->rx_resp);
		sroce_ring_reset(&qp->sq);
		qp->sq_broken = false;
		if (qp->has_rq)
			sroce_ring_reset(&qp->rq.ring);
		sroce_qp_init_engines(qp);
		qp->comm_est_sent = false;
		qp->sqd_event_pending = false;
	}
	if (next == IB_QPS_RTR && cur == IB_QPS_INIT) {
		sroce_resp_start(qp);
		qp->comm_est_sent = false;	/* once per entry to RTR (R3.9) */
	}
	if (next == IB_QPS_RTS && cur == IB_QPS_RTR) {
		sroce_req_start(qp);
		sroce_comp_start(qp);
		sroce_cc_start(qp, qp->attr.line_mbps);
	}
	if (next == IB_QPS_SQD)
		qp->sqd_event_pending = qp->attr.en_sqd_async_notify;
}

static int sroce_qp_set_av(struct sroce_qp *qp, struct ib_qp_attr *attr,
			   struct sroce_qp_attr *na)
{
	int err;

	if (!(rdma_ah_get_ah_flags(&attr->ah_attr) & IB_AH_GRH))
		return -EINVAL;		/* RoCE needs a GRH */
	err = sroce_av_from_ah_attr(qp->sdev, &attr->ah_attr, &na->av);
	if (err)
		return err;
	rdma_destroy_ah_attr(&na->ah_attr);
	rdma_copy_ah_attr(&na->ah_attr, &attr->ah_attr);
	return 0;
}

static int sroce_modify_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr,
			   int mask, struct ib_udata *udata)
{
	struct sroce_qp *qp = to_sroce_qp(ibqp);
	enum ib_qp_state cur, next;
	struct rdma_ah_attr old_ah;
	struct sroce_qp_attr na;
	u32 check_mask = mask;
	u32 line_mbps = 0;
	int err;

	if (mask & ~IB_QP_ATTR_STANDARD_BITS)
		return -EOPNOTSUPP;
	/* Before the engines are held: the netdev's speed takes RTNL. */
	if ((mask & IB_QP_STATE) && attr->qp_state == IB_QPS_RTS)
		line_mbps = sroce_cc_line_mbps(qp->sdev);

	sroce_engine_lock(qp);
	cur = READ_ONCE(qp->state);
	if ((mask & IB_QP_CUR_STATE) && attr->cur_qp_state != cur) {
		err = -EINVAL;
		goto out;
	}
	next = (mask & IB_QP_STATE) ? attr->qp_state : cur;
	/* The GSI QP takes no port attribute (ib_mad does not pass one). */
	if (qp->is_gsi && cur == IB_QPS_RESET && next == IB_QPS_INIT)
		check_mask |= IB_QP_PORT;
	err = sroce_qp_check_modify(qp->type, (enum sroce_qp_state)cur,
				    (enum sroce_qp_state)next, check_mask);
	if (!err)
		err = sroce_qp_check_values(qp, attr, mask);
	if (err)
		goto out;

	/* Build the new attributes outside the spinlock (route lookups). */
	spin_lock_bh(&qp->state_lock);
	na = qp->attr;
	spin_unlock_bh(&qp->state_lock);
	if (line_mbps)
		na.line_mbps = line_mbps;
	memset(&na.ah_attr, 0, sizeof(na.ah_attr));
	rdma_copy_ah_attr(&na.ah_attr, &qp->attr.ah_attr);
	if (mask & IB_QP_AV) {
		err = sroce_qp_set_av(qp, attr, &na);
		if (err) {
			rdma_destroy_ah_attr(&na.ah_attr);
			goto out;
		}
	}
	if (mask & IB_QP_PATH_MTU) {
		na.path_mtu = attr->path_mtu;
		na.pmtu = ib_mtu_enum_to_int(attr->path_mtu);
	}
	if (mask & IB_QP_DEST_QPN)
		na.dest_qpn = attr->dest_qp_num;
	if (mask & IB_QP_QKEY)
		na.qkey = attr->qkey;
	if (mask & IB_QP_ACCESS_FLAGS)
		na.access = attr->qp_access_flags;
	if (mask & IB_QP_TIMEOUT)
		na.timeout = attr->timeout;
	if (mask & IB_QP_RETRY_CNT)
		na.retry_cnt = attr->retry_cnt;
	if (mask & IB_QP_RNR_RETRY)
		na.rnr_retry = attr->rnr_retry;
	if (mask & IB_QP_MIN_RNR_TIMER)
		na.min_rnr_timer = attr->min_rnr_timer;
	if (mask & IB_QP_MAX_QP_RD_ATOMIC)
		na.max_rd_atomic = attr->max_rd_atomic;
	if (mask & IB_QP_MAX_DEST_RD_ATOMIC)
		na.max_dest_rd_atomic = attr->max_dest_rd_atomic;
	if (mask & IB_QP_PKEY_INDEX)
		na.pkey_index = attr->pkey_index;
	if (mask & IB_QP_SQ_PSN)
		na.sq_psn = attr->sq_psn & SROCE_PSN_MASK;
	if (mask & IB_QP_RQ_PSN)
		na.rq_psn = attr->rq_psn & SROCE_PSN_MASK;
	if (mask & IB_QP_EN_SQD_ASYNC_NOTIFY)
		na.en_sqd_async_notify = attr->en_sqd_async_notify;
	if (mask & (IB_QP_AV | IB_QP_DEST_QPN))
		na.udp_sport = sroce_udp_sport(qp->qpn, na.dest_qpn);

	if (next == IB_QPS_RTR && cur == IB_QPS_INIT) {
		err = sroce_resp_alloc(qp, max_t(u32, na.max_dest_rd_atomic, 1));
		if (err) {
			rdma_destroy_ah_attr(&na.ah_attr);
			goto out;
		}
	}
	if (next == IB_QPS_RESET || next == IB_QPS_ERR) {
		hrtimer_cancel(&qp->ack_timer);
		hrtimer_cancel(&qp->rnr_timer);
		sroce_cc_stop(qp);
	}

	spin_lock_bh(&qp->state_lock);
	old_ah = qp->attr.ah_attr;
	qp->attr = na;		/* takes over na's reference on the sgid_attr */
	WRITE_ONCE(qp->state, next);
	sroce_qp_set_flush_flags(qp);
	spin_unlock_bh(&qp->state_lock);
	rdma_destroy_ah_attr(&old_ah);
	sroce_qp_enter_state(qp, cur, next);
	trace_sroce_qp_state(qp, cur, next);
	sroce_dbg_qp(qp, "%s -> %s\n", sroce_qp_state_name((enum sroce_qp_state)cur),
		     sroce_qp_state_name((enum sroce_qp_state)next));
out:
	sroce_engine_unlock(qp);
	if (!err && next != IB_QPS_RESET)
		sroce_qp_schedule(qp);
	return err;
}

static int sroce_query_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr,
			  int mask, struct ib_qp_init_attr *init)
{
	struct sroce_qp *qp = to_sroce_qp(ibqp);
	struct sroce_qp_attr *a = &qp->attr;

	memset(attr, 0, sizeof(*attr));
	memset(init, 0, sizeof(*init));
	sroce_engine_lock(qp);
	spin_lock_bh(&qp->state_lock);
	attr->qp_state = qp->state;
	attr->cur_qp_state = qp->state;
	attr->path_mtu = a->path_mtu;
	attr->path_mig_state = IB_MIG_MIGRATED;
	attr->qkey = a->qkey;
	attr->rq_psn = a->rq_psn;
	attr->sq_psn = a->sq_psn;
	attr->dest_qp_num = a->dest_qpn;
	attr->qp_access_flags = a->access;
	attr->pkey_index = a->pkey_index;
	attr->port_num = 1;
	attr->timeout = a->timeout;
	attr->retry_cnt = a->retry_cnt;
	attr->rnr_retry = a->rnr_retry;
	attr->min_rnr_timer = a->min_rnr_timer;
	attr->max_rd_atomic = a->max_rd_atomic;
	attr->max_dest_rd_atomic = a->max_dest_rd_atomic;
	attr->en_sqd_async_notify = a->en_sqd_async_notify;
	attr->sq_draining = qp->state == IB_QPS_SQD &&
			    qp->comp.tail != qp->req.cur;
	spin_unlock_bh(&qp->state_lock);
	/*
	 * No GID reference for the caller: neither ib_query_qp's users nor
	 * uverbs release one (every query leaked a GID entry reference).
	 */
	attr->ah_attr = a->ah_attr;
	attr->ah_attr.grh.sgid_attr = NULL;
	sroce_engine_unlock(qp);

	if (qp->type != SROCE_QPT_XRC_TGT) {
		attr->cap.max_send_wr = sroce_ring_slots(&qp->sq);
		attr->cap.max_send_sge = qp->sq_max_sge;
		attr->cap.max_inline_data = qp->max_inline;
	}
	if (qp->has_rq) {
		attr->cap.max_recv_wr = qp->rq.max_wr;
		attr->cap.max_recv_sge = qp->rq.max_sge;
	}
	init->qp_type = qp->ibqp.qp_type;
	init->send_cq = qp->ibqp.send_cq;
	init->recv_cq = qp->ibqp.recv_cq;
	init->srq = qp->ibqp.srq;
	init->cap = attr->cap;
	init->sq_sig_type = qp->sig_all ? IB_SIGNAL_ALL_WR : IB_SIGNAL_REQ_WR;
	return 0;
}

/* Build a WQE in SQ slot @idx from a kernel work request. */
static int sroce_qp_write_kwqe(struct sroce_qp *qp, const struct ib_send_wr *wr,
			       struct sroce_send_wqe *w, u32 idx)
{
	u32 i, room = qp->sq.stride - sizeof(*w);
	int kind;
	u16 flags;

	memset(w, 0, sizeof(*w));
	w->wr_id = wr->wr_id;
	w->opcode = wr->opcode;
	w->send_flags = wr->send_flags;
	qp->kptr[idx & qp->sq.mask] = NULL;

	kind = sroce_wr_kind_of(wr->opcode);
	flags = kind < 0 ? 0 : sroce_wr_kind_flags(kind);
	/* struct ib_send_wr has no fields for them: user space posts them */
	if (flags & (SROCE_WRF_FLUSH | SROCE_WRF_ATOMIC_WRITE))
		return -EINVAL;
	if (flags & SROCE_WRF_IMM)
		w->imm_data = (__force u32)wr->ex.imm_data;
	if (flags & SROCE_WRF_INV)
		w->imm_data = wr->ex.invalidate_rkey;
	if (flags & SROCE_WRF_RDMA) {
		w->wr.rdma.remote_addr = rdma_wr(wr)->remote_addr;
		w->wr.rdma.rkey = rdma_wr(wr)->rkey;
	}
	if (flags & SROCE_WRF_ATOMIC) {
		w->wr.atomic.remote_addr = atomic_wr(wr)->remote_addr;
		w->wr.atomic.rkey = atomic_wr(wr)->rkey;
		w->wr.atomic.compare_add = atomic_wr(wr)->compare_add;
		w->wr.atomic.swap = atomic_wr(wr)->swap;
	}
	if (flags & SROCE_WRF_REG) {
		qp->kptr[idx & qp->sq.mask] = reg_wr(wr)->mr;
		w->wr.bind_mw.new_rkey = reg_wr(wr)->key;
		w->wr.bind_mw.access = reg_wr(wr)->access;
	}
	if (qp->type == SROCE_QPT_UD) {
		qp->kptr[idx & qp->sq.mask] = ud_wr(wr)->ah;
		w->wr.ud.remote_qpn = ud_wr(wr)->remote_qpn;
		w->wr.ud.remote_qkey = ud_wr(wr)->remote_qkey;
	}

	if (wr->send_flags & IB_SEND_INLINE) {
		u8 *p = (u8 *)(w + 1);

		for (i = 0; i < wr->num_sge; i++) {
			u32 len = wr->sg_list[i].length;

			if (w->inline_len + len > qp->max_inline)
				return -EINVAL;
			memcpy(p + w->inline_len,
			       (void *)(uintptr_t)wr->sg_list[i].addr, len);
			w->inline_len += len;
		}
		return 0;
	}
	if (wr->num_sge > qp->sq_max_sge || wr->num_sge * sizeof(struct sroce_sge) > room)
		return -EINVAL;
	w->num_sge = wr->num_sge;
	for (i = 0; i < wr->num_sge; i++) {
		struct sroce_sge *sge = (struct sroce_sge *)(w + 1) + i;

		sge->addr = wr->sg_list[i].addr;
		sge->length = wr->sg_list[i].length;
		sge->lkey = wr->sg_list[i].lkey;
	}
	return 0;
}

static int sroce_post_send(struct ib_qp *ibqp, const struct ib_send_wr *wr,
			   const struct ib_send_wr **bad_wr)
{
	struct sroce_qp *qp = to_sroce_qp(ibqp);
	unsigned long flags;
	int err = 0;

	if (qp->type == SROCE_QPT_XRC_TGT) {
		*bad_wr = wr;
		return -EINVAL;		/* it has no send queue */
	}
	/* User QPs post in the ring; this is only their doorbell. */
	if (qp->is_user) {
		if (wr || !sroce_qp_caps(qp, SROCE_QPCAP_POST_SEND)) {
			*bad_wr = wr;
			return -EINVAL;		/* R3.8 */
		}
		sroce_qp_doorbell(qp);
		return 0;
	}
	if (!sroce_qp_caps(qp, SROCE_QPCAP_POST_SEND)) {
		*bad_wr = wr;
		return -EINVAL;
	}
	spin_lock_irqsave(&qp->sq_lock, flags);
	for (; wr; wr = wr->next) {
		struct sroce_send_wqe *w = sroce_ring_prod_slot(&qp->sq);

		if (!w) {
			err = -ENOMEM;
			break;
		}
		err = sroce_qp_write_kwqe(qp, wr, w, qp->sq.prod);
		if (err)
			break;
		sroce_ring_prod_commit(&qp->sq);
	}
	spin_unlock_irqrestore(&qp->sq_lock, flags);
	if (err)
		*bad_wr = wr;
	sroce_qp_schedule(qp);
	return err;
}

static int sroce_post_recv(struct ib_qp *ibqp, const struct ib_recv_wr *wr,
			   const struct ib_recv_wr **bad_wr)
{
	struct sroce_qp *qp = to_sroce_qp(ibqp);
	int err;

	if (!sroce_qpt_has_recv(ibqp->qp_type)) {
		*bad_wr = wr;
		return -EINVAL;		/* XRC: no receive queue */
	}
	/* User QPs post in the ring; this is their flush doorbell. */
	if (qp->is_user) {
		if (wr || !sroce_qp_caps(qp, SROCE_QPCAP_POST_RECV)) {
			*bad_wr = wr;
			return -EINVAL;		/* R3.8 */
		}
		sroce_qp_schedule(qp);
		return 0;
	}
	if (qp->srq || !sroce_qp_caps(qp, SROCE_QPCAP_POST_RECV)) {
		*bad_wr = wr;
		return -EINVAL;
	}
	err = sroce_rq_post_kernel(&qp->rq, wr, bad_wr);
	if (READ_ONCE(qp->state) == IB_QPS_ERR)
		sroce_qp_schedule(qp);
	return err;
}

const struct ib_device_ops sroce_qp_ops = {
	.create_qp = sroce_create_qp,
	.destroy_qp = sroce_destroy_qp,
	.modify_qp = sroce_modify_qp,
	.query_qp = sroce_query_qp,
	.post_send = sroce_post_send,
	.post_recv = sroce_post_recv,

	INIT_RDMA_OBJ_SIZE(ib_qp, sroce_qp, ibqp),
};
