// SPDX-License-Identifier: GPL-2.0-only
/* Host tests for kernel/core/fault.c: the test-only drop rules. */
#include "harness.h"
#include "aeth.h"
#include "bth.h"
#include "fault.h"
#include "opcode.h"

static void mk_pkt(u8 *p, u8 opcode, u32 psn, u8 syn)
{
	memset(p, 0, 16);
	p[0] = opcode;
	p[9] = psn >> 16;
	p[10] = psn >> 8;
	p[11] = psn;
	p[12] = syn;	/* AETH syndrome, when the opcode has an AETH */
}

TEST(fault_skip_then_drop_then_spent)
{
	struct sroce_fault_rule r = {
		.opcode = SROCE_OP_RC_SEND_MIDDLE, .psn = SROCE_FAULT_ANY,
		.skip = 2, .drop = 2,
	};
	u8 p[16];
	int i, dropped = 0;

	mk_pkt(p, SROCE_OP_RC_SEND_MIDDLE, 5, 0);
	for (i = 0; i < 6; i++)
		dropped |= sroce_fault_match(&r, p, sizeof(p)) << i;
	ASSERT_EQ(dropped, 0x0c);	/* the third and fourth */
	ASSERT_EQ(r.drop, 0);
	ASSERT_EQ(r.skip, 0);
}

TEST(fault_opcode_and_psn)
{
	struct sroce_fault_rule r = {
		.opcode = SROCE_FAULT_ANY, .psn = 0xfffffe, .drop = 1,
	};
	u8 p[16];

	mk_pkt(p, SROCE_OP_RC_SEND_FIRST, 0xfffffd, 0);
	ASSERT_FALSE(sroce_fault_match(&r, p, sizeof(p)));
	mk_pkt(p, SROCE_OP_RC_RDMA_WRITE_LAST, 0xfffffe, 0);
	ASSERT_TRUE(sroce_fault_match(&r, p, sizeof(p)));
	ASSERT_FALSE(sroce_fault_match(&r, p, sizeof(p)));	/* spent */

	r = (struct sroce_fault_rule){ .opcode = SROCE_OP_RC_RDMA_READ_REQUEST,
				       .psn = SROCE_FAULT_ANY, .drop = 1 };
	mk_pkt(p, SROCE_OP_RC_SEND_ONLY, 1, 0);
	ASSERT_FALSE(sroce_fault_match(&r, p, sizeof(p)));
	mk_pkt(p, SROCE_OP_RC_RDMA_READ_REQUEST, 1, 0);
	ASSERT_TRUE(sroce_fault_match(&r, p, sizeof(p)));
}

TEST(fault_aeth_class)
{
	struct sroce_fault_rule r = {
		.opcode = SROCE_FAULT_ANY, .psn = SROCE_FAULT_ANY,
		.aeth = SROCE_FAULT_AETH_NAK, .drop = 1,
	};
	u8 p[16];

	mk_pkt(p, SROCE_OP_RC_ACKNOWLEDGE, 7, sroce_aeth_syn_ack(3));
	ASSERT_FALSE(sroce_fault_match(&r, p, sizeof(p)));
	mk_pkt(p, SROCE_OP_RC_ACKNOWLEDGE, 7, sroce_aeth_syn_rnr(12));
	ASSERT_FALSE(sroce_fault_match(&r, p, sizeof(p)));
	/* a request has no AETH: byte 12 is not looked at */
	mk_pkt(p, SROCE_OP_RC_SEND_ONLY, 7, sroce_aeth_syn_nak(0));
	ASSERT_FALSE(sroce_fault_match(&r, p, sizeof(p)));
	mk_pkt(p, SROCE_OP_RC_ACKNOWLEDGE, 7, sroce_aeth_syn_nak(SROCE_NAK_PSN_SEQ_ERR));
	ASSERT_TRUE(sroce_fault_match(&r, p, sizeof(p)));

	r.aeth = SROCE_FAULT_AETH_RNR;
	r.drop = 1;
	mk_pkt(p, SROCE_OP_RC_ACKNOWLEDGE, 7, sroce_aeth_syn_rnr(12));
	ASSERT_TRUE(sroce_fault_match(&r, p, sizeof(p)));
	r.aeth = SROCE_FAULT_AETH_ACK;
	r.drop = 1;
	mk_pkt(p, SROCE_OP_RC_ATOMIC_ACKNOWLEDGE, 7, sroce_aeth_syn_ack(0x1f));
	ASSERT_TRUE(sroce_fault_match(&r, p, sizeof(p)));
}

TEST(fault_short_packet_never_matches)
{
	struct sroce_fault_rule r = {
		.opcode = SROCE_FAULT_ANY, .psn = SROCE_FAULT_ANY, .drop = 1,
	};
	u8 p[16];

	mk_pkt(p, SROCE_OP_RC_ACKNOWLEDGE, 7, 0);
	ASSERT_FALSE(sroce_fault_match(&r, p, SROCE_BTH_LEN - 1));
	r.aeth = SROCE_FAULT_AETH_ACK;
	ASSERT_FALSE(sroce_fault_match(&r, p, SROCE_BTH_LEN + 3));
	ASSERT_TRUE(sroce_fault_match(&r, p, SROCE_BTH_LEN + 4));
}
