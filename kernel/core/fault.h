/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * fault.h - deterministic packet-loss rules for tests (Documentation/
 * fault-injection.md): which RoCEv2 packets a rule drops.
 *
 * A rule matches on BTH opcode, BTH PSN and, for packets with an AETH, the
 * AETH type (ACK, RNR NAK, NAK); it lets the first @skip matching packets
 * through, then drops the next @drop ones, then matches nothing more.
 * The caller owns locking; this is pure arithmetic on the rule.
 */
#ifndef SROCE_CORE_FAULT_H
#define SROCE_CORE_FAULT_H

#include "core_types.h"

#define SROCE_FAULT_ANY		(-1)

/* AETH classes a rule may ask for (field "aeth"). */
enum sroce_fault_aeth {
	SROCE_FAULT_AETH_ANY,	/* any packet, with or without AETH */
	SROCE_FAULT_AETH_ACK,	/* AETH type ACK */
	SROCE_FAULT_AETH_RNR,	/* AETH type RNR NAK */
	SROCE_FAULT_AETH_NAK,	/* AETH type NAK (sequence error or error) */
};

/**
 * struct sroce_fault_rule - one drop rule
 * @opcode: BTH opcode to match, or SROCE_FAULT_ANY
 * @psn:    BTH PSN (24 bits) to match, or SROCE_FAULT_ANY
 * @aeth:   enum sroce_fault_aeth
 * @skip:   matching packets still to let through
 * @drop:   matching packets still to drop after those (0: rule spent)
 */
struct sroce_fault_rule {
	s32 opcode;
	s32 psn;
	u8 aeth;
	u32 skip;
	u32 drop;
};

/**
 * sroce_fault_match() - apply @rule to one packet
 * @rule: the rule; its @skip/@drop counters are consumed
 * @bth:  first BTH byte of the packet
 * @len:  readable bytes from @bth
 *
 * Return: true if the packet is to be dropped. A packet too short to
 * have the fields the rule looks at does not match.
 */
bool sroce_fault_match(struct sroce_fault_rule *rule, const u8 *bth, u32 len);

#endif /* SROCE_CORE_FAULT_H */
