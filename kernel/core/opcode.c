// SPDX-License-Identifier: GPL-2.0-only
/*
 * opcode.c - IBA opcode table and work-request kind tables.
 *
 * Pure data plus table lookups.  Header lengths and offsets are computed
 * from each opcode's mask at compile time, in wire order (enum sroce_ext),
 * so they cannot disagree with the header-present bits.
 */
#include "opcode.h"

/* Length of extension header @h if present in @m and placed before @k. */
#define HDR_LEN_BEFORE(m, k, h)						\
	((SROCE_EXT_##h < (k) && ((m) & SROCE_M_##h)) ? SROCE_##h##_LEN : 0)

/* Offset from the BTH start of whatever sits at extension index @k. */
#define OFF_BEFORE(m, k)						\
	(SROCE_BTH_LEN +						\
	 HDR_LEN_BEFORE(m, k, DETH) + HDR_LEN_BEFORE(m, k, XRCETH) +	\
	 HDR_LEN_BEFORE(m, k, FETH) +					\
	 HDR_LEN_BEFORE(m, k, RETH) +					\
	 HDR_LEN_BEFORE(m, k, ATMETH) + HDR_LEN_BEFORE(m, k, AETH) +	\
	 HDR_LEN_BEFORE(m, k, ATMACK) + HDR_LEN_BEFORE(m, k, IMMDT) +	\
	 HDR_LEN_BEFORE(m, k, IETH))

#define OFF_OF(m, h)							\
	(((m) & SROCE_M_##h) ? OFF_BEFORE(m, SROCE_EXT_##h) : 0)

#define OPCODE_ENTRY(_name, _val, _mask)				\
	[SROCE_OP_##_name] = {						\
		.name = #_name,						\
		.mask = (_mask),					\
		.length = OFF_BEFORE(_mask, SROCE_EXT_PAYLOAD),		\
		.offset = {						\
			[SROCE_EXT_DETH] = OFF_OF(_mask, DETH),		\
			[SROCE_EXT_XRCETH] = OFF_OF(_mask, XRCETH),	\
			[SROCE_EXT_FETH] = OFF_OF(_mask, FETH),		\
			[SROCE_EXT_RETH] = OFF_OF(_mask, RETH),		\
			[SROCE_EXT_ATMETH] = OFF_OF(_mask, ATMETH),	\
			[SROCE_EXT_AETH] = OFF_OF(_mask, AETH),		\
			[SROCE_EXT_ATMACK] = OFF_OF(_mask, ATMACK),	\
			[SROCE_EXT_IMMDT] = OFF_OF(_mask, IMMDT),	\
			[SROCE_EXT_IETH] = OFF_OF(_mask, IETH),		\
			[SROCE_EXT_PAYLOAD] =				\
				OFF_BEFORE(_mask, SROCE_EXT_PAYLOAD),	\
		},							\
	},

const struct sroce_opcode_info sroce_opcode_table[SROCE_OPCODE_NUM] = {
	SROCE_OPCODE_LIST(OPCODE_ENTRY)
};

const struct sroce_opcode_info *sroce_opcode_get(u8 opcode)
{
	const struct sroce_opcode_info *info = &sroce_opcode_table[opcode];

	return info->mask ? info : NULL;
}

bool sroce_req_len_ok(u32 mask, u32 payload_len, u32 pmtu)
{
	if (!(mask & SROCE_M_PAYLOAD))
		return !payload_len;
	if (!(mask & SROCE_M_END))
		return payload_len == pmtu;
	if (!(mask & SROCE_M_START))
		return payload_len >= 1 && payload_len <= pmtu;
	return payload_len <= pmtu;
}

const char *sroce_opcode_name(u8 opcode)
{
	const struct sroce_opcode_info *info = sroce_opcode_get(opcode);

	return info ? info->name : "UNKNOWN";
}

int sroce_opcode_qpt(u8 opcode)
{
	if (!sroce_opcode_get(opcode))
		return -EINVAL;

	switch (sroce_opcode_transport(opcode)) {
	case SROCE_TR_RC:
		return SROCE_QPT_RC;
	case SROCE_TR_UC:
		return SROCE_QPT_UC;
	case SROCE_TR_UD:
		return SROCE_QPT_UD;
	case SROCE_TR_XRC:
		/* requests go to the target, responses to the initiator */
		return sroce_opcode_get(opcode)->mask & SROCE_M_REQ ?
		       SROCE_QPT_XRC_TGT : SROCE_QPT_XRC_INI;
	default:
		return -EINVAL;
	}
}

#define QPT(t)		SROCE_QPT_BIT(SROCE_QPT_##t)
#define QPT_RCX		(QPT(RC) | QPT(XRC_INI))

/*
 * Which QP types allow which operations: seed-rules R1.2 (SEND on all;
 * WRITE on RC/UC; READ and ATOMIC on RC only; IBA 1.5's FLUSH and ATOMIC
 * WRITE have RC opcodes only).  SEND with invalidate has
 * opcodes on RC only (IBA 9.2.1).  The local operations follow rxe
 * (RC and UC).  An XRC initiator posts what RC posts but FLUSH and
 * ATOMIC WRITE (no XRC opcodes); an XRC target has no send queue.  A
 * SEND, and a WRITE with immediate, consume a receive WQE at the
 * responder (R1.6).
 */
const struct sroce_wr_kind_info sroce_wr_kind_table[SROCE_WR_KIND_COUNT] = {
#define WRK(_name, _qpt, _flags)					\
	[SROCE_WR_##_name] = { .name = #_name, .qpt_mask = (_qpt),	\
			       .flags = (_flags) }
	WRK(SEND, QPT_RCX | QPT(UC) | QPT(UD), SROCE_WRF_RWQE),
	WRK(SEND_IMM, QPT_RCX | QPT(UC) | QPT(UD),
	    SROCE_WRF_RWQE | SROCE_WRF_IMM),
	WRK(SEND_INV, QPT_RCX, SROCE_WRF_RWQE | SROCE_WRF_INV),
	WRK(WRITE, QPT_RCX | QPT(UC), SROCE_WRF_RDMA),
	WRK(WRITE_IMM, QPT_RCX | QPT(UC),
	    SROCE_WRF_RDMA | SROCE_WRF_IMM | SROCE_WRF_RWQE),
	WRK(READ, QPT_RCX, SROCE_WRF_RDMA | SROCE_WRF_READ),
	WRK(CMP_SWAP, QPT_RCX, SROCE_WRF_ATOMIC),
	WRK(FETCH_ADD, QPT_RCX, SROCE_WRF_ATOMIC),
	WRK(LOCAL_INV, QPT_RCX | QPT(UC), SROCE_WRF_LOCAL | SROCE_WRF_INV),
	WRK(REG_MR, QPT_RCX | QPT(UC), SROCE_WRF_LOCAL | SROCE_WRF_REG),
	WRK(BIND_MW, QPT_RCX | QPT(UC), SROCE_WRF_LOCAL),
	WRK(FLUSH, QPT(RC), SROCE_WRF_FLUSH),
	WRK(ATOMIC_WRITE, QPT(RC), SROCE_WRF_ATOMIC_WRITE),
#undef WRK
};

/*
 * Packet opcode per (QP type, kind, position).  Entries hold
 * opcode | OPV_VALID so that the zero fill means "impossible".
 */
#define OPV_VALID	0x100
#define OPV(name)	(SROCE_OP_##name | OPV_VALID)
#define POS4(f, m, l, o) {						\
	[SROCE_POS_FIRST] = OPV(f), [SROCE_POS_MIDDLE] = OPV(m),	\
	[SROCE_POS_LAST] = OPV(l), [SROCE_POS_ONLY] = OPV(o) }
#define POS_ONLY(o)	{ [SROCE_POS_ONLY] = OPV(o) }

static const u16
wr_opcode_table[SROCE_QPT_COUNT][SROCE_WR_KIND_COUNT][SROCE_POS_COUNT] = {
	[SROCE_QPT_RC] = {
		[SROCE_WR_SEND] = POS4(RC_SEND_FIRST, RC_SEND_MIDDLE,
				       RC_SEND_LAST, RC_SEND_ONLY),
		[SROCE_WR_SEND_IMM] = POS4(RC_SEND_FIRST, RC_SEND_MIDDLE,
					   RC_SEND_LAST_WITH_IMMEDIATE,
					   RC_SEND_ONLY_WITH_IMMEDIATE),
		[SROCE_WR_SEND_INV] = POS4(RC_SEND_FIRST, RC_SEND_MIDDLE,
					   RC_SEND_LAST_WITH_INVALIDATE,
					   RC_SEND_ONLY_WITH_INVALIDATE),
		[SROCE_WR_WRITE] = POS4(RC_RDMA_WRITE_FIRST,
					RC_RDMA_WRITE_MIDDLE,
					RC_RDMA_WRITE_LAST,
					RC_RDMA_WRITE_ONLY),
		[SROCE_WR_WRITE_IMM] =
			POS4(RC_RDMA_WRITE_FIRST, RC_RDMA_WRITE_MIDDLE,
			     RC_RDMA_WRITE_LAST_WITH_IMMEDIATE,
			     RC_RDMA_WRITE_ONLY_WITH_IMMEDIATE),
		[SROCE_WR_READ] = POS_ONLY(RC_RDMA_READ_REQUEST),
		[SROCE_WR_CMP_SWAP] = POS_ONLY(RC_COMPARE_SWAP),
		[SROCE_WR_FETCH_ADD] = POS_ONLY(RC_FETCH_ADD),
		[SROCE_WR_FLUSH] = POS_ONLY(RC_FLUSH),
		[SROCE_WR_ATOMIC_WRITE] = POS_ONLY(RC_ATOMIC_WRITE),
	},
	[SROCE_QPT_UC] = {
		[SROCE_WR_SEND] = POS4(UC_SEND_FIRST, UC_SEND_MIDDLE,
				       UC_SEND_LAST, UC_SEND_ONLY),
		[SROCE_WR_SEND_IMM] = POS4(UC_SEND_FIRST, UC_SEND_MIDDLE,
					   UC_SEND_LAST_WITH_IMMEDIATE,
					   UC_SEND_ONLY_WITH_IMMEDIATE),
		[SROCE_WR_WRITE] = POS4(UC_RDMA_WRITE_FIRST,
					UC_RDMA_WRITE_MIDDLE,
					UC_RDMA_WRITE_LAST,
					UC_RDMA_WRITE_ONLY),
		[SROCE_WR_WRITE_IMM] =
			POS4(UC_RDMA_WRITE_FIRST, UC_RDMA_WRITE_MIDDLE,
			     UC_RDMA_WRITE_LAST_WITH_IMMEDIATE,
			     UC_RDMA_WRITE_ONLY_WITH_IMMEDIATE),
	},
	[SROCE_QPT_UD] = {
		/* UD messages are one packet (seed-rules R1.1). */
		[SROCE_WR_SEND] = POS_ONLY(UD_SEND_ONLY),
		[SROCE_WR_SEND_IMM] = POS_ONLY(UD_SEND_ONLY_WITH_IMMEDIATE),
	},
	[SROCE_QPT_XRC_INI] = {
		[SROCE_WR_SEND] = POS4(XRC_SEND_FIRST, XRC_SEND_MIDDLE,
				       XRC_SEND_LAST, XRC_SEND_ONLY),
		[SROCE_WR_SEND_IMM] = POS4(XRC_SEND_FIRST, XRC_SEND_MIDDLE,
					   XRC_SEND_LAST_WITH_IMMEDIATE,
					   XRC_SEND_ONLY_WITH_IMMEDIATE),
		[SROCE_WR_SEND_INV] = POS4(XRC_SEND_FIRST, XRC_SEND_MIDDLE,
					   XRC_SEND_LAST_WITH_INVALIDATE,
					   XRC_SEND_ONLY_WITH_INVALIDATE),
		[SROCE_WR_WRITE] = POS4(XRC_RDMA_WRITE_FIRST,
					XRC_RDMA_WRITE_MIDDLE,
					XRC_RDMA_WRITE_LAST,
					XRC_RDMA_WRITE_ONLY),
		[SROCE_WR_WRITE_IMM] =
			POS4(XRC_RDMA_WRITE_FIRST, XRC_RDMA_WRITE_MIDDLE,
			     XRC_RDMA_WRITE_LAST_WITH_IMMEDIATE,
			     XRC_RDMA_WRITE_ONLY_WITH_IMMEDIATE),
		[SROCE_WR_READ] = POS_ONLY(XRC_RDMA_READ_REQUEST),
		[SROCE_WR_CMP_SWAP] = POS_ONLY(XRC_COMPARE_SWAP),
		[SROCE_WR_FETCH_ADD] = POS_ONLY(XRC_FETCH_ADD),
	},
};

bool sroce_wr_kind_allowed(enum sroce_qp_type qpt, enum sroce_wr_kind kind)
{
	if ((unsigned int)qpt >= SROCE_QPT_COUNT ||
	    (unsigned int)kind >= SROCE_WR_KIND_COUNT)
		return false;
	return sroce_wr_kind_table[kind].qpt_mask & SROCE_QPT_BIT(qpt);
}

const char *sroce_wr_kind_name(enum sroce_wr_kind kind)
{
	if ((unsigned int)kind >= SROCE_WR_KIND_COUNT)
		return "UNKNOWN";
	return sroce_wr_kind_table[kind].name;
}

int sroce_wr_opcode(enum sroce_qp_type qpt, enum sroce_wr_kind kind,
		    enum sroce_pkt_pos pos)
{
	u16 v;

	if (!sroce_wr_kind_allowed(qpt, kind) ||
	    (unsigned int)pos >= SROCE_POS_COUNT)
		return -EINVAL;

	v = wr_opcode_table[qpt][kind][pos];
	if (!(v & OPV_VALID))
		return -EINVAL;
	return v & ~OPV_VALID;
}

u8 sroce_read_resp_opcode(enum sroce_pkt_pos pos)
{
	static const u8 read_resp[SROCE_POS_COUNT] = {
		[SROCE_POS_FIRST] = SROCE_OP_RC_RDMA_READ_RESPONSE_FIRST,
		[SROCE_POS_MIDDLE] = SROCE_OP_RC_RDMA_READ_RESPONSE_MIDDLE,
		[SROCE_POS_LAST] = SROCE_OP_RC_RDMA_READ_RESPONSE_LAST,
		[SROCE_POS_ONLY] = SROCE_OP_RC_RDMA_READ_RESPONSE_ONLY,
	};

	return read_resp[pos];
}
