/* SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause */
/* libsroce: rdma-core provider for the sroce software RoCEv2 device. */
#ifndef SROCE_PROVIDER_H
#define SROCE_PROVIDER_H

#include <pthread.h>
#include <infiniband/driver.h>
#include <rdma/sroce-abi.h>

#include "sroce_ring.h"

struct sroce_device {
	struct verbs_device ibv_dev;
	unsigned int abi_version;
};

struct sroce_context {
	struct verbs_context ibv_ctx;
};

static inline struct sroce_device *to_sdev(struct ibv_device *ibdev)
{
	return container_of(ibdev, struct sroce_device, ibv_dev.device);
}

static inline struct sroce_context *to_sctx(struct ibv_context *ibctx)
{
	return container_of(ibctx, struct sroce_context, ibv_ctx.context);
}

/* Completion queue: the kernel produces CQEs, we consume them. */
struct sroce_cq {
	struct verbs_cq vcq;
	pthread_spinlock_t lock;	/* the consumer side and the ring mapping */
	struct sroce_uring ring;
	const struct sroce_cqe *cur;	/* ibv_cq_ex: the CQE being read */
};

/* Shared receive queue: we produce receive WQEs, the kernel consumes. */
struct sroce_srq {
	struct verbs_srq vsrq;
	pthread_spinlock_t lock;	/* the producer side */
	struct sroce_uring ring;
	uint32_t max_sge;
	uint32_t srq_num;
};

struct sroce_ah {
	struct ibv_ah ibv_ah;
	uint32_t ah_index;		/* for sroce_send_wqe.wr.ud.ah_index */
};

static inline struct sroce_cq *to_scq(struct ibv_cq *ibcq)
{
	return container_of(ibcq, struct sroce_cq, vcq.cq);
}

static inline struct sroce_srq *to_ssrq(struct ibv_srq *ibsrq)
{
	return container_of(ibsrq, struct sroce_srq, vsrq.srq);
}

static inline struct sroce_ah *to_sah(struct ibv_ah *ibah)
{
	return container_of(ibah, struct sroce_ah, ibv_ah);
}

/* Per-area verbs (sroce_cq.c, sroce_srq.c, sroce_mr.c, sroce_ah.c). */
extern const struct verbs_context_ops sroce_cq_ctx_ops;
void sroce_cq_clean(struct ibv_cq *ibcq, uint32_t qpn);
extern const struct verbs_context_ops sroce_srq_ctx_ops;
extern const struct verbs_context_ops sroce_mr_ctx_ops;
extern const struct verbs_context_ops sroce_ah_ctx_ops;

#endif /* SROCE_PROVIDER_H */
