/* SPDX-License-Identifier: GPL-2.0-only */
/* Negative control: a publish without release ordering (a bug on purpose). */
#include <stdatomic.h>
#include <stdint.h>
#define sroce_uring_store_release(p, v)					\
	atomic_store_explicit((_Atomic(uint32_t) *)(p), (v),		\
			      memory_order_relaxed)
