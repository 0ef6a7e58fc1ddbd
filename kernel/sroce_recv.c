// SPDX-License-Identifier: GPL-2.0-only
/*
 * sroce receive path: one RoCEv2 packet, from the UDP tunnel socket of the
 * device's netns (softirq, sroce_net.c) or from the loopback queue (BH
 * work, sroce_net.c), is checked and handed to sroce_qp_rcv().
 *
 * Checks, in order, each drop counted by reason (sroce_counters.h):
 *   UDP length == skb length, room for BTH + ICRC     rx_drop_malformed
 *   IPv6 without extension headers                     rx_drop_malformed
 *   IP broadcast destination                           rx_drop_mcast
 *   headers linear (pskb_may_pull)                     rx_drop_no_mem
 *   ICRC over IP + UDP + BTH .. pad                    rx_drop_icrc
 *   core sroce_parse_hdrs(): CNP                       rx_drop_cnp
 *                            anything else             rx_drop_malformed
 *   DestQP 0xFFFFFF without a multicast IP destination,
 *   or a multicast destination with another DestQP     rx_drop_mcast
 * Packets for DestQP 0xFFFFFF then go to sroce_mcast_rcv(), which drops
 * (rx_drop_mcast) what no attached QP of this device takes.
 * sroce_qp_deliver() then checks each packet against its QP: state
 * (rx_drop_qp_state), transport (rx_drop_qp_type), P_Key (rx_drop_bad_pkey).
 * The ICRC is checked before the headers are parsed, as an RNIC does: a
 * corrupted opcode is a corrupted packet, not a malformed one.
 *
 * Locking: none. The device is pinned by the caller's ib_device
 * reference; the skb is ours alone. Nothing is allocated unless
 * pskb_may_pull() has to linearise headers that arrived in fragments;
 * payload in fragments is never linearised (the ICRC is fed fragment by
 * fragment).
 */
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/skbuff.h>
#include <linux/udp.h>
#include <net/ipv6.h>
#include <rdma/ib_verbs.h>

#include "sroce.h"
#include "sroce_crc.h"
#include "sroce_pkt.h"
#include "sroce_qp.h"
#include "sroce_recv.h"
#include "bth.h"
#include "icrc.h"

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
	if (err) {
		drop = err == -SROCE_PARSE_ERR_CNP ? SROCE_CNT_DROP_CNP :
						     SROCE_CNT_DROP_MALFORMED;
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

/**
 * sroce_pkt_hdrs - decode every header of a packet given to sroce_qp_rcv
 * @skb:  the packet
 * @hdrs: filled with the BTH and extension header fields
 *
 * Re-runs the (already passed) core parser on the linear headers; use it
 * where many fields are needed, sroce_pkt_ext() where one is. Returns 0.
 */
int sroce_pkt_hdrs(const struct sk_buff *skb, struct sroce_hdrs *hdrs)
{
	return sroce_parse_hdrs(skb->data, skb->len, hdrs);
}

/**
 * sroce_pkt_copy_payload - copy payload bytes out of a received packet
 * @skb: a packet given to sroce_qp_rcv()
 * @off: offset into the payload (0 = first payload byte)
 * @dst: where to copy (kernel virtual address, e.g. a kmapped MR page)
 * @len: bytes to copy
 *
 * Works whatever the skb's layout (linear, page fragments, frag list); no
 * allocation, any context. Returns 0, or -EINVAL if [off, off + len) is
 * not inside the payload (pad and ICRC are not payload).
 */
int sroce_pkt_copy_payload(const struct sk_buff *skb, u32 off, void *dst,
			   u32 len)
{
	const struct sroce_pkt *pkt = sroce_pkt_c(skb);

	if (off > pkt->payload_len || len > pkt->payload_len - off)
		return -EINVAL;
	if (!len)
		return 0;
	return skb_copy_bits(skb, pkt->hdr_len + off, dst, len);
}

/**
 * sroce_pkt_network_hdr - the 40-byte GRH area of a UD receive
 * @skb: a packet given to sroce_qp_rcv()
 * @hdr: filled as RoCEv2 RNICs do: the IPv6 header, or for IPv4 20 zero
 *       bytes then the IPv4 header (its first 20 bytes)
 */
void sroce_pkt_network_hdr(const struct sk_buff *skb,
			   union rdma_network_hdr *hdr)
{
	if (sroce_pkt_c(skb)->network_type == RDMA_NETWORK_IPV4) {
		memset(hdr->reserved, 0, sizeof(hdr->reserved));
		memcpy(&hdr->roce4grh, ip_hdr(skb), sizeof(hdr->roce4grh));
	} else {
		memcpy(&hdr->ibgrh, ipv6_hdr(skb), sizeof(hdr->ibgrh));
	}
}

/* The source IP of a received packet as a GID (IPv4 mapped for IPv4). */
void sroce_pkt_sgid(const struct sk_buff *skb, union ib_gid *sgid)
{
	struct in6_addr *a = (struct in6_addr *)sgid->raw;

	if (sroce_pkt_c(skb)->network_type == RDMA_NETWORK_IPV4)
		ipv6_addr_set_v4mapped(ip_hdr(skb)->saddr, a);
	else
		*a = ipv6_hdr(skb)->saddr;
}

/* The destination IP of a received packet as a GID. */
void sroce_pkt_dgid(const struct sk_buff *skb, union ib_gid *dgid)
{
	struct in6_addr *a = (struct in6_addr *)dgid->raw;

	if (sroce_pkt_c(skb)->network_type == RDMA_NETWORK_IPV4)
		ipv6_addr_set_v4mapped(ip_hdr(skb)->daddr, a);
	else
		*a = ipv6_hdr(skb)->daddr;
}
