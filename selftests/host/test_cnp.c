// SPDX-License-Identifier: GPL-2.0-only
/*
 * Host tests for kernel/core/cnp.c: the RoCEv2 CNP (IBA annex A17.9.2) and
 * the notification point's interval (issue 21 section 3).
 */
#include "harness.h"
#include "cnp.h"
#include "opcode.h"
#include "parse.h"

/* BTH + reserved of a CNP captured on a ConnectX-4 Lx (test_icrc.c). */
static const u8 cx4lx_cnp[SROCE_CNP_LEN - SROCE_ICRC_LEN] = {
	0x81, 0x00, 0xff, 0xff, 0x40, 0x00, 0x01, 0x18, 0, 0, 0, 0,
};

TEST(build_matches_cx4lx_capture)
{
	u8 buf[64];
	u32 i;

	memset(buf, 0xa5, sizeof(buf));
	ASSERT_EQ(sroce_cnp_build(buf, sizeof(buf), 0xffff, 0x118), 28);
	for (i = 0; i < sizeof(cx4lx_cnp); i++)
		ASSERT_EQ(buf[i], cx4lx_cnp[i]);
	ASSERT_EQ(buf[28], 0xa5);	/* nothing past the reserved bytes */
	ASSERT_TRUE(sroce_bth_becn(buf));
	ASSERT_FALSE(sroce_bth_fecn(buf));
	ASSERT_EQ(sroce_bth_pkey(buf), 0xffff);
}

TEST(build_fields)
{
	u8 buf[28];

	memset(buf, 0xff, sizeof(buf));
	ASSERT_EQ(sroce_cnp_build(buf, sizeof(buf), 0x8001, 0xabcdef), 28);
	ASSERT_EQ(sroce_bth_opcode(buf), SROCE_OP_CNP);
	ASSERT_EQ(sroce_bth_pkey(buf), 0x8001);
	ASSERT_EQ(sroce_bth_qpn(buf), 0xabcdefU);
	ASSERT_EQ(sroce_bth_psn(buf), 0U);
	ASSERT_FALSE(sroce_bth_ackreq(buf));
	ASSERT_FALSE(sroce_bth_se(buf));
	ASSERT_EQ(sroce_bth_tver(buf), 0);
	ASSERT_EQ(buf[27], 0);
}

TEST(build_rejects)
{
	u8 buf[28];

	ASSERT_EQ(sroce_cnp_build(buf, 27, 0xffff, 1), -ENOSPC);
	ASSERT_EQ(sroce_cnp_build(buf, 28, 0xffff, 0x1000000), -EINVAL);
	/* R1.4: no CNP to the multicast QPN */
	ASSERT_EQ(sroce_cnp_build(buf, 28, 0xffff, SROCE_QPN_MULTICAST),
		  -EINVAL);
}

TEST(parse_round_trip)
{
	u8 buf[SROCE_CNP_LEN] = {};
	u32 dqpn = 0;

	ASSERT_EQ(sroce_cnp_build(buf, sizeof(buf), 0xffff, 0x123456), 28);
	ASSERT_EQ(sroce_cnp_parse(buf, SROCE_CNP_LEN, &dqpn), 0);
	ASSERT_EQ(dqpn, 0x123456U);
	/* the capture parses too */
	memcpy(buf, cx4lx_cnp, sizeof(cx4lx_cnp));
	ASSERT_EQ(sroce_cnp_parse(buf, SROCE_CNP_LEN, &dqpn), 0);
	ASSERT_EQ(dqpn, 0x118U);
}

TEST(parse_rejects_every_other_length)
{
	u8 buf[64] = {};
	u32 dqpn = 7;
	size_t len;

	ASSERT_EQ(sroce_cnp_build(buf, sizeof(buf), 0xffff, 5), 28);
	for (len = 0; len < sizeof(buf); len++) {
		int err = sroce_cnp_parse(buf, len, &dqpn);

		if (len == SROCE_CNP_LEN)
			ASSERT_EQ(err, 0);
		else if (len < SROCE_BTH_LEN)
			ASSERT_EQ(err, -SROCE_PARSE_ERR_TOO_SHORT);
		else if (len < SROCE_CNP_LEN)
			ASSERT_EQ(err, -SROCE_PARSE_ERR_HDR_TRUNC);
		else
			ASSERT_EQ(err, -SROCE_PARSE_ERR_UNEXPECTED_PAYLOAD);
	}
}

TEST(parse_rejects_tver_and_opcode)
{
	u8 buf[SROCE_CNP_LEN] = {};
	u32 dqpn = 0;

	ASSERT_EQ(sroce_cnp_build(buf, sizeof(buf), 0xffff, 5), 28);
	sroce_bth_set_tver(buf, 1);
	ASSERT_EQ(sroce_cnp_parse(buf, sizeof(buf), &dqpn),
		  -SROCE_PARSE_ERR_TVER);
	sroce_bth_set_tver(buf, 0);
	buf[0] = 0x80;	/* the CNP range, not the CNP */
	ASSERT_EQ(sroce_cnp_parse(buf, sizeof(buf), &dqpn),
		  -SROCE_PARSE_ERR_OPCODE_UNKNOWN);
	/* the transport parser still leaves a CNP to sroce_cnp_parse() */
	buf[0] = SROCE_OP_CNP;
	{
		struct sroce_hdrs h;

		ASSERT_EQ(sroce_parse_hdrs(buf, sizeof(buf), &h),
			  -SROCE_PARSE_ERR_CNP);
	}
}

TEST(interval)
{
	const u64 us = 1000;

	/* never sent: due whatever the clock says */
	ASSERT_TRUE(sroce_cnp_due(1, 0, 4 * us));
	ASSERT_TRUE(sroce_cnp_due(U64_MAX, 0, 4 * us));
	/* within the interval: not due; at it and after: due */
	ASSERT_FALSE(sroce_cnp_due(10 * us, 10 * us, 4 * us));
	ASSERT_FALSE(sroce_cnp_due(14 * us - 1, 10 * us, 4 * us));
	ASSERT_TRUE(sroce_cnp_due(14 * us, 10 * us, 4 * us));
	ASSERT_TRUE(sroce_cnp_due(1000 * us, 10 * us, 4 * us));
	/* another CPU stamped a later time: not due */
	ASSERT_FALSE(sroce_cnp_due(10 * us, 11 * us, 4 * us));
	ASSERT_FALSE(sroce_cnp_due(10 * us, 11 * us, 0));
	/* interval 0: every marked packet */
	ASSERT_TRUE(sroce_cnp_due(10 * us, 10 * us, 0));
	/* the clock wrapping past 2^64 */
	ASSERT_TRUE(sroce_cnp_due(3 * us, U64_MAX - us, 4 * us));
	ASSERT_FALSE(sroce_cnp_due(2 * us, U64_MAX - us, 4 * us));
}
