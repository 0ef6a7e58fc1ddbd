// SPDX-License-Identifier: GPL-2.0-only
/*
 * timers.c - local ACK timeout values and retry counter rules.
 */
#include "timers.h"

u64 sroce_ack_timeout_ns(u8 timeout)
{
	if (!timeout)
		return SROCE_TIMEOUT_INFINITE;
	timeout = min_t(u8, timeout, SROCE_TIMEOUT_MAX);
	return SROCE_TIMEOUT_BASE_NS << timeout;
}

u64 sroce_ack_timeout_max_ns(u8 timeout)
{
	u64 t = sroce_ack_timeout_ns(timeout);

	return t == SROCE_TIMEOUT_INFINITE ? t : t * 4;
}

u8 sroce_ack_delay_code(u64 ns)
{
	u8 t;

	for (t = 0; t < SROCE_TIMEOUT_MAX; t++)
		if ((SROCE_TIMEOUT_BASE_NS << t) >= ns)
			return t;
	return SROCE_TIMEOUT_MAX;
}

bool sroce_retry_take(enum sroce_retry_cause cause, u8 remaining, u8 *next)
{
	if (remaining > SROCE_RETRY_CNT_MAX)
		return false;

	switch (cause) {
	case SROCE_RETRY_RNR:
		if (remaining == SROCE_RNR_RETRY_INFINITE) {
			*next = remaining;
			return true;
		}
		break;
	case SROCE_RETRY_TIMEOUT:
	case SROCE_RETRY_SEQ_NAK:
		/* 7 is a count here, not "infinite" (unlike rxe). */
		break;
	default:
		return false;
	}

	if (!remaining)
		return false;
	*next = remaining - 1;
	return true;
}
