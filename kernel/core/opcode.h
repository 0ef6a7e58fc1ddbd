/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * opcode.h - IBA transport opcodes as data (IBA 9.2.1 table 38,
 * seed-rules R1.2, R1.3), and the work-request kind tables.
 *
 * One X-macro list, SROCE_OPCODE_LIST, is the single source for the enum,
 * the name strings and the per-opcode masks.  opcode.c derives the header
 * length and each extension header's offset from the mask at compile time.
 */
#ifndef SROCE_CORE_OPCODE_H
#define SROCE_CORE_OPCODE_H

#include "core_types.h"
#include "qp_type.h"
#include "bth.h"
#include "ext_hdrs.h"

/* Extension headers, in wire order after the BTH, then the payload. */
enum sroce_ext {
	SROCE_EXT_DETH,
	SROCE_EXT_XRCETH,
	SROCE_EXT_FETH,
	SROCE_EXT_RETH,
	SROCE_EXT_ATMETH,
	SROCE_EXT_AETH,
	SROCE_EXT_ATMACK,
	SROCE_EXT_IMMDT,
	SROCE_EXT_IETH,
	SROCE_EXT_PAYLOAD,
	SROCE_EXT_COUNT
};

/* Header-present bits: SROCE_M_<hdr> == BIT(SROCE_EXT_<hdr>). */
#define SROCE_M_DETH		BIT(SROCE_EXT_DETH)
#define SROCE_M_XRCETH		BIT(SROCE_EXT_XRCETH)
#define SROCE_M_FETH		BIT(SROCE_EXT_FETH)
#define SROCE_M_RETH		BIT(SROCE_EXT_RETH)
#define SROCE_M_ATMETH		BIT(SROCE_EXT_ATMETH)
#define SROCE_M_AETH		BIT(SROCE_EXT_AETH)
#define SROCE_M_ATMACK		BIT(SROCE_EXT_ATMACK)
#define SROCE_M_IMMDT		BIT(SROCE_EXT_IMMDT)
#define SROCE_M_IETH		BIT(SROCE_EXT_IETH)
#define SROCE_M_PAYLOAD		BIT(SROCE_EXT_PAYLOAD)
#define SROCE_M_HDRS		GENMASK(SROCE_EXT_IETH, SROCE_EXT_DETH)

/* Semantic bits, above the header-present ones. */
#define SROCE_M_SEM(n)		BIT(SROCE_EXT_COUNT + (n))
#define SROCE_M_REQ		SROCE_M_SEM(0)	/* requester -> responder */
#define SROCE_M_RESP		SROCE_M_SEM(1)	/* ACK, ATOMIC ACK, READ RESPONSE */
#define SROCE_M_START		SROCE_M_SEM(2)	/* FIRST (or ONLY) of a message */
#define SROCE_M_MIDDLE		SROCE_M_SEM(3)
#define SROCE_M_END		SROCE_M_SEM(4)	/* LAST (or ONLY) of a message */
#define SROCE_M_SEND		SROCE_M_SEM(5)
#define SROCE_M_WRITE		SROCE_M_SEM(6)
#define SROCE_M_READ		SROCE_M_SEM(7)
#define SROCE_M_ATOMIC		SROCE_M_SEM(8)
#define SROCE_M_IMM		SROCE_M_SEM(9)	/* carries immediate data */
#define SROCE_M_INV		SROCE_M_SEM(10)	/* carries an R_Key to invalidate */
/* The responder takes the message's receive WQE here (R1.6). */
#define SROCE_M_RWR		SROCE_M_SEM(11)
/* IBA 1.5 RDMA FLUSH and RDMA ATOMIC WRITE requests. */
#define SROCE_M_FLUSH		SROCE_M_SEM(12)
#define SROCE_M_ATOMIC_WRITE	SROCE_M_SEM(13)
/*
 * Requests that take a responder resource, count against
 * max_dest_rd_atomic and are answered from the responder's table when
 * they come again (R2.6, R2.7).
 */
#define SROCE_M_RD_ATOMIC	(SROCE_M_READ | SROCE_M_ATOMIC |	\
				 SROCE_M_FLUSH | SROCE_M_ATOMIC_WRITE)
#define SROCE_M_ONLY		(SROCE_M_START | SROCE_M_END)

/* Shorthands used only to keep the list below readable. */
#define SROCE_MM_SEND		(SROCE_M_REQ | SROCE_M_SEND | SROCE_M_PAYLOAD)
#define SROCE_MM_WRITE		(SROCE_M_REQ | SROCE_M_WRITE | SROCE_M_PAYLOAD)
#define SROCE_MM_RRESP		(SROCE_M_RESP | SROCE_M_READ | SROCE_M_PAYLOAD)
#define SROCE_MM_SFIRST		(SROCE_M_START | SROCE_M_RWR)
#define SROCE_MM_SONLY		(SROCE_M_ONLY | SROCE_M_RWR)
#define SROCE_MM_IMM		(SROCE_M_IMMDT | SROCE_M_IMM)
#define SROCE_MM_INV		(SROCE_M_IETH | SROCE_M_INV)
/* XRC requests carry the target's XRC SRQ number (XRCETH). */
#define SROCE_MX_SEND		(SROCE_MM_SEND | SROCE_M_XRCETH)
#define SROCE_MX_WRITE		(SROCE_MM_WRITE | SROCE_M_XRCETH)

/*
 * X(name, value, mask).  RD (0x40..0x5f) is deliberately absent
 * (seed-rules R1.1); 0x15, 0x18..0x1b and 0x1e..0x1f are reserved for
 * RC. FLUSH (0x1c) and ATOMIC WRITE (0x1d) are IBA 1.5's; both are
 * answered with a READ RESPONSE ONLY without payload. XRC (0xa0..0xb7,
 * IBA annex A14) mirrors RC without FLUSH and ATOMIC WRITE; its requests
 * carry an XRCETH, its responses are RC's headers.
 */
#define SROCE_OPCODE_LIST(X)						\
	X(RC_SEND_FIRST, 0x00, SROCE_MM_SEND | SROCE_MM_SFIRST)		\
	X(RC_SEND_MIDDLE, 0x01, SROCE_MM_SEND | SROCE_M_MIDDLE)		\
	X(RC_SEND_LAST, 0x02, SROCE_MM_SEND | SROCE_M_END)		\
	X(RC_SEND_LAST_WITH_IMMEDIATE, 0x03,				\
	  SROCE_MM_SEND | SROCE_M_END | SROCE_MM_IMM)			\
	X(RC_SEND_ONLY, 0x04, SROCE_MM_SEND | SROCE_MM_SONLY)		\
	X(RC_SEND_ONLY_WITH_IMMEDIATE, 0x05,				\
	  SROCE_MM_SEND | SROCE_MM_SONLY | SROCE_MM_IMM)		\
	X(RC_RDMA_WRITE_FIRST, 0x06,					\
	  SROCE_MM_WRITE | SROCE_M_START | SROCE_M_RETH)		\
	X(RC_RDMA_WRITE_MIDDLE, 0x07, SROCE_MM_WRITE | SROCE_M_MIDDLE)	\
	X(RC_RDMA_WRITE_LAST, 0x08, SROCE_MM_WRITE | SROCE_M_END)	\
	X(RC_RDMA_WRITE_LAST_WITH_IMMEDIATE, 0x09,			\
	  SROCE_MM_WRITE | SROCE_M_END | SROCE_M_RWR | SROCE_MM_IMM)	\
	X(RC_RDMA_WRITE_ONLY, 0x0a,					\
	  SROCE_MM_WRITE | SROCE_M_ONLY | SROCE_M_RETH)			\
	X(RC_RDMA_WRITE_ONLY_WITH_IMMEDIATE, 0x0b,			\
	  SROCE_MM_WRITE | SROCE_MM_SONLY | SROCE_M_RETH | SROCE_MM_IMM) \
	X(RC_RDMA_READ_REQUEST, 0x0c,					\
	  SROCE_M_REQ | SROCE_M_READ | SROCE_M_ONLY | SROCE_M_RETH)	\
	X(RC_RDMA_READ_RESPONSE_FIRST, 0x0d,				\
	  SROCE_MM_RRESP | SROCE_M_START | SROCE_M_AETH)		\
	X(RC_RDMA_READ_RESPONSE_MIDDLE, 0x0e,				\
	  SROCE_MM_RRESP | SROCE_M_MIDDLE)				\
	X(RC_RDMA_READ_RESPONSE_LAST, 0x0f,				\
	  SROCE_MM_RRESP | SROCE_M_END | SROCE_M_AETH)			\
	X(RC_RDMA_READ_RESPONSE_ONLY, 0x10,				\
	  SROCE_MM_RRESP | SROCE_M_ONLY | SROCE_M_AETH)			\
	X(RC_ACKNOWLEDGE, 0x11, SROCE_M_RESP | SROCE_M_ONLY | SROCE_M_AETH) \
	X(RC_ATOMIC_ACKNOWLEDGE, 0x12,					\
	  SROCE_M_RESP | SROCE_M_ATOMIC | SROCE_M_ONLY |		\
	  SROCE_M_AETH | SROCE_M_ATMACK)				\
	X(RC_COMPARE_SWAP, 0x13,					\
	  SROCE_M_REQ | SROCE_M_ATOMIC | SROCE_M_ONLY | SROCE_M_ATMETH)	\
	X(RC_FETCH_ADD, 0x14,						\
	  SROCE_M_REQ | SROCE_M_ATOMIC | SROCE_M_ONLY | SROCE_M_ATMETH)	\
	X(RC_SEND_LAST_WITH_INVALIDATE, 0x16,				\
	  SROCE_MM_SEND | SROCE_M_END | SROCE_MM_INV)			\
	X(RC_SEND_ONLY_WITH_INVALIDATE, 0x17,				\
	  SROCE_MM_SEND | SROCE_MM_SONLY | SROCE_MM_INV)		\
	X(RC_FLUSH, 0x1c,						\
	  SROCE_M_REQ | SROCE_M_FLUSH | SROCE_M_ONLY | SROCE_M_FETH |	\
	  SROCE_M_RETH)							\
	X(RC_ATOMIC_WRITE, 0x1d,					\
	  SROCE_M_REQ | SROCE_M_ATOMIC_WRITE | SROCE_M_ONLY |		\
	  SROCE_M_RETH | SROCE_M_PAYLOAD)				\
	X(UC_SEND_FIRST, 0x20, SROCE_MM_SEND | SROCE_MM_SFIRST)		\
	X(UC_SEND_MIDDLE, 0x21, SROCE_MM_SEND | SROCE_M_MIDDLE)		\
	X(UC_SEND_LAST, 0x22, SROCE_MM_SEND | SROCE_M_END)		\
	X(UC_SEND_LAST_WITH_IMMEDIATE, 0x23,				\
	  SROCE_MM_SEND | SROCE_M_END | SROCE_MM_IMM)			\
	X(UC_SEND_ONLY, 0x24, SROCE_MM_SEND | SROCE_MM_SONLY)		\
	X(UC_SEND_ONLY_WITH_IMMEDIATE, 0x25,				\
	  SROCE_MM_SEND | SROCE_MM_SONLY | SROCE_MM_IMM)		\
	X(UC_RDMA_WRITE_FIRST, 0x26,					\
	  SROCE_MM_WRITE | SROCE_M_START | SROCE_M_RETH)		\
	X(UC_RDMA_WRITE_MIDDLE, 0x27, SROCE_MM_WRITE | SROCE_M_MIDDLE)	\
	X(UC_RDMA_WRITE_LAST, 0x28, SROCE_MM_WRITE | SROCE_M_END)	\
	X(UC_RDMA_WRITE_LAST_WITH_IMMEDIATE, 0x29,			\
	  SROCE_MM_WRITE | SROCE_M_END | SROCE_M_RWR | SROCE_MM_IMM)	\
	X(UC_RDMA_WRITE_ONLY, 0x2a,					\
	  SROCE_MM_WRITE | SROCE_M_ONLY | SROCE_M_RETH)			\
	X(UC_RDMA_WRITE_ONLY_WITH_IMMEDIATE, 0x2b,			\
	  SROCE_MM_WRITE | SROCE_MM_SONLY | SROCE_M_RETH | SROCE_MM_IMM) \
	X(UD_SEND_ONLY, 0x64,						\
	  SROCE_MM_SEND | SROCE_MM_SONLY | SROCE_M_DETH)		\
	X(UD_SEND_ONLY_WITH_IMMEDIATE, 0x65,				\
	  SROCE_MM_SEND | SROCE_MM_SONLY | SROCE_M_DETH | SROCE_MM_IMM)	\
	X(XRC_SEND_FIRST, 0xa0, SROCE_MX_SEND | SROCE_MM_SFIRST)	\
	X(XRC_SEND_MIDDLE, 0xa1, SROCE_MX_SEND | SROCE_M_MIDDLE)	\
	X(XRC_SEND_LAST, 0xa2, SROCE_MX_SEND | SROCE_M_END)		\
	X(XRC_SEND_LAST_WITH_IMMEDIATE, 0xa3,				\
	  SROCE_MX_SEND | SROCE_M_END | SROCE_MM_IMM)			\
	X(XRC_SEND_ONLY, 0xa4, SROCE_MX_SEND | SROCE_MM_SONLY)		\
	X(XRC_SEND_ONLY_WITH_IMMEDIATE, 0xa5,				\
	  SROCE_MX_SEND | SROCE_MM_SONLY | SROCE_MM_IMM)		\
	X(XRC_RDMA_WRITE_FIRST, 0xa6,					\
	  SROCE_MX_WRITE | SROCE_M_START | SROCE_M_RETH)		\
	X(XRC_RDMA_WRITE_MIDDLE, 0xa7, SROCE_MX_WRITE | SROCE_M_MIDDLE)	\
	X(XRC_RDMA_WRITE_LAST, 0xa8, SROCE_MX_WRITE | SROCE_M_END)	\
	X(XRC_RDMA_WRITE_LAST_WITH_IMMEDIATE, 0xa9,			\
	  SROCE_MX_WRITE | SROCE_M_END | SROCE_M_RWR | SROCE_MM_IMM)	\
	X(XRC_RDMA_WRITE_ONLY, 0xaa,					\
	  SROCE_MX_WRITE | SROCE_M_ONLY | SROCE_M_RETH)			\
	X(XRC_RDMA_WRITE_ONLY_WITH_IMMEDIATE, 0xab,			\
	  SROCE_MX_WRITE | SROCE_MM_SONLY | SROCE_M_RETH | SROCE_MM_IMM) \
	X(XRC_RDMA_READ_REQUEST, 0xac,					\
	  SROCE_M_REQ | SROCE_M_XRCETH | SROCE_M_READ | SROCE_M_ONLY |	\
	  SROCE_M_RETH)							\
	X(XRC_RDMA_READ_RESPONSE_FIRST, 0xad,				\
	  SROCE_MM_RRESP | SROCE_M_START | SROCE_M_AETH)		\
	X(XRC_RDMA_READ_RESPONSE_MIDDLE, 0xae,				\
	  SROCE_MM_RRESP | SROCE_M_MIDDLE)				\
	X(XRC_RDMA_READ_RESPONSE_LAST, 0xaf,				\
	  SROCE_MM_RRESP | SROCE_M_END | SROCE_M_AETH)			\
	X(XRC_RDMA_READ_RESPONSE_ONLY, 0xb0,				\
	  SROCE_MM_RRESP | SROCE_M_ONLY | SROCE_M_AETH)			\
	X(XRC_ACKNOWLEDGE, 0xb1, SROCE_M_RESP | SROCE_M_ONLY | SROCE_M_AETH) \
	X(XRC_ATOMIC_ACKNOWLEDGE, 0xb2,					\
	  SROCE_M_RESP | SROCE_M_ATOMIC | SROCE_M_ONLY |		\
	  SROCE_M_AETH | SROCE_M_ATMACK)				\
	X(XRC_COMPARE_SWAP, 0xb3,					\
	  SROCE_M_REQ | SROCE_M_XRCETH | SROCE_M_ATOMIC | SROCE_M_ONLY | \
	  SROCE_M_ATMETH)						\
	X(XRC_FETCH_ADD, 0xb4,						\
	  SROCE_M_REQ | SROCE_M_XRCETH | SROCE_M_ATOMIC | SROCE_M_ONLY | \
	  SROCE_M_ATMETH)						\
	X(XRC_SEND_LAST_WITH_INVALIDATE, 0xb6,				\
	  SROCE_MX_SEND | SROCE_M_END | SROCE_MM_INV)			\
	X(XRC_SEND_ONLY_WITH_INVALIDATE, 0xb7,				\
	  SROCE_MX_SEND | SROCE_MM_SONLY | SROCE_MM_INV)

#define SROCE_OPCODE_ENUM(name, val, mask)	SROCE_OP_##name = (val),
enum sroce_opcode {
	SROCE_OPCODE_LIST(SROCE_OPCODE_ENUM)
};

#undef SROCE_OPCODE_ENUM

#define SROCE_OP_CNP		0x81	/* RoCEv2 congestion notification */
#define SROCE_OPCODE_NUM	256

/* Transport = top three opcode bits (IBA 9.2.1). */
enum sroce_transport {
	SROCE_TR_RC = 0,
	SROCE_TR_UC = 1,
	SROCE_TR_RD = 2,	/* not supported (seed-rules R1.1) */
	SROCE_TR_UD = 3,
	SROCE_TR_CNP = 4,	/* RoCEv2 CNP lives in 0x80..0x9f */
	SROCE_TR_XRC = 5,
};

#define SROCE_OPCODE_TRANSPORT	GENMASK(7, 5)
#define SROCE_OPCODE_OP		GENMASK(4, 0)

static inline enum sroce_transport sroce_opcode_transport(u8 opcode)
{
	return (enum sroce_transport)FIELD_GET(SROCE_OPCODE_TRANSPORT, opcode);
}

/*
 * The opcode a responder of @qpt answers with, given RC's (ACKNOWLEDGE,
 * ATOMIC ACKNOWLEDGE, a READ RESPONSE): an XRC target answers with XRC's,
 * whose low five bits are the same (IBA annex A14).
 */
static inline u8 sroce_resp_opcode(enum sroce_qp_type qpt, u8 rc_opcode)
{
	if (qpt != SROCE_QPT_XRC_TGT)
		return rc_opcode;
	return (u8)(FIELD_PREP(SROCE_OPCODE_TRANSPORT, SROCE_TR_XRC) |
		    FIELD_GET(SROCE_OPCODE_OP, rc_opcode));
}

/**
 * struct sroce_opcode_info - what one opcode puts on the wire
 * @name:   "RC_SEND_FIRST" etc., generated from the list; NULL if unknown
 * @mask:   SROCE_M_* bits; 0 means the opcode is not supported
 * @length: BTH plus all extension headers, in bytes
 * @offset: byte offset of each present extension header from the start of
 *          the BTH (0 if absent); offset[SROCE_EXT_PAYLOAD] == length
 */
struct sroce_opcode_info {
	const char *name;
	u32 mask;
	u8 length;
	u8 offset[SROCE_EXT_COUNT];
};

extern const struct sroce_opcode_info sroce_opcode_table[SROCE_OPCODE_NUM];

/* sroce_opcode_get - table entry for @opcode, or NULL if unsupported */
const struct sroce_opcode_info *sroce_opcode_get(u8 opcode);
/* sroce_opcode_name - name of @opcode, "UNKNOWN" if unsupported */
const char *sroce_opcode_name(u8 opcode);
/*
 * Is @payload_len right for a request of @mask on a path MTU of @pmtu
 * bytes? FIRST and MIDDLE packets carry exactly one MTU, LAST one byte to
 * one MTU, ONLY up to one MTU (IBA C9-92; seed-rules R3.4 "bad payload
 * length" otherwise). Requests without payload carry none.
 */
bool sroce_req_len_ok(u32 mask, u32 payload_len, u32 pmtu);
/* sroce_opcode_qpt - QP type that receives @opcode, or -EINVAL */
int sroce_opcode_qpt(u8 opcode);

/*
 * Work-request kinds (the verbs-level operation a WQE asks for).
 * X(kind, wr, wc): the kind is posted as IB_WR_<wr> (the same value as
 * IB_UVERBS_WR_<wr> from user space, but for the kernel-only REG_MR) and
 * completes with IB_WC_<wc>. Those enums are kernel API: the core uses
 * only the kind, the module expands the rest (sroce_req.c, sroce_comp.c).
 */
#define SROCE_WR_KIND_LIST(X)						\
	X(SEND, SEND, SEND)						\
	X(SEND_IMM, SEND_WITH_IMM, SEND)				\
	X(SEND_INV, SEND_WITH_INV, SEND)				\
	X(WRITE, RDMA_WRITE, RDMA_WRITE)				\
	X(WRITE_IMM, RDMA_WRITE_WITH_IMM, RDMA_WRITE)			\
	X(READ, RDMA_READ, RDMA_READ)					\
	X(CMP_SWAP, ATOMIC_CMP_AND_SWP, COMP_SWAP)			\
	X(FETCH_ADD, ATOMIC_FETCH_AND_ADD, FETCH_ADD)			\
	X(LOCAL_INV, LOCAL_INV, LOCAL_INV)				\
	X(REG_MR, REG_MR, REG_MR)					\
	X(BIND_MW, BIND_MW, BIND_MW)					\
	X(FLUSH, FLUSH, FLUSH)						\
	X(ATOMIC_WRITE, ATOMIC_WRITE, ATOMIC_WRITE)

#define SROCE_WR_KIND_ENUM(name, wr, wc)	SROCE_WR_##name,
enum sroce_wr_kind {
	SROCE_WR_KIND_LIST(SROCE_WR_KIND_ENUM)
	SROCE_WR_KIND_COUNT
};

#undef SROCE_WR_KIND_ENUM

/* Work-request kind flags. */
#define SROCE_WRF_LOCAL		BIT(0)	/* no packet: executed locally */
#define SROCE_WRF_READ		BIT(1)	/* RDMA READ */
#define SROCE_WRF_ATOMIC	BIT(2)	/* one packet, 8 bytes back */
#define SROCE_WRF_IMM		BIT(3)	/* carries immediate data */
#define SROCE_WRF_INV		BIT(4)	/* carries an R_Key to invalidate */
#define SROCE_WRF_RDMA		BIT(5)	/* remote VA and R_Key, wr.rdma */
#define SROCE_WRF_REG		BIT(6)	/* MR, key, access of a kernel REG_MR */
#define SROCE_WRF_RWQE		BIT(7)	/* consumes a receive WQE (R1.6) */
/* RDMA FLUSH: FETH and RETH from the WQE, no gather list */
#define SROCE_WRF_FLUSH		BIT(8)
/* RDMA ATOMIC WRITE: 8 bytes carried in the WQE, no gather list */
#define SROCE_WRF_ATOMIC_WRITE	BIT(9)
/* Counts against max_rd_atomic (R2.7) and has a response of its own */
#define SROCE_WRF_RD_ATOMIC	(SROCE_WRF_READ | SROCE_WRF_ATOMIC |	\
				 SROCE_WRF_FLUSH | SROCE_WRF_ATOMIC_WRITE)

/**
 * struct sroce_wr_kind_info - static facts about one work-request kind
 * @name:     generated from SROCE_WR_KIND_LIST
 * @qpt_mask: SROCE_QPT_BIT() of each QP type that allows it (R1.2)
 * @flags:    SROCE_WRF_* bits
 */
struct sroce_wr_kind_info {
	const char *name;
	u8 qpt_mask;
	u16 flags;
};

extern const struct sroce_wr_kind_info sroce_wr_kind_table[SROCE_WR_KIND_COUNT];

/* sroce_wr_kind_flags - SROCE_WRF_* of @kind, which must be valid */
static inline u16 sroce_wr_kind_flags(enum sroce_wr_kind kind)
{
	return sroce_wr_kind_table[kind].flags;
}

/* Position of a packet within its message (R1.3). */
enum sroce_pkt_pos {
	SROCE_POS_FIRST,
	SROCE_POS_MIDDLE,
	SROCE_POS_LAST,
	SROCE_POS_ONLY,
	SROCE_POS_COUNT
};

/* sroce_pkt_pos - position from "is first packet" / "is last packet" */
static inline enum sroce_pkt_pos sroce_pkt_pos(bool first, bool last)
{
	if (first)
		return last ? SROCE_POS_ONLY : SROCE_POS_FIRST;
	return last ? SROCE_POS_LAST : SROCE_POS_MIDDLE;
}

/* sroce_wr_kind_allowed - may a QP of type @qpt post @kind? (R1.2) */
bool sroce_wr_kind_allowed(enum sroce_qp_type qpt, enum sroce_wr_kind kind);
/* sroce_wr_kind_name - generated name, "UNKNOWN" if out of range */
const char *sroce_wr_kind_name(enum sroce_wr_kind kind);
/*
 * sroce_wr_opcode - packet opcode for packet @pos of a @kind message on a
 * @qpt QP (R1.3), or -EINVAL if that combination cannot exist (kind not
 * allowed on the QP type, local operation, multi-packet position of a
 * single-packet operation, UD message longer than one packet).
 */
int sroce_wr_opcode(enum sroce_qp_type qpt, enum sroce_wr_kind kind,
		    enum sroce_pkt_pos pos);
/* sroce_read_resp_opcode - RDMA READ response at valid @pos (R1.3) */
u8 sroce_read_resp_opcode(enum sroce_pkt_pos pos);

#endif /* SROCE_CORE_OPCODE_H */
