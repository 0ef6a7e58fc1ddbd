/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The ICRC of an skb (sroce_crc.c): written into a packet being sent,
 * checked on a packet received; and the CRC-32 under it (sroce_crc32(),
 * declared in core/core_types.h for the core's icrc.c), for which module
 * init picks the accelerated crypto driver when there is one.
 *
 * Contexts: sroce_crc_module_init/exit sleep (process context only); the
 * ICRC helpers run in any context, take no lock and allocate nothing.
 */
#ifndef SROCE_CRC_H
#define SROCE_CRC_H

#include <linux/skbuff.h>

#include "bth.h"
#include "icrc.h"

void sroce_crc_module_init(void);
void sroce_crc_module_exit(void);

void sroce_icrc_add_skb(struct sroce_icrc_ctx *ctx, struct sk_buff *skb,
			unsigned int from, unsigned int to);
int sroce_icrc_fill(struct sk_buff *skb, unsigned int ip_len);

/*
 * ICRC of the packet at skb->data (UDP header) of @ulen bytes, @iph the
 * IP header of @ip_len bytes. Precondition: UDP header and BTH linear,
 * ulen >= UDP + BTH + ICRC. Inline: the receive path's one call of it.
 */
static inline bool sroce_icrc_ok(struct sk_buff *skb, const u8 *iph,
				 unsigned int ip_len, unsigned int ulen)
{
	unsigned int to = ulen - SROCE_ICRC_LEN;
	struct sroce_icrc_ctx ctx;
	u8 buf[SROCE_ICRC_LEN];
	const u8 *wire;

	if (sroce_icrc_init(&ctx, iph, ip_len, skb->data,
			    skb->data + SROCE_UDP_HDR_LEN))
		return false;
	sroce_icrc_add_skb(&ctx, skb, SROCE_UDP_HDR_LEN + SROCE_BTH_LEN, to);
	wire = skb_header_pointer(skb, to, SROCE_ICRC_LEN, buf);
	return wire && sroce_icrc_get(wire) == sroce_icrc_final(&ctx);
}

#endif /* SROCE_CRC_H */
