/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * sroce QP engines: the requester (sroce_req.c), the responder
 * (sroce_resp.c) and the completer (sroce_comp.c). Their state, embedded
 * in struct sroce_qp, and their entry points.
 *
 * The engine state is touched only by the owner of the QP's engines
 * (sroce_exec.c), or by modify_qp while it holds them exclusively: no
 * lock. The completer changes the requester's state only through the
 * sroce_req_*() hooks below (inline: they run for every ACK), and
 * starts or stops the requester's timers through sroce_req.c; the
 * requester does not call the completer.
 */
#ifndef SROCE_ENGINE_H
#define SROCE_ENGINE_H

#include <linux/types.h>
#include <rdma/sroce-abi.h>

#include "aeth.h"
#include "opcode.h"
#include "psn.h"
#include "sendwin.h"

#define SROCE_MAX_SGE_HARD 32	/* == SROCE_MAX_SGE, usable in array sizes */

struct sk_buff;
struct sroce_mr;
struct sroce_qp;
struct sroce_srq;

/*
 * An ODP fault an engine met. The engines never sleep on one: the access
 * returns -EWOULDBLOCK, the engine leaves its packet or WQE as it was and
 * notes the fault here (sroce_odp_fault_note()); process context resolves it
 * with no engine owned and no reference on the QP (sroce_exec.c), so that
 * a fault that takes as long as the process likes (a page of a FUSE file
 * or under userfaultfd) holds up no verb on the QP. @mr: a reference, NULL
 * when nothing is noted. @ahead: bytes after the access that its operation
 * goes on to (sroce_odp_fault_ahead()), mapped with it if they can be.
 * @failed: the range could not be mapped; the access meeting it again
 * fails (-EFAULT) instead of noting it again.
 */
struct sroce_odp_fault {
	struct sroce_mr *mr;
	u64 iova;
	u64 len;
	u64 ahead;
	bool write;
	bool failed;
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
static inline u16 sroce_swqe_flags(const struct sroce_swqe *sw)
{
	return sroce_wr_kind_flags(sw->kind);
}

/* READ, ATOMIC, FLUSH, ATOMIC WRITE: take one of max_rd_atomic (R2.7). */
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
	u32 xrc_srqn;			/* XRC target: the request's XRC SRQ */
};

/* Responder. Engine owner only. */
struct sroce_resp {
	u32 epsn;			/* expected PSN */
	u32 msn;
	bool nak_sent;			/* sequence NAK sent for this gap */
	bool ack_pending;
	u32 ack_psn;
	bool have_wqe;			/* a receive WQE is in use */
	/*
	 * XRC target: the XRC SRQ of the request or READ at hand, with a
	 * reference, for one packet (sroce_resp_xrc_enter/leave); the one
	 * the message in progress named; the one the WQE in use came from.
	 */
	struct sroce_srq *xsrq;
	u32 msg_srqn;
	u32 wqe_srqn;
	struct sroce_recv_wqe rwqe;	/* its SGEs: qp->rsge */
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
	bool went_back;			/* a gap acted on; cleared by progress */
	bool nak_seen;			/* nak_psn valid: until comp.psn passes it */
	u32 nak_psn;			/* the latest sequence NAK's PSN */
};

/*
 * Requester state that the completer changes (engine owner only). The
 * requester acts on it in its next run (sroce_req_run()).
 */

/* comp.psn moved from @una to @next: the send window grows. */
static inline void sroce_req_acked(struct sroce_req *req, u32 una, u32 next)
{
	sroce_sendwin_acked(&req->win, una, next);
}

/* Go back to comp.psn in the next run (go-back-N, R2.5). */
static inline void sroce_req_retry(struct sroce_req *req)
{
	req->need_retry = true;
}

/* A response came: the go-back an earlier ACK asked for is not needed. */
static inline void sroce_req_answered(struct sroce_req *req)
{
	req->need_retry = false;
}

/* A READ or ATOMIC got its last response: one more may go (R2.7). */
static inline void sroce_req_rd_atomic_done(struct sroce_req *req)
{
	req->rd_atomic--;
}

/* An ACK's credit count (R2.10), unless an older ACK than the last. */
static inline void sroce_req_credits(struct sroce_req *req, u32 psn, u8 code)
{
	if (psn_before(psn, req->credit_psn))
		return;
	req->credit_psn = psn;
	req->credits = sroce_credits_from_code(code);
}

/*
 * A sequence NAK of @psn acted on: resend from comp.psn at once (R2.5),
 * the restart packet twice; the window shrinks once per loss episode.
 */
static inline void sroce_req_seq_nak(struct sroce_req *req, u32 psn)
{
	sroce_sendwin_nak(&req->win, psn, req->psn_new);
	req->need_retry = true;
	req->nak_rewind = true;
}

/* The local ACK timer expired with retries left (R2.2). */
static inline void sroce_req_timed_out(struct sroce_req *req)
{
	req->need_retry = true;
	sroce_sendwin_timeout(&req->win, req->psn_new);
}

/* The RNR wait is over: resend from comp.psn (R2.4). */
static inline void sroce_req_rnr_done(struct sroce_req *req)
{
	req->rnr_wait = false;
	req->need_retry = true;
}

/* Every WQE up to @tail flushed (R3.3): nothing left to send or count. */
static inline void sroce_req_flushed(struct sroce_req *req, u32 tail)
{
	req->head = tail;
	req->cur = tail;
	req->rd_atomic = 0;
}

/* sroce_req.c */
bool sroce_req_run(struct sroce_qp *qp);
void sroce_req_reset(struct sroce_qp *qp);
void sroce_req_start(struct sroce_qp *qp);
void sroce_req_arm_timer(struct sroce_qp *qp, bool restart);
void sroce_req_rnr_wait(struct sroce_qp *qp, u64 ns);
/* IB_WR_* -> WR kind (SROCE_WR_KIND_LIST), or -EINVAL. */
int sroce_wr_kind_of(u32 ib_wr_opcode);

/* sroce_resp.c */
bool sroce_resp_run(struct sroce_qp *qp);
void sroce_resp_reset(struct sroce_qp *qp);
void sroce_resp_start(struct sroce_qp *qp);
int sroce_resp_alloc(struct sroce_qp *qp, u32 nres);
void sroce_resp_free(struct sroce_qp *qp);
void sroce_resp_flush(struct sroce_qp *qp);

/* sroce_comp.c */
bool sroce_comp_run(struct sroce_qp *qp);
void sroce_comp_init_timers(struct sroce_qp *qp);
void sroce_comp_reset(struct sroce_qp *qp);
void sroce_comp_start(struct sroce_qp *qp);
void sroce_comp_flush(struct sroce_qp *qp);

#endif /* SROCE_ENGINE_H */
