// SPDX-License-Identifier: GPL-2.0-only
/*
 * crc32_fold.c - CRC-32 (the Ethernet polynomial P, reflected: crc32_le())
 * by reduction modulo a sparse multiple of P.
 *
 * A message M is a polynomial over GF(2) whose first bit (bit 0 of byte 0)
 * is the highest term; crc32_le(0, M) is M * x^32 mod P. Since
 *   Q(x) = x^320 + x^223 + x^153 + x^65 + x^58 + x^49 + 1
 * is a multiple of P (found by a meet-in-the-middle search over x^j mod P;
 * checked by the host tests), M mod P = (M mod Q) mod P. Long division by
 * Q needs no table: each bit that is still set at stream position t
 * (every term of degree >= 320) flips the bits d = 320 - e positions
 * later, for each lower term x^e of Q, d in {97, 167, 255, 262, 271, 320}.
 * As every d is at least 64, a 64-bit little-endian word of the stream is
 * final once the five words before it are: word k is its data XOR the
 * five earlier words shifted by those distances. The last 320 bits are
 * M mod Q; crc32_le() over those 40 bytes gives the CRC.
 *
 * Per 8 bytes: one load and ten shifts and XORs in registers, where the
 * table-driven crc32_le() makes eight table loads. Under an emulator
 * (QEMU/TCG) every load costs a software TLB lookup, which makes this the
 * faster one there; kernel/sroce_crc.c times both at module load.
 */
#include "crc32_fold.h"

#define FOLD_WORDS	5	/* deg Q / 64: the words of M mod Q */

/*
 * What the five words before word k add to it: h1 = word k - 1, ...,
 * h5 = word k - 5. Distance d = 64 q + r reaches word k from word k - q
 * (shifted up by r) and from word k - q - 1 (its top r bits).
 */
static inline u64 fold_feed(u64 h1, u64 h2, u64 h3, u64 h4, u64 h5)
{
	return (h1 << 33) ^ (h2 >> 31) ^	/* d =  97 */
	       (h2 << 39) ^ (h3 >> 25) ^	/* d = 167 */
	       (h3 << 63) ^ (h4 >> 1) ^		/* d = 255 */
	       (h4 << 6) ^ (h5 >> 58) ^		/* d = 262 */
	       (h4 << 15) ^ (h5 >> 49) ^	/* d = 271 */
	       h5;				/* d = 320 */
}

u32 sroce_crc32_fold(u32 crc, const u8 *p, size_t len)
{
	u64 h1 = 0, h2 = 0, h3 = 0, h4 = 0, h5 = 0, w;
	__le64 rem[FOLD_WORDS];
	size_t head = len & 7, words, k;
	int i;

	if (len < SROCE_CRC32_FOLD_MIN)
		return crc32_le(crc, p, len);
	/* Whole words from here on; the CRC so far enters the first one. */
	if (head) {
		crc = crc32_le(crc, p, head);
		p += head;
		len -= head;
	}
	words = len / 8;
	w = get_unaligned_le64(p) ^ crc;
	for (k = 0;;) {
		w ^= fold_feed(h1, h2, h3, h4, h5);
		h5 = h4;
		h4 = h3;
		h3 = h2;
		h2 = h1;
		h1 = w;
		if (++k == words - FOLD_WORDS)
			break;
		w = get_unaligned_le64(p + 8 * k);
	}
	/* The remainder: fed by the words above, not by each other. */
	for (i = 0; i < FOLD_WORDS; i++, k++) {
		w = get_unaligned_le64(p + 8 * k) ^ fold_feed(h1, h2, h3, h4, h5);
		rem[i] = cpu_to_le64(w);
		h5 = h4;
		h4 = h3;
		h3 = h2;
		h2 = h1;
		h1 = 0;
	}
	return crc32_le(0, (const u8 *)rem, sizeof(rem));
}
