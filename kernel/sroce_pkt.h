/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * sroce_pkt.h - what the receive path hands to the QP engines.
 *
 * sroce_qp_rcv(sdev, skb) gets an skb that passed every network-level
 * check: UDP length, ICRC, and core sroce_parse_hdrs(). Then:
 *
 *   skb->data            first BTH byte
 *   skb->len             BTH .. ICRC inclusive (sroce_pkt(skb)->... below)
 *   BTH + ext headers    linear: skb->data[0 .. hdr_len) may be read
 *                        directly (core bth.h / ext_hdrs.h accessors, or
 *                        sroce_pkt_ext())
 *   payload              skb offset hdr_len, payload_len bytes; it may sit
 *                        in page fragments: read it with
 *                        sroce_pkt_copy_payload(), never through skb->data
 *   pad + ICRC           the last pad + 4 bytes; already checked
 *   network header       skb_network_header(skb): the IPv4 or IPv6 header
 *                        (linear), for sroce_pkt_network_hdr()/_sgid()
 *   skb->cb              struct sroce_pkt
 *
 * The skb is never shared with anyone else when it reaches the engines
 * (the engine owns it and must free it), but it may be a clone: do not
 * write into its data.
 */
#ifndef SROCE_PKT_H
#define SROCE_PKT_H

#include <linux/build_bug.h>
#include <linux/skbuff.h>
#include <rdma/ib_verbs.h>

#include "opcode.h"
#include "parse.h"

/* sroce_pkt.flags */
#define SROCE_PKT_SE		BIT(0)	/* BTH solicited event */
#define SROCE_PKT_MIG		BIT(1)	/* BTH MigReq */
#define SROCE_PKT_ACKREQ	BIT(2)	/* BTH AckReq */
#define SROCE_PKT_FECN		BIT(3)	/* BTH FECN (congestion seen) */
#define SROCE_PKT_BECN		BIT(4)	/* BTH BECN */
#define SROCE_PKT_LOOPBACK	BIT(5)	/* sent by a device of this host */

/**
 * struct sroce_pkt - per-packet receive state, in skb->cb
 * @sdev:         the receiving device. No reference of its own: valid
 *                during sroce_qp_rcv() (its caller holds one) and for as
 *                long as the engine holds a QP of that device
 * @mask:         SROCE_M_* bits of the opcode (core opcode.h)
 * @psn:          BTH PSN (24 bits)
 * @dqpn:         BTH destination QP (24 bits, never 0xFFFFFF here)
 * @pkey:         BTH P_Key
 * @payload_len:  payload bytes, pad and ICRC excluded (<= 4096)
 * @opcode:       BTH opcode (a supported one: sroce_opcode_get() != NULL)
 * @hdr_len:      BTH + extension headers; the payload starts at skb
 *                offset @hdr_len
 * @pad:          BTH pad count (0..3)
 * @flags:        SROCE_PKT_* bits
 * @network_type: RDMA_NETWORK_IPV4 or RDMA_NETWORK_IPV6
 */
struct sroce_pkt {
	struct sroce_dev *sdev;
	u32 mask;
	u32 psn;
	u32 dqpn;
	u16 pkey;
	u16 payload_len;
	u8 opcode;
	u8 hdr_len;
	u8 pad;
	u8 flags;
	u8 network_type;
};

static inline struct sroce_pkt *sroce_pkt(struct sk_buff *skb)
{
	BUILD_BUG_ON(sizeof(struct sroce_pkt) > sizeof_field(struct sk_buff, cb));
	return (struct sroce_pkt *)skb->cb;
}

static inline const struct sroce_pkt *sroce_pkt_c(const struct sk_buff *skb)
{
	return (const struct sroce_pkt *)skb->cb;
}

/* sroce_pkt_bth - the first BTH byte (linear) */
static inline const u8 *sroce_pkt_bth(const struct sk_buff *skb)
{
	return skb->data;
}

/**
 * sroce_pkt_ext - one extension header of a received packet
 * @skb: a packet handed to sroce_qp_rcv()
 * @ext: SROCE_EXT_DETH .. SROCE_EXT_IETH
 *
 * Returns a pointer to the header (linear, use the core ext_hdrs.h
 * accessors on it: sroce_reth_va(p), sroce_deth_qkey(p), ...), or NULL if
 * the opcode has no such header.
 */
static inline const u8 *sroce_pkt_ext(const struct sk_buff *skb,
				      enum sroce_ext ext)
{
	const struct sroce_pkt *pkt = sroce_pkt_c(skb);

	if (ext >= SROCE_EXT_PAYLOAD || !(pkt->mask & BIT(ext)))
		return NULL;
	return skb->data + sroce_opcode_table[pkt->opcode].offset[ext];
}

/* sroce_recv.c */
int sroce_pkt_hdrs(const struct sk_buff *skb, struct sroce_hdrs *hdrs);
int sroce_pkt_copy_payload(const struct sk_buff *skb, u32 off, void *dst,
			   u32 len);
void sroce_pkt_network_hdr(const struct sk_buff *skb,
			   union rdma_network_hdr *hdr);
void sroce_pkt_sgid(const struct sk_buff *skb, union ib_gid *sgid);
void sroce_pkt_dgid(const struct sk_buff *skb, union ib_gid *dgid);

#endif /* SROCE_PKT_H */
