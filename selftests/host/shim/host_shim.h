/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * host_shim.h - userspace stand-ins for the few kernel headers that
 * kernel/core/core_types.h pulls in (the tools/testing/vma trick).
 *
 * Only what the pure core uses lives here: fixed-width types, bit helpers,
 * byte order, unaligned access, crc32_le and a WARN_ON_ONCE that reports
 * and counts instead of splatting.  Nothing here may change semantics
 * compared to the kernel versions.
 */
#ifndef SROCE_HOST_SHIM_H
#define SROCE_HOST_SHIM_H

#include <endian.h>
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

typedef uint8_t u8;
typedef uint16_t u16;
typedef uint32_t u32;
typedef uint64_t u64;
typedef int8_t s8;
typedef int16_t s16;
typedef int32_t s32;
typedef int64_t s64;

/* No sparse on the host: the bitwise types are plain integers. */
#define __bitwise
#define __force
typedef u16 __be16;
typedef u32 __be32;
typedef u64 __be64;
typedef u16 __le16;
typedef u32 __le32;
typedef u64 __le64;

#define U8_MAX		((u8)~0U)
#define U16_MAX		((u16)~0U)
#define U32_MAX		((u32)~0U)
#define U64_MAX		((u64)~0ULL)
#define S32_MAX		((s32)(U32_MAX >> 1))
#define S32_MIN		((s32)(-S32_MAX - 1))

#define BITS_PER_LONG		(8 * (int)sizeof(long))
#define BITS_PER_LONG_LONG	64

#define BIT(nr)			(1UL << (nr))
#define BIT_ULL(nr)		(1ULL << (nr))
#define GENMASK(h, l) \
	(((~0UL) - (1UL << (l)) + 1) & (~0UL >> (BITS_PER_LONG - 1 - (h))))
#define GENMASK_ULL(h, l) \
	(((~0ULL) - (1ULL << (l)) + 1) & \
	 (~0ULL >> (BITS_PER_LONG_LONG - 1 - (h))))

#define __bf_shf(x)		(__builtin_ffsll(x) - 1)
#define FIELD_PREP(_mask, _val) \
	((typeof(_mask))(((typeof(_mask))(_val) << __bf_shf(_mask)) & (_mask)))
#define FIELD_GET(_mask, _reg) \
	((typeof(_mask))(((_reg) & (_mask)) >> __bf_shf(_mask)))
#define FIELD_MAX(_mask)	((typeof(_mask))((_mask) >> __bf_shf(_mask)))
#define FIELD_FIT(_mask, _val) \
	(!((((typeof(_mask))(_val)) << __bf_shf(_mask)) & ~(_mask)))

#define ARRAY_SIZE(arr)		(sizeof(arr) / sizeof((arr)[0]))
#define BUILD_BUG_ON(cond)	((void)sizeof(char[1 - 2 * !!(cond)]))
#define static_assert(expr, ...) _Static_assert(expr, #expr)

#define likely(x)		__builtin_expect(!!(x), 1)
#define unlikely(x)		__builtin_expect(!!(x), 0)
#ifndef __always_inline
#define __always_inline		inline __attribute__((__always_inline__))
#endif
#define __maybe_unused		__attribute__((__unused__))
#define __pure			__attribute__((__pure__))
#define fallthrough		__attribute__((__fallthrough__))

#define min(a, b)		((a) < (b) ? (a) : (b))
#define max(a, b)		((a) > (b) ? (a) : (b))
#define min_t(t, a, b)		((t)(a) < (t)(b) ? (t)(a) : (t)(b))
#define max_t(t, a, b)		((t)(a) > (t)(b) ? (t)(a) : (t)(b))

/* linux/math64.h */
static inline u64 div_u64(u64 dividend, u32 divisor) { return dividend / divisor; }
static inline u64 div64_u64(u64 dividend, u64 divisor) { return dividend / divisor; }

#define lower_32_bits(n)	((u32)((n) & 0xffffffff))
#define upper_32_bits(n)	((u32)(((u64)(n)) >> 32))

/*
 * WARN_ON_ONCE: the core only uses it for "cannot happen unless the caller
 * broke the contract".  On the host it prints once per site, counts every
 * hit in host_warn_count (tests and fuzzers assert it stays 0) and, like
 * the kernel macro, evaluates to the condition.
 */
__attribute__((weak)) unsigned long host_warn_count;

#define WARN_ON_ONCE(cond) ({						\
	static bool __warned;						\
	bool __c = !!(cond);						\
	if (__c) {							\
		host_warn_count++;					\
		if (!__warned) {					\
			__warned = true;				\
			fprintf(stderr, "WARNING: %s:%d: %s\n",	\
				__FILE__, __LINE__, #cond);		\
		}							\
	}								\
	__c;								\
})
#define WARN_ON(cond)		WARN_ON_ONCE(cond)

/* Byte order. */
#define cpu_to_be16(x)		((__be16)htobe16(x))
#define cpu_to_be32(x)		((__be32)htobe32(x))
#define cpu_to_be64(x)		((__be64)htobe64(x))
#define be16_to_cpu(x)		((u16)be16toh(x))
#define be32_to_cpu(x)		((u32)be32toh(x))
#define be64_to_cpu(x)		((u64)be64toh(x))
#define cpu_to_le16(x)		((__le16)htole16(x))
#define cpu_to_le32(x)		((__le32)htole32(x))
#define cpu_to_le64(x)		((__le64)htole64(x))
#define le16_to_cpu(x)		((u16)le16toh(x))
#define le32_to_cpu(x)		((u32)le32toh(x))
#define le64_to_cpu(x)		((u64)le64toh(x))

/* Unaligned access, byte by byte so it is alignment- and UB-safe. */
static inline u16 get_unaligned_be16(const void *p)
{
	const u8 *b = p;

	return (u16)((b[0] << 8) | b[1]);
}

static inline u32 get_unaligned_be32(const void *p)
{
	const u8 *b = p;

	return ((u32)b[0] << 24) | ((u32)b[1] << 16) | ((u32)b[2] << 8) | b[3];
}

static inline u64 get_unaligned_be64(const void *p)
{
	const u8 *b = p;

	return ((u64)get_unaligned_be32(b) << 32) | get_unaligned_be32(b + 4);
}

static inline u32 get_unaligned_le32(const void *p)
{
	const u8 *b = p;

	return ((u32)b[3] << 24) | ((u32)b[2] << 16) | ((u32)b[1] << 8) | b[0];
}

static inline u64 get_unaligned_le64(const void *p)
{
	const u8 *b = p;

	return ((u64)get_unaligned_le32(b + 4) << 32) | get_unaligned_le32(b);
}

static inline void put_unaligned_be16(u16 v, void *p)
{
	u8 *b = p;

	b[0] = (u8)(v >> 8);
	b[1] = (u8)v;
}

static inline void put_unaligned_be32(u32 v, void *p)
{
	u8 *b = p;

	b[0] = (u8)(v >> 24);
	b[1] = (u8)(v >> 16);
	b[2] = (u8)(v >> 8);
	b[3] = (u8)v;
}

static inline void put_unaligned_be64(u64 v, void *p)
{
	u8 *b = p;

	put_unaligned_be32((u32)(v >> 32), b);
	put_unaligned_be32((u32)v, b + 4);
}

static inline void put_unaligned_le32(u32 v, void *p)
{
	u8 *b = p;

	b[0] = (u8)v;
	b[1] = (u8)(v >> 8);
	b[2] = (u8)(v >> 16);
	b[3] = (u8)(v >> 24);
}

static inline void put_unaligned_le64(u64 v, void *p)
{
	put_unaligned_le32((u32)v, p);
	put_unaligned_le32((u32)(v >> 32), (u8 *)p + 4);
}

/*
 * crc32_le - same contract as lib/crc32.c: reflected CRC-32 (polynomial
 * 0xedb88320), no pre- or post-inversion; the caller seeds and inverts.
 * Table-driven, table built on first use (idempotent, so a benign race).
 */
static inline const u32 *host_crc32_table(void)
{
	static u32 table[256];
	static bool ready;
	u32 i, j, c;

	if (ready)
		return table;
	for (i = 0; i < 256; i++) {
		c = i;
		for (j = 0; j < 8; j++)
			c = (c & 1) ? (c >> 1) ^ 0xedb88320U : c >> 1;
		table[i] = c;
	}
	ready = true;
	return table;
}

static inline u32 crc32_le(u32 crc, const void *p, size_t len)
{
	const u32 *t = host_crc32_table();
	const u8 *b = p;

	while (len--)
		crc = t[(crc ^ *b++) & 0xff] ^ (crc >> 8);
	return crc;
}

/*
 * The kernel's sroce_crc32() (kernel/sroce_crc.c) races crc32_le() against
 * the core's fold for long runs; the host takes the fold, so that every
 * ICRC test and fuzz input checks it against the bitwise reference.
 */
u32 sroce_crc32_fold(u32 crc, const u8 *p, size_t len);

static inline u32 sroce_crc32(u32 crc, const void *p, size_t len)
{
	return sroce_crc32_fold(crc, p, len);
}

#endif /* SROCE_HOST_SHIM_H */
