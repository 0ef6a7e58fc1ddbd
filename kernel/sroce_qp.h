/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * sroce queue pairs: the object, its verbs, and its three engines
 * (completer, responder, requester).
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
 *   qp->engine_lock (spinlock, IRQ-safe): engine_busy, engine_kick,
 *     engine_waiters; held only to change owner, never while running.
 * References: qp->ref is held by a lookup while it delivers one packet
 * (not by the packets left queued), by a queued work item and by a
 * doorbell caller that took a fault over; destroy waits for it to drop.
 * The timers hold none: their callback tries to take one.
 */
#ifndef SROCE_QP_H
#define SROCE_QP_H

#include <linux/hrtimer.h>
#include <linux/refcount.h>
#include <linux/skbuff.h>
#include <linux/wait.h>
#include <linux/workqueue.h>
#include <rdma/ib_verbs.h>
#include <rdma/sroce-abi.h>

#include "sroce.h"
#include "sroce_exec.h"
#include "sroce_net.h"
#include "sroce_ring.h"
#include "sroce_srq.h"
#include "sroce_pkt.h"
#include "parse.h"
#include "qp_fsm.h"
#include "qp_type.h"
#include "sendwin.h"

#define SROCE_MAX_SGE_HARD 32	/* == SROCE_MAX_SGE, usable in array sizes */

struct sroce_cq;
struct sroce_mr;

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
};

/*
 * Kernel copy of a send WQE: user space cannot change it once taken. The
 * WQE's SGEs or inline data follow the struct (qp->swqe_size bytes each).
 */
struct sroce_swqe {
	u32 status;			/* IB_WC_* when done */
	u32 first_psn;
	u32 last_psn;
	u32 npkts;
	u64 length;			/* total payload bytes */
	u8 state;			/* enum sroce_swqe_state */
	u8 kind;			/* enum sroce_wr_kind */
	bool signaled;
	struct sroce_send_wqe wqe;	/* last: the ring slot's header */
};

/* SROCE_WRF_* facts of a send WQE's kind (core/opcode.c). */
static inline u8 sroce_swqe_flags(const struct sroce_swqe *sw)
{
	return sroce_wr_kind_flags(sw->kind);
}

/* A READ or an ATOMIC: takes one of max_rd_atomic (R2.7). */
static inline bool sroce_swqe_rd_atomic(const struct sroce_swqe *sw)
{
	return sroce_swqe_flags(sw) & SROCE_WRF_RD_ATOMIC;
}

enum sroce_swqe_state {
	SROCE_SWQE_POSTED,		/* taken from the ring, nothing sent */
	SROCE_SWQE_SENDING,		/* some packets sent */
	SROCE_SWQE_SENT,		/* all sent, waiting for ACK/response */
	SROCE_SWQE_DONE,		/* completed (CQE written if signaled) */
};

/* Requester: which WQE and byte go out next. Engine owner only. */
struct sroce_req {
	u32 head;			/* next SQ ring index to copy in */
	u32 cur;			/* WQE being sent (ring index) */
	u64 offset;			/* bytes of it already sent */
	u32 psn;			/* PSN of the next packet */
	u32 psn_new;			/* first PSN never sent (RC) */
	u32 rd_atomic;			/* READ/ATOMIC in flight */
	bool need_retry;		/* go back to comp.psn */
	bool nak_rewind;		/* ... because of a sequence NAK */
	bool copy_next;			/* send the restart packet twice */
	bool rnr_wait;
	u32 noack_pkts;			/* packets since the last AckReq */
	/* RC: how many PSNs may be unacknowledged (the completer adapts it) */
	struct sroce_sendwin win;
	/*
	 * End-to-end credits (R2.10): the responder had @credits receive
	 * WQEs free beyond the message it acknowledged at @credit_psn;
	 * SROCE_CREDITS_UNLIMITED when it sends none (SRQ). Set by the
	 * completer from ACKs.
	 */
	u32 credits;
	u32 credit_psn;
};

/* Responder READ/ATOMIC resource (seed-rules R2.6, R2.7). */
struct sroce_rd_res {
	u8 opcode;			/* READ REQUEST or an ATOMIC, 0 = free */
	u32 first_psn;
	u32 last_psn;
	u32 cur_psn;			/* READ: next response PSN to send */
	u64 va;
	u32 rkey;
	u32 length;
	u32 sent;			/* READ: bytes already sent */
	u64 orig;			/* ATOMIC: value before the operation */
};

/* Responder. Engine owner only. */
struct sroce_resp {
	u32 epsn;			/* expected PSN */
	u32 msn;
	bool nak_sent;			/* sequence NAK sent for this gap */
	bool ack_pending;
	u32 ack_psn;
	bool have_wqe;			/* a receive WQE is in use */
	struct sroce_recv_wqe rwqe;
	struct sroce_sge rsge[SROCE_MAX_SGE_HARD];
	u32 roffset;			/* bytes received into it */
	/*
	 * Current RDMA WRITE. No MR is held between its packets: each one
	 * looks its R_Key up again (sroce_resp.c).
	 */
	u32 wrkey;
	u64 wva;
	u32 wleft;
	u32 wlen;			/* the WRITE's total length (RETH) */
	bool drop_msg;			/* UC: dropping the rest of a message */
	u32 in_msg;			/* SROCE_M_SEND/WRITE of a message in progress */
	/* READ/ATOMIC table, max_dest_rd_atomic entries */
	struct sroce_rd_res *res;
	u32 nres;
	u32 res_next;
	int serving;			/* index of a READ being served, or -1 */
	bool serving_dup;		/* ... and it is a duplicate (R2.6) */
	/* a queued READ/ATOMIC over max_dest_rd_atomic, failed in turn (R2.7) */
	bool rd_overflow;
	u32 rd_overflow_psn;
	/*
	 * sroce_resp_count_rd() walks rx_req again only when its answer may
	 * differ: rx_taken counts packets the responder took off rx_req
	 * (only it does, and a reset clears all this), so with rx_taken and
	 * the queue length unchanged rx_req holds the same packets from its
	 * head; rdc_* is what the last walk saw, rdc_valid that there was one.
	 */
	u32 rx_taken;
	bool rdc_valid;
	bool rdc_dup;
	u32 rdc_taken;
	u32 rdc_qlen;
	u32 rdc_epsn;
	u32 rdc_nres;
	u32 rdc_pmtu;
};

/* Completer. Engine owner only. */
struct sroce_comp {
	u32 psn;			/* oldest unacknowledged PSN */
	u32 tail;			/* oldest WQE not completed (ring index) */
	u8 retry_left;
	u8 rnr_left;
	bool timer_fired;
	bool rnr_fired;
	bool nak_valid;			/* nak_psn: sequence NAK acted on */
	u32 nak_psn;			/* cleared by progress */
};

/*
 * Packets a QP's receive queue (rx_req or rx_resp) holds while its engines
 * are busy elsewhere; more are dropped, as a NIC drops what its buffers
 * cannot take, and the peer's retransmission recovers them. Four send
 * windows, so that a peer within its window never meets it.
 */
#define SROCE_MAX_RX_QUEUE	(4 * SROCE_WIN_MAX)

struct sroce_qp {
	struct ib_qp ibqp;

	/* Constant after create. */
	struct sroce_dev *sdev;
	u32 qpn;
	/*
	 * Never the same for two QPs of the module's life (QPNs come back):
	 * what a type 2 window is bound to (sroce_mw.c). Never 0.
	 */
	u64 uid;
	enum sroce_qp_type type;	/* GSI runs as UD */
	bool is_gsi;
	bool is_user;
	bool sig_all;
	/*
	 * A user QP's creating process (mmgrab'ed, compared only): its
	 * doorbells may resolve the QP's ODP faults (sroce_exec.c).
	 */
	struct mm_struct *owner_mm;
	struct sroce_pd *pd;
	struct sroce_cq *scq;
	struct sroce_cq *rcq;
	struct sroce_srq *srq;
	struct sroce_ring sq;		/* kernel: consumer (producer too for kernel QPs) */
	struct sroce_rq rq;		/* own RQ, unless srq */
	bool has_rq;
	u32 sq_max_sge;
	u32 max_inline;
	u32 swqe_size;			/* bytes per qp->swqe entry */
	void *swqe;			/* kernel copies, one per SQ slot */

	refcount_t ref;
	struct completion released;
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
	 * Engine ownership (sroce_exec.c), under engine_lock: engine_busy
	 * while an owner runs them (or a verb holds them with
	 * sroce_engine_lock()); engine_kick asks the owner to run them once
	 * more; engine_waiters counts verbs sleeping on engine_wait.
	 */
	spinlock_t engine_lock;		/* owner changes only */
	bool engine_busy;
	bool engine_kick;
	int engine_waiters;
	wait_queue_head_t engine_wait;
	/* CPU + 1 of the last softirq run, 0 none: written by the owner. */
	int sirq_cpu;
	/*
	 * engine_defer (owner only): an engine stopped on an ODP fault it
	 * may not resolve in softirq. sirq_defer (READ/WRITE_ONCE): set then
	 * by the softirq owner, cleared by the next process-context owner;
	 * meanwhile the receive softirq leaves the engines to process
	 * context (the doorbell caller it runs on top of, or the work item).
	 */
	bool engine_defer;
	bool sirq_defer;

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
	u32 sq_seen;
	/* The SQ producer index was impossible once: ERROR, until RESET. */
	bool sq_broken;
	struct sk_buff_head rx_req;
	struct sk_buff_head rx_resp;
	struct sroce_hdrs rx_h;		/* headers of the packet being handled */
	struct sroce_req req;
	struct sroce_resp resp;
	struct sroce_comp comp;
	struct sroce_route route;	/* requester's and responder's */
	struct sroce_txbatch txb;	/* their packets, during one engine run */
	struct hrtimer ack_timer;
	struct hrtimer rnr_timer;
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

extern const struct ib_device_ops sroce_qp_ops;

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
	if (refcount_dec_and_test(&qp->ref))
		complete(&qp->released);
}

/* The transport field of the opcodes a QP accepts (GSI runs as UD). */
static inline enum sroce_transport sroce_qp_transport(const struct sroce_qp *qp)
{
	switch (qp->type) {
	case SROCE_QPT_RC:	return SROCE_TR_RC;
	case SROCE_QPT_UC:	return SROCE_TR_UC;
	default:		return SROCE_TR_UD;
	}
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

void sroce_qp_flush(struct sroce_qp *qp);

/* Error handling shared by the engines (sroce_qp.c). */
void sroce_qp_error(struct sroce_qp *qp, bool send_side,
		    enum ib_event_type event);
u32 sroce_sq_prod(struct sroce_qp *qp);

/* Engines. Each returns true if it made progress. */
bool sroce_req_run(struct sroce_qp *qp);
bool sroce_resp_run(struct sroce_qp *qp);
void sroce_resp_flush_wqe(struct sroce_qp *qp);
bool sroce_comp_run(struct sroce_qp *qp);
void sroce_req_reset(struct sroce_qp *qp);
void sroce_req_reset_credits(struct sroce_qp *qp);
void sroce_resp_reset(struct sroce_qp *qp);
void sroce_comp_reset(struct sroce_qp *qp);
void sroce_resp_free(struct sroce_qp *qp);
int sroce_resp_alloc(struct sroce_qp *qp, u32 nres);
void sroce_comp_arm_timer(struct sroce_qp *qp, bool restart);
/* IB_WR_* <-> kind <-> IB_WC_* (SROCE_WR_KIND_LIST, sroce_qp.c). */
int sroce_wr_kind_of(u32 ib_wr_opcode);
u32 sroce_wc_opcode(const struct sroce_swqe *sw);

/*
 * An ODP access returned -EWOULDBLOCK (a page fault in softirq): the
 * engine has undone what the packet or WQE changed and stops there; the
 * engines go on in process context, which may fault: the doorbell caller
 * the softirq ran on top of, or the QP's work item (sroce_exec.c).
 */
static inline void sroce_qp_defer(struct sroce_qp *qp)
{
	qp->engine_defer = true;
}

static inline bool sroce_qp_deferred(const struct sroce_qp *qp)
{
	return qp->engine_defer;
}

#endif /* SROCE_QP_H */
