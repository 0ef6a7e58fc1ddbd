// SPDX-License-Identifier: GPL-2.0-only
/*
 * sroce responder: executes received requests (SEND, WRITE, READ, ATOMIC,
 * and IBA 1.5's FLUSH and ATOMIC WRITE) into receive WQEs and memory
 * regions, answers with ACK, NAK, READ responses and ATOMIC ACKs, and
 * handles duplicates and sequence errors exactly as seed-rules R2.4 -
 * R2.10, R3.4 and R3.7 say. Runs where the
 * QP's engines run (sroce_exec.c); a request that meets an ODP fault in
 * softirq is left as it was and handled again in process context (the
 * doorbell caller or the work item, sroce_exec.c).
 */
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/highmem.h>
#include <linux/slab.h>
#include <rdma/ib_verbs.h>

#include "sroce_engine.h"
#include "sroce_qp.h"
#include "sroce_pkt.h"
#include "sroce_param.h"
#include "qp_fsm.h"
#include <rdma/ib_mad.h>
#include "sroce_cq.h"
#include "sroce_crc.h"
#include "sroce_mr.h"
#include "sroce_srq.h"
#include "aeth.h"
#include "opcode.h"
#include "parse.h"
#include "psn.h"
#include "sroce_trace.h"

#define SROCE_RESP_BUDGET	64
/* The least RNR wait asked of a requester whose request waits on a fault. */
#define SROCE_FAULT_RNR_NS	(10 * NSEC_PER_MSEC)
#define SROCE_GRH_LEN		40

/*
 * XRC target (IBA annex A14): each request names, in its XRCETH, an XRC
 * SRQ of the target's XRC domain; its receive WQEs, its CQ and the PD
 * whose MRs the request may reach are that SRQ's. The SRQ is looked up
 * for each packet (and for each READ response, by the number its table
 * entry kept) and held only for that packet, so destroy_srq never waits
 * for a peer; a number that names no XRC SRQ of the domain leaves
 * qp->resp.xsrq NULL, which fails the request.
 */
static void sroce_resp_xrc_enter(struct sroce_qp *qp, u32 srqn)
{
	if (qp->type == SROCE_QPT_XRC_TGT)
		qp->resp.xsrq = sroce_xrc_srq_get(qp->sdev, srqn, qp->xrcd);
}

static void sroce_resp_xrc_leave(struct sroce_qp *qp)
{
	if (qp->resp.xsrq) {
		sroce_srq_put(qp->resp.xsrq);
		qp->resp.xsrq = NULL;
	}
}

/* The PD whose MRs and windows the request at hand may use. */
static struct sroce_pd *sroce_resp_pd(struct sroce_qp *qp)
{
	if (qp->type != SROCE_QPT_XRC_TGT)
		return qp->pd;
	return qp->resp.xsrq ? to_sroce_pd(qp->resp.xsrq->ibsrq.pd) : NULL;
}

/* The shared receive queue the message at hand takes its WQE from. */
static struct sroce_srq *sroce_resp_srq(struct sroce_qp *qp)
{
	return qp->type == SROCE_QPT_XRC_TGT ? qp->resp.xsrq : qp->srq;
}

/*
 * Build and send one response packet (ACK, READ response, ATOMIC ACK):
 * @rc_opcode is RC's, an XRC target sends XRC's.
 */
static int sroce_resp_xmit(struct sroce_qp *qp, u8 rc_opcode, u32 psn, u8 syn,
			   u64 orig, struct sroce_mr *mr, u64 va, u32 paylen)
{
	u8 opcode = sroce_resp_opcode(qp->type, rc_opcode);
	const struct sroce_opcode_info *info = sroce_opcode_get(opcode);
	struct sroce_hdrs h = {};
	struct sk_buff *skb;
	u32 ib_len;
	int err;

	h.opcode = opcode;
	h.pad = (4 - (paylen & 3)) & 3;
	h.pkey = IB_DEFAULT_PKEY_FULL;
	h.dqpn = qp->attr.dest_qpn;
	h.psn = psn;
	h.aeth.syn = syn;
	h.aeth.msn = qp->resp.msn;
	h.atmack_orig = orig;
	ib_len = info->length + paylen + h.pad + SROCE_ICRC_LEN;
	skb = sroce_net_alloc_skb(qp->sdev, &qp->attr.av, ib_len);
	if (!skb)
		return -ENOMEM;
	if (sroce_build_hdrs(skb->data, ib_len, &h) < 0) {
		kfree_skb(skb);
		return -EINVAL;
	}
	if (paylen) {
		err = sroce_mr_copy(mr, va, skb->data + info->length, paylen,
				    SROCE_FROM_MR, sroce_tx_pay_crc(skb, paylen));
		if (err == -EWOULDBLOCK)
			err = sroce_odp_fault_note(sroce_resp_fault(qp), mr, va, paylen,
						   false);
		if (err) {
			kfree_skb(skb);
			return err;
		}
		memset(skb->data + info->length + paylen, 0, h.pad);
	}
	trace_sroce_ack_send(qp, skb->data);
	return sroce_txbatch_add(qp->sdev, &qp->rtxb, skb, &qp->attr.av,
				 qp->attr.udp_sport, &qp->rroute);
}

/* AETH syndrome of an ACK: the credit count, unless an SRQ is used (R2.10). */
static u8 sroce_resp_ack_syn(struct sroce_qp *qp)
{
	if (qp->srq || qp->type == SROCE_QPT_XRC_TGT)
		return sroce_aeth_syn_ack(SROCE_AETH_CREDIT_INVALID);
	return sroce_aeth_syn_ack(sroce_credits_to_code(sroce_rq_count(&qp->rq)));
}

static void sroce_resp_send_ack(struct sroce_qp *qp, u32 psn, u8 syn)
{
	if (!sroce_resp_xmit(qp, SROCE_OP_RC_ACKNOWLEDGE, psn, syn, 0, NULL, 0, 0))
		sroce_count(qp->sdev, SROCE_CNT_ACK_SENT);
}

static void sroce_resp_nak(struct sroce_qp *qp, u32 psn, enum sroce_nak_code code)
{
	sroce_resp_send_ack(qp, psn, sroce_aeth_syn_nak(code));
	if (code != SROCE_NAK_PSN_SEQ_ERR) {
		sroce_count(qp->sdev, SROCE_CNT_ERR_NAK_SENT);
		return;
	}
	sroce_count(qp->sdev, SROCE_CNT_SEQ_NAK_SENT);
	/*
	 * A gap is NAKed once and then the responder stays silent until
	 * the NAKed PSN comes (R2.5): a lost NAK costs the requester a
	 * local ACK timeout. The same NAK twice, back to back, is still
	 * one NAK for the requester (it ignores the copy: sroce_comp.c).
	 * The copy leaves in an skb of its own, to be lost on its own.
	 */
	sroce_txbatch_send(qp->sdev, &qp->rtxb, &qp->rroute);
	sroce_resp_send_ack(qp, psn, sroce_aeth_syn_nak(code));
	sroce_count(qp->sdev, SROCE_CNT_SEQ_NAK_COPIES);
}

/*
 * XRC target: a receive completes on the CQ of the XRC SRQ its WQE came
 * from, which the packet at hand holds, or which a flush finds again. An
 * SRQ destroyed meanwhile took its WQEs, this one's completion included.
 */
static void sroce_resp_xrc_cqe(struct sroce_qp *qp, struct sroce_cqe *cqe,
			       bool solicited)
{
	struct sroce_srq *srq = qp->resp.xsrq;
	bool held = srq && srq->srq_num == qp->resp.wqe_srqn;

	if (!held)
		srq = sroce_xrc_srq_get(qp->sdev, qp->resp.wqe_srqn, qp->xrcd);
	if (!srq)
		return;
	if (sroce_cq_post(to_sroce_cq(srq->ibsrq.ext.cq), cqe, &qp->ibqp,
			  solicited) == -EOVERFLOW)
		sroce_qp_error(qp, false, IB_EVENT_QP_FATAL);
	if (!held)
		sroce_srq_put(srq);
}

/*
 * Complete the receive WQE in use. @skb: the packet that completes it,
 * NULL for a WQE completed in error or flushed.
 */
static void sroce_resp_recv_cqe(struct sroce_qp *qp, u32 status, u32 opcode,
				u32 byte_len, u32 wc_flags, u32 ex,
				struct sk_buff *skb, bool solicited)
{
	struct sroce_cqe cqe = {
		.wr_id = qp->resp.rwqe.wr_id,
		.status = status,
		.opcode = opcode,
		.byte_len = byte_len,
		.wc_flags = wc_flags,
		.ex = ex,
		.qp_num = qp->qpn,
	};

	if (qp->type == SROCE_QPT_UD && skb) {
		cqe.src_qp = sroce_pkt_deth_sqpn(skb);
		cqe.wc_flags |= SROCE_WC_GRH;
		cqe.network_hdr_type = sroce_pkt(skb)->network_type;
	}
	qp->resp.have_wqe = false;
	if (qp->type == SROCE_QPT_XRC_TGT) {
		sroce_resp_xrc_cqe(qp, &cqe, solicited);
		return;
	}
	if (sroce_cq_post(qp->rcq, &cqe, &qp->ibqp, solicited) == -EOVERFLOW)
		sroce_qp_error(qp, false, IB_EVENT_QP_FATAL);
}

/*
 * A request the responder cannot execute (R3.4): NAK it (RC), complete the
 * receive WQE in use with @wc_status if there is one, raise @event, and
 * move the QP to ERROR. UC drops the message instead (R3.7) unless the
 * error is local to a receive WQE.
 */
static void sroce_resp_fail(struct sroce_qp *qp, u32 psn,
			    enum sroce_nak_code code, enum ib_event_type event,
			    u32 wc_status)
{
	if (qp->type == SROCE_QPT_UC && !(wc_status && qp->resp.have_wqe)) {
		qp->resp.drop_msg = true;
		sroce_count(qp->sdev, SROCE_CNT_UC_MSG_DROPPED);
		return;
	}
	if (sroce_qp_reliable(qp))
		sroce_resp_nak(qp, psn, code);
	/*
	 * The receive WQE the message took completes now: with its own
	 * error, a local access error for a WRITE with immediate to a bad
	 * R_Key (R3.4), else flushed.
	 */
	if (qp->resp.have_wqe) {
		if (!wc_status)
			wc_status = event == IB_EVENT_QP_ACCESS_ERR ?
				    IB_WC_LOC_ACCESS_ERR : IB_WC_WR_FLUSH_ERR;
		sroce_resp_recv_cqe(qp, wc_status, IB_WC_RECV, 0, 0, 0, NULL,
				    false);
	}
	sroce_qp_error(qp, false, event);
}

/*
 * Take a receive WQE for the message starting at @psn. Returns 0; -ENOENT if
 * the queue is empty (the caller answers RNR or drops); any other error
 * has already failed the QP (the caller stops):
 * - a WQE with more SGEs than the queue takes is consumed and completes
 *   with LOC_QP_OP_ERR (seed-rules R3.4 "SEND: other");
 * - a receive ring whose producer index is impossible (user space broke
 *   it) is a local work queue catastrophic error: QP_FATAL and ERROR (an
 *   SRQ also goes to error, sroce_rq_pop). RC NAKs with Remote
 *   Operational Error so the requester fails at once.
 */
static int sroce_resp_pop_wqe(struct sroce_qp *qp, u32 psn)
{
	struct sroce_srq *srq = sroce_resp_srq(qp);
	struct sroce_rq *rq = srq ? &srq->rq : &qp->rq;
	int err;

	if (qp->resp.have_wqe)
		return 0;
	/* Sized at create for every queue the QP can take from. */
	if (WARN_ON_ONCE(rq->max_sge > qp->rsge_cap))
		err = -EIO;
	else
		err = sroce_rq_pop(rq, &qp->resp.rwqe, qp->rsge);
	if (srq)
		qp->resp.wqe_srqn = srq->srq_num;
	if (err == -EINVAL) {
		qp->resp.have_wqe = true;
		sroce_resp_fail(qp, psn, SROCE_NAK_REM_OP, 0, IB_WC_LOC_QP_OP_ERR);
		return err;
	}
	if (err == -EIO) {
		if (sroce_qp_reliable(qp))
			sroce_resp_nak(qp, psn, SROCE_NAK_REM_OP);
		sroce_qp_error(qp, false, IB_EVENT_QP_FATAL);
		return err;
	}
	if (err)
		return err;
	qp->resp.have_wqe = true;
	qp->resp.roffset = 0;
	return 0;
}

/* An RNR NAK of @psn, asking for a wait of @timer_code (R2.4). */
static void sroce_resp_rnr_nak(struct sroce_qp *qp, u32 psn, u8 timer_code)
{
	sroce_resp_send_ack(qp, psn, sroce_aeth_syn_rnr(timer_code));
	sroce_count(qp->sdev, SROCE_CNT_RNR_NAK_SENT);
}

/*
 * A SEND or WRITE with immediate found no receive WQE. UC drops the
 * message (R3.7); RC answers RNR NAK with its min_rnr_timer (R2.4).
 * Returns what the handler returns: true (UC: the PSN is used up) or false
 * (RC: the requester sends it again).
 */
static bool sroce_resp_no_wqe(struct sroce_qp *qp, const struct sroce_pkt *pkt)
{
	if (qp->type == SROCE_QPT_UC) {
		qp->resp.drop_msg = !(pkt->mask & SROCE_M_END);
		sroce_count(qp->sdev, SROCE_CNT_UC_MSG_DROPPED);
		return true;
	}
	sroce_resp_rnr_nak(qp, pkt->psn, qp->attr.min_rnr_timer);
	/*
	 * The requester goes back to this PSN after its RNR wait: the
	 * packets behind it are dropped without a sequence NAK (R2.4, R2.5).
	 */
	qp->resp.nak_sent = true;
	return false;
}

/* Scatter @len bytes into the receive WQE at resp.roffset. */
static int sroce_resp_scatter(struct sroce_qp *qp, const void *buf, u32 len)
{
	int err;

	err = sroce_sgl_copy(qp->sdev, sroce_resp_pd(qp), qp->rsge,
			     qp->resp.rwqe.num_sge, qp->resp.roffset,
			     (void *)buf, len, SROCE_TO_MR, IB_ACCESS_LOCAL_WRITE,
			     sroce_resp_fault(qp), NULL);
	if (!err)
		qp->resp.roffset += len;
	return err;
}

/* Bytes the receive WQE takes; u64: its SGEs may add up past 4 GiB. */
static u64 sroce_rwqe_len(struct sroce_qp *qp)
{
	u64 total = 0;
	u32 i;

	for (i = 0; i < qp->resp.rwqe.num_sge; i++)
		total += qp->rsge[i].length;
	return total;
}

/*
 * UD receive (R1.1, R1.5): Q_Key (P_Key: sroce_recv.c), GRH, one packet.
 *
 * Lengths. A UD message is one packet of at most the path MTU, the port's
 * active MTU here (R1.1): a longer one is a malformed packet, dropped and
 * counted before it may take a WQE, never an error of the QP. One within
 * the MTU but longer than the receive WQE completes it with LOC_LEN_ERR,
 * and a receive completed in error takes the QP to ERROR (R3.2), as RNICs
 * do. Not so for the GSI QP: every MAD is 256 bytes and ib_mad's buffers
 * hold one, so a longer datagram is no MAD; and ib_mad never reposts a
 * receive that completes in error (it takes the QP for dead). Completing
 * one would cost QP1 a buffer, or its life, per hostile datagram and end
 * rdma_cm: it is dropped and counted instead, the WQE kept.
 */
static void sroce_resp_ud(struct sroce_qp *qp, struct sk_buff *skb)
{
	const struct sroce_pkt *pkt = sroce_pkt(skb);
	union rdma_network_hdr grh;
	u8 *payload;
	u32 flags = 0;
	int err;

	if (sroce_pkt_deth_qkey(skb) != qp->attr.qkey) {
		sroce_count(qp->sdev, SROCE_CNT_DROP_BAD_QKEY);
		return;		/* silently (R1.5) */
	}
	if (pkt->payload_len > ib_mtu_enum_to_int(sroce_active_mtu(qp->sdev))) {
		sroce_count(qp->sdev, SROCE_CNT_DROP_UD_OVER_MTU);
		return;
	}
	payload = sroce_pkt_payload(skb);
	err = payload ? sroce_resp_pop_wqe(qp, pkt->psn) : -ENOENT;
	if (err) {
		/* UD has no RNR: the datagram is lost (else the QP failed) */
		if (err == -ENOENT)
			sroce_count(qp->sdev, SROCE_CNT_DROP_NO_RECV_WQE);
		return;
	}
	/* RoCE v2 puts the IP header in the GRH area (IPv4 in its last 20). */
	BUILD_BUG_ON(sizeof(grh) != SROCE_GRH_LEN);
	sroce_pkt_network_hdr(skb, &grh);
	if (SROCE_GRH_LEN + pkt->payload_len > sroce_rwqe_len(qp)) {
		if (qp->is_gsi) {
			sroce_count(qp->sdev, SROCE_CNT_DROP_GSI_TOO_LONG);
			return;		/* have_wqe: the next datagram takes it */
		}
		sroce_resp_recv_cqe(qp, IB_WC_LOC_LEN_ERR, IB_WC_RECV, 0, 0, 0,
				    skb, false);
		sroce_qp_error(qp, false, 0);
		return;
	}
	err = sroce_resp_scatter(qp, &grh, sizeof(grh));
	if (!err)
		err = sroce_resp_scatter(qp, payload, pkt->payload_len);
	if (err == -EWOULDBLOCK) {
		/* ODP fault noted: the WQE is kept, scattered again */
		qp->resp.roffset = 0;
		sroce_resp_defer(qp);
		return;
	}
	if (err) {
		sroce_resp_recv_cqe(qp, IB_WC_LOC_PROT_ERR, IB_WC_RECV, 0, 0, 0,
				    skb, false);
		sroce_qp_error(qp, false, 0);
		return;
	}
	if (pkt->mask & SROCE_M_IMM)
		flags |= SROCE_WC_WITH_IMM;
	sroce_resp_recv_cqe(qp, IB_WC_SUCCESS, IB_WC_RECV, qp->resp.roffset,
			    flags, (__force u32)sroce_pkt_imm(skb), skb,
			    pkt->flags & SROCE_PKT_SE);
}

/* SEND FIRST/MIDDLE/LAST/ONLY (RC, UC). Returns false to not advance. */
static bool sroce_resp_send(struct sroce_qp *qp, struct sk_buff *skb)
{
	const struct sroce_pkt *pkt = sroce_pkt(skb);
	u32 flags = 0, ex = 0;
	u8 *payload = sroce_pkt_payload(skb);
	int err;

	if (!payload)
		return false;	/* no memory: the requester will retry */
	if (pkt->mask & SROCE_M_RWR) {
		err = sroce_resp_pop_wqe(qp, pkt->psn);
		if (err)
			return err == -ENOENT ? sroce_resp_no_wqe(qp, pkt) : false;
	}
	if (qp->resp.roffset + pkt->payload_len > sroce_rwqe_len(qp) ||
	    qp->resp.roffset + pkt->payload_len > SROCE_MAX_MSG_SZ) {
		/* R3.4: buffer too short or over max_msg_sz */
		sroce_resp_fail(qp, pkt->psn, SROCE_NAK_INV_REQ, 0, IB_WC_LOC_LEN_ERR);
		return false;
	}
	err = sroce_resp_scatter(qp, payload, pkt->payload_len);
	if (err == -EWOULDBLOCK) {
		/* ODP fault noted: scattered again from roffset */
		sroce_resp_defer(qp);
		return false;
	}
	if (err) {
		/* R3.4: bad L_Key in the receive WQE */
		sroce_resp_fail(qp, pkt->psn, SROCE_NAK_REM_OP, 0, IB_WC_LOC_PROT_ERR);
		return false;
	}
	if (!(pkt->mask & SROCE_M_END))
		return true;
	if (pkt->mask & SROCE_M_IMM) {
		flags |= SROCE_WC_WITH_IMM;
		ex = (__force u32)sroce_pkt_imm(skb);
	}
	if (pkt->mask & SROCE_M_INV) {
		u32 rkey = sroce_pkt_ieth_rkey(skb);

		if (sroce_mr_local_invalidate(qp->sdev, sroce_resp_pd(qp), rkey)) {
			sroce_resp_fail(qp, pkt->psn, SROCE_NAK_REM_OP, 0,
					IB_WC_LOC_QP_OP_ERR);
			return false;
		}
		flags |= SROCE_WC_WITH_INV;
		ex = rkey;
	}
	qp->resp.msn++;
	sroce_resp_recv_cqe(qp, IB_WC_SUCCESS, IB_WC_RECV, qp->resp.roffset,
			    flags, ex, skb, pkt->flags & SROCE_PKT_SE);
	return true;
}

/*
 * The MR behind @rkey for @len bytes at @va, checked again for one packet
 * of a WRITE or one READ response: an RNIC checks the R_Key of every
 * packet, so once the MR or window is invalidated or deregistered the rest
 * of the message fails (seed-rules R3.4, R3.5). The reference is put when
 * that packet is done, never kept between packets: a deregistration never
 * waits for a message the peer does not finish.
 */
static struct sroce_mr *sroce_resp_rkey_mr(struct sroce_qp *qp, u32 rkey,
					   u64 va, u64 len, int access)
{
	struct sroce_pd *pd = sroce_resp_pd(qp);
	enum sroce_mr_err merr;

	if (!pd)
		return NULL;	/* XRC: the request's SRQ is gone */
	return sroce_mr_lookup(qp->sdev, rkey, true, pd, qp->uid, va, len,
			       access, &merr);
}

/* RDMA WRITE FIRST/MIDDLE/LAST/ONLY (+ immediate). */
static bool sroce_resp_write(struct sroce_qp *qp, struct sk_buff *skb)
{
	const struct sroce_pkt *pkt = sroce_pkt(skb);
	struct sroce_resp *r = &qp->resp;
	u8 *payload = sroce_pkt_payload(skb);
	struct sroce_mr *mr = NULL;
	int err;

	if (!payload)
		return false;
	/* A WRITE with immediate needs a receive WQE too (R1.6, R2.4). */
	if (pkt->mask & SROCE_M_RWR) {
		err = sroce_resp_pop_wqe(qp, pkt->psn);
		if (err)
			return err == -ENOENT ? sroce_resp_no_wqe(qp, pkt) : false;
	}
	if (pkt->mask & SROCE_M_START) {
		struct sroce_pkt_reth reth = sroce_pkt_reth(skb);

		if (reth.len > SROCE_MAX_MSG_SZ) {
			sroce_resp_fail(qp, pkt->psn, SROCE_NAK_INV_REQ,
					IB_EVENT_QP_REQ_ERR, 0);
			return false;
		}
		r->wva = reth.va;
		r->wleft = reth.len;
		r->wlen = reth.len;
		r->wrkey = reth.rkey;
		/*
		 * The whole range is checked once, here; each packet's part
		 * of it again below. A zero-length WRITE checks no R_Key
		 * (IBA 9.4.4).
		 */
		if (reth.len && (qp->attr.access & IB_ACCESS_REMOTE_WRITE))
			mr = sroce_resp_rkey_mr(qp, reth.rkey, reth.va,
						reth.len,
						IB_ACCESS_REMOTE_WRITE);
		if (reth.len && !mr) {
			/* R3.4: bad R_Key, range or access */
			sroce_resp_fail(qp, pkt->psn, SROCE_NAK_REM_ACCESS,
					IB_EVENT_QP_ACCESS_ERR, 0);
			return false;
		}
		if (mr)
			sroce_mr_put(mr);
		mr = NULL;
	}
	if (pkt->payload_len > r->wleft ||
	    ((pkt->mask & SROCE_M_END) && pkt->payload_len != r->wleft)) {
		/* R3.4: longer (or shorter) than the RETH said */
		sroce_resp_fail(qp, pkt->psn, SROCE_NAK_INV_REQ, IB_EVENT_QP_REQ_ERR, 0);
		return false;
	}
	if (pkt->payload_len) {
		mr = sroce_resp_rkey_mr(qp, r->wrkey, r->wva, pkt->payload_len,
					IB_ACCESS_REMOTE_WRITE);
		if (!mr) {
			/* R3.4, R3.5: invalidated or deregistered meanwhile */
			sroce_resp_fail(qp, pkt->psn, SROCE_NAK_REM_ACCESS,
					IB_EVENT_QP_ACCESS_ERR, 0);
			return false;
		}
	}
	err = mr ? sroce_mr_copy(mr, r->wva, payload, pkt->payload_len,
				 SROCE_TO_MR, NULL) : 0;
	if (err == -EWOULDBLOCK) {
		err = sroce_odp_fault_note(sroce_resp_fault(qp), mr, r->wva,
					   pkt->payload_len, true);
		/* The rest of the message is on its way: map it too. */
		sroce_odp_fault_ahead(sroce_resp_fault(qp), mr, r->wva,
				      r->wleft - pkt->payload_len);
	}
	if (mr)
		sroce_mr_put(mr);
	if (err == -EWOULDBLOCK) {
		/* ODP fault noted: the packet is handled again */
		sroce_resp_defer(qp);
		return false;
	}
	if (err) {
		/*
		 * ODP memory the process has not mapped writable (R5.3), or
		 * a fast-registration MR invalidated since the check above.
		 */
		sroce_resp_fail(qp, pkt->psn, SROCE_NAK_REM_ACCESS,
				IB_EVENT_QP_ACCESS_ERR, 0);
		return false;
	}
	r->wva += pkt->payload_len;
	r->wleft -= pkt->payload_len;
	if (!(pkt->mask & SROCE_M_END))
		return true;
	if (pkt->mask & SROCE_M_IMM) {
		qp->resp.msn++;
		sroce_resp_recv_cqe(qp, IB_WC_SUCCESS, IB_WC_RECV_RDMA_WITH_IMM,
				    r->wlen, SROCE_WC_WITH_IMM,
				    (__force u32)sroce_pkt_imm(skb), skb,
				    pkt->flags & SROCE_PKT_SE);
	} else {
		qp->resp.msn++;
	}
	return true;
}

static u32 sroce_read_npkts(struct sroce_qp *qp, u32 len)
{
	return max_t(u32, 1, DIV_ROUND_UP(len, qp->attr.pmtu));
}

/*
 * (Re)fill a READ resource from a request (new or narrowed duplicate) and
 * check its whole range; each response checks its own part again
 * (sroce_resp_serve_read).
 */
static int sroce_resp_read_res(struct sroce_qp *qp, struct sroce_rd_res *e,
			       const struct sk_buff *skb)
{
	const struct sroce_pkt *pkt = sroce_pkt_c(skb);
	struct sroce_pkt_reth reth = sroce_pkt_reth(skb);
	struct sroce_mr *mr;
	int err;

	e->opcode = pkt->opcode;
	e->first_psn = pkt->psn;
	e->cur_psn = pkt->psn;
	e->last_psn = psn_add(pkt->psn, sroce_read_npkts(qp, reth.len) - 1);
	e->va = reth.va;
	e->rkey = reth.rkey;
	e->length = reth.len;
	e->sent = 0;
	e->xrc_srqn = qp->resp.xsrq ? qp->resp.xsrq->srq_num : 0;
	if (!reth.len)
		return 0;
	if (!(qp->attr.access & IB_ACCESS_REMOTE_READ))
		return -EACCES;
	mr = sroce_resp_rkey_mr(qp, reth.rkey, reth.va, reth.len,
				IB_ACCESS_REMOTE_READ);
	if (!mr)
		return -EACCES;
	/*
	 * ODP: map it all now, so a bad page is NAKed before any response
	 * (R5.3); -EWOULDBLOCK: a fault noted, tried again once resolved.
	 */
	err = sroce_mr_prefault(mr, reth.va, reth.len, false);
	if (err == -EWOULDBLOCK)
		err = sroce_odp_fault_note(sroce_resp_fault(qp), mr, reth.va, reth.len,
					   false);
	sroce_mr_put(mr);
	if (err)
		return err == -EWOULDBLOCK ? err : -EACCES;
	return 0;
}

static struct sroce_rd_res *sroce_resp_new_res(struct sroce_qp *qp)
{
	struct sroce_rd_res *e = &qp->resp.res[qp->resp.res_next];

	/* The table holds max_dest_rd_atomic entries, oldest replaced (R2.7). */
	if (qp->resp.serving == (int)qp->resp.res_next)
		qp->resp.serving = -1;
	qp->resp.res_next = (qp->resp.res_next + 1) % qp->resp.nres;
	return e;
}

/*
 * Count the READ/ATOMIC requests accepted whose responses are not all
 * sent (seed-rules R2.7): the new READ being served, then the new
 * READ/ATOMIC requests queued behind it, in PSN order. sroce serves one
 * READ at a time, so these wait in rx_req where an RNIC would have taken
 * them into its table. The first one that finds max_dest_rd_atomic
 * already counted is marked: it fails when its turn comes, after the
 * responses before it (responses go out in PSN order). Duplicates (R2.6)
 * are not new: a re-served READ does not count, and the walk stops at the
 * first packet that is not the next new READ or ATOMIC (also at a SEND or
 * WRITE, so an overflow behind one is not seen: never a false one).
 * Walks at most nres + 1 packets, and only when something it depends on
 * changed since the last walk (called per chunk of READ responses).
 */
static void sroce_resp_count_rd(struct sroce_qp *qp)
{
	struct sroce_resp *r = &qp->resp;
	u32 n = r->serving_dup ? 0 : 1, psn = r->epsn;
	struct sk_buff *skb;
	unsigned long flags;
	const u8 *reth;

	if (r->rd_overflow)
		return;
	if (r->rdc_valid && r->rdc_taken == r->rx_taken &&
	    r->rdc_qlen == skb_queue_len_lockless(&qp->rx_req) &&
	    r->rdc_epsn == r->epsn && r->rdc_dup == r->serving_dup &&
	    r->rdc_nres == r->nres && r->rdc_pmtu == qp->attr.pmtu)
		return;		/* the same packets, the same answer */
	r->rdc_valid = true;
	r->rdc_taken = r->rx_taken;
	r->rdc_epsn = r->epsn;
	r->rdc_dup = r->serving_dup;
	r->rdc_nres = r->nres;
	r->rdc_pmtu = qp->attr.pmtu;
	spin_lock_irqsave(&qp->rx_req.lock, flags);
	r->rdc_qlen = skb_queue_len(&qp->rx_req);
	skb_queue_walk(&qp->rx_req, skb) {
		const struct sroce_pkt *pkt = sroce_pkt_c(skb);

		if (pkt->psn != psn || !(pkt->mask & SROCE_M_RD_ATOMIC))
			break;
		if (n >= qp->resp.nres) {
			qp->resp.rd_overflow = true;
			qp->resp.rd_overflow_psn = psn;
			break;
		}
		n++;
		/* A READ uses a PSN per response, the others one. */
		reth = (pkt->mask & SROCE_M_READ) ?
		       sroce_pkt_ext(skb, SROCE_EXT_RETH) : NULL;
		psn = psn_add(psn, reth ?
			      sroce_read_npkts(qp, sroce_reth_len(reth)) : 1);
	}
	spin_unlock_irqrestore(&qp->rx_req.lock, flags);
}

/*
 * The READ or ATOMIC at @psn is the one sroce_resp_count_rd() found over
 * the limit: responder QP_ACCESS_ERR, requester REM_INV_REQ_ERR (R3.4).
 */
static bool sroce_resp_rd_overflow(struct sroce_qp *qp, u32 psn)
{
	if (!qp->resp.rd_overflow || psn != qp->resp.rd_overflow_psn)
		return false;
	sroce_count(qp->sdev, SROCE_CNT_RD_ATOMIC_OVERFLOW);
	sroce_resp_fail(qp, psn, SROCE_NAK_INV_REQ, IB_EVENT_QP_ACCESS_ERR, 0);
	return true;
}

static bool sroce_resp_read(struct sroce_qp *qp, struct sk_buff *skb)
{
	const struct sroce_pkt *pkt = sroce_pkt(skb);
	struct sroce_rd_res *e;
	int err;

	if (sroce_resp_rd_overflow(qp, pkt->psn))
		return false;
	if (sroce_pkt_reth(skb).len > SROCE_MAX_MSG_SZ) {
		sroce_resp_fail(qp, pkt->psn, SROCE_NAK_INV_REQ, IB_EVENT_QP_REQ_ERR, 0);
		return false;
	}
	e = sroce_resp_new_res(qp);
	err = sroce_resp_read_res(qp, e, skb);
	if (err == -EWOULDBLOCK) {
		/* Not taken: the same entry serves it when it comes again. */
		e->opcode = 0;
		qp->resp.res_next = e - qp->resp.res;
		sroce_resp_defer(qp);
		return false;
	}
	if (err) {
		e->opcode = 0;
		sroce_resp_fail(qp, pkt->psn, SROCE_NAK_REM_ACCESS,
				IB_EVENT_QP_ACCESS_ERR, 0);
		return false;
	}
	qp->resp.msn++;
	qp->resp.serving = e - qp->resp.res;
	qp->resp.serving_dup = false;
	/* A READ uses one PSN per response packet. */
	qp->resp.epsn = e->last_psn;
	return true;
}

/* Send READ responses for the entry being served, up to @budget packets. */
static bool sroce_resp_serve_read(struct sroce_qp *qp, int budget)
{
	struct sroce_rd_res *e;
	bool progress = false;

	if (qp->resp.serving < 0)
		return false;
	e = &qp->resp.res[qp->resp.serving];
	while (budget-- > 0) {
		u32 paylen = min_t(u32, qp->attr.pmtu, e->length - e->sent);
		bool first = e->cur_psn == e->first_psn;
		bool last = e->sent + paylen >= e->length;
		u8 opcode = sroce_read_resp_opcode(sroce_pkt_pos(first, last));
		struct sroce_mr *mr = NULL;
		int err = 0;

		if (paylen) {
			mr = sroce_resp_rkey_mr(qp, e->rkey, e->va + e->sent,
						paylen, IB_ACCESS_REMOTE_READ);
			if (!mr)
				err = -EFAULT;
		}
		if (!err)
			err = sroce_resp_xmit(qp, opcode, e->cur_psn,
					      sroce_resp_ack_syn(qp), 0, mr,
					      e->va + e->sent, paylen);
		if (err == -EWOULDBLOCK)
			sroce_odp_fault_ahead(sroce_resp_fault(qp), mr,
					      e->va + e->sent,
					      e->length - e->sent - paylen);
		if (mr)
			sroce_mr_put(mr);
		if (err == -ENOMEM)
			break;		/* try again on the next run */
		if (err == -EWOULDBLOCK) {
			sroce_resp_defer(qp);	/* ODP fault noted */
			break;
		}
		if (err == -EFAULT) {
			/*
			 * The R_Key no longer valid for this part (R3.4,
			 * R3.5), or ODP memory the process has not mapped
			 * (R5.3): the READ ends here.
			 */
			e->opcode = 0;
			qp->resp.serving = -1;
			sroce_resp_fail(qp, e->cur_psn, SROCE_NAK_REM_ACCESS,
					IB_EVENT_QP_ACCESS_ERR, 0);
			return true;
		}
		if (qp->resp.ack_pending) {
			/* The READ's responses acknowledge what came before. */
			qp->resp.ack_pending = false;
		}
		progress = true;
		e->sent += paylen;
		e->cur_psn = psn_add(e->cur_psn, 1);
		if (last) {
			qp->resp.serving = -1;
			break;
		}
	}
	return progress;
}

static bool sroce_resp_atomic(struct sroce_qp *qp, struct sk_buff *skb)
{
	const struct sroce_pkt *pkt = sroce_pkt(skb);
	struct sroce_pkt_atmeth atm = sroce_pkt_atmeth(skb);
	enum sroce_mr_err merr;
	struct sroce_rd_res *e;
	struct sroce_mr *mr;
	u64 orig;
	int err;

	if (sroce_resp_rd_overflow(qp, pkt->psn))
		return false;	/* not executed */
	if (atm.va & 7) {
		/* R3.4: misaligned atomic */
		sroce_resp_fail(qp, pkt->psn, SROCE_NAK_INV_REQ,
				IB_EVENT_QP_ACCESS_ERR, 0);
		return false;
	}
	mr = (qp->attr.access & IB_ACCESS_REMOTE_ATOMIC) ?
	     sroce_mr_lookup(qp->sdev, atm.rkey, true, sroce_resp_pd(qp), qp->uid, atm.va,
			     8, IB_ACCESS_REMOTE_ATOMIC, &merr) : NULL;
	if (!mr) {
		sroce_resp_fail(qp, pkt->psn, SROCE_NAK_REM_ACCESS,
				IB_EVENT_QP_ACCESS_ERR, 0);
		return false;
	}
	err = sroce_mr_atomic(mr, atm.va,
			      FIELD_GET(SROCE_OPCODE_OP, pkt->opcode) ==
			      SROCE_OP_RC_COMPARE_SWAP ?
			      SROCE_ATOMIC_CMP_SWAP : SROCE_ATOMIC_FETCH_ADD,
			      atm.swap_add, atm.comp, &orig);
	if (err == -EWOULDBLOCK)
		err = sroce_odp_fault_note(sroce_resp_fault(qp), mr, atm.va, sizeof(u64),
					   true);
	sroce_mr_put(mr);
	if (err == -EWOULDBLOCK) {
		/* ODP fault noted: not executed, again once resolved */
		sroce_resp_defer(qp);
		return false;
	}
	if (err == -EINVAL) {
		/* R3.4: the word is misaligned in the memory behind the iova */
		sroce_resp_fail(qp, pkt->psn, SROCE_NAK_INV_REQ,
				IB_EVENT_QP_ACCESS_ERR, 0);
		return false;
	}
	if (err) {
		/* ODP memory the process has not mapped writable: R5.3 */
		sroce_resp_fail(qp, pkt->psn, SROCE_NAK_REM_ACCESS,
				IB_EVENT_QP_ACCESS_ERR, 0);
		return false;
	}
	/* Remember the result: a duplicate gets it, not a second execution. */
	e = sroce_resp_new_res(qp);
	memset(e, 0, sizeof(*e));
	e->opcode = pkt->opcode;
	e->first_psn = pkt->psn;
	e->last_psn = pkt->psn;
	e->orig = orig;
	qp->resp.msn++;
	sroce_resp_xmit(qp, SROCE_OP_RC_ATOMIC_ACKNOWLEDGE, pkt->psn,
			sroce_resp_ack_syn(qp), orig, NULL, 0, 0);
	return true;
}

/*
 * Answer an executed FLUSH or ATOMIC WRITE and remember it: a duplicate is
 * answered from the table, not executed again (R2.6). IBA 1.5 answers
 * both with an RDMA READ RESPONSE ONLY without payload, which like every
 * response acknowledges the requests before it.
 */
static void sroce_resp_answer_empty(struct sroce_qp *qp,
				    const struct sroce_pkt *pkt)
{
	struct sroce_rd_res *e = sroce_resp_new_res(qp);

	memset(e, 0, sizeof(*e));
	e->opcode = pkt->opcode;
	e->first_psn = pkt->psn;
	e->last_psn = pkt->psn;
	qp->resp.msn++;
	qp->resp.ack_pending = false;
	sroce_resp_xmit(qp, SROCE_OP_RC_RDMA_READ_RESPONSE_ONLY, pkt->psn,
			sroce_resp_ack_syn(qp), 0, NULL, 0, 0);
}

/*
 * RDMA ATOMIC WRITE (IBA 1.5): 8 bytes stored as one, at an 8-byte
 * aligned address of memory the R_Key lets the peer write. Checked and
 * failed like an ATOMIC (R3.4), executed once.
 */
static bool sroce_resp_atomic_write(struct sroce_qp *qp, struct sk_buff *skb)
{
	const struct sroce_pkt *pkt = sroce_pkt(skb);
	struct sroce_pkt_reth reth = sroce_pkt_reth(skb);
	enum sroce_mr_err merr;
	struct sroce_mr *mr;
	u64 value, orig;
	u8 *payload;
	int err;

	if (sroce_resp_rd_overflow(qp, pkt->psn))
		return false;	/* not executed */
	if (reth.len != sizeof(value) || pkt->payload_len != sizeof(value)) {
		/* R3.4: bad payload length */
		sroce_resp_fail(qp, pkt->psn, SROCE_NAK_INV_REQ,
				IB_EVENT_QP_REQ_ERR, 0);
		return false;
	}
	if (reth.va & 7) {
		/* R3.4: misaligned, as an ATOMIC */
		sroce_resp_fail(qp, pkt->psn, SROCE_NAK_INV_REQ,
				IB_EVENT_QP_ACCESS_ERR, 0);
		return false;
	}
	payload = sroce_pkt_payload(skb);
	if (!payload)
		return false;	/* no memory: the requester will retry */
	memcpy(&value, payload, sizeof(value));	/* stored as it came */
	mr = (qp->attr.access & IB_ACCESS_REMOTE_WRITE) ?
	     sroce_mr_lookup(qp->sdev, reth.rkey, true, sroce_resp_pd(qp), qp->uid,
			     reth.va, sizeof(value), IB_ACCESS_REMOTE_WRITE,
			     &merr) : NULL;
	if (!mr) {
		sroce_resp_fail(qp, pkt->psn, SROCE_NAK_REM_ACCESS,
				IB_EVENT_QP_ACCESS_ERR, 0);
		return false;
	}
	err = sroce_mr_atomic(mr, reth.va, SROCE_ATOMIC_WRITE, value, 0, &orig);
	if (err == -EWOULDBLOCK)
		err = sroce_odp_fault_note(sroce_resp_fault(qp), mr, reth.va,
					   sizeof(value), true);
	sroce_mr_put(mr);
	if (err == -EWOULDBLOCK) {
		/* ODP fault noted: not executed, again once resolved */
		sroce_resp_defer(qp);
		return false;
	}
	if (err) {
		/*
		 * -EINVAL: misaligned in the memory behind the iova (R3.4);
		 * else ODP memory the process has not mapped writable (R5.3).
		 */
		sroce_resp_fail(qp, pkt->psn, err == -EINVAL ?
				SROCE_NAK_INV_REQ : SROCE_NAK_REM_ACCESS,
				IB_EVENT_QP_ACCESS_ERR, 0);
		return false;
	}
	sroce_resp_answer_empty(qp, pkt);
	return true;
}

/*
 * RDMA FLUSH (IBA 1.5). The responder executes requests in PSN order and
 * places their data with CPU stores when they come, so every request
 * before the FLUSH is in memory already: what is left is to check the
 * FLUSH and make those stores visible to every CPU before answering
 * (global visibility). Persistence sroce cannot give: the device does not
 * offer it, so no MR holds IB_ACCESS_FLUSH_PERSISTENT and such a FLUSH
 * fails the R_Key check. Selectivity: a range of the MR, or the whole MR
 * (the RETH's address and length unused).
 */
static bool sroce_resp_rdma_flush(struct sroce_qp *qp, struct sk_buff *skb)
{
	const struct sroce_pkt *pkt = sroce_pkt(skb);
	struct sroce_pkt_feth feth = sroce_pkt_feth(skb);
	struct sroce_pkt_reth reth = sroce_pkt_reth(skb);
	enum sroce_mr_err merr;
	struct sroce_mr *mr;
	int access = 0;

	if (sroce_resp_rd_overflow(qp, pkt->psn))
		return false;
	if (!feth.plt || (feth.plt & ~(IB_FLUSH_GLOBAL | IB_FLUSH_PERSISTENT)) ||
	    feth.sel > IB_FLUSH_MR) {
		/* R3.4: a reserved placement type or selectivity level */
		sroce_resp_fail(qp, pkt->psn, SROCE_NAK_INV_REQ,
				IB_EVENT_QP_REQ_ERR, 0);
		return false;
	}
	if (feth.plt & IB_FLUSH_GLOBAL)
		access |= IB_ACCESS_FLUSH_GLOBAL;
	if (feth.plt & IB_FLUSH_PERSISTENT)
		access |= IB_ACCESS_FLUSH_PERSISTENT;
	mr = NULL;
	if ((qp->attr.access & access) == access) {
		if (feth.sel == IB_FLUSH_MR)
			access |= SROCE_LOOKUP_WHOLE;
		mr = sroce_mr_lookup(qp->sdev, reth.rkey, true, sroce_resp_pd(qp),
				     qp->uid, reth.va, reth.len, access, &merr);
	}
	if (!mr) {
		/* R3.4: bad R_Key, range or access (QP's or MR's) */
		sroce_resp_fail(qp, pkt->psn, SROCE_NAK_REM_ACCESS,
				IB_EVENT_QP_ACCESS_ERR, 0);
		return false;
	}
	sroce_mr_put(mr);
	/* The stores of the requests before it, before its answer. */
	smp_mb();
	sroce_resp_answer_empty(qp, pkt);
	return true;
}

/*
 * A request older than expected (R2.6). Counted once, when handled: a
 * duplicate READ deferred for an ODP fault is counted when it comes again.
 */
static void sroce_resp_duplicate(struct sroce_qp *qp, struct sk_buff *skb)
{
	const struct sroce_pkt *pkt = sroce_pkt(skb);
	int err;
	u32 i;

	if (!(pkt->mask & SROCE_M_RD_ATOMIC)) {
		/* SEND/WRITE: never again, only acknowledged again */
		sroce_count(qp->sdev, SROCE_CNT_DUP_REQ);
		sroce_resp_send_ack(qp, psn_sub(qp->resp.epsn, 1),
				    sroce_resp_ack_syn(qp));
		return;
	}
	for (i = 0; i < qp->resp.nres; i++) {
		struct sroce_rd_res *e = &qp->resp.res[i];

		if (!e->opcode || !psn_in_range(pkt->psn, e->first_psn, e->last_psn))
			continue;
		if (pkt->mask & SROCE_M_ATOMIC) {
			if (e->first_psn == pkt->psn && (sroce_opcode_get(e->opcode)->mask &
						       SROCE_M_ATOMIC))
				sroce_resp_xmit(qp, SROCE_OP_RC_ATOMIC_ACKNOWLEDGE,
						pkt->psn, sroce_resp_ack_syn(qp),
						e->orig, NULL, 0, 0);
			break;
		}
		if (pkt->mask & (SROCE_M_FLUSH | SROCE_M_ATOMIC_WRITE)) {
			/* FLUSH, ATOMIC WRITE: the answer again, no execution */
			if (e->first_psn == pkt->psn && e->opcode == pkt->opcode)
				sroce_resp_xmit(qp, SROCE_OP_RC_RDMA_READ_RESPONSE_ONLY,
						pkt->psn, sroce_resp_ack_syn(qp),
						0, NULL, 0, 0);
			break;
		}
		if (!(sroce_opcode_get(e->opcode)->mask & SROCE_M_READ))
			break;
		/* Serve it again, narrowed to what the requester still needs. */
		err = sroce_resp_read_res(qp, e, skb);
		if (err == -EWOULDBLOCK) {
			/* ODP fault noted: e matches it when it comes again */
			sroce_resp_defer(qp);
			return;
		}
		if (err) {
			e->opcode = 0;
			break;
		}
		qp->resp.serving = i;
		qp->resp.serving_dup = true;
		break;
	}
	sroce_count(qp->sdev, SROCE_CNT_DUP_REQ);
}

/*
 * Opcode sequence (IBA 9.8.3.1): a message in progress continues with a
 * MIDDLE or LAST of its own kind; otherwise a new message must start.
 */
static bool sroce_resp_seq_ok(struct sroce_qp *qp, const struct sroce_pkt *pkt)
{
	u32 kind = pkt->mask & (SROCE_M_SEND | SROCE_M_WRITE);

	if (!qp->resp.in_msg)
		return pkt->mask & SROCE_M_START;
	return !(pkt->mask & SROCE_M_START) && kind == qp->resp.in_msg;
}

/*
 * XRC target, a request to execute: its XRCETH named an XRC SRQ of the
 * target's domain (qp->resp.xsrq), the same for every packet of a message
 * (annex A14: an invalid XRC SRQ is an invalid request).
 */
static bool sroce_resp_xrc_ok(struct sroce_qp *qp, const struct sk_buff *skb)
{
	u32 srqn = sroce_pkt_xrc_srqn(skb);

	if (!qp->resp.xsrq)
		return false;
	if (sroce_pkt_c(skb)->mask & SROCE_M_START) {
		qp->resp.msg_srqn = srqn;
		return true;
	}
	return srqn == qp->resp.msg_srqn;
}

static void sroce_resp_rc_uc(struct sroce_qp *qp, struct sk_buff *skb)
{
	const struct sroce_pkt *pkt = sroce_pkt(skb);
	s32 d = psn_resp_diff(pkt->psn, qp->resp.epsn);
	bool rc = sroce_qp_reliable(qp), done;

	if (d > 0) {
		sroce_count(qp->sdev, SROCE_CNT_OUT_OF_SEQ);
		sroce_resp_count(qp, SROCE_QCNT_OUT_OF_SEQ, 1);
		if (rc) {
			/* One NAK per gap (R2.5). */
			if (!qp->resp.nak_sent) {
				qp->resp.nak_sent = true;
				sroce_resp_nak(qp, qp->resp.epsn, SROCE_NAK_PSN_SEQ_ERR);
			}
			return;
		}
		/* UC: the message in progress is lost; reuse its WQE (R3.7). */
		if (qp->resp.have_wqe)
			qp->resp.roffset = 0;
		qp->resp.in_msg = 0;
		qp->resp.drop_msg = !(pkt->mask & SROCE_M_START);
		if (qp->resp.drop_msg) {
			sroce_count(qp->sdev, SROCE_CNT_UC_MSG_DROPPED);
			qp->resp.epsn = psn_add(pkt->psn, 1);
			return;
		}
		qp->resp.epsn = pkt->psn;
	} else if (d < 0) {
		if (rc)
			sroce_resp_duplicate(qp, skb);
		return;
	}
	qp->resp.nak_sent = false;
	if (qp->resp.drop_msg) {
		if (!(pkt->mask & SROCE_M_START)) {
			qp->resp.epsn = psn_add(pkt->psn, 1);
			return;
		}
		qp->resp.drop_msg = false;
	}
	if (!sroce_resp_seq_ok(qp, pkt) ||
	    !sroce_req_len_ok(pkt->mask, pkt->payload_len, qp->attr.pmtu)) {
		/* R3.4: bad opcode (sequence) or payload length */
		if (!rc && qp->resp.have_wqe)
			qp->resp.roffset = 0;
		sroce_resp_fail(qp, pkt->psn, SROCE_NAK_INV_REQ, IB_EVENT_QP_REQ_ERR, 0);
		qp->resp.in_msg = 0;
		return;
	}
	if (qp->type == SROCE_QPT_XRC_TGT && !sroce_resp_xrc_ok(qp, skb)) {
		sroce_resp_fail(qp, pkt->psn, SROCE_NAK_INV_REQ, IB_EVENT_QP_REQ_ERR, 0);
		qp->resp.in_msg = 0;
		return;
	}

	if (pkt->mask & SROCE_M_SEND)
		done = sroce_resp_send(qp, skb);
	else if (pkt->mask & SROCE_M_WRITE)
		done = sroce_resp_write(qp, skb);
	else if (pkt->mask & SROCE_M_READ)
		done = rc && sroce_resp_read(qp, skb);
	else if (pkt->mask & SROCE_M_FLUSH)
		done = rc && sroce_resp_rdma_flush(qp, skb);
	else if (pkt->mask & SROCE_M_ATOMIC_WRITE)
		done = rc && sroce_resp_atomic_write(qp, skb);
	else
		done = rc && sroce_resp_atomic(qp, skb);
	if (!done)
		return;		/* not executed: epsn stays */
	qp->resp.in_msg = qp->resp.drop_msg || (pkt->mask & SROCE_M_END) ? 0 :
			  pkt->mask & (SROCE_M_SEND | SROCE_M_WRITE);
	qp->resp.epsn = psn_add(qp->resp.epsn, 1);
	if (rc && (pkt->mask & (SROCE_M_SEND | SROCE_M_WRITE)) &&
	    ((pkt->flags & SROCE_PKT_ACKREQ) || (pkt->mask & SROCE_M_END))) {
		/*
		 * Coalesced: one ACK at the end of the batch (R2.8), but each
		 * AckReq the requester set gets one: on a lossy path its
		 * window moves on with any of them, not only with the last.
		 */
		if (qp->resp.ack_pending && (pkt->flags & SROCE_PKT_ACKREQ))
			sroce_resp_send_ack(qp, qp->resp.ack_psn, sroce_resp_ack_syn(qp));
		qp->resp.ack_pending = true;
		qp->resp.ack_psn = pkt->psn;
	}
}

static void sroce_resp_comm_est(struct sroce_qp *qp)
{
	struct ib_event ev = {
		.device = qp->ibqp.device,
		.element.qp = &qp->ibqp,
		.event = IB_EVENT_COMM_EST,
	};

	/* The first packet since entering RTR (R3.9). */
	qp->comm_est_sent = true;
	if (READ_ONCE(qp->state) == IB_QPS_RTR && qp->ibqp.event_handler)
		qp->ibqp.event_handler(&ev, qp->ibqp.qp_context);
}

/* Flush the QP's own RQ (an SRQ keeps its WQEs, R3.3). */
static void sroce_resp_flush_rq(struct sroce_qp *qp)
{
	struct sroce_sge sges[SROCE_MAX_SGE_HARD];
	struct sroce_recv_wqe wqe;
	struct sroce_cqe cqe = {};
	int err;

	if (!qp->has_rq)
		return;
	/* A malformed WQE (-EINVAL) is consumed and flushed too. */
	while ((err = sroce_rq_pop(&qp->rq, &wqe, sges)) != -ENOENT &&
	       err != -EIO) {
		cqe.wr_id = wqe.wr_id;
		cqe.status = IB_WC_WR_FLUSH_ERR;
		cqe.opcode = IB_WC_RECV;
		cqe.qp_num = qp->qpn;
		sroce_cq_post(qp->rcq, &cqe, &qp->ibqp, false);
	}
}

/*
 * The QP is in ERROR (R3.3): complete the receive WQE a message had taken,
 * if any, with WR_FLUSH_ERR (it is neither in the RQ nor back in the
 * SRQ), then the QP's own RQ. A QP on an SRQ then has nothing left in
 * flight: IB_EVENT_QP_LAST_WQE_REACHED, once (R3.9).
 */
void sroce_resp_flush(struct sroce_qp *qp)
{
	if (qp->resp.have_wqe)
		sroce_resp_recv_cqe(qp, IB_WC_WR_FLUSH_ERR, IB_WC_RECV, 0, 0, 0,
				    NULL, false);
	sroce_resp_flush_rq(qp);
	if (qp->srq && !qp->resp.have_wqe) {
		/* SRQ QP in ERROR has nothing left in flight (R3.9) */
		if (!qp->sqd_event_pending) {
			qp->sqd_event_pending = true;
			sroce_qp_event(qp, IB_EVENT_QP_LAST_WQE_REACHED);
		}
	}
}

/*
 * The peer sent requests again while @held, the next request, waits on
 * an ODP fault (qp->held_resent): its ACK timer ran out, and a fault may
 * take as long as the process likes (a page of a FUSE file, userfaultfd).
 * The copies of @held are dropped and answered with an RNR NAK of its
 * PSN, as an RNIC answers a request that meets a page fault (mlx5 does):
 * the requester waits, then sends again, using its rnr_retry rather than
 * its transport retries, so a fault that outlasts retry_cnt ACK timeouts
 * does not break the connection. The wait asked is at least
 * SROCE_FAULT_RNR_NS, so a long fault costs a packet or two per QP
 * every 10 ms, not a flood (R5.3). SEND and WRITE only: READ and ATOMIC
 * have no RNR NAK. Owner.
 */
static void sroce_resp_held_resent(struct sroce_qp *qp, struct sk_buff *held)
{
	const struct sroce_pkt *hp = sroce_pkt_c(held);
	struct sk_buff_head *q = &qp->rx_req;
	struct sk_buff *skb, *tmp;
	struct sk_buff_head copies;
	unsigned long flags;
	u64 ns;

	WRITE_ONCE(qp->held_resent, false);
	if (!sroce_qp_reliable(qp) || hp->psn != qp->resp.epsn ||
	    !(hp->mask & (SROCE_M_SEND | SROCE_M_WRITE)))
		return;
	__skb_queue_head_init(&copies);
	spin_lock_irqsave(&q->lock, flags);
	skb_queue_walk_safe(q, skb, tmp) {
		if (skb != held && sroce_pkt_c(skb)->psn == hp->psn) {
			__skb_unlink(skb, q);
			__skb_queue_tail(&copies, skb);
		}
	}
	spin_unlock_irqrestore(&q->lock, flags);
	if (skb_queue_empty(&copies))
		return;
	sroce_count_add(qp->sdev, SROCE_CNT_DUP_REQ, skb_queue_len(&copies));
	__skb_queue_purge(&copies);
	ns = max(sroce_rnr_timer_ns(qp->attr.min_rnr_timer), SROCE_FAULT_RNR_NS);
	sroce_resp_rnr_nak(qp, hp->psn, sroce_rnr_code_for_ns(ns));
	sroce_count(qp->sdev, SROCE_CNT_ODP_FAULT_RNR_NAK);
}

bool sroce_resp_run(struct sroce_qp *qp)
{
	int budget = SROCE_RESP_BUDGET;
	bool progress = false;
	struct sk_buff *skb;

	if (!sroce_qp_caps(qp, SROCE_QPCAP_PROCESS_RECV)) {
		skb_queue_purge(&qp->rx_req);
		qp->resp.rdc_valid = false;
		return false;
	}
	while (budget > 0) {
		/*
		 * Responses go out in PSN order: a READ being served is
		 * finished before the next request is looked at.
		 */
		if (qp->resp.serving >= 0) {
			sroce_resp_count_rd(qp);
			sroce_resp_xrc_enter(qp,
					     qp->resp.res[qp->resp.serving].xrc_srqn);
			progress |= sroce_resp_serve_read(qp, budget);
			sroce_resp_xrc_leave(qp);
			budget -= SROCE_RESP_BUDGET / 4;
			if (sroce_resp_deferred(qp))
				break;
			if (qp->resp.serving >= 0)
				continue;
		}
		skb = skb_dequeue(&qp->rx_req);
		if (!skb)
			break;
		qp->resp.rx_taken++;
		if (!qp->comm_est_sent)
			sroce_resp_comm_est(qp);
		if (qp->type == SROCE_QPT_UD) {
			sroce_resp_ud(qp, skb);
		} else if (sroce_qp_caps(qp, SROCE_QPCAP_PROCESS_RECV)) {
			sroce_resp_xrc_enter(qp, sroce_pkt_xrc_srqn(skb));
			sroce_resp_rc_uc(qp, skb);
			sroce_resp_xrc_leave(qp);
		}
		if (sroce_resp_deferred(qp)) {
			/* Not executed: first again, in process context */
			skb_queue_head(&qp->rx_req, skb);
			if (READ_ONCE(qp->held_resent))
				sroce_resp_held_resent(qp, skb);
			break;
		}
		sroce_resp_count(qp, SROCE_QCNT_RX_PKTS, 1);
		sroce_resp_count(qp, SROCE_QCNT_RX_BYTES, skb->len);
		kfree_skb(skb);
		progress = true;
		budget--;
	}
	/*
	 * destroy_qp moves the QP to RESET without waiting for this run (a
	 * modify_qp waits for it): what the run executed is still owed its
	 * ACK, and the process may already have seen its completions.
	 */
	if (qp->resp.ack_pending &&
	    (sroce_qp_caps(qp, SROCE_QPCAP_PROCESS_RECV) ||
	     READ_ONCE(qp->state) == IB_QPS_RESET)) {
		qp->resp.ack_pending = false;
		sroce_resp_send_ack(qp, qp->resp.ack_psn, sroce_resp_ack_syn(qp));
	}
	sroce_txbatch_send(qp->sdev, &qp->rtxb, &qp->rroute);
	return progress;
}

void sroce_resp_reset(struct sroce_qp *qp)
{
	struct sroce_rd_res *res = qp->resp.res;
	u32 nres = qp->resp.nres;

	memset(&qp->resp, 0, sizeof(qp->resp));
	qp->resp.res = res;
	qp->resp.nres = nres;
	if (res)
		memset(res, 0, nres * sizeof(*res));
	qp->resp.serving = -1;
	qp->resp.epsn = qp->attr.rq_psn;
}

/* INIT -> RTR: the first PSN expected is the rq_psn modify_qp set. */
void sroce_resp_start(struct sroce_qp *qp)
{
	qp->resp.epsn = qp->attr.rq_psn;
}

int sroce_resp_alloc(struct sroce_qp *qp, u32 nres)
{
	struct sroce_rd_res *res = kcalloc(nres, sizeof(*res), GFP_KERNEL_ACCOUNT);

	if (!res)
		return -ENOMEM;
	sroce_resp_free(qp);
	qp->resp.res = res;
	qp->resp.nres = nres;
	qp->resp.res_next = 0;
	qp->resp.serving = -1;
	return 0;
}

void sroce_resp_free(struct sroce_qp *qp)
{
	kfree(qp->resp.res);
	qp->resp.res = NULL;
	qp->resp.nres = 0;
}
