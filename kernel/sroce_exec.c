// SPDX-License-Identifier: GPL-2.0-only
/*
 * sroce execution model: who runs a QP's engines, and where.
 *
 * A QP's engines have two owners, each one context at a time: the send
 * side (completer, requester) and the responder, so that a QP answers a
 * request on one CPU while it sends on another (sroce_qp_resp_side();
 * an ODP fault joins the responder to the send side for good). Ownership
 * is a flag, not a lock held while sleeping on it: a context that wants
 * an owned side "kicks" its owner, which runs it once more before it
 * lets go, and goes on with its own business. No work is lost and nobody
 * waits. Owners, fastest first:
 *
 *   - the receive softirq, right where a packet arrives (as a NIC handles
 *     a packet where it lands). ODP memory that is mapped is used there
 *     too; a page fault stops the engine where it can resume
 *     (sroce_qp_defer()) and process context goes on from there (the
 *     doorbell caller the softirq ran on top of, or the work item);
 *   - a process ringing a user doorbell (post_send): the WQEs it posted go
 *     on the wire before the system call returns;
 *   - the QP's work item on sroce_wq, for everything else: timers, kicks
 *     that found no owner able to run, and work left over when an inline
 *     owner's budget ran out.
 *
 * modify_qp and query_qp take the engines exclusively with
 * sroce_engine_lock(), which sleeps until no owner is left; while a verb
 * waits, other contexts do not take ownership (they kick), so it cannot
 * starve. No owner sleeps: an ODP fault, which may take as long as the
 * process likes (a page of a FUSE file, or under userfaultfd), is
 * resolved by process context after it has let go of the engines, with
 * no reference on the QP either (sroce_qp_fault_resolve()), so that it
 * holds up neither these verbs nor destroy_qp.
 */
#include <linux/moduleparam.h>
#include <linux/netdevice.h>
#include <linux/sched/clock.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/workqueue.h>

#include "sroce_cq.h"
#include "sroce_engine.h"
#include "sroce_exec.h"
#include "sroce_mr.h"
#include "sroce_odp.h"
#include "sroce_work.h"
#include "sroce_qp.h"
#include "sroce_pkt.h"
#include "sroce_param.h"
#include "bth.h"
#include "psn.h"
#include "qp_fsm.h"

static bool inline_engines = true;
module_param(inline_engines, bool, 0644);
MODULE_PARM_DESC(inline_engines,
		 "Run QP engines in the receive softirq and in the doorbell caller when idle (default on; off: work item only)");

/*
 * A doorbell caller running the engines (sroce_qp_run_inline()), on its
 * stack. The receive softirqs its transmits trigger run on top of it, in
 * its system call (the veth hands packets to this CPU's backlog, drained
 * when the caller turns BHs on again, unless ksoftirqd has the softirq):
 * - if its QP streams (see sroce_qp_streams()), they leave other QPs'
 *   engines to an unbound worker (sroce_qp_rx_handoff()), so that the
 *   caller returns and posts again while another CPU answers, rather than
 *   doing the peer's work of every message in its own system call;
 * - an ODP fault they meet on a QP of the caller's process is left to the
 *   caller (fault_qp, holding a reference), which may sleep and resolves
 *   it before its system call returns (sroce_qp_fault_to_caller()).
 *
 * The per-CPU pointer sroce_doorbell names the caller's context while it
 * runs here. The caller may sleep (an ODP fault of its own) with only
 * migration disabled, and another doorbell caller may then run on this
 * CPU and take the pointer over: so a softirq uses a context only if it
 * belongs to the task it interrupted (task == current), and a caller
 * clears the pointer on its way out only if it still names its own
 * context. The pointer never outlives the context: only the context's
 * owner set it, and that owner clears it before returning unless another
 * caller replaced it meanwhile.
 */
struct sroce_doorbell_ctx {
	struct task_struct *task;
	struct sroce_qp *stream_qp;	/* the caller's QP if it streams */
	struct sroce_qp *fault_qp;	/* a fault left to the caller */
};

static DEFINE_PER_CPU(struct sroce_doorbell_ctx *, sroce_doorbell);

/* The context of the doorbell caller this softirq interrupted, or NULL. */
static struct sroce_doorbell_ctx *sroce_doorbell_here(void)
{
	struct sroce_doorbell_ctx *ctx = this_cpu_read(sroce_doorbell);

	return ctx && ctx->task == current ? ctx : NULL;
}

/* Rounds of the engines an inline owner runs before handing over. */
#define SROCE_DOORBELL_ROUNDS	4
#define SROCE_SOFTIRQ_ROUNDS	2
/* Kicks an owner honours in one go before handing over to the work item. */
#define SROCE_MAX_KICK_RERUNS	8
/* ODP faults of one QP a doorbell caller resolves before it hands over. */
#define SROCE_DOORBELL_FAULTS	8
/* ... and an ODP fault work, before it queues the next one. */
#define SROCE_WORK_FAULTS	8

void sroce_engine_init(struct sroce_qp *qp)
{
	spin_lock_init(&qp->engine_lock);
	init_waitqueue_head(&qp->engine_wait);
	qp->send_owner = (struct sroce_owner){};
	qp->resp_owner = (struct sroce_owner){};
	qp->split = true;
	qp->unsplit = false;
	qp->resp_run_mark = 0;
	qp->resp_defer = false;
	memset(&qp->resp_fault, 0, sizeof(qp->resp_fault));
	qp->engine_waiters = 0;
	qp->engine_defer = false;
	qp->sirq_defer = false;
	qp->odp_fault_pending = false;
	qp->held_resent = false;
	memset(&qp->odp_fault, 0, sizeof(qp->odp_fault));
	memset(&qp->odp_fault_failed, 0, sizeof(qp->odp_fault_failed));
}

/* destroy_qp, once no context runs the engines: notes hold their MRs. */
void sroce_engine_release(struct sroce_qp *qp)
{
	sroce_odp_fault_drop(&qp->odp_fault);
	sroce_odp_fault_drop(&qp->odp_fault_failed);
	sroce_odp_fault_drop(&qp->resp_fault);
}

/*
 * Become the owner of side @o if it has none and no verb waits; otherwise
 * leave a kick for whoever runs it next. Caller holds engine_lock.
 */
static bool sroce_owner_get(struct sroce_qp *qp, struct sroce_owner *o)
{
	lockdep_assert_held(&qp->engine_lock);
	if (o->busy || qp->engine_waiters) {
		o->kick = true;
		return false;
	}
	o->busy = true;
	o->kick = false;
	return true;
}

/*
 * Let go of side @o, unless a kick came in: then the caller stays its
 * owner and must run it again (returns false). @force lets go anyway (the
 * caller schedules the work item, which will honour the kick). @unsplit:
 * the responder's owner asks the send side's owner to take the responder
 * over for good (sroce_qp_unsplit()). Any context.
 */
static bool sroce_owner_tryput(struct sroce_qp *qp, struct sroce_owner *o,
			       bool force, bool unsplit)
{
	unsigned long flags;
	bool waiters;

	spin_lock_irqsave(&qp->engine_lock, flags);
	if (o->kick && !force) {
		o->kick = false;
		spin_unlock_irqrestore(&qp->engine_lock, flags);
		return false;
	}
	if (unsplit)
		WRITE_ONCE(qp->unsplit, true);
	o->kick = false;
	o->busy = false;
	waiters = qp->engine_waiters;
	spin_unlock_irqrestore(&qp->engine_lock, flags);
	if (waiters)
		wake_up(&qp->engine_wait);
	return true;
}

/* Own the send side if nobody does, else kick its owner. Any context. */
static bool sroce_engine_tryget(struct sroce_qp *qp)
{
	unsigned long flags;
	bool got;

	spin_lock_irqsave(&qp->engine_lock, flags);
	got = sroce_owner_get(qp, &qp->send_owner);
	spin_unlock_irqrestore(&qp->engine_lock, flags);
	return got;
}

static bool sroce_engine_tryput(struct sroce_qp *qp, bool force)
{
	return sroce_owner_tryput(qp, &qp->send_owner, force, false);
}

/* Let go of the engines; returns whether a kick came in meanwhile. */
static bool sroce_engine_put_kicked(struct sroce_qp *qp)
{
	bool kicked = !sroce_engine_tryput(qp, false);

	if (kicked)
		sroce_engine_tryput(qp, true);
	return kicked;
}

static bool sroce_engine_tryget_excl(struct sroce_qp *qp)
{
	bool got;

	spin_lock_irq(&qp->engine_lock);
	got = !qp->send_owner.busy && !qp->resp_owner.busy;
	if (got) {
		qp->send_owner.busy = true;
		qp->resp_owner.busy = true;
		qp->engine_waiters--;
	}
	spin_unlock_irq(&qp->engine_lock);
	return got;
}

/* Own the engines for a verb: process context, may sleep. */
void sroce_engine_lock(struct sroce_qp *qp)
{
	spin_lock_irq(&qp->engine_lock);
	qp->engine_waiters++;
	spin_unlock_irq(&qp->engine_lock);
	wait_event(qp->engine_wait, sroce_engine_tryget_excl(qp));
}

/* Let go after sroce_engine_lock(); a kick meanwhile goes to the work item. */
void sroce_engine_unlock(struct sroce_qp *qp)
{
	bool kicked, waiters;

	spin_lock_irq(&qp->engine_lock);
	kicked = qp->send_owner.kick || qp->resp_owner.kick;
	qp->send_owner = (struct sroce_owner){};
	qp->resp_owner = (struct sroce_owner){};
	waiters = qp->engine_waiters;
	spin_unlock_irq(&qp->engine_lock);
	if (waiters)
		wake_up(&qp->engine_wait);
	if (kicked)
		sroce_qp_schedule(qp);
}

/* A QP in ERROR or SQE: the engines complete what is left (R3.3). */
static void sroce_qp_flush(struct sroce_qp *qp)
{
	enum ib_qp_state s = READ_ONCE(qp->state);

	if (s == IB_QPS_ERR || s == IB_QPS_SQE)
		sroce_comp_flush(qp);
	if (s == IB_QPS_ERR && !READ_ONCE(qp->split))
		sroce_resp_flush(qp);
}

/* What sroce_resp_tryget() found. */
enum sroce_resp_own {
	SROCE_RESP_GOT,		/* the caller owns the responder */
	SROCE_RESP_KICKED,	/* its owner was kicked */
	SROCE_RESP_UNSPLIT,	/* it waits to be joined to the send side */
	SROCE_RESP_JOINT,	/* the QP is not split: the send side runs it */
};

/*
 * Own a split QP's responder if nobody does and no verb waits; otherwise
 * leave its owner a kick. Any context.
 */
static enum sroce_resp_own sroce_resp_tryget(struct sroce_qp *qp)
{
	enum sroce_resp_own own;
	unsigned long flags;

	spin_lock_irqsave(&qp->engine_lock, flags);
	if (!qp->split) {
		own = SROCE_RESP_JOINT;
	} else if (qp->unsplit) {
		own = SROCE_RESP_UNSPLIT;
	} else {
		own = sroce_owner_get(qp, &qp->resp_owner) ? SROCE_RESP_GOT :
							     SROCE_RESP_KICKED;
	}
	spin_unlock_irqrestore(&qp->engine_lock, flags);
	return own;
}

static bool sroce_resp_tryput(struct sroce_qp *qp, bool force, bool unsplit)
{
	return sroce_owner_tryput(qp, &qp->resp_owner, force, unsplit);
}

/*
 * The split responder met an ODP fault (or noted one ahead): the QP's
 * engines get one owner for good, whose fault hand-back (below) covers
 * the responder too; the request waits at the head of rx_req, and the
 * responder meets the fault again there. Owner of the send side.
 */
static void sroce_qp_unsplit(struct sroce_qp *qp)
{
	unsigned long flags;
	bool joined;

	spin_lock_irqsave(&qp->engine_lock, flags);
	joined = qp->split && qp->unsplit && !qp->resp_owner.busy;
	if (joined)
		WRITE_ONCE(qp->split, false);
	spin_unlock_irqrestore(&qp->engine_lock, flags);
	if (!joined)
		return;
	sroce_odp_fault_drop(&qp->resp_fault);
	qp->resp_defer = false;
	sroce_count(qp->sdev, SROCE_CNT_RESP_UNSPLIT);
}

/*
 * Run a split QP's responder here, or have it run: its owner is kicked,
 * or, while the packets of its last run may still wait in another CPU's
 * backlog, the work item runs it there (its packets leave in order, as
 * the send side's do: sroce_qp_run_owned()). Returns false if the QP is
 * not split, or is to be joined now (an ODP fault): the caller then has
 * the send side's owner run the responder (sroce_qp_unsplit()). Any
 * context; @softirq: the receive softirq's.
 */
static bool sroce_qp_resp_side(struct sroce_qp *qp, bool softirq)
{
	int reruns = SROCE_MAX_KICK_RERUNS;
	bool progress, fault;
	int cpu, pinned;

	switch (sroce_resp_tryget(qp)) {
	case SROCE_RESP_JOINT:
	case SROCE_RESP_UNSPLIT:
		return false;
	case SROCE_RESP_KICKED:
		return true;
	case SROCE_RESP_GOT:
		break;
	}
	migrate_disable();
	cpu = smp_processor_id();
	pinned = sroce_run_mark_cpu(READ_ONCE(qp->resp_run_mark));
	if (pinned >= 0 && pinned != cpu) {
		sroce_resp_tryput(qp, true, false);
		migrate_enable();
		sroce_qp_schedule_on(qp, pinned);
		return true;
	}
	for (;;) {
		int rounds = softirq ? SROCE_SOFTIRQ_ROUNDS :
				       SROCE_DOORBELL_ROUNDS;

		do {
			progress = sroce_resp_run(qp);
			if (READ_ONCE(qp->state) == IB_QPS_ERR)
				sroce_resp_flush(qp);
			fault = qp->resp_defer || qp->resp_fault.mr;
		} while (progress && !fault && --rounds > 0);
		WRITE_ONCE(qp->resp_run_mark, sroce_run_mark(cpu));
		if (fault) {
			sroce_resp_tryput(qp, true, true);
			migrate_enable();
			return false;
		}
		if (progress || !reruns--) {
			/* Fair to other QPs: the rest on this CPU's worker. */
			sroce_resp_tryput(qp, true, false);
			migrate_enable();
			sroce_qp_schedule_on(qp, cpu);
			return true;
		}
		if (sroce_resp_tryput(qp, false, false)) {
			migrate_enable();
			return true;
		}
	}
}

static bool sroce_qp_defer_take(struct sroce_qp *qp)
{
	bool defer = qp->engine_defer;

	qp->engine_defer = false;
	return defer;
}

/* What a run of the engines left. */
enum sroce_run {
	SROCE_RUN_IDLE,		/* nothing */
	SROCE_RUN_MORE,		/* work: its rounds ran out */
	SROCE_RUN_DEFER,	/* an ODP fault stopped an engine (qp->odp_fault) */
};

/*
 * Run the engines until none makes progress or @rounds run out. Caller
 * owns them. An engine stopped on an ODP fault leaves the engines to
 * process context (sirq_defer), which resolves it.
 */
static enum sroce_run sroce_qp_run_engines(struct sroce_qp *qp, int rounds)
{
	bool progress, defer;

	/* A split responder that met an ODP fault joins the send side. */
	if (READ_ONCE(qp->split) && READ_ONCE(qp->unsplit))
		sroce_qp_unsplit(qp);
	/* Each engine starts with engine_defer clear: it checks its own. */
	do {
		progress = sroce_comp_run(qp);
		defer = sroce_qp_defer_take(qp);
		if (!READ_ONCE(qp->split))
			progress |= sroce_resp_run(qp);
		defer |= sroce_qp_defer_take(qp);
		progress |= sroce_req_run(qp);
		defer |= sroce_qp_defer_take(qp);
		sroce_qp_flush(qp);
		if (defer) {
			WRITE_ONCE(qp->sirq_defer, true);
			return SROCE_RUN_DEFER;
		}
	} while (progress && --rounds > 0);
	return progress ? SROCE_RUN_MORE : SROCE_RUN_IDLE;
}

/*
 * Start of a run: take back a fault its resolver could not resolve, for
 * the access that meets it again to fail (sroce_odp_fault_note()). Owner.
 */
static void sroce_qp_fault_collect(struct sroce_qp *qp)
{
	struct sroce_odp_fault f;
	unsigned long flags;

	if (!READ_ONCE(qp->odp_fault_failed.mr))
		return;
	spin_lock_irqsave(&qp->engine_lock, flags);
	f = qp->odp_fault_failed;
	qp->odp_fault_failed.mr = NULL;
	spin_unlock_irqrestore(&qp->engine_lock, flags);
	sroce_odp_fault_drop(&qp->odp_fault);
	qp->odp_fault = f;
}

/*
 * After a run in process context: take the fault the engines noted into
 * @f, for the caller to resolve once it has let go of the engines, unless
 * @f holds one already or one is being resolved (its resolver schedules
 * the work item when done, and the engines meet this one again then). A
 * failed fault the run did not meet again is forgotten. Returns whether
 * one was taken. Owner.
 */
static bool sroce_qp_fault_take(struct sroce_qp *qp, struct sroce_odp_fault *f)
{
	bool busy;

	if (qp->odp_fault.failed)
		sroce_odp_fault_drop(&qp->odp_fault);
	if (!qp->odp_fault.mr)
		return false;
	spin_lock_irq(&qp->engine_lock);
	busy = qp->odp_fault_pending;
	qp->odp_fault_pending = true;
	spin_unlock_irq(&qp->engine_lock);
	if (busy || f->mr) {
		sroce_odp_fault_drop(&qp->odp_fault);
		return false;
	}
	*f = qp->odp_fault;
	qp->odp_fault.mr = NULL;
	return true;
}

/*
 * Doorbell suppression (engines_active in the SQ ring header, sroce-abi.h):
 * while an owner runs the engines of a user QP, user space that publishes
 * WQEs skips the doorbell system call. Before the owner stops it clears
 * the word, issues a full barrier and re-reads prod: either that read sees
 * what user space published, or user space (prod store, full barrier,
 * word load) sees the cleared word and rings. A WQE published while the
 * requester cannot send (window, rd_atomic credits) waits, as after a
 * doorbell, for the ACK or timer whose engine run will send it.
 *
 * Not for a softirq owner: WQEs it picked up would leave from softirq,
 * through the CPU's backlog, which under load waits for ksoftirqd (up to
 * a tick later, on every ping-pong), where a doorbell sends them from
 * process context. Owner only.
 */
static void sroce_sq_active_begin(struct sroce_qp *qp, bool softirq)
{
	struct sroce_ring_hdr *hdr = qp->sq.hdr;

	if (softirq || !qp->sq.mentry)
		return;
	qp->sq_active = true;
	WRITE_ONCE(hdr->engines_active, 1);
	/* The engines read prod after this; the recheck compares with it. */
	smp_mb();
	qp->sq_seen = READ_ONCE(hdr->prod);
}

/* Clear the word; true if WQEs were published meanwhile (run again). */
static bool sroce_sq_active_end(struct sroce_qp *qp)
{
	struct sroce_ring_hdr *hdr = qp->sq.hdr;

	if (!qp->sq_active)
		return false;
	qp->sq_active = false;
	WRITE_ONCE(hdr->engines_active, 0);
	/* Pairs with the producer's fence between its prod store and our word. */
	smp_mb();
	return READ_ONCE(hdr->prod) != qp->sq_seen;
}

/*
 * The owner's loop: run, honour kicks, let go. Returns true if work is
 * left for the work item (the caller schedules it). In process context
 * an ODP fault the engines noted is taken into @f, for the caller to
 * resolve (sroce_qp_run_process()).
 *
 * Packets leave in order. A packet sent waits in this CPU's backlog until
 * the receive softirq gets to it, and a packet sent meanwhile from another
 * CPU could overtake it (a sequence error for the peer; on UC, a message
 * lost). From softirq that is the rule; from process context too, as soon
 * as the softirq is left to ksoftirqd: a local_bh_enable() then does not
 * drain the backlog (always so before Linux 6.5 while ksoftirqd is
 * runnable, and on any kernel after a softirq run's budget). So after
 * every run the QP is marked with its CPU and how far that CPU's backlog
 * had been filled (qp->run_mark), and until the backlog has received that
 * far, the engines run nowhere else: other CPUs hand over to the work
 * item queued there. Caller owns the engines and cannot migrate.
 */
static bool sroce_qp_run_owned(struct sroce_qp *qp, int rounds, bool softirq,
			       struct sroce_odp_fault *f)
{
	int reruns = SROCE_MAX_KICK_RERUNS;
	int cpu = smp_processor_id();
	int pinned = sroce_qp_pinned_cpu(qp);

	if (pinned >= 0 && pinned != cpu) {
		sroce_engine_tryput(qp, true);
		return true;
	}
	sroce_qp_fault_collect(qp);
	/* Faults resolve in process context, unless one is under way. */
	if (!softirq && !READ_ONCE(qp->odp_fault_pending))
		WRITE_ONCE(qp->sirq_defer, false);
	for (;;) {
		enum sroce_run run;
		bool taken = false;

		sroce_sq_active_begin(qp, softirq);
		run = sroce_qp_run_engines(qp, rounds);
		WRITE_ONCE(qp->run_mark, sroce_run_mark(cpu));
		if (!softirq)
			taken = sroce_qp_fault_take(qp, f);
		if (run == SROCE_RUN_DEFER && !softirq) {
			bool kicked;

			sroce_sq_active_end(qp);
			kicked = sroce_engine_put_kicked(qp);
			/*
			 * The fault's resolver runs the engines once done, or
			 * kicks us if we still own them: a kick that came in
			 * must not be lost.
			 */
			return kicked || (!taken && !READ_ONCE(qp->odp_fault_pending));
		}
		if (run != SROCE_RUN_IDLE || !reruns--) {
			/* The work item the caller queues reads the SQ again. */
			sroce_sq_active_end(qp);
			sroce_engine_tryput(qp, true);
			return true;
		}
		if (sroce_sq_active_end(qp))
			continue;	/* WQEs posted without a doorbell */
		if (sroce_engine_tryput(qp, false))
			return false;
	}
}

/*
 * Resolve @f, a fault the engines of the QP numbered @qpn (uid @uid)
 * noted. Neither the engines nor the QP are held meanwhile (the noted MR
 * is, which keeps the device): however long the process's memory takes,
 * modify_qp, query_qp and destroy_qp go on, only dereg_mr of that MR
 * waits, as on an RNIC. On success the start of the range stays mapped
 * (*held, sroce_odp_fault_unhold()) for the engines' run that follows; a
 * range that cannot be mapped goes back to the engines (odp_fault_failed).
 * Returns the QP with a reference if it still exists, else NULL. Process
 * context; consumes @f.
 */
static struct sroce_qp *sroce_qp_fault_resolve(struct sroce_dev *sdev,
					       u32 qpn, u64 uid,
					       struct sroce_odp_fault *f,
					       struct ib_umem_odp **held)
{
	struct sroce_qp *qp;

	sroce_odp_fault_map(f, held);
	qp = sroce_qp_get(sdev, qpn);
	if (qp && qp->uid != uid) {
		sroce_qp_put(qp);	/* destroyed; its number reused */
		qp = NULL;
	}
	if (qp) {
		spin_lock_irq(&qp->engine_lock);
		qp->odp_fault_pending = false;
		if (f->failed)
			swap(qp->odp_fault_failed, *f);
		spin_unlock_irq(&qp->engine_lock);
	}
	sroce_odp_fault_drop(f);
	return qp;
}

static void sroce_qp_fault_queue(struct sroce_qp *qp,
				 struct sroce_odp_fault *f);

/*
 * Resolve @f, noted by the engines of QP @qpn (uid @uid; no reference
 * held), then run them while its range is held mapped, so that the access
 * that faulted makes progress even if the process invalidates the range
 * in a loop; and so on for the faults they note next: up to @faults more
 * here, the rest on the ODP workqueue. Process context; consumes @f.
 */
static void sroce_qp_fault_loop(struct sroce_dev *sdev, u32 qpn, u64 uid,
				struct sroce_odp_fault *f, int faults)
{
	struct ib_umem_odp *held;
	struct sroce_qp *qp;
	bool more;

	for (;;) {
		qp = sroce_qp_fault_resolve(sdev, qpn, uid, f, &held);
		if (!qp) {
			sroce_odp_fault_unhold(held);
			return;
		}
		/* Busy: the owner was kicked and runs the engines again. */
		if (sroce_engine_tryget(qp)) {
			migrate_disable();
			more = sroce_qp_run_owned(qp, 64, false, f);
			migrate_enable();
			if (more)
				sroce_qp_schedule(qp);
		}
		sroce_odp_fault_unhold(held);
		if (!f->mr)
			break;
		/* A task being killed could see the fault cut short. */
		if (faults-- <= 0 || fatal_signal_pending(current)) {
			sroce_qp_fault_queue(qp, f);
			break;
		}
		sroce_qp_put(qp);
	}
	sroce_qp_put(qp);
}

/* A fault resolved on the ODP workqueue (sroce_qp_fault_queue()). */
struct sroce_odp_fault_work {
	struct work_struct work;
	struct sroce_dev *sdev;
	u32 qpn;
	u64 uid;
	struct sroce_odp_fault f;
};

static void sroce_odp_fault_work(struct work_struct *work)
{
	struct sroce_odp_fault_work *fw =
		container_of(work, struct sroce_odp_fault_work, work);

	sroce_qp_fault_loop(fw->sdev, fw->qpn, fw->uid, &fw->f,
			    SROCE_WORK_FAULTS);
	kfree(fw);
}

/*
 * Resolve @f on the ODP workqueue rather than in the QP's work item,
 * which destroy_qp waits for. Caller holds a reference on @qp; consumes @f.
 */
static void sroce_qp_fault_queue(struct sroce_qp *qp, struct sroce_odp_fault *f)
{
	struct sroce_odp_fault_work *fw = kmalloc(sizeof(*fw), GFP_KERNEL);

	if (!fw) {
		/* The engines meet it again on their next run. */
		spin_lock_irq(&qp->engine_lock);
		qp->odp_fault_pending = false;
		spin_unlock_irq(&qp->engine_lock);
		sroce_odp_fault_drop(f);
		sroce_qp_schedule(qp);
		return;
	}
	INIT_WORK(&fw->work, sroce_odp_fault_work);
	fw->sdev = qp->sdev;
	fw->qpn = qp->qpn;
	fw->uid = qp->uid;
	fw->f = *f;
	f->mr = NULL;
	sroce_odp_queue_work(&fw->work);
}

/*
 * Run the engines of @qp in process context if nobody does, and resolve
 * the ODP faults they note (@f: one noted already): up to @faults of them
 * here, the rest on the ODP workqueue. Drops the caller's reference on
 * @qp.
 */
static void sroce_qp_run_process(struct sroce_qp *qp, struct sroce_odp_fault *f,
				 int faults)
{
	struct sroce_dev *sdev = qp->sdev;
	u64 uid = qp->uid;
	u32 qpn = qp->qpn;
	bool more;

	/* Busy: the owner was kicked and runs the engines again. */
	if (!f->mr && sroce_engine_tryget(qp)) {
		migrate_disable();	/* an unbound worker may move */
		more = sroce_qp_run_owned(qp, 64, false, f);
		migrate_enable();
		if (more)
			sroce_qp_schedule(qp);	/* fair to other QPs, or wrong CPU */
	}
	if (f->mr && (faults <= 0 || fatal_signal_pending(current))) {
		sroce_qp_fault_queue(qp, f);
		sroce_qp_put(qp);
		return;
	}
	sroce_qp_put(qp);
	if (f->mr)
		sroce_qp_fault_loop(sdev, qpn, uid, f, faults - 1);
}

/*
 * Either work item: run the responder if the QP is split, then the send
 * side (which runs a joined responder); drop the work's reference.
 */
static void sroce_qp_work_run(struct sroce_qp *qp)
{
	struct sroce_odp_fault f = {};

	sroce_qp_resp_side(qp, false);
	sroce_qp_run_process(qp, &f, 0);
}

void sroce_qp_work(struct work_struct *work)
{
	sroce_qp_work_run(container_of(work, struct sroce_qp, work));
}

void sroce_qp_unbound_work(struct work_struct *work)
{
	sroce_qp_work_run(container_of(work, struct sroce_qp, uwork));
}

/*
 * A softirq met an ODP fault of @qp (qp->sirq_defer): if it runs on top of
 * a doorbell caller, which is in a system call and may sleep, leave the
 * fault to it (sroce_qp_run_inline()), which resolves it in a few
 * microseconds where the work item would first need a wake-up and a
 * context switch (and, with need_resched set, would push the rest of the
 * softirq to ksoftirqd: most of what such a fault costs). Only a caller
 * of the process that owns the QP: another
 * process's post_send must not sleep on this one's memory (userfaultfd,
 * I/O, its memcg's reclaim). One QP per caller; others take the work
 * item. Softirq.
 */
static bool sroce_qp_fault_to_caller(struct sroce_qp *qp)
{
	struct sroce_doorbell_ctx *ctx = sroce_doorbell_here();

	if (!qp->owner_mm || !ctx ||
	    qp->owner_mm != current->mm)
		return false;
	if (ctx->fault_qp == qp)
		return true;
	if (ctx->fault_qp || !refcount_inc_not_zero(&qp->ref))
		return false;
	ctx->fault_qp = qp;
	return true;
}

/*
 * The doorbell caller runs the engines a softirq on top of it left
 * because of a fault (sroce_qp_fault_to_caller()), and resolves the
 * faults they note, as the work item would. Process context.
 */
static void sroce_qp_fault_run(struct sroce_qp *qp)
{
	struct sroce_odp_fault f = {};

	sroce_count(qp->sdev, SROCE_CNT_ODP_FAULT_IN_DOORBELL);
	sroce_qp_run_process(qp, &f, SROCE_DOORBELL_FAULTS);
}

/*
 * Run the engines here and now if nobody does; else the owner is kicked.
 * @streams: a doorbell caller whose QP streams (struct sroce_doorbell_ctx).
 */
static void sroce_qp_run_inline(struct sroce_qp *qp, bool softirq, bool streams)
{
	struct sroce_qp *fault_qp = NULL;
	struct sroce_odp_fault f = {};
	bool more;

	if (!READ_ONCE(inline_engines)) {
		sroce_qp_schedule(qp);
		return;
	}
	/* A fault is waiting for process context: the caller or work item. */
	if (softirq && READ_ONCE(qp->sirq_defer)) {
		/*
		 * Being resolved: its resolver schedules the work item. A
		 * request the peer sent again meanwhile is answered now.
		 */
		if (READ_ONCE(qp->odp_fault_pending)) {
			if (READ_ONCE(qp->held_resent))
				sroce_qp_schedule(qp);
			return;
		}
		if (!sroce_qp_fault_to_caller(qp))
			sroce_qp_schedule(qp);
		return;
	}
	if (!sroce_engine_tryget(qp))
		return;
	if (softirq) {
		more = sroce_qp_run_owned(qp, SROCE_SOFTIRQ_ROUNDS, true, NULL);
		if (more && READ_ONCE(qp->sirq_defer) &&
		    sroce_qp_fault_to_caller(qp))
			return;
	} else {
		struct sroce_doorbell_ctx ctx = {
			.task = current,
			.stream_qp = streams ? qp : NULL,
		};

		migrate_disable();
		this_cpu_write(sroce_doorbell, &ctx);
		/* A ping-pong's local deliveries are received right here. */
		if (!streams)
			sroce_loop_here_begin();
		more = sroce_qp_run_owned(qp, SROCE_DOORBELL_ROUNDS, false, &f);
		if (!streams)
			sroce_loop_here_end();
		/* Softirqs see the context only while the pointer names it. */
		this_cpu_cmpxchg(sroce_doorbell, &ctx, NULL);
		migrate_enable();
		fault_qp = ctx.fault_qp;
	}
	if (more)
		sroce_qp_schedule(qp);
	/* Its own QP's fault first: the caller's WQEs were posted first. */
	if (f.mr) {
		/* The caller's system call keeps the QP: a reference to drop. */
		refcount_inc(&qp->ref);
		sroce_qp_run_process(qp, &f, SROCE_DOORBELL_FAULTS);
	}
	if (fault_qp)
		sroce_qp_fault_run(fault_qp);
}

/* avg += (sample - avg) / 8 */
static void sroce_ewma(u64 *avg, u64 sample)
{
	u64 a = READ_ONCE(*avg);

	WRITE_ONCE(*avg, a - (a >> 3) + (sample >> 3));
}

/* The consumer indices of the QP's CQs, summed: moves when user space polls. */
static u32 sroce_qp_cqs_consumed(struct sroce_qp *qp)
{
	/* XRC: an initiator has no rcq (a target, which rings none, no scq) */
	return sroce_cq_user_cons(qp->scq) +
	       (qp->rcq && qp->rcq != qp->scq ? sroce_cq_user_cons(qp->rcq) : 0);
}

/*
 * Does the QP stream? Its caller posts again soon after each doorbell
 * returns without having taken a completion of the QP's CQs meanwhile, as
 * a bandwidth test or a pipeline does. A ping-pong waits for an answer
 * first: a completion it polls (a READ's, a receive's), or the peer's
 * WRITE into its memory, which makes the gap as long as the peer's
 * doorbell. Soon: the moving average of the gaps is under a quarter of
 * what a doorbell takes when it handles the peer's side too (only such
 * doorbells set that average, so that handing off, which shortens them,
 * does not end it).
 */
static bool sroce_qp_streams(struct sroce_qp *qp, u64 now, u32 consumed)
{
	u64 end = READ_ONCE(qp->db_end);

	if (!end || now < end)
		return false;
	sroce_ewma(&qp->db_gap, now - end);
	return consumed == READ_ONCE(qp->db_cqs_cons) &&
	       READ_ONCE(qp->db_gap) * 4 < READ_ONCE(qp->db_len);
}

/*
 * A user doorbell: the caller is a process in a system call, so it runs
 * the engines itself when nobody else does, as a NIC starts on its
 * doorbell: the WQEs it posted are on the wire before the call returns.
 */
void sroce_qp_doorbell(struct sroce_qp *qp)
{
	u32 consumed;
	u64 start, end;
	bool streams;

	might_sleep();
	/*
	 * Read once: the caller polls nothing while in this system call, so
	 * the indices at its end are these (another thread polling meanwhile
	 * only skews the guess).
	 */
	consumed = sroce_qp_cqs_consumed(qp);
	start = local_clock();
	streams = sroce_qp_streams(qp, start, consumed);
	sroce_qp_run_inline(qp, false, streams);
	end = local_clock();
	if (!streams)
		sroce_ewma(&qp->db_len, end - start);
	WRITE_ONCE(qp->db_cqs_cons, consumed);
	WRITE_ONCE(qp->db_end, end);
}

/*
 * Does a received packet (@mask: its opcode's SROCE_M_*) go to an unbound
 * worker rather than through the engines here? Only inside the doorbell of
 * a poster that streams (struct sroce_doorbell_ctx), never for the poster's own QP, and
 * only for a request that is a whole message by itself and asks for no
 * data back: an ATOMIC, a SEND or WRITE ONLY. Its cost is the overhead of
 * a message, which another CPU can overlap with the poster's next ones. A
 * message of several packets or a READ costs moving its bytes, cheaper on
 * this CPU, whose cache holds them (another CPU would fetch every byte
 * again). Softirq.
 */
static bool sroce_qp_rx_handoff(struct sroce_qp *qp, u32 mask)
{
	struct sroce_doorbell_ctx *ctx;

	if ((mask & (SROCE_M_REQ | SROCE_M_ONLY | SROCE_M_READ)) !=
	    (SROCE_M_REQ | SROCE_M_ONLY))
		return false;
	ctx = sroce_doorbell_here();
	return ctx && ctx->stream_qp && ctx->stream_qp != qp;
}

/*
 * Hand a packet that passed its QP's checks (sroce_recv.c) to the QP's
 * engines: queue it for the responder (requests) or the completer, then
 * run the engines here, or wake a worker for them. Caller holds a
 * reference on @qp. Softirq.
 */
void sroce_qp_deliver(struct sroce_qp *qp, struct sk_buff *skb)
{
	const struct sroce_pkt *pkt = sroce_pkt(skb);
	bool req = pkt->mask & SROCE_M_REQ;
	struct sk_buff_head *q = req ? &qp->rx_req : &qp->rx_resp;

	/* A peer flooding a QP whose engines cannot run must not grow it. */
	if (skb_queue_len_lockless(q) >= SROCE_MAX_RX_QUEUE) {
		sroce_count(qp->sdev, SROCE_CNT_DROP_RX_QUEUE_FULL);
		kfree_skb(skb);
	} else {
		bool handoff = sroce_qp_rx_handoff(qp, pkt->mask);

		/*
		 * A request at or before the next one expected while the
		 * engines wait on a fault: the peer's ACK timer ran out
		 * (epsn: a hint, the responder looks again).
		 */
		if (req && !READ_ONCE(qp->split) &&
		    READ_ONCE(qp->sirq_defer) && sroce_qp_reliable(qp) &&
		    psn_resp_diff(pkt->psn, READ_ONCE(qp->resp.epsn)) <= 0)
			WRITE_ONCE(qp->held_resent, true);
		skb_queue_tail(q, skb);
		if (handoff) {
			sroce_count(qp->sdev, SROCE_CNT_RX_HANDOFF);
			sroce_qp_schedule_unbound(qp);
			return;
		}
	}
	/* A request goes to the responder alone, unless the QP is joined. */
	if (req && READ_ONCE(inline_engines) && sroce_qp_resp_side(qp, true))
		return;
	sroce_qp_run_inline(qp, true, false);
}
