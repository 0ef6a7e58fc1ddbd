// SPDX-License-Identifier: GPL-2.0-only
/*
 * fuzz_icrc.c - libFuzzer harness for the ICRC code.
 *
 * Input layout: byte 0 selects IPv4/IPv6 and the IPv4 option length,
 * byte 1 and 2 are split points, then the IP header, the UDP header and
 * BTH..payload.  Checks the one-shot result against an independent
 * bitwise reference, against a three-fragment incremental run, and
 * against the transmit path's form (the tail CRCed on its own while it
 * is copied, then joined), and that bad IP header lengths are rejected
 * without touching memory.
 */
#include <stdlib.h>

#include "icrc.h"
#include "bth.h"
#include "crc32_fold.h"
#include "crc32_shift.h"
#include "ref_icrc.h"

int LLVMFuzzerTestOneInput(const u8 *data, size_t size)
{
	struct sroce_icrc_ctx ctx;
	size_t ip_len, pkt_len, s1, s2;
	const u8 *udp, *pkt;
	u8 ip[60], *copy;
	u32 one = 0, tail;
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

	/* The sender's form: the bytes after s2 CRCed while copied, joined. */
	copy = malloc(pkt_len - s2 + 1);
	if (!copy)
		return 0;
	tail = sroce_crc32_fold_copy(0, copy, pkt + s2, pkt_len - s2);
	if (memcmp(copy, pkt + s2, pkt_len - s2))
		__builtin_trap();
	free(copy);
	if (sroce_icrc_init(&ctx, ip, ip_len, udp, pkt))
		__builtin_trap();
	sroce_icrc_update(&ctx, pkt + SROCE_BTH_LEN, s2 - SROCE_BTH_LEN);
	sroce_icrc_join(&ctx, tail, sroce_crc32_xpow8(pkt_len - s2));
	if (sroce_icrc_final(&ctx) != one || host_warn_count)
		__builtin_trap();
	return 0;
}
