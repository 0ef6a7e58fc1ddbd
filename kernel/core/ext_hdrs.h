/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * ext_hdrs.h - IBA extended transport headers: wire layout and accessors.
 *
 *  RETH   (16)  VA[8]  R_Key[4]  DMA length[4]                (IBA 9.3.3)
 *  AETH    (4)  Syndrome[1]  MSN[3]                            (IBA 9.3.5)
 *  ATMETH (28)  VA[8]  R_Key[4]  Swap/Add data[8]  Compare[8]  (IBA 9.3.4)
 *  ATMACK  (8)  Original remote data[8]                        (IBA 9.3.6)
 *  DETH    (8)  Q_Key[4]  reserved[1]  Src QP[3]                (IBA 9.3.2)
 *  XRCETH  (4)  reserved[1]  XRC SRQ number[3]                 (IBA A14)
 *  IMMDT   (4)  Immediate data, opaque, kept in network order  (IBA 9.3.7)
 *  IETH    (4)  R_Key to invalidate[4]                         (IBA 9.3.8)
 *
 * Every accessor takes a raw pointer to the first byte of that header; the
 * caller guarantees the header's length is readable/writable (parse.c does
 * the checking).  All multi-byte fields are big endian on the wire.
 */
#ifndef SROCE_CORE_EXT_HDRS_H
#define SROCE_CORE_EXT_HDRS_H

#include "core_types.h"

#define SROCE_RETH_LEN		16
#define SROCE_AETH_LEN		4
#define SROCE_ATMETH_LEN	28
#define SROCE_ATMACK_LEN	8
#define SROCE_DETH_LEN		8
#define SROCE_XRCETH_LEN	4
#define SROCE_FETH_LEN		4
#define SROCE_IMMDT_LEN		4
#define SROCE_IETH_LEN		4
#define SROCE_ICRC_LEN		4

/* RETH */
#define SROCE_RETH_VA_OFF	0
#define SROCE_RETH_RKEY_OFF	8
#define SROCE_RETH_LEN_OFF	12

static inline u64 sroce_reth_va(const u8 *p)
{
	return get_unaligned_be64(p + SROCE_RETH_VA_OFF);
}

static inline u32 sroce_reth_rkey(const u8 *p)
{
	return get_unaligned_be32(p + SROCE_RETH_RKEY_OFF);
}

static inline u32 sroce_reth_len(const u8 *p)
{
	return get_unaligned_be32(p + SROCE_RETH_LEN_OFF);
}

static inline void sroce_reth_set(u8 *p, u64 va, u32 rkey, u32 len)
{
	put_unaligned_be64(va, p + SROCE_RETH_VA_OFF);
	put_unaligned_be32(rkey, p + SROCE_RETH_RKEY_OFF);
	put_unaligned_be32(len, p + SROCE_RETH_LEN_OFF);
}

/*
 * FETH (IBA 1.5, RDMA FLUSH): one 32-bit word, the placement type in
 * bits 3:0 (global visibility, persistence) and the selectivity level in
 * bits 5:4 (a range of the MR, or the whole MR); the rest is reserved.
 */
#define SROCE_FETH_PLT		GENMASK(3, 0)
#define SROCE_FETH_SEL		GENMASK(5, 4)

static inline u8 sroce_feth_plt(const u8 *p)
{
	return FIELD_GET(SROCE_FETH_PLT, get_unaligned_be32(p));
}

static inline u8 sroce_feth_sel(const u8 *p)
{
	return FIELD_GET(SROCE_FETH_SEL, get_unaligned_be32(p));
}

static inline void sroce_feth_set(u8 *p, u8 plt, u8 sel)
{
	put_unaligned_be32(FIELD_PREP(SROCE_FETH_PLT, plt) |
			   FIELD_PREP(SROCE_FETH_SEL, sel), p);
}

/* AETH: one 32-bit word, syndrome in the top byte, MSN in the low 24 bits */
#define SROCE_AETH_SYN		GENMASK(31, 24)
#define SROCE_AETH_MSN		GENMASK(23, 0)

static inline u8 sroce_aeth_syn(const u8 *p)
{
	return FIELD_GET(SROCE_AETH_SYN, get_unaligned_be32(p));
}

static inline u32 sroce_aeth_msn(const u8 *p)
{
	return FIELD_GET(SROCE_AETH_MSN, get_unaligned_be32(p));
}

static inline void sroce_aeth_set(u8 *p, u8 syn, u32 msn)
{
	put_unaligned_be32(FIELD_PREP(SROCE_AETH_SYN, syn) |
			   FIELD_PREP(SROCE_AETH_MSN, msn), p);
}

/* AtomicETH */
#define SROCE_ATMETH_VA_OFF	0
#define SROCE_ATMETH_RKEY_OFF	8
#define SROCE_ATMETH_SWAP_OFF	12	/* swap (CMP_SWAP) or add (FETCH_ADD) */
#define SROCE_ATMETH_COMP_OFF	20

static inline u64 sroce_atmeth_va(const u8 *p)
{
	return get_unaligned_be64(p + SROCE_ATMETH_VA_OFF);
}

static inline u32 sroce_atmeth_rkey(const u8 *p)
{
	return get_unaligned_be32(p + SROCE_ATMETH_RKEY_OFF);
}

static inline u64 sroce_atmeth_swap_add(const u8 *p)
{
	return get_unaligned_be64(p + SROCE_ATMETH_SWAP_OFF);
}

static inline u64 sroce_atmeth_comp(const u8 *p)
{
	return get_unaligned_be64(p + SROCE_ATMETH_COMP_OFF);
}

static inline void sroce_atmeth_set(u8 *p, u64 va, u32 rkey, u64 swap_add,
				    u64 comp)
{
	put_unaligned_be64(va, p + SROCE_ATMETH_VA_OFF);
	put_unaligned_be32(rkey, p + SROCE_ATMETH_RKEY_OFF);
	put_unaligned_be64(swap_add, p + SROCE_ATMETH_SWAP_OFF);
	put_unaligned_be64(comp, p + SROCE_ATMETH_COMP_OFF);
}

/* AtomicAckETH */
static inline u64 sroce_atmack_orig(const u8 *p)
{
	return get_unaligned_be64(p);
}

static inline void sroce_atmack_set(u8 *p, u64 orig)
{
	put_unaligned_be64(orig, p);
}

/* DETH: Q_Key, then a word holding reserved(31:24) | SrcQP(23:0) */
#define SROCE_DETH_QKEY_OFF	0
#define SROCE_DETH_SQP_OFF	4
#define SROCE_DETH_SQPN		GENMASK(23, 0)
#define SROCE_QKEY_PRIVILEGED	BIT(31)		/* seed-rules R1.5 */

static inline u32 sroce_deth_qkey(const u8 *p)
{
	return get_unaligned_be32(p + SROCE_DETH_QKEY_OFF);
}

static inline u32 sroce_deth_sqpn(const u8 *p)
{
	return FIELD_GET(SROCE_DETH_SQPN,
			 get_unaligned_be32(p + SROCE_DETH_SQP_OFF));
}

static inline void sroce_deth_set(u8 *p, u32 qkey, u32 sqpn)
{
	put_unaligned_be32(qkey, p + SROCE_DETH_QKEY_OFF);
	put_unaligned_be32(FIELD_PREP(SROCE_DETH_SQPN, sqpn),
			   p + SROCE_DETH_SQP_OFF);
}

/*
 * XRCETH: the XRC SRQ at the target whose receive WQEs and CQ an XRC
 * request uses; reserved(31:24) | XRCSRQ(23:0).
 */
#define SROCE_XRCETH_SRQN	GENMASK(23, 0)

static inline u32 sroce_xrceth_srqn(const u8 *p)
{
	return FIELD_GET(SROCE_XRCETH_SRQN, get_unaligned_be32(p));
}

static inline void sroce_xrceth_set(u8 *p, u32 srqn)
{
	put_unaligned_be32(FIELD_PREP(SROCE_XRCETH_SRQN, srqn), p);
}

/*
 * ImmDt: opaque 32 bits.  Returned in network order, which is what
 * ib_wc.ex.imm_data / ibv_wc.imm_data carry.
 */
static inline __be32 sroce_immdt_imm(const u8 *p)
{
	return cpu_to_be32(get_unaligned_be32(p));
}

static inline void sroce_immdt_set(u8 *p, __be32 imm)
{
	put_unaligned_be32(be32_to_cpu(imm), p);
}

/* IETH */
static inline u32 sroce_ieth_rkey(const u8 *p)
{
	return get_unaligned_be32(p);
}

static inline void sroce_ieth_set(u8 *p, u32 rkey)
{
	put_unaligned_be32(rkey, p);
}

#endif /* SROCE_CORE_EXT_HDRS_H */
