/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * sroce_pkt.h - what the receive path hands to the QP engines.
 *
 * sroce_qp_rcv() (sroce_recv.c) gets an skb that passed every network-level
 * check: UDP length, ICRC, and core sroce_parse_hdrs(); the engines get it
 * after the QP's checks too. Then:
 *
 *   skb->data            first BTH byte
 *   skb->len             BTH .. ICRC inclusive (sroce_pkt(skb)->... below)
 *   BTH + ext headers    linear: skb->data[0 .. hdr_len) may be read
 *                        directly (core bth.h / ext_hdrs.h accessors,
 *                        sroce_pkt_ext(), sroce_pkt_reth() ...); the
 *                        BTH fields are decoded in struct sroce_pkt
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
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/skbuff.h>
#include <net/dsfield.h>
#include <net/inet_ecn.h>
#include <net/ipv6.h>
#include <rdma/ib_verbs.h>

#include "ext_hdrs.h"
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
	BUILD_BUG_ON(SROCE_MAX_PAYLOAD > U16_MAX);	/* @payload_len */
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
 * the opcode has no such header. The pointer is good until
 * sroce_pkt_payload() linearizes the skb.
 */
static inline const u8 *sroce_pkt_ext(const struct sk_buff *skb,
				      enum sroce_ext ext)
{
	const struct sroce_pkt *pkt = sroce_pkt_c(skb);

	if (ext >= SROCE_EXT_PAYLOAD || !(pkt->mask & BIT(ext)))
		return NULL;
	return skb->data + sroce_opcode_table[pkt->opcode].offset[ext];
}

/*
 * The extension header fields the engines use, read where they lie in the
 * packet when called: zero when the opcode has no such header (as in
 * struct sroce_hdrs). Calling again after sroce_pkt_payload(), which may
 * move the data, is safe.
 */

/* The RETH of a received packet */
struct sroce_pkt_reth {
	u64 va;
	u32 rkey;
	u32 len;
};

static inline struct sroce_pkt_reth sroce_pkt_reth(const struct sk_buff *skb)
{
	const u8 *p = sroce_pkt_ext(skb, SROCE_EXT_RETH);
	struct sroce_pkt_reth reth = {};

	if (p) {
		reth.va = sroce_reth_va(p);
		reth.rkey = sroce_reth_rkey(p);
		reth.len = sroce_reth_len(p);
	}
	return reth;
}

/* The FETH of a received FLUSH: placement type, selectivity level */
struct sroce_pkt_feth {
	u8 plt;
	u8 sel;
};

static inline struct sroce_pkt_feth sroce_pkt_feth(const struct sk_buff *skb)
{
	const u8 *p = sroce_pkt_ext(skb, SROCE_EXT_FETH);
	struct sroce_pkt_feth feth = {};

	if (p) {
		feth.plt = sroce_feth_plt(p);
		feth.sel = sroce_feth_sel(p);
	}
	return feth;
}

/* The AtomicETH of a received packet */
struct sroce_pkt_atmeth {
	u64 va;
	u32 rkey;
	u64 swap_add;
	u64 comp;
};

static inline struct sroce_pkt_atmeth
sroce_pkt_atmeth(const struct sk_buff *skb)
{
	const u8 *p = sroce_pkt_ext(skb, SROCE_EXT_ATMETH);
	struct sroce_pkt_atmeth atm = {};

	if (p) {
		atm.va = sroce_atmeth_va(p);
		atm.rkey = sroce_atmeth_rkey(p);
		atm.swap_add = sroce_atmeth_swap_add(p);
		atm.comp = sroce_atmeth_comp(p);
	}
	return atm;
}

static inline u8 sroce_pkt_aeth_syn(const struct sk_buff *skb)
{
	const u8 *p = sroce_pkt_ext(skb, SROCE_EXT_AETH);

	return p ? sroce_aeth_syn(p) : 0;
}

static inline u64 sroce_pkt_atmack_orig(const struct sk_buff *skb)
{
	const u8 *p = sroce_pkt_ext(skb, SROCE_EXT_ATMACK);

	return p ? sroce_atmack_orig(p) : 0;
}

static inline u32 sroce_pkt_deth_qkey(const struct sk_buff *skb)
{
	const u8 *p = sroce_pkt_ext(skb, SROCE_EXT_DETH);

	return p ? sroce_deth_qkey(p) : 0;
}

static inline u32 sroce_pkt_deth_sqpn(const struct sk_buff *skb)
{
	const u8 *p = sroce_pkt_ext(skb, SROCE_EXT_DETH);

	return p ? sroce_deth_sqpn(p) : 0;
}

/* The XRC SRQ an XRC request names (0 without an XRCETH) */
static inline u32 sroce_pkt_xrc_srqn(const struct sk_buff *skb)
{
	const u8 *p = sroce_pkt_ext(skb, SROCE_EXT_XRCETH);

	return p ? sroce_xrceth_srqn(p) : 0;
}

/* ImmDt in network order, as ib_wc.ex.imm_data carries it */
static inline __be32 sroce_pkt_imm(const struct sk_buff *skb)
{
	const u8 *p = sroce_pkt_ext(skb, SROCE_EXT_IMMDT);

	return p ? sroce_immdt_imm(p) : 0;
}

static inline u32 sroce_pkt_ieth_rkey(const struct sk_buff *skb)
{
	const u8 *p = sroce_pkt_ext(skb, SROCE_EXT_IETH);

	return p ? sroce_ieth_rkey(p) : 0;
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
static inline int sroce_pkt_copy_payload(const struct sk_buff *skb, u32 off,
					 void *dst, u32 len)
{
	const struct sroce_pkt *pkt = sroce_pkt_c(skb);

	if (off > pkt->payload_len || len > pkt->payload_len - off)
		return -EINVAL;
	if (!len)
		return 0;
	return skb_copy_bits(skb, pkt->hdr_len + off, dst, len);
}

/*
 * The payload of a received packet as one linear buffer (linearizing
 * allocates with GFP_ATOMIC: any context). NULL without memory.
 */
static inline u8 *sroce_pkt_payload(struct sk_buff *skb)
{
	if (skb_is_nonlinear(skb) && skb_linearize(skb))
		return NULL;
	return skb->data + sroce_pkt(skb)->hdr_len;
}

/**
 * sroce_pkt_network_hdr - the 40-byte GRH area of a UD receive
 * @skb: a packet given to sroce_qp_rcv()
 * @hdr: filled as RoCEv2 RNICs do: the IPv6 header, or for IPv4 20 zero
 *       bytes then the IPv4 header (its first 20 bytes)
 */
static inline void sroce_pkt_network_hdr(const struct sk_buff *skb,
					 union rdma_network_hdr *hdr)
{
	if (sroce_pkt_c(skb)->network_type == RDMA_NETWORK_IPV4) {
		memset(hdr->reserved, 0, sizeof(hdr->reserved));
		memcpy(&hdr->roce4grh, ip_hdr(skb), sizeof(hdr->roce4grh));
	} else {
		memcpy(&hdr->ibgrh, ipv6_hdr(skb), sizeof(hdr->ibgrh));
	}
}

/* The IPv4 TOS or IPv6 traffic class of a received packet. */
static inline u8 sroce_pkt_tclass(const struct sk_buff *skb)
{
	if (sroce_pkt_c(skb)->network_type == RDMA_NETWORK_IPV4)
		return ip_hdr(skb)->tos;
	return ipv6_get_dsfield(ipv6_hdr(skb));
}

/* Did a router mark the packet Congestion Experienced (RFC 3168)? */
static inline bool sroce_pkt_ce(const struct sk_buff *skb)
{
	return INET_ECN_is_ce(sroce_pkt_tclass(skb));
}

/* The source IP of a received packet as a GID (IPv4 mapped for IPv4). */
static inline void sroce_pkt_sgid(const struct sk_buff *skb, union ib_gid *sgid)
{
	struct in6_addr *a = (struct in6_addr *)sgid->raw;

	if (sroce_pkt_c(skb)->network_type == RDMA_NETWORK_IPV4)
		ipv6_addr_set_v4mapped(ip_hdr(skb)->saddr, a);
	else
		*a = ipv6_hdr(skb)->saddr;
}

/* The destination IP of a received packet as a GID. */
static inline void sroce_pkt_dgid(const struct sk_buff *skb, union ib_gid *dgid)
{
	struct in6_addr *a = (struct in6_addr *)dgid->raw;

	if (sroce_pkt_c(skb)->network_type == RDMA_NETWORK_IPV4)
		ipv6_addr_set_v4mapped(ip_hdr(skb)->daddr, a);
	else
		*a = ipv6_hdr(skb)->daddr;
}

#endif /* SROCE_PKT_H */
