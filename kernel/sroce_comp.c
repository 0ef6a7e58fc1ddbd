// SPDX-License-Identifier: GPL-2.0-only
/*
 * sroce completer: ACKs, NAKs, READ responses and ATOMIC ACKs coming back
 * to the requester; the expiry of the local ACK and RNR timers; send
 * completions in posting order (seed-rules R2.1 - R2.8, R3.6), and their
 * flush (R3.3). Runs where the QP's engines run, by their owner only
 * (sroce_exec.c); the timers (started by sroce_req.c) only set a flag and
 * schedule the work item. It changes the requester's state only through
 * the hooks of sroce_engine.h.
 */
#include <linux/kernel.h>
#include <rdma/ib_verbs.h>

#include "sroce_engine.h"
#include "sroce_qp.h"
#include "sroce_pkt.h"
#include "qp_fsm.h"
#include "sroce_cq.h"
#include "sroce_mr.h"
#include "sroce_ring.h"
#include "sroce_work.h"
#include "aeth.h"
#include "opcode.h"
#include "psn.h"
#include "timers.h"
#include "sroce_trace.h"

#define SROCE_COMP_BUDGET 128

/* The completion opcode of each WR kind (SROCE_WR_KIND_LIST). */
#define SROCE_WC_OF_KIND(kind, wr, wc)	[SROCE_WR_##kind] = IB_WC_##wc,
static const u8 sroce_wc_by_kind[SROCE_WR_KIND_COUNT] = {
	SROCE_WR_KIND_LIST(SROCE_WC_OF_KIND)
};

/* The completion opcode of a send WQE. */
static u32 sroce_wc_opcode(const struct sroce_swqe *sw)
{
	return sroce_wc_by_kind[sw->kind];
}

/* Oldest WQE that still waits for the network, or NULL. */
static struct sroce_swqe *sroce_comp_oldest(struct sroce_qp *qp)
{
	u32 idx;

	for (idx = qp->comp.tail; idx != qp->req.head; idx++) {
		struct sroce_swqe *sw = sroce_swqe_at(qp, idx);

		if (sw->state != SROCE_SWQE_DONE && sw->npkts)
			return sw;
	}
	return NULL;
}

static void sroce_comp_fail(struct sroce_qp *qp, struct sroce_swqe *sw,
			    enum ib_wc_status status)
{
	sw->status = status;
	sw->state = SROCE_SWQE_DONE;
	sroce_qp_error(qp, true, 0);
}

/*
 * Forward progress up to @next_psn: the retry budgets start again (IBA
 * 9.7.6.1). A response that acknowledges nothing new is no progress: a
 * repeated RNR NAK or sequence NAK must use the budget up (R2.4, R2.5).
 */
static void sroce_comp_progress(struct sroce_qp *qp, u32 next_psn)
{
	if (!psn_after(next_psn, qp->comp.psn))
		return;
	sroce_req_acked(&qp->req, qp->comp.psn, next_psn);
	qp->comp.psn = next_psn;
	qp->comp.went_back = false;
	if (qp->comp.nak_seen && psn_after(next_psn, qp->comp.nak_psn))
		qp->comp.nak_seen = false;
	qp->comp.retry_left = qp->attr.retry_cnt;
	qp->comp.rnr_left = qp->attr.rnr_retry;
}

/*
 * A gap before @psn acted on: a sequence NAK of @psn (R2.5), or an
 * implied NAK (@psn = comp.psn): a READ response past comp.psn, or any
 * response past a READ or ATOMIC still unanswered, whose response (or its
 * rest) is then lost. Go back from comp.psn at once, at a cost of one
 * retry_cnt, once per loss episode: until progress, every gap reported is
 * the same one (a NAK's copy, the responses and ACKs behind a lost READ
 * response, the NAK of a later PSN), and the go-back from comp.psn resends
 * all of it; each go-back more would have the responder serve READs again
 * and spend a retry on a resend not lost. If the resend is lost, the
 * local ACK timer recovers (R2.5). Returns false when the gap was acted on
 * already.
 */
static bool sroce_comp_gap(struct sroce_qp *qp, u32 psn,
			   enum sroce_retrans_cause cause)
{
	struct sroce_swqe *sw;
	u8 left;

	if (qp->comp.went_back)
		return false;
	sw = sroce_comp_oldest(qp);
	if (!sw)
		return true;
	if (!sroce_retry_take(SROCE_RETRY_SEQ_NAK, qp->comp.retry_left, &left)) {
		sroce_count(qp->sdev, SROCE_CNT_RETRY_EXCEEDED);
		sroce_comp_fail(qp, sw, IB_WC_RETRY_EXC_ERR);
		return true;
	}
	qp->comp.retry_left = left;
	qp->comp.went_back = true;
	sroce_count(qp->sdev, cause == SROCE_RETRANS_CAUSE_SEQ_NAK ?
		    SROCE_CNT_RETRANS_SEQ_NAK : SROCE_CNT_RETRANS_IMPLIED_NAK);
	trace_sroce_retransmit(qp, cause, qp->comp.psn);
	/*
	 * From comp.psn, as after an RNR NAK; the window shrinks once per
	 * loss episode, not once per NAK.
	 */
	sroce_req_seq_nak(&qp->req, psn);
	return true;
}

/*
 * Acknowledge every request up to and including @psn (ACKs are
 * coalesced: R2.8). A READ or ATOMIC whose response has not come back is
 * not acknowledged by a later ACK: it is requested again.
 */
static void sroce_comp_ack_upto(struct sroce_qp *qp, u32 psn)
{
	struct sroce_swqe *sw;

	while ((sw = sroce_comp_oldest(qp))) {
		if (psn_before(psn, sw->first_psn))
			break;
		if (sroce_swqe_rd_atomic(sw)) {
			/*
			 * Acknowledged only by its own responses: stop at
			 * the first PSN of it not yet answered. Acknowledged
			 * past its end, it was served and (the rest of) its
			 * response is lost: an implied NAK (R2.5).
			 */
			sroce_comp_progress(qp, sw->first_psn);
			if (!psn_before(psn, sw->last_psn))
				sroce_comp_gap(qp, qp->comp.psn,
					       SROCE_RETRANS_CAUSE_IMPLIED_NAK);
			return;
		}
		if (psn_before(psn, sw->last_psn)) {
			sroce_comp_progress(qp, psn_add(psn, 1));
			return;
		}
		sw->state = SROCE_SWQE_DONE;
		sroce_comp_progress(qp, psn_add(sw->last_psn, 1));
	}
	sroce_comp_progress(qp, psn_add(psn, 1));
}

static enum ib_wc_status sroce_nak_status(u8 code)
{
	switch (code) {
	case SROCE_NAK_INV_REQ:		return IB_WC_REM_INV_REQ_ERR;
	case SROCE_NAK_REM_ACCESS:	return IB_WC_REM_ACCESS_ERR;
	case SROCE_NAK_INV_RD_REQ:	return IB_WC_REM_INV_RD_REQ_ERR;
	default:			return IB_WC_REM_OP_ERR;
	}
}

/*
 * A sequence NAK of @psn that is no news (R2.5). The responder NAKs a gap
 * once, in two copies, and the PSN it expects only grows, so each new
 * NAK is of a later PSN than the one before: a NAK of the latest NAK's
 * PSN or an earlier one is a copy (sent twice, duplicated or late on the
 * wire), even after the go-back it caused made progress up to @psn. The
 * responder NAKs a PSN again only if it dropped the resent packet for
 * want of memory: then the local ACK timer recovers.
 */
static bool sroce_comp_nak_copy(struct sroce_qp *qp, u32 psn)
{
	if (qp->comp.nak_seen && !psn_after(psn, qp->comp.nak_psn))
		return true;
	qp->comp.nak_seen = true;
	qp->comp.nak_psn = psn;
	return false;
}

static void sroce_comp_aeth(struct sroce_qp *qp, u32 psn, u8 syn)
{
	struct sroce_aeth_syndrome s;
	struct sroce_swqe *sw;
	u8 left;

	if (sroce_aeth_decode(syn, &s)) {
		sw = sroce_comp_oldest(qp);
		if (sw)
			sroce_comp_fail(qp, sw, IB_WC_BAD_RESP_ERR);
		return;
	}
	switch (s.type) {
	case SROCE_AETH_ACK:
		sroce_count(qp->sdev, SROCE_CNT_ACK_RCVD);
		sroce_req_credits(&qp->req, psn, s.value);
		sroce_comp_ack_upto(qp, psn);
		return;
	case SROCE_AETH_RNR_NAK:
		sroce_count(qp->sdev, SROCE_CNT_RNR_NAK_RCVD);
		sroce_qp_count(qp, SROCE_QCNT_RNR_NAK_RCVD, 1);
		sroce_comp_ack_upto(qp, psn_sub(psn, 1));
		sw = sroce_comp_oldest(qp);
		if (!sw)
			return;
		if (!sroce_retry_take(SROCE_RETRY_RNR, qp->comp.rnr_left, &left)) {
			sroce_count(qp->sdev, SROCE_CNT_RNR_RETRY_EXCEEDED);
			sroce_comp_fail(qp, sw, IB_WC_RNR_RETRY_EXC_ERR);
			return;
		}
		/*
		 * comp.psn is now the NAKed PSN, or the first PSN of a
		 * READ/ATOMIC before it still waiting for its response: the
		 * responder executed that one, but its answer is missing.
		 */
		qp->comp.rnr_left = left;
		sroce_count(qp->sdev, SROCE_CNT_RETRANS_RNR);
		trace_sroce_retransmit(qp, SROCE_RETRANS_CAUSE_RNR, qp->comp.psn);
		/* Wait as long as the responder asked (R2.4). */
		sroce_req_rnr_wait(qp, sroce_rnr_timer_ns(s.value));
		return;
	case SROCE_AETH_NAK:
		if (s.value == SROCE_NAK_PSN_SEQ_ERR) {
			sroce_count(qp->sdev, SROCE_CNT_SEQ_NAK_RCVD);
			sroce_qp_count(qp, SROCE_QCNT_SEQ_NAK_RCVD, 1);
			if (sroce_comp_nak_copy(qp, psn)) {
				sroce_count(qp->sdev, SROCE_CNT_DUP_NAK);
				return;
			}
			sroce_comp_ack_upto(qp, psn_sub(psn, 1));
			if (!sroce_comp_gap(qp, psn, SROCE_RETRANS_CAUSE_SEQ_NAK))
				sroce_count(qp->sdev, SROCE_CNT_DUP_NAK);
			return;
		}
		sroce_comp_ack_upto(qp, psn_sub(psn, 1));
		sroce_count(qp->sdev, SROCE_CNT_ERR_NAK_RCVD);
		sw = sroce_comp_oldest(qp);
		if (sw)
			sroce_comp_fail(qp, sw, sroce_nak_status(s.value));
		return;
	default:
		return;
	}
}

/*
 * The answer to a FLUSH or an ATOMIC WRITE (IBA 1.5): a READ RESPONSE
 * ONLY without payload, at the request's PSN. Returns true when it is
 * that answer, as sroce_comp_read_resp().
 */
static bool sroce_comp_empty_resp(struct sroce_qp *qp, struct sroce_swqe *sw,
				  const struct sroce_pkt *pkt)
{
	if (FIELD_GET(SROCE_OPCODE_OP, pkt->opcode) !=
	    SROCE_OP_RC_RDMA_READ_RESPONSE_ONLY ||
	    pkt->payload_len) {
		sroce_comp_fail(qp, sw, IB_WC_BAD_RESP_ERR);	/* R3.6 */
		return false;
	}
	sroce_req_answered(&qp->req);
	sroce_comp_progress(qp, psn_add(pkt->psn, 1));
	sw->state = SROCE_SWQE_DONE;
	sroce_req_rd_atomic_done(&qp->req);
	return true;
}

/*
 * A READ response: place its payload; the last one completes the WQE.
 * Returns true when it was the response awaited and is placed: only then
 * does its AETH count. The LAST of a READ that lost a response before it
 * would otherwise acknowledge the READ unanswered and ask for it again.
 */
static bool sroce_comp_read_resp(struct sroce_qp *qp, struct sk_buff *skb)
{
	const struct sroce_pkt *pkt = sroce_pkt(skb);
	u32 psn = pkt->psn, pmtu = qp->attr.pmtu, len = pkt->payload_len;
	struct sroce_swqe *sw;
	u64 off;
	bool end = pkt->mask & SROCE_M_END;
	u8 *buf;
	int err;

	/* A response implicitly acknowledges the requests before its READ. */
	sroce_comp_ack_upto(qp, psn_sub(psn, 1));
	sw = sroce_comp_oldest(qp);
	if (!sw || psn_before(psn, sw->first_psn)) {
		sroce_count(qp->sdev, SROCE_CNT_DUP_RESP);
		return false;
	}
	if (psn_after(psn, sw->last_psn)) {
		/* A later READ's: the go-back is decided above. */
		sroce_count(qp->sdev, SROCE_CNT_OUT_OF_SEQ);
		sroce_qp_count(qp, SROCE_QCNT_OUT_OF_SEQ, 1);
		return false;
	}
	if (sroce_swqe_flags(sw) & (SROCE_WRF_FLUSH | SROCE_WRF_ATOMIC_WRITE))
		return sroce_comp_empty_resp(qp, sw, pkt);
	if (!(sroce_swqe_flags(sw) & SROCE_WRF_READ)) {
		/* A READ response to what was no READ (R3.6). */
		sroce_comp_fail(qp, sw, IB_WC_BAD_RESP_ERR);
		return false;
	}
	if (psn != qp->comp.psn) {
		/* A response is missing: ask again from there (R2.5, R2.6). */
		sroce_count(qp->sdev, SROCE_CNT_OUT_OF_SEQ);
		sroce_qp_count(qp, SROCE_QCNT_OUT_OF_SEQ, 1);
		sroce_comp_gap(qp, qp->comp.psn, SROCE_RETRANS_CAUSE_IMPLIED_NAK);
		return false;
	}
	/*
	 * The response awaited: a go-back asked for meanwhile is not needed.
	 * Only this one says so: a go-back a timeout asked for, cleared by
	 * a stray or reordered response, was lost with its timer already run.
	 */
	sroce_req_answered(&qp->req);
	off = (u64)psn_diff(psn, sw->first_psn) * pmtu;
	if ((end && psn != sw->last_psn) || (!end && psn == sw->last_psn) ||
	    (!end && len != pmtu) || off + len > sw->length ||
	    (end && off + len != sw->length)) {
		sroce_comp_fail(qp, sw, IB_WC_BAD_RESP_ERR);	/* R3.6 */
		return false;
	}
	if (len) {
		buf = sroce_pkt_payload(skb);
		err = buf ? sroce_sgl_copy(qp->sdev, qp->pd,
					   (struct sroce_sge *)(sw + 1),
					   sw->wqe.num_sge, off, buf, len,
					   SROCE_TO_MR, IB_ACCESS_LOCAL_WRITE,
					   &qp->odp_fault, NULL) :
			    -ENOMEM;
		if (err == -EWOULDBLOCK) {
			sroce_qp_defer(qp);	/* ODP fault noted */
			return false;
		}
		if (err) {
			sroce_comp_fail(qp, sw, err == -ENOMEM ?
					IB_WC_LOC_QP_OP_ERR : IB_WC_LOC_PROT_ERR);
			return false;
		}
	}
	sroce_comp_progress(qp, psn_add(psn, 1));
	if (end) {
		sw->state = SROCE_SWQE_DONE;
		sroce_req_rd_atomic_done(&qp->req);
	}
	return true;
}

static void sroce_comp_atomic_ack(struct sroce_qp *qp, struct sk_buff *skb)
{
	const struct sroce_pkt *pkt = sroce_pkt(skb);
	struct sroce_swqe *sw;
	u64 orig = sroce_pkt_atmack_orig(skb);
	int err;

	sroce_comp_ack_upto(qp, psn_sub(pkt->psn, 1));
	sw = sroce_comp_oldest(qp);
	if (!sw || !(sroce_swqe_flags(sw) & SROCE_WRF_ATOMIC) ||
	    sw->first_psn != pkt->psn) {
		sroce_count(qp->sdev, SROCE_CNT_DUP_RESP);
		return;
	}
	sroce_req_answered(&qp->req);	/* the response awaited, as above */
	/* The original value lands in the WR's buffer in host order (R1.2). */
	err = sroce_sgl_copy(qp->sdev, qp->pd, (struct sroce_sge *)(sw + 1),
			     sw->wqe.num_sge, 0, &orig, sizeof(orig),
			     SROCE_TO_MR, IB_ACCESS_LOCAL_WRITE, &qp->odp_fault,
			     NULL);
	if (err == -EWOULDBLOCK) {
		sroce_qp_defer(qp);	/* ODP fault noted */
		return;
	}
	if (err) {
		sroce_comp_fail(qp, sw, IB_WC_LOC_PROT_ERR);
		return;
	}
	sw->state = SROCE_SWQE_DONE;
	sroce_req_rd_atomic_done(&qp->req);
	sroce_comp_progress(qp, psn_add(pkt->psn, 1));
}

static void sroce_comp_pkt(struct sroce_qp *qp, struct sk_buff *skb)
{
	const struct sroce_pkt *pkt = sroce_pkt(skb);

	if (!sroce_qp_reliable(qp))
		return;
	trace_sroce_ack_recv(qp, sroce_pkt_bth(skb));
	/*
	 * A response to a PSN never sent, or to one already acknowledged.
	 * After a go-back the requester may be resending far behind what it
	 * once sent: a responder that has it all answers the first duplicate
	 * with an ACK of everything (R2.6), which is news, not a stray.
	 */
	if (!psn_before(pkt->psn, qp->req.psn_new) || psn_before(pkt->psn, qp->comp.psn)) {
		struct sroce_aeth_syndrome s = {};
		bool aeth_ok = FIELD_GET(SROCE_OPCODE_OP, pkt->opcode) ==
			       SROCE_OP_RC_ACKNOWLEDGE &&
			       !sroce_aeth_decode(sroce_pkt_aeth_syn(skb), &s);

		if (aeth_ok && s.type == SROCE_AETH_NAK &&
		    s.value == SROCE_NAK_PSN_SEQ_ERR &&
		    psn_before(pkt->psn, qp->comp.psn)) {
			/*
			 * A sequence NAK of a PSN acknowledged since: the
			 * copy of one acted on, overtaken by the progress
			 * of the resend, or a late one. Nothing to resend.
			 */
			sroce_count(qp->sdev, SROCE_CNT_SEQ_NAK_RCVD);
			sroce_qp_count(qp, SROCE_QCNT_SEQ_NAK_RCVD, 1);
			sroce_count(qp->sdev, SROCE_CNT_DUP_NAK);
			return;
		}
		if (aeth_ok && pkt->psn == psn_sub(qp->comp.psn, 1)) {
			/* A repeated ACK: nothing new but its credits. */
			if (s.type == SROCE_AETH_ACK)
				sroce_req_credits(&qp->req, pkt->psn, s.value);
			return;
		}
		sroce_count(qp->sdev, SROCE_CNT_DUP_RESP);
		return;
	}
	if (pkt->mask & SROCE_M_READ) {
		bool placed = sroce_comp_read_resp(qp, skb);

		if (sroce_qp_deferred(qp))
			return;		/* handled again, AETH included */
		if (placed && (pkt->mask & SROCE_M_AETH))
			sroce_comp_aeth(qp, pkt->psn, sroce_pkt_aeth_syn(skb));
	} else if (pkt->mask & SROCE_M_ATOMIC) {
		sroce_comp_atomic_ack(qp, skb);
	} else {
		sroce_comp_aeth(qp, pkt->psn, sroce_pkt_aeth_syn(skb));
	}
	/* Acknowledged beyond the resend: go on from the first PSN not acked. */
	if (psn_after(qp->comp.psn, qp->req.psn))
		sroce_req_retry(&qp->req);
}

/*
 * Post CQEs for finished WQEs, strictly in posting order. A WQE's SQ slot
 * is released before its CQE appears: a poller that sees the CQE may post
 * again at once into a queue that was full.
 */
static bool sroce_comp_complete(struct sroce_qp *qp)
{
	bool progress = false;

	while (qp->comp.tail != qp->req.head) {
		struct sroce_swqe *sw = sroce_swqe_at(qp, qp->comp.tail);
		struct sroce_cqe cqe = {};
		bool report;

		if (sw->state != SROCE_SWQE_DONE)
			break;
		report = sw->signaled || sw->status != IB_WC_SUCCESS;
		if (report) {
			cqe.wr_id = sw->wqe.wr_id;
			cqe.status = sw->status;
			cqe.opcode = sroce_wc_opcode(sw);
			if (sroce_swqe_rd_atomic(sw))
				cqe.byte_len = (u32)sw->length;
			cqe.qp_num = qp->qpn;
		}
		qp->comp.tail++;
		sroce_sq_release(qp, qp->comp.tail);
		if (report && sroce_cq_post(qp->scq, &cqe, &qp->ibqp, false) == -EOVERFLOW)
			sroce_qp_error(qp, true, IB_EVENT_QP_FATAL);
		progress = true;
	}
	return progress;
}

/* The local ACK timer fired with requests outstanding (R2.2). */
static void sroce_comp_timeout(struct sroce_qp *qp)
{
	struct sroce_swqe *sw = sroce_comp_oldest(qp);
	u8 left;

	if (!sw || qp->comp.psn == qp->req.psn || qp->req.rnr_wait)
		return;
	sroce_count(qp->sdev, SROCE_CNT_TIMER_EXPIRED);
	sroce_qp_count(qp, SROCE_QCNT_TIMER_EXPIRED, 1);
	if (!sroce_retry_take(SROCE_RETRY_TIMEOUT, qp->comp.retry_left, &left)) {
		sroce_count(qp->sdev, SROCE_CNT_RETRY_EXCEEDED);
		sroce_comp_fail(qp, sw, IB_WC_RETRY_EXC_ERR);
		return;
	}
	qp->comp.retry_left = left;
	sroce_req_timed_out(&qp->req);
	sroce_count(qp->sdev, SROCE_CNT_RETRANS_TIMEOUT);
	trace_sroce_retransmit(qp, SROCE_RETRANS_CAUSE_TIMEOUT, qp->comp.psn);
}

/*
 * The local ACK and RNR timers (started and stopped by the requester,
 * sroce_req.c) only tell the completer and have the work item run it:
 * softirq, no lock. No reference: sroce_qp_schedule() tries to take one.
 */
static enum hrtimer_restart sroce_comp_ack_timer(struct hrtimer *t)
{
	struct sroce_qp *qp = container_of(t, struct sroce_qp, ack_timer);

	trace_sroce_timer_expire(qp, SROCE_TIMER_ACK, 0);
	WRITE_ONCE(qp->comp.timer_fired, true);
	sroce_qp_schedule(qp);
	return HRTIMER_NORESTART;
}

static enum hrtimer_restart sroce_comp_rnr_timer(struct hrtimer *t)
{
	struct sroce_qp *qp = container_of(t, struct sroce_qp, rnr_timer);

	trace_sroce_timer_expire(qp, SROCE_TIMER_RNR, 0);
	WRITE_ONCE(qp->comp.rnr_fired, true);
	sroce_qp_schedule(qp);
	return HRTIMER_NORESTART;
}

void sroce_comp_init_timers(struct sroce_qp *qp)
{
	hrtimer_setup(&qp->ack_timer, sroce_comp_ack_timer, CLOCK_MONOTONIC,
		      HRTIMER_MODE_REL_SOFT);
	hrtimer_setup(&qp->rnr_timer, sroce_comp_rnr_timer, CLOCK_MONOTONIC,
		      HRTIMER_MODE_REL_SOFT);
}

bool sroce_comp_run(struct sroce_qp *qp)
{
	int budget = SROCE_COMP_BUDGET;
	bool progress = false, acked = false;
	struct sk_buff *skb;
	u32 before = qp->comp.psn;

	if (!sroce_qp_caps(qp, SROCE_QPCAP_PROCESS_SEND) &&
	    READ_ONCE(qp->state) != IB_QPS_ERR) {
		skb_queue_purge(&qp->rx_resp);
		return false;
	}
	if (READ_ONCE(qp->comp.rnr_fired)) {
		WRITE_ONCE(qp->comp.rnr_fired, false);
		sroce_req_rnr_done(&qp->req);
		progress = true;
	}
	if (READ_ONCE(qp->comp.timer_fired)) {
		WRITE_ONCE(qp->comp.timer_fired, false);
		sroce_comp_timeout(qp);
		progress = true;
	}
	while (budget-- > 0 && (skb = skb_dequeue(&qp->rx_resp))) {
		if (sroce_qp_caps(qp, SROCE_QPCAP_PROCESS_SEND))
			sroce_comp_pkt(qp, skb);
		if (sroce_qp_deferred(qp)) {
			/* ODP fault noted: the packet again once resolved */
			skb_queue_head(&qp->rx_resp, skb);
			break;
		}
		sroce_qp_count(qp, SROCE_QCNT_RX_PKTS, 1);
		sroce_qp_count(qp, SROCE_QCNT_RX_BYTES, skb->len);
		kfree_skb(skb);
		progress = true;
	}
	progress |= sroce_comp_complete(qp);
	acked = qp->comp.psn != before;
	if (acked || qp->comp.psn == qp->req.psn)
		sroce_req_arm_timer(qp, true);

	if (READ_ONCE(qp->state) == IB_QPS_SQD && qp->sqd_event_pending &&
	    qp->comp.tail == qp->req.cur) {
		struct ib_event ev = {
			.device = qp->ibqp.device,
			.element.qp = &qp->ibqp,
			.event = IB_EVENT_SQ_DRAINED,
		};

		qp->sqd_event_pending = false;
		if (qp->ibqp.event_handler)
			qp->ibqp.event_handler(&ev, qp->ibqp.qp_context);
	}
	return progress;
}

static bool sroce_idx_before(u32 a, u32 b)
{
	return (s32)(a - b) < 0;
}

/*
 * The QP is in ERROR or SQE: complete every send WQE not yet completed
 * with WR_FLUSH_ERR (R3.3), the ones already copied in (their kernel copy)
 * and those still in the ring.
 */
void sroce_comp_flush(struct sroce_qp *qp)
{
	u32 prod = sroce_sq_prod(qp);
	struct sroce_cqe cqe = {
		.status = IB_WC_WR_FLUSH_ERR,
		.qp_num = qp->qpn,
	};

	while (qp->comp.tail != prod) {
		struct sroce_swqe *sw = sroce_swqe_at(qp, qp->comp.tail);
		bool report = true;

		cqe.status = IB_WC_WR_FLUSH_ERR;
		cqe.opcode = 0;
		if (!sroce_idx_before(qp->comp.tail, qp->req.head)) {
			cqe.wr_id = READ_ONCE(((struct sroce_send_wqe *)
				sroce_ring_slot(&qp->sq, qp->comp.tail))->wr_id);
		} else {
			cqe.wr_id = sw->wqe.wr_id;
			/*
			 * A WQE that finished (the one that failed, most
			 * likely) reports its own status, not a flush.
			 */
			if (sw->state == SROCE_SWQE_DONE) {
				cqe.status = sw->status;
				cqe.opcode = sroce_wc_opcode(sw);
				report = sw->signaled || sw->status != IB_WC_SUCCESS;
			}
		}
		qp->comp.tail++;
		sroce_sq_release(qp, qp->comp.tail);
		if (report)
			sroce_cq_post(qp->scq, &cqe, &qp->ibqp, false);
	}
	sroce_req_flushed(&qp->req, qp->comp.tail);
}

/* Back to an empty SQ (create, RESET). */
void sroce_comp_reset(struct sroce_qp *qp)
{
	qp->comp.tail = 0;
	qp->comp.psn = qp->attr.sq_psn;
	qp->comp.retry_left = qp->attr.retry_cnt;
	qp->comp.rnr_left = qp->attr.rnr_retry;
	qp->comp.went_back = false;
	qp->comp.nak_seen = false;
	WRITE_ONCE(qp->comp.timer_fired, false);
	WRITE_ONCE(qp->comp.rnr_fired, false);
}

/* RTR -> RTS: nothing acknowledged yet, the full retry budgets. */
void sroce_comp_start(struct sroce_qp *qp)
{
	qp->comp.psn = qp->attr.sq_psn;
	qp->comp.retry_left = qp->attr.retry_cnt;
	qp->comp.rnr_left = qp->attr.rnr_retry;
}
