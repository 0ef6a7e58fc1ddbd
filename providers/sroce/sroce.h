/* SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause */
/* libsroce: rdma-core provider for the sroce software RoCEv2 device. */
#ifndef SROCE_PROVIDER_H
#define SROCE_PROVIDER_H

#include <infiniband/driver.h>

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

#endif /* SROCE_PROVIDER_H */
