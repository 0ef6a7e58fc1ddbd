/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * sroce memory windows (type 1 and type 2B; sroce_mw.c, the object in
 * sroce_mem.h). Their R_Keys live in the key table (sroce_key.h), which
 * also resolves an R_Key through a window to its MR. Binding is a work
 * request: the engine calls sroce_mw_bind() for a BIND_MW WQE
 * (ibv_bind_mw posts one for type 1).
 */
#ifndef SROCE_MW_H
#define SROCE_MW_H

#include <linux/types.h>
#include <rdma/ib_verbs.h>

#include "sroce_mem.h"

struct sroce_dev;
struct sroce_pd;

int sroce_mw_bind(struct sroce_dev *sdev, struct sroce_pd *pd, u64 qp_uid,
		  u32 mw_rkey, u32 new_rkey, u32 mr_lkey, u64 addr, u64 length,
		  int access);
int sroce_mw_invalidate(struct sroce_mw *mw, struct sroce_pd *pd, u32 key);

extern const struct ib_device_ops sroce_mw_ops;

#endif /* SROCE_MW_H */
