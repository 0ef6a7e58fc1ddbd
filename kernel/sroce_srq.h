/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * sroce receive queues: struct sroce_rq is the receive ring of a QP (when
 * it has no SRQ) and of an SRQ. The responder pops receive WQEs with
 * sroce_rq_pop(); kernel users post with sroce_rq_post_kernel(); user
 * space produces into the mapped ring.
 */
#ifndef SROCE_SRQ_H
#define SROCE_SRQ_H

#include <linux/refcount.h>
#include <linux/spinlock.h>
#include <rdma/ib_verbs.h>
#include <rdma/sroce-abi.h>

#include "sroce_ring.h"

struct sroce_rq {
	/* Constant after sroce_rq_init(). */
	u32 max_sge;		/* SGEs a WQE may carry */
	u32 max_wr;		/* ring slots */
	bool user;		/* user space is the producer */
	struct ib_srq *ibsrq;	/* the SRQ this queue is; NULL for a QP's RQ */

	/*
	 * lock (spin_lock_irqsave): the consumer side of the ring (several
	 * QPs pop from one SRQ, from softirq), the kernel producer side
	 * (sroce_rq_post_kernel), limit and broken.
	 */
	spinlock_t lock;
	struct sroce_ring ring;
	u32 limit;		/* SRQ limit when armed, 0 when not */
	/*
	 * The producer index was once impossible: the queue is in error for
	 * good (an SRQ raised IB_EVENT_SRQ_ERR) and yields no more WQEs.
	 */
	bool broken;
};

/*
 * An XRC SRQ (ibsrq.srq_type IB_SRQT_XRC; its XRC domain and CQ are
 * ibsrq.ext's) is found by number by the XRC targets' responders, with a
 * reference (sroce_xrc_srq_get()) held for one packet; destroy_srq waits for
 * it. A basic SRQ is reached only through its QPs.
 */
struct sroce_srq {
	struct ib_srq ibsrq;
	u32 srq_num;		/* index in sdev->srq_xa */
	struct sroce_rq rq;
	refcount_t ref;
};

static inline struct sroce_srq *to_sroce_srq(struct ib_srq *ibsrq)
{
	return container_of(ibsrq, struct sroce_srq, ibsrq);
}

struct sroce_srq *sroce_xrc_srq_get(struct sroce_dev *sdev, u32 srqn,
				    const struct ib_xrcd *xrcd);
void sroce_srq_put(struct sroce_srq *srq);

int sroce_rq_init(struct sroce_rq *rq, u32 max_wr, u32 max_sge,
		  struct ib_udata *udata);
void sroce_rq_free(struct sroce_rq *rq);
int sroce_rq_pop(struct sroce_rq *rq, struct sroce_recv_wqe *wqe_out,
		 struct sroce_sge *sges_out);
u32 sroce_rq_count(struct sroce_rq *rq);
int sroce_rq_post_kernel(struct sroce_rq *rq, const struct ib_recv_wr *wr,
			 const struct ib_recv_wr **bad_wr);

extern const struct ib_device_ops sroce_srq_ops;

#endif /* SROCE_SRQ_H */
