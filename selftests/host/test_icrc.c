// SPDX-License-Identifier: GPL-2.0-only
/*
 * Host tests for kernel/core/icrc.c: RoCEv2 ICRC.
 *
 * Vectors:
 *  - a RoCEv2 CNP captured on a Mellanox ConnectX-4 Lx, with the ICRC the
 *    NIC put on the wire (published in scapy's test/contrib/roce.uts);
 *  - the UC SEND ONLY packet of the same test file (ICRC by scapy);
 *  - hand-built IPv4/IPv6 packets, checked against the independent
 *    reference of ref_icrc.h.
 */
#include "harness.h"
#include "icrc.h"
#include "bth.h"
#include "ref_icrc.h"

TEST(crc32_le_shim_check_value)
{
	static const u8 s[] = "123456789";

	ASSERT_EQ(~crc32_le(~0U, s, 9), 0xcbf43926U);
	ASSERT_EQ(ref_crc32(s, 9), 0xcbf43926U);
}

/* rxe seeds its ICRC with 0xdebb20e3 = CRC of the 8-byte masked LRH */
TEST(lrh_seed_matches_rxe)
{
	static const u8 ones[8] = {
		0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff
	};

	ASSERT_EQ(crc32_le(~0U, ones, 8), 0xdebb20e3U);
}

/* IPv4 | UDP | BTH (CNP, opcode 0x81) | 16 reserved bytes | ICRC */
static const u8 cnp_ip[20] = {
	0x45, 0xc2, 0x00, 0x3c, 0x71, 0x8c, 0x40, 0x00, 0x40, 0x11,
	0x91, 0x61, 0x0a, 0x00, 0x11, 0x01, 0x0a, 0x00, 0x12, 0x01
};
static const u8 cnp_udp[8] = { 0x00, 0x00, 0x12, 0xb7, 0x00, 0x28, 0, 0 };
static const u8 cnp_pkt[12 + 16 + 4] = {
	0x81, 0x00, 0xff, 0xff, 0x40, 0x00, 0x01, 0x18, 0, 0, 0, 0,
	[28] = 0x82, 0xfd, 0x00, 0x2a
};

TEST(vector_cx4lx_cnp)
{
	u32 icrc = 0;

	ASSERT_EQ(sroce_icrc_compute(cnp_ip, 20, cnp_udp, cnp_pkt, 28, &icrc),
		  0);
	ASSERT_EQ(icrc, sroce_icrc_get(cnp_pkt + 28));
	ASSERT_EQ(icrc, 0x2a00fd82U);
	ASSERT_EQ(ref_icrc(cnp_ip, 20, cnp_udp, cnp_pkt, 28), icrc);
}

/* UC SEND ONLY, M=1, pad 2, P_Key 0xffff, QPN 211, PSN 13571856. */
TEST(vector_scapy_uc_send_only)
{
	static const u8 ip[20] = {
		0x45, 0x01, 0x00, 0x40, 0x04, 0x78, 0x40, 0x00, 0x40, 0x11,
		0xb4, 0xd5, 0xc0, 0xa8, 0x00, 0x07, 0xc0, 0xa8, 0x00, 0x07
	};
	static const u8 udp[8] = { 0xc0, 0x00, 0x12, 0xb7, 0x00, 0x2c,
				   0xac, 0xa2 };
	static const u8 pkt[12 + 20 + 4] = {
		0x24, 0x60, 0xff, 0xff, 0x00, 0x00, 0x00, 0xd3,
		0x00, 0xcf, 0x17, 0x10,
		'F', '0', 0x81, 0x8b, 0xe2, 0x89, '5', 0xd9, 0x0e, 0x9a,
		0x95, 'P', 'T', 0x01, 0xbe, 0x88, '^', 'P', 0x00, 0x00,
		0x78, 0xf3, 0x53, 0xf3
	};
	u32 icrc = 0;

	ASSERT_EQ(sroce_bth_qpn(pkt), 211U);
	ASSERT_EQ(sroce_bth_psn(pkt), 13571856U);
	ASSERT_EQ(sroce_icrc_compute(ip, 20, udp, pkt, 32, &icrc), 0);
	ASSERT_EQ(icrc, sroce_icrc_get(pkt + 32));
}

static u8 v4_ip[20] = {
	0x45, 0x00, 0x00, 0x00, 0x12, 0x34, 0x40, 0x00, 0x40, 0x11,
	0x00, 0x00, 0xc0, 0xa8, 0x01, 0x01, 0xc0, 0xa8, 0x01, 0x02
};
static u8 v6_ip[40] = {
	0x60, 0x00, 0x00, 0x00, 0x00, 0x40, 0x11, 0x40,
	0xfe, 0x80, 0, 0, 0, 0, 0, 0, 0x02, 0x11, 0x22, 0xff,
	0xfe, 0x33, 0x44, 0x55,
	0xfe, 0x80, 0, 0, 0, 0, 0, 0, 0x02, 0x11, 0x22, 0xff,
	0xfe, 0x33, 0x44, 0x66,
};
static u8 v_udp[8] = { 0xd4, 0x31, 0x12, 0xb7, 0x00, 0x00, 0x00, 0x00 };
static u8 v_pkt[12 + 16 + 1024];

static void fill_pkt(void)
{
	size_t i;

	memset(v_pkt, 0, 12);
	v_pkt[0] = 0x0a;		/* RC RDMA WRITE ONLY */
	sroce_bth_set_pkey(v_pkt, 0xffff);
	sroce_bth_set_qpn(v_pkt, 0x000123);
	sroce_bth_set_ackreq(v_pkt, true);
	sroce_bth_set_psn(v_pkt, 0xabcdef);
	for (i = 12; i < sizeof(v_pkt); i++)
		v_pkt[i] = (u8)(i * 7 + 3);
}

TEST(handbuilt_ipv4_ipv6_vs_reference)
{
	u32 a = 0, b = 0;
	size_t len;

	fill_pkt();
	for (len = 12; len <= sizeof(v_pkt); len += 4) {
		ASSERT_EQ(sroce_icrc_compute(v4_ip, 20, v_udp, v_pkt, len, &a),
			  0);
		ASSERT_EQ(a, ref_icrc(v4_ip, 20, v_udp, v_pkt, len));
		ASSERT_EQ(sroce_icrc_compute(v6_ip, 40, v_udp, v_pkt, len, &b),
			  0);
		ASSERT_EQ(b, ref_icrc(v6_ip, 40, v_udp, v_pkt, len));
		ASSERT_NE(a, b);
	}
}

TEST(ipv4_options_covered)
{
	u8 ip[24];
	u32 a = 0, b = 0;

	fill_pkt();
	memcpy(ip, v4_ip, 20);
	ip[0] = 0x46;			/* IHL 6 */
	ip[20] = 0x01;
	ip[21] = 0x01;
	ip[22] = 0x01;
	ip[23] = 0x00;			/* NOP NOP NOP EOL */
	ASSERT_EQ(sroce_icrc_compute(ip, 24, v_udp, v_pkt, 64, &a), 0);
	ASSERT_EQ(a, ref_icrc(ip, 24, v_udp, v_pkt, 64));
	ip[23] = 0x01;
	ASSERT_EQ(sroce_icrc_compute(ip, 24, v_udp, v_pkt, 64, &b), 0);
	ASSERT_NE(a, b);
}

/* The masked (variant) fields must not change the ICRC. */
TEST(variant_fields_masked)
{
	u8 ip4[20], ip6[40], udp[8], pkt[64];
	u32 base4 = 0, base6 = 0, x = 0;

	fill_pkt();
	memcpy(pkt, v_pkt, sizeof(pkt));
	ASSERT_EQ(sroce_icrc_compute(v4_ip, 20, v_udp, pkt, 64, &base4), 0);
	ASSERT_EQ(sroce_icrc_compute(v6_ip, 40, v_udp, pkt, 64, &base6), 0);

	memcpy(ip4, v4_ip, 20);
	ip4[1] = 0x8a;			/* DSCP/ECN */
	ip4[8] = 0x01;			/* TTL */
	ip4[10] = 0x5a;			/* checksum */
	ip4[11] = 0xa5;
	memcpy(udp, v_udp, 8);
	udp[6] = 0x12;			/* UDP checksum */
	udp[7] = 0x34;
	pkt[4] = 0xc0 | 0x15;		/* FECN, BECN, resv6 */
	ASSERT_EQ(sroce_icrc_compute(ip4, 20, udp, pkt, 64, &x), 0);
	ASSERT_EQ(x, base4);

	memcpy(ip6, v6_ip, 40);
	ip6[0] = 0x6b;			/* traffic class high nibble */
	ip6[1] = 0xa1;			/* TC low nibble + flow label */
	ip6[2] = 0x23;
	ip6[3] = 0x45;
	ip6[7] = 0x01;			/* hop limit */
	ASSERT_EQ(sroce_icrc_compute(ip6, 40, udp, pkt, 64, &x), 0);
	ASSERT_EQ(x, base6);
}

/* Everything else is covered. */
TEST(invariant_fields_covered)
{
	static const int ip4_off[] = { 2, 3, 4, 5, 6, 7, 9, 12, 15, 16, 19 };
	static const int ip6_off[] = { 4, 5, 6, 8, 23, 24, 39 };
	static const int pkt_off[] = { 0, 1, 2, 3, 5, 6, 7, 8, 9, 11, 12, 63 };
	u8 ip4[20], ip6[40], udp[8], pkt[64];
	u32 base4 = 0, base6 = 0, x = 0;
	size_t i;

	fill_pkt();
	memcpy(pkt, v_pkt, sizeof(pkt));
	ASSERT_EQ(sroce_icrc_compute(v4_ip, 20, v_udp, pkt, 64, &base4), 0);
	ASSERT_EQ(sroce_icrc_compute(v6_ip, 40, v_udp, pkt, 64, &base6), 0);
	for (i = 0; i < ARRAY_SIZE(ip4_off); i++) {
		memcpy(ip4, v4_ip, 20);
		ip4[ip4_off[i]] ^= 0x01;
		ASSERT_EQ(sroce_icrc_compute(ip4, 20, v_udp, pkt, 64, &x), 0);
		EXPECT_NE(x, base4);
	}
	for (i = 0; i < ARRAY_SIZE(ip6_off); i++) {
		memcpy(ip6, v6_ip, 40);
		ip6[ip6_off[i]] ^= 0x01;
		ASSERT_EQ(sroce_icrc_compute(ip6, 40, v_udp, pkt, 64, &x), 0);
		EXPECT_NE(x, base6);
	}
	for (i = 0; i < 6; i++) {
		memcpy(udp, v_udp, 8);
		udp[i] ^= 0x01;
		ASSERT_EQ(sroce_icrc_compute(v4_ip, 20, udp, pkt, 64, &x), 0);
		EXPECT_NE(x, base4);
	}
	for (i = 0; i < ARRAY_SIZE(pkt_off); i++) {
		memcpy(pkt, v_pkt, sizeof(pkt));
		pkt[pkt_off[i]] ^= 0x01;
		ASSERT_EQ(sroce_icrc_compute(v4_ip, 20, v_udp, pkt, 64, &x), 0);
		EXPECT_NE(x, base4);
	}
}

/* Fragments in any split give the one-shot result. */
TEST(incremental_matches_oneshot)
{
	struct sroce_icrc_ctx ctx;
	const size_t len = 12 + 16 + 300;
	u32 want = 0;
	size_t s1, s2;

	fill_pkt();
	ASSERT_EQ(sroce_icrc_compute(v6_ip, 40, v_udp, v_pkt, len, &want), 0);
	for (s1 = 12; s1 <= len; s1++) {
		ASSERT_EQ(sroce_icrc_init(&ctx, v6_ip, 40, v_udp, v_pkt), 0);
		sroce_icrc_update(&ctx, v_pkt + 12, s1 - 12);
		sroce_icrc_update(&ctx, v_pkt + s1, len - s1);
		ASSERT_EQ(sroce_icrc_final(&ctx), want);
	}
	for (s1 = 12; s1 <= len; s1 += 13) {
		for (s2 = s1; s2 <= len; s2 += 7) {
			ASSERT_EQ(sroce_icrc_init(&ctx, v6_ip, 40, v_udp,
						  v_pkt), 0);
			sroce_icrc_update(&ctx, v_pkt + 12, s1 - 12);
			sroce_icrc_update(&ctx, v_pkt + s1, s2 - s1);
			sroce_icrc_update(&ctx, NULL, 0);
			sroce_icrc_update(&ctx, v_pkt + s2, len - s2);
			ASSERT_EQ(sroce_icrc_final(&ctx), want);
		}
	}
}

TEST(bad_ip_headers)
{
	struct sroce_icrc_ctx ctx;
	u8 ip[40];
	u32 x = 0;

	fill_pkt();
	ASSERT_EQ(sroce_icrc_init(&ctx, v4_ip, 24, v_udp, v_pkt), -EINVAL);
	ASSERT_EQ(sroce_icrc_init(&ctx, v4_ip, 19, v_udp, v_pkt), -EINVAL);
	ASSERT_EQ(sroce_icrc_init(&ctx, v6_ip, 20, v_udp, v_pkt), -EINVAL);
	ASSERT_EQ(sroce_icrc_init(&ctx, v6_ip, 41, v_udp, v_pkt), -EINVAL);
	memcpy(ip, v4_ip, 20);
	ip[0] = 0x44;				/* IHL 4 < 5 */
	ASSERT_EQ(sroce_icrc_init(&ctx, ip, 16, v_udp, v_pkt), -EINVAL);
	ip[0] = 0x55;				/* version 5 */
	ASSERT_EQ(sroce_icrc_init(&ctx, ip, 20, v_udp, v_pkt), -EINVAL);
	ASSERT_EQ(sroce_icrc_compute(v4_ip, 20, v_udp, v_pkt, 11, &x),
		  -EINVAL);
}

TEST(icrc_field_little_endian)
{
	u8 b[4];

	sroce_icrc_put(b, 0x2a00fd82);
	ASSERT_EQ(b[0], 0x82);
	ASSERT_EQ(b[1], 0xfd);
	ASSERT_EQ(b[2], 0x00);
	ASSERT_EQ(b[3], 0x2a);
	ASSERT_EQ(sroce_icrc_get(b), 0x2a00fd82U);
}
