/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * harness.h - a tiny kselftest_harness-like unit test framework for the
 * host build of kernel/core/.
 *
 *	TEST(name) { ASSERT_EQ(a, b); EXPECT_TRUE(x); ... }
 *
 * Tests register themselves (constructor) and run in definition order.
 * Output is KTAP/TAP 13: "TAP version 13", "1..N", "ok N name" or
 * "not ok N name" with "# " diagnostics, then exactly
 * "# host: P passed, F failed".  The process exits 1 if anything failed.
 *
 * ASSERT_* stops the current test, EXPECT_* records the failure and
 * continues.  A WARN_ON_ONCE() hit inside the core fails the test unless
 * the test called EXPECT_WARN() first.
 */
#ifndef SROCE_HOST_HARNESS_H
#define SROCE_HOST_HARNESS_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "host_shim.h"

#define HARNESS_MAX_TESTS	256

struct harness_test {
	const char *name;
	void (*fn)(void);
};

static struct harness_test harness_tests[HARNESS_MAX_TESTS];
static int harness_ntests;
static int harness_cur_failed;
static int harness_cur_expect_warn;

static inline void harness_register(const char *name, void (*fn)(void))
{
	if (harness_ntests >= HARNESS_MAX_TESTS) {
		fprintf(stderr, "harness: too many tests\n");
		exit(2);
	}
	harness_tests[harness_ntests].name = name;
	harness_tests[harness_ntests].fn = fn;
	harness_ntests++;
}

#define TEST(name)							\
	static void test_##name(void);					\
	static void __attribute__((constructor)) reg_##name(void)	\
	{								\
		harness_register(#name, test_##name);			\
	}								\
	static void test_##name(void)

#define EXPECT_WARN()	(harness_cur_expect_warn = 1)

/* Diagnostic line inside a test. */
#define TH_LOG(fmt, ...)						\
	printf("# %s:%d: " fmt "\n", __FILE__, __LINE__, ##__VA_ARGS__)

/* Integers compare by mathematical value (via __int128), any signedness. */
#define __HARNESS_CMP(a, b, op, is_assert)				\
	do {								\
		__typeof__(a) __a = (a);				\
		__typeof__(b) __b = (b);				\
		if (!((__int128)__a op (__int128)__b)) {		\
			harness_cur_failed = 1;				\
			TH_LOG("%s(%s " #op " %s) failed: %lld (0x%llx)" \
			       " vs %lld (0x%llx)",			\
			       (is_assert) ? "ASSERT" : "EXPECT",	\
			       #a, #b, (long long)__a,			\
			       (unsigned long long)__a, (long long)__b,	\
			       (unsigned long long)__b);		\
			if (is_assert)					\
				return;					\
		}							\
	} while (0)

#define ASSERT_EQ(a, b)		__HARNESS_CMP(a, b, ==, 1)
#define ASSERT_NE(a, b)		__HARNESS_CMP(a, b, !=, 1)
#define ASSERT_LT(a, b)		__HARNESS_CMP(a, b, <, 1)
#define ASSERT_LE(a, b)		__HARNESS_CMP(a, b, <=, 1)
#define ASSERT_GT(a, b)		__HARNESS_CMP(a, b, >, 1)
#define ASSERT_GE(a, b)		__HARNESS_CMP(a, b, >=, 1)
#define EXPECT_EQ(a, b)		__HARNESS_CMP(a, b, ==, 0)
#define EXPECT_NE(a, b)		__HARNESS_CMP(a, b, !=, 0)
#define EXPECT_LT(a, b)		__HARNESS_CMP(a, b, <, 0)
#define EXPECT_LE(a, b)		__HARNESS_CMP(a, b, <=, 0)
#define EXPECT_GT(a, b)		__HARNESS_CMP(a, b, >, 0)
#define EXPECT_GE(a, b)		__HARNESS_CMP(a, b, >=, 0)
#define ASSERT_TRUE(x)		__HARNESS_CMP(!!(x), 1, ==, 1)
#define ASSERT_FALSE(x)		__HARNESS_CMP(!!(x), 0, ==, 1)
#define EXPECT_TRUE(x)		__HARNESS_CMP(!!(x), 1, ==, 0)
#define EXPECT_FALSE(x)		__HARNESS_CMP(!!(x), 0, ==, 0)

#define __HARNESS_STR(a, b, is_assert)					\
	do {								\
		const char *__a = (a), *__b = (b);			\
		if (!__a || !__b || strcmp(__a, __b)) {			\
			harness_cur_failed = 1;				\
			TH_LOG("%s_STREQ(%s, %s) failed: \"%s\" vs \"%s\"", \
			       (is_assert) ? "ASSERT" : "EXPECT", #a, #b, \
			       __a ? __a : "(null)", __b ? __b : "(null)"); \
			if (is_assert)					\
				return;					\
		}							\
	} while (0)

#define ASSERT_STREQ(a, b)	__HARNESS_STR(a, b, 1)
#define EXPECT_STREQ(a, b)	__HARNESS_STR(a, b, 0)

#define __HARNESS_MEM(a, b, n, is_assert)				\
	do {								\
		if (memcmp((a), (b), (n))) {				\
			harness_cur_failed = 1;				\
			TH_LOG("%s_MEMEQ(%s, %s, %s) failed",		\
			       (is_assert) ? "ASSERT" : "EXPECT", #a, #b, #n); \
			harness_hexdump("got ", (a), (n));		\
			harness_hexdump("want", (b), (n));		\
			if (is_assert)					\
				return;					\
		}							\
	} while (0)

#define ASSERT_MEMEQ(a, b, n)	__HARNESS_MEM(a, b, n, 1)
#define EXPECT_MEMEQ(a, b, n)	__HARNESS_MEM(a, b, n, 0)

static inline void harness_hexdump(const char *tag, const void *p, size_t n)
{
	const unsigned char *b = p;
	size_t i;

	printf("# %s:", tag);
	for (i = 0; i < n; i++)
		printf(" %02x", b[i]);
	printf("\n");
}

/* Deterministic PRNG for property tests (xorshift64*). */
static inline u64 harness_rand(void)
{
	static u64 s = 0x9e3779b97f4a7c15ULL;

	s ^= s >> 12;
	s ^= s << 25;
	s ^= s >> 27;
	return s * 0x2545f4914f6cdd1dULL;
}

#ifndef HARNESS_NO_MAIN
int main(void)
{
	int i, passed = 0, failed = 0;
	unsigned long warns;

	setvbuf(stdout, NULL, _IOLBF, 0);
	printf("TAP version 13\n");
	printf("1..%d\n", harness_ntests);
	for (i = 0; i < harness_ntests; i++) {
		harness_cur_failed = 0;
		harness_cur_expect_warn = 0;
		warns = host_warn_count;
		harness_tests[i].fn();
		if (host_warn_count != warns && !harness_cur_expect_warn) {
			printf("# unexpected WARN_ON_ONCE in the core\n");
			harness_cur_failed = 1;
		}
		if (harness_cur_failed) {
			failed++;
			printf("not ok %d %s\n", i + 1, harness_tests[i].name);
		} else {
			passed++;
			printf("ok %d %s\n", i + 1, harness_tests[i].name);
		}
	}
	printf("# host: %d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}
#endif

/* harness_fill - @len pseudo-random bytes from @seed (a fixed LCG). */
static inline void harness_fill(unsigned char *buf, size_t len,
				unsigned int seed)
{
	size_t i;

	for (i = 0; i < len; i++) {
		seed = seed * 1103515245 + 12345;
		buf[i] = seed >> 16;
	}
}

#endif /* SROCE_HOST_HARNESS_H */
