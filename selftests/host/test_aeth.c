// SPDX-License-Identifier: GPL-2.0-only
/* Host tests for kernel/core/aeth.c: seed-rules R2.4, R2.5, R2.10. */
#include "harness.h"
#include "aeth.h"

/* seed-rules R2.4: the full min_rnr_timer table, in ns */
static const u64 r24_ns[32] = {
	655360000, 10000, 20000, 30000, 40000, 60000, 80000, 120000,
	160000, 240000, 320000, 480000, 640000, 960000, 1280000, 1920000,
	2560000, 3840000, 5120000, 7680000, 10240000, 15360000, 20480000,
	30720000, 40960000, 61440000, 81920000, 122880000, 163840000,
	245760000, 327680000, 491520000,
};

TEST(rnr_timer_table_r2_4)
{
	u8 c;

	for (c = 0; c < 32; c++)
		EXPECT_EQ(sroce_rnr_timer_ns(c), r24_ns[c]);
	ASSERT_EQ(sroce_rnr_timer_ns(0), 655360000ULL);	/* 655.36 ms */
	ASSERT_EQ(sroce_rnr_timer_ns(1), 10000ULL);	/* 0.01 ms */
	ASSERT_EQ(sroce_rnr_timer_ns(14), 1280000ULL);	/* 1.28 ms */
	ASSERT_EQ(sroce_rnr_timer_ns(31), 491520000ULL);	/* 491.52 ms */
	ASSERT_EQ(sroce_rnr_timer_ns(32 + 5), 60000ULL);	/* 5-bit field */
}

/* seed-rules R2.4: pick the code that waits at least the asked time */
TEST(rnr_code_for_ns)
{
	u8 c;

	for (c = 1; c < 32; c++)
		ASSERT_EQ(sroce_rnr_code_for_ns(r24_ns[c]), c);
	ASSERT_EQ(sroce_rnr_code_for_ns(0), 1);
	ASSERT_EQ(sroce_rnr_code_for_ns(10001), 2);
	ASSERT_EQ(sroce_rnr_code_for_ns(1000000), 14);	/* 1 ms -> 1.28 ms */
	ASSERT_EQ(sroce_rnr_code_for_ns(491520001), 0);
	ASSERT_EQ(sroce_rnr_code_for_ns(655360000), 0);
}

/* IBA table 45 / rdmavt credit_table; seed-rules R2.10 */
static const u32 credits[31] = {
	0, 1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64, 96, 128, 192, 256, 384,
	512, 768, 1024, 1536, 2048, 3072, 4096, 6144, 8192, 12288, 16384,
	24576, 32768,
};

TEST(credit_table)
{
	u8 c;

	for (c = 0; c <= 0x1e; c++)
		EXPECT_EQ(sroce_credits_from_code(c), credits[c]);
	ASSERT_EQ(sroce_credits_from_code(SROCE_AETH_CREDIT_INVALID),
		  SROCE_CREDITS_UNLIMITED);
	ASSERT_EQ(SROCE_AETH_CREDIT_INVALID, 0x1f);
}

TEST(credits_to_code)
{
	u32 n;
	u8 c;

	for (c = 0; c <= 0x1e; c++)
		ASSERT_EQ(sroce_credits_to_code(credits[c]), c);
	ASSERT_EQ(sroce_credits_to_code(5), 4);		/* round down */
	ASSERT_EQ(sroce_credits_to_code(7), 5);
	ASSERT_EQ(sroce_credits_to_code(100), 0x0d);	/* 96 */
	ASSERT_EQ(sroce_credits_to_code(32767), 0x1d);
	ASSERT_EQ(sroce_credits_to_code(32768), 0x1e);
	ASSERT_EQ(sroce_credits_to_code(U32_MAX), 0x1e);
	/* never advertise more credits than there are */
	for (n = 0; n < 40000; n += 7)
		ASSERT_LE(sroce_credits_from_code(sroce_credits_to_code(n)), n);
}

TEST(syndrome_encode)
{
	ASSERT_EQ(sroce_aeth_syn_ack(0), 0x00);
	ASSERT_EQ(sroce_aeth_syn_ack(0x1f), 0x1f);
	ASSERT_EQ(sroce_aeth_syn_rnr(0), 0x20);
	ASSERT_EQ(sroce_aeth_syn_rnr(0x0e), 0x2e);
	ASSERT_EQ(sroce_aeth_syn_rnr(0x1f), 0x3f);
	/* seed-rules R2.5: PSN sequence error NAK is NAK code 0 */
	ASSERT_EQ(sroce_aeth_syn_nak(SROCE_NAK_PSN_SEQ_ERR), 0x60);
	ASSERT_EQ(sroce_aeth_syn_nak(SROCE_NAK_INV_REQ), 0x61);
	ASSERT_EQ(sroce_aeth_syn_nak(SROCE_NAK_REM_ACCESS), 0x62);
	ASSERT_EQ(sroce_aeth_syn_nak(SROCE_NAK_REM_OP), 0x63);
	ASSERT_EQ(sroce_aeth_syn_nak(SROCE_NAK_INV_RD_REQ), 0x64);
}

TEST(syndrome_decode_all_bytes)
{
	struct sroce_aeth_syndrome s;
	unsigned int syn;
	int ret;

	for (syn = 0; syn < 256; syn++) {
		ret = sroce_aeth_decode((u8)syn, &s);
		if (syn & 0x80) {
			EXPECT_EQ(ret, -EINVAL);
			continue;
		}
		EXPECT_EQ(s.value, syn & 0x1f);
		switch (syn >> 5) {
		case 0:
			EXPECT_EQ(ret, 0);
			EXPECT_EQ(s.type, SROCE_AETH_ACK);
			break;
		case 1:
			EXPECT_EQ(ret, 0);
			EXPECT_EQ(s.type, SROCE_AETH_RNR_NAK);
			break;
		case 2:
			EXPECT_EQ(ret, -EINVAL);	/* reserved type */
			break;
		case 3:
			EXPECT_EQ(s.type, SROCE_AETH_NAK);
			EXPECT_EQ(ret, (syn & 0x1f) <= 4 ? 0 : -EINVAL);
			break;
		}
	}
}

TEST(syndrome_roundtrip)
{
	struct sroce_aeth_syndrome s;
	u8 v;

	for (v = 0; v < 32; v++) {
		ASSERT_EQ(sroce_aeth_decode(sroce_aeth_syn_ack(v), &s), 0);
		ASSERT_EQ(s.type, SROCE_AETH_ACK);
		ASSERT_EQ(s.value, v);
		ASSERT_EQ(sroce_aeth_decode(sroce_aeth_syn_rnr(v), &s), 0);
		ASSERT_EQ(s.type, SROCE_AETH_RNR_NAK);
		ASSERT_EQ(s.value, v);
	}
}
