// SPDX-License-Identifier: GPL-2.0-only
/*
 * Host tests for kernel/core/opcode.c: every RC/UC/UD/XRC opcode's header
 * set, offsets and semantics (IBA 9.2.1, XRC: annex A14), seed-rules R1.1,
 * R1.2, R1.3, R1.6.
 * The expectations below are typed independently of SROCE_OPCODE_LIST.
 */
#include "harness.h"
#include "opcode.h"

#define REQ	SROCE_M_REQ
#define RSP	SROCE_M_RESP
#define ST	SROCE_M_START
#define MID	SROCE_M_MIDDLE
#define END	SROCE_M_END
#define SND	SROCE_M_SEND
#define WR	SROCE_M_WRITE
#define RD	SROCE_M_READ
#define ATM	SROCE_M_ATOMIC
#define IMM	SROCE_M_IMM
#define INV	SROCE_M_INV
#define RWR	SROCE_M_RWR	/* the receive WQE is taken here */
#define FL	SROCE_M_FLUSH
#define AW	SROCE_M_ATOMIC_WRITE

struct exp_op {
	u8 op;
	const char *name;
	u8 len;
	/* offsets from the BTH; 0 = header absent */
	u8 deth, feth, reth, atmeth, aeth, atmack, immdt, ieth;
	bool payload;
	u32 sem;
	u8 xrceth;	/* last: only the XRC requests set it */
};

#define SEND_OPS(p, base)						\
	{ base + 0x00, #p "_SEND_FIRST", 12, 0, 0, 0, 0, 0, 0, 0, 0, 1,	\
	  REQ | SND | ST | RWR, 0 },					\
	{ base + 0x01, #p "_SEND_MIDDLE", 12, 0, 0, 0, 0, 0, 0, 0, 0, 1,	\
	  REQ | SND | MID, 0 },						\
	{ base + 0x02, #p "_SEND_LAST", 12, 0, 0, 0, 0, 0, 0, 0, 0, 1,	\
	  REQ | SND | END, 0 },						\
	{ base + 0x03, #p "_SEND_LAST_WITH_IMMEDIATE", 16,		\
	  0, 0, 0, 0, 0, 0, 12, 0, 1, REQ | SND | END | IMM, 0 },		\
	{ base + 0x04, #p "_SEND_ONLY", 12, 0, 0, 0, 0, 0, 0, 0, 0, 1,	\
	  REQ | SND | ST | END | RWR, 0 },					\
	{ base + 0x05, #p "_SEND_ONLY_WITH_IMMEDIATE", 16,		\
	  0, 0, 0, 0, 0, 0, 12, 0, 1, REQ | SND | ST | END | RWR | IMM, 0 },	\
	{ base + 0x06, #p "_RDMA_WRITE_FIRST", 28,			\
	  0, 0, 12, 0, 0, 0, 0, 0, 1, REQ | WR | ST, 0 },			\
	{ base + 0x07, #p "_RDMA_WRITE_MIDDLE", 12,			\
	  0, 0, 0, 0, 0, 0, 0, 0, 1, REQ | WR | MID, 0 },			\
	{ base + 0x08, #p "_RDMA_WRITE_LAST", 12,			\
	  0, 0, 0, 0, 0, 0, 0, 0, 1, REQ | WR | END, 0 },			\
	{ base + 0x09, #p "_RDMA_WRITE_LAST_WITH_IMMEDIATE", 16,	\
	  0, 0, 0, 0, 0, 0, 12, 0, 1, REQ | WR | END | IMM | RWR, 0 },	\
	{ base + 0x0a, #p "_RDMA_WRITE_ONLY", 28,			\
	  0, 0, 12, 0, 0, 0, 0, 0, 1, REQ | WR | ST | END, 0 },		\
	{ base + 0x0b, #p "_RDMA_WRITE_ONLY_WITH_IMMEDIATE", 32,	\
	  0, 0, 12, 0, 0, 0, 28, 0, 1, REQ | WR | ST | END | IMM | RWR, 0 }

static const struct exp_op exp_ops[] = {
	SEND_OPS(RC, 0x00),
	{ 0x0c, "RC_RDMA_READ_REQUEST", 28, 0, 0, 12, 0, 0, 0, 0, 0, 0,
	  REQ | RD | ST | END, 0 },
	{ 0x0d, "RC_RDMA_READ_RESPONSE_FIRST", 16, 0, 0, 0, 0, 12, 0, 0, 0, 1,
	  RSP | RD | ST, 0 },
	{ 0x0e, "RC_RDMA_READ_RESPONSE_MIDDLE", 12, 0, 0, 0, 0, 0, 0, 0, 0, 1,
	  RSP | RD | MID, 0 },
	{ 0x0f, "RC_RDMA_READ_RESPONSE_LAST", 16, 0, 0, 0, 0, 12, 0, 0, 0, 1,
	  RSP | RD | END, 0 },
	{ 0x10, "RC_RDMA_READ_RESPONSE_ONLY", 16, 0, 0, 0, 0, 12, 0, 0, 0, 1,
	  RSP | RD | ST | END, 0 },
	{ 0x11, "RC_ACKNOWLEDGE", 16, 0, 0, 0, 0, 12, 0, 0, 0, 0,
	  RSP | ST | END, 0 },
	{ 0x12, "RC_ATOMIC_ACKNOWLEDGE", 24, 0, 0, 0, 0, 12, 16, 0, 0, 0,
	  RSP | ATM | ST | END, 0 },
	{ 0x13, "RC_COMPARE_SWAP", 40, 0, 0, 0, 12, 0, 0, 0, 0, 0,
	  REQ | ATM | ST | END, 0 },
	{ 0x14, "RC_FETCH_ADD", 40, 0, 0, 0, 12, 0, 0, 0, 0, 0,
	  REQ | ATM | ST | END, 0 },
	{ 0x16, "RC_SEND_LAST_WITH_INVALIDATE", 16, 0, 0, 0, 0, 0, 0, 0, 12, 1,
	  REQ | SND | END | INV, 0 },
	{ 0x17, "RC_SEND_ONLY_WITH_INVALIDATE", 16, 0, 0, 0, 0, 0, 0, 0, 12, 1,
	  REQ | SND | ST | END | RWR | INV, 0 },
	/* IBA 1.5: FETH (4 bytes) then RETH; ATOMIC WRITE: RETH + 8 bytes */
	{ 0x1c, "RC_FLUSH", 32, 0, 12, 16, 0, 0, 0, 0, 0, 0,
	  REQ | FL | ST | END, 0 },
	{ 0x1d, "RC_ATOMIC_WRITE", 28, 0, 0, 12, 0, 0, 0, 0, 0, 1,
	  REQ | AW | ST | END, 0 },
	SEND_OPS(UC, 0x20),
	{ 0x64, "UD_SEND_ONLY", 20, 12, 0, 0, 0, 0, 0, 0, 0, 1,
	  REQ | SND | ST | END | RWR, 0 },
	{ 0x65, "UD_SEND_ONLY_WITH_IMMEDIATE", 24, 12, 0, 0, 0, 0, 0, 20, 0, 1,
	  REQ | SND | ST | END | RWR | IMM, 0 },
	/* XRC: requests have the XRCETH (4 bytes) right after the BTH */
	{ 0xa0, "XRC_SEND_FIRST", 16, 0, 0, 0, 0, 0, 0, 0, 0, 1,
	  REQ | SND | ST | RWR, 12 },
	{ 0xa1, "XRC_SEND_MIDDLE", 16, 0, 0, 0, 0, 0, 0, 0, 0, 1,
	  REQ | SND | MID, 12 },
	{ 0xa2, "XRC_SEND_LAST", 16, 0, 0, 0, 0, 0, 0, 0, 0, 1,
	  REQ | SND | END, 12 },
	{ 0xa3, "XRC_SEND_LAST_WITH_IMMEDIATE", 20, 0, 0, 0, 0, 0, 0, 16, 0, 1,
	  REQ | SND | END | IMM, 12 },
	{ 0xa4, "XRC_SEND_ONLY", 16, 0, 0, 0, 0, 0, 0, 0, 0, 1,
	  REQ | SND | ST | END | RWR, 12 },
	{ 0xa5, "XRC_SEND_ONLY_WITH_IMMEDIATE", 20, 0, 0, 0, 0, 0, 0, 16, 0, 1,
	  REQ | SND | ST | END | RWR | IMM, 12 },
	{ 0xa6, "XRC_RDMA_WRITE_FIRST", 32, 0, 0, 16, 0, 0, 0, 0, 0, 1,
	  REQ | WR | ST, 12 },
	{ 0xa7, "XRC_RDMA_WRITE_MIDDLE", 16, 0, 0, 0, 0, 0, 0, 0, 0, 1,
	  REQ | WR | MID, 12 },
	{ 0xa8, "XRC_RDMA_WRITE_LAST", 16, 0, 0, 0, 0, 0, 0, 0, 0, 1,
	  REQ | WR | END, 12 },
	{ 0xa9, "XRC_RDMA_WRITE_LAST_WITH_IMMEDIATE", 20,
	  0, 0, 0, 0, 0, 0, 16, 0, 1, REQ | WR | END | IMM | RWR, 12 },
	{ 0xaa, "XRC_RDMA_WRITE_ONLY", 32, 0, 0, 16, 0, 0, 0, 0, 0, 1,
	  REQ | WR | ST | END, 12 },
	{ 0xab, "XRC_RDMA_WRITE_ONLY_WITH_IMMEDIATE", 36,
	  0, 0, 16, 0, 0, 0, 32, 0, 1, REQ | WR | ST | END | IMM | RWR, 12 },
	{ 0xac, "XRC_RDMA_READ_REQUEST", 32, 0, 0, 16, 0, 0, 0, 0, 0, 0,
	  REQ | RD | ST | END, 12 },
	/* ... and responses are RC's */
	{ 0xad, "XRC_RDMA_READ_RESPONSE_FIRST", 16, 0, 0, 0, 0, 12, 0, 0, 0, 1,
	  RSP | RD | ST, 0 },
	{ 0xae, "XRC_RDMA_READ_RESPONSE_MIDDLE", 12, 0, 0, 0, 0, 0, 0, 0, 0, 1,
	  RSP | RD | MID, 0 },
	{ 0xaf, "XRC_RDMA_READ_RESPONSE_LAST", 16, 0, 0, 0, 0, 12, 0, 0, 0, 1,
	  RSP | RD | END, 0 },
	{ 0xb0, "XRC_RDMA_READ_RESPONSE_ONLY", 16, 0, 0, 0, 0, 12, 0, 0, 0, 1,
	  RSP | RD | ST | END, 0 },
	{ 0xb1, "XRC_ACKNOWLEDGE", 16, 0, 0, 0, 0, 12, 0, 0, 0, 0,
	  RSP | ST | END, 0 },
	{ 0xb2, "XRC_ATOMIC_ACKNOWLEDGE", 24, 0, 0, 0, 0, 12, 16, 0, 0, 0,
	  RSP | ATM | ST | END, 0 },
	{ 0xb3, "XRC_COMPARE_SWAP", 44, 0, 0, 0, 16, 0, 0, 0, 0, 0,
	  REQ | ATM | ST | END, 12 },
	{ 0xb4, "XRC_FETCH_ADD", 44, 0, 0, 0, 16, 0, 0, 0, 0, 0,
	  REQ | ATM | ST | END, 12 },
	{ 0xb6, "XRC_SEND_LAST_WITH_INVALIDATE", 20, 0, 0, 0, 0, 0, 0, 0, 16, 1,
	  REQ | SND | END | INV, 12 },
	{ 0xb7, "XRC_SEND_ONLY_WITH_INVALIDATE", 20, 0, 0, 0, 0, 0, 0, 0, 16, 1,
	  REQ | SND | ST | END | RWR | INV, 12 },
};

static const struct exp_op *find_exp(unsigned int op)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(exp_ops); i++)
		if (exp_ops[i].op == op)
			return &exp_ops[i];
	return NULL;
}

static void check_hdr(const struct sroce_opcode_info *info, int ext,
		      u8 want_off, unsigned int op)
{
	if (want_off) {
		EXPECT_TRUE(info->mask & BIT(ext));
		EXPECT_EQ(info->offset[ext], want_off);
	} else {
		EXPECT_FALSE(info->mask & BIT(ext));
		EXPECT_EQ(info->offset[ext], 0);
	}
	if (harness_cur_failed)
		TH_LOG("opcode 0x%02x ext %d", op, ext);
}

TEST(opcode_count)
{
	unsigned int op, n = 0;

	for (op = 0; op < 256; op++)
		n += !!sroce_opcode_get(op);
	ASSERT_EQ(n, 62U);	/* 25 RC + 12 UC + 2 UD + 23 XRC */
	ASSERT_EQ(ARRAY_SIZE(exp_ops), 62UL);
}

/* IBA 9.2.1 / seed-rules R1.3: every opcode's headers, length, offsets */
TEST(opcode_headers_all)
{
	unsigned int op;

	for (op = 0; op < 256; op++) {
		const struct sroce_opcode_info *info = sroce_opcode_get(op);
		const struct exp_op *e = find_exp(op);

		if (!e) {
			EXPECT_FALSE(info);
			EXPECT_STREQ(sroce_opcode_name(op), "UNKNOWN");
			continue;
		}
		ASSERT_TRUE(info);
		EXPECT_STREQ(info->name, e->name);
		EXPECT_STREQ(sroce_opcode_name(op), e->name);
		EXPECT_EQ(info->length, e->len);
		EXPECT_EQ(info->offset[SROCE_EXT_PAYLOAD], e->len);
		EXPECT_EQ(!!(info->mask & SROCE_M_PAYLOAD), e->payload);
		check_hdr(info, SROCE_EXT_DETH, e->deth, op);
		check_hdr(info, SROCE_EXT_XRCETH, e->xrceth, op);
		check_hdr(info, SROCE_EXT_FETH, e->feth, op);
		check_hdr(info, SROCE_EXT_RETH, e->reth, op);
		check_hdr(info, SROCE_EXT_ATMETH, e->atmeth, op);
		check_hdr(info, SROCE_EXT_AETH, e->aeth, op);
		check_hdr(info, SROCE_EXT_ATMACK, e->atmack, op);
		check_hdr(info, SROCE_EXT_IMMDT, e->immdt, op);
		check_hdr(info, SROCE_EXT_IETH, e->ieth, op);
		EXPECT_EQ(info->mask & ~(SROCE_M_HDRS | SROCE_M_PAYLOAD),
			  e->sem);
	}
}

/* seed-rules R1.1: RD is not offered; transports from the top 3 bits */
TEST(opcode_transport)
{
	static const int tr_qpt[8] = {
		SROCE_QPT_RC, SROCE_QPT_UC, -1, SROCE_QPT_UD, -1, -1, -1, -1
	};
	unsigned int op;

	for (op = 0; op < 256; op++) {
		const struct sroce_opcode_info *i = sroce_opcode_get(op);

		EXPECT_EQ(sroce_opcode_transport(op), op >> 5);
		if (!i)
			EXPECT_EQ(sroce_opcode_qpt(op), -EINVAL);
		else if (op >> 5 != SROCE_TR_XRC)
			EXPECT_EQ(sroce_opcode_qpt(op), tr_qpt[op >> 5]);
		/* XRC: requests to the target, responses to the initiator */
		else if (i->mask & SROCE_M_REQ)
			EXPECT_EQ(sroce_opcode_qpt(op), SROCE_QPT_XRC_TGT);
		else
			EXPECT_EQ(sroce_opcode_qpt(op), SROCE_QPT_XRC_INI);
	}
	for (op = 0x40; op < 0x60; op++)
		EXPECT_FALSE(sroce_opcode_get(op));
	EXPECT_FALSE(sroce_opcode_get(SROCE_OP_CNP));
	EXPECT_EQ(sroce_opcode_transport(SROCE_OP_CNP), SROCE_TR_CNP);
}

/* Invariants that must hold for every supported opcode. */
TEST(opcode_semantic_invariants)
{
	unsigned int op;

	for (op = 0; op < 256; op++) {
		const struct sroce_opcode_info *i = sroce_opcode_get(op);
		u32 m;

		if (!i)
			continue;
		m = i->mask;
		EXPECT_EQ(!!(m & SROCE_M_REQ) + !!(m & SROCE_M_RESP), 1);
		EXPECT_EQ(!!(m & SROCE_M_IMM), !!(m & SROCE_M_IMMDT));
		EXPECT_EQ(!!(m & SROCE_M_INV), !!(m & SROCE_M_IETH));
		EXPECT_EQ(!!(m & SROCE_M_MIDDLE) &&
			  (m & (SROCE_M_START | SROCE_M_END)), 0);
		/* R1.3: RETH only on the first WRITE packet */
		if ((m & SROCE_M_WRITE))
			EXPECT_EQ(!!(m & SROCE_M_RETH), !!(m & SROCE_M_START));
		/* R1.3: immediate only on LAST/ONLY */
		if (m & SROCE_M_IMM)
			EXPECT_TRUE(m & SROCE_M_END);
		/*
		 * R1.6: WRITE/READ/ATOMIC don't consume a receive WQE,
		 * except WRITE with immediate.
		 */
		if (m & (SROCE_M_READ | SROCE_M_ATOMIC))
			EXPECT_FALSE(m & SROCE_M_RWR);
		if (m & SROCE_M_WRITE)
			EXPECT_EQ(!!(m & SROCE_M_RWR), !!(m & SROCE_M_IMM));
		/* a SEND takes its receive WQE at its first packet */
		if ((m & SROCE_M_SEND))
			EXPECT_EQ(!!(m & SROCE_M_RWR), !!(m & SROCE_M_START));
		EXPECT_EQ(i->length % 4, 0);
		EXPECT_TRUE(i->name);
	}
}

/* seed-rules R1.2: operations per service */
TEST(wr_kind_allowed_matrix)
{
	static const bool allowed[SROCE_WR_KIND_COUNT][SROCE_QPT_COUNT] = {
		/* XRC: the initiator as RC but for IBA 1.5's two; no target SQ */
		/*                     RC UC UD XI XT */
		[SROCE_WR_SEND]      = { 1, 1, 1, 1, 0 },
		[SROCE_WR_SEND_IMM]  = { 1, 1, 1, 1, 0 },
		[SROCE_WR_SEND_INV]  = { 1, 0, 0, 1, 0 },
		[SROCE_WR_WRITE]     = { 1, 1, 0, 1, 0 },
		[SROCE_WR_WRITE_IMM] = { 1, 1, 0, 1, 0 },
		[SROCE_WR_READ]      = { 1, 0, 0, 1, 0 },
		[SROCE_WR_CMP_SWAP]  = { 1, 0, 0, 1, 0 },
		[SROCE_WR_FETCH_ADD] = { 1, 0, 0, 1, 0 },
		[SROCE_WR_LOCAL_INV] = { 1, 1, 0, 1, 0 },
		[SROCE_WR_REG_MR]    = { 1, 1, 0, 1, 0 },
		[SROCE_WR_BIND_MW]   = { 1, 1, 0, 1, 0 },
		[SROCE_WR_FLUSH]     = { 1, 0, 0, 0, 0 },
		[SROCE_WR_ATOMIC_WRITE] = { 1, 0, 0, 0, 0 },
	};
	int k, t;

	ASSERT_EQ(SROCE_WR_KIND_COUNT, 13);
	for (k = 0; k < SROCE_WR_KIND_COUNT; k++)
		for (t = 0; t < SROCE_QPT_COUNT; t++)
			EXPECT_EQ(sroce_wr_kind_allowed(t, k), allowed[k][t]);
	EXPECT_FALSE(sroce_wr_kind_allowed(SROCE_QPT_COUNT, SROCE_WR_SEND));
	EXPECT_FALSE(sroce_wr_kind_allowed(SROCE_QPT_RC, SROCE_WR_KIND_COUNT));
	EXPECT_STREQ(sroce_wr_kind_name(SROCE_WR_FETCH_ADD), "FETCH_ADD");
	EXPECT_STREQ(sroce_wr_kind_name(SROCE_WR_KIND_COUNT), "UNKNOWN");
}

/*
 * Each kind's facts, typed from the IBA and the verbs API rather than
 * from the table: the IB_WR_ / IB_WC_ names it maps to (kernel/sroce_req.c
 * and kernel/sroce_comp.c expand them from SROCE_WR_KIND_LIST), whether it
 * is a local operation, a READ or an ATOMIC (both take a max_rd_atomic
 * credit, R2.7), which kernel WR fields it carries, and whether the
 * message consumes a receive WQE at the responder (SEND and WRITE with
 * immediate only, R1.6).
 */
#define LOC	SROCE_WRF_LOCAL
#define RDF	SROCE_WRF_READ
#define ATF	SROCE_WRF_ATOMIC
#define IMF	SROCE_WRF_IMM
#define INF	SROCE_WRF_INV
#define RDMAF	SROCE_WRF_RDMA
#define REGF	SROCE_WRF_REG
#define RWQE	SROCE_WRF_RWQE
#define FLF	SROCE_WRF_FLUSH
#define AWF	SROCE_WRF_ATOMIC_WRITE

static const struct {
	const char *wr, *wc;
	u16 flags;
} exp_kind[SROCE_WR_KIND_COUNT] = {
	[SROCE_WR_SEND]      = { "SEND", "SEND", RWQE },
	[SROCE_WR_SEND_IMM]  = { "SEND_WITH_IMM", "SEND", RWQE | IMF },
	[SROCE_WR_SEND_INV]  = { "SEND_WITH_INV", "SEND", RWQE | INF },
	[SROCE_WR_WRITE]     = { "RDMA_WRITE", "RDMA_WRITE", RDMAF },
	[SROCE_WR_WRITE_IMM] = { "RDMA_WRITE_WITH_IMM", "RDMA_WRITE",
				 RDMAF | IMF | RWQE },
	[SROCE_WR_READ]      = { "RDMA_READ", "RDMA_READ", RDMAF | RDF },
	[SROCE_WR_CMP_SWAP]  = { "ATOMIC_CMP_AND_SWP", "COMP_SWAP", ATF },
	[SROCE_WR_FETCH_ADD] = { "ATOMIC_FETCH_AND_ADD", "FETCH_ADD", ATF },
	[SROCE_WR_LOCAL_INV] = { "LOCAL_INV", "LOCAL_INV", LOC | INF },
	[SROCE_WR_REG_MR]    = { "REG_MR", "REG_MR", LOC | REGF },
	[SROCE_WR_BIND_MW]   = { "BIND_MW", "BIND_MW", LOC },
	[SROCE_WR_FLUSH]     = { "FLUSH", "FLUSH", FLF },
	[SROCE_WR_ATOMIC_WRITE] = { "ATOMIC_WRITE", "ATOMIC_WRITE", AWF },
};

#define KIND_IB_NAMES(kind, wr, wc)	[SROCE_WR_##kind] = { #wr, #wc },
static const char *const list_ib[SROCE_WR_KIND_COUNT][2] = {
	SROCE_WR_KIND_LIST(KIND_IB_NAMES)
};

TEST(wr_kind_facts)
{
	int k;

	for (k = 0; k < SROCE_WR_KIND_COUNT; k++) {
		u16 f = sroce_wr_kind_flags(k);

		EXPECT_STREQ(list_ib[k][0], exp_kind[k].wr);
		EXPECT_STREQ(list_ib[k][1], exp_kind[k].wc);
		EXPECT_EQ(f, exp_kind[k].flags);
		EXPECT_EQ(!!(f & SROCE_WRF_RD_ATOMIC),
			  k == SROCE_WR_READ || k == SROCE_WR_CMP_SWAP ||
			  k == SROCE_WR_FETCH_ADD || k == SROCE_WR_FLUSH ||
			  k == SROCE_WR_ATOMIC_WRITE);
		if (f != exp_kind[k].flags)
			TH_LOG("kind %s", sroce_wr_kind_name(k));
	}
	/* the IBA facts the brief of each flag names */
	EXPECT_TRUE(sroce_wr_kind_flags(SROCE_WR_WRITE_IMM) & SROCE_WRF_RWQE);
	EXPECT_FALSE(sroce_wr_kind_flags(SROCE_WR_WRITE) & SROCE_WRF_RWQE);
	EXPECT_FALSE(sroce_wr_kind_flags(SROCE_WR_READ) & SROCE_WRF_RWQE);
	EXPECT_TRUE(sroce_wr_kind_flags(SROCE_WR_READ) & SROCE_WRF_RD_ATOMIC);
	EXPECT_TRUE(sroce_wr_kind_flags(SROCE_WR_CMP_SWAP) &
		    SROCE_WRF_RD_ATOMIC);
	EXPECT_TRUE(sroce_wr_kind_flags(SROCE_WR_FETCH_ADD) &
		    SROCE_WRF_RD_ATOMIC);
	EXPECT_FALSE(sroce_wr_kind_flags(SROCE_WR_WRITE) & SROCE_WRF_RD_ATOMIC);
	EXPECT_TRUE(sroce_wr_kind_flags(SROCE_WR_SEND_INV) & SROCE_WRF_INV);
	EXPECT_TRUE(sroce_wr_kind_flags(SROCE_WR_REG_MR) & SROCE_WRF_LOCAL);
}

/* seed-rules R1.3: FIRST/MIDDLE/LAST/ONLY opcode choice */
TEST(wr_opcode_examples)
{
	ASSERT_EQ(sroce_wr_opcode(SROCE_QPT_RC, SROCE_WR_SEND, SROCE_POS_ONLY),
		  0x04);
	ASSERT_EQ(sroce_wr_opcode(SROCE_QPT_RC, SROCE_WR_SEND_IMM,
				  SROCE_POS_FIRST), 0x00);
	ASSERT_EQ(sroce_wr_opcode(SROCE_QPT_RC, SROCE_WR_SEND_IMM,
				  SROCE_POS_LAST), 0x03);
	ASSERT_EQ(sroce_wr_opcode(SROCE_QPT_RC, SROCE_WR_SEND_INV,
				  SROCE_POS_LAST), 0x16);
	ASSERT_EQ(sroce_wr_opcode(SROCE_QPT_RC, SROCE_WR_SEND_INV,
				  SROCE_POS_ONLY), 0x17);
	ASSERT_EQ(sroce_wr_opcode(SROCE_QPT_RC, SROCE_WR_WRITE_IMM,
				  SROCE_POS_MIDDLE), 0x07);
	ASSERT_EQ(sroce_wr_opcode(SROCE_QPT_RC, SROCE_WR_WRITE_IMM,
				  SROCE_POS_ONLY), 0x0b);
	ASSERT_EQ(sroce_wr_opcode(SROCE_QPT_RC, SROCE_WR_READ, SROCE_POS_ONLY),
		  0x0c);
	ASSERT_EQ(sroce_wr_opcode(SROCE_QPT_RC, SROCE_WR_CMP_SWAP,
				  SROCE_POS_ONLY), 0x13);
	ASSERT_EQ(sroce_wr_opcode(SROCE_QPT_RC, SROCE_WR_FETCH_ADD,
				  SROCE_POS_ONLY), 0x14);
	ASSERT_EQ(sroce_wr_opcode(SROCE_QPT_UC, SROCE_WR_WRITE,
				  SROCE_POS_FIRST), 0x26);
	ASSERT_EQ(sroce_wr_opcode(SROCE_QPT_UC, SROCE_WR_SEND_IMM,
				  SROCE_POS_ONLY), 0x25);
	ASSERT_EQ(sroce_wr_opcode(SROCE_QPT_UD, SROCE_WR_SEND, SROCE_POS_ONLY),
		  0x64);
	ASSERT_EQ(sroce_wr_opcode(SROCE_QPT_UD, SROCE_WR_SEND_IMM,
				  SROCE_POS_ONLY), 0x65);
	ASSERT_EQ(sroce_wr_opcode(SROCE_QPT_XRC_INI, SROCE_WR_SEND,
				  SROCE_POS_ONLY), 0xa4);
	ASSERT_EQ(sroce_wr_opcode(SROCE_QPT_XRC_INI, SROCE_WR_WRITE_IMM,
				  SROCE_POS_LAST), 0xa9);
	ASSERT_EQ(sroce_wr_opcode(SROCE_QPT_XRC_INI, SROCE_WR_SEND_INV,
				  SROCE_POS_ONLY), 0xb7);
	ASSERT_EQ(sroce_wr_opcode(SROCE_QPT_XRC_INI, SROCE_WR_READ,
				  SROCE_POS_ONLY), 0xac);
	ASSERT_EQ(sroce_wr_opcode(SROCE_QPT_XRC_INI, SROCE_WR_FETCH_ADD,
				  SROCE_POS_ONLY), 0xb4);
	/* impossible combinations */
	ASSERT_EQ(sroce_wr_opcode(SROCE_QPT_UD, SROCE_WR_SEND, SROCE_POS_FIRST),
		  -EINVAL);	/* R1.1: UD is one packet */
	ASSERT_EQ(sroce_wr_opcode(SROCE_QPT_UD, SROCE_WR_WRITE, SROCE_POS_ONLY),
		  -EINVAL);
	ASSERT_EQ(sroce_wr_opcode(SROCE_QPT_UC, SROCE_WR_READ, SROCE_POS_ONLY),
		  -EINVAL);
	ASSERT_EQ(sroce_wr_opcode(SROCE_QPT_UC, SROCE_WR_SEND_INV,
				  SROCE_POS_ONLY), -EINVAL);
	ASSERT_EQ(sroce_wr_opcode(SROCE_QPT_RC, SROCE_WR_READ, SROCE_POS_FIRST),
		  -EINVAL);
	ASSERT_EQ(sroce_wr_opcode(SROCE_QPT_RC, SROCE_WR_LOCAL_INV,
				  SROCE_POS_ONLY), -EINVAL);
	ASSERT_EQ(sroce_wr_opcode(SROCE_QPT_RC, SROCE_WR_SEND, SROCE_POS_COUNT),
		  -EINVAL);
	ASSERT_EQ(sroce_wr_opcode(SROCE_QPT_XRC_INI, SROCE_WR_FLUSH,
				  SROCE_POS_ONLY), -EINVAL);
	ASSERT_EQ(sroce_wr_opcode(SROCE_QPT_XRC_TGT, SROCE_WR_SEND,
				  SROCE_POS_ONLY), -EINVAL);
}

/* Every possible answer of sroce_wr_opcode agrees with the opcode table. */
TEST(wr_opcode_consistency)
{
	static const u32 pos_bits[SROCE_POS_COUNT] = {
		[SROCE_POS_FIRST] = SROCE_M_START,
		[SROCE_POS_MIDDLE] = SROCE_M_MIDDLE,
		[SROCE_POS_LAST] = SROCE_M_END,
		[SROCE_POS_ONLY] = SROCE_M_START | SROCE_M_END,
	};
	int t, k, p, n = 0;

	for (t = 0; t < SROCE_QPT_COUNT; t++) {
		for (k = 0; k < SROCE_WR_KIND_COUNT; k++) {
			const struct sroce_wr_kind_info *ki =
				&sroce_wr_kind_table[k];

			for (p = 0; p < SROCE_POS_COUNT; p++) {
				int op = sroce_wr_opcode(t, k, p);
				const struct sroce_opcode_info *i;
				bool last = p == SROCE_POS_LAST ||
					    p == SROCE_POS_ONLY;

				if (op < 0)
					continue;
				n++;
				ASSERT_TRUE(sroce_wr_kind_allowed(t, k));
				ASSERT_FALSE(ki->flags & SROCE_WRF_LOCAL);
				i = sroce_opcode_get(op);
				ASSERT_TRUE(i);
				/* received by the peer: an XRC target */
				EXPECT_EQ(sroce_opcode_qpt(op),
					  t == SROCE_QPT_XRC_INI ?
					  SROCE_QPT_XRC_TGT : t);
				EXPECT_TRUE(i->mask & SROCE_M_REQ);
				EXPECT_EQ(i->mask & (SROCE_M_START |
						     SROCE_M_MIDDLE |
						     SROCE_M_END), pos_bits[p]);
				EXPECT_EQ(!!(i->mask & SROCE_M_IMM),
					  !!(ki->flags & SROCE_WRF_IMM) && last);
				EXPECT_EQ(!!(i->mask & SROCE_M_INV),
					  !!(ki->flags & SROCE_WRF_INV) && last);
				if (k == SROCE_WR_WRITE || k == SROCE_WR_WRITE_IMM)
					EXPECT_EQ(!!(i->mask & SROCE_M_RETH),
						  p == SROCE_POS_FIRST ||
						  p == SROCE_POS_ONLY);
				/* the kind's flags say what its packets are */
				EXPECT_EQ(!!(i->mask & SROCE_M_READ),
					  !!(ki->flags & SROCE_WRF_READ));
				EXPECT_EQ(!!(i->mask & SROCE_M_ATOMIC),
					  !!(ki->flags & SROCE_WRF_ATOMIC));
				EXPECT_EQ(!!(i->mask & SROCE_M_ATMETH),
					  !!(ki->flags & SROCE_WRF_ATOMIC));
				EXPECT_EQ(!!(i->mask & SROCE_M_FLUSH),
					  !!(ki->flags & SROCE_WRF_FLUSH));
				EXPECT_EQ(!!(i->mask & SROCE_M_FETH),
					  !!(ki->flags & SROCE_WRF_FLUSH));
				EXPECT_EQ(!!(i->mask & SROCE_M_ATOMIC_WRITE),
					  !!(ki->flags & SROCE_WRF_ATOMIC_WRITE));
				if (p == SROCE_POS_FIRST || p == SROCE_POS_ONLY)
					EXPECT_EQ(!!(i->mask & SROCE_M_RETH),
						  !!(ki->flags & (SROCE_WRF_RDMA |
								  SROCE_WRF_FLUSH |
								  SROCE_WRF_ATOMIC_WRITE)));
				if (i->mask & SROCE_M_RWR)
					EXPECT_TRUE(ki->flags & SROCE_WRF_RWQE);
				if (p == SROCE_POS_ONLY)
					EXPECT_EQ(!!(i->mask & SROCE_M_RWR),
						  !!(ki->flags & SROCE_WRF_RWQE));
				EXPECT_EQ(!!(i->mask & SROCE_M_XRCETH),
					  t == SROCE_QPT_XRC_INI);
			}
		}
	}
	/*
	 * RC: 5 multi-packet kinds x 4 + 5 single; UC: 4 x 4; UD: 2; XRC
	 * initiator: RC without FLUSH and ATOMIC WRITE
	 */
	ASSERT_EQ(n, 25 + 16 + 2 + 23);
}

/* seed-rules R1.3: READ responses FIRST/MIDDLE/LAST/ONLY */
TEST(read_resp_opcode)
{
	ASSERT_EQ(sroce_read_resp_opcode(SROCE_POS_FIRST), 0x0d);
	ASSERT_EQ(sroce_read_resp_opcode(SROCE_POS_MIDDLE), 0x0e);
	ASSERT_EQ(sroce_read_resp_opcode(SROCE_POS_LAST), 0x0f);
	ASSERT_EQ(sroce_read_resp_opcode(SROCE_POS_ONLY), 0x10);
}

/* IBA annex A14: an XRC target answers with XRC's response opcodes */
TEST(resp_opcode_per_qp_type)
{
	static const u8 rc_resp[] = { 0x0d, 0x0e, 0x0f, 0x10, 0x11, 0x12 };
	size_t i;

	for (i = 0; i < ARRAY_SIZE(rc_resp); i++) {
		u8 x = sroce_resp_opcode(SROCE_QPT_XRC_TGT, rc_resp[i]);

		EXPECT_EQ(sroce_resp_opcode(SROCE_QPT_RC, rc_resp[i]),
			  rc_resp[i]);
		EXPECT_EQ(x, rc_resp[i] + 0xa0);
		EXPECT_EQ(sroce_opcode_qpt(x), SROCE_QPT_XRC_INI);
		EXPECT_EQ(sroce_opcode_get(x)->mask,
			  sroce_opcode_get(rc_resp[i])->mask);
	}
}

TEST(pkt_pos_helper)
{
	ASSERT_EQ(sroce_pkt_pos(true, true), SROCE_POS_ONLY);
	ASSERT_EQ(sroce_pkt_pos(true, false), SROCE_POS_FIRST);
	ASSERT_EQ(sroce_pkt_pos(false, false), SROCE_POS_MIDDLE);
	ASSERT_EQ(sroce_pkt_pos(false, true), SROCE_POS_LAST);
}

/* seed-rules R3.4: "bad payload length" (IBA C9-92) */
TEST(req_len_ok)
{
	const u32 m = 1024;
	u32 first = sroce_opcode_get(0x00)->mask, middle = sroce_opcode_get(0x01)->mask;
	u32 last = sroce_opcode_get(0x02)->mask, only = sroce_opcode_get(0x04)->mask;
	u32 read = sroce_opcode_get(0x0c)->mask, wfirst = sroce_opcode_get(0x06)->mask;

	EXPECT_TRUE(sroce_req_len_ok(first, m, m));
	EXPECT_FALSE(sroce_req_len_ok(first, m - 4, m));
	EXPECT_FALSE(sroce_req_len_ok(first, m + 4, m));
	EXPECT_TRUE(sroce_req_len_ok(middle, m, m));
	EXPECT_FALSE(sroce_req_len_ok(middle, 64, m));
	EXPECT_TRUE(sroce_req_len_ok(wfirst, m, m));
	EXPECT_FALSE(sroce_req_len_ok(wfirst, 0, m));
	EXPECT_TRUE(sroce_req_len_ok(last, 1, m));
	EXPECT_TRUE(sroce_req_len_ok(last, m, m));
	EXPECT_FALSE(sroce_req_len_ok(last, 0, m));
	EXPECT_FALSE(sroce_req_len_ok(last, m + 1, m));
	EXPECT_TRUE(sroce_req_len_ok(only, 0, m));
	EXPECT_TRUE(sroce_req_len_ok(only, m, m));
	EXPECT_FALSE(sroce_req_len_ok(only, m + 4, m));
	EXPECT_TRUE(sroce_req_len_ok(read, 0, m));
	EXPECT_FALSE(sroce_req_len_ok(read, 4, m));
}
