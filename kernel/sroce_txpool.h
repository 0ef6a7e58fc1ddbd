/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * sroce transmit skb pool (sroce_txpool.c): skbs for large outgoing
 * packets on recycled pages. Below sroce_xmit.c: anything may call it.
 */
#ifndef SROCE_TXPOOL_H
#define SROCE_TXPOOL_H

struct sk_buff;

int sroce_txpool_init(void);
void sroce_txpool_exit(void);
struct sk_buff *sroce_txpool_skb(unsigned int size);

#endif /* SROCE_TXPOOL_H */
