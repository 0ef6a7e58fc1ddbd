// SPDX-License-Identifier: GPL-2.0-only
/*
 * sroce QP errors, shared by the verbs (sroce_qp_verbs.c) and the
 * engines: the move to ERROR or SQE, the flush flags user space reads,
 * affiliated events, and the SQ producer index check that raises a fatal
 * error. Below the engines: it calls nothing of theirs, and of the
 * scheduler only sroce_qp_schedule(), so that the work item flushes.
 */
#include <rdma/ib_verbs.h>

#include "sroce_qp.h"
#include "sroce_work.h"
#include "qp_fsm.h"
#include "sroce_trace.h"

/**
 * sroce_sq_prod - the SQ producer index, validated
 * @qp: the QP
 *
 * User space writes it: an index claiming more WQEs than the ring holds is
 * hostile and puts the QP in error (nothing past the last sane index runs).
 * Only once: every engine run and flush reads the index, and an error
 * schedules the work item, which would otherwise requeue itself for as
 * long as the index stays bad. Owner of the engines only.
 */
u32 sroce_sq_prod(struct sroce_qp *qp)
{
	u32 n;

	if (qp->sq_broken)
		return qp->sq.cons;
	if (sroce_ring_cons_count(&qp->sq, &n)) {
		qp->sq_broken = true;
		sroce_qp_error(qp, true, IB_EVENT_QP_FATAL);
		return qp->sq.cons;
	}
	return qp->sq.cons + n;
}

static void sroce_ring_set_flag(struct sroce_ring *r, u32 flag, bool on)
{
	u32 f = READ_ONCE(r->hdr->flags);

	WRITE_ONCE(r->hdr->flags, on ? f | flag : f & ~flag);
}

/* Tell user space whether posts must go through the kernel (flush). */
void sroce_qp_set_flush_flags(struct sroce_qp *qp)
{
	enum ib_qp_state s = qp->state;

	sroce_ring_set_flag(&qp->sq, SROCE_RING_FLUSH,
			    s == IB_QPS_ERR || s == IB_QPS_SQE);
	if (qp->has_rq)
		sroce_ring_set_flag(&qp->rq.ring, SROCE_RING_FLUSH,
				    s == IB_QPS_ERR);
}

/* Report an affiliated asynchronous event of @qp to its consumer. */
void sroce_qp_event(struct sroce_qp *qp, enum ib_event_type type)
{
	struct ib_event ev = {
		.device = qp->ibqp.device,
		.element.qp = &qp->ibqp,
		.event = type,
	};

	if (qp->ibqp.event_handler)
		qp->ibqp.event_handler(&ev, qp->ibqp.qp_context);
}

/**
 * sroce_qp_error - a completion error or a fatal condition hit the QP
 * @qp: the QP
 * @send_side: the error came from the send queue (UC/UD go to SQE)
 * @event: affiliated async event to report, or 0 for none
 *
 * Moves the QP to ERROR or SQE as seed-rules R3.2 says and lets the work
 * item flush (R3.3). Callable from the engines and from softirq.
 */
void sroce_qp_error(struct sroce_qp *qp, bool send_side,
		    enum ib_event_type event)
{
	enum sroce_qp_state next;
	unsigned long flags;
	bool was_err;

	spin_lock_irqsave(&qp->state_lock, flags);
	was_err = qp->state == IB_QPS_ERR;
	/* A catastrophic error (CQ overrun, bad ring) is never just SQE. */
	next = sroce_qp_state_on_error(qp->type,
				       (enum sroce_qp_state)qp->state,
				       send_side && event != IB_EVENT_QP_FATAL);
	trace_sroce_qp_state(qp, qp->state, (enum ib_qp_state)next);
	WRITE_ONCE(qp->state, (enum ib_qp_state)next);
	sroce_qp_set_flush_flags(qp);
	spin_unlock_irqrestore(&qp->state_lock, flags);
	sroce_dbg_qp(qp, "-> %s\n", sroce_qp_state_name(next));
	/* One event per entry to ERROR: not one per later failed CQE post. */
	if (event && !was_err)
		sroce_qp_event(qp, event);
	sroce_qp_schedule(qp);
}
