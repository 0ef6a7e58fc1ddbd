// SPDX-License-Identifier: GPL-2.0-only
/*
 * sroce requester: turns send WQEs into packets (seed-rules R1.3), with
 * PSNs, the READ/ATOMIC window (R2.7), fences, and go-back-N restarts after
 * a NAK or timeout (R2.5), and the local ACK and RNR timers (R2.2, R2.4).
 * Runs where the QP's engines run, by their owner only (sroce_exec.c); the
 * completer changes the requester's state through the sroce_req_*() hooks
 * of sroce_engine.h and the timer functions here.
 */
#include <linux/kernel.h>
#include <rdma/ib_verbs.h>

#include "sroce_engine.h"
#include "sroce_qp.h"
#include "sroce_pkt.h"
#include "sroce_param.h"
#include "qp_fsm.h"
#include <rdma/ib_mad.h>
#include "sroce_ah.h"
#include "sroce_mr.h"
#include "sroce_work.h"
#include "sroce_cc.h"
#include "sroce_crc.h"
#include "sroce_mw.h"
#include "sroce_ring.h"
#include "aeth.h"
#include "opcode.h"
#include "parse.h"
#include "psn.h"
#include "timers.h"
#include "sroce_trace.h"

/* Ask for an ACK at least this often inside long messages. */
#define SROCE_ACKREQ_EVERY	64
/* Packets sent per run before giving the other engines a turn. */
#define SROCE_REQ_BUDGET	64

/*
 * The WR kind of each IB_WR_* opcode, expanded from SROCE_WR_KIND_LIST:
 * the kind + 1 (0: no kind).
 */
#define SROCE_WR_OF_IB(kind, wr, wc)	[IB_WR_##wr] = SROCE_WR_##kind + 1,
static const u8 sroce_wr_kind_by_ib[] = {
	SROCE_WR_KIND_LIST(SROCE_WR_OF_IB)
};

/* The WR kind of an IB_WR_* opcode (from user space too), or -EINVAL. */
int sroce_wr_kind_of(u32 ib_wr_opcode)
{
	if (ib_wr_opcode >= ARRAY_SIZE(sroce_wr_kind_by_ib) ||
	    !sroce_wr_kind_by_ib[ib_wr_opcode])
		return -EINVAL;
	return sroce_wr_kind_by_ib[ib_wr_opcode] - 1;
}

static struct sroce_sge *sroce_swqe_sges(struct sroce_swqe *sw)
{
	return (struct sroce_sge *)(sw + 1);
}

static u8 *sroce_swqe_inline(struct sroce_swqe *sw)
{
	return (u8 *)(sw + 1);
}

/* Complete a WQE with an error and put the QP in error (R3.2). */
static void sroce_req_fail(struct sroce_qp *qp, struct sroce_swqe *sw,
			   enum ib_wc_status status)
{
	sw->status = status;
	sw->state = SROCE_SWQE_DONE;
	sroce_qp_error(qp, true, 0);
}

/*
 * Copy the WQE at req.head out of the ring (user space may rewrite the
 * ring at any time; only the copy is used) and validate it.
 */
static struct sroce_swqe *sroce_req_fetch(struct sroce_qp *qp)
{
	struct sroce_swqe *sw = sroce_swqe_at(qp, qp->req.head);
	const u8 *slot = sroce_ring_slot(&qp->sq, qp->req.head);
	u32 stride = qp->sq.stride;
	struct sroce_send_wqe *w = &sw->wqe;
	struct sroce_sge *sge;
	int kind;
	u32 i;

	memcpy(w, slot, sizeof(*w));
	memcpy(sw + 1, slot + sizeof(*w), stride - sizeof(*w));
	qp->req.head++;
	sw->state = SROCE_SWQE_POSTED;
	sw->status = IB_WC_SUCCESS;
	sw->length = 0;
	sw->signaled = qp->sig_all || (w->send_flags & IB_SEND_SIGNALED);

	kind = sroce_wr_kind_of(w->opcode);
	if (kind < 0 || !sroce_wr_kind_allowed(qp->type, kind) ||
	    (kind == SROCE_WR_REG_MR && qp->is_user)) {
		sw->kind = SROCE_WR_SEND;
		sroce_req_fail(qp, sw, IB_WC_LOC_QP_OP_ERR);
		return sw;
	}
	sw->kind = kind;
	/* FLUSH and ATOMIC WRITE carry what they need in the WQE itself. */
	if (sroce_swqe_flags(sw) & SROCE_WRF_ATOMIC_WRITE) {
		sw->length = sizeof(w->wr.atomic_write.value);
		return sw;
	}
	if (sroce_swqe_flags(sw) & SROCE_WRF_FLUSH) {
		/* FETH fields: 4 and 2 bits; their values the responder checks */
		if (w->wr.flush.type > 15 || w->wr.flush.level > 3)
			sroce_req_fail(qp, sw, IB_WC_LOC_QP_OP_ERR);
		sw->length = w->wr.flush.level == IB_FLUSH_MR ? 0 :
			     w->wr.flush.length;
		return sw;
	}
	if (w->send_flags & IB_SEND_INLINE) {
		if (w->inline_len > qp->max_inline)
			sroce_req_fail(qp, sw, IB_WC_LOC_LEN_ERR);
		sw->length = w->inline_len;
		return sw;
	}
	if (w->num_sge > qp->sq_max_sge) {
		sroce_req_fail(qp, sw, IB_WC_LOC_LEN_ERR);
		return sw;
	}
	sge = sroce_swqe_sges(sw);
	for (i = 0; i < w->num_sge; i++)
		sw->length += sge[i].length;
	if (sw->length > SROCE_MAX_MSG_SZ ||
	    ((sroce_swqe_flags(sw) & SROCE_WRF_ATOMIC) && sw->length != 8))
		sroce_req_fail(qp, sw, IB_WC_LOC_LEN_ERR);
	return sw;
}

/* UD has no path MTU attribute: its messages fit the port's MTU (R1.1). */
static u32 sroce_req_pmtu(struct sroce_qp *qp)
{
	if (qp->type == SROCE_QPT_UD)
		return ib_mtu_enum_to_int(sroce_active_mtu(qp->sdev));
	return qp->attr.pmtu;
}

/* Number of PSNs a message uses: one per MTU of payload, at least one. */
static u32 sroce_msg_npkts(struct sroce_qp *qp, struct sroce_swqe *sw)
{
	if (sroce_swqe_rd_atomic(sw) && !(sroce_swqe_flags(sw) & SROCE_WRF_READ))
		return 1;
	return max_t(u64, 1, DIV_ROUND_UP(sw->length, sroce_req_pmtu(qp)));
}

/* Execute a local operation (no packet): LOCAL_INV, REG_MR, BIND_MW. */
static void sroce_req_local(struct sroce_qp *qp, struct sroce_swqe *sw, u32 idx)
{
	struct sroce_send_wqe *w = &sw->wqe;
	int err;

	switch (sw->kind) {
	case SROCE_WR_LOCAL_INV:
		err = sroce_mr_local_invalidate(qp->sdev, qp->pd, w->imm_data);
		break;
	case SROCE_WR_REG_MR:
		err = sroce_mr_fast_reg(qp->sdev, qp->pd,
					to_sroce_mr(qp->kptr[idx & qp->sq.mask]),
					w->wr.bind_mw.new_rkey, w->wr.bind_mw.access);
		break;
	default:
		err = sroce_mw_bind(qp->sdev, qp->pd, qp->uid, w->wr.bind_mw.mw_rkey,
				    w->wr.bind_mw.new_rkey, w->wr.bind_mw.mr_lkey,
				    w->wr.bind_mw.addr, w->wr.bind_mw.length,
				    w->wr.bind_mw.access);
		break;
	}
	if (err) {
		sroce_req_fail(qp, sw, sw->kind == SROCE_WR_BIND_MW ?
			       IB_WC_MW_BIND_ERR : IB_WC_LOC_PROT_ERR);
		return;
	}
	sw->state = SROCE_SWQE_DONE;
}

/* The address vector and destination QPN of a WQE's packets. */
static int sroce_req_dest(struct sroce_qp *qp, struct sroce_swqe *sw, u32 idx,
			  struct sroce_av *av, u32 *dqpn, u32 *qkey)
{
	struct sroce_ah *ah;

	if (qp->type != SROCE_QPT_UD) {
		*av = qp->attr.av;
		*dqpn = qp->attr.dest_qpn;
		return 0;
	}
	if (qp->is_user) {
		ah = sroce_ah_get_by_index(qp->sdev, sw->wqe.wr.ud.ah_index, qp->pd);
		if (!ah)
			return -EINVAL;
		*av = ah->av;
		sroce_ah_put(ah);
	} else {
		/* A kernel AH lives until its WRs complete (the ULP's rule). */
		*av = to_sroce_ah(qp->kptr[idx & qp->sq.mask])->av;
	}
	*dqpn = sw->wqe.wr.ud.remote_qpn & 0xFFFFFF;
	/* A Q_Key with the top bit set means "use the QP's Q_Key" (R1.5). */
	*qkey = sw->wqe.wr.ud.remote_qkey & 0x80000000 ? qp->attr.qkey :
		sw->wqe.wr.ud.remote_qkey;
	return 0;
}

/* Fill the extension headers of one request packet. */
static void sroce_req_fill_hdrs(struct sroce_qp *qp, struct sroce_swqe *sw,
				struct sroce_hdrs *h, u32 mask, u64 offset)
{
	struct sroce_send_wqe *w = &sw->wqe;

	if (mask & SROCE_M_RETH) {
		h->reth.va = w->wr.rdma.remote_addr + offset;
		h->reth.rkey = w->wr.rdma.rkey;
		h->reth.len = sw->length - offset;
	}
	if (mask & SROCE_M_ATOMIC_WRITE) {
		h->reth.va = w->wr.atomic_write.remote_addr;
		h->reth.rkey = w->wr.atomic_write.rkey;
	}
	if (mask & SROCE_M_FETH) {
		h->reth.va = w->wr.flush.remote_addr;
		h->reth.rkey = w->wr.flush.rkey;
		h->feth.plt = w->wr.flush.type;
		h->feth.sel = w->wr.flush.level;
	}
	if (mask & SROCE_M_ATMETH) {
		h->atmeth.va = w->wr.atomic.remote_addr;
		h->atmeth.rkey = w->wr.atomic.rkey;
		h->atmeth.swap_add = w->wr.atomic.compare_add;
		h->atmeth.comp = 0;
		if (sw->kind == SROCE_WR_CMP_SWAP) {
			h->atmeth.swap_add = w->wr.atomic.swap;
			h->atmeth.comp = w->wr.atomic.compare_add;
		}
	}
	if (mask & SROCE_M_IMMDT)
		h->imm = (__force __be32)w->imm_data;
	if (mask & SROCE_M_IETH)
		h->ieth_rkey = w->imm_data;
	/* more than 24 bits: the build fails, and so does the WQE */
	if (mask & SROCE_M_XRCETH)
		h->xrc_srqn = w->xrc_remote_srqn;
}

/*
 * The first packet resent after a sequence NAK goes out twice (req.copy_next,
 * set by sroce_req_run): if it is lost again, the responder, which NAKed
 * that gap once already, stays silent (R2.5) and only the local ACK timer
 * would recover. The copy that arrives second is a duplicate, re-ACKed and
 * not executed again (R2.6). Only packets whose duplicate costs the
 * responder nothing but an ACK are copied: not a READ request (served
 * again in full) nor an ATOMIC, and not a packet that takes a receive WQE
 * (SEND FIRST/ONLY, the LAST/ONLY of a WRITE with immediate): with no WQE
 * posted both copies would meet an RNR NAK, and two RNR NAKs use up
 * rnr_retry twice (R2.4).
 * Returns the copy to send after @skb, or NULL.
 */
static struct sk_buff *sroce_req_restart_copy(struct sroce_qp *qp,
					      const struct sroce_swqe *sw,
					      const struct sroce_hdrs *h,
					      struct sk_buff *skb)
{
	const struct sroce_opcode_info *info = sroce_opcode_get(h->opcode);

	if (!qp->req.copy_next)
		return NULL;
	qp->req.copy_next = false;
	if (!sroce_qp_reliable(qp) || sroce_swqe_rd_atomic(sw) ||
	    (info->mask & SROCE_M_RWR))
		return NULL;
	return skb_copy(skb, GFP_ATOMIC);
}

/*
 * sroce_req_send_one - build and send the next packet of a WQE
 *
 * Returns 0 when a packet left, 1 when the WQE may not progress now, or a
 * negative errno after failing the WQE.
 */
static int sroce_req_send_one(struct sroce_qp *qp, struct sroce_swqe *sw, u32 idx)
{
	const struct sroce_opcode_info *info;
	struct sroce_hdrs h = {};
	bool first = qp->req.offset == 0, last;
	u32 pmtu = sroce_req_pmtu(qp), paylen, ib_len, dqpn, qkey = 0, psn_step = 1;
	struct sroce_av av;
	struct sk_buff *skb, *copy;
	int opcode, err;
	bool rd = sroce_swqe_flags(sw) & SROCE_WRF_READ;
	u32 noack_pkts = qp->req.noack_pkts;

	if (sroce_swqe_rd_atomic(sw)) {
		/* One packet; only an ATOMIC WRITE's carries data */
		paylen = sroce_swqe_flags(sw) & SROCE_WRF_ATOMIC_WRITE ?
			 sizeof(sw->wqe.wr.atomic_write.value) : 0;
		last = true;
		if (rd)
			psn_step = DIV_ROUND_UP_ULL(max_t(u64, sw->length - qp->req.offset, 1),
						    pmtu);
	} else {
		paylen = min_t(u64, pmtu, sw->length - qp->req.offset);
		last = qp->req.offset + paylen >= sw->length;
		if (qp->type == SROCE_QPT_UD && !(first && last)) {
			sroce_req_fail(qp, sw, IB_WC_LOC_LEN_ERR);
			return -EMSGSIZE;
		}
	}
	opcode = sroce_wr_opcode(qp->type, sw->kind,
				 rd ? SROCE_POS_ONLY : sroce_pkt_pos(first, last));
	if (opcode < 0) {
		sroce_req_fail(qp, sw, IB_WC_LOC_QP_OP_ERR);
		return opcode;
	}
	err = sroce_req_dest(qp, sw, idx, &av, &dqpn, &qkey);
	if (err) {
		sroce_req_fail(qp, sw, IB_WC_LOC_QP_OP_ERR);
		return err;
	}
	/* ODP sink of a READ or ATOMIC: map it before the response (R5.3). */
	if ((sroce_swqe_flags(sw) & (SROCE_WRF_READ | SROCE_WRF_ATOMIC)) &&
	    first && sw->length)
		sroce_sgl_prefault(qp->sdev, qp->pd, sroce_swqe_sges(sw),
				   sw->wqe.num_sge, sw->length, &qp->odp_fault);
	info = sroce_opcode_get(opcode);
	h.opcode = opcode;
	h.se = last && (sw->wqe.send_flags & IB_SEND_SOLICITED);
	h.pad = (4 - (paylen & 3)) & 3;
	h.pkey = IB_DEFAULT_PKEY_FULL;
	h.dqpn = dqpn;
	h.psn = qp->req.psn;
	/*
	 * Ask for an ACK at a message's end, every half window, and on the
	 * packet that fills the window: the requester stops there, and
	 * without that ACK only the timer would move it on. Paced, also
	 * every quarter of the local ACK timeout (sroce_cc_ack_due()).
	 */
	h.ackreq = sroce_qp_reliable(qp) &&
		   (last || ++qp->req.noack_pkts >=
			    sroce_sendwin_ackreq_every(&qp->req.win, SROCE_ACKREQ_EVERY) ||
		    psn_diff(psn_add(h.psn, psn_step), qp->comp.psn) >=
		    (s32)qp->req.win.cwnd ||
		    sroce_cc_ack_due(qp));
	if (h.ackreq) {
		qp->req.noack_pkts = 0;
		sroce_cc_ackreq_sent(qp);
	}
	h.deth.qkey = qkey;
	h.deth.sqpn = qp->qpn;
	sroce_req_fill_hdrs(qp, sw, &h, info->mask, qp->req.offset);

	ib_len = info->length + paylen + h.pad + SROCE_ICRC_LEN;
	skb = sroce_net_alloc_skb(qp->sdev, &av, ib_len);
	if (!skb) {
		/*
		 * Out of memory: again from the work item. Nothing else may
		 * come to run the requester: a UD QP, or an RC QP with
		 * nothing in flight, has no timer armed.
		 */
		qp->req.noack_pkts = noack_pkts;
		sroce_qp_schedule(qp);
		return 1;
	}
	if (sroce_build_hdrs(skb->data, ib_len, &h) < 0) {
		kfree_skb(skb);
		sroce_req_fail(qp, sw, IB_WC_LOC_QP_OP_ERR);
		return -EINVAL;
	}
	if (paylen) {
		u8 *dst = skb->data + info->length;

		if (sroce_swqe_flags(sw) & SROCE_WRF_ATOMIC_WRITE) {
			memcpy(dst, sw->wqe.wr.atomic_write.value, paylen);
		} else if (sw->wqe.send_flags & IB_SEND_INLINE) {
			memcpy(dst, sroce_swqe_inline(sw) + qp->req.offset, paylen);
		} else {
			err = sroce_sgl_copy(qp->sdev, qp->pd, sroce_swqe_sges(sw),
					     sw->wqe.num_sge, qp->req.offset, dst,
					     paylen, SROCE_FROM_MR, 0,
					     &qp->odp_fault,
					     sroce_tx_pay_crc(skb, paylen));
			if (err == -EWOULDBLOCK) {
				/* ODP fault noted: again once resolved */
				kfree_skb(skb);
				qp->req.noack_pkts = noack_pkts;
				sroce_qp_defer(qp);
				return 1;
			}
			if (err) {
				kfree_skb(skb);
				sroce_req_fail(qp, sw, IB_WC_LOC_PROT_ERR);
				return err;
			}
		}
		memset(dst + paylen, 0, h.pad);
	}

	copy = sroce_req_restart_copy(qp, sw, &h, skb);
	err = sroce_txbatch_add(qp->sdev, &qp->txb, skb, &av,
				qp->type == SROCE_QPT_UD ?
				sroce_udp_sport(qp->qpn, dqpn) :
				qp->attr.udp_sport, &qp->route);
	/* The copy leaves in an skb of its own, to be lost on its own. */
	if (copy)
		sroce_txbatch_send(qp->sdev, &qp->txb, &qp->route);
	if (copy && !sroce_txbatch_add(qp->sdev, &qp->txb, copy, &av,
				       qp->attr.udp_sport, &qp->route))
		sroce_count(qp->sdev, SROCE_CNT_RESTART_COPIES);
	/* A packet lost on the way out is recovered like one lost on the wire. */
	if (err && !sroce_qp_reliable(qp))
		sroce_count(qp->sdev, SROCE_CNT_TX_ERRORS);
	if (sroce_qp_reliable(qp) && psn_before(h.psn, qp->req.psn_new)) {
		sroce_count(qp->sdev, SROCE_CNT_RETRANS_PKTS);
		sroce_qp_count(qp, SROCE_QCNT_RETRANS_PKTS, 1);
	} else {
		sroce_count(qp->sdev, SROCE_CNT_REQ_SENT);
		sroce_qp_count(qp, SROCE_QCNT_REQ_SENT, 1);
		qp->req.psn_new = psn_add(h.psn, psn_step);
	}

	if (first && qp->req.offset == 0)
		sw->state = SROCE_SWQE_SENDING;
	qp->req.psn = psn_add(qp->req.psn, psn_step);
	qp->req.offset += rd ? sw->length - qp->req.offset : paylen;
	if (last || rd) {
		sw->state = SROCE_SWQE_SENT;
		/* UC and UD sends complete when they leave (R1.7). */
		if (!sroce_qp_reliable(qp))
			sw->state = SROCE_SWQE_DONE;
	}
	return 0;
}

/*
 * Go back to the oldest unacknowledged PSN (go-back-N, R2.5): resume the
 * WQE that holds it at the right byte, and send every later WQE again with
 * the PSNs it had.
 */
static void sroce_req_rewind(struct sroce_qp *qp)
{
	u32 idx, psn = qp->comp.psn;
	bool found = false;

	qp->req.rd_atomic = 0;
	qp->req.cur = qp->req.head;
	qp->req.offset = 0;
	/*
	 * Everything sent may be acknowledged already (an ACK to a duplicate
	 * covers all the responder has): then go on with the first WQE not
	 * sent yet, at the first PSN not sent yet.
	 */
	qp->req.psn = psn;
	for (idx = qp->comp.tail; idx != qp->req.head; idx++) {
		struct sroce_swqe *sw = sroce_swqe_at(qp, idx);

		if (sw->state == SROCE_SWQE_DONE)
			continue;
		if (sw->npkts == 0) {
			if (!found)
				qp->req.cur = idx;
			found = true;
			continue;
		}
		if (found) {
			sw->state = SROCE_SWQE_POSTED;	/* again, same PSNs */
			continue;
		}
		if (sroce_swqe_rd_atomic(sw))
			qp->req.rd_atomic++;
		if (psn_after(psn, sw->last_psn))
			continue;			/* wholly acknowledged */
		found = true;
		qp->req.cur = idx;
		qp->req.psn = psn_before(psn, sw->first_psn) ? sw->first_psn : psn;
		qp->req.offset = (u64)psn_diff(qp->req.psn, sw->first_psn) *
				 qp->attr.pmtu;
		sw->state = SROCE_SWQE_SENDING;
	}
}

/*
 * End-to-end flow control (R2.10, IBA 9.7.7.2): start a message that needs
 * a receive WQE only while fewer such messages are in flight past the last
 * acknowledged one than the responder had WQEs free. With none in flight
 * one goes anyway: its ACK (or RNR NAK) brings fresh credits.
 */
static bool sroce_req_credit_ok(struct sroce_qp *qp, struct sroce_swqe *sw)
{
	u32 idx, n = 0;

	if (!sroce_qp_reliable(qp) || !(sroce_swqe_flags(sw) & SROCE_WRF_RWQE) ||
	    qp->req.credits == SROCE_CREDITS_UNLIMITED)
		return true;
	for (idx = qp->comp.tail; idx != qp->req.cur; idx++) {
		struct sroce_swqe *w = sroce_swqe_at(qp, idx);

		if (w->npkts && w->state != SROCE_SWQE_DONE &&
		    w->state != SROCE_SWQE_POSTED && (sroce_swqe_flags(w) & SROCE_WRF_RWQE) &&
		    psn_after(w->first_psn, qp->req.credit_psn))
			n++;
	}
	if (!n || n < qp->req.credits)
		return true;
	sroce_count(qp->sdev, SROCE_CNT_CREDIT_STALL);
	return false;
}

/* May the WQE at req.cur start (fence, READ/ATOMIC window, credits, SQD)? */
static bool sroce_req_may_start(struct sroce_qp *qp, struct sroce_swqe *sw)
{
	if (qp->req.offset)
		return true;
	if (READ_ONCE(qp->state) == IB_QPS_SQD && sw->state == SROCE_SWQE_POSTED)
		return false;
	if ((sw->wqe.send_flags & IB_SEND_FENCE) && qp->req.rd_atomic)
		return false;
	if (sroce_swqe_rd_atomic(sw) &&
	    qp->req.rd_atomic >= max_t(u32, qp->attr.max_rd_atomic, 1)) {
		sroce_count(qp->sdev, SROCE_CNT_RD_ATOMIC_STALL);
		return false;		/* the SQ stalls (R2.7) */
	}
	return sroce_req_credit_ok(qp, sw);
}

/*
 * About the wire bytes of the next packet of @sw, for the pacer: a
 * request's headers, and the payload of a SEND or WRITE (a READ's data
 * comes back in responses).
 */
static u32 sroce_req_pkt_bytes(struct sroce_qp *qp, struct sroce_swqe *sw)
{
	u64 left = sw->length - qp->req.offset;

	if (sroce_swqe_flags(sw) & (SROCE_WRF_READ | SROCE_WRF_ATOMIC |
				    SROCE_WRF_FLUSH))
		left = 0;
	return SROCE_MAX_HDR_OVERHEAD + min_t(u64, left, sroce_req_pmtu(qp));
}

bool sroce_req_run(struct sroce_qp *qp)
{
	int budget = SROCE_REQ_BUDGET;
	bool progress = false;

	if (!sroce_qp_caps(qp, SROCE_QPCAP_PROCESS_SEND))
		return false;
	if (qp->req.need_retry) {
		qp->req.need_retry = false;
		sroce_req_rewind(qp);
		qp->req.copy_next = qp->req.nak_rewind;
		progress = true;
	}
	qp->req.nak_rewind = false;
	sroce_cc_take_cnps(qp);
	while (budget > 0 && !qp->req.rnr_wait) {
		struct sroce_swqe *sw;
		u32 idx = qp->req.cur;
		int ret;

		if (idx == qp->req.head) {
			if (qp->req.head == sroce_sq_prod(qp) ||
			    !sroce_qp_caps(qp, SROCE_QPCAP_PROCESS_NEXT_SEND))
				break;
			if (qp->req.head - qp->comp.tail >= sroce_ring_slots(&qp->sq))
				break;
			sw = sroce_req_fetch(qp);
			sw->npkts = 0;
			if (sw->state == SROCE_SWQE_DONE) {
				qp->req.cur++;
				progress = true;
				break;		/* failed: the QP is in error now */
			}
		}
		sw = sroce_swqe_at(qp, idx);
		if (sw->state == SROCE_SWQE_DONE || sw->state == SROCE_SWQE_SENT) {
			qp->req.cur++;
			qp->req.offset = 0;
			continue;
		}
		if (sroce_swqe_flags(sw) & SROCE_WRF_LOCAL) {
			sroce_req_local(qp, sw, idx);
			qp->req.cur++;
			progress = true;
			/* A ring of local WQEs is work too (softirq time). */
			budget--;
			continue;
		}
		if (!sroce_req_may_start(qp, sw))
			break;
		if (sroce_qp_reliable(qp) &&
		    psn_diff(qp->req.psn, qp->comp.psn) >= (s32)qp->req.win.cwnd)
			break;
		if (sroce_cc_must_wait(qp, sroce_req_pkt_bytes(qp, sw)))
			break;
		if (sw->state == SROCE_SWQE_POSTED) {
			if (!sw->npkts) {	/* first time: assign its PSNs */
				sw->npkts = sroce_msg_npkts(qp, sw);
				sw->first_psn = qp->req.psn;
				sw->last_psn = psn_add(qp->req.psn, sw->npkts - 1);
			}
			if (sroce_swqe_rd_atomic(sw))
				qp->req.rd_atomic++;
		}
		ret = sroce_req_send_one(qp, sw, idx);
		if (ret > 0)
			break;
		progress = true;
		budget--;
		if (ret < 0 || sw->state == SROCE_SWQE_SENT ||
		    sw->state == SROCE_SWQE_DONE) {
			qp->req.cur++;
			qp->req.offset = 0;
		}
	}
	sroce_txbatch_send(qp->sdev, &qp->txb, &qp->route);
	if (progress && sroce_qp_reliable(qp))
		sroce_req_arm_timer(qp, false);
	return progress;
}

/**
 * sroce_req_arm_timer - start, restart or stop the local ACK timer
 * @qp:      the QP
 * @restart: true on progress (an ACK moved comp.psn): the
 *           timer measures from now; false after sending: a running timer
 *           keeps measuring from the oldest unacknowledged request, so new
 *           sends never push a timeout out
 *
 * T = 4.096 us * 2^timeout, and timeout 0 means no timer at all (R2.2).
 * Nothing outstanding, or waiting out an RNR NAK: the timer stops.
 */
void sroce_req_arm_timer(struct sroce_qp *qp, bool restart)
{
	u64 t = sroce_ack_timeout_ns(qp->attr.timeout);

	if (!sroce_qp_reliable(qp) || t == SROCE_TIMEOUT_INFINITE)
		return;
	/* Nothing outstanding, or an RNR wait (the responder answered). */
	if (qp->comp.psn == qp->req.psn || qp->req.rnr_wait) {
		hrtimer_try_to_cancel(&qp->ack_timer);
		return;
	}
	if (restart || !hrtimer_is_queued(&qp->ack_timer)) {
		trace_sroce_timer_arm(qp, SROCE_TIMER_ACK, t);
		hrtimer_start(&qp->ack_timer, ns_to_ktime(t), HRTIMER_MODE_REL_SOFT);
	}
}

/*
 * An RNR NAK: send nothing for @ns, as long as the responder asked
 * (R2.4), then resend from comp.psn (sroce_req_rnr_done()). The responder
 * answered: no local ACK timeout while waiting; the resend after the wait
 * starts the timer again.
 */
void sroce_req_rnr_wait(struct sroce_qp *qp, u64 ns)
{
	qp->req.rnr_wait = true;
	hrtimer_try_to_cancel(&qp->ack_timer);
	trace_sroce_timer_arm(qp, SROCE_TIMER_RNR, ns);
	hrtimer_start(&qp->rnr_timer, ns_to_ktime(ns), HRTIMER_MODE_REL_SOFT);
}

/* A new connection: no credits yet, one message may probe (IBA 9.7.7.2). */
static void sroce_req_reset_credits(struct sroce_qp *qp)
{
	qp->req.credits = 0;
	qp->req.credit_psn = psn_sub(qp->attr.sq_psn, 1);
}

/* Back to an empty SQ (create, RESET). */
void sroce_req_reset(struct sroce_qp *qp)
{
	qp->req.head = 0;
	qp->req.cur = 0;
	qp->req.offset = 0;
	qp->req.psn = qp->attr.sq_psn;
	qp->req.psn_new = qp->attr.sq_psn;
	qp->req.rd_atomic = 0;
	qp->req.need_retry = false;
	qp->req.nak_rewind = false;
	qp->req.copy_next = false;
	qp->req.rnr_wait = false;
	qp->req.noack_pkts = 0;
	sroce_sendwin_init(&qp->req.win);
	sroce_req_reset_credits(qp);
}

/* RTR -> RTS: the first PSN is the sq_psn modify_qp set. */
void sroce_req_start(struct sroce_qp *qp)
{
	qp->req.psn = qp->attr.sq_psn;
	qp->req.psn_new = qp->attr.sq_psn;
	sroce_req_reset_credits(qp);
}
