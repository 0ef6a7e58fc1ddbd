// SPDX-License-Identifier: GPL-2.0-only
/*
 * TEMPORARY stand-in for the QP engines' sroce_qp_rcv() so that the
 * network layer can be built and tested alone: there are no QPs yet, so
 * every packet is counted rx_drop_no_qp and freed. Deleted when the real
 * engines are merged.
 */
#include <linux/skbuff.h>

#include "sroce.h"
#include "sroce_qp.h"

void sroce_qp_rcv(struct sroce_dev *sdev, struct sk_buff *skb)
{
	sroce_count(sdev, SROCE_CNT_DROP_NO_QP);
	kfree_skb(skb);
}
