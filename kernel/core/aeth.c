// SPDX-License-Identifier: GPL-2.0-only
/*
 * aeth.c - AETH syndromes, the end-to-end credit table and the RNR timer
 * table.  Values from IBA tables 44/45 and seed-rules R2.4.
 */
#include "aeth.h"

/* Credit count code -> receive WQEs (rdmavt credit_table, IBA table 45). */
static const u16 credit_table[SROCE_AETH_CREDIT_MAX_CODE + 1] = {
	0, 1, 2, 3, 4, 6, 8, 12,
	16, 24, 32, 48, 64, 96, 128, 192,
	256, 384, 512, 768, 1024, 1536, 2048, 3072,
	4096, 6144, 8192, 12288, 16384, 24576, 32768
};

/* RNR NAK timer code -> ns (seed-rules R2.4, IBA table 44). */
static const u32 rnr_timer_ns[SROCE_RNR_TIMER_CODES] = {
	655360000,	/* 0: 655.36 ms */
	10000,		/* 1: 0.01 ms */
	20000,
	30000,
	40000,
	60000,
	80000,
	120000,
	160000,
	240000,
	320000,		/* 10 */
	480000,
	640000,
	960000,
	1280000,
	1920000,
	2560000,
	3840000,
	5120000,
	7680000,
	10240000,	/* 20 */
	15360000,
	20480000,
	30720000,
	40960000,
	61440000,
	81920000,
	122880000,
	163840000,
	245760000,
	327680000,	/* 30 */
	491520000,	/* 31: 491.52 ms */
};

static u8 make_syn(enum sroce_aeth_type type, u8 value)
{
	return FIELD_PREP(SROCE_AETH_SYN_TYPE, type) |
	       FIELD_PREP(SROCE_AETH_SYN_VAL, value);
}

u8 sroce_aeth_syn_ack(u8 credit_code)
{
	return make_syn(SROCE_AETH_ACK, credit_code);
}

u8 sroce_aeth_syn_rnr(u8 timer_code)
{
	return make_syn(SROCE_AETH_RNR_NAK, timer_code);
}

u8 sroce_aeth_syn_nak(enum sroce_nak_code code)
{
	return make_syn(SROCE_AETH_NAK, code);
}

int sroce_aeth_decode(u8 syn, struct sroce_aeth_syndrome *out)
{
	out->type = FIELD_GET(SROCE_AETH_SYN_TYPE, syn);
	out->value = FIELD_GET(SROCE_AETH_SYN_VAL, syn);

	if (syn & SROCE_AETH_SYN_RESV)
		return -EINVAL;
	if (out->type == SROCE_AETH_RESERVED)
		return -EINVAL;
	if (out->type == SROCE_AETH_NAK && out->value >= SROCE_NAK_CODE_COUNT)
		return -EINVAL;
	return 0;
}

u32 sroce_credits_from_code(u8 code)
{
	if (code > SROCE_AETH_CREDIT_MAX_CODE)
		return SROCE_CREDITS_UNLIMITED;
	return credit_table[code];
}

u8 sroce_credits_to_code(u32 n)
{
	unsigned int lo = 0, hi = SROCE_AETH_CREDIT_MAX_CODE, mid;

	/* Binary search for the largest code whose credit is <= n. */
	while (lo < hi) {
		mid = (lo + hi + 1) / 2;
		if (credit_table[mid] <= n)
			lo = mid;
		else
			hi = mid - 1;
	}
	return lo;
}

u64 sroce_rnr_timer_ns(u8 code)
{
	return rnr_timer_ns[code & (SROCE_RNR_TIMER_CODES - 1)];
}

u8 sroce_rnr_code_for_ns(u64 ns)
{
	unsigned int code;

	/* Codes 1..31 are increasing; code 0 is the longest of all. */
	for (code = 1; code < SROCE_RNR_TIMER_CODES; code++)
		if (rnr_timer_ns[code] >= ns)
			return code;
	return 0;
}
