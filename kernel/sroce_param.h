/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Limits sroce advertises in query_device / query_port. Each one is enforced
 * where the object is created; keep the two in step.
 */
#ifndef SROCE_PARAM_H
#define SROCE_PARAM_H

#include <linux/bits.h>
#include <linux/types.h>

enum sroce_limits {
	SROCE_VENDOR_ID		= 0xFFFFFF,	/* IBTA A3.3.1: none assigned */
	SROCE_MAX_QP		= 0x10000,
	SROCE_MAX_QP_WR		= 0x4000,
	SROCE_MAX_SGE		= 32,
	SROCE_MAX_SGE_RD	= 32,
	SROCE_MAX_INLINE	= 512,
	SROCE_MAX_CQ		= 0x10000,
	SROCE_MAX_CQE		= (1 << 15) - 1,
	SROCE_MAX_MR		= 0x40000,
	SROCE_MAX_MW		= 0x10000,
	SROCE_MAX_PD		= 0x10000,
	SROCE_MAX_AH		= (1 << 15) - 1,
	SROCE_MAX_SRQ		= 0x10000,
	SROCE_MAX_SRQ_WR	= 0x4000,
	SROCE_MAX_SRQ_SGE	= 27,
	SROCE_MAX_QP_RD_ATOM	= 128,
	SROCE_MAX_RES_RD_ATOM	= 0x3F000,
	SROCE_MAX_MCAST_GRP	= 8192,
	SROCE_MAX_MCAST_QP_ATTACH = 56,
	SROCE_MAX_MCAST_TOTAL_ATTACH = SROCE_MAX_MCAST_GRP * SROCE_MAX_MCAST_QP_ATTACH,
	SROCE_MAX_FAST_REG_PAGES = 512,
	SROCE_GID_TBL_LEN	= 256,
	SROCE_PKEY_TBL_LEN	= 1,
};

#define SROCE_MAX_MSG_SZ	BIT(31)	/* seed-rules R1.3 */
/*
 * 64 GiB, pinned and ODP alike: an ODP MR's page arrays (16 bytes a page,
 * ib_umem_odp's, not charged to the caller) stay at 256 MiB at most, and
 * an implicit MR touches at most this much (SROCE_ODP_MAX_CHILDREN).
 */
#define SROCE_MAX_MR_SIZE	BIT_ULL(36)
#define SROCE_PAGE_SIZE_CAP	0xFFFFF000U

/*
 * Largest header stack in front of a payload: IPv6 (40) + UDP (8) + BTH (12)
 * + RETH and ImmDt (20, RDMA WRITE ONLY with immediate) + ICRC (4). The path
 * MTU offered is the largest IB MTU that fits the netdev MTU after it.
 */
#define SROCE_MAX_HDR_OVERHEAD	84

#endif /* SROCE_PARAM_H */
