// SPDX-License-Identifier: GPL-2.0-only
/*
 * crc32_fold.c - CRC-32 (the Ethernet polynomial P, reflected: crc32_le())
 * by reduction modulo a sparse multiple of P.
 *
 * A message M is a polynomial over GF(2) whose first bit (bit 0 of byte 0)
 * is the highest term; crc32_le(0, M) is M * x^32 mod P. Since
 *   Q(x) = x^300 + x^155 + x^117 + x^89 + 1
 * is a multiple of P (the one of fewest terms below degree 320, found by
 * a meet-in-the-middle search over x^j mod P; checked by the host tests),
 * adding multiples of Q leaves M mod P as it is. So, without a table:
 * each bit still set at stream position t, up to the last 320 bits (all
 * terms of degree >= 320), is cleared by adding Q shifted under it, which
 * flips the bits d = 300 - e positions later for each lower term x^e of
 * Q, d in {145, 183, 211, 300}. As every d is at least 128, a 64-bit
 * little-endian word of the stream is final once the words two to five
 * before it are: word k is its data XOR those four words shifted by the
 * distances. The last 320 bits, fed by the words before them but not by
 * each other, are then congruent to M mod P; crc32_le() over those 40
 * bytes gives the CRC.
 *
 * Per 8 bytes: one load and eight shifts and XORs in registers, where the
 * table-driven crc32_le() makes eight table loads. Under an emulator
 * (QEMU/TCG) every load costs a software TLB lookup, which makes this the
 * faster one there; kernel/sroce_crc.c times both at module load.
 */
#include "crc32_fold.h"

#define FOLD_WORDS	5	/* the words of the remainder, 320 bits */

/*
 * What words k - 2 .. k - 5 add to word k (word k - 1 adds nothing).
 * Distance d = 64 q + r reaches word k from word k - q (shifted up by r)
 * and from word k - q - 1 (its top r bits).
 */
static inline u64 fold_feed(u64 h2, u64 h3, u64 h4, u64 h5)
{
	return (h2 << 17) ^ (h3 >> 47) ^	/* d = 145 */
	       (h2 << 55) ^ (h3 >> 9) ^		/* d = 183 */
	       (h3 << 19) ^ (h4 >> 45) ^	/* d = 211 */
	       (h4 << 44) ^ (h5 >> 20);		/* d = 300 */
}

/* Word @off of @p; copied to @dst first when there is one. */
static __always_inline u64 fold_load(u8 *dst, const u8 *p, size_t off)
{
	u64 w = get_unaligned_le64(p + off);

	if (dst)
		put_unaligned_le64(w, dst + off);
	return w;
}

/*
 * crc32_le(@crc, @p, @len), and @p copied to @dst when @dst is not NULL:
 * one pass over the bytes. Inlined into both callers, so the fold alone
 * has no test for @dst.
 */
static __always_inline u32 fold_run(u32 crc, u8 *dst, const u8 *p,
				    size_t len)
{
	u64 h1, h2 = 0, h3 = 0, h4 = 0, h5 = 0, w1, w2, w3, w4, w5;
	__le64 rem[FOLD_WORDS];
	size_t head = len & 7, words, k;
	int i;

	/*
	 * Bytes not folded are copied first and CRCed from the copy, so that
	 * the CRC is of the bytes copied even if @p changes meanwhile.
	 */
	if (len < SROCE_CRC32_FOLD_MIN || head) {
		if (len < SROCE_CRC32_FOLD_MIN)
			head = len;
		if (dst)
			memcpy(dst, p, head);
		crc = crc32_le(crc, dst ? dst : p, head);
		if (len == head)
			return crc;
		/* Whole words from here on. */
		p += head;
		dst = dst ? dst + head : NULL;
		len -= head;
	}
	words = len / 8 - FOLD_WORDS;	/* all but the remainder's */
	/* The CRC so far enters the first word. */
	h1 = fold_load(dst, p, 0) ^ crc;
	/*
	 * Five words a round, the history renamed rather than moved: under an
	 * emulator each round is one translated block, whose entry and exit
	 * cost as much as a word's work.
	 */
	for (k = 1; k + FOLD_WORDS <= words; k += FOLD_WORDS) {
		w1 = fold_load(dst, p, 8 * k) ^ fold_feed(h2, h3, h4, h5);
		w2 = fold_load(dst, p, 8 * k + 8) ^ fold_feed(h1, h2, h3, h4);
		w3 = fold_load(dst, p, 8 * k + 16) ^ fold_feed(w1, h1, h2, h3);
		w4 = fold_load(dst, p, 8 * k + 24) ^ fold_feed(w2, w1, h1, h2);
		w5 = fold_load(dst, p, 8 * k + 32) ^ fold_feed(w3, w2, w1, h1);
		h5 = w1;
		h4 = w2;
		h3 = w3;
		h2 = w4;
		h1 = w5;
	}
	for (; k < words; k++) {
		w1 = fold_load(dst, p, 8 * k) ^ fold_feed(h2, h3, h4, h5);
		h5 = h4;
		h4 = h3;
		h3 = h2;
		h2 = h1;
		h1 = w1;
	}
	/* The remainder: fed by the words above, not by each other. */
	for (i = 0; i < FOLD_WORDS; i++, k++) {
		w1 = fold_load(dst, p, 8 * k) ^ fold_feed(h2, h3, h4, h5);
		rem[i] = cpu_to_le64(w1);
		h5 = h4;
		h4 = h3;
		h3 = h2;
		h2 = h1;
		h1 = 0;
	}
	return crc32_le(0, (const u8 *)rem, sizeof(rem));
}

u32 sroce_crc32_fold(u32 crc, const u8 *p, size_t len)
{
	return fold_run(crc, NULL, p, len);
}

u32 sroce_crc32_fold_copy(u32 crc, u8 *dst, const u8 *src, size_t len)
{
	return fold_run(crc, dst, src, len);
}
