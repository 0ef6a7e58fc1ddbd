// SPDX-License-Identifier: GPL-2.0-only
/*
 * sroce memory windows: alloc/dealloc, binding (BIND_MW work requests),
 * invalidation, and remote access through a window.
 */
#include <linux/random.h>
#include <rdma/ib_verbs.h>

#include "sroce.h"
#include "sroce_key.h"
#include "sroce_mem.h"
#include "sroce_mw.h"

#define SROCE_MW_ACCESS (IB_ACCESS_REMOTE_READ | IB_ACCESS_REMOTE_WRITE | \
			 IB_ACCESS_REMOTE_ATOMIC)

/* Drops the binding. Caller holds mw->lock. */
static void sroce_mw_unbind(struct sroce_mw *mw)
{
	lockdep_assert_held(&mw->lock);
	if (mw->mr) {
		atomic_dec(&mw->mr->num_mw);
		sroce_mr_put(mw->mr);
		mw->mr = NULL;
	}
	mw->bound = false;
	mw->length = 0;
	mw->access = 0;
}

static int sroce_alloc_mw(struct ib_mw *ibmw, struct ib_udata *udata)
{
	struct sroce_dev *sdev = to_sroce_dev(ibmw->device);
	struct sroce_mw *mw = to_sroce_mw(ibmw);
	int err;

	if (ibmw->type != IB_MW_TYPE_1 && ibmw->type != IB_MW_TYPE_2)
		return -EINVAL;
	spin_lock_init(&mw->lock);
	err = sroce_key_alloc(sdev, &mw->key, SROCE_KEY_MW);
	if (err)
		return err;
	mw->rkey = mw->key.index << 8 | get_random_u8();
	ibmw->rkey = mw->rkey;
	sroce_key_publish(sdev, &mw->key);
	return 0;
}

static int sroce_dealloc_mw(struct ib_mw *ibmw)
{
	struct sroce_dev *sdev = to_sroce_dev(ibmw->device);
	struct sroce_mw *mw = to_sroce_mw(ibmw);
	unsigned long flags;

	sroce_key_remove(sdev, &mw->key);
	spin_lock_irqsave(&mw->lock, flags);
	sroce_mw_unbind(mw);
	spin_unlock_irqrestore(&mw->lock, flags);
	return 0;
}

/*
 * The MR a bind names, with a reference: the QP's PD, the MW_BIND right,
 * the window inside it, and local write for a window that gives remote
 * write or atomic (IBA 10.6.7.2.4).
 */
static struct sroce_mr *sroce_mw_bind_mr(struct sroce_dev *sdev,
					 struct sroce_pd *pd, u32 mr_lkey,
					 u64 addr, u64 length, int access)
{
	enum sroce_mr_err merr;
	struct sroce_mr *mr;

	mr = sroce_mr_lookup(sdev, mr_lkey, false, pd, 0, addr, length, 0,
			     &merr);
	if (!mr)
		return NULL;
	if (mr->type == SROCE_MR_DMA || !(mr->access & IB_ACCESS_MW_BIND) ||
	    ((access & (IB_ACCESS_REMOTE_WRITE | IB_ACCESS_REMOTE_ATOMIC)) &&
	     !(mr->access & IB_ACCESS_LOCAL_WRITE))) {
		sroce_mr_put(mr);
		return NULL;
	}
	return mr;
}

/**
 * sroce_mw_bind - execute a BIND_MW work request
 * @sdev: the device
 * @pd: the PD of the QP posting it
 * @qp_uid: that QP's sroce_qp.uid (type 2 binds to it)
 * @mw_rkey: the window's current R_Key (from the WQE)
 * @new_rkey: the R_Key after the bind (same index, any variant)
 * @mr_lkey: L_Key of the MR to bind to
 * @addr: start of the window
 * @length: its length
 * @access: IB_ACCESS_REMOTE_* the window grants
 *
 * Any context. A type 1 window may be rebound while bound, and a zero
 * @length unbinds it; a type 2 window must be free (new or invalidated).
 * Returns 0 or -EINVAL (the engine completes the WR with
 * IB_WC_MW_BIND_ERR).
 */
int sroce_mw_bind(struct sroce_dev *sdev, struct sroce_pd *pd, u64 qp_uid,
		  u32 mw_rkey, u32 new_rkey, u32 mr_lkey, u64 addr, u64 length,
		  int access)
{
	struct sroce_key *k = sroce_key_get(sdev, mw_rkey);
	struct sroce_mr *mr = NULL;
	struct sroce_mw *mw;
	unsigned long flags;
	int err = -EINVAL;

	if (!k)
		return -EINVAL;
	/*
	 * A window grants remote access only; a local-write bit in the bind
	 * (rdma-core's own tests pass one, and rxe accepts it) means nothing
	 * for it and is dropped rather than failing the bind.
	 */
	access &= ~IB_ACCESS_LOCAL_WRITE;
	if (k->kind != SROCE_KEY_MW || (new_rkey >> 8) != k->index ||
	    (access & ~SROCE_MW_ACCESS))
		goto put_key;
	mw = container_of(k, struct sroce_mw, key);
	if (mw->ibmw.pd != &pd->ibpd)
		goto put_key;
	if (length) {
		mr = sroce_mw_bind_mr(sdev, pd, mr_lkey, addr, length, access);
		if (!mr)
			goto put_key;
	} else if (mw->ibmw.type == IB_MW_TYPE_2) {
		goto put_key;
	}

	spin_lock_irqsave(&mw->lock, flags);
	/*
	 * Counting the window on the MR and dereg_mr's check of that count
	 * are atomic against each other: a dereg that found none marks
	 * num_mw negative, and no window binds after that.
	 */
	if (mw_rkey != mw->rkey ||
	    (mw->ibmw.type == IB_MW_TYPE_2 && mw->bound) ||
	    (mr && !atomic_inc_unless_negative(&mr->num_mw))) {
		spin_unlock_irqrestore(&mw->lock, flags);
		goto put_mr;
	}
	sroce_mw_unbind(mw);
	if (mr) {
		mw->mr = mr;	/* the binding keeps the lookup's reference */
		mr = NULL;
		mw->addr = addr;
		mw->length = length;
		mw->access = access;
		mw->qp_uid = qp_uid;
		mw->bound = true;
	}
	mw->rkey = new_rkey;
	mw->ibmw.rkey = new_rkey;
	spin_unlock_irqrestore(&mw->lock, flags);
	err = 0;

put_mr:
	if (mr)
		sroce_mr_put(mr);
put_key:
	sroce_key_put(k);
	return err;
}

/**
 * sroce_mw_invalidate - invalidate a type 2 window (LOCAL_INV, SEND_WITH_INV)
 * @mw: the window (referenced by the caller)
 * @pd: the QP's PD
 * @key: the R_Key to invalidate
 *
 * Any context. Returns 0 or -EINVAL (type 1, wrong key or PD, not bound).
 */
int sroce_mw_invalidate(struct sroce_mw *mw, struct sroce_pd *pd, u32 key)
{
	unsigned long flags;
	int err = 0;

	spin_lock_irqsave(&mw->lock, flags);
	if (mw->ibmw.type != IB_MW_TYPE_2 || key != mw->rkey ||
	    mw->ibmw.pd != &pd->ibpd || !mw->bound)
		err = -EINVAL;
	else
		sroce_mw_unbind(mw);
	spin_unlock_irqrestore(&mw->lock, flags);
	return err;
}

const struct ib_device_ops sroce_mw_ops = {
	.alloc_mw = sroce_alloc_mw,
	.dealloc_mw = sroce_dealloc_mw,

	INIT_RDMA_OBJ_SIZE(ib_mw, sroce_mw, ibmw),
};
