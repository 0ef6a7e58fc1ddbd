/* SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause */
/*
 * libsroce queue pairs: create/modify/query/destroy, ibv_post_send,
 * ibv_post_recv and the ibv_qp_ex send builders. Documentation/provider.md
 * describes the ring protocol and the doorbells the kernel must match.
 */
#ifndef SROCE_QP_H
#define SROCE_QP_H

#include <pthread.h>
#include <infiniband/driver.h>

#include "sroce.h"
#include "sroce_ring.h"
#include "sroce_wqe.h"

struct sroce_qp {
	struct verbs_qp vqp;

	/*
	 * Send queue. sq_lock protects sq.prod and the ibv_qp_ex batch state
	 * (ex_*), which lives from wr_start() to wr_complete()/wr_abort()
	 * with the lock held. sq.hdr->cons is the kernel's, read with acquire.
	 */
	pthread_spinlock_t sq_lock;
	struct sroce_uring sq;
	struct sroce_sq_caps caps;	/* constant after create */
	uint32_t ex_prod;		/* next slot of the batch */
	int ex_err;			/* first error of the batch */
	struct sroce_send_wqe *ex_wqe;	/* WQE being built */
	void *ex_scratch;		/* built into after an error: one slot */

	/* Receive queue (no ring when the QP uses an SRQ). rq_lock: rq.prod. */
	pthread_spinlock_t rq_lock;
	struct sroce_uring rq;
	uint32_t rq_max_sge;		/* constant after create */

	/*
	 * In RESET, or being moved there: posts are refused (seed-rules
	 * R3.8). ibqp->state alone would let a post race the move, as
	 * libibverbs sets it only after modify_qp returns: the WR would go
	 * into the rings the kernel is zeroing and come back to life at the
	 * next RTS. Written with sq_lock and rq_lock held, read with either.
	 */
	bool in_reset;
};

static inline struct sroce_qp *to_sqp(struct ibv_qp *ibqp)
{
	return container_of(ibqp, struct sroce_qp, vqp.qp);
}

static inline struct sroce_qp *ex_to_sqp(struct ibv_qp_ex *ibqpx)
{
	return container_of(ibqpx, struct sroce_qp, vqp.qp_ex);
}

extern const struct verbs_context_ops sroce_qp_ops;

#endif /* SROCE_QP_H */
