/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * crc32_shift.h - join crc32_le() runs: the CRC of a run computed before
 * the bytes in front of it are known.
 */
#ifndef SROCE_CORE_CRC32_SHIFT_H
#define SROCE_CORE_CRC32_SHIFT_H

#include "core_types.h"

/**
 * sroce_crc32_mulmod() - @a * @b mod P, both in crc32_le()'s reflected
 * form (bit 31 - i holds x^i). Any context; reentrant.
 */
u32 sroce_crc32_mulmod(u32 a, u32 b);

/**
 * sroce_crc32_xpow8() - x^(8 * @n) mod P, reflected: the factor that runs
 * a CRC over @n zero bytes. Any context; reentrant; O(log n)
 * multiplications, so callers keep the ones they use.
 */
u32 sroce_crc32_xpow8(size_t n);

/*
 * sroce_crc32_join - crc32_le(@crc, B) from @crc_b = crc32_le(0, B) and
 * @xpow = sroce_crc32_xpow8(length of B).
 */
static inline u32 sroce_crc32_join(u32 crc, u32 crc_b, u32 xpow)
{
	return sroce_crc32_mulmod(crc, xpow) ^ crc_b;
}

#endif /* SROCE_CORE_CRC32_SHIFT_H */
