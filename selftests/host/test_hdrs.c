// SPDX-License-Identifier: GPL-2.0-only
/* Host tests for kernel/core/bth.h and ext_hdrs.h: exact wire layout. */
#include "harness.h"
#include "bth.h"
#include "ext_hdrs.h"

TEST(header_lengths)
{
	ASSERT_EQ(SROCE_BTH_LEN, 12);
	ASSERT_EQ(SROCE_RETH_LEN, 16);
	ASSERT_EQ(SROCE_AETH_LEN, 4);
	ASSERT_EQ(SROCE_ATMETH_LEN, 28);
	ASSERT_EQ(SROCE_ATMACK_LEN, 8);
	ASSERT_EQ(SROCE_DETH_LEN, 8);
	ASSERT_EQ(SROCE_FETH_LEN, 4);
	ASSERT_EQ(SROCE_IMMDT_LEN, 4);
	ASSERT_EQ(SROCE_IETH_LEN, 4);
	ASSERT_EQ(SROCE_ICRC_LEN, 4);
}

/* A real BTH: CNP captured on a ConnectX-4 Lx (see test_icrc.c). */
TEST(bth_decode_real)
{
	static const u8 bth[12] = {
		0x81, 0x00, 0xff, 0xff, 0x40, 0x00, 0x01, 0x18,
		0x00, 0x00, 0x00, 0x00
	};

	ASSERT_EQ(sroce_bth_opcode(bth), 0x81);
	ASSERT_FALSE(sroce_bth_se(bth));
	ASSERT_FALSE(sroce_bth_mig(bth));
	ASSERT_EQ(sroce_bth_pad(bth), 0);
	ASSERT_EQ(sroce_bth_tver(bth), 0);
	ASSERT_EQ(sroce_bth_pkey(bth), 0xffff);
	ASSERT_FALSE(sroce_bth_fecn(bth));
	ASSERT_TRUE(sroce_bth_becn(bth));
	ASSERT_EQ(sroce_bth_qpn(bth), 0x118U);
	ASSERT_FALSE(sroce_bth_ackreq(bth));
	ASSERT_EQ(sroce_bth_psn(bth), 0U);
}

TEST(bth_set_exact_bytes)
{
	static const u8 want[12] = {
		0x24, 0xe5, 0x80, 0x01, 0x80, 0xab, 0xcd, 0xef,
		0x80, 0x12, 0x34, 0x56
	};
	u8 b[12];

	memset(b, 0, sizeof(b));
	sroce_bth_set_opcode(b, 0x24);
	sroce_bth_set_se(b, true);
	sroce_bth_set_mig(b, true);
	sroce_bth_set_pad(b, 2);
	sroce_bth_set_tver(b, 5);
	sroce_bth_set_pkey(b, 0x8001);
	sroce_bth_set_fecn(b, true);
	sroce_bth_set_qpn(b, 0xabcdef);
	sroce_bth_set_ackreq(b, true);
	sroce_bth_set_psn(b, 0x123456);
	ASSERT_MEMEQ(b, want, 12);
	ASSERT_EQ(sroce_bth_pad(b), 2);
	ASSERT_EQ(sroce_bth_tver(b), 5);
	ASSERT_TRUE(sroce_bth_se(b));
	ASSERT_TRUE(sroce_bth_mig(b));
	ASSERT_TRUE(sroce_bth_fecn(b));
	ASSERT_FALSE(sroce_bth_becn(b));
	ASSERT_TRUE(sroce_bth_ackreq(b));
	ASSERT_EQ(sroce_bth_qpn(b), 0xabcdefU);
	ASSERT_EQ(sroce_bth_psn(b), 0x123456U);
}

/* Setters only touch their own bits. */
TEST(bth_setters_isolated)
{
	u8 b[12], ref[12];

	memset(b, 0xff, sizeof(b));
	sroce_bth_set_se(b, false);
	memset(ref, 0xff, sizeof(ref));
	ref[1] = 0x7f;
	ASSERT_MEMEQ(b, ref, 12);

	memset(b, 0xff, sizeof(b));
	sroce_bth_set_pad(b, 0);
	ref[1] = 0xcf;
	ASSERT_MEMEQ(b, ref, 12);

	memset(b, 0xff, sizeof(b));
	sroce_bth_set_qpn(b, 0);
	memset(ref, 0xff, sizeof(ref));
	ref[5] = ref[6] = ref[7] = 0;
	ASSERT_MEMEQ(b, ref, 12);

	memset(b, 0xff, sizeof(b));
	sroce_bth_set_becn(b, false);
	memset(ref, 0xff, sizeof(ref));
	ref[4] = 0xbf;
	ASSERT_MEMEQ(b, ref, 12);

	memset(b, 0xff, sizeof(b));
	sroce_bth_set_psn(b, 0x000001);
	memset(ref, 0xff, sizeof(ref));
	ref[9] = 0;
	ref[10] = 0;
	ref[11] = 1;
	ASSERT_MEMEQ(b, ref, 12);

	memset(b, 0xff, sizeof(b));
	sroce_bth_set_ackreq(b, false);
	memset(ref, 0xff, sizeof(ref));
	ref[8] = 0x7f;
	ASSERT_MEMEQ(b, ref, 12);

	/* too-wide values are truncated to the field */
	memset(b, 0, sizeof(b));
	sroce_bth_set_psn(b, 0xff000001);
	sroce_bth_set_pad(b, 0xff);
	ASSERT_EQ(b[8], 0);
	ASSERT_EQ(sroce_bth_psn(b), 1U);
	ASSERT_EQ(b[1], 0x30);
}

TEST(pad_for)
{
	ASSERT_EQ(sroce_pad_for(0), 0);
	ASSERT_EQ(sroce_pad_for(1), 3);
	ASSERT_EQ(sroce_pad_for(2), 2);
	ASSERT_EQ(sroce_pad_for(3), 1);
	ASSERT_EQ(sroce_pad_for(4), 0);
	ASSERT_EQ(sroce_pad_for(4097), 3);
}

/* IBA 10.9.3; seed-rules R1.5: a packet of another partition is dropped. */
TEST(pkey_match)
{
	ASSERT_TRUE(sroce_pkey_match(0xFFFF, 0xFFFF));
	ASSERT_TRUE(sroce_pkey_match(0x7FFF, 0xFFFF));	/* limited vs full */
	ASSERT_TRUE(sroce_pkey_match(0xFFFF, 0x7FFF));
	ASSERT_FALSE(sroce_pkey_match(0x7FFF, 0x7FFF));	/* both limited */
	ASSERT_FALSE(sroce_pkey_match(0x1234, 0xFFFF));
	ASSERT_FALSE(sroce_pkey_match(0xFFFE, 0xFFFF));
	ASSERT_FALSE(sroce_pkey_match(0x8000, 0x8000));	/* invalid P_Key */
	ASSERT_FALSE(sroce_pkey_match(0x0000, 0x8000));
	ASSERT_TRUE(sroce_pkey_match(0x8123, 0x0123));
}

TEST(reth_layout)
{
	static const u8 want[16] = {
		0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08,
		0xde, 0xad, 0xbe, 0xef, 0x80, 0x00, 0x00, 0x00
	};
	u8 b[16];

	sroce_reth_set(b, 0x0102030405060708ULL, 0xdeadbeef, 0x80000000);
	ASSERT_MEMEQ(b, want, 16);
	ASSERT_EQ(sroce_reth_va(b), 0x0102030405060708ULL);
	ASSERT_EQ(sroce_reth_rkey(b), 0xdeadbeefU);
	ASSERT_EQ(sroce_reth_len(b), 0x80000000U);	/* 2^31, R1.3 */
}

/* IBA 1.5 FETH: placement type in bits 3:0, selectivity in bits 5:4 */
TEST(feth_layout)
{
	static const u8 want[4] = { 0x00, 0x00, 0x00, 0x12 };
	u8 b[4] = { 0xff, 0xff, 0xff, 0xff };

	sroce_feth_set(b, 2, 1);	/* persistent, whole MR */
	ASSERT_MEMEQ(b, want, 4);
	ASSERT_EQ(sroce_feth_plt(b), 2);
	ASSERT_EQ(sroce_feth_sel(b), 1);
	b[0] = 0xff;			/* reserved bits are not read */
	b[3] |= 0xc0;
	ASSERT_EQ(sroce_feth_plt(b), 2);
	ASSERT_EQ(sroce_feth_sel(b), 1);
}

TEST(aeth_layout)
{
	static const u8 want[4] = { 0x62, 0xab, 0xcd, 0xef };
	u8 b[4];

	sroce_aeth_set(b, 0x62, 0xabcdef);
	ASSERT_MEMEQ(b, want, 4);
	ASSERT_EQ(sroce_aeth_syn(b), 0x62);
	ASSERT_EQ(sroce_aeth_msn(b), 0xabcdefU);
	sroce_aeth_set(b, 0x1f, 0x1000001);	/* MSN is 24 bits */
	ASSERT_EQ(b[0], 0x1f);
	ASSERT_EQ(sroce_aeth_msn(b), 1U);
}

TEST(atmeth_layout)
{
	static const u8 want[28] = {
		0x00, 0x00, 0x7f, 0xff, 0x12, 0x34, 0x56, 0x78,
		0x11, 0x22, 0x33, 0x44,
		0xa0, 0xa1, 0xa2, 0xa3, 0xa4, 0xa5, 0xa6, 0xa7,
		0xc0, 0xc1, 0xc2, 0xc3, 0xc4, 0xc5, 0xc6, 0xc7
	};
	u8 b[28];

	sroce_atmeth_set(b, 0x00007fff12345678ULL, 0x11223344,
			 0xa0a1a2a3a4a5a6a7ULL, 0xc0c1c2c3c4c5c6c7ULL);
	ASSERT_MEMEQ(b, want, 28);
	ASSERT_EQ(sroce_atmeth_va(b), 0x00007fff12345678ULL);
	ASSERT_EQ(sroce_atmeth_rkey(b), 0x11223344U);
	ASSERT_EQ(sroce_atmeth_swap_add(b), 0xa0a1a2a3a4a5a6a7ULL);
	ASSERT_EQ(sroce_atmeth_comp(b), 0xc0c1c2c3c4c5c6c7ULL);
}

TEST(atmack_layout)
{
	static const u8 want[8] = { 1, 2, 3, 4, 5, 6, 7, 8 };
	u8 b[8];

	sroce_atmack_set(b, 0x0102030405060708ULL);
	ASSERT_MEMEQ(b, want, 8);
	ASSERT_EQ(sroce_atmack_orig(b), 0x0102030405060708ULL);
}

TEST(deth_layout)
{
	static const u8 want[8] = {
		0x80, 0x01, 0x00, 0x02, 0x00, 0x00, 0x00, 0x01
	};
	u8 b[8];

	memset(b, 0xff, sizeof(b));
	sroce_deth_set(b, 0x80010002, 1);	/* privileged Q_Key, GSI */
	ASSERT_MEMEQ(b, want, 8);		/* reserved byte zeroed */
	ASSERT_EQ(sroce_deth_qkey(b), 0x80010002U);
	ASSERT_TRUE(sroce_deth_qkey(b) & SROCE_QKEY_PRIVILEGED);
	ASSERT_EQ(sroce_deth_sqpn(b), 1U);
	b[4] = 0xaa;				/* reserved ignored on read */
	ASSERT_EQ(sroce_deth_sqpn(b), 1U);
}

TEST(immdt_ieth_layout)
{
	static const u8 want[4] = { 0xca, 0xfe, 0xba, 0xbe };
	u8 b[4];

	sroce_immdt_set(b, cpu_to_be32(0xcafebabe));
	ASSERT_MEMEQ(b, want, 4);
	ASSERT_EQ(sroce_immdt_imm(b), cpu_to_be32(0xcafebabe));
	memset(b, 0, sizeof(b));
	sroce_ieth_set(b, 0xcafebabe);
	ASSERT_MEMEQ(b, want, 4);
	ASSERT_EQ(sroce_ieth_rkey(b), 0xcafebabeU);
}
