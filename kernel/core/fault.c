// SPDX-License-Identifier: GPL-2.0-only
/*
 * fault.c - deterministic packet-loss rules for tests.
 */
#include "fault.h"
#include "aeth.h"
#include "bth.h"
#include "opcode.h"

/* Does the packet's AETH (if any) belong to the class asked for? */
static bool sroce_fault_aeth_ok(u8 want, const u8 *bth, u32 len)
{
	const struct sroce_opcode_info *info = sroce_opcode_get(bth[0]);
	struct sroce_aeth_syndrome s;

	if (want == SROCE_FAULT_AETH_ANY)
		return true;
	/* The AETH, when present, directly follows the BTH. */
	if (!info || !(info->mask & SROCE_M_AETH) || len < SROCE_BTH_LEN + 4)
		return false;
	sroce_aeth_decode(bth[SROCE_BTH_LEN], &s);
	switch (want) {
	case SROCE_FAULT_AETH_ACK:
		return s.type == SROCE_AETH_ACK;
	case SROCE_FAULT_AETH_RNR:
		return s.type == SROCE_AETH_RNR_NAK;
	case SROCE_FAULT_AETH_NAK:
		return s.type == SROCE_AETH_NAK;
	default:
		return false;
	}
}

bool sroce_fault_match(struct sroce_fault_rule *rule, const u8 *bth, u32 len)
{
	if (!rule->drop || len < SROCE_BTH_LEN)
		return false;
	if (rule->opcode != SROCE_FAULT_ANY && bth[0] != (u8)rule->opcode)
		return false;
	if (rule->psn != SROCE_FAULT_ANY &&
	    sroce_bth_psn(bth) != ((u32)rule->psn & SROCE_BTH_PSN))
		return false;
	if (!sroce_fault_aeth_ok(rule->aeth, bth, len))
		return false;
	if (rule->skip) {
		rule->skip--;
		return false;
	}
	rule->drop--;
	return true;
}
