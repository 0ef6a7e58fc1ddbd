// SPDX-License-Identifier: GPL-2.0-only
/*
 * sroce ICRC of skbs: the one place that computes a RoCEv2 packet's ICRC
 * over an skb, for transmit (sroce_icrc_fill()) and for receive
 * validation (sroce_icrc_ok(), inline in sroce_crc.h), on top of the
 * core's icrc.c; and the CRC-32 under it.
 *
 * sroce_crc32(): crc32_le() for the long runs of the ICRC (the bytes after
 * the BTH), by the fastest of three ways on this machine, picked at
 * module load:
 *   - crc32_le(): 6.12's is the table-driven generic one;
 *   - sroce_crc32_fold() (core/crc32_fold.c): reduction by a sparse
 *     multiple of the polynomial, shifts and XORs in registers and no
 *     table load per byte: under an emulator (QEMU/TCG), where every load
 *     costs a software TLB lookup, several times faster than the table;
 *   - the crypto API's "crc32" shash when the CPU has an accelerated
 *     driver for it (crc32-pclmul on x86), which folds 64 bytes per step
 *     with carry-less multiplication (the usual winner on hardware) and
 *     falls back to crc32_le() itself when SIMD is not usable in the
 *     calling context (e.g. a softirq that interrupted kernel FPU code).
 *
 * On transmit, a full packet's payload is CRCed while sroce_mr_copy()
 * copies it in from the MR (sroce_crc32_copy(): one pass with the fold),
 * before the IP and UDP headers in front of it are final (the IP ID is
 * given at transmit); sroce_icrc_fill() then CRCs the headers and joins
 * the payload's CRC to theirs (core/crc32_shift.c). Receive does not do
 * the same: a packet's bytes reach the MR only after its ICRC checks.
 *
 * The shash's state is the bare running CRC (no inversion; "crc32" of
 * crypto/crc32_generic.c), so a run is import(crc), update, export.
 *
 * Objects and locking: the choice (sroce_crc_way) and one transform are
 * set at module init and not changed until exit, when no device is left;
 * a transform may be used by any number of contexts at once with their
 * own descriptors (on the stack here). A way is used only if it gives
 * crc32_le()'s results on a test buffer at init. The skb helpers take no
 * lock: the skb is the caller's.
 */
#include <crypto/hash.h>
#include <linux/crc32.h>
#include <linux/ktime.h>
#include <linux/module.h>
#include <linux/skbuff.h>
#include <linux/string.h>
#include <linux/udp.h>

#include "sroce.h"
#include "sroce_crc.h"
#include "crc32_fold.h"
#include "crc32_shift.h"

/* Shorter runs go to crc32_le(): not worth the fold's or the FPU's set-up. */
#define SROCE_CRC_LONG_MIN	SROCE_CRC32_FOLD_MIN
/* The init-time race: rounds of runs of one 1 KiB packet payload. */
#define SROCE_CRC_TEST_LEN	1024
#define SROCE_CRC_RACE_ROUNDS	4
#define SROCE_CRC_RACE_RUNS	64

enum sroce_crc_way {
	SROCE_CRC_TABLE,	/* crc32_le() */
	SROCE_CRC_FOLD,		/* sroce_crc32_fold() */
	SROCE_CRC_SHASH,	/* sroce_crc_tfm */
	SROCE_CRC_WAYS
};

static const char *const sroce_crc_way_name[SROCE_CRC_WAYS] = {
	[SROCE_CRC_TABLE] = "crc32_le",
	[SROCE_CRC_FOLD] = "fold",
	[SROCE_CRC_SHASH] = "shash",
};

static enum sroce_crc_way sroce_crc_way = SROCE_CRC_TABLE;
static struct crypto_shash *sroce_crc_tfm;

/*
 * x^(8n) mod P for n = SROCE_TX_PAY_MIN << i: the payloads of full
 * packets, one per path MTU
 */
static u32 sroce_crc_xpow_mtu[ilog2(SROCE_TX_PAY_MAX) -
			      ilog2(SROCE_TX_PAY_MIN) + 1];

static u32 sroce_crc32_shash(u32 crc, const void *p, size_t len)
{
	SHASH_DESC_ON_STACK(desc, sroce_crc_tfm);
	__le32 state = cpu_to_le32(crc);

	desc->tfm = sroce_crc_tfm;
	if (crypto_shash_import(desc, &state) ||
	    crypto_shash_update(desc, p, len) ||
	    crypto_shash_export(desc, &state))
		return crc32_le(crc, p, len);
	return le32_to_cpu(state);
}

static u32 sroce_crc32_way(enum sroce_crc_way way, u32 crc, const void *p,
			   size_t len)
{
	switch (way) {
	case SROCE_CRC_FOLD:
		return sroce_crc32_fold(crc, p, len);
	case SROCE_CRC_SHASH:
		return sroce_crc32_shash(crc, p, len);
	default:
		return crc32_le(crc, p, len);
	}
}

u32 sroce_crc32(u32 crc, const void *p, size_t len)
{
	if (len < SROCE_CRC_LONG_MIN)
		return crc32_le(crc, p, len);
	return sroce_crc32_way(sroce_crc_way, crc, p, len);
}

/**
 * sroce_crc32_copy - memcpy(@dst, @src, @len), returning
 * sroce_crc32(@crc, @src, @len)
 * @crc: running CRC (crc32_le()'s state)
 * @dst: @len bytes, not overlapping @src
 * @src: bytes to copy and CRC
 * @len: byte count
 *
 * One pass over the bytes when the fold is the CRC in use; else the copy,
 * then the CRC. Any context.
 */
u32 sroce_crc32_copy(u32 crc, void *dst, const void *src, size_t len)
{
	if (len >= SROCE_CRC_LONG_MIN && sroce_crc_way == SROCE_CRC_FOLD)
		return sroce_crc32_fold_copy(crc, dst, src, len);
	memcpy(dst, src, len);
	return sroce_crc32(crc, dst, len);
}

/* sroce_crc32_xpow8(@len), from the table for a full packet's payload. */
static u32 sroce_crc_xpow(u32 len)
{
	unsigned int i;

	if (is_power_of_2(len)) {
		i = ilog2(len) - ilog2(SROCE_TX_PAY_MIN);
		if (i < ARRAY_SIZE(sroce_crc_xpow_mtu))
			return sroce_crc_xpow_mtu[i];
	}
	return sroce_crc32_xpow8(len);
}

/* Nanoseconds of SROCE_CRC_RACE_RUNS chained runs over @buf; CRC in @crc. */
static u64 sroce_crc_time(enum sroce_crc_way way, const u8 *buf, size_t len,
			  u32 *crc)
{
	u64 t0 = ktime_get_ns();
	u32 c = ~0U;
	int i;

	for (i = 0; i < SROCE_CRC_RACE_RUNS; i++)
		c = sroce_crc32_way(way, c, buf, len);
	*crc = c;
	return ktime_get_ns() - t0;
}

/*
 * The race: the best of a few interleaved rounds of each way over an odd
 * length at an odd offset, in ns. A way that disagrees with crc32_le()
 * is out. Returns the fastest way left.
 */
static enum sroce_crc_way sroce_crc_race(const char *driver)
{
	u64 t[SROCE_CRC_WAYS];
	u32 c[SROCE_CRC_WAYS];
	bool ok[SROCE_CRC_WAYS];
	enum sroce_crc_way w, best = SROCE_CRC_TABLE;
	int ways = sroce_crc_tfm ? SROCE_CRC_WAYS : SROCE_CRC_SHASH;
	u8 *buf;
	int i;

	buf = kmalloc(SROCE_CRC_TEST_LEN, GFP_KERNEL);
	if (!buf)
		return SROCE_CRC_TABLE;
	for (i = 0; i < SROCE_CRC_TEST_LEN; i++)
		buf[i] = i * 7 + (i >> 8);
	for (w = 0; w < ways; w++) {
		t[w] = U64_MAX;
		ok[w] = true;
	}
	for (i = 0; i < SROCE_CRC_RACE_ROUNDS; i++) {
		for (w = 0; w < ways; w++) {
			t[w] = min(t[w], sroce_crc_time(w, buf + 3,
							SROCE_CRC_TEST_LEN - 8,
							&c[w]));
			ok[w] &= c[w] == c[SROCE_CRC_TABLE];
		}
	}
	kfree(buf);
	for (w = 1; w < ways; w++) {
		if (!ok[w]) {
			pr_warn(DRV_NAME ": %s disagrees with crc32_le, not used\n",
				w == SROCE_CRC_SHASH ? driver :
				sroce_crc_way_name[w]);
			continue;
		}
		if (t[w] < t[best])
			best = w;
	}
	if (sroce_crc_tfm)
		pr_info(DRV_NAME ": ICRC over 1 KiB: crc32_le %llu ns, fold %llu ns, %s %llu ns: using %s\n",
			div_u64(t[SROCE_CRC_TABLE], SROCE_CRC_RACE_RUNS),
			div_u64(t[SROCE_CRC_FOLD], SROCE_CRC_RACE_RUNS), driver,
			div_u64(t[SROCE_CRC_SHASH], SROCE_CRC_RACE_RUNS),
			best == SROCE_CRC_SHASH ? driver : sroce_crc_way_name[best]);
	else
		pr_info(DRV_NAME ": ICRC over 1 KiB: crc32_le %llu ns, fold %llu ns: using %s\n",
			div_u64(t[SROCE_CRC_TABLE], SROCE_CRC_RACE_RUNS),
			div_u64(t[SROCE_CRC_FOLD], SROCE_CRC_RACE_RUNS),
			sroce_crc_way_name[best]);
	return best;
}

/* An accelerated "crc32" shash, or NULL (none, or only the generic one). */
static struct crypto_shash *sroce_crc_shash(const char **driver)
{
	struct crypto_shash *tfm = crypto_alloc_shash("crc32", 0, 0);

	if (IS_ERR(tfm))
		return NULL;
	*driver = crypto_shash_driver_name(tfm);
	if (crypto_shash_descsize(tfm) != sizeof(__le32) ||
	    !strcmp(*driver, "crc32-generic")) {
		crypto_free_shash(tfm);
		return NULL;
	}
	return tfm;
}

/**
 * sroce_crc_module_init - pick the CRC-32 of the ICRC
 *
 * Never fails: at worst sroce_crc32() is crc32_le(). Process context (may
 * load the shash driver's module).
 */
void sroce_crc_module_init(void)
{
	const char *driver = "";
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(sroce_crc_xpow_mtu); i++)
		sroce_crc_xpow_mtu[i] = sroce_crc32_xpow8(SROCE_TX_PAY_MIN << i);
	sroce_crc_tfm = sroce_crc_shash(&driver);
	sroce_crc_way = sroce_crc_race(driver);
	if (sroce_crc_way != SROCE_CRC_SHASH && sroce_crc_tfm) {
		crypto_free_shash(sroce_crc_tfm);
		sroce_crc_tfm = NULL;
	}
}

void sroce_crc_module_exit(void)
{
	if (sroce_crc_tfm)
		crypto_free_shash(sroce_crc_tfm);
	sroce_crc_tfm = NULL;
	sroce_crc_way = SROCE_CRC_TABLE;
}

/**
 * sroce_icrc_add_skb - feed skb bytes [@from, @to) to an ICRC
 * @ctx:  a started ICRC
 * @skb:  the packet; offsets are from skb->data
 * @from: first byte
 * @to:   end (exclusive), at most skb->len
 *
 * Walks the linear part, page fragments and frag list in place (no copy,
 * no allocation; kmap_local for highmem pages). Any context.
 */
void sroce_icrc_add_skb(struct sroce_icrc_ctx *ctx, struct sk_buff *skb,
			unsigned int from, unsigned int to)
{
	unsigned int consumed = 0, len;
	struct skb_seq_state st;
	const u8 *data;

	if (from >= to)
		return;
	skb_prepare_seq_read(skb, from, to, &st);
	/* skb_seq_read() returns whole blocks: clamp the last one to @to. */
	while ((len = skb_seq_read(consumed, &data, &st)) != 0) {
		len = min(len, to - from - consumed);
		sroce_icrc_update(ctx, data, len);
		consumed += len;
		if (consumed == to - from) {
			skb_abort_seq_read(&st);
			break;
		}
	}
}

/**
 * sroce_icrc_fill - write the ICRC of a packet being sent
 * @skb:    skb->data at the IP header of @ip_len bytes, followed by UDP
 *          and BTH (linear), then the rest (which may be in fragments);
 *          skb->cb a struct sroce_tx_pay
 * @ip_len: bytes of the IP header
 *
 * Writes the ICRC into the last 4 bytes; the payload's CRC noted in
 * struct sroce_tx_pay is joined, not computed again. Returns 0 or a
 * negative errno (-EINVAL: headers not linear, or @ip_len and the IP
 * version disagree). Any context.
 */
int sroce_icrc_fill(struct sk_buff *skb, unsigned int ip_len)
{
	struct sroce_tx_pay *pay = sroce_tx_pay(skb);
	unsigned int ib_off = ip_len + sizeof(struct udphdr);
	unsigned int from = ib_off + SROCE_BTH_LEN;
	unsigned int to = skb->len - SROCE_ICRC_LEN;
	unsigned int pay_len = pay->len;
	struct sroce_icrc_ctx ctx;
	u8 icrc[SROCE_ICRC_LEN];

	if (WARN_ON_ONCE(skb_headlen(skb) < from))
		return -EINVAL;
	if (sroce_icrc_init(&ctx, skb->data, ip_len, skb->data + ip_len,
			    skb->data + ib_off))
		return -EINVAL;
	if (WARN_ON_ONCE(pay_len > to - from))
		pay_len = 0;
	sroce_icrc_add_skb(&ctx, skb, from, to - pay_len);
	if (pay_len)
		sroce_icrc_join(&ctx, pay->crc, sroce_crc_xpow(pay_len));
	sroce_icrc_put(icrc, sroce_icrc_final(&ctx));
	return skb_store_bits(skb, to, icrc, SROCE_ICRC_LEN);
}
