/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * sroce QP engines: the entry point of received packets.
 */
#ifndef SROCE_QP_H
#define SROCE_QP_H

#include <linux/skbuff.h>

struct sroce_dev;

/**
 * sroce_qp_rcv - deliver a validated packet to its QP
 * @sdev: the receiving device; the caller holds an ib_device reference
 * @skb:  skb->data at the BTH, skb->cb a struct sroce_pkt (sroce_pkt.h);
 *        ownership passes to the callee
 *
 * Context: softirq (or BH disabled), RCU read-side section.
 */
void sroce_qp_rcv(struct sroce_dev *sdev, struct sk_buff *skb);

#endif /* SROCE_QP_H */
