/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * sroce completion queues. The engines post struct sroce_cqe into the CQ
 * ring with sroce_cq_post(); user space polls the ring directly, kernel
 * users through sroce_poll_cq().
 */
#ifndef SROCE_CQ_H
#define SROCE_CQ_H

#include <linux/spinlock.h>
#include <rdma/ib_verbs.h>
#include <rdma/sroce-abi.h>

#include "sroce_ring.h"

struct sroce_cq {
	struct ib_cq ibcq;
	bool user;		/* constant: the ring is user-mapped */

	/*
	 * lock (spin_lock_irqsave: engines post from softirq, kernel users
	 * poll from any context) protects everything below: the producer
	 * side of the ring (and for a kernel CQ the consumer side too), the
	 * ring itself across a resize, wc_qp, notify and error. Never held
	 * while calling the completion or event handler.
	 */
	spinlock_t lock;
	struct sroce_ring ring;
	struct ib_qp **wc_qp;	/* kernel CQs: the QP of the CQE in each slot */
	u8 notify;		/* armed: IB_CQ_SOLICITED or IB_CQ_NEXT_COMP */
	bool error;		/* overflowed (R3.9): takes no more CQEs */
};

static inline struct sroce_cq *to_sroce_cq(struct ib_cq *ibcq)
{
	return container_of(ibcq, struct sroce_cq, ibcq);
}

/*
 * For the engines. Any context (softirq, workqueue, process). @ibqp is the
 * QP the completion belongs to; kernel pollers get it in ib_wc.qp.
 * Returns 0, or -EOVERFLOW if the CQ is (now) in error: the caller then
 * reports QP_FATAL on its QP (seed-rules R3.9).
 */
int sroce_cq_post(struct sroce_cq *cq, const struct sroce_cqe *cqe,
		  struct ib_qp *ibqp, bool solicited);

/*
 * How many CQEs user space has consumed from a user CQ so far (its
 * consumer index; wraps). 0 for a kernel CQ. Any context.
 */
u32 sroce_cq_user_cons(struct sroce_cq *cq);

extern const struct ib_device_ops sroce_cq_ops;

#endif /* SROCE_CQ_H */
