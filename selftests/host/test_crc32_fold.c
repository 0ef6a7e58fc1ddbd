// SPDX-License-Identifier: GPL-2.0-only
/*
 * Host tests for kernel/core/crc32_fold.c: the folded CRC-32 equals
 * crc32_le() for every length, alignment and starting value, and its
 * polynomial Q is a multiple of the CRC-32 polynomial.
 */
#include "harness.h"
#include "crc32_fold.h"

static u8 buf[9000 + 16];

static void fill(u32 seed)
{
	harness_fill(buf, sizeof(buf), seed);
}

/* Q = x^300 + x^155 + x^117 + x^89 + 1 is 0 mod P. */
TEST(fold_polynomial_is_a_multiple)
{
	static const int terms[] = { 300, 155, 117, 89, 0 };
	u32 xj = 1, sum = 0;	/* x^j mod P, normal (not reflected) form */
	int j, t = ARRAY_SIZE(terms) - 1;

	for (j = 0; j <= 300; j++) {
		if (t >= 0 && terms[t] == j) {
			sum ^= xj;
			t--;
		}
		xj = (xj << 1) ^ (xj & 0x80000000U ? 0x04C11DB7U : 0);
	}
	ASSERT_EQ(t, -1);
	ASSERT_EQ(sum, 0U);
}

TEST(fold_equals_crc32_le_every_length)
{
	size_t len, off;

	fill(1);
	for (off = 0; off < 8; off++)
		for (len = 0; len <= 1100; len++)
			ASSERT_EQ(sroce_crc32_fold(~0U, buf + off, len),
				  crc32_le(~0U, buf + off, len));
}

TEST(fold_equals_crc32_le_packet_sizes)
{
	static const size_t lens[] = { 127, 128, 129, 135, 136, 1024, 1028,
				       2048, 4096, 4100, 8192, 9000 };
	u32 seeds[] = { 0, ~0U, 0x12345678U, 0x80000001U };
	size_t i, s, off;

	for (s = 0; s < ARRAY_SIZE(seeds); s++) {
		fill(s + 7);
		for (i = 0; i < ARRAY_SIZE(lens); i++)
			for (off = 0; off < 16; off += 5)
				ASSERT_EQ(sroce_crc32_fold(seeds[s], buf + off, lens[i]),
					  crc32_le(seeds[s], buf + off, lens[i]));
	}
}

/* Runs chain: the fold of two pieces is the CRC of both. */
TEST(fold_chains)
{
	u32 a, b;

	fill(3);
	a = sroce_crc32_fold(~0U, buf, 333);
	a = sroce_crc32_fold(a, buf + 333, 4000);
	b = crc32_le(~0U, buf, 4333);
	ASSERT_EQ(a, b);
}

/* Patterns with long runs of ones and zeros reach every feedback term. */
TEST(fold_patterns)
{
	size_t i;

	memset(buf, 0xff, sizeof(buf));
	ASSERT_EQ(sroce_crc32_fold(~0U, buf, 4096), crc32_le(~0U, buf, 4096));
	memset(buf, 0, sizeof(buf));
	ASSERT_EQ(sroce_crc32_fold(~0U, buf, 4096), crc32_le(~0U, buf, 4096));
	for (i = 0; i < 4096; i += 41)
		buf[i] = 0x80;
	ASSERT_EQ(sroce_crc32_fold(0, buf, 4096), crc32_le(0, buf, 4096));
}

/* The fused copy: the fold's CRC, and every byte copied, no byte more. */
TEST(fold_copy_equals_fold_and_memcpy)
{
	static u8 dst[9000 + 32];
	static const size_t lens[] = { 0, 1, 7, 127, 128, 129, 135, 1024,
				       1027, 4096, 4101, 9000 };
	size_t i, off, doff;

	fill(11);
	for (i = 0; i < ARRAY_SIZE(lens); i++)
		for (off = 0; off < 8; off += 3)
			for (doff = 0; doff < 8; doff += 5) {
				memset(dst, 0x5a, sizeof(dst));
				ASSERT_EQ(sroce_crc32_fold_copy(0x1234U, dst + 8 + doff,
								buf + off, lens[i]),
					  crc32_le(0x1234U, buf + off, lens[i]));
				ASSERT_EQ(memcmp(dst + 8 + doff, buf + off, lens[i]), 0);
				/* Guard bytes on both sides untouched. */
				ASSERT_EQ(dst[7 + doff], 0x5a);
				ASSERT_EQ(dst[8 + doff + lens[i]], 0x5a);
			}
}
