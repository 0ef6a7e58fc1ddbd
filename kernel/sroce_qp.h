/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * sroce queue pairs: the object, and the helpers the receive path, the
 * scheduler and the engines share. The verbs are sroce_qp_verbs.c, the
 * errors sroce_qp_err.c, the engines' state and entry points
 * sroce_engine.h. Below every layer that uses it: it includes the state
 * it embeds (engines, transmit route and batch, rings) and nothing above.
 *
 * Execution model (sroce_exec.c). One context at a time owns a QP's
 * engines and runs them: the completer (ACKs and responses received),
 * the responder (requests received), then the requester (new packets
 * from the SQ), looping until none has work. The owner is the receive
 * softirq, a process ringing a doorbell or the QP's work item; a context
 * that finds an owner kicks it to run once more. So the engine state
 * (struct sroce_req/resp/comp) needs no lock: only the owner touches it.
 * Timers only set a flag and schedule the work item.
 *
 * Locks (Documentation/locking.md):
 *   qp->state_lock (spinlock, BH-safe; irqsave in sroce_qp_error):
 *     qp->state and qp->attr as modify_qp and query_qp see them, and the
 *     state change of an error. Taken by verbs, and by the engines only
 *     through sroce_qp_error(). The engines read qp->attr without it:
 *     modify_qp writes it only while it holds the engines exclusively.
 *   qp->rx_req / qp->rx_resp: sk_buff_head locks.
 *   qp->engine_lock (spinlock, IRQ-safe): send_owner, resp_owner,
 *     engine_waiters, split, unsplit; held only to change owner, never
 *     while running.
 * References: qp->ref is held by a lookup while it delivers one packet
 * (not by the packets left queued), by a queued work item and by a
 * doorbell caller that took a fault over; destroy waits for it to drop.
 * The timers hold none: their callback tries to take one.
 */
#ifndef SROCE_QP_H
#define SROCE_QP_H

#include <linux/hrtimer.h>
#include <linux/netdevice.h>
#include <linux/refcount.h>
#include <linux/skbuff.h>
#include <linux/wait.h>
#include <linux/workqueue.h>
#include <rdma/ib_verbs.h>
#include <rdma/sroce-abi.h>

#include "sroce.h"
#include "sroce_engine.h"
#include "sroce_qp_stats.h"
#include "sroce_ref.h"
#include "sroce_xmit.h"
#include "sroce_ring.h"
#include "sroce_srq.h"
#include "parse.h"
#include "qp_fsm.h"
#include "qp_type.h"
#include "sendwin.h"

struct sroce_cq;
struct sroce_mr;
struct sroce_qp_binding;
struct sroce_rp;

/*
 * Attributes set by modify_qp, under state_lock and with the engines held
 * exclusively (sroce_engine_lock), so the engines read them unlocked.
 */
struct sroce_qp_attr {
	u32 pmtu;			/* path MTU in bytes */
	enum ib_mtu path_mtu;
	u32 dest_qpn;
	u32 qkey;
	int access;			/* IB_ACCESS_REMOTE_* allowed to peers */
	u8 timeout;			/* 5-bit local ACK timeout code */
	u8 retry_cnt;
	u8 rnr_retry;
	u8 min_rnr_timer;
	u8 max_rd_atomic;		/* requester: READ/ATOMIC in flight */
	u8 max_dest_rd_atomic;		/* responder: table size */
	u16 pkey_index;
	u32 sq_psn;
	u32 rq_psn;
	struct rdma_ah_attr ah_attr;	/* primary path (RC/UC) */
	struct sroce_av av;		/* resolved from ah_attr */
	u16 udp_sport;
	bool en_sqd_async_notify;
	u32 line_mbps;			/* the netdev's speed at RTS (sroce_cc.c) */
};

/*
 * Packets a QP's receive queue (rx_req or rx_resp) holds while its engines
 * are busy elsewhere; more are dropped, as a NIC drops what its buffers
 * cannot take, and the peer's retransmission recovers them. One full send
 * window, so that a peer within its window never meets it.
 */
#define SROCE_MAX_RX_QUEUE	SROCE_WIN_MAX

/*
 * One side of a QP's engines (sroce_exec.c), under qp->engine_lock: busy
 * while a context runs it (or a verb holds it, sroce_engine_lock()); kick
 * asks that context to run it once more before it lets go.
 */
struct sroce_owner {
	bool busy;
	bool kick;
};

/*
 * The core allocates struct sroce_qp with kzalloc: up to 2 KiB it comes
 * from kmalloc-2k, a byte more from kmalloc-4k, and a QP would cost more
 * kernel memory than one of rdma_rxe (Documentation/performance.md,
 * "Scale and object costs"). It is 1984 bytes on Debian 13's kernel and
 * 2032 on Linux 7.3, whose struct ib_qp is larger: state that not every
 * QP needs goes out of line, as DCQCN's does (struct sroce_rp). Debug
 * kernels (lockdep) make it larger anyway.
 */
struct sroce_qp {
	struct ib_qp ibqp;

	/* Constant after create. */
	struct sroce_dev *sdev;
	u32 qpn;
	enum sroce_qp_type type;	/* GSI runs as UD */
	/*
	 * Never the same for two QPs of the module's life (QPNs come back):
	 * what a type 2 window is bound to (sroce_mw.c). Never 0.
	 */
	u64 uid;
	bool is_gsi;
	bool is_user;
	bool sig_all;
	bool has_rq;
	/*
	 * A user QP's creating process (mmgrab'ed, compared only): its
	 * doorbells may resolve the QP's ODP faults (sroce_exec.c).
	 */
	struct mm_struct *owner_mm;
	struct sroce_pd *pd;		/* NULL: XRC target */
	struct sroce_cq *scq;		/* NULL: XRC target */
	struct sroce_cq *rcq;		/* NULL: XRC initiator and target */
	struct sroce_srq *srq;
	/* XRC target: its domain, whose XRC SRQs it takes WQEs from. */
	struct ib_xrcd *xrcd;
	struct sroce_ring sq;		/* kernel: consumer (producer too for kernel QPs) */
	struct sroce_rq rq;		/* own RQ, unless srq */
	/*
	 * The SGEs of the receive WQE in use (resp.rwqe; engine owner only),
	 * room for the most any queue the QP takes WQEs from allows:
	 * allocated at create, not embedded, as most QPs take one or two.
	 */
	struct sroce_sge *rsge;
	u32 rsge_cap;
	u32 sq_max_sge;
	u32 max_inline;
	u32 swqe_size;			/* bytes per qp->swqe entry */
	void *swqe;			/* kernel copies, one per SQ slot */

	/* destroy_qp waits for it to reach 0 (wait_var_event()). */
	refcount_t ref;
	atomic_t mcast_groups;		/* groups attached to (sroce_mcast.c) */

	/*
	 * state and attr: written under state_lock (destroy_qp also sets
	 * state once the QP left the table); state is read locklessly with
	 * READ_ONCE by the receive path and the post verbs. comm_est_sent and
	 * sqd_event_pending belong to whoever owns the engines (the owner,
	 * or modify_qp holding them exclusively), not to state_lock.
	 */
	spinlock_t state_lock;
	enum ib_qp_state state;
	struct sroce_qp_attr attr;
	bool comm_est_sent;		/* once per RTR entry (R3.9) */
	bool sqd_event_pending;

	/* Kernel QPs: serialises post_send callers (producer side of the SQ). */
	spinlock_t sq_lock;
	void **kptr;			/* per SQ slot: AH or MR of a kernel WR */

	/*
	 * Engine ownership (sroce_exec.c), under engine_lock: the send side
	 * (completer, requester) and the responder each have an owner
	 * (struct sroce_owner), so that a QP answers a request on one CPU
	 * while it sends on another; engine_waiters counts verbs sleeping on
	 * engine_wait for both (sroce_engine_lock()). split (READ_ONCE;
	 * written under engine_lock by an owner of both) is set at creation
	 * and cleared for good when the responder meets an ODP fault (unsplit,
	 * READ/WRITE_ONCE, asks for that): the send side's owner then runs the
	 * responder too, and its fault hand-back covers all three engines.
	 * resp_run_mark: as run_mark, for the responder's runs.
	 */
	spinlock_t engine_lock;		/* owner changes only */
	struct sroce_owner send_owner;
	struct sroce_owner resp_owner;
	bool split;
	bool unsplit;
	int engine_waiters;
	u64 resp_run_mark;
	/*
	 * Where the last run sent from (sroce_run_mark()), 0 none: written
	 * by the owner, read locklessly by any CPU choosing where the
	 * engines run (a hint).
	 */
	u64 run_mark;
	wait_queue_head_t engine_wait;
	/*
	 * engine_defer (owner only): an engine stopped on an ODP fault,
	 * noted in odp_fault (owner only). sirq_defer (READ/WRITE_ONCE): set
	 * then by the owner, cleared by the next process-context owner once
	 * no fault is pending; meanwhile the receive softirq leaves the
	 * engines to process context (the doorbell caller it runs on top
	 * of, or the work item). Under engine_lock: odp_fault_pending while a
	 * noted fault is resolved outside the engines (sroce_exec.c), and
	 * odp_fault_failed, one that could not be, handed back to the engines.
	 * held_resent (READ/WRITE_ONCE): set by the receive softirq when a
	 * request comes again while the engines wait on a fault, cleared by
	 * the responder, which answers it (sroce_resp_held_resent()).
	 */
	bool engine_defer;
	bool sirq_defer;
	bool odp_fault_pending;
	bool held_resent;
	/* A split responder's own: it never resolves it (unsplit instead). */
	bool resp_defer;
	struct sroce_odp_fault resp_fault;
	struct sroce_odp_fault odp_fault;
	struct sroce_odp_fault odp_fault_failed;

	/* Engines: touched only by their owner. */
	struct work_struct work;
	/* The same on the unbound workqueue (sroce_qp_schedule_unbound()). */
	struct work_struct uwork;
	/*
	 * Doorbells (sroce_qp_streams()): when the last one returned, moving
	 * averages of how long one took while handling the peer's side too
	 * and of the gaps between them (ns), and the CQs' consumer indices
	 * then. Doorbell callers only (READ/WRITE_ONCE: two posting threads
	 * may race, which only skews the guess).
	 */
	u64 db_end;
	u64 db_len;
	u64 db_gap;
	u32 db_cqs_cons;
	/* SQ doorbell suppression (sroce_exec.c): engines_active set, prod then. */
	bool sq_active;
	/* The SQ producer index was impossible once: ERROR, until RESET. */
	bool sq_broken;
	u32 sq_seen;
	struct sk_buff_head rx_req;
	struct sk_buff_head rx_resp;
	struct sroce_req req;
	struct sroce_resp resp;
	struct sroce_comp comp;
	struct sroce_route route;	/* the requester's and completer's */
	struct sroce_txbatch txb;	/* their packets, during one engine run */
	struct sroce_route rroute;	/* the responder's */
	struct sroce_txbatch rtxb;
	struct hrtimer ack_timer;
	struct hrtimer rnr_timer;
	/* DCQCN's reaction point (sroce_cc.h); NULL: a QP that has none. */
	struct sroce_rp *rp;

	/*
	 * ECN notification point (sroce_recv.c): when this QP last sent a
	 * CNP (ns, ktime_get_ns(); 0 never). Any receive context, on any
	 * CPU, for any packet of the QP: only atomic64_try_cmpxchg() moves
	 * it, so one CPU alone wins each interval.
	 */
	atomic64_t np_cnp_last;

	/*
	 * Counters (sroce_qp_stats.h): the send side's owner writes stats,
	 * the responder's owner rstats; a reader adds them up.
	 */
	struct sroce_qp_stats stats;
	struct sroce_qp_stats rstats;
	/*
	 * While the QP is bound to an rdma_counter (ibqp.counter;
	 * sroce_stats.c): its place in the counter's list and its counts when
	 * it was bound. Under that counter's lock (the core's
	 * rdma_counter.lock, held around bind, unbind and update_stats).
	 */
	struct sroce_qp_binding *binding;
};

static inline struct sroce_qp *to_sroce_qp(struct ib_qp *ibqp)
{
	return container_of(ibqp, struct sroce_qp, ibqp);
}

#define sroce_dbg_qp(qp, fmt, ...) do {					\
	const struct sroce_qp *__dq = (qp);				\
									\
	ibdev_dbg(&__dq->sdev->ibdev, "qp#%u %s: " fmt, __dq->qpn,	\
		  __func__, ##__VA_ARGS__);				\
} while (0)

/**
 * sroce_qp_get - look a QP up by number for the receive path
 * @sdev: the device
 * @qpn: the QP number
 *
 * Returns the QP with a reference (drop it with sroce_qp_put()), or NULL.
 * Any context. The reference is taken under the xarray's lock, which
 * destroy_qp's erase also takes: once the erase returns, no lookup can
 * still hold the pointer without a reference, so destroy waits only for
 * references (the QP's memory is freed by the core with no RCU grace
 * period after destroy_qp returns). Inline: once per received packet.
 */
static inline struct sroce_qp *sroce_qp_get(struct sroce_dev *sdev, u32 qpn)
{
	struct sroce_qp *qp;
	unsigned long flags;

	xa_lock_irqsave(&sdev->qp_xa, flags);
	qp = xa_load(&sdev->qp_xa, qpn);
	if (qp && !refcount_inc_not_zero(&qp->ref))
		qp = NULL;
	xa_unlock_irqrestore(&sdev->qp_xa, flags);
	return qp;
}

static inline void sroce_qp_put(struct sroce_qp *qp)
{
	sroce_ref_put(&qp->ref);
}

/*
 * Reliable connected: an RC QP, or either end of XRC (the initiator is an
 * RC requester, the target an RC responder). ACKs, retransmission,
 * duplicates and NAKs are theirs.
 */
static inline bool sroce_qp_reliable(const struct sroce_qp *qp)
{
	return qp->type == SROCE_QPT_RC || qp->type == SROCE_QPT_XRC_INI ||
	       qp->type == SROCE_QPT_XRC_TGT;
}

/* Does the QP's state allow all of @caps (SROCE_QPCAP_*)? Lockless. */
static inline bool sroce_qp_caps(struct sroce_qp *qp, u32 caps)
{
	return (sroce_qp_state_caps((enum sroce_qp_state)READ_ONCE(qp->state)) &
		caps) == caps;
}

/* The kernel copy of the send WQE of SQ ring index @index. */
static inline struct sroce_swqe *sroce_swqe_at(struct sroce_qp *qp, u32 index)
{
	return qp->swqe + (size_t)(index & qp->sq.mask) * qp->swqe_size;
}

/* Release SQ slots up to @tail (completed WQEs) to the producer. */
static inline void sroce_sq_release(struct sroce_qp *qp, u32 tail)
{
	while (qp->sq.cons != tail)
		sroce_ring_cons_advance(&qp->sq);
}

/* Count @n of per-QP counter @c; the caller owns the QP's send side. */
static inline void sroce_qp_count(struct sroce_qp *qp,
				  enum sroce_qp_counter c, u64 n)
{
	sroce_qp_stats_add(&qp->stats, c, n);
}

/* The same for the owner of the QP's responder (its own counters). */
static inline void sroce_resp_count(struct sroce_qp *qp,
				    enum sroce_qp_counter c, u64 n)
{
	sroce_qp_stats_add(&qp->rstats, c, n);
}

/* Errors, shared by the verbs and the engines (sroce_qp_err.c). */
void sroce_qp_error(struct sroce_qp *qp, bool send_side,
		    enum ib_event_type event);
void sroce_qp_event(struct sroce_qp *qp, enum ib_event_type type);
void sroce_qp_set_flush_flags(struct sroce_qp *qp);
u32 sroce_sq_prod(struct sroce_qp *qp);

/*
 * An ODP access returned -EWOULDBLOCK and the fault is noted in qp->odp_fault
 * (sroce_odp_fault_note()): the engine has undone what the packet or WQE
 * changed and stops there; process context resolves the fault and the
 * engines go on (sroce_exec.c).
 */
static inline void sroce_qp_defer(struct sroce_qp *qp)
{
	qp->engine_defer = true;
}

static inline bool sroce_qp_deferred(const struct sroce_qp *qp)
{
	return qp->engine_defer;
}

/*
 * The same for the responder, and its fault note: its own while it has
 * an owner of its own (qp->split), else the QP's. Responder's owner.
 */
static inline struct sroce_odp_fault *sroce_resp_fault(struct sroce_qp *qp)
{
	return READ_ONCE(qp->split) ? &qp->resp_fault : &qp->odp_fault;
}

static inline void sroce_resp_defer(struct sroce_qp *qp)
{
	if (READ_ONCE(qp->split))
		qp->resp_defer = true;
	else
		qp->engine_defer = true;
}

static inline bool sroce_resp_deferred(const struct sroce_qp *qp)
{
	return READ_ONCE(qp->split) ? qp->resp_defer : qp->engine_defer;
}

/*
 * The mark of a run that ends on @cpu (struct sroce_qp, run_mark): the
 * CPU, and how many packets its backlog (the per-CPU receive queue that
 * veth and loopback feed) has taken so far, those of the run included.
 */
static inline u64 sroce_run_mark(int cpu)
{
	u32 tail = 0;

#ifdef CONFIG_RPS
	tail = READ_ONCE(per_cpu(softnet_data, cpu).input_queue_tail);
#endif
	return (u64)(cpu + 1) << 32 | tail;
}

/*
 * The CPU of run mark @mark while the packets that run sent may still be
 * on their way through its backlog, or -1. The backlog's input_queue_head
 * passes the mark's tail once the receive of every packet queued before
 * has returned, so the packet being received is covered too (without
 * CONFIG_RPS only the packets still queued are). Lockless peek: a stale
 * answer costs a detour through that CPU or, rarely, a reordered packet
 * that the protocol recovers like a lost one.
 */
static inline int sroce_run_mark_cpu(u64 mark)
{
	int cpu = (int)(mark >> 32) - 1;
	struct softnet_data *sd;

	if (cpu < 0)
		return -1;
	sd = &per_cpu(softnet_data, cpu);
#ifdef CONFIG_RPS
	return (int)(READ_ONCE(sd->input_queue_head) - (u32)mark) < 0 ?
	       cpu : -1;
#else
	return skb_queue_empty_lockless(&sd->input_pkt_queue) &&
	       skb_queue_empty_lockless(&sd->process_queue) ? -1 : cpu;
#endif
}

/* The CPU whose backlog may hold packets of the QP's last run, or -1. */
static inline int sroce_qp_pinned_cpu(struct sroce_qp *qp)
{
	return sroce_run_mark_cpu(READ_ONCE(qp->run_mark));
}

#endif /* SROCE_QP_H */
