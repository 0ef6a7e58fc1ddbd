// SPDX-License-Identifier: GPL-2.0-only
/*
 * sroce ICRC of skbs: the one place that computes a RoCEv2 packet's ICRC
 * over an skb, for transmit (sroce_icrc_fill()) and for receive
 * validation (sroce_icrc_ok(), inline in sroce_crc.h), on top of the
 * core's icrc.c; and the CRC-32 under it.
 *
 * sroce_crc32(): crc32_le() for the long runs of the ICRC (the bytes after
 * the BTH), through the crypto API's "crc32" shash when the CPU has an
 * accelerated driver for it (crc32-pclmul on x86). 6.12's crc32_le() is
 * the table-driven generic one; the shash driver folds 64 bytes per step
 * with carry-less multiplication and falls back to crc32_le() itself when
 * SIMD is not usable in the calling context (e.g. a softirq that
 * interrupted kernel FPU code).
 *
 * The shash's state is the bare running CRC (no inversion; "crc32" of
 * crypto/crc32_generic.c), so a run is import(crc), update, export.
 *
 * Objects and locking: one transform, allocated at module init and freed
 * at exit (sroce_crc_tfm, never changed in between); a transform may be
 * used by any number of contexts at once with their own descriptors (on
 * the stack here). The driver is used only if it gives crc32_le()'s
 * results on a test buffer at init and is faster than crc32_le() there
 * over packet-sized runs: under an emulator (QEMU/TCG) the SIMD state
 * save and the emulated instructions can make it the slower one. The
 * skb helpers take no lock: the skb is the caller's.
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

/* Shorter runs go to crc32_le(): not worth the descriptor and FPU state. */
#define SROCE_CRC_ACCEL_MIN	128
/* The init-time race: rounds of runs of one 1 KiB packet payload. */
#define SROCE_CRC_TEST_LEN	1024
#define SROCE_CRC_RACE_ROUNDS	4
#define SROCE_CRC_RACE_RUNS	64

static struct crypto_shash *sroce_crc_tfm;

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

u32 sroce_crc32(u32 crc, const void *p, size_t len)
{
	if (len < SROCE_CRC_ACCEL_MIN || !sroce_crc_tfm)
		return crc32_le(crc, p, len);
	return sroce_crc32_shash(crc, p, len);
}

/* Nanoseconds of SROCE_CRC_RACE_RUNS chained runs over @buf; CRC in @crc. */
static u64 sroce_crc_time(bool accel, const u8 *buf, size_t len, u32 *crc)
{
	u64 t0 = ktime_get_ns();
	u32 c = ~0U;
	int i;

	for (i = 0; i < SROCE_CRC_RACE_RUNS; i++)
		c = accel ? sroce_crc32_shash(c, buf, len) : crc32_le(c, buf, len);
	*crc = c;
	return ktime_get_ns() - t0;
}

/*
 * Does the driver compute crc32_le() (odd length and offset included),
 * and faster? The best of a few interleaved rounds of each, in ns.
 */
static bool sroce_crc_race(const char *driver)
{
	u64 t_gen = U64_MAX, t_acc = U64_MAX;
	u32 c_gen, c_acc;
	bool ok = true;
	u8 *buf;
	int i;

	buf = kmalloc(SROCE_CRC_TEST_LEN, GFP_KERNEL);
	if (!buf)
		return false;
	for (i = 0; i < SROCE_CRC_TEST_LEN; i++)
		buf[i] = i * 7 + (i >> 8);
	for (i = 0; i < SROCE_CRC_RACE_ROUNDS && ok; i++) {
		t_gen = min(t_gen, sroce_crc_time(false, buf + 3,
						  SROCE_CRC_TEST_LEN - 8, &c_gen));
		t_acc = min(t_acc, sroce_crc_time(true, buf + 3,
						  SROCE_CRC_TEST_LEN - 8, &c_acc));
		ok = c_gen == c_acc;
	}
	kfree(buf);
	if (!ok) {
		pr_warn(DRV_NAME ": %s disagrees with crc32_le, not used\n",
			driver);
		return false;
	}
	pr_info(DRV_NAME ": ICRC over 1 KiB: crc32_le %llu ns, %s %llu ns: %s\n",
		div_u64(t_gen, SROCE_CRC_RACE_RUNS), driver,
		div_u64(t_acc, SROCE_CRC_RACE_RUNS),
		t_acc < t_gen ? driver : "crc32_le");
	return t_acc < t_gen;
}

/**
 * sroce_crc_module_init - pick the CRC-32 of the ICRC
 *
 * Never fails: without an accelerated, correct "crc32" shash sroce_crc32()
 * is crc32_le(). Process context (may load the driver's module).
 */
void sroce_crc_module_init(void)
{
	struct crypto_shash *tfm = crypto_alloc_shash("crc32", 0, 0);
	const char *driver;

	if (IS_ERR(tfm)) {
		pr_info(DRV_NAME ": ICRC with crc32_le (no crc32 shash: %ld)\n",
			PTR_ERR(tfm));
		return;
	}
	driver = crypto_shash_driver_name(tfm);
	if (crypto_shash_descsize(tfm) != sizeof(__le32) ||
	    !strcmp(driver, "crc32-generic")) {
		pr_info(DRV_NAME ": ICRC with crc32_le (%s is no faster)\n",
			driver);
		crypto_free_shash(tfm);
		return;
	}
	sroce_crc_tfm = tfm;
	if (!sroce_crc_race(driver)) {
		sroce_crc_tfm = NULL;
		crypto_free_shash(tfm);
	}
}

void sroce_crc_module_exit(void)
{
	if (sroce_crc_tfm)
		crypto_free_shash(sroce_crc_tfm);
	sroce_crc_tfm = NULL;
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
 *          and BTH (linear), then the rest (which may be in fragments)
 * @ip_len: bytes of the IP header
 *
 * Writes the ICRC into the last 4 bytes. Returns 0 or a negative errno
 * (-EINVAL: headers not linear, or @ip_len and the IP version disagree).
 * Any context.
 */
int sroce_icrc_fill(struct sk_buff *skb, unsigned int ip_len)
{
	unsigned int ib_off = ip_len + sizeof(struct udphdr);
	unsigned int from = ib_off + SROCE_BTH_LEN;
	unsigned int to = skb->len - SROCE_ICRC_LEN;
	struct sroce_icrc_ctx ctx;
	u8 icrc[SROCE_ICRC_LEN];

	if (WARN_ON_ONCE(skb_headlen(skb) < from))
		return -EINVAL;
	if (sroce_icrc_init(&ctx, skb->data, ip_len, skb->data + ip_len,
			    skb->data + ib_off))
		return -EINVAL;
	sroce_icrc_add_skb(&ctx, skb, from, to);
	sroce_icrc_put(icrc, sroce_icrc_final(&ctx));
	return skb_store_bits(skb, to, icrc, SROCE_ICRC_LEN);
}
