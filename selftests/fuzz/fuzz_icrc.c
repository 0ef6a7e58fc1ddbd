// SPDX-License-Identifier: GPL-2.0-only
/*
 * fuzz_icrc.c - libFuzzer harness for the ICRC code.
 *
 * Input layout: byte 0 selects IPv4/IPv6 and the IPv4 option length,
 * byte 1 and 2 are split points, then the IP header, the UDP header and
 * BTH..payload.  Checks the one-shot result against an independent
 * bitwise reference and against a three-fragment incremental run, and
 * that bad IP header lengths are rejected without touching memory.
 */
#include <stdlib.h>

#include "icrc.h"
#include "bth.h"

static u32 ref_crc32(const u8 *p, size_t n, u32 crc)
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

static u32 ref_icrc(const u8 *ip, size_t ip_len, const u8 *udp,
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
	crc = ref_crc32(h, o, ~0U);
	crc = ref_crc32(pkt + SROCE_BTH_LEN, pkt_len - SROCE_BTH_LEN, crc);
	return ~crc;
}

int LLVMFuzzerTestOneInput(const u8 *data, size_t size)
{
	struct sroce_icrc_ctx ctx;
	size_t ip_len, pkt_len, s1, s2;
	const u8 *udp, *pkt;
	u8 ip[60];
	u32 one = 0;
	int ret;

	if (size < 3)
		return 0;
	ip_len = (data[0] & 1) ? 40 : 20 + 4 * ((data[0] >> 1) % 11);
	if (size < 3 + ip_len + 8)
		return 0;
	memcpy(ip, data + 3, ip_len);
	udp = data + 3 + ip_len;
	pkt = udp + 8;
	pkt_len = size - 3 - ip_len - 8;

	/* A raw header: must be rejected unless version/length agree. */
	ret = sroce_icrc_init(&ctx, ip, ip_len, udp,
			      pkt_len >= SROCE_BTH_LEN ? pkt : ip);
	if (ret && ret != -EINVAL)
		__builtin_trap();

	/* Now force a consistent header. */
	if (data[0] & 1)
		ip[0] = 0x60 | (ip[0] & 0x0f);
	else
		ip[0] = 0x40 | (u8)(ip_len / 4);

	ret = sroce_icrc_compute(ip, ip_len, udp, pkt, pkt_len, &one);
	if (pkt_len < SROCE_BTH_LEN) {
		if (ret != -EINVAL)
			__builtin_trap();
		return 0;
	}
	if (ret || one != ref_icrc(ip, ip_len, udp, pkt, pkt_len))
		__builtin_trap();

	s1 = SROCE_BTH_LEN + data[1] % (pkt_len - SROCE_BTH_LEN + 1);
	s2 = s1 + data[2] % (pkt_len - s1 + 1);
	if (sroce_icrc_init(&ctx, ip, ip_len, udp, pkt))
		__builtin_trap();
	sroce_icrc_update(&ctx, pkt + SROCE_BTH_LEN, s1 - SROCE_BTH_LEN);
	sroce_icrc_update(&ctx, pkt + s1, s2 - s1);
	sroce_icrc_update(&ctx, pkt + s2, pkt_len - s2);
	if (sroce_icrc_final(&ctx) != one || host_warn_count)
		__builtin_trap();
	return 0;
}
