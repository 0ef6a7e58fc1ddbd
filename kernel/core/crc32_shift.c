// SPDX-License-Identifier: GPL-2.0-only
/*
 * crc32_shift.c - the CRC-32 of a concatenation from the CRCs of its parts.
 *
 * crc32_le() is linear: for a run B of n bytes,
 *   crc32_le(c, B) = crc32_le(c, n zero bytes) ^ crc32_le(0, B)
 * and crc32_le(c, n zero bytes) is c * x^(8n) mod P. So a packet's payload
 * can be CRCed while it is copied in, before the headers in front of it
 * are final (the IP ID is given at transmit), and joined to their CRC
 * later by one multiplication with a constant of its length.
 *
 * Polynomials are in crc32_le()'s reflected form: bit 31 - i is x^i.
 */
#include "crc32_shift.h"

#define CRC32_POLY_LE	0xedb88320U	/* P - x^32, reflected */
#define CRC32_ONE	0x80000000U	/* x^0 */

/* x * @a mod P */
static inline u32 crc32_mulx(u32 a)
{
	return (a >> 1) ^ (CRC32_POLY_LE & -(a & 1));
}

u32 sroce_crc32_mulmod(u32 a, u32 b)
{
	u32 r = 0;
	int i;

	/* For each term x^i of @a (bit 31 - i), add @b * x^i. */
	for (i = 31; i >= 0; i--) {
		r ^= b & -((a >> i) & 1);
		b = crc32_mulx(b);
	}
	return r;
}

u32 sroce_crc32_xpow8(size_t n)
{
	u32 r = CRC32_ONE, base = CRC32_ONE;
	int i;

	for (i = 0; i < 8; i++)
		base = crc32_mulx(base);		/* x^8 */
	/* Square and multiply: base is x^(8 * 2^j) at bit j of @n. */
	for (; n; n >>= 1) {
		if (n & 1)
			r = sroce_crc32_mulmod(r, base);
		base = sroce_crc32_mulmod(base, base);
	}
	return r;
}
