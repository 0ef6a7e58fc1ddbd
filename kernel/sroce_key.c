// SPDX-License-Identifier: GPL-2.0-only
/*
 * sroce key table: the MR and MW keys of a device (sdev->mr_xa), and the
 * lookup of an L_Key or R_Key to the MR it reaches, directly or through a
 * memory window, with the checks of seed-rules R3.5. sroce_mr.c,
 * sroce_mw.c, sroce_odp.c and the engines call it; it calls none of them.
 */
#include <linux/xarray.h>
#include <rdma/ib_verbs.h>

#include "sroce.h"
#include "sroce_key.h"
#include "sroce_mem.h"
#include "sroce_param.h"
#include "sroce_ref.h"

static_assert(!(SROCE_LOOKUP_WHOLE & (IB_ACCESS_SUPPORTED | IB_ACCESS_OPTIONAL)));

#define SROCE_REMOTE_ACCESS (IB_ACCESS_REMOTE_READ | IB_ACCESS_REMOTE_WRITE | \
			     IB_ACCESS_REMOTE_ATOMIC | IB_ACCESS_FLUSH_GLOBAL | \
			     IB_ACCESS_FLUSH_PERSISTENT)

static enum sroce_obj_type sroce_key_obj(enum sroce_key_kind kind)
{
	return kind == SROCE_KEY_MW ? SROCE_OBJ_MW : SROCE_OBJ_MR;
}

/**
 * sroce_key_alloc - reserve a key index
 * @sdev: the device
 * @k: the object's key head
 * @kind: MR or MW
 *
 * Process context. The index is reserved, not yet visible to lookups:
 * sroce_key_publish() makes it so once the object is ready. Returns 0 or
 * -ENOMEM (table full or no memory).
 */
int sroce_key_alloc(struct sroce_dev *sdev, struct sroce_key *k,
		    enum sroce_key_kind kind)
{
	int err;

	k->kind = kind;
	refcount_set(&k->ref, 1);
	err = sroce_obj_get(sdev, sroce_key_obj(kind));
	if (err)
		return err;
	/* Room for max_mr MRs and max_mw MWs at once. */
	err = xa_alloc_cyclic_irq(&sdev->mr_xa, &k->index, NULL,
				  XA_LIMIT(1, SROCE_MAX_MR + SROCE_MAX_MW),
				  &sdev->mr_next, GFP_KERNEL);
	if (err < 0) {
		sroce_obj_put(sdev, sroce_key_obj(kind));
		return -ENOMEM;
	}
	return 0;
}

void sroce_key_publish(struct sroce_dev *sdev, struct sroce_key *k)
{
	/* Replaces the reserved entry: no allocation, cannot fail. */
	xa_store_irq(&sdev->mr_xa, k->index, k, GFP_KERNEL);
}

/*
 * Takes the index out of the table and waits for the lookups in flight to
 * put their references. Process context (sleeps).
 */
void sroce_key_remove(struct sroce_dev *sdev, struct sroce_key *k)
{
	xa_erase_irq(&sdev->mr_xa, k->index);
	sroce_key_put(k);
	sroce_ref_wait_zero(&k->ref);
	sroce_obj_put(sdev, sroce_key_obj(k->kind));
}

/* The object at @key's index with a reference, or NULL. Any context. */
struct sroce_key *sroce_key_get(struct sroce_dev *sdev, u32 key)
{
	struct sroce_key *k;
	unsigned long flags;

	xa_lock_irqsave(&sdev->mr_xa, flags);
	k = xa_load(&sdev->mr_xa, key >> 8);
	if (k && !refcount_inc_not_zero(&k->ref))
		k = NULL;
	xa_unlock_irqrestore(&sdev->mr_xa, flags);
	return k;
}

void sroce_key_put(struct sroce_key *k)
{
	sroce_ref_put(&k->ref);
}

/**
 * sroce_mr_check - the checks of a key on an MR (seed-rules R3.5)
 * @mr: the MR
 * @key: the full key used
 * @remote: @key is an R_Key
 * @pd: the PD of the QP using it
 * @iova: first byte touched
 * @len: bytes touched
 * @access: IB_ACCESS_* the operation needs (0: local read)
 *
 * Any context; takes mr->lock.
 */
static enum sroce_mr_err sroce_mr_check(struct sroce_mr *mr, u32 key,
					bool remote, struct sroce_pd *pd,
					u64 iova, u64 len, int access)
{
	enum sroce_mr_err err = SROCE_MR_OK;
	unsigned long flags;
	int allowed;

	spin_lock_irqsave(&mr->lock, flags);
	/* Local read (access 0) is always allowed; an R_Key gives only remote rights. */
	allowed = remote ? mr->access & SROCE_REMOTE_ACCESS : mr->access;
	if (key != (remote ? mr->rkey : mr->lkey))
		err = SROCE_MR_ERR_KEY;
	else if (!mr->valid)
		err = SROCE_MR_ERR_STATE;
	else if (mr->ibmr.pd != &pd->ibpd)
		err = SROCE_MR_ERR_PD;
	else if (!(access & SROCE_LOOKUP_WHOLE) &&
		 !sroce_range_ok(mr->iova, mr->length, iova, len))
		err = SROCE_MR_ERR_RANGE;
	else if (access & ~SROCE_LOOKUP_WHOLE & ~allowed)
		err = SROCE_MR_ERR_ACCESS;
	spin_unlock_irqrestore(&mr->lock, flags);
	return err;
}

/*
 * sroce_mw_resolve - check a remote access through a window
 *
 * For sroce_mr_lookup() (same arguments and contract): the R_Key's
 * variant, the binding, the PD (both types) and for type 2 the QP itself
 * (IBA 10.6.7.2.2: a QP that merely has the binding QP's number, after
 * that one was destroyed, gets no access), the window's range and access,
 * then the MR's own state. Returns the bound MR with a reference, or NULL
 * with *err set.
 */
static struct sroce_mr *sroce_mw_resolve(struct sroce_mw *mw, u32 key,
					 struct sroce_pd *pd, u64 qp_uid,
					 u64 iova, u64 len, int access,
					 enum sroce_mr_err *err)
{
	struct sroce_mr *mr = NULL;
	unsigned long flags;

	spin_lock_irqsave(&mw->lock, flags);
	if (key != mw->rkey)
		*err = SROCE_MR_ERR_KEY;
	else if (!mw->bound || !mw->mr)
		*err = SROCE_MR_ERR_STATE;
	else if (mw->ibmw.pd != &pd->ibpd ||
		 (mw->ibmw.type == IB_MW_TYPE_2 && mw->qp_uid != qp_uid))
		*err = SROCE_MR_ERR_PD;
	else if (!(access & SROCE_LOOKUP_WHOLE) &&
		 (iova < mw->addr || len > mw->length ||
		  iova - mw->addr > mw->length - len))
		*err = SROCE_MR_ERR_RANGE;
	else if (access & ~SROCE_LOOKUP_WHOLE & ~mw->access)
		*err = SROCE_MR_ERR_ACCESS;
	else
		*err = SROCE_MR_OK;
	if (*err == SROCE_MR_OK) {
		mr = mw->mr;
		refcount_inc(&mr->key.ref);	/* the binding holds one */
	}
	spin_unlock_irqrestore(&mw->lock, flags);
	if (!mr)
		return NULL;

	/* An invalidated fast-reg MR under a window is no longer usable. */
	spin_lock_irqsave(&mr->lock, flags);
	if (!mr->valid)
		*err = SROCE_MR_ERR_STATE;
	spin_unlock_irqrestore(&mr->lock, flags);
	if (*err) {
		sroce_mr_put(mr);
		return NULL;
	}
	return mr;
}

/**
 * sroce_mr_lookup - find the MR behind a key and check an access with it
 * @sdev: the device
 * @key: L_Key or R_Key from an SGE, RETH or ATOMICETH (hostile)
 * @remote: @key is an R_Key (it may then name a memory window)
 * @pd: the PD of the QP doing the access
 * @qp_uid: that QP's sroce_qp.uid (type 2 windows are bound to one QP)
 * @iova: first byte touched
 * @len: bytes touched
 * @access: IB_ACCESS_* needed: LOCAL_WRITE to write into a local MR,
 *          REMOTE_READ/REMOTE_WRITE/REMOTE_ATOMIC/FLUSH_* for remote
 *          operations, 0 to read a local MR; with SROCE_LOOKUP_WHOLE the
 *          access is to the whole MR or window (@iova, @len unused)
 * @err: set to which check failed (seed-rules R3.5)
 *
 * Any context (softirq included), does not sleep. Returns the MR (for a
 * window, the MR it is bound to) with a reference: sroce_mr_put() it when
 * done, and use sroce_mr_copy() with the same @iova range meanwhile.
 * Returns NULL on failure.
 */
struct sroce_mr *sroce_mr_lookup(struct sroce_dev *sdev, u32 key, bool remote,
				 struct sroce_pd *pd, u64 qp_uid, u64 iova,
				 u64 len, int access, enum sroce_mr_err *err)
{
	struct sroce_key *k = sroce_key_get(sdev, key);
	struct sroce_mr *mr;

	if (!k) {
		*err = SROCE_MR_ERR_NO_KEY;
		return NULL;
	}
	if (k->kind == SROCE_KEY_MW) {
		mr = NULL;
		if (remote)
			mr = sroce_mw_resolve(container_of(k, struct sroce_mw, key),
					      key, pd, qp_uid, iova, len, access, err);
		else
			*err = SROCE_MR_ERR_KEY;
		sroce_key_put(k);
		return mr;
	}
	mr = container_of(k, struct sroce_mr, key);
	*err = sroce_mr_check(mr, key, remote, pd, iova, len, access);
	if (*err) {
		sroce_key_put(k);
		return NULL;
	}
	return mr;
}
