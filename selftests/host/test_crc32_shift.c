// SPDX-License-Identifier: GPL-2.0-only
/*
 * Host tests for kernel/core/crc32_shift.c: a run's CRC joined to the CRC
 * of the bytes before it equals crc32_le() over both.
 */
#include "harness.h"
#include "crc32_shift.h"

static u8 buf[8192 + 64];

static void fill(u32 seed)
{
	harness_fill(buf, sizeof(buf), seed);
}

/* Multiplying by x^0 changes nothing; by x^8 is a zero byte's CRC step. */
TEST(mulmod_identities)
{
	static const u8 zero;
	u32 a = 0xdeadbeefU;

	ASSERT_EQ(sroce_crc32_mulmod(a, 0x80000000U), a);
	ASSERT_EQ(sroce_crc32_mulmod(0x80000000U, a), a);
	ASSERT_EQ(sroce_crc32_mulmod(a, 0), 0U);
	ASSERT_EQ(sroce_crc32_xpow8(0), 0x80000000U);
	ASSERT_EQ(sroce_crc32_mulmod(a, sroce_crc32_xpow8(1)),
		  crc32_le(a, &zero, 1));
}

/* crc32_le(c, n zero bytes) = c * x^(8n) for every n up to a jumbo packet. */
TEST(xpow8_is_a_run_of_zeros)
{
	static u8 zeros[4200];
	static const u32 seeds[] = { ~0U, 1, 0x80000000U, 0x9abcdef0U };
	size_t n, s;

	for (s = 0; s < ARRAY_SIZE(seeds); s++)
		for (n = 0; n <= sizeof(zeros); n += n < 300 ? 1 : 97)
			ASSERT_EQ(sroce_crc32_mulmod(seeds[s], sroce_crc32_xpow8(n)),
				  crc32_le(seeds[s], zeros, n));
}

/* The transmit path's use: headers CRCed after the payload, then joined. */
TEST(join_equals_one_run)
{
	static const size_t heads[] = { 0, 1, 48, 60, 76 };
	static const size_t lens[] = { 0, 1, 256, 1024, 2048, 4096, 4099 };
	size_t h, l;
	u32 head, pay;

	fill(5);
	for (h = 0; h < ARRAY_SIZE(heads); h++)
		for (l = 0; l < ARRAY_SIZE(lens); l++) {
			head = crc32_le(~0U, buf, heads[h]);
			pay = crc32_le(0, buf + heads[h], lens[l]);
			ASSERT_EQ(sroce_crc32_join(head, pay,
						   sroce_crc32_xpow8(lens[l])),
				  crc32_le(~0U, buf, heads[h] + lens[l]));
		}
}
