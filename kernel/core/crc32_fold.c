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

/* The five words before word k: h[0] = word k - 1, ..., h[4] = word k - 5. */
struct fold_hist {
	u64 h[FOLD_WORDS];
};

/*
 * What the five words before word k add to it. Distance d = 64 q + r
 * reaches word k from word k - q (shifted up by r) and from word
 * k - q - 1 (its top r bits).
 */
static inline u64 fold_feed(const struct fold_hist *f)
{
	const u64 *h = f->h;

	return (h[0] << 33) ^ (h[1] >> 31) ^	/* d =  97 */
	       (h[1] << 39) ^ (h[2] >> 25) ^	/* d = 167 */
	       (h[2] << 63) ^ (h[3] >> 1) ^	/* d = 255 */
	       (h[3] << 6) ^ (h[4] >> 58) ^	/* d = 262 */
	       (h[3] << 15) ^ (h[4] >> 49) ^	/* d = 271 */
	       h[4];				/* d = 320 */
}

/* Word k is done: it becomes word k - 1 of the next. */
static inline void fold_push(struct fold_hist *f, u64 w)
{
	f->h[4] = f->h[3];
	f->h[3] = f->h[2];
	f->h[2] = f->h[1];
	f->h[1] = f->h[0];
	f->h[0] = w;
}

u32 sroce_crc32_fold(u32 crc, const u8 *p, size_t len)
{
	struct fold_hist f = {};
	__le64 rem[FOLD_WORDS];
	size_t head = len & 7, words, k;
	u64 w;
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
		fold_push(&f, w ^ fold_feed(&f));
		if (++k == words - FOLD_WORDS)
			break;
		w = get_unaligned_le64(p + 8 * k);
	}
	/* The remainder: fed by the words above, not by each other. */
	for (i = 0; i < FOLD_WORDS; i++, k++) {
		w = get_unaligned_le64(p + 8 * k) ^ fold_feed(&f);
		rem[i] = cpu_to_le64(w);
		fold_push(&f, 0);
	}
	return crc32_le(0, (const u8 *)rem, sizeof(rem));
}
