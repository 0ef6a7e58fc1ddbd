/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * sroce receive path (sroce_recv.c): validation of one RoCEv2 packet and
 * hand-off to the QP engines. The per-packet state the engines see is in
 * sroce_pkt.h.
 */
#ifndef SROCE_RECV_H
#define SROCE_RECV_H

#include <linux/skbuff.h>

struct sroce_dev;

/**
 * sroce_recv_skb - validate a received RoCEv2 packet and dispatch it
 * @sdev: the receiving device; the caller holds an ib_device reference
 * @skb:  skb->data at the UDP header, network and transport headers set,
 *        skb->protocol ETH_P_IP or ETH_P_IPV6; consumed in every case
 * @loopback: the packet was sent by a device of this host (no wire)
 *
 * Context: softirq or BH disabled, inside an RCU read-side section. Takes
 * no lock and sleeps never; allocates only if the headers are not linear.
 */
void sroce_recv_skb(struct sroce_dev *sdev, struct sk_buff *skb,
		    bool loopback);

#endif /* SROCE_RECV_H */
