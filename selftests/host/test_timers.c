// SPDX-License-Identifier: GPL-2.0-only
/* Host tests for kernel/core/timers.c: seed-rules R2.2, R2.3, R2.4, R2.5. */
#include "harness.h"
#include "timers.h"

/* seed-rules R2.2: T = 4.096 us * 2^timeout, timeout 0 = infinite */
TEST(ack_timeout_table)
{
	u8 t;

	ASSERT_EQ(sroce_ack_timeout_ns(0), SROCE_TIMEOUT_INFINITE);
	ASSERT_EQ(SROCE_TIMEOUT_INFINITE, U64_MAX);
	ASSERT_EQ(sroce_ack_timeout_ns(1), 8192ULL);
	ASSERT_EQ(sroce_ack_timeout_ns(14), 67108864ULL);	/* 67.1 ms */
	ASSERT_EQ(sroce_ack_timeout_ns(18), 1073741824ULL);	/* 1.07 s */
	ASSERT_EQ(sroce_ack_timeout_ns(31), 8796093022208ULL);	/* 2.4 h */
	for (t = 1; t <= 31; t++)
		ASSERT_EQ(sroce_ack_timeout_ns(t), 4096ULL << t);
	/* wider-than-5-bit input clamps to 31 */
	ASSERT_EQ(sroce_ack_timeout_ns(32), 4096ULL << 31);
	ASSERT_EQ(sroce_ack_timeout_ns(255), 4096ULL << 31);
}

/* seed-rules R2.2: the spec allows T..4T */
TEST(ack_timeout_upper_bound)
{
	u8 t;

	ASSERT_EQ(sroce_ack_timeout_max_ns(0), SROCE_TIMEOUT_INFINITE);
	for (t = 1; t <= 31; t++)
		ASSERT_EQ(sroce_ack_timeout_max_ns(t), 4 * (4096ULL << t));
}

/* seed-rules R2.3: honest local_ca_ack_delay from the timer resolution */
TEST(ack_delay_code_for_resolution)
{
	ASSERT_EQ(sroce_ack_delay_code(0), 0);
	ASSERT_EQ(sroce_ack_delay_code(1), 0);	/* hrtimer, high resolution */
	ASSERT_EQ(sroce_ack_delay_code(4096), 0);
	ASSERT_EQ(sroce_ack_delay_code(4097), 1);
	ASSERT_EQ(sroce_ack_delay_code(8192), 1);
	ASSERT_EQ(sroce_ack_delay_code(8193), 2);
	ASSERT_EQ(sroce_ack_delay_code(1000000), 8);	/* 1 ms (HZ=1000) */
	ASSERT_EQ(sroce_ack_delay_code(4000000), 10);	/* 4 ms (HZ=250) */
	ASSERT_EQ(sroce_ack_delay_code(10000000), 12);	/* 10 ms (HZ=100) */
	ASSERT_EQ(sroce_ack_delay_code(4096ULL << 31), 31);
	ASSERT_EQ(sroce_ack_delay_code(U64_MAX), 31);
}

static int count_retries(enum sroce_retry_cause cause, u8 start, int cap)
{
	u8 left = start, next = 0xee;
	int n = 0;

	while (n < cap && sroce_retry_take(cause, left, &next)) {
		left = next;
		n++;
	}
	return n;
}

/* seed-rules R2.2: retry_cnt 0..7 is an exact count; 7 is NOT infinite */
TEST(retry_cnt_exact)
{
	u8 c;

	for (c = 0; c <= 7; c++) {
		ASSERT_EQ(count_retries(SROCE_RETRY_TIMEOUT, c, 100), c);
		/* R2.5: sequence-error resends use the same counter */
		ASSERT_EQ(count_retries(SROCE_RETRY_SEQ_NAK, c, 100), c);
	}
}

/* seed-rules R2.2: retry_cnt = 0 means send once, wait once, then fail */
TEST(retry_cnt_zero)
{
	u8 next = 0xee;

	ASSERT_FALSE(sroce_retry_take(SROCE_RETRY_TIMEOUT, 0, &next));
	ASSERT_EQ(next, 0xee);
	ASSERT_TRUE(sroce_retry_take(SROCE_RETRY_TIMEOUT, 7, &next));
	ASSERT_EQ(next, 6);
}

/* seed-rules R2.4: rnr_retry 7 means infinite */
TEST(rnr_retry_infinite)
{
	u8 next = 0;
	u8 c;

	ASSERT_EQ(count_retries(SROCE_RETRY_RNR, 7, 100000), 100000);
	ASSERT_TRUE(sroce_retry_take(SROCE_RETRY_RNR, 7, &next));
	ASSERT_EQ(next, 7);
	for (c = 0; c < 7; c++)
		ASSERT_EQ(count_retries(SROCE_RETRY_RNR, c, 100), c);
}

TEST(retry_invalid_inputs)
{
	u8 next = 0xee;

	ASSERT_FALSE(sroce_retry_take(SROCE_RETRY_TIMEOUT, 8, &next));
	ASSERT_FALSE(sroce_retry_take(SROCE_RETRY_RNR, 8, &next));
	ASSERT_FALSE(sroce_retry_take((enum sroce_retry_cause)9, 3, &next));
	ASSERT_EQ(next, 0xee);
}
