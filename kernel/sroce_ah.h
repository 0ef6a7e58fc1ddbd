/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * sroce address handles: a copy of the rdma_ah_attr (holding the sgid_attr
 * reference) and its address vector (sroce_av.h), from which the transmit
 * path builds headers. User AHs get an index in sdev->ah_xa that UD send
 * WQEs carry.
 */
#ifndef SROCE_AH_H
#define SROCE_AH_H

#include <linux/refcount.h>
#include <rdma/ib_verbs.h>

#include "sroce_av.h"

struct sroce_dev;
struct sroce_pd;

struct sroce_ah {
	struct ib_ah ibah;
	struct rdma_ah_attr attr;	/* constant; sgid_attr referenced */
	struct sroce_av av;		/* constant: attr resolved for sending */
	u32 index;			/* user AHs: index in ah_xa; else 0 */
	refcount_t ref;			/* user AHs: table + lookups */
};

static inline struct sroce_ah *to_sroce_ah(struct ib_ah *ibah)
{
	return container_of(ibah, struct sroce_ah, ibah);
}

struct sroce_ah *sroce_ah_get_by_index(struct sroce_dev *sdev, u32 index,
				       struct sroce_pd *pd);
void sroce_ah_put(struct sroce_ah *ah);

extern const struct ib_device_ops sroce_ah_ops;

#endif /* SROCE_AH_H */
