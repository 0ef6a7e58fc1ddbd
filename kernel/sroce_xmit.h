/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * sroce transmit path (sroce_xmit.c): skb allocation, UDP and IP headers,
 * ICRC, the per-QP route cache, the GSO batch of a QP's packets, and
 * local delivery to a sroce device of this host through its loopback
 * queue. Destinations are struct sroce_av (sroce_av.h).
 *
 * Contexts: everything here may run in any context except hard irq (it
 * does not sleep; transmit takes only the fault injection lock while a
 * drop rule is armed and, for local delivery, the receiving device's
 * loopback queue lock).
 */
#ifndef SROCE_XMIT_H
#define SROCE_XMIT_H

#include <linux/percpu.h>
#include <linux/sched.h>
#include <linux/skbuff.h>

#include "sroce_av.h"

struct dst_entry;
struct net;
struct sroce_dev;
struct sroce_qp_stats;

/**
 * struct sroce_route - one QP's cached output route
 * @dst:    the route, with a reference held for the cache; NULL if none
 * @net:    the netns it was looked up in (compared, never dereferenced)
 * @cookie: IPv6 route cookie for dst_check() (0 for IPv4)
 * @sport:  UDP source port of the flow (ECMP hashes on it)
 * @av:     the destination it was looked up for
 *
 * Used only for the flow it was looked up for, and only while
 * dst_check() passes: a route or address change (IPv4 generation,
 * IPv6 cookie) or a dead netdev sends the next packet back to the
 * routing table. Locking: none; only the context owning the QP's engines
 * (sroce_qp.h) touches it. Zeroed at QP creation; sroce_route_release()
 * at destroy.
 */
struct sroce_route {
	struct dst_entry *dst;
	const struct net *net;
	u32 cookie;
	u16 sport;
	struct sroce_av av;
};

void sroce_route_release(struct sroce_route *route);

/*
 * A packet to a sroce device of this host is received in a BH work item
 * (sroce_net.c). From process context it runs on another CPU, so that
 * the sender goes on posting and sending while the other CPU receives,
 * answers and completes what it queued meanwhile, a batch per run: the
 * QP's work item, a doorbell whose QP streams, a kernel post. Not for a
 * doorbell caller whose QP does not stream (a ping-pong waits for the
 * answer, and would only pay a wake-up of the other CPU): the execution
 * model names that caller here for the time of its run, with migration
 * disabled. It may sleep meanwhile (an ODP fault) and another caller take
 * the slot over; each clears it only if it still names itself. The
 * pointer is only compared, never followed.
 */
DECLARE_PER_CPU(struct task_struct *, sroce_loop_here);

static inline void sroce_loop_here_begin(void)
{
	this_cpu_write(sroce_loop_here, current);
}

static inline void sroce_loop_here_end(void)
{
	this_cpu_cmpxchg(sroce_loop_here, current, NULL);
}

u16 sroce_udp_sport(u32 lqpn, u32 rqpn);

/**
 * struct sroce_txbatch - a QP's packets waiting to leave as one skb
 * @skbs:     the packets (skb->data at the BTH), in sending order
 * @av:       their destination
 * @sport:    their UDP source port
 * @gso_size: BTH .. ICRC bytes of the first packet; none later is longer
 * @bytes:    BTH .. ICRC bytes of them all
 * @stats:    the QP's counters: each packet that leaves is counted there
 *            as in tx_pkts and tx_bytes
 *
 * Consecutive IPv4 packets of one flow go through the IP stack as one UDP
 * GSO skb (SKB_GSO_FRAGLIST, each packet a segment with its own headers
 * and ICRC): one route, netfilter, qdisc and netdev trip for up to
 * SROCE_TXBATCH_MAX packets. A netdev that cannot take it whole segments
 * it, and so does the receiving host's UDP layer for a socket that did not
 * ask for GSO skbs: on the wire and at every receiver they are the same
 * packets as one by one. Locking: none; only the context that owns the
 * QP's engines uses it, and it is empty whenever no engine runs.
 */
struct sroce_txbatch {
	struct sk_buff_head skbs;
	struct sroce_av av;
	u16 sport;
	u32 gso_size;
	u32 bytes;
	struct sroce_qp_stats *stats;
};

void sroce_txbatch_init(struct sroce_txbatch *b, struct sroce_qp_stats *stats);
int sroce_txbatch_add(struct sroce_dev *sdev, struct sroce_txbatch *b,
		      struct sk_buff *skb, const struct sroce_av *av,
		      u16 udp_sport, struct sroce_route *route);
void sroce_txbatch_send(struct sroce_dev *sdev, struct sroce_txbatch *b,
			struct sroce_route *route);

struct sk_buff *sroce_net_alloc_skb(struct sroce_dev *sdev,
				    const struct sroce_av *av,
				    unsigned int ib_len);
int sroce_net_xmit(struct sroce_dev *sdev, struct sk_buff *skb,
		   const struct sroce_av *av, u16 udp_sport,
		   struct sroce_route *route, struct sroce_qp_stats *stats);

#endif /* SROCE_XMIT_H */
