/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What selftests/host/harness.h needs from a "host_shim.h", for tests
 * that include libibverbs and uapi headers: the kernel-core shim
 * (selftests/host/shim/host_shim.h) typedefs __be64 & co. its own way and
 * cannot sit next to <linux/types.h>.
 */
#ifndef SROCE_PROVIDER_TEST_SHIM_H
#define SROCE_PROVIDER_TEST_SHIM_H

#include <endian.h>
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef uint64_t u64;

/* The provider code has no WARN_ON_ONCE: the count stays 0. */
static unsigned long host_warn_count;

#define ARRAY_SIZE(arr)		(sizeof(arr) / sizeof((arr)[0]))

#endif
