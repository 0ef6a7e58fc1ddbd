/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * sroce key table, shared by memory regions and memory windows
 * (sroce_key.c). The objects it holds are in sroce_mem.h.
 *
 * sdev->mr_xa maps a key index (key >> 8) to a struct sroce_key, the head
 * of a struct sroce_mr or struct sroce_mw; the low byte of a key is its
 * variant. Lookups take the xarray lock (irqsave: engines run in softirq)
 * and a reference; deregistration removes the index and then waits until
 * the last reference is gone, so a looked-up object stays valid until
 * sroce_key_put() (sroce_mr_put() for an MR). The engines hold a
 * reference only while they handle one packet or work request, never
 * across the packets of a message (the responder looks the R_Key up for
 * each one), so that wait never depends on a peer.
 */
#ifndef SROCE_KEY_H
#define SROCE_KEY_H

#include <linux/types.h>

#include "sroce_mem.h"

struct sroce_dev;
struct sroce_pd;

/* Which check a lookup failed (seed-rules R3.5). */
enum sroce_mr_err {
	SROCE_MR_OK,
	SROCE_MR_ERR_NO_KEY,	/* no MR or MW at the key's index */
	SROCE_MR_ERR_KEY,	/* wrong variant, or an MW key used locally */
	SROCE_MR_ERR_STATE,	/* not registered / invalidated / unbound */
	SROCE_MR_ERR_PD,	/* other PD (or other QP, type 2 window) */
	SROCE_MR_ERR_RANGE,	/* outside the MR's or window's range */
	SROCE_MR_ERR_ACCESS,	/* access flags forbid the operation */
};

int sroce_key_alloc(struct sroce_dev *sdev, struct sroce_key *k,
		    enum sroce_key_kind kind);
void sroce_key_publish(struct sroce_dev *sdev, struct sroce_key *k);
void sroce_key_remove(struct sroce_dev *sdev, struct sroce_key *k);
struct sroce_key *sroce_key_get(struct sroce_dev *sdev, u32 key);
void sroce_key_put(struct sroce_key *k);

/*
 * In sroce_mr_lookup()'s @access: the whole MR or window behind the key,
 * whatever its range (a FLUSH of a whole MR). Above every IB_ACCESS_* bit.
 */
#define SROCE_LOOKUP_WHOLE	BIT(30)

/* For the engines: see the comments in sroce_key.c. */
struct sroce_mr *sroce_mr_lookup(struct sroce_dev *sdev, u32 key, bool remote,
				 struct sroce_pd *pd, u64 qp_uid, u64 iova,
				 u64 len, int access, enum sroce_mr_err *err);

/* Drops the reference of a sroce_mr_lookup(). */
static inline void sroce_mr_put(struct sroce_mr *mr)
{
	sroce_key_put(&mr->key);
}

#endif /* SROCE_KEY_H */
