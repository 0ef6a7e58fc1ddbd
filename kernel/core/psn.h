/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * psn.h - 24-bit packet sequence number arithmetic.
 *
 * PSNs are 24 bits and wrap (IBA 9.7.1, seed-rules R2.8).  Comparisons are
 * made on the signed distance modulo 2^24: a PSN up to 2^23 ahead is newer,
 * one "more than half the PSN space ahead" is older.  The distance of
 * exactly 2^23 counts as ahead, so psn_diff() returns a value in
 * (-2^23, 2^23].
 *
 * All helpers are pure and take/return PSNs in the low 24 bits of a u32;
 * inputs with bits above bit 23 set are masked first.
 */
#ifndef SROCE_CORE_PSN_H
#define SROCE_CORE_PSN_H

#include "core_types.h"

#define SROCE_PSN_BITS		24
#define SROCE_PSN_MASK		GENMASK(SROCE_PSN_BITS - 1, 0)
#define SROCE_PSN_SPACE		BIT(SROCE_PSN_BITS)
#define SROCE_PSN_HALF		BIT(SROCE_PSN_BITS - 1)

/* psn_mask - reduce @psn to 24 bits */
static inline u32 psn_mask(u32 psn)
{
	return psn & SROCE_PSN_MASK;
}

/* psn_add - @psn + @n modulo 2^24 */
static inline u32 psn_add(u32 psn, u32 n)
{
	return (psn + n) & SROCE_PSN_MASK;
}

/* psn_sub - @psn - @n modulo 2^24 */
static inline u32 psn_sub(u32 psn, u32 n)
{
	return (psn - n) & SROCE_PSN_MASK;
}

/*
 * psn_diff - signed distance from @b to @a, in (-2^23, 2^23].
 *
 * Positive: @a is after (newer than) @b.  Negative: @a is before @b.
 */
static inline s32 psn_diff(u32 a, u32 b)
{
	u32 d = (a - b) & SROCE_PSN_MASK;

	if (d > SROCE_PSN_HALF)
		return (s32)d - (s32)SROCE_PSN_SPACE;
	return (s32)d;
}

/* psn_cmp - <0, 0, >0 as @a is before, equal to, or after @b */
static inline int psn_cmp(u32 a, u32 b)
{
	s32 d = psn_diff(a, b);

	return (d > 0) - (d < 0);
}

/* psn_before - true if @a is strictly older than @b */
static inline bool psn_before(u32 a, u32 b)
{
	return psn_diff(a, b) < 0;
}

/* psn_after - true if @a is strictly newer than @b */
static inline bool psn_after(u32 a, u32 b)
{
	return psn_diff(a, b) > 0;
}

/*
 * psn_in_range - true if @first <= @psn <= @last in sequence order.
 *
 * Precondition: @last is not before @first (the window is at most 2^23).
 */
static inline bool psn_in_range(u32 psn, u32 first, u32 last)
{
	return psn_diff(psn, first) >= 0 && psn_diff(last, psn) >= 0;
}

/*
 * psn_resp_diff - a request's PSN against the responder's ePSN: 0 for the
 * expected one, > 0 in the invalid region ahead (a gap), < 0 in the
 * duplicate region. The duplicate region is the 2^23 PSNs before ePSN
 * (IBA 9.7.5.1.1), so the PSN exactly half the space away is a duplicate
 * here, where psn_diff() calls it ahead: the first PSN of a READ that
 * used 2^23 PSNs (2^31 bytes at MTU 256), sent again, is that far behind.
 */
static inline s32 psn_resp_diff(u32 psn, u32 epsn)
{
	s32 d = psn_diff(psn, epsn);

	return d == (s32)SROCE_PSN_HALF ? -d : d;
}

#endif /* SROCE_CORE_PSN_H */
