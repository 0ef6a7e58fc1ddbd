/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * timers.h - local ACK timeout and retry counter rules
 * (IBA 9.7.6.1, seed-rules R2.2, R2.3, R2.4, R2.5).
 *
 * Pure arithmetic: the engines own the actual timers.
 */
#ifndef SROCE_CORE_TIMERS_H
#define SROCE_CORE_TIMERS_H

#include "core_types.h"

#define SROCE_TIMEOUT_BITS	5
#define SROCE_TIMEOUT_MAX	31
#define SROCE_TIMEOUT_BASE_NS	4096ULL		/* 4.096 us */
/* timeout == 0: no local ACK timer at all (R2.2). */
#define SROCE_TIMEOUT_INFINITE	U64_MAX

#define SROCE_RETRY_CNT_MAX	7
#define SROCE_RNR_RETRY_INFINITE 7		/* R2.4 */

/*
 * sroce_ack_timeout_ns - T = 4.096 us * 2^@timeout, or
 * SROCE_TIMEOUT_INFINITE for 0 (R2.2).  Values above 31 are clamped to 31.
 */
u64 sroce_ack_timeout_ns(u8 timeout);

/*
 * sroce_ack_timeout_max_ns - the IBA upper bound 4T for the same code
 * (an implementation may fire anywhere in [T, 4T], R2.2).
 */
u64 sroce_ack_timeout_max_ns(u8 timeout);

/*
 * sroce_ack_delay_code - smallest exponent e in 0..31 such that
 * 4.096 us * 2^e is at least @ns; 31 if none is.  local_ca_ack_delay is
 * this of the real timer resolution (R2.3).  Unlike a timeout code, 0 here
 * means 4.096 us, not "infinite".
 */
u8 sroce_ack_delay_code(u64 ns);

/* Which counter a retry is charged to. */
enum sroce_retry_cause {
	SROCE_RETRY_TIMEOUT,	/* local ACK timeout: retry_cnt (R2.2) */
	SROCE_RETRY_SEQ_NAK,	/* PSN sequence error NAK: retry_cnt (R2.5) */
	SROCE_RETRY_RNR,	/* RNR NAK: rnr_retry, 7 = infinite (R2.4) */
};

/**
 * sroce_retry_take() - may another retry happen, and what is left after it
 * @cause:     what triggered the retry
 * @remaining: the counter's current value (0..7)
 * @next:      set to the value after this retry when one is allowed
 *
 * retry_cnt is counted exactly: 7 means seven retries, 0 means none.
 * rnr_retry 7 means retry forever and never decrements.
 *
 * Return: true if the retry is allowed; false when the counter is
 * exhausted (the WR completes with RETRY_EXC_ERR / RNR_RETRY_EXC_ERR)
 * or @remaining/@cause is out of range.
 */
bool sroce_retry_take(enum sroce_retry_cause cause, u8 remaining, u8 *next);

#endif /* SROCE_CORE_TIMERS_H */
