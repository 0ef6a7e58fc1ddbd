// SPDX-License-Identifier: GPL-2.0-only
/*
 * cnp.c - RoCEv2 CNP building, validation and the notification point's
 * interval (cnp.h).
 */
#include "cnp.h"
#include "opcode.h"
#include "parse.h"

int sroce_cnp_build(u8 *buf, size_t room, u16 pkey, u32 dqpn)
{
	if (dqpn > FIELD_MAX(SROCE_BTH_QPN) || dqpn == SROCE_QPN_MULTICAST)
		return -EINVAL;
	if (room < SROCE_CNP_LEN - SROCE_ICRC_LEN)
		return -ENOSPC;
	memset(buf, 0, SROCE_CNP_LEN - SROCE_ICRC_LEN);
	sroce_bth_set_opcode(buf, SROCE_OP_CNP);
	sroce_bth_set_pkey(buf, pkey);
	/* A17.9.2: BECN set; PSN, AckReq, SE, pad and TVer zero */
	sroce_bth_set_becn(buf, true);
	sroce_bth_set_qpn(buf, dqpn);
	return SROCE_CNP_LEN - SROCE_ICRC_LEN;
}

int sroce_cnp_parse(const u8 *buf, size_t len, u32 *dqpn)
{
	if (len < SROCE_BTH_LEN)
		return -SROCE_PARSE_ERR_TOO_SHORT;
	if (sroce_bth_opcode(buf) != SROCE_OP_CNP)
		return -SROCE_PARSE_ERR_OPCODE_UNKNOWN;
	if (sroce_bth_tver(buf) != SROCE_BTH_TVER_IBA)
		return -SROCE_PARSE_ERR_TVER;
	if (len < SROCE_CNP_LEN)
		return -SROCE_PARSE_ERR_HDR_TRUNC;
	if (len > SROCE_CNP_LEN)
		return -SROCE_PARSE_ERR_UNEXPECTED_PAYLOAD;
	/*
	 * BECN and the reserved bytes are not checked: a receiver ignores
	 * reserved fields, and the opcode alone makes a CNP.
	 */
	*dqpn = sroce_bth_qpn(buf);
	return 0;
}

bool sroce_cnp_due(u64 now, u64 last, u64 interval)
{
	s64 since = (s64)(now - last);

	if (!last)
		return true;
	return since >= 0 && (u64)since >= interval;
}
