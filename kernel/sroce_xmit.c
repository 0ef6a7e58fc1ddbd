// SPDX-License-Identifier: GPL-2.0-only
/*
 * sroce transmit path: one RoCEv2 packet, or a QP's batch of them, from
 * an skb whose data is BTH .. ICRC to the IP stack (ip_local_out /
 * ip6_local_out) or, for an address of a sroce device of this host, to
 * that device's loopback queue. Pushes the UDP and IP headers, writes the
 * ICRC (sroce_crc.c), routes through the QP's route cache, and sends a
 * QP's consecutive IPv4 packets of one flow as one UDP GSO skb.
 *
 * Objects and locking: struct sroce_route and struct sroce_txbatch
 * (sroce_xmit.h) belong to one QP and are touched only by the context
 * that owns its engines: no lock. Local delivery finds the receiving
 * device in the sender's netns under RCU (sroce_netns.h) and takes only
 * that device's loopback queue lock (its sk_buff_head's) to queue a
 * packet; sroce_net.c drains the queue. A test's drop rule takes the
 * fault injection lock (sroce_fault.c) while it is armed. Nothing here
 * sleeps.
 */
#include <linux/if_ether.h>
#include <linux/inetdevice.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/module.h>
#include <linux/netdevice.h>
#include <linux/skbuff.h>
#include <linux/udp.h>
#include <linux/workqueue.h>
#include <net/addrconf.h>
#include <net/dst.h>
#include <net/ip.h>
#include <net/ip6_checksum.h>
#include <net/ip6_fib.h>
#include <net/ip6_route.h>
#include <net/ipv6.h>
#include <net/route.h>
#include <net/udp.h>
#include <rdma/ib_verbs.h>

#include "sroce.h"
#include "sroce_crc.h"
#include "sroce_fault.h"
#include "sroce_netns.h"
#include "sroce_qp_stats.h"
#include "sroce_txpool.h"
#include "sroce_xmit.h"
#include "bth.h"
#include "icrc.h"
#include "opcode.h"
#include "sroce_trace.h"

/* Loopback packets queued per receiving device before the sender drops. */
#define SROCE_LOOP_QLEN		4096

/**
 * sroce_udp_sport - UDP source port of a connection (ECMP entropy)
 * @lqpn: local QPN
 * @rqpn: remote QPN
 *
 * The kernel's symmetric flow label of the QPN pair folded into
 * 0xC000..0xFFFF (rdma_get_udp_sport with no flow label), so that both
 * directions of a connection hash alike.
 */
u16 sroce_udp_sport(u32 lqpn, u32 rqpn)
{
	return rdma_flow_label_to_udp_sport(rdma_calc_flow_label(lqpn, rqpn));
}

/**
 * sroce_net_alloc_skb - an skb for one outgoing RoCEv2 packet
 * @sdev:   the sending device
 * @av:     the destination (only its network type is used)
 * @ib_len: bytes from the first BTH byte to the last ICRC byte
 *
 * Returns an skb whose data is @ib_len bytes at skb->data (uninitialised:
 * the caller writes BTH .. pad; sroce_net_xmit writes the ICRC), with
 * headroom for the link, IP and UDP headers; NULL if out of memory.
 * A large packet's data is on a recycled page (sroce_txpool.c). Any
 * context (GFP_ATOMIC).
 */
struct sk_buff *sroce_net_alloc_skb(struct sroce_dev *sdev,
				    const struct sroce_av *av,
				    unsigned int ib_len)
{
	struct net_device *ndev = sdev->ndev;
	bool v6 = av->network_type == RDMA_NETWORK_IPV6;
	unsigned int head, size;
	struct sk_buff *skb;

	head = LL_RESERVED_SPACE(ndev) + sizeof(struct udphdr) +
	       (v6 ? sizeof(struct ipv6hdr) : sizeof(struct iphdr));
	size = head + ib_len + ndev->needed_tailroom;
	skb = sroce_txpool_skb(size);
	if (!skb)
		skb = alloc_skb(size, GFP_ATOMIC);
	if (unlikely(!skb))
		return NULL;
	skb_reserve(skb, head);
	skb->protocol = v6 ? htons(ETH_P_IPV6) : htons(ETH_P_IP);
	skb_put(skb, ib_len);
	sroce_tx_pay(skb)->len = 0;
	return skb;
}

static void sroce_push_udp(struct sk_buff *skb, u16 sport)
{
	struct udphdr *uh;

	__skb_push(skb, sizeof(*uh));
	skb_reset_transport_header(skb);
	uh = udp_hdr(skb);
	uh->source = htons(sport);
	uh->dest = htons(SROCE_UDP_PORT);
	uh->len = htons(skb->len);
	uh->check = 0;		/* IPv4: none; IPv6: set by udp6_set_csum */
}

DEFINE_PER_CPU(struct task_struct *, sroce_loop_here);

/* A READ request or response (skb->data at the UDP header, BTH linear). */
static bool sroce_is_read(const struct sk_buff *skb)
{
	const u8 *bth = skb->data + SROCE_UDP_HDR_LEN;
	const struct sroce_opcode_info *info;

	info = sroce_opcode_get(sroce_bth_opcode(bth));
	return info && (info->mask & SROCE_M_READ);
}

/*
 * Deliver a fully built packet (skb->data at the IP header, ICRC written)
 * to @dst_sdev of this host through its loopback queue: the same receive
 * checks as from the wire, in BH context, without re-entering the
 * caller. Consumes the skb. Caller holds a reference on @dst_sdev.
 *
 * From process context but a ping-pong's doorbell (sroce_loop_here, in
 * sroce_xmit.h), the queue is drained on the next online CPU; from a
 * softirq, which is already a receiving side, here. Not for a READ
 * request or response: moving its bytes is cheaper on this CPU, and a
 * long READ's responses drained on the other CPU ran out of retries on a
 * slow (debug) kernel. The queue keeps the packets' order
 * wherever it is drained, since a work item never runs on two CPUs at
 * once.
 */
static int sroce_loopback(struct sroce_dev *dst_sdev, struct sk_buff *skb,
			  unsigned int ip_len)
{
	struct sroce_net_dev *nd = dst_sdev->net;
	bool away;
	int cpu;

	if (unlikely(!nd || skb_queue_len(&nd->loop_q) >= SROCE_LOOP_QLEN)) {
		kfree_skb(skb);
		return -ENOBUFS;
	}
	skb_reset_network_header(skb);
	if (skb->protocol == htons(ETH_P_IP))
		ip_send_check(ip_hdr(skb));
	__skb_pull(skb, ip_len);
	skb_reset_transport_header(skb);
	skb->dev = dst_sdev->ndev;
	skb->pkt_type = PACKET_HOST;
	away = !in_serving_softirq() &&
	       this_cpu_read(sroce_loop_here) != current &&
	       !sroce_is_read(skb);
	skb_queue_tail(&nd->loop_q, skb);
	/*
	 * With BHs off, enabling them again runs BH work queued here right
	 * here, after this packet is queued; from process context
	 * queue_work() alone would leave it to ksoftirqd (a context switch
	 * per packet). BHs off also keep this CPU from going offline in
	 * between, so @cpu is online when the work is queued there (a dead
	 * CPU's BH work is drained elsewhere).
	 */
	local_bh_disable();
	cpu = smp_processor_id();
	if (away) {
		cpu = cpumask_next(cpu, cpu_online_mask);
		if (cpu >= nr_cpu_ids)
			cpu = cpumask_first(cpu_online_mask);
	}
	if (cpu == smp_processor_id()) {
		sroce_bh_work_queue(&nd->loop_work);
	} else {
		sroce_count(dst_sdev, SROCE_CNT_LOOP_OTHER_CPU);
		sroce_bh_work_queue_on(cpu, &nd->loop_work);
	}
	local_bh_enable();
	return 0;
}

/*
 * The sroce device owning local address @ndev_of_addr in the sender's
 * netns, with a reference, or NULL. RCU held.
 */
static struct sroce_dev *sroce_local_dev_get(struct sroce_dev *sdev,
					     struct net_device *ndev)
{
	if (!ndev || !sdev->net)
		return NULL;
	if (ndev == sdev->ndev)
		return ib_device_try_get(&sdev->ibdev) ? sdev : NULL;
	return sroce_ns_dev_get(sdev->net->ns, ndev);
}

/* Does @route hold a route for this flow? */
static bool sroce_route_match(const struct sroce_route *route,
			      const struct net *net, const struct sroce_av *av,
			      u16 sport)
{
	const struct sroce_av *c = &route->av;

	if (!route->dst || route->net != net || route->sport != sport ||
	    c->network_type != av->network_type ||
	    c->traffic_class != av->traffic_class)
		return false;
	if (av->network_type == RDMA_NETWORK_IPV4)
		return c->saddr.ip4 == av->saddr.ip4 &&
		       c->daddr.ip4 == av->daddr.ip4;
	return c->flow_label == av->flow_label &&
	       ipv6_addr_equal(&c->saddr.ip6, &av->saddr.ip6) &&
	       ipv6_addr_equal(&c->daddr.ip6, &av->daddr.ip6);
}

/*
 * The cached route of this flow, with a reference for the caller, or
 * NULL (nothing cached, another flow, or stale: then it is dropped).
 */
static struct dst_entry *sroce_route_get(struct sroce_route *route,
					 const struct net *net,
					 const struct sroce_av *av, u16 sport)
{
	struct dst_entry *dst;

	if (!route || !sroce_route_match(route, net, av, sport))
		return NULL;
	dst = dst_check(route->dst, route->cookie);
	if (!dst) {
		sroce_route_release(route);
		return NULL;
	}
	dst_hold(dst);
	return dst;
}

/* Cache @dst (the caller keeps its own reference) for this flow. */
static void sroce_route_set(struct sroce_route *route, const struct net *net,
			    const struct sroce_av *av, u16 sport,
			    struct dst_entry *dst, u32 cookie)
{
	if (!route)
		return;
	sroce_route_release(route);
	dst_hold(dst);
	route->dst = dst;
	route->net = net;
	route->cookie = cookie;
	route->sport = sport;
	route->av = *av;
}

/**
 * sroce_route_release - drop a QP's cached route
 * @route: the cache; left empty
 *
 * Any context; the caller owns the QP's engines, or the QP is being
 * destroyed and no engine runs any more.
 */
void sroce_route_release(struct sroce_route *route)
{
	dst_release(route->dst);
	route->dst = NULL;
}

/*
 * Push the IPv4 header and take @segs IDs for it (one per packet of a GSO
 * skb, which the GSO code hands out in turn; 0: the caller sets the ID).
 * The ID is covered by the ICRC: it is chosen before that is computed.
 */
static void sroce_push_ipv4(struct net *net, struct sk_buff *skb,
			    const struct sroce_av *av, int segs)
{
	struct iphdr *iph;

	__skb_push(skb, sizeof(*iph));
	skb_reset_network_header(skb);
	iph = ip_hdr(skb);
	iph->version = IPVERSION;
	iph->ihl = sizeof(*iph) >> 2;
	iph->tos = av->traffic_class;
	iph->tot_len = htons(skb->len);
	iph->frag_off = htons(IP_DF);
	iph->ttl = av->hop_limit;
	iph->protocol = IPPROTO_UDP;
	iph->check = 0;
	iph->saddr = av->saddr.ip4;
	iph->daddr = av->daddr.ip4;
	iph->id = 0;
	if (segs)
		__ip_select_ident(net, iph, segs);
}

/*
 * The route of an IPv4 flow, through @route's cache, with a reference
 * for the caller; or an ERR_PTR. RCU held.
 */
static struct rtable *sroce_route4(struct sroce_dev *sdev, struct net *net,
				   const struct sroce_av *av, u16 sport,
				   struct sroce_route *route)
{
	struct flowi4 fl4 = {
		.flowi4_oif = sdev->ndev->ifindex,
		.flowi4_proto = IPPROTO_UDP,
		SROCE_FLOWI4_TCLASS(av->traffic_class),
		.saddr = av->saddr.ip4,
		.daddr = av->daddr.ip4,
		.fl4_sport = htons(sport),
		.fl4_dport = htons(SROCE_UDP_PORT),
	};
	struct dst_entry *dst;
	struct rtable *rt;

	dst = sroce_route_get(route, net, av, sport);
	if (dst)
		return dst_rtable(dst);
	rt = ip_route_output_key(net, &fl4);
	if (IS_ERR(rt)) {
		ibdev_dbg_ratelimited(&sdev->ibdev, "no route to %pI4\n",
				      &av->daddr.ip4);
		return ERR_PTR(-EHOSTUNREACH);
	}
	sroce_route_set(route, net, av, sport, &rt->dst, 0);
	return rt;
}

/*
 * A multi-queue netdev picks the TX queue by the sending CPU (XPS), and
 * its queues go to the wire independently. A QP's engines run on more
 * than one CPU, so its packets would take several queues and could
 * leave out of order: a sequence NAK on RC, a message lost on UC. An
 * RNIC sends a QP's packets through one queue. So XPS is given a CPU
 * taken from the flow (its UDP source port, one per QP and peer) instead
 * of the one this runs on. Where XPS has no map, the queue comes from
 * the flow's hash, which is stable too.
 */
static void sroce_tx_queue_by_flow(struct sk_buff *skb, u16 sport)
{
#ifdef CONFIG_XPS
	skb->sender_cpu = sport % nr_cpu_ids + 1;
#endif
}

/* Hand an IPv4 packet or GSO skb to the IP stack; consumes it and @rt. */
static int sroce_ip4_out(struct net *net, struct sk_buff *skb,
			 struct rtable *rt, const struct sroce_av *av,
			 u16 sport)
{
	int err;

	memset(IPCB(skb), 0, sizeof(*IPCB(skb)));
	skb->priority = rt_tos2priority(av->traffic_class);
	sroce_tx_queue_by_flow(skb, sport);
	skb_dst_set(skb, &rt->dst);
	err = ip_local_out(net, NULL, skb);
	if (unlikely(net_xmit_eval(err)))
		return err < 0 ? err : -ENOBUFS;
	return 0;
}

/* The local sroce device an IPv4 route leads to (referenced), or NULL. */
static struct sroce_dev *sroce_local_dev4(struct sroce_dev *sdev,
					  struct net *net, struct rtable *rt,
					  const struct sroce_av *av)
{
	if (rt->rt_type != RTN_LOCAL)
		return NULL;
	return sroce_local_dev_get(sdev, __ip_dev_find(net, av->daddr.ip4,
						       false));
}

/* IPv4 transmit; consumes the skb. RCU held. */
static int sroce_xmit4(struct sroce_dev *sdev, struct net *net,
		       struct sk_buff *skb, const struct sroce_av *av,
		       u16 sport, struct sroce_route *route)
{
	struct sroce_dev *dst_sdev;
	struct rtable *rt;
	int err;

	rt = sroce_route4(sdev, net, av, sport, route);
	if (IS_ERR(rt)) {
		kfree_skb(skb);
		return PTR_ERR(rt);
	}
	sroce_push_udp(skb, sport);
	sroce_push_ipv4(net, skb, av, 1);
	err = sroce_icrc_fill(skb, sizeof(struct iphdr));
	if (err) {
		ip_rt_put(rt);
		kfree_skb(skb);
		return err;
	}

	dst_sdev = sroce_local_dev4(sdev, net, rt, av);
	if (dst_sdev) {
		ip_rt_put(rt);
		err = sroce_loopback(dst_sdev, skb, sizeof(struct iphdr));
		ib_device_put(&dst_sdev->ibdev);
		return err;
	}
	return sroce_ip4_out(net, skb, rt, av, sport);
}

static void sroce_push_ipv6(struct sk_buff *skb, const struct sroce_av *av)
{
	struct ipv6hdr *ip6h;
	unsigned int udp_len = skb->len;

	__skb_push(skb, sizeof(*ip6h));
	skb_reset_network_header(skb);
	ip6h = ipv6_hdr(skb);
	ip6_flow_hdr(ip6h, av->traffic_class, htonl(av->flow_label));
	ip6h->payload_len = htons(udp_len);
	ip6h->nexthdr = IPPROTO_UDP;
	ip6h->hop_limit = av->hop_limit;
	ip6h->saddr = av->saddr.ip6;
	ip6h->daddr = av->daddr.ip6;
	/* A real UDP checksum (CHECKSUM_PARTIAL: finished by the netdev). */
	udp6_set_csum(false, skb, &ip6h->saddr, &ip6h->daddr, udp_len);
}

/* IPv6 transmit; consumes the skb. RCU held. */
static int sroce_xmit6(struct sroce_dev *sdev, struct net *net,
		       struct sk_buff *skb, const struct sroce_av *av,
		       u16 sport, struct sroce_route *route)
{
	struct flowi6 fl6 = {
		.flowi6_oif = sdev->ndev->ifindex,
		.flowi6_proto = IPPROTO_UDP,
		.flowlabel = ip6_make_flowinfo(av->traffic_class,
					       htonl(av->flow_label)),
		.saddr = av->saddr.ip6,
		.daddr = av->daddr.ip6,
		.fl6_sport = htons(sport),
		.fl6_dport = htons(SROCE_UDP_PORT),
	};
	struct sroce_dev *dst_sdev = NULL;
	struct dst_entry *dst;
	int err;

	dst = sroce_route_get(route, net, av, sport);
	if (!dst) {
		dst = ip6_route_output(net, NULL, &fl6);
		if (dst->error) {
			ibdev_dbg_ratelimited(&sdev->ibdev, "no route to %pI6\n",
					      &av->daddr.ip6);
			dst_release(dst);
			kfree_skb(skb);
			return -EHOSTUNREACH;
		}
		sroce_route_set(route, net, av, sport, dst,
				rt6_get_cookie(dst_rt6_info(dst)));
	}
	sroce_push_udp(skb, sport);
	sroce_push_ipv6(skb, av);
	err = sroce_icrc_fill(skb, sizeof(struct ipv6hdr));
	if (err)
		goto err_free;

	if (dst_rt6_info(dst)->rt6i_flags & RTF_LOCAL)
		dst_sdev = sroce_local_dev_get(sdev,
					       ipv6_dev_find(net, &av->daddr.ip6,
							     NULL));
	if (dst_sdev) {
		dst_release(dst);
		err = sroce_loopback(dst_sdev, skb, sizeof(struct ipv6hdr));
		ib_device_put(&dst_sdev->ibdev);
		return err;
	}

	memset(IP6CB(skb), 0, sizeof(*IP6CB(skb)));
	skb->priority = rt_tos2priority(av->traffic_class);
	sroce_tx_queue_by_flow(skb, sport);
	skb_dst_set(skb, dst);
	err = ip6_local_out(net, NULL, skb);
	if (unlikely(net_xmit_eval(err)))
		return err < 0 ? err : -ENOBUFS;
	return 0;

err_free:
	dst_release(dst);
	kfree_skb(skb);
	return err;
}

/*
 * Checks before a packet leaves: a malformed skb is freed and counted
 * (-EINVAL), and a test's drop rule takes it as if lost on the wire
 * (returns 1). 0: send.
 */
static int sroce_net_tx_check(struct sroce_dev *sdev, struct sk_buff *skb,
			      const struct sroce_av *av)
{
	unsigned int ip_len = av->network_type == RDMA_NETWORK_IPV6 ?
			      sizeof(struct ipv6hdr) : sizeof(struct iphdr);

	if (unlikely(skb->len < SROCE_BTH_LEN + SROCE_ICRC_LEN ||
		     skb_headroom(skb) < sizeof(struct udphdr) + ip_len)) {
		kfree_skb(skb);
		sroce_count(sdev, SROCE_CNT_TX_ERRORS);
		return -EINVAL;
	}
	trace_sroce_pkt_send(sdev, skb->data, skb->len);
	if (unlikely(sroce_fault_armed(&sdev->fault, SROCE_FAULT_TX)) &&
	    __sroce_fault_drop(sdev, SROCE_FAULT_TX, skb->data, skb_headlen(skb))) {
		consume_skb(skb);
		return 1;
	}
	skb->dev = sdev->ndev;
	return 0;
}

/*
 * Packets of a QP that left, in its counters as tx_pkts and tx_bytes;
 * @stats NULL: a packet sent outside the QP's engines (a CNP), whose
 * counters only the engines' owner may write.
 */
static void sroce_tx_count(struct sroce_qp_stats *stats, u64 pkts, u64 bytes)
{
	if (!stats)
		return;
	sroce_qp_stats_add(stats, SROCE_QCNT_TX_PKTS, pkts);
	sroce_qp_stats_add(stats, SROCE_QCNT_TX_BYTES, bytes);
}

/* sroce_net_xmit() after sroce_net_tx_check(); counts. */
static int sroce_net_xmit_checked(struct sroce_dev *sdev, struct sk_buff *skb,
				  const struct sroce_av *av, u16 udp_sport,
				  struct sroce_route *route,
				  struct sroce_qp_stats *stats)
{
	unsigned int ib_len = skb->len;
	struct net *net;
	int err;

	rcu_read_lock();
	net = dev_net_rcu(sdev->ndev);
	switch (av->network_type) {
	case RDMA_NETWORK_IPV4:
		skb->protocol = htons(ETH_P_IP);
		err = sroce_xmit4(sdev, net, skb, av, udp_sport, route);
		break;
	case RDMA_NETWORK_IPV6:
		skb->protocol = htons(ETH_P_IPV6);
		err = sroce_xmit6(sdev, net, skb, av, udp_sport, route);
		break;
	default:
		kfree_skb(skb);
		err = -EINVAL;
		break;
	}
	rcu_read_unlock();
	if (err) {
		sroce_count(sdev, SROCE_CNT_TX_ERRORS);
		return err;
	}
	sroce_count(sdev, SROCE_CNT_TX_PKTS);
	sroce_count_add(sdev, SROCE_CNT_TX_BYTES, ib_len);
	sroce_tx_count(stats, 1, ib_len);
	return 0;
}

/**
 * sroce_net_xmit - send one RoCEv2 packet
 * @sdev:      the sending device
 * @skb:       from sroce_net_alloc_skb(): skb->data at the BTH, skb->len
 *             BTH .. ICRC (BTH and headers linear; the payload may be in
 *             page fragments); consumed in every case
 * @av:        destination, from sroce_av_from_ah_attr()
 * @udp_sport: UDP source port, e.g. sroce_udp_sport()
 * @route:     the sending QP's route cache (NULL: look the route up);
 *             the caller owns the QP's engines
 * @stats:     the sending QP's counters (sroce_qp_stats.h), or NULL for
 *             a packet sent outside the QP's engines (not counted there)
 *
 * Pushes UDP and IP headers, writes the ICRC, routes in the netdev's
 * netns (through @route's cached route while it is valid) and sends
 * with ip_local_out/ip6_local_out. A packet to an address of a sroce
 * device of this host (the sender itself included) does not
 * touch the wire: it goes to that device's receive path, through the
 * same checks, from a BH work item (never re-entering the caller).
 *
 * Counts tx_pkts/tx_bytes (BTH .. ICRC), on the device and in @stats, or
 * tx_errors. Returns 0 or a negative errno (-EINVAL bad skb or AV,
 * -EHOSTUNREACH no route, -EMSGSIZE over the path MTU, -ENOBUFS dropped
 * by a queue). Never sleeps; not from hard irq (locks: see sroce_xmit.h).
 */
int sroce_net_xmit(struct sroce_dev *sdev, struct sk_buff *skb,
		   const struct sroce_av *av, u16 udp_sport,
		   struct sroce_route *route, struct sroce_qp_stats *stats)
{
	int err = sroce_net_tx_check(sdev, skb, av);

	if (err)
		return err > 0 ? 0 : err;
	return sroce_net_xmit_checked(sdev, skb, av, udp_sport, route, stats);
}

static bool tx_gso = true;
module_param(tx_gso, bool, 0644);
MODULE_PARM_DESC(tx_gso,
		 "Send a QP's consecutive IPv4 packets to one destination as one UDP GSO skb (default: on; off sends them one by one)");

/* Packets per GSO skb; its IPv4 total length must also fit 16 bits. */
#define SROCE_TXBATCH_MAX	64

void sroce_txbatch_init(struct sroce_txbatch *b, struct sroce_qp_stats *stats)
{
	__skb_queue_head_init(&b->skbs);
	b->stats = stats;
}

/* May a packet of @ib_len bytes to @av, @sport join @b? */
static bool sroce_txbatch_fits(const struct sroce_txbatch *b,
			       const struct sroce_av *av, u16 sport,
			       unsigned int ib_len)
{
	const struct sroce_av *c = &b->av;

	return skb_queue_len(&b->skbs) < SROCE_TXBATCH_MAX &&
	       ib_len <= b->gso_size && b->sport == sport &&
	       sizeof(struct iphdr) + sizeof(struct udphdr) + b->bytes +
	       ib_len <= IP_MAX_MTU &&
	       c->saddr.ip4 == av->saddr.ip4 && c->daddr.ip4 == av->daddr.ip4 &&
	       c->traffic_class == av->traffic_class &&
	       c->hop_limit == av->hop_limit;
}

/**
 * sroce_txbatch_add - send a packet, possibly with the next ones
 * @sdev: as for sroce_net_xmit()
 * @b: the QP's batch (struct sroce_txbatch)
 * @skb: as for sroce_net_xmit()
 * @av: as for sroce_net_xmit()
 * @udp_sport: as for sroce_net_xmit()
 * @route: as for sroce_net_xmit()
 *
 * Queues an IPv4 packet on @b, sending what @b held first if this one
 * cannot join it; other packets leave at once. The caller owns the QP's
 * engines and calls sroce_txbatch_send() before it lets them go. Errors
 * of a queued packet are counted when @b is sent (tx_errors), as a packet
 * lost on the way out. Returns 0 or, for a packet sent at once, as
 * sroce_net_xmit().
 */
int sroce_txbatch_add(struct sroce_dev *sdev, struct sroce_txbatch *b,
		      struct sk_buff *skb, const struct sroce_av *av,
		      u16 udp_sport, struct sroce_route *route)
{
	bool batch = av->network_type == RDMA_NETWORK_IPV4 && READ_ONCE(tx_gso);
	unsigned int ib_len = skb->len;
	int err;

	/* What waits leaves first: packets go out in the order given. */
	if (!skb_queue_empty(&b->skbs) &&
	    (!batch || !sroce_txbatch_fits(b, av, udp_sport, ib_len)))
		sroce_txbatch_send(sdev, b, route);
	if (!batch)
		return sroce_net_xmit(sdev, skb, av, udp_sport, route, b->stats);

	err = sroce_net_tx_check(sdev, skb, av);
	if (err)
		return err > 0 ? 0 : err;
	if (skb_queue_empty(&b->skbs)) {
		b->av = *av;
		b->sport = udp_sport;
		b->gso_size = ib_len;
		b->bytes = 0;
	}
	__skb_queue_tail(&b->skbs, skb);
	b->bytes += ib_len;
	return 0;
}

/*
 * Headers and ICRC of one segment of a GSO skb, then skb->data back at
 * its BTH: the segment keeps its own IP and UDP headers, which the GSO
 * code puts in front of it again.
 */
static int sroce_txbatch_seg(struct sk_buff *skb, const struct sroce_av *av,
			     u16 sport, u16 id)
{
	int err;

	sroce_push_udp(skb, sport);
	sroce_push_ipv4(NULL, skb, av, 0);
	ip_hdr(skb)->id = htons(id);
	err = sroce_icrc_fill(skb, sizeof(struct iphdr));
	__skb_pull(skb, sizeof(struct iphdr) + sizeof(struct udphdr));
	return err;
}

/*
 * Build one GSO skb of @b's packets (at least two) and send it; the
 * first packet is its head. RCU held. Returns the packets sent, or a
 * negative errno with all of them freed.
 */
static int sroce_txbatch_xmit4(struct sroce_dev *sdev, struct net *net,
			       struct sroce_txbatch *b, struct sroce_route *route)
{
	struct sk_buff *head, *skb, **link;
	unsigned int n = skb_queue_len(&b->skbs);
	struct sroce_dev *dst_sdev;
	struct rtable *rt;
	u16 id;
	int err;

	rt = sroce_route4(sdev, net, &b->av, b->sport, route);
	if (IS_ERR(rt)) {
		__skb_queue_purge(&b->skbs);
		return PTR_ERR(rt);
	}
	dst_sdev = sroce_local_dev4(sdev, net, rt, &b->av);
	if (dst_sdev) {
		/* Local delivery takes them one by one. */
		ib_device_put(&dst_sdev->ibdev);
		ip_rt_put(rt);
		return 0;
	}

	head = __skb_dequeue(&b->skbs);
	head->protocol = htons(ETH_P_IP);
	sroce_push_udp(head, b->sport);
	sroce_push_ipv4(net, head, &b->av, n);
	id = ntohs(ip_hdr(head)->id);
	err = sroce_icrc_fill(head, sizeof(struct iphdr));
	if (err)
		goto err_free;
	/* The head's UDP length covers every segment until GSO splits it. */
	udp_hdr(head)->len = htons(sizeof(struct udphdr) + b->bytes);

	link = &skb_shinfo(head)->frag_list;
	while ((skb = __skb_dequeue(&b->skbs))) {
		*link = skb;
		link = &skb->next;
		head->len += skb->len;
		head->data_len += skb->len;
		head->truesize += skb->truesize;
		err = sroce_txbatch_seg(skb, &b->av, b->sport, ++id);
		if (err)
			goto err_free;
	}
	skb_shinfo(head)->gso_type = SKB_GSO_UDP_L4 | SKB_GSO_FRAGLIST;
	skb_shinfo(head)->gso_size = b->gso_size;
	skb_shinfo(head)->gso_segs = n;
	/* IPv4 RoCEv2 carries no UDP checksum: nothing to compute or check. */
	head->ip_summed = CHECKSUM_UNNECESSARY;
	err = sroce_ip4_out(net, head, rt, &b->av, b->sport);
	return err ?: n;

err_free:
	ip_rt_put(rt);
	kfree_skb(head);
	__skb_queue_purge(&b->skbs);
	return err;
}

/**
 * sroce_txbatch_send - send the packets of a batch
 * @sdev: the sending device
 * @b: the batch; empty after
 * @route: the QP's route cache, as for sroce_net_xmit()
 *
 * One packet leaves as with sroce_net_xmit(), more as one GSO skb (or one
 * by one when they go to a sroce device of this host). Counts tx_pkts and
 * tx_bytes per packet (in the QP's counters too), tx_gso_skbs, or
 * tx_errors per packet lost. Context as sroce_net_xmit().
 */
void sroce_txbatch_send(struct sroce_dev *sdev, struct sroce_txbatch *b,
			struct sroce_route *route)
{
	unsigned int n = skb_queue_len(&b->skbs), bytes = b->bytes;
	struct sk_buff *skb;
	int sent = 0;

	if (!n)
		return;
	if (n > 1) {
		rcu_read_lock();
		sent = sroce_txbatch_xmit4(sdev, dev_net_rcu(sdev->ndev), b,
					   route);
		rcu_read_unlock();
	}
	if (sent < 0) {
		sroce_count_add(sdev, SROCE_CNT_TX_ERRORS, n);
	} else if (sent) {
		sroce_count(sdev, SROCE_CNT_TX_GSO_SKBS);
		sroce_count_add(sdev, SROCE_CNT_TX_PKTS, n);
		sroce_count_add(sdev, SROCE_CNT_TX_BYTES, bytes);
		sroce_tx_count(b->stats, n, bytes);
	}
	while ((skb = __skb_dequeue(&b->skbs)))
		sroce_net_xmit_checked(sdev, skb, &b->av, b->sport, route,
				       b->stats);
}
