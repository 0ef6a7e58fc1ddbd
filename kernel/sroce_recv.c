// SPDX-License-Identifier: GPL-2.0-only
/*
 * sroce receive path: one RoCEv2 packet, from the UDP tunnel socket of the
 * device's netns (softirq, sroce_net.c) or from the loopback queue (BH
 * work, sroce_net.c), is checked, parsed, looked up and checked against
 * its QP, and handed to the scheduler.
 *
 * Checks, in order, each drop counted by reason (sroce_counters.h):
 *   UDP length == skb length, room for BTH + ICRC     rx_drop_malformed
 *   IPv6 without extension headers                     rx_drop_malformed
 *   IP broadcast destination                           rx_drop_mcast
 *   headers linear (pskb_may_pull)                     rx_drop_no_mem
 *   ICRC over IP + UDP + BTH .. pad                    rx_drop_icrc
 *   core sroce_parse_hdrs(): a CNP goes to sroce_recv_cnp()
 *                            anything else             rx_drop_malformed
 *   CNP: not exactly BTH + 16 + ICRC, multicast, or
 *        no live QP at its DestQP                      rx_drop_cnp
 *   DestQP 0xFFFFFF without a multicast IP destination,
 *   or a multicast destination with another DestQP     rx_drop_mcast
 * Packets for DestQP 0xFFFFFF then go, one clone each, to the QPs of this
 * device attached to the group (sroce_mcast_qps()); what none takes is
 * dropped (rx_drop_mcast). Each packet is then checked against its QP:
 * state (rx_drop_qp_state), transport (rx_drop_qp_type), P_Key
 * (rx_drop_bad_pkey), and handed to the scheduler (sroce_qp_deliver(),
 * sroce_exec.c), which queues it and runs or wakes the QP's engines.
 * The ICRC is checked before the headers are parsed, as an RNIC does: a
 * corrupted opcode is a corrupted packet, not a malformed one.
 *
 * ECN (Documentation/observability.md, "ECN and CNPs"): a packet
 * that reaches its QP marked Congestion Experienced is counted
 * (np_ecn_marked_roce_packets) and, with the ecn parameter on, answered
 * with a CNP to the QP that sent it, at most one per QP every
 * cnp_interval_us (np_cnp_sent): the notification point. A valid CNP
 * to a live QP is counted (rp_cnp_handled) for the reaction point.
 *
 * Locking: none of its own: the QP lookup takes the qp_xa lock and the
 * multicast lookup m->lock, each for a reference increment. The device is
 * pinned by the caller's ib_device reference; the skb is ours alone; a QP
 * by the reference the lookup took, for the time of one delivery.
 * Nothing is allocated unless pskb_may_pull() has to linearise headers
 * that arrived in fragments (or a multicast packet is cloned); payload in
 * fragments is never linearised (the ICRC is fed fragment by fragment).
 */
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/skbuff.h>
#include <linux/udp.h>
#include <net/ipv6.h>
#include <rdma/ib_verbs.h>

#include <rdma/ib_mad.h>

#include "sroce.h"
#include "sroce_cc.h"
#include "sroce_crc.h"
#include "sroce_exec.h"
#include "sroce_fault.h"
#include "sroce_mcast.h"
#include "sroce_param.h"
#include "sroce_pkt.h"
#include "sroce_qp.h"
#include "sroce_recv.h"
#include "bth.h"
#include "cnp.h"
#include "icrc.h"
#include "sroce_trace.h"

/*
 * The notification point answers ECN-CE by default, as RNICs do (mlx5
 * enables it per priority by default).
 */
static bool ecn = true;
module_param(ecn, bool, 0644);
MODULE_PARM_DESC(ecn,
		 "Send a CNP to the sender of a packet marked ECN-CE (default on)");

/*
 * Least time between two CNPs of one QP (mlx5's min_time_between_cnps),
 * in microseconds. 0: a CNP per marked packet.
 */
static uint cnp_interval_us = 4;
module_param(cnp_interval_us, uint, 0644);
MODULE_PARM_DESC(cnp_interval_us,
		 "Least time between two CNPs sent by one QP, in us (default 4)");

/* No drop: the checks below return this or the counter of the reason. */
#define SROCE_RX_OK	SROCE_NUM_COUNTERS

/* Network-level checks; sets the IP header length and network type. */
static enum sroce_counter sroce_check_net(struct sk_buff *skb,
					  unsigned int *ip_lenp, u8 *net_type,
					  bool *mcastp)
{
	unsigned int ulen, ip_len;
	bool mcast;

	if (skb_transport_offset(skb) != 0 ||
	    !pskb_may_pull(skb, SROCE_UDP_HDR_LEN))
		return SROCE_CNT_DROP_MALFORMED;
	ulen = ntohs(udp_hdr(skb)->len);
	if (ulen != skb->len ||
	    ulen < SROCE_UDP_HDR_LEN + SROCE_BTH_LEN + SROCE_ICRC_LEN)
		return SROCE_CNT_DROP_MALFORMED;

	ip_len = skb_transport_header(skb) - skb_network_header(skb);
	switch (skb->protocol) {
	case htons(ETH_P_IP):
		if (ip_len != ip_hdrlen(skb))
			return SROCE_CNT_DROP_MALFORMED;
		*net_type = RDMA_NETWORK_IPV4;
		if (ipv4_is_lbcast(ip_hdr(skb)->daddr))
			return SROCE_CNT_DROP_MCAST;
		mcast = ipv4_is_multicast(ip_hdr(skb)->daddr);
		break;
	case htons(ETH_P_IPV6):
		/* RoCEv2 has no IPv6 extension headers (the ICRC has no rule) */
		if (ip_len != sizeof(struct ipv6hdr))
			return SROCE_CNT_DROP_MALFORMED;
		*net_type = RDMA_NETWORK_IPV6;
		mcast = ipv6_addr_is_multicast(&ipv6_hdr(skb)->daddr);
		break;
	default:
		return SROCE_CNT_DROP_MALFORMED;
	}
	*mcastp = mcast;
	*ip_lenp = ip_len;
	return SROCE_RX_OK;
}

static void sroce_fill_pkt(struct sroce_dev *sdev, struct sk_buff *skb,
			   const struct sroce_hdrs *h, u8 net_type,
			   bool loopback)
{
	struct sroce_pkt *pkt = sroce_pkt(skb);

	memset(pkt, 0, sizeof(*pkt));
	pkt->sdev = sdev;
	pkt->mask = h->mask;
	pkt->psn = h->psn;
	pkt->dqpn = h->dqpn;
	pkt->pkey = h->pkey;
	pkt->payload_len = h->payload_len;
	pkt->opcode = h->opcode;
	pkt->hdr_len = h->hdr_len;
	pkt->pad = h->pad;
	pkt->network_type = net_type;
	pkt->flags = (h->se ? SROCE_PKT_SE : 0) |
		     (h->mig ? SROCE_PKT_MIG : 0) |
		     (h->ackreq ? SROCE_PKT_ACKREQ : 0) |
		     (h->fecn ? SROCE_PKT_FECN : 0) |
		     (h->becn ? SROCE_PKT_BECN : 0) |
		     (loopback ? SROCE_PKT_LOOPBACK : 0);
}

/*
 * The P_Key of the QP's pkey_index: the port's table has one entry, the
 * default full-member key (sroce_query_pkey), and modify_qp accepts no
 * other index.
 */
static u16 sroce_qp_pkey(const struct sroce_qp *qp)
{
	BUILD_BUG_ON(SROCE_PKEY_TBL_LEN != 1);
	return IB_DEFAULT_PKEY_FULL;
}

/*
 * The checks against the QP itself: state, transport, then the P_Key (IBA
 * 9.6.1.1, seed-rules R1.5 for UD; RC and UC alike): a packet of another
 * partition is dropped silently and counted before the engines see any of
 * it. Returns SROCE_RX_OK or the drop counter.
 */
static enum sroce_counter sroce_check_qp(struct sroce_qp *qp,
					 const struct sroce_pkt *pkt)
{
	if (!sroce_qp_caps(qp, SROCE_QPCAP_PROCESS_RECV))
		return SROCE_CNT_DROP_QP_STATE;
	if (sroce_opcode_qpt(pkt->opcode) != qp->type)
		return SROCE_CNT_DROP_QP_TYPE;
	if (!sroce_pkey_match(pkt->pkey, sroce_qp_pkey(qp)))
		return SROCE_CNT_DROP_BAD_PKEY;
	return SROCE_RX_OK;
}

/*
 * Where a CNP for @skb, which @qp received, goes: the QP that sent it.
 * RC and UC: the QP's own path and peer, as its ACKs; UD: back to the
 * packet's source address, from the address it came to (this port's
 * GID), and its DETH source QP. The CNP keeps the traffic class (DSCP)
 * but is never ECN-capable: a CNP must not be marked in turn. A UD
 * packet of a multicast group is not answered (no unicast address of
 * ours to answer from). Returns false for no CNP.
 */
static bool sroce_np_dest(struct sroce_qp *qp, const struct sk_buff *skb,
			  struct sroce_av *av, u32 *dqpn, u16 *sport)
{
	const struct sroce_pkt *pkt = sroce_pkt_c(skb);
	unsigned long flags;

	if (qp->type == SROCE_QPT_UD) {
		if (pkt->dqpn == SROCE_QPN_MULTICAST)
			return false;
		memset(av, 0, sizeof(*av));
		av->network_type = pkt->network_type;
		av->hop_limit = SROCE_DEFAULT_HOP_LIMIT;
		av->traffic_class = sroce_pkt_tclass(skb);
		if (pkt->network_type == RDMA_NETWORK_IPV4) {
			av->saddr.ip4 = ip_hdr(skb)->daddr;
			av->daddr.ip4 = ip_hdr(skb)->saddr;
		} else {
			av->saddr.ip6 = ipv6_hdr(skb)->daddr;
			av->daddr.ip6 = ipv6_hdr(skb)->saddr;
		}
		*dqpn = sroce_pkt_deth_sqpn(skb);
		*sport = sroce_udp_sport(qp->qpn, *dqpn);
	} else {
		/* attr is modify_qp's: a consistent copy under its lock */
		spin_lock_irqsave(&qp->state_lock, flags);
		*av = qp->attr.av;
		*dqpn = qp->attr.dest_qpn;
		*sport = qp->attr.udp_sport;
		spin_unlock_irqrestore(&qp->state_lock, flags);
	}
	av->traffic_class &= ~INET_ECN_MASK;
	return true;
}

/*
 * The notification point: @skb reached @qp marked Congestion
 * Experienced. Count it, and send the sender a CNP unless @qp sent one
 * less than cnp_interval_us ago. The CNP leaves from here, outside the
 * QP's engines, so it uses none of their state (route cache, batch,
 * per-QP counters): any receive context, no sleeping.
 */
static void sroce_np_ce(struct sroce_qp *qp, const struct sk_buff *skb)
{
	struct sroce_dev *sdev = qp->sdev;
	struct sk_buff *cnp;
	struct sroce_av av;
	u64 now, last, interval;
	u32 dqpn;
	u16 sport;

	sroce_count(sdev, SROCE_CNT_NP_ECN_MARKED);
	if (!READ_ONCE(ecn))
		return;
	/*
	 * No limit: every marked packet is answered, also when two CPUs
	 * receive the QP's packets at once (the peer's requester's on one,
	 * its responder's on the other), where the race below would leave
	 * one CPU's unanswered, as would clocks a few ns apart.
	 */
	interval = (u64)READ_ONCE(cnp_interval_us) * NSEC_PER_USEC;
	if (interval) {
		now = ktime_get_ns();
		last = atomic64_read(&qp->np_cnp_last);
		if (!sroce_cnp_due(now, last, interval) ||
		    !atomic64_try_cmpxchg(&qp->np_cnp_last, &last, now))
			return;
	}
	if (!sroce_np_dest(qp, skb, &av, &dqpn, &sport))
		return;
	cnp = sroce_net_alloc_skb(sdev, &av, SROCE_CNP_LEN);
	if (!cnp)
		return;
	if (sroce_cnp_build(cnp->data, cnp->len, sroce_pkt_c(skb)->pkey,
			    dqpn) < 0) {
		kfree_skb(cnp);
		return;
	}
	trace_sroce_cnp_send(qp, dqpn);
	if (!sroce_net_xmit(sdev, cnp, &av, sport, NULL, NULL))
		sroce_count(sdev, SROCE_CNT_NP_CNP_SENT);
}

/* Check @skb against @qp and hand it to the engines. Caller holds @qp. */
static void sroce_recv_qp(struct sroce_qp *qp, struct sk_buff *skb)
{
	enum sroce_counter drop = sroce_check_qp(qp, sroce_pkt(skb));

	if (drop != SROCE_RX_OK) {
		sroce_count(qp->sdev, drop);
		kfree_skb(skb);
		return;
	}
	trace_sroce_pkt_recv(qp->sdev, sroce_pkt_bth(skb), skb->len);
	if (unlikely(sroce_pkt_ce(skb)))
		sroce_np_ce(qp, skb);
	sroce_qp_deliver(qp, skb);
}

/*
 * A CNP (IBA annex A17.9.2) at skb->data + UDP header, @ib_len bytes
 * BTH .. ICRC, its ICRC checked: exactly BTH + 16 reserved bytes + ICRC,
 * unicast, to a live QP of this device, it is counted and handed to the
 * reaction point; anything else is dropped as rx_drop_cnp. Consumes @skb.
 */
static void sroce_recv_cnp(struct sroce_dev *sdev, struct sk_buff *skb,
			   unsigned int ib_len, bool mcast)
{
	struct sroce_qp *qp;
	u32 dqpn;

	if (mcast ||
	    sroce_cnp_parse(skb->data + SROCE_UDP_HDR_LEN, ib_len, &dqpn) ||
	    dqpn == SROCE_QPN_MULTICAST)
		goto drop;
	qp = sroce_qp_get(sdev, dqpn);
	if (!qp)
		goto drop;
	sroce_count(sdev, SROCE_CNT_RX_PKTS);
	sroce_count_add(sdev, SROCE_CNT_RX_BYTES, ib_len);
	sroce_count(sdev, SROCE_CNT_RP_CNP_HANDLED);
	trace_sroce_cnp_recv(qp);
	sroce_cc_cnp(qp);
	sroce_qp_put(qp);
	consume_skb(skb);
	return;
drop:
	sroce_count(sdev, SROCE_CNT_DROP_CNP);
	kfree_skb(skb);
}

/*
 * A packet to the multicast QPN: one clone to each QP of this device
 * attached to the group of its destination address (sroce_mcast.c), each
 * checked as a unicast packet is. Only UD SENDs can be multicast; anything
 * else, or a group with no QP here, is dropped and counted as
 * rx_drop_mcast.
 */
static void sroce_recv_mcast(struct sroce_dev *sdev, struct sk_buff *skb)
{
	struct sroce_qp *qps[SROCE_MAX_MCAST_QP_ATTACH];
	union ib_gid dgid;
	u32 i, n;

	if (sroce_opcode_transport(sroce_pkt(skb)->opcode) != SROCE_TR_UD)
		goto drop;
	sroce_pkt_dgid(skb, &dgid);
	n = sroce_mcast_qps(sdev, &dgid, qps);
	if (!n)
		goto drop;
	for (i = 0; i < n; i++) {
		struct sk_buff *c = i + 1 < n ? skb_clone(skb, GFP_ATOMIC) : skb;

		if (c)
			sroce_recv_qp(qps[i], c);
		else
			sroce_count(sdev, SROCE_CNT_DROP_NO_MEM);
		sroce_qp_put(qps[i]);
	}
	return;
drop:
	sroce_count(sdev, SROCE_CNT_DROP_MCAST);
	kfree_skb(skb);
}

/*
 * Hand a received, validated packet (struct sroce_pkt in skb->cb) to its
 * QP, or to every QP of its multicast group; consumes @skb.
 */
static void sroce_qp_rcv(struct sroce_dev *sdev, struct sk_buff *skb)
{
	const struct sroce_pkt *pkt = sroce_pkt(skb);
	struct sroce_qp *qp;

	if (pkt->dqpn == SROCE_QPN_MULTICAST) {
		sroce_recv_mcast(sdev, skb);
		return;
	}
	qp = sroce_qp_get(sdev, pkt->dqpn);
	if (!qp) {
		sroce_count(sdev, SROCE_CNT_DROP_NO_QP);
		kfree_skb(skb);
		return;
	}
	sroce_recv_qp(qp, skb);
	sroce_qp_put(qp);
}

void sroce_recv_skb(struct sroce_dev *sdev, struct sk_buff *skb,
		    bool loopback)
{
	const struct sroce_opcode_info *info;
	enum sroce_counter drop;
	struct sroce_hdrs h;
	unsigned int ib_len, hdr_len, ip_len = 0;
	u8 net_type = 0;
	bool mcast;
	int err;

	drop = sroce_check_net(skb, &ip_len, &net_type, &mcast);
	if (drop != SROCE_RX_OK)
		goto drop;
	ib_len = skb->len - SROCE_UDP_HDR_LEN;

	/* BTH linear for the ICRC; then the opcode's extension headers. */
	if (!pskb_may_pull(skb, SROCE_UDP_HDR_LEN + SROCE_BTH_LEN)) {
		drop = SROCE_CNT_DROP_NO_MEM;
		goto drop;
	}
	if (!sroce_icrc_ok(skb, skb_network_header(skb), ip_len, skb->len)) {
		drop = SROCE_CNT_DROP_ICRC;
		goto drop;
	}
	info = sroce_opcode_get(skb->data[SROCE_UDP_HDR_LEN]);
	hdr_len = info ? min_t(unsigned int, info->length, ib_len) : 0;
	if (!pskb_may_pull(skb, SROCE_UDP_HDR_LEN + hdr_len)) {
		drop = SROCE_CNT_DROP_NO_MEM;
		goto drop;
	}
	/*
	 * The parser reads only the BTH and the opcode's extension headers,
	 * all linear now; @ib_len tells it where the ICRC is.
	 */
	err = sroce_parse_hdrs(skb->data + SROCE_UDP_HDR_LEN, ib_len, &h);
	if (err == -SROCE_PARSE_ERR_CNP) {
		sroce_recv_cnp(sdev, skb, ib_len, mcast);
		return;
	}
	if (err) {
		drop = SROCE_CNT_DROP_MALFORMED;
		ibdev_dbg_ratelimited(&sdev->ibdev, "drop: %s\n",
				      sroce_parse_err_name(err));
		goto drop;
	}
	/* The multicast QPN exactly for multicast addresses (R1.4). */
	if (mcast ? h.dqpn != SROCE_QPN_MULTICAST :
		    h.dqpn == SROCE_QPN_MULTICAST) {
		drop = SROCE_CNT_DROP_MCAST;
		goto drop;
	}

	if (unlikely(sroce_fault_armed(&sdev->fault, SROCE_FAULT_RX)) &&
	    __sroce_fault_drop(sdev, SROCE_FAULT_RX, skb->data + SROCE_UDP_HDR_LEN,
			       skb_headlen(skb) - SROCE_UDP_HDR_LEN)) {
		consume_skb(skb);
		return;
	}
	sroce_fill_pkt(sdev, skb, &h, net_type, loopback);
	__skb_pull(skb, SROCE_UDP_HDR_LEN);
	sroce_count(sdev, SROCE_CNT_RX_PKTS);
	sroce_count_add(sdev, SROCE_CNT_RX_BYTES, ib_len);
	sroce_qp_rcv(sdev, skb);
	return;

drop:
	sroce_count(sdev, drop);
	kfree_skb(skb);
}
