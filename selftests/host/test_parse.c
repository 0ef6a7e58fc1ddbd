// SPDX-License-Identifier: GPL-2.0-only
/*
 * Host tests for kernel/core/parse.c: decoding, every rejection reason,
 * builder errors, parse/build round trips and out-of-bounds safety.
 */
#include <stdlib.h>

#include "harness.h"
#include "parse.h"

#define BUF_MAX		(64 + SROCE_MAX_PAYLOAD + 64)

/* Build a packet: headers for @op, @paylen payload bytes, pad, ICRC. */
static size_t mk(u8 *buf, u8 op, u32 paylen)
{
	struct sroce_hdrs h;
	int hl;
	u8 pad = sroce_pad_for(paylen);

	memset(&h, 0, sizeof(h));
	h.opcode = op;
	h.pad = pad;
	h.pkey = 0xffff;
	h.dqpn = 0x11;
	h.psn = 0x123;
	hl = sroce_build_hdrs(buf, BUF_MAX, &h);
	if (hl < 0)
		return 0;
	memset(buf + hl, 0xa5, paylen);
	memset(buf + hl + paylen, 0, pad + SROCE_ICRC_LEN);
	return hl + paylen + pad + SROCE_ICRC_LEN;
}

static u8 buf[BUF_MAX];

/* RC RDMA WRITE ONLY with immediate, typed byte by byte. */
TEST(parse_decode_handmade)
{
	static const u8 pkt[] = {
		/* BTH: opcode, SE|pad 3, P_Key, FECN|QPN, AckReq|PSN */
		0x0b, 0xb0, 0x80, 0x01, 0x80, 0x00, 0x12, 0x34,
		0x80, 0xff, 0xff, 0xfe,
		/* RETH: VA, R_Key, DMA length */
		0x00, 0x00, 0x7f, 0x00, 0x00, 0x00, 0x10, 0x00,
		0x00, 0x00, 0x04, 0xd2, 0x00, 0x00, 0x00, 0x05,
		/* ImmDt */
		0xde, 0xad, 0xbe, 0xef,
		/* 5 payload bytes + 3 pad */
		'h', 'e', 'l', 'l', 'o', 0, 0, 0,
		/* ICRC (not checked here) */
		0x11, 0x22, 0x33, 0x44,
	};
	struct sroce_hdrs h;

	ASSERT_EQ(sroce_parse_hdrs(pkt, sizeof(pkt), &h), 0);
	ASSERT_EQ(h.opcode, SROCE_OP_RC_RDMA_WRITE_ONLY_WITH_IMMEDIATE);
	ASSERT_TRUE(h.se);
	ASSERT_FALSE(h.mig);
	ASSERT_EQ(h.pad, 3);
	ASSERT_EQ(h.tver, 0);
	ASSERT_EQ(h.pkey, 0x8001);
	ASSERT_TRUE(h.fecn);
	ASSERT_FALSE(h.becn);
	ASSERT_EQ(h.dqpn, 0x1234U);
	ASSERT_TRUE(h.ackreq);
	ASSERT_EQ(h.psn, 0xfffffeU);
	ASSERT_EQ(h.reth.va, 0x00007f0000001000ULL);
	ASSERT_EQ(h.reth.rkey, 1234U);
	ASSERT_EQ(h.reth.len, 5U);
	ASSERT_EQ(h.imm, cpu_to_be32(0xdeadbeef));
	ASSERT_EQ(h.hdr_len, 32U);
	ASSERT_EQ(h.payload_off, 32U);
	ASSERT_EQ(h.payload_len, 5U);
	ASSERT_EQ(h.pkt_len, (u32)sizeof(pkt));
	ASSERT_EQ(memcmp(pkt + h.payload_off, "hello", 5), 0);
	ASSERT_TRUE(h.mask & SROCE_M_RETH);
	ASSERT_EQ(h.aeth.syn, 0);	/* absent headers stay zero */
	ASSERT_EQ(h.deth.qkey, 0U);
}

TEST(parse_ud_and_acks)
{
	struct sroce_hdrs in, out;
	int hl;

	memset(&in, 0, sizeof(in));
	in.opcode = SROCE_OP_UD_SEND_ONLY_WITH_IMMEDIATE;
	in.dqpn = 1;
	in.deth.qkey = 0x80010000;
	in.deth.sqpn = 0xabcdef;
	in.imm = cpu_to_be32(7);
	hl = sroce_build_hdrs(buf, sizeof(buf), &in);
	ASSERT_EQ(hl, 24);
	memset(buf + hl, 0, 4);
	ASSERT_EQ(sroce_parse_hdrs(buf, hl + 4, &out), 0);
	ASSERT_EQ(out.deth.qkey, 0x80010000U);
	ASSERT_EQ(out.deth.sqpn, 0xabcdefU);
	ASSERT_EQ(out.imm, cpu_to_be32(7));
	ASSERT_EQ(out.payload_len, 0U);	/* zero-length UD send is legal */

	memset(&in, 0, sizeof(in));
	in.opcode = SROCE_OP_RC_ATOMIC_ACKNOWLEDGE;
	in.aeth.syn = 0x1f;
	in.aeth.msn = 0x654321;
	in.atmack_orig = 0x1122334455667788ULL;
	hl = sroce_build_hdrs(buf, sizeof(buf), &in);
	ASSERT_EQ(hl, 24);
	ASSERT_EQ(sroce_parse_hdrs(buf, hl + 4, &out), 0);
	ASSERT_EQ(out.aeth.syn, 0x1f);
	ASSERT_EQ(out.aeth.msn, 0x654321U);
	ASSERT_EQ(out.atmack_orig, 0x1122334455667788ULL);

	memset(&in, 0, sizeof(in));
	in.opcode = SROCE_OP_RC_COMPARE_SWAP;
	in.atmeth.va = 0x1000;
	in.atmeth.rkey = 9;
	in.atmeth.swap_add = 3;
	in.atmeth.comp = 4;
	hl = sroce_build_hdrs(buf, sizeof(buf), &in);
	ASSERT_EQ(hl, 40);
	ASSERT_EQ(sroce_parse_hdrs(buf, hl + 4, &out), 0);
	ASSERT_EQ(out.atmeth.va, 0x1000ULL);
	ASSERT_EQ(out.atmeth.rkey, 9U);
	ASSERT_EQ(out.atmeth.swap_add, 3ULL);
	ASSERT_EQ(out.atmeth.comp, 4ULL);
}

/* XRC (IBA annex A14): the XRCETH between the BTH and the RETH */
TEST(parse_xrc)
{
	struct sroce_hdrs in, out;
	int hl;

	memset(&in, 0, sizeof(in));
	in.opcode = SROCE_OP_XRC_RDMA_WRITE_ONLY_WITH_IMMEDIATE;
	in.dqpn = 0x42;
	in.xrc_srqn = 0xabcdef;
	in.reth.va = 0x2000;
	in.reth.rkey = 0x77;
	in.reth.len = 4;
	in.imm = cpu_to_be32(5);
	memset(buf, 0xff, 64);
	hl = sroce_build_hdrs(buf, sizeof(buf), &in);
	ASSERT_EQ(hl, 36);
	ASSERT_EQ(buf[12], 0);		/* XRCETH reserved */
	ASSERT_EQ(buf[13], 0xab);
	ASSERT_EQ(buf[15], 0xef);
	ASSERT_EQ(buf[16 + 11], 0x77);	/* R_Key's last byte: RETH at 16 */
	memset(buf + hl, 0, 8);
	ASSERT_EQ(sroce_parse_hdrs(buf, hl + 8, &out), 0);
	ASSERT_EQ(out.xrc_srqn, 0xabcdefU);
	ASSERT_EQ(out.reth.va, 0x2000ULL);
	ASSERT_EQ(out.reth.rkey, 0x77U);
	ASSERT_EQ(out.imm, cpu_to_be32(5));
	ASSERT_EQ(out.payload_len, 4U);
	/* a reserved bit set on the wire is not part of the SRQ number */
	buf[12] = 0x80;
	ASSERT_EQ(sroce_parse_hdrs(buf, hl + 8, &out), 0);
	ASSERT_EQ(out.xrc_srqn, 0xabcdefU);

	in.xrc_srqn = 0x1000000;	/* wider than 24 bits */
	ASSERT_EQ(sroce_build_hdrs(buf, sizeof(buf), &in), -EINVAL);

	/* XRC responses carry no XRCETH */
	memset(&in, 0, sizeof(in));
	in.opcode = SROCE_OP_XRC_ACKNOWLEDGE;
	in.xrc_srqn = 9;		/* ignored: no such header */
	in.aeth.msn = 3;
	hl = sroce_build_hdrs(buf, sizeof(buf), &in);
	ASSERT_EQ(hl, 16);
	ASSERT_EQ(sroce_parse_hdrs(buf, hl + 4, &out), 0);
	ASSERT_EQ(out.xrc_srqn, 0U);
	ASSERT_EQ(out.aeth.msn, 3U);
}

TEST(parse_every_opcode_valid)
{
	struct sroce_hdrs h;
	unsigned int op;
	u32 len;

	for (op = 0; op < 256; op++) {
		const struct sroce_opcode_info *i = sroce_opcode_get(op);
		bool has_pl;

		if (!i)
			continue;
		has_pl = i->mask & SROCE_M_PAYLOAD;
		for (len = 0; len <= (has_pl ? 9U : 0U); len++) {
			size_t n;

			/* FIRST/MIDDLE must not carry pad: use 4-multiples */
			if (!(i->mask & SROCE_M_END) && (len & 3))
				continue;
			n = mk(buf, op, len);
			ASSERT_NE(n, 0UL);
			ASSERT_EQ(sroce_parse_hdrs(buf, n, &h), 0);
			EXPECT_EQ(h.payload_len, len);
			EXPECT_EQ(h.hdr_len, i->length);
			EXPECT_EQ(h.mask, i->mask);
		}
	}
}

/* Each malformed case yields its own reason code. */
TEST(parse_reject_too_short)
{
	struct sroce_hdrs h;

	ASSERT_EQ(sroce_parse_hdrs(buf, 0, &h), -SROCE_PARSE_ERR_TOO_SHORT);
	ASSERT_EQ(sroce_parse_hdrs(buf, 11, &h), -SROCE_PARSE_ERR_TOO_SHORT);
}

/* seed-rules R1.1: RD is not offered */
TEST(parse_reject_opcodes)
{
	static const u8 unknown[] = {
		0x15, 0x18, 0x1f, 0x2c, 0x3f, 0x60, 0x63, 0x66, 0x7f, 0x80,
		0x82, 0xb5, 0xb8, 0xbc, 0xbd, 0xc0, 0xff
	};
	struct sroce_hdrs h;
	unsigned int op;
	size_t i;

	memset(buf, 0, 64);
	for (op = 0x40; op < 0x60; op++) {
		buf[0] = op;
		EXPECT_EQ(sroce_parse_hdrs(buf, 64, &h),
			  -SROCE_PARSE_ERR_OPCODE_RD);
	}
	buf[0] = SROCE_OP_CNP;
	EXPECT_EQ(sroce_parse_hdrs(buf, 32, &h), -SROCE_PARSE_ERR_CNP);
	for (i = 0; i < ARRAY_SIZE(unknown); i++) {
		buf[0] = unknown[i];
		EXPECT_EQ(sroce_parse_hdrs(buf, 64, &h),
			  -SROCE_PARSE_ERR_OPCODE_UNKNOWN);
	}
}

TEST(parse_reject_tver)
{
	struct sroce_hdrs h;
	size_t n = mk(buf, SROCE_OP_RC_SEND_ONLY, 8);
	u8 v;

	for (v = 1; v < 16; v++) {
		sroce_bth_set_tver(buf, v);
		EXPECT_EQ(sroce_parse_hdrs(buf, n, &h), -SROCE_PARSE_ERR_TVER);
	}
}

TEST(parse_reject_truncated)
{
	struct sroce_hdrs h;

	mk(buf, SROCE_OP_RC_RDMA_WRITE_FIRST, 0);
	ASSERT_EQ(sroce_parse_hdrs(buf, 12, &h), -SROCE_PARSE_ERR_HDR_TRUNC);
	ASSERT_EQ(sroce_parse_hdrs(buf, 27, &h), -SROCE_PARSE_ERR_HDR_TRUNC);
	ASSERT_EQ(sroce_parse_hdrs(buf, 28, &h), -SROCE_PARSE_ERR_NO_ICRC);
	ASSERT_EQ(sroce_parse_hdrs(buf, 31, &h), -SROCE_PARSE_ERR_NO_ICRC);
	ASSERT_EQ(sroce_parse_hdrs(buf, 32, &h), 0);

	mk(buf, SROCE_OP_RC_SEND_ONLY, 0);
	ASSERT_EQ(sroce_parse_hdrs(buf, 12, &h), -SROCE_PARSE_ERR_NO_ICRC);
	ASSERT_EQ(sroce_parse_hdrs(buf, 15, &h), -SROCE_PARSE_ERR_NO_ICRC);
	ASSERT_EQ(sroce_parse_hdrs(buf, 16, &h), 0);

	mk(buf, SROCE_OP_RC_COMPARE_SWAP, 0);
	ASSERT_EQ(sroce_parse_hdrs(buf, 39, &h), -SROCE_PARSE_ERR_HDR_TRUNC);
}

TEST(parse_reject_pad_and_alignment)
{
	struct sroce_hdrs h;
	size_t n;

	/* payload+pad not a multiple of 4 */
	n = mk(buf, SROCE_OP_RC_SEND_ONLY, 8);
	ASSERT_EQ(sroce_parse_hdrs(buf, n + 1, &h),
		  -SROCE_PARSE_ERR_UNALIGNED);
	ASSERT_EQ(sroce_parse_hdrs(buf, n - 2, &h),
		  -SROCE_PARSE_ERR_UNALIGNED);

	/* pad count larger than what is there */
	n = mk(buf, SROCE_OP_RC_SEND_ONLY, 0);
	sroce_bth_set_pad(buf, 3);
	ASSERT_EQ(sroce_parse_hdrs(buf, n, &h), -SROCE_PARSE_ERR_PAD);
	n = mk(buf, SROCE_OP_RC_SEND_LAST, 1);	/* 1 byte + 3 pad: fine */
	ASSERT_EQ(sroce_parse_hdrs(buf, n, &h), 0);
	ASSERT_EQ(h.payload_len, 1U);

	/* pad on a FIRST / MIDDLE packet */
	n = mk(buf, SROCE_OP_RC_SEND_FIRST, 8);
	sroce_bth_set_pad(buf, 1);
	ASSERT_EQ(sroce_parse_hdrs(buf, n, &h), -SROCE_PARSE_ERR_PAD_NOT_LAST);
	n = mk(buf, SROCE_OP_UC_RDMA_WRITE_MIDDLE, 8);
	sroce_bth_set_pad(buf, 2);
	ASSERT_EQ(sroce_parse_hdrs(buf, n, &h), -SROCE_PARSE_ERR_PAD_NOT_LAST);
	n = mk(buf, SROCE_OP_RC_RDMA_READ_RESPONSE_MIDDLE, 8);
	sroce_bth_set_pad(buf, 3);
	ASSERT_EQ(sroce_parse_hdrs(buf, n, &h), -SROCE_PARSE_ERR_PAD_NOT_LAST);
}

TEST(parse_reject_unexpected_payload)
{
	static const u8 no_payload[] = {
		SROCE_OP_RC_ACKNOWLEDGE, SROCE_OP_RC_ATOMIC_ACKNOWLEDGE,
		SROCE_OP_RC_RDMA_READ_REQUEST, SROCE_OP_RC_COMPARE_SWAP,
		SROCE_OP_RC_FETCH_ADD,
	};
	struct sroce_hdrs h;
	size_t i, n;

	for (i = 0; i < ARRAY_SIZE(no_payload); i++) {
		n = mk(buf, no_payload[i], 0);
		ASSERT_EQ(sroce_parse_hdrs(buf, n, &h), 0);
		EXPECT_EQ(sroce_parse_hdrs(buf, n + 4, &h),
			  -SROCE_PARSE_ERR_UNEXPECTED_PAYLOAD);
		/* a pad count alone is also payload-ish garbage */
		sroce_bth_set_pad(buf, 1);
		EXPECT_EQ(sroce_parse_hdrs(buf, n, &h), -SROCE_PARSE_ERR_PAD);
	}
}

/* seed-rules R1.3: at most 4096 payload bytes per packet */
TEST(parse_payload_limit)
{
	struct sroce_hdrs h;
	size_t n;

	n = mk(buf, SROCE_OP_RC_SEND_ONLY, SROCE_MAX_PAYLOAD);
	ASSERT_EQ(sroce_parse_hdrs(buf, n, &h), 0);
	ASSERT_EQ(h.payload_len, 4096U);
	n = mk(buf, SROCE_OP_RC_SEND_ONLY, SROCE_MAX_PAYLOAD + 1);
	ASSERT_EQ(sroce_parse_hdrs(buf, n, &h),
		  -SROCE_PARSE_ERR_PAYLOAD_TOO_LONG);
	n = mk(buf, SROCE_OP_RC_SEND_MIDDLE, SROCE_MAX_PAYLOAD + 4);
	ASSERT_EQ(sroce_parse_hdrs(buf, n, &h),
		  -SROCE_PARSE_ERR_PAYLOAD_TOO_LONG);
	/* enormous len from a corrupt caller is still just "too long" */
	ASSERT_EQ(sroce_parse_hdrs(buf, (size_t)1 << 40, &h),
		  -SROCE_PARSE_ERR_PAYLOAD_TOO_LONG);
}

TEST(parse_err_names)
{
	int e, f;

	ASSERT_EQ(SROCE_PARSE_ERR_COUNT, 13);
	ASSERT_STREQ(sroce_parse_err_name(0), "OK");
	ASSERT_STREQ(sroce_parse_err_name(-SROCE_PARSE_ERR_CNP), "CNP");
	ASSERT_STREQ(sroce_parse_err_name(SROCE_PARSE_ERR_TVER), "TVER");
	ASSERT_STREQ(sroce_parse_err_name(SROCE_PARSE_ERR_COUNT), "UNKNOWN");
	for (e = 1; e < SROCE_PARSE_ERR_COUNT; e++)
		for (f = e + 1; f < SROCE_PARSE_ERR_COUNT; f++)
			EXPECT_NE(strcmp(sroce_parse_err_name(e),
					 sroce_parse_err_name(f)), 0);
}

TEST(build_errors)
{
	struct sroce_hdrs in;

	memset(&in, 0, sizeof(in));
	in.opcode = 0x15;
	ASSERT_EQ(sroce_build_hdrs(buf, sizeof(buf), &in), -EINVAL);
	in.opcode = 0x4c;	/* RD */
	ASSERT_EQ(sroce_build_hdrs(buf, sizeof(buf), &in), -EINVAL);
	in.opcode = SROCE_OP_RC_SEND_ONLY;
	in.psn = 0x1000000;
	ASSERT_EQ(sroce_build_hdrs(buf, sizeof(buf), &in), -EINVAL);
	in.psn = 0;
	in.dqpn = 0x1000000;
	ASSERT_EQ(sroce_build_hdrs(buf, sizeof(buf), &in), -EINVAL);
	in.dqpn = 0;
	in.pad = 4;
	ASSERT_EQ(sroce_build_hdrs(buf, sizeof(buf), &in), -EINVAL);
	in.pad = 0;
	in.tver = 16;
	ASSERT_EQ(sroce_build_hdrs(buf, sizeof(buf), &in), -EINVAL);
	in.tver = 0;
	ASSERT_EQ(sroce_build_hdrs(buf, 11, &in), -ENOSPC);
	ASSERT_EQ(sroce_build_hdrs(buf, 12, &in), 12);
	in.opcode = SROCE_OP_RC_RDMA_WRITE_ONLY_WITH_IMMEDIATE;
	ASSERT_EQ(sroce_build_hdrs(buf, 31, &in), -ENOSPC);
	ASSERT_EQ(sroce_build_hdrs(buf, 32, &in), 32);
}

TEST(build_zeroes_reserved)
{
	struct sroce_hdrs in;
	u8 b[24];

	memset(&in, 0, sizeof(in));
	memset(b, 0xff, sizeof(b));
	in.opcode = SROCE_OP_UD_SEND_ONLY;
	in.deth.sqpn = 1;
	ASSERT_EQ(sroce_build_hdrs(b, sizeof(b), &in), 20);
	ASSERT_EQ(b[4], 0);		/* FECN/BECN/resv6 */
	ASSERT_EQ(b[8], 0);		/* AckReq/resv7 */
	ASSERT_EQ(b[16], 0);		/* DETH reserved */
	ASSERT_EQ(b[20], 0xff);		/* nothing written past the headers */
}

static bool hdrs_equal(const struct sroce_hdrs *a, const struct sroce_hdrs *b)
{
	return !memcmp(a, b, sizeof(*a));
}

/* parse -> build -> parse is the identity on random valid packets */
TEST(roundtrip_random)
{
	struct sroce_hdrs in, a, b;
	static u8 b2[BUF_MAX];
	int i, hl;

	for (i = 0; i < 20000; i++) {
		u8 op = harness_rand() & 0xff;
		const struct sroce_opcode_info *info = sroce_opcode_get(op);
		u32 paylen = 0;
		size_t n;

		if (!info)
			continue;
		if (info->mask & SROCE_M_PAYLOAD)
			paylen = harness_rand() % 64;
		if (!(info->mask & SROCE_M_END))
			paylen &= ~3U;
		n = mk(buf, op, paylen);
		ASSERT_NE(n, 0UL);
		/* scramble every header bit, keep opcode/tver/pad valid */
		for (hl = 1; hl < info->length; hl++)
			buf[hl] = harness_rand();
		sroce_bth_set_tver(buf, 0);
		sroce_bth_set_pad(buf, sroce_pad_for(paylen));
		ASSERT_EQ(sroce_parse_hdrs(buf, n, &a), 0);
		in = a;
		hl = sroce_build_hdrs(b2, sizeof(b2), &in);
		ASSERT_EQ(hl, info->length);
		memcpy(b2 + hl, buf + hl, n - hl);
		ASSERT_EQ(sroce_parse_hdrs(b2, n, &b), 0);
		ASSERT_TRUE(hdrs_equal(&a, &b));
	}
}

/* Exact-size heap copies: ASan catches any read past @len. */
TEST(parse_never_reads_past_len)
{
	struct sroce_hdrs h;
	unsigned int op;
	size_t len;

	for (op = 0; op < 256; op++) {
		for (len = 0; len <= 64; len++) {
			u8 *p = malloc(len ? len : 1);

			ASSERT_TRUE(p);
			memset(p, 0, len);
			if (len)
				p[0] = op;
			(void)sroce_parse_hdrs(p, len, &h);
			free(p);
		}
	}
}
