/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * aeth.h - AETH syndrome encode/decode, credit table, RNR timer table
 * (IBA 9.7.5.1, tables 43-45; seed-rules R2.4, R2.10).
 *
 * Syndrome byte: bit 7 reserved (0), bits 6:5 type, bits 4:0 value:
 *   00 ACK      value = credit count code
 *   01 RNR NAK  value = RNR timer code
 *   10          reserved
 *   11 NAK      value = NAK code
 */
#ifndef SROCE_CORE_AETH_H
#define SROCE_CORE_AETH_H

#include "core_types.h"

#define SROCE_AETH_SYN_RESV	BIT(7)
#define SROCE_AETH_SYN_TYPE	GENMASK(6, 5)
#define SROCE_AETH_SYN_VAL	GENMASK(4, 0)

enum sroce_aeth_type {
	SROCE_AETH_ACK = 0,
	SROCE_AETH_RNR_NAK = 1,
	SROCE_AETH_RESERVED = 2,
	SROCE_AETH_NAK = 3,
};

enum sroce_nak_code {
	SROCE_NAK_PSN_SEQ_ERR = 0,
	SROCE_NAK_INV_REQ = 1,
	SROCE_NAK_REM_ACCESS = 2,
	SROCE_NAK_REM_OP = 3,
	SROCE_NAK_INV_RD_REQ = 4,
	SROCE_NAK_CODE_COUNT
};

/* Credit code meaning "no credit information" (e.g. SRQ, R2.10). */
#define SROCE_AETH_CREDIT_INVALID	0x1f
#define SROCE_AETH_CREDIT_MAX_CODE	0x1e
#define SROCE_CREDITS_UNLIMITED		U32_MAX
#define SROCE_RNR_TIMER_CODES		32

/**
 * struct sroce_aeth_syndrome - decoded syndrome
 * @type:  ACK, RNR NAK or NAK
 * @value: credit code (ACK), RNR timer code (RNR NAK), or
 *         enum sroce_nak_code (NAK)
 */
struct sroce_aeth_syndrome {
	enum sroce_aeth_type type;
	u8 value;
};

u8 sroce_aeth_syn_ack(u8 credit_code);
u8 sroce_aeth_syn_rnr(u8 timer_code);
u8 sroce_aeth_syn_nak(enum sroce_nak_code code);

/**
 * sroce_aeth_decode() - split a syndrome byte
 *
 * Return: 0, or -EINVAL for a set reserved bit, the reserved type, or a
 * reserved NAK code (5..31); @out is filled in every case.
 */
int sroce_aeth_decode(u8 syn, struct sroce_aeth_syndrome *out);

/* Credit count code <-> number of receive WQEs (IBA table 45). */
u32 sroce_credits_from_code(u8 code);	/* 0x1f -> SROCE_CREDITS_UNLIMITED */
u8 sroce_credits_to_code(u32 n);	/* largest code not above @n */

/*
 * RNR NAK timer code -> delay in ns; code 0 is 655.36 ms (R2.4).  Only
 * the low 5 bits of @code are used (the wire field is 5 bits).
 */
u64 sroce_rnr_timer_ns(u8 code);
/* Smallest-delay code that waits at least @ns (code 0 if none shorter). */
u8 sroce_rnr_code_for_ns(u64 ns);

#endif /* SROCE_CORE_AETH_H */
