/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The reference RoCEv2 ICRC that the host test (test_icrc.c) and the
 * fuzzer (fuzz_icrc.c) check kernel/core/icrc.c against: a bitwise CRC-32
 * with no tables over a pseudo-packet masked byte by byte as the RoCEv2
 * annex defines it, written independently of icrc.c.
 */
#ifndef SROCE_REF_ICRC_H
#define SROCE_REF_ICRC_H

#include <string.h>
#include "bth.h"

/* Bitwise CRC-32 (IEEE 802.3, reflected) of @p, continuing from @crc. */
static inline u32 ref_crc32_update(u32 crc, const u8 *p, size_t n)
{
	size_t i;
	int b;

	for (i = 0; i < n; i++) {
		crc ^= p[i];
		for (b = 0; b < 8; b++)
			crc = (crc >> 1) ^ (0xedb88320 & (0U - (crc & 1)));
	}
	return crc;
}

static inline u32 ref_crc32(const u8 *p, size_t n)
{
	return ~ref_crc32_update(~0U, p, n);
}

/*
 * 8 x 0xff (LRH), IP/UDP/BTH with the variant fields set to 1s (IPv4:
 * TOS byte 1, TTL byte 8, checksum bytes 10-11; IPv6: traffic class +
 * flow label = low nibble of byte 0 and bytes 1-3, hop limit byte 7; UDP
 * checksum bytes 6-7; BTH byte 4), then the rest of the packet from the
 * end of the BTH. @ip_len at most 60, @pkt_len at least SROCE_BTH_LEN.
 */
static inline u32 ref_icrc(const u8 *ip, size_t ip_len, const u8 *udp,
			   const u8 *pkt, size_t pkt_len)
{
	u8 h[8 + 60 + 8 + SROCE_BTH_LEN];
	size_t o = 8;
	u32 crc;

	memset(h, 0xff, 8);
	memcpy(h + o, ip, ip_len);
	if ((ip[0] >> 4) == 4) {
		h[o + 1] = 0xff;
		h[o + 8] = 0xff;
		h[o + 10] = 0xff;
		h[o + 11] = 0xff;
	} else {
		h[o] |= 0x0f;
		memset(h + o + 1, 0xff, 3);
		h[o + 7] = 0xff;
	}
	o += ip_len;
	memcpy(h + o, udp, 8);
	h[o + 6] = 0xff;
	h[o + 7] = 0xff;
	o += 8;
	memcpy(h + o, pkt, SROCE_BTH_LEN);
	h[o + 4] = 0xff;
	o += SROCE_BTH_LEN;
	crc = ref_crc32_update(~0U, h, o);
	crc = ref_crc32_update(crc, pkt + SROCE_BTH_LEN, pkt_len - SROCE_BTH_LEN);
	return ~crc;
}

#endif
