// SPDX-License-Identifier: GPL-2.0-only
/* Host tests for kernel/core/psn.h: 24-bit PSN arithmetic, seed-rules R2.8. */
#include "harness.h"
#include "psn.h"

TEST(psn_constants)
{
	ASSERT_EQ(SROCE_PSN_MASK, 0xffffffUL);
	ASSERT_EQ(SROCE_PSN_SPACE, 0x1000000UL);
	ASSERT_EQ(SROCE_PSN_HALF, 0x800000UL);
	ASSERT_EQ(psn_mask(0xab123456), 0x123456U);
}

/* seed-rules R2.8: PSNs are 24 bits and wrap */
TEST(psn_add_sub_wrap)
{
	ASSERT_EQ(psn_add(0, 1), 1U);
	ASSERT_EQ(psn_add(0xffffff, 1), 0U);
	ASSERT_EQ(psn_add(0xfffffe, 5), 3U);
	ASSERT_EQ(psn_add(0x123456, 0x1000000), 0x123456U);
	ASSERT_EQ(psn_sub(0, 1), 0xffffffU);
	ASSERT_EQ(psn_sub(3, 5), 0xfffffeU);
	ASSERT_EQ(psn_add(0x1ffffff, 1), 0U);	/* high input bits ignored */
}

TEST(psn_diff_basic)
{
	ASSERT_EQ(psn_diff(1, 0), 1);
	ASSERT_EQ(psn_diff(0, 1), -1);
	ASSERT_EQ(psn_diff(5, 5), 0);
	ASSERT_EQ(psn_diff(0, 0xffffff), 1);	/* across the wrap */
	ASSERT_EQ(psn_diff(0xffffff, 0), -1);
	ASSERT_EQ(psn_diff(2, 0xfffffe), 4);
	ASSERT_EQ(psn_diff(0x1000005, 5), 0);
}

/* seed-rules R2.8: more than half the PSN space ahead is old */
TEST(psn_diff_half_space)
{
	ASSERT_EQ(psn_diff(0x800000, 0), 0x800000);	/* exactly half: ahead */
	ASSERT_EQ(psn_diff(0x800001, 0), -0x7fffff);	/* beyond: behind */
	ASSERT_EQ(psn_diff(0x7fffff, 0), 0x7fffff);
	ASSERT_EQ(psn_diff(0xffffff, 0), -1);
	ASSERT_TRUE(psn_before(0x800001, 0));
	ASSERT_TRUE(psn_after(0x800000, 0));
	ASSERT_TRUE(psn_after(0x7fffff, 0));
	/* same relation anywhere on the circle */
	ASSERT_EQ(psn_diff(0x7fffff, 0xffffff), 0x800000);
	ASSERT_EQ(psn_diff(0x800000, 0xffffff), -0x7fffff);
}

TEST(psn_diff_range_property)
{
	int i;

	for (i = 0; i < 200000; i++) {
		u32 a = harness_rand() & 0xffffff;
		u32 b = harness_rand() & 0xffffff;
		s32 d = psn_diff(a, b);

		ASSERT_GT(d, -0x800000);
		ASSERT_LE(d, 0x800000);
		ASSERT_EQ(psn_add(b, (u32)d), a);
	}
	for (i = 0; i < 200000; i++) {
		u32 a = harness_rand() & 0xffffff;
		s32 d = (s32)(harness_rand() % 0x1000000) - 0x7fffff;

		ASSERT_EQ(psn_diff(psn_add(a, (u32)d), a), d);
	}
}

TEST(psn_cmp_before_after)
{
	ASSERT_EQ(psn_cmp(1, 0), 1);
	ASSERT_EQ(psn_cmp(0, 1), -1);
	ASSERT_EQ(psn_cmp(7, 7), 0);
	ASSERT_EQ(psn_cmp(0, 0xffffff), 1);
	ASSERT_TRUE(psn_before(0xfffff0, 0x10));
	ASSERT_FALSE(psn_after(0xfffff0, 0x10));
	ASSERT_TRUE(psn_after(0x10, 0xfffff0));
	ASSERT_FALSE(psn_before(9, 9));
	ASSERT_FALSE(psn_after(9, 9));
}

TEST(psn_in_range_wrap)
{
	ASSERT_TRUE(psn_in_range(0xfffffe, 0xfffffe, 3));
	ASSERT_TRUE(psn_in_range(0xffffff, 0xfffffe, 3));
	ASSERT_TRUE(psn_in_range(0, 0xfffffe, 3));
	ASSERT_TRUE(psn_in_range(3, 0xfffffe, 3));
	ASSERT_FALSE(psn_in_range(4, 0xfffffe, 3));
	ASSERT_FALSE(psn_in_range(0xfffffd, 0xfffffe, 3));
	ASSERT_TRUE(psn_in_range(10, 10, 10));
	ASSERT_FALSE(psn_in_range(11, 10, 10));
}

/*
 * seed-rules R2.8, R2.6: at the responder the PSN half the space away is
 * in the duplicate region: a 2^31-byte READ at MTU 256 uses 2^23 PSNs, and
 * its request sent again must be answered as a duplicate, not NAKed as a
 * sequence error for ever.
 */
TEST(psn_resp_diff_regions)
{
	ASSERT_EQ(psn_resp_diff(5, 5), 0);
	ASSERT_EQ(psn_resp_diff(6, 5), 1);
	ASSERT_EQ(psn_resp_diff(4, 5), -1);
	ASSERT_EQ(psn_resp_diff(0x7fffff, 0), 0x7fffff);	/* last invalid */
	ASSERT_EQ(psn_resp_diff(0x800000, 0), -0x800000);	/* first duplicate */
	ASSERT_EQ(psn_resp_diff(0, 0x800000), -0x800000);	/* the READ case */
	ASSERT_EQ(psn_resp_diff(0xfffff0 + 0x800000, 0xfffff0), -0x800000);
	ASSERT_GT(psn_diff(0x800000, 0), 0);	/* the requester's view stays */
}
