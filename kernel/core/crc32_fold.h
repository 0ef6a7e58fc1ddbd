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

#endif /* SROCE_CORE_CRC32_FOLD_H */
