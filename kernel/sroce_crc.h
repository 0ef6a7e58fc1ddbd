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

#include <linux/log2.h>
#include <linux/skbuff.h>

#include "bth.h"
#include "icrc.h"

void sroce_crc_module_init(void);
void sroce_crc_module_exit(void);

u32 sroce_crc32_copy(u32 crc, void *dst, const void *src, size_t len);

/*
 * struct sroce_tx_pay - skb->cb of a packet being built, until
 * sroce_icrc_fill() writes its ICRC: the CRC of the @len bytes in front
 * of the ICRC (a whole payload without pad), taken while they were copied
 * in (sroce_crc32_copy()), so that the ICRC pass does not read them again.
 * @len 0: none; sroce_net_alloc_skb() starts each packet so.
 */
struct sroce_tx_pay {
	u32 crc;	/* crc32_le(0, those bytes) */
	u32 len;
};

static inline struct sroce_tx_pay *sroce_tx_pay(struct sk_buff *skb)
{
	BUILD_BUG_ON(sizeof(struct sroce_tx_pay) >
		     sizeof_field(struct sk_buff, cb));
	return (struct sroce_tx_pay *)skb->cb;
}

/* The payloads whose join factor is kept: a full packet's, at each MTU. */
#define SROCE_TX_PAY_MIN	256
#define SROCE_TX_PAY_MAX	4096

/*
 * sroce_tx_pay_crc - the running CRC for @len payload bytes about to be
 * copied in front of @skb's ICRC (no pad after them), for sroce_mr_copy();
 * NULL when it is not worth it (a short or partial packet: its ICRC pass
 * reads the payload). A failed copy must free the skb.
 */
static inline u32 *sroce_tx_pay_crc(struct sk_buff *skb, u32 len)
{
	struct sroce_tx_pay *pay = sroce_tx_pay(skb);

	if (!is_power_of_2(len) || len < SROCE_TX_PAY_MIN ||
	    len > SROCE_TX_PAY_MAX)
		return NULL;
	pay->crc = 0;
	pay->len = len;
	return &pay->crc;
}

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
