/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * core_types.h - the one platform include of the sroce protocol core.
 *
 * Every file in kernel/core/ includes only this header and other core
 * headers.  In the kernel build it maps to the real kernel headers; on the
 * host (unit tests, fuzzers) it maps to selftests/host/shim/host_shim.h,
 * which must be on the include path.  This is the mm/vma_internal.h +
 * tools/testing/vma pattern: one copy of the code, two environments.
 *
 * Rules for the core (Documentation/core.md): no allocation, no locks, no
 * skbs, no timers, no printk; plain structs and enums in, verdicts out;
 * every function reentrant.
 */
#ifndef SROCE_CORE_TYPES_H
#define SROCE_CORE_TYPES_H

#ifdef __KERNEL__
#include <linux/types.h>
#include <linux/kernel.h>
#include <linux/bits.h>
#include <linux/bitfield.h>
#include <linux/string.h>
#include <linux/errno.h>
#include <linux/math64.h>
#include <linux/crc32.h>
#include "../sroce_compat.h"
#include <asm/byteorder.h>
/*
 * crc32_le() for long runs (ICRC payload): the CPU's accelerated CRC-32
 * when the kernel has one (kernel/sroce_crc.c), else crc32_le().
 */
u32 sroce_crc32(u32 crc, const void *p, size_t len);
#else
#include "host_shim.h"
#endif

#endif /* SROCE_CORE_TYPES_H */
