// SPDX-License-Identifier: GPL-2.0-only
/*
 * sroce address vectors: resolving an rdma_ah_attr (RoCE v2, with GRH) to
 * the source and destination IP addresses and header fields. Plain data,
 * no state: any context.
 */
#include <rdma/ib_addr.h>

#include "sroce.h"
#include "sroce_av.h"

/**
 * sroce_av_from_ah_attr - resolve an address handle to IP addresses
 * @sdev: the device
 * @attr: a RoCE address handle attribute with GRH (sgid_attr set by the
 *        core)
 * @av:   filled on success
 *
 * RoCE v2 only (seed-rules: sroce is a RoCEv2 device). Returns 0, or
 * -EINVAL for a non-RoCE or GRH-less attribute, a RoCE v1 source GID, a
 * source GID of another device, or a destination GID of the other IP
 * family. Any context.
 */
int sroce_av_from_ah_attr(struct sroce_dev *sdev,
			  const struct rdma_ah_attr *attr, struct sroce_av *av)
{
	const struct ib_global_route *grh;
	const struct ib_gid_attr *sgid_attr;
	union {
		struct sockaddr sa;
		struct sockaddr_in in;
		struct sockaddr_in6 in6;
	} src, dst;

	if (attr->type != RDMA_AH_ATTR_TYPE_ROCE ||
	    !(rdma_ah_get_ah_flags(attr) & IB_AH_GRH))
		return -EINVAL;
	grh = rdma_ah_read_grh(attr);
	sgid_attr = grh->sgid_attr;
	if (!sgid_attr || sgid_attr->device != &sdev->ibdev ||
	    sgid_attr->gid_type != IB_GID_TYPE_ROCE_UDP_ENCAP)
		return -EINVAL;

	memset(av, 0, sizeof(*av));
	av->network_type = rdma_gid_attr_network_type(sgid_attr);
	rdma_gid2ip(&src.sa, &sgid_attr->gid);
	rdma_gid2ip(&dst.sa, &grh->dgid);
	switch (av->network_type) {
	case RDMA_NETWORK_IPV4:
		if (src.sa.sa_family != AF_INET || dst.sa.sa_family != AF_INET)
			return -EINVAL;
		av->saddr.ip4 = src.in.sin_addr.s_addr;
		av->daddr.ip4 = dst.in.sin_addr.s_addr;
		break;
	case RDMA_NETWORK_IPV6:
		if (dst.sa.sa_family != AF_INET6)
			return -EINVAL;
		av->saddr.ip6 = src.in6.sin6_addr;
		av->daddr.ip6 = dst.in6.sin6_addr;
		av->flow_label = grh->flow_label & 0xfffff;	/* 20 bits */
		break;
	default:
		return -EINVAL;
	}
	av->hop_limit = grh->hop_limit ?: SROCE_DEFAULT_HOP_LIMIT;
	av->traffic_class = grh->traffic_class;
	return 0;
}
