/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * crc32_fold.h - crc32_le() of long runs without a table lookup per byte.
 */
#ifndef SROCE_CORE_CRC32_FOLD_H
#define SROCE_CORE_CRC32_FOLD_H

#include "core_types.h"

/* Shorter runs go to crc32_le() whole: the fold's fixed cost is 40 bytes. */
#define SROCE_CRC32_FOLD_MIN	128

/**
 * sroce_crc32_fold() - crc32_le(@crc, @p, @len), computed by folding
 * @crc: running CRC (crc32_le()'s state: no inversion here)
 * @p:   bytes, any alignment
 * @len: byte count
 *
 * Same result as crc32_le() for every input. Any context; reentrant.
 */
u32 sroce_crc32_fold(u32 crc, const u8 *p, size_t len);

/**
 * sroce_crc32_fold_copy() - sroce_crc32_fold() of @src, copying it to @dst
 * @crc: running CRC
 * @dst: @len bytes, any alignment, not overlapping @src
 * @src: bytes, any alignment
 * @len: byte count
 *
 * One pass: each word is stored as it is loaded for the fold, where a
 * memcpy() and then the fold would load it twice. Any context; reentrant.
 */
u32 sroce_crc32_fold_copy(u32 crc, u8 *dst, const u8 *src, size_t len);

#endif /* SROCE_CORE_CRC32_FOLD_H */
