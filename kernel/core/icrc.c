// SPDX-License-Identifier: GPL-2.0-only
/*
 * icrc.c - RoCEv2 ICRC: invariant-field masking and CRC-32.
 *
 * The headers are copied one after the other to a small stack buffer (at
 * most 80 bytes), the variant fields are set to 1s there, and the copy is
 * fed to crc32_le() in one call. What follows the BTH goes to
 * sroce_crc32(), the same function, faster in the kernel where the CPU
 * has a CRC instruction (kernel/sroce_crc.c).
 */
#include "icrc.h"
#include "bth.h"
#include "crc32_shift.h"

/* IPv4 byte offsets. */
#define IPV4_TOS_OFF		1
#define IPV4_TTL_OFF		8
#define IPV4_CSUM_OFF		10
#define IPV4_IHL		GENMASK(3, 0)

/* IPv6: byte 0 low nibble + bytes 1-3 are traffic class and flow label. */
#define IPV6_TC_HI_OFF		0
#define IPV6_TC_HI		GENMASK(3, 0)
#define IPV6_FLOW_OFF		1
#define IPV6_FLOW_BYTES		3
#define IPV6_HOP_OFF		7

#define UDP_CSUM_OFF		6

#define IP_VERSION		GENMASK(7, 4)

/* crc32_le(~0, 8 bytes of 0xff): the LRH's stand-in, the same every time */
#define ICRC_LRH_ONES_CRC	0xdebb20e3U

static int mask_ip(const u8 *iph, size_t ip_len, u8 *tmp)
{
	switch (FIELD_GET(IP_VERSION, iph[0])) {
	case 4:
		if (ip_len < SROCE_IPV4_HDR_MIN || ip_len > SROCE_IPV4_HDR_MAX ||
		    ip_len != FIELD_GET(IPV4_IHL, iph[0]) * 4)
			return -EINVAL;
		memcpy(tmp, iph, ip_len);
		tmp[IPV4_TOS_OFF] = 0xff;
		tmp[IPV4_TTL_OFF] = 0xff;
		tmp[IPV4_CSUM_OFF] = 0xff;
		tmp[IPV4_CSUM_OFF + 1] = 0xff;
		return 0;
	case 6:
		if (ip_len != SROCE_IPV6_HDR_LEN)
			return -EINVAL;
		memcpy(tmp, iph, ip_len);
		tmp[IPV6_TC_HI_OFF] |= IPV6_TC_HI;
		memset(tmp + IPV6_FLOW_OFF, 0xff, IPV6_FLOW_BYTES);
		tmp[IPV6_HOP_OFF] = 0xff;
		return 0;
	default:
		return -EINVAL;
	}
}

int sroce_icrc_init(struct sroce_icrc_ctx *ctx, const u8 *iph, size_t ip_len,
		    const u8 *udph, const u8 *bth)
{
	u8 tmp[SROCE_IPV4_HDR_MAX + SROCE_UDP_HDR_LEN + SROCE_BTH_LEN];
	u8 *udp = tmp + ip_len, *b = udp + SROCE_UDP_HDR_LEN;
	int err;

	BUILD_BUG_ON(SROCE_IPV6_HDR_LEN > SROCE_IPV4_HDR_MAX);

	err = mask_ip(iph, ip_len, tmp);
	if (err)
		return err;

	memcpy(udp, udph, SROCE_UDP_HDR_LEN);
	udp[UDP_CSUM_OFF] = 0xff;
	udp[UDP_CSUM_OFF + 1] = 0xff;
	memcpy(b, bth, SROCE_BTH_LEN);
	b[SROCE_BTH_RESV8A_OFF] = 0xff;

	ctx->crc = crc32_le(ICRC_LRH_ONES_CRC, tmp,
			    ip_len + SROCE_UDP_HDR_LEN + SROCE_BTH_LEN);
	return 0;
}

void sroce_icrc_update(struct sroce_icrc_ctx *ctx, const u8 *p, size_t len)
{
	if (len)
		ctx->crc = sroce_crc32(ctx->crc, p, len);
}

void sroce_icrc_join(struct sroce_icrc_ctx *ctx, u32 crc_b, u32 xpow)
{
	ctx->crc = sroce_crc32_join(ctx->crc, crc_b, xpow);
}

u32 sroce_icrc_final(const struct sroce_icrc_ctx *ctx)
{
	return ~ctx->crc;
}

int sroce_icrc_compute(const u8 *iph, size_t ip_len, const u8 *udph,
		       const u8 *pkt, size_t pkt_len, u32 *icrc)
{
	struct sroce_icrc_ctx ctx;
	int err;

	if (pkt_len < SROCE_BTH_LEN)
		return -EINVAL;
	err = sroce_icrc_init(&ctx, iph, ip_len, udph, pkt);
	if (err)
		return err;
	sroce_icrc_update(&ctx, pkt + SROCE_BTH_LEN, pkt_len - SROCE_BTH_LEN);
	*icrc = sroce_icrc_final(&ctx);
	return 0;
}
