/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * sroce memory windows (type 1 and type 2B). Their R_Keys live in the key
 * table (sroce_key.h), which also resolves an R_Key through a window to
 * its MR. Binding is a work request: the engine calls sroce_mw_bind() for
 * a BIND_MW WQE (ibv_bind_mw posts one for type 1).
 */
#ifndef SROCE_MW_H
#define SROCE_MW_H

#include <linux/spinlock.h>
#include <rdma/ib_verbs.h>

#include "sroce_mr.h"

struct sroce_mw {
	struct ib_mw ibmw;		/* ibmw.type constant; ibmw.rkey = rkey */
	struct sroce_key key;

	/*
	 * lock (spin_lock_irqsave: engines bind and invalidate in softirq)
	 * protects the binding below.
	 */
	spinlock_t lock;
	bool bound;
	struct sroce_mr *mr;		/* referenced, mr->num_mw counted */
	u32 rkey;
	u64 addr, length;
	int access;			/* IB_ACCESS_REMOTE_* */
	/*
	 * Type 2: the sroce_qp.uid of the QP it is bound to. Not the QPN,
	 * which a later QP may get (of any PD); not a pointer, which the
	 * QP's destruction would leave dangling.
	 */
	u64 qp_uid;
};

static inline struct sroce_mw *to_sroce_mw(struct ib_mw *ibmw)
{
	return container_of(ibmw, struct sroce_mw, ibmw);
}

int sroce_mw_bind(struct sroce_dev *sdev, struct sroce_pd *pd, u64 qp_uid,
		  u32 mw_rkey, u32 new_rkey, u32 mr_lkey, u64 addr, u64 length,
		  int access);
int sroce_mw_invalidate(struct sroce_mw *mw, struct sroce_pd *pd, u32 key);

extern const struct ib_device_ops sroce_mw_ops;

#endif /* SROCE_MW_H */
