/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * sroce address vectors: an rdma_ah_attr resolved to the IP addresses and
 * header fields a packet is sent with. Address handles and the QP's primary
 * path keep one; the transmit path builds headers from it.
 */
#ifndef SROCE_AV_H
#define SROCE_AV_H

#include <linux/in6.h>
#include <linux/types.h>
#include <rdma/ib_verbs.h>

struct sroce_dev;

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

int sroce_av_from_ah_attr(struct sroce_dev *sdev,
			  const struct rdma_ah_attr *attr, struct sroce_av *av);

#endif /* SROCE_AV_H */
