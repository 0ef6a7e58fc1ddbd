/* SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause */
/*
 * libsroce's view of the uverbs commands that carry sroce driver data:
 * DECLARE_DRV_CMD() wrappers around include/uapi/rdma/sroce-abi.h (which
 * scripts/build-provider.sh adds to rdma-core's kernel-headers, so that
 * <kernel-abi/sroce-abi.h> holds its _STRUCT_* forms).
 * Each area adds the wrappers of its own commands here.
 */
#ifndef SROCE_PROVIDER_ABI_H
#define SROCE_PROVIDER_ABI_H

#include <infiniband/kern-abi.h>
#include <rdma/sroce-abi.h>
#include <kernel-abi/sroce-abi.h>

/* QP */
DECLARE_DRV_CMD(usroce_create_qp_ex, IB_USER_VERBS_EX_CMD_CREATE_QP,
		empty, sroce_create_qp_resp);

#endif /* SROCE_PROVIDER_ABI_H */
