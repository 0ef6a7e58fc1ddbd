/* SPDX-License-Identifier: ((GPL-2.0-only WITH Linux-syscall-note) OR BSD-3-Clause) */
/*
 * sroce user/kernel ABI: the only header shared by sroce.ko and libsroce.
 * Fixed-width types only; every command and response carries comp_mask or
 * reserved space so it can grow. Bump SROCE_ABI_VERSION on any change that
 * breaks an older provider and note it in Documentation/abi.md.
 */
#ifndef SROCE_ABI_USER_H
#define SROCE_ABI_USER_H

#include <linux/types.h>

/*
 * Also the uverbs ABI version of the device. It starts at 16 so that no
 * other provider's ABI range can claim a sroce device: librxe matches any
 * device whose name begins with "rxe" but only accepts ABI 1..2.
 */
#define SROCE_ABI_VERSION 16

/*
 * sysfs attribute (/sys/class/infiniband/<dev>/sroce_abi_version) by which
 * libsroce recognises a sroce device whatever its name: an out-of-tree
 * driver has no rdma_driver_id of its own to match on.
 */
#define SROCE_SYSFS_ABI_ATTR "sroce_abi_version"

struct sroce_alloc_ucontext_resp {
	__u32 comp_mask;
	__u32 abi_version;
	__aligned_u64 reserved[2];
};

#endif /* SROCE_ABI_USER_H */
