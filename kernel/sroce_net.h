/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * sroce network layer: per-netns RoCEv2 UDP sockets (port 4791), address
 * vectors, skb allocation and transmit. Receive is in sroce_recv.c.
 *
 * Contexts: sroce_net_dev_init/fini and sroce_net_init/exit sleep (process
 * context only). sroce_av_from_ah_attr, sroce_net_alloc_skb and
 * sroce_net_xmit may run in any context except hard irq (they do not
 * sleep; transmit takes only the fault injection lock while a drop rule
 * is armed and, for local delivery, the receiving device's loopback
 * queue lock).
 */
#ifndef SROCE_NET_H
#define SROCE_NET_H

#include <linux/in.h>
#include <linux/in6.h>
#include <linux/skbuff.h>
#include <rdma/ib_verbs.h>

struct sroce_dev;

/* IANA port of RoCEv2 (IBA Annex A17.2). */
#define SROCE_UDP_PORT		4791

/* Used when an address handle asks for a hop limit of 0. */
#define SROCE_DEFAULT_HOP_LIMIT	64

/**
 * struct sroce_av - where a packet goes, resolved from an rdma_ah_attr
 * @network_type: RDMA_NETWORK_IPV4 or RDMA_NETWORK_IPV6
 * @hop_limit:    IPv4 TTL or IPv6 hop limit (never 0)
 * @traffic_class: IPv4 TOS or IPv6 traffic class
 * @flow_label:   IPv6 flow label (20 bits); 0 for IPv4
 * @saddr:        source IP (the source GID's address)
 * @daddr:        destination IP (the destination GID's address)
 *
 * Plain data: copy it freely. For IPv4 only the ip4 members are used.
 */
struct sroce_av {
	u8 network_type;
	u8 hop_limit;
	u8 traffic_class;
	u32 flow_label;
	union {
		__be32 ip4;
		struct in6_addr ip6;
	} saddr, daddr;
};

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

/* Module init/exit: the per-netns bookkeeping. */
int sroce_net_init(void);
void sroce_net_exit(void);

/* Device life: the UDP sockets of the device's netns, loopback queue. */
int sroce_net_dev_init(struct sroce_dev *sdev);
void sroce_net_dev_fini(struct sroce_dev *sdev);

int sroce_av_from_ah_attr(struct sroce_dev *sdev,
			  const struct rdma_ah_attr *attr, struct sroce_av *av);
u16 sroce_udp_sport(u32 lqpn, u32 rqpn);

/**
 * struct sroce_txbatch - a QP's packets waiting to leave as one skb
 * @skbs:     the packets (skb->data at the BTH), in sending order
 * @av:       their destination
 * @sport:    their UDP source port
 * @gso_size: BTH .. ICRC bytes of the first packet; none later is longer
 * @bytes:    BTH .. ICRC bytes of them all
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
};

void sroce_txbatch_init(struct sroce_txbatch *b);
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
		   struct sroce_route *route);

#endif /* SROCE_NET_H */
