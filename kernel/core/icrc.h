/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * icrc.h - RoCEv2 invariant CRC (IBA Annex A17.3.3, as rxe computes it).
 *
 * The ICRC is CRC-32 (the Ethernet polynomial, reflected, seed ~0) over:
 *   8 bytes of 0xff      (stands in for the IB LRH)
 *   IP header            IPv4: TOS, TTL, header checksum set to 1s
 *                        IPv6: traffic class, flow label, hop limit 1s
 *   UDP header           checksum set to 1s
 *   BTH                  byte 4 (FECN, BECN, resv6a) set to 1s
 *   extension headers, payload and pad bytes as they are
 * and is sent inverted, least significant byte first.
 *
 * The pieces are passed separately (the kernel feeds skb pieces), and the
 * part after the BTH can be fed in any number of fragments.
 */
#ifndef SROCE_CORE_ICRC_H
#define SROCE_CORE_ICRC_H

#include "core_types.h"
#include "ext_hdrs.h"

#define SROCE_IPV4_HDR_MIN	20
#define SROCE_IPV4_HDR_MAX	60
#define SROCE_IPV6_HDR_LEN	40
#define SROCE_UDP_HDR_LEN	8

/* Running CRC; opaque to callers. */
struct sroce_icrc_ctx {
	u32 crc;
};

/**
 * sroce_icrc_init() - start an ICRC over the masked invariant headers
 * @ctx:    state to initialise
 * @iph:    IPv4 or IPv6 header (version taken from its first nibble)
 * @ip_len: bytes at @iph; must be IHL * 4 for IPv4 (options included)
 *          and exactly 40 for IPv6
 * @udph:   the 8-byte UDP header
 * @bth:    the 12-byte BTH
 *
 * Return: 0, or -EINVAL if @ip_len and the IP version disagree.
 */
int sroce_icrc_init(struct sroce_icrc_ctx *ctx, const u8 *iph, size_t ip_len,
		    const u8 *udph, const u8 *bth);

/* sroce_icrc_update - add @len bytes that follow the BTH (not the ICRC) */
void sroce_icrc_update(struct sroce_icrc_ctx *ctx, const u8 *p, size_t len);

/*
 * sroce_icrc_join - add bytes that were CRCed on their own: @crc_b is
 * crc32_le(0, bytes), @xpow sroce_crc32_xpow8(their length)
 * (crc32_shift.h). The transmit path CRCs a payload while copying it in,
 * before the headers in front of it are final.
 */
void sroce_icrc_join(struct sroce_icrc_ctx *ctx, u32 crc_b, u32 xpow);

/*
 * sroce_icrc_final - the ICRC value, as read from the wire by
 * sroce_icrc_get() (i.e. little-endian load of the 4 ICRC bytes).
 */
u32 sroce_icrc_final(const struct sroce_icrc_ctx *ctx);

/**
 * sroce_icrc_compute() - one-shot ICRC
 * @pkt:     first BTH byte
 * @pkt_len: BTH through the last pad byte (the ICRC field excluded),
 *           at least SROCE_BTH_LEN
 * @icrc:    result, same form as sroce_icrc_final()
 *
 * Return: 0 or -EINVAL.
 */
int sroce_icrc_compute(const u8 *iph, size_t ip_len, const u8 *udph,
		       const u8 *pkt, size_t pkt_len, u32 *icrc);

/* sroce_icrc_get/put - load/store the ICRC field (little endian) */
static inline u32 sroce_icrc_get(const u8 *p)
{
	return get_unaligned_le32(p);
}

static inline void sroce_icrc_put(u8 *p, u32 icrc)
{
	put_unaligned_le32(icrc, p);
}

#endif /* SROCE_CORE_ICRC_H */
