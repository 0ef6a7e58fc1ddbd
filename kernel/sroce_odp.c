// SPDX-License-Identifier: GPL-2.0-only
/*
 * sroce on-demand paging (seed-rules R5.3).
 *
 * An ODP MR pins nothing. Its pages live in an ib_umem_odp, whose page
 * table says whether page i is mapped for the device, with which rights
 * (sroce_odp_perm(): SROCE_ODP_READ, SROCE_ODP_WRITE) and, sroce using
 * virtual DMA, which page (sroce_odp_va_page(); the table's form depends
 * on the kernel: sroce_compat.h). An explicit MR has one umem for its range;
 * an implicit MR (the whole address space) has a root umem and, created on
 * first touch, one child umem per SROCE_ODP_CHILD_SHIFT-sized slice of the
 * address space.
 *
 * Accesses (sroce_mr_copy, sroce_mr_atomic, sroce_mr_prefault) run where
 * the QP's engines run, the receive softirq included, as an RNIC's do,
 * and never sleep: pages the device has mapped are used at once, without
 * umem_mutex. Each
 * umem has a struct sroce_odp_umem (odp->private): its usable bitmap says
 * which page table entries may be used so, and its rwlock, held for reading
 * while the bytes are copied, keeps them mapped meanwhile.
 *
 * Faults. A page not mapped with the rights an access needs is a fault:
 * the access returns -EWOULDBLOCK, the engine notes the fault and stops
 * where it can start again (struct sroce_odp_fault), and process context (the
 * doorbell caller, or a work item of sroce_odp_wq) maps the range with no
 * engine owned (sroce_odp_map(): hmm_range_fault via
 * ib_umem_odp_map_dma_and_lock, then the pages are marked usable) before
 * the engines go on. So a fault delays only the QP that hit it, by the
 * time the fault takes; no packet is dropped, no RNR NAK is sent, and no
 * transport timer has to fire (neither the packets held behind a fault
 * nor a flood of retransmissions that real RNICs show can happen). Only
 * a request its requester sends again, once a fault outlasts its ACK
 * timeout, gets an RNR NAK (sroce_resp_held_resent()). The
 * mapping lives in the umem: every QP that later touches the page finds
 * it mapped.
 *
 * Invalidation. The umem's MMU interval notifier (sroce_odp_invalidate)
 * takes umem_mutex, clears the range's usable bits under the write lock
 * (so it waits for the accesses in progress there), then unmaps the
 * pages. A page cannot be unmapped, freed or replaced (munmap,
 * MADV_DONTNEED, COW after fork, mprotect, migration) while its bytes are
 * copied, and the next access faults the new page in.
 *
 * Locks, outermost first: mr->odp_child_lock serialises adding and
 * removing implicit children (mr->odp_children, an xarray: lookups under
 * RCU without it); umem_mutex (ib_umem_odp) protects the page table
 * and the notifier sequence; sroce_odp_umem.lock, see there. Only the last
 * is taken in atomic context. An MR has at most SROCE_ODP_MAX_CHILDREN, an
 * access needing one more fails (-EFAULT).
 *
 * Children's lifetime. An access holds a reference on the umem it uses
 * (sroce_odp_umem.users) from its lookup to sroce_odp_unhold(). When an
 * munmap leaves a child with no page mapped, the notifier marks it
 * SROCE_ODP_UNMAPPED and queues the MR's reaper (sroce_odp_reap), which
 * takes it out of the xarray, waits an RCU grace period (a lookup that
 * found it has its reference by then) and for the references to go, and
 * releases it: its memory comes back without waiting for dereg_mr. The next
 * access to that slice makes a new child.
 */
#include <linux/bitmap.h>
#include <linux/hmm.h>
#include <linux/highmem.h>
#include <linux/list.h>
#include <linux/mmu_notifier.h>
#include <linux/rcupdate.h>
#include <linux/refcount.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/workqueue.h>
#include <linux/xarray.h>
#include <rdma/ib_umem_odp.h>

#include "sroce.h"
#include "sroce_key.h"
#include "sroce_mem.h"
#include "sroce_odp.h"
#include "sroce_ref.h"

#include "sroce_trace.h"

/*
 * sroce's side of one ib_umem_odp (its ->private). Bit i of usable: page
 * i is mapped (sroce_odp_perm(), whose rights may grow meanwhile)
 * and stays mapped while lock is held for reading. Bits are set under
 * umem_mutex and lock (write) after a map; the notifier clears them under
 * both before it unmaps. lock is taken with BHs off: accesses run in the
 * receive softirq.
 */
struct sroce_odp_umem {
	rwlock_t lock;
	/*
	 * One for the MR's hold on the umem (an implicit child: while it is
	 * in odp_children), one per access using it. An implicit child is
	 * released once this is 0 (sroce_odp_reap).
	 */
	refcount_t users;
	struct ib_umem_odp *odp;
	struct sroce_mr *mr;		/* implicit children: the MR; else NULL */
	struct list_head reap_entry;	/* sroce_odp_reap()'s list */
	unsigned long usable[];
};

/*
 * An implicit MR's root umem's ->private. dying is set, under
 * mr->odp_child_lock, when the MR is released: the reaper leaves its
 * children to sroce_odp_release() from then on.
 */
struct sroce_odp_implicit {
	struct sroce_mr *mr;
	struct work_struct reap;
	bool dying;
};

/* odp_children mark: an munmap left the child with no page mapped. */
#define SROCE_ODP_UNMAPPED XA_MARK_0

/* Faults the engines noted, and prefetches (ibv_advise_mr without FLUSH). */
static struct workqueue_struct *sroce_odp_wq;

int sroce_odp_module_init(void)
{
	sroce_odp_wq = alloc_workqueue("sroce_odp", WQ_UNBOUND, 0);
	return sroce_odp_wq ? 0 : -ENOMEM;
}

void sroce_odp_module_exit(void)
{
	destroy_workqueue(sroce_odp_wq);
}

static struct sroce_dev *sroce_odp_dev(struct ib_umem_odp *odp)
{
	return to_sroce_dev(odp->umem.ibdev);
}

/* A fault met in the receive softirq (counted apart: see observability.md). */
static void sroce_odp_count_deferred(struct sroce_dev *sdev)
{
	if (!sroce_odp_may_fault())
		sroce_count(sdev, SROCE_CNT_ODP_FAULT_DEFERRED);
}

/* Index in the page table (and usable) of the page holding address @va. */
static unsigned long sroce_odp_index(struct ib_umem_odp *odp, u64 va)
{
	return (va - ib_umem_start(odp)) >> odp->page_shift;
}

/*
 * Attach a struct sroce_odp_umem to a new umem: explicit (@mr NULL) or a
 * child of @mr.
 */
static int sroce_odp_umem_attach(struct ib_umem_odp *odp, struct sroce_mr *mr)
{
	size_t bits = ib_umem_odp_num_pages(odp);
	struct sroce_odp_umem *su;

	su = kvzalloc(struct_size(su, usable, BITS_TO_LONGS(bits)),
		      GFP_KERNEL_ACCOUNT);
	if (!su)
		return -ENOMEM;
	rwlock_init(&su->lock);
	refcount_set(&su->users, 1);
	su->odp = odp;
	su->mr = mr;
	INIT_LIST_HEAD(&su->reap_entry);
	/* The notifier may run already: it reads this under umem_mutex. */
	mutex_lock(&odp->umem_mutex);
	odp->private = su;
	mutex_unlock(&odp->umem_mutex);
	return 0;
}

/* An access is done with @odp (see sroce_odp_umem_of()). Any context. */
static void sroce_odp_umem_put(struct ib_umem_odp *odp)
{
	struct sroce_odp_umem *su = odp->private;

	sroce_ref_put(&su->users);
}

/* Release a umem and its struct sroce_odp_umem. No access in progress. */
static void sroce_odp_umem_release(struct ib_umem_odp *odp)
{
	struct sroce_odp_umem *su = odp->private;

	ib_umem_odp_release(odp);	/* its notifier is gone after this */
	kvfree(su);
}

/*
 * Have the reaper free @odp, a child of @mr. From the notifier (umem_mutex
 * held): the child, its MR and the root's state outlive its notifier.
 */
static void sroce_odp_child_unmapped(struct sroce_mr *mr,
				     struct ib_umem_odp *odp)
{
	struct sroce_odp_implicit *imp = mr->odp->private;

	/* A no-op if another child has the index by now: it is looked at. */
	xa_set_mark(&mr->odp_children, ib_umem_start(odp) >> SROCE_ODP_CHILD_SHIFT,
		    SROCE_ODP_UNMAPPED);
	queue_work(sroce_odp_wq, &imp->reap);
}

/*
 * MMU interval notifier: the range of @mni's umem overlapping @range is
 * about to change. Stop accesses to those pages and unmap them; the next
 * access faults them in again.
 */
static bool sroce_odp_invalidate(struct mmu_interval_notifier *mni,
				 const struct mmu_notifier_range *range,
				 unsigned long cur_seq)
{
	struct ib_umem_odp *odp = container_of(mni, struct ib_umem_odp, notifier);
	struct sroce_odp_umem *su;
	unsigned long first;
	u64 start, end;

	if (!mmu_notifier_range_blockable(range))
		return false;
	mutex_lock(&odp->umem_mutex);
	mmu_interval_set_seq(mni, cur_seq);
	start = max_t(u64, ib_umem_start(odp), range->start);
	end = min_t(u64, ib_umem_end(odp), range->end);
	su = odp->private;	/* NULL: registration, nothing usable yet */
	if (start < end && su) {
		first = sroce_odp_index(odp, start);
		write_lock_bh(&su->lock);
		bitmap_clear(su->usable, first,
			     sroce_odp_index(odp, end - 1) - first + 1);
		write_unlock_bh(&su->lock);
	}
	if (start < end)
		ib_umem_odp_unmap_dma_pages(odp, start, end);
	/* An implicit child left with nothing mapped by an munmap: free it. */
	if (range->event == MMU_NOTIFY_UNMAP && su && su->mr && !odp->npages)
		sroce_odp_child_unmapped(su->mr, odp);
	mutex_unlock(&odp->umem_mutex);
	sroce_count(sroce_odp_dev(odp), SROCE_CNT_ODP_INVALIDATIONS);
	return true;
}

static const struct mmu_interval_notifier_ops sroce_odp_mni_ops = {
	.invalidate = sroce_odp_invalidate,
};

/*
 * The reaper of an implicit MR: releases the children an munmap left with
 * nothing mapped (SROCE_ODP_UNMAPPED), once no access uses them. Work item
 * on sroce_odp_wq.
 */
static void sroce_odp_reap(struct work_struct *work)
{
	struct sroce_odp_implicit *imp =
		container_of(work, struct sroce_odp_implicit, reap);
	struct sroce_odp_umem *su, *next;
	struct sroce_mr *mr = imp->mr;
	struct ib_umem_odp *child;
	unsigned long idx;
	LIST_HEAD(dead);
	bool empty;
	u32 n = 0;

	mutex_lock(&mr->odp_child_lock);
	if (imp->dying)
		goto out_unlock;
	xa_for_each_marked(&mr->odp_children, idx, child, SROCE_ODP_UNMAPPED) {
		xa_clear_mark(&mr->odp_children, idx, SROCE_ODP_UNMAPPED);
		/* An access may have mapped pages since: then it stays. */
		mutex_lock(&child->umem_mutex);
		empty = !child->npages;
		mutex_unlock(&child->umem_mutex);
		if (!empty)
			continue;
		xa_erase(&mr->odp_children, idx);
		su = child->private;
		list_add_tail(&su->reap_entry, &dead);
	}
out_unlock:
	mutex_unlock(&mr->odp_child_lock);
	if (list_empty(&dead))
		return;

	/* A lookup that found one of them before its erase has its ref now. */
	synchronize_rcu();
	list_for_each_entry_safe(su, next, &dead, reap_entry) {
		/* The xarray's reference; then wait for the accesses' ones. */
		sroce_ref_put(&su->users);
		sroce_ref_wait_zero(&su->users);
		sroce_odp_umem_release(su->odp);
		n++;
	}
	mutex_lock(&mr->odp_child_lock);
	mr->odp_nchildren -= n;
	mutex_unlock(&mr->odp_child_lock);
}

/* The state of an implicit MR, in its root umem. */
static int sroce_odp_implicit_attach(struct sroce_mr *mr,
				     struct ib_umem_odp *root)
{
	struct sroce_odp_implicit *imp = kzalloc(sizeof(*imp), GFP_KERNEL_ACCOUNT);

	if (!imp)
		return -ENOMEM;
	imp->mr = mr;
	INIT_WORK(&imp->reap, sroce_odp_reap);
	root->private = imp;	/* the root has no notifier */
	return 0;
}

/* ibv_reg_mr(pd, NULL, SIZE_MAX, ...): the whole address space. */
bool sroce_odp_is_implicit(u64 start, u64 length)
{
	return !start && length == U64_MAX;
}

/**
 * sroce_odp_init - the umem of a new ODP MR
 * @mr: the MR (SROCE_MR_ODP, not yet published)
 * @start: user address of its first byte (0 for implicit)
 * @length: its length (U64_MAX for implicit)
 * @access: IB_ACCESS_* (IB_ACCESS_ON_DEMAND set)
 *
 * Process context of the registering task (its mm is the MR's). Returns 0
 * or a negative errno.
 */
int sroce_odp_init(struct sroce_mr *mr, u64 start, u64 length, int access)
{
	struct ib_device *ibdev = mr->ibmr.pd->device;
	struct ib_umem_odp *odp;
	int err;

	/* Pages are reached through the kernel's addresses of them. */
	if (!ib_uses_virt_dma(ibdev))
		return -EOPNOTSUPP;
	xa_init(&mr->odp_children);
	mutex_init(&mr->odp_child_lock);
	mr->odp_nchildren = 0;
	if (sroce_odp_is_implicit(start, length)) {
		odp = ib_umem_odp_alloc_implicit(ibdev, access);
		mr->odp_va = 0;
	} else {
		odp = ib_umem_odp_get(ibdev, start, length, access,
				      &sroce_odp_mni_ops);
		mr->odp_va = start;
	}
	if (IS_ERR(odp))
		return PTR_ERR(odp);
	/* An implicit root maps nothing itself: its children do. */
	if (odp->is_implicit_odp)
		err = sroce_odp_implicit_attach(mr, odp);
	else
		err = sroce_odp_umem_attach(odp, NULL);
	if (err)
		goto err_release;
	mr->odp = odp;
	return 0;

err_release:
	ib_umem_odp_release(odp);
	return err;
}

/* After the MR left the key table: no access can be in progress. */
void sroce_odp_release(struct sroce_mr *mr)
{
	struct sroce_odp_implicit *imp;
	struct ib_umem_odp *child;
	unsigned long idx;

	if (!mr->odp)
		return;
	if (!mr->odp->is_implicit_odp) {
		sroce_odp_umem_release(mr->odp);
		mr->odp = NULL;
		return;
	}
	imp = mr->odp->private;
	mutex_lock(&mr->odp_child_lock);
	imp->dying = true;
	mutex_unlock(&mr->odp_child_lock);
	/* Those the reaper took out are its to release: waited for below. */
	xa_for_each(&mr->odp_children, idx, child)
		sroce_odp_umem_release(child);
	xa_destroy(&mr->odp_children);
	/* No child, so no notifier is left to queue the reaper again. */
	cancel_work_sync(&imp->reap);
	ib_umem_odp_release(mr->odp);
	kfree(imp);
	mr->odp = NULL;
}

/*
 * The umem that tracks user address @va, with a reference for the access
 * (sroce_odp_umem_put(), or sroce_odp_unhold(), gives it back): the MR's
 * own, or for an implicit MR the child for @va's slice, created on first
 * use (which sleeps: unless @may_sleep a missing child is a fault,
 * -EWOULDBLOCK).
 */
static struct ib_umem_odp *sroce_odp_umem_of(struct sroce_mr *mr, u64 va,
					     bool may_sleep)
{
	unsigned long idx = va >> SROCE_ODP_CHILD_SHIFT;
	struct sroce_odp_umem *su;
	struct ib_umem_odp *child;
	int err;

	if (!mr->odp->is_implicit_odp) {
		su = mr->odp->private;
		refcount_inc(&su->users);	/* the MR's is held */
		return mr->odp;
	}
	if (va >= TASK_SIZE_MAX)
		return ERR_PTR(-EFAULT);
	rcu_read_lock();
	child = xa_load(&mr->odp_children, idx);
	/* 0: the reaper has it; the slice gets a new child. */
	if (child) {
		su = child->private;
		if (!refcount_inc_not_zero(&su->users))
			child = NULL;
	}
	rcu_read_unlock();
	if (child)
		return child;
	if (!may_sleep) {
		sroce_odp_count_deferred(sroce_odp_dev(mr->odp));
		return ERR_PTR(-EWOULDBLOCK);
	}
	mutex_lock(&mr->odp_child_lock);
	child = xa_load(&mr->odp_children, idx);
	if (child)
		goto out_ref;	/* in the xarray: its reference is held */
	if (mr->odp_nchildren >= SROCE_ODP_MAX_CHILDREN) {
		ibdev_warn_ratelimited(mr->ibmr.device,
				       "implicit ODP MR 0x%x: over %lu slices touched, access refused\n",
				       mr->lkey, (unsigned long)SROCE_ODP_MAX_CHILDREN);
		child = ERR_PTR(-ENOSPC);
		goto out_unlock;
	}
	child = ib_umem_odp_alloc_child(mr->odp, idx << SROCE_ODP_CHILD_SHIFT,
					1UL << SROCE_ODP_CHILD_SHIFT,
					&sroce_odp_mni_ops);
	if (IS_ERR(child))
		goto out_unlock;
	err = sroce_odp_umem_attach(child, mr);
	if (err)
		goto err_release;
	/* Published with its sroce_odp_umem: lookups need no lock. */
	err = xa_err(xa_store(&mr->odp_children, idx, child, GFP_KERNEL));
	if (err)
		goto err_release;
	mr->odp_nchildren++;
out_ref:
	su = child->private;
	refcount_inc(&su->users);
out_unlock:
	mutex_unlock(&mr->odp_child_lock);
	return child;

err_release:
	sroce_odp_umem_release(child);
	mutex_unlock(&mr->odp_child_lock);
	return ERR_PTR(err);
}

/* User address of MR byte @iova. */
static u64 sroce_odp_va(struct sroce_mr *mr, u64 iova)
{
	return mr->odp_va + (iova - mr->iova);
}

/* Are the pages of [va, va + len) usable with @perm? su->lock held. */
static bool sroce_odp_usable(struct ib_umem_odp *odp, u64 va, u64 len,
			     u64 perm)
{
	struct sroce_odp_umem *su = odp->private;
	unsigned long i, last = sroce_odp_index(odp, va + len - 1);

	for (i = sroce_odp_index(odp, va); i <= last; i++)
		if (!test_bit(i, su->usable) ||
		    (sroce_odp_perm(odp, i) & perm) != perm)
			return false;
	return true;
}

/* Mark the mapped pages of [va, va + len) usable. umem_mutex held. */
static void sroce_odp_mark_usable(struct ib_umem_odp *odp, u64 va, u64 len)
{
	struct sroce_odp_umem *su = odp->private;
	unsigned long i, last = sroce_odp_index(odp, va + len - 1);

	lockdep_assert_held(&odp->umem_mutex);
	write_lock_bh(&su->lock);
	for (i = sroce_odp_index(odp, va); i <= last; i++)
		if (sroce_odp_perm(odp, i))
			__set_bit(i, su->usable);
	write_unlock_bh(&su->lock);
}

/* Pages of [va, va + len) not mapped with all of @perm. umem_mutex held. */
static u32 sroce_odp_missing(struct ib_umem_odp *odp, u64 va, u64 len,
			     u64 perm)
{
	unsigned long i, last = sroce_odp_index(odp, va + len - 1);
	u32 missing = 0;

	for (i = sroce_odp_index(odp, va); i <= last; i++)
		if ((sroce_odp_perm(odp, i) & perm) != perm)
			missing++;
	return missing;
}

/*
 * How many times ib_umem_odp_map_dma_and_lock() is called for one fault
 * while it fails with -EBUSY: it gives up so after HMM_RANGE_DEFAULT_TIMEOUT
 * (1 s) of invalidations of the range during its page walks, or after a
 * single one when the task was kept off its CPU that long (a guest whose
 * host did not run it). The memory is mapped all along: that is no access
 * error, and failing it would put the QP in error. But the process may
 * invalidate the range in a loop for ever: after this many tries (about
 * as many seconds) the access fails; a task being killed stops at once.
 */
#define SROCE_ODP_BUSY_TRIES 5

/* ib_umem_odp_map_dma_and_lock(), tried again while the range is busy. */
static int sroce_odp_map_dma(struct ib_umem_odp *odp, u64 va, u64 len,
			     u64 perm, bool fault)
{
	unsigned int tries = 0;
	int ret;

	for (;;) {
		ret = sroce_odp_map_dma_and_lock(odp, va, len, perm, fault);
		if (ret != -EBUSY || ++tries >= SROCE_ODP_BUSY_TRIES ||
		    fatal_signal_pending(current))
			return ret;
		cond_resched();
	}
}

/*
 * Make [va, va + len) (inside @odp, len > 0) accessible for reading, or
 * writing if @write, faulting pages in as needed, and mark them usable.
 * On success returns 0 with odp->umem_mutex held: the pages stay mapped
 * until it is released. Returns -EFAULT if the range cannot be mapped so
 * (no VMA, no permission). Sleeps.
 */
static int sroce_odp_map_lock(struct sroce_mr *mr, struct ib_umem_odp *odp,
			      u64 va, u64 len, bool write)
{
	struct sroce_dev *sdev = sroce_odp_dev(odp);
	u64 perm = SROCE_ODP_READ | (write ? SROCE_ODP_WRITE : 0);
	u64 rw = SROCE_ODP_READ | SROCE_ODP_WRITE;
	u32 missing;
	int ret;

	might_sleep();
	mutex_lock(&odp->umem_mutex);
	missing = sroce_odp_missing(odp, va, len, perm);
	if (!missing)
		goto out_mark;
	mutex_unlock(&odp->umem_mutex);

	trace_sroce_odp_fault_start(dev_name(&sdev->ibdev.dev), mr->lkey, va,
				    len, write, missing);
	sroce_count(sdev, SROCE_CNT_ODP_FAULTS);
	/*
	 * Mapping a range sets the rights of every page in it, those already
	 * mapped included: map a writable MR writable even for a read, as
	 * mlx5 does, so that a page written before is not downgraded (its
	 * dirty bit is set from the write right when it is unmapped). Read
	 * only if the process cannot write there (mprotect, read-only VMA).
	 */
	if (odp->umem.writable) {
		ret = sroce_odp_map_dma(odp, va, len, rw, true);
		if (ret >= 0 || write)
			goto out;
	}
	ret = sroce_odp_map_dma(odp, va, len, perm, true);
out:
	trace_sroce_odp_fault_end(dev_name(&sdev->ibdev.dev), mr->lkey, va,
				  len, ret < 0 ? ret : 0);
	if (ret < 0)
		return -EFAULT;
	sroce_count_add(sdev, SROCE_CNT_ODP_PAGES_FAULTED, missing);
out_mark:
	sroce_odp_mark_usable(odp, va, len);
	return 0;
}

/*
 * Hold [va, va + len) of @odp (inside it, len > 0, from sroce_odp_umem_of())
 * mapped for reading, or writing if @write. Returns 0 with su->lock held
 * for reading (the pages were usable: *faulted false) or, if @may_sleep,
 * after a fault with umem_mutex held (*faulted true); sroce_odp_unhold()
 * lets go, of the umem's reference too. Returns -EWOULDBLOCK for a fault
 * when not @may_sleep, -EFAULT if the range cannot be mapped so, having
 * put the reference.
 */
static int sroce_odp_hold(struct sroce_mr *mr, struct ib_umem_odp *odp,
			  u64 va, u64 len, bool write, bool may_sleep,
			  bool *faulted)
{
	struct sroce_odp_umem *su = odp->private;
	u64 perm = SROCE_ODP_READ | (write ? SROCE_ODP_WRITE : 0);
	int err;

	read_lock_bh(&su->lock);
	if (sroce_odp_usable(odp, va, len, perm)) {
		*faulted = false;
		/* Kept for sroce_odp_unhold(): sparse cannot follow that. */
		__release(&su->lock);
		return 0;
	}
	read_unlock_bh(&su->lock);
	if (!may_sleep) {
		sroce_odp_count_deferred(sroce_odp_dev(odp));
		err = -EWOULDBLOCK;
		goto err_put;
	}
	*faulted = true;
	err = sroce_odp_map_lock(mr, odp, va, len, write);
	if (err)
		goto err_put;
	return 0;

err_put:
	sroce_odp_umem_put(odp);
	return err;
}

static void sroce_odp_unhold(struct ib_umem_odp *odp, bool faulted)
{
	struct sroce_odp_umem *su = odp->private;

	if (faulted) {
		mutex_unlock(&odp->umem_mutex);
	} else {
		__acquire(&su->lock);	/* taken in sroce_odp_hold() */
		read_unlock_bh(&su->lock);
	}
	sroce_odp_umem_put(odp);
}

/*
 * The umem for @va with a reference (sroce_odp_hold() and unhold() take it
 * over), or -EFAULT / -EWOULDBLOCK (see sroce_odp_umem_of()).
 */
static struct ib_umem_odp *sroce_odp_umem_get(struct sroce_mr *mr, u64 va,
					      bool may_sleep)
{
	struct ib_umem_odp *odp = sroce_odp_umem_of(mr, va, may_sleep);

	if (IS_ERR(odp) && PTR_ERR(odp) != -EWOULDBLOCK)
		return ERR_PTR(-EFAULT);
	return odp;
}

/**
 * sroce_odp_copy - sroce_mr_copy() for an ODP MR
 * @mr: the MR, looked up for a range covering [iova, iova + len)
 * @iova: first MR byte
 * @buf: kernel buffer
 * @len: bytes
 * @dir: SROCE_TO_MR or SROCE_FROM_MR
 *
 * Any context the engines run in; never sleeps. Returns 0, -EFAULT (an
 * implicit MR with no slice left for @iova) or -EWOULDBLOCK (a fault: part
 * of the copy may be done; the caller starts it again once the fault is
 * resolved, sroce_odp_fault_note()).
 */
int sroce_odp_copy(struct sroce_mr *mr, u64 iova, void *buf, u32 len,
		   enum sroce_copy_dir dir)
{
	bool write = dir == SROCE_TO_MR;
	u64 va = sroce_odp_va(mr, iova);
	struct ib_umem_odp *odp;
	unsigned int off;
	struct page *page;
	bool faulted;
	u32 n, chunk;
	void *p;
	int err;

	while (len) {
		odp = sroce_odp_umem_get(mr, va, false);
		if (IS_ERR(odp))
			return PTR_ERR(odp);
		n = min_t(u64, len, ib_umem_end(odp) - va);
		err = sroce_odp_hold(mr, odp, va, n, write, false, &faulted);
		if (err)
			return err;
		len -= n;
		while (n) {
			page = sroce_odp_va_page(odp, va, &off);
			chunk = min_t(u32, n, PAGE_SIZE - off);
			p = kmap_local_page(page) + off;
			if (write)
				memcpy(p, buf, chunk);
			else
				memcpy(buf, p, chunk);
			kunmap_local(p);
			buf += chunk;
			va += chunk;
			n -= chunk;
		}
		sroce_odp_unhold(odp, faulted);
	}
	return 0;
}

/**
 * sroce_odp_atomic - sroce_mr_atomic() for an ODP MR
 * @mr: the MR, looked up for the 8 bytes at @iova (8-byte aligned)
 * @iova: the word
 * @op: compare and swap, fetch and add, or ATOMIC WRITE
 * @swap_add: swap, add or written value
 * @comp: compare value
 * @orig: the word's value before the operation
 *
 * As sroce_odp_copy(); on -EWOULDBLOCK nothing was executed. Returns 0,
 * -EFAULT or -EWOULDBLOCK.
 */
int sroce_odp_atomic(struct sroce_mr *mr, u64 iova, enum sroce_atomic_op op,
		     u64 swap_add, u64 comp, u64 *orig)
{
	u64 va = sroce_odp_va(mr, iova);
	struct ib_umem_odp *odp;
	unsigned int off;
	struct page *page;
	bool faulted;
	int err;

	odp = sroce_odp_umem_get(mr, va, false);
	if (IS_ERR(odp))
		return PTR_ERR(odp);
	err = sroce_odp_hold(mr, odp, va, sizeof(u64), true, false, &faulted);
	if (err)
		return err;
	page = sroce_odp_va_page(odp, va, &off);
	sroce_atomic_on_page(page, off, op, swap_add, comp, orig);
	sroce_odp_unhold(odp, faulted);
	return 0;
}

/* How sroce_odp_map_range() gets pages the device has not mapped. */
enum sroce_odp_map {
	SROCE_ODP_MAP_CHECK,	/* it does not: -EWOULDBLOCK (never sleeps) */
	SROCE_ODP_MAP_FAULT,	/* faults them in (sleeps) */
	SROCE_ODP_MAP_PRESENT,	/* maps those the process has (sleeps) */
};

/*
 * Map [iova, iova + len) of @mr for the device, for reading or, if
 * @write, writing; for SROCE_ODP_MAP_PRESENT only the pages the process
 * has already, with the rights it has on them. Returns 0, -EFAULT or
 * (SROCE_ODP_MAP_CHECK) -EWOULDBLOCK.
 */
static int sroce_odp_map_range(struct sroce_mr *mr, u64 iova, u64 len,
			       bool write, enum sroce_odp_map how)
{
	bool may_sleep = how != SROCE_ODP_MAP_CHECK;
	u64 va = sroce_odp_va(mr, iova);
	struct ib_umem_odp *odp;
	bool faulted;
	u64 n;
	int ret;

	while (len) {
		odp = sroce_odp_umem_get(mr, va, may_sleep);
		if (IS_ERR(odp))
			return PTR_ERR(odp);
		n = min_t(u64, len, ib_umem_end(odp) - va);
		if (how == SROCE_ODP_MAP_PRESENT) {
			ret = sroce_odp_map_dma(odp, va, n, SROCE_ODP_READ,
						false);
			if (ret < 0) {
				sroce_odp_umem_put(odp);
				return -EFAULT;
			}
			sroce_odp_mark_usable(odp, va, n);
			mutex_unlock(&odp->umem_mutex);
			sroce_odp_umem_put(odp);
		} else {
			ret = sroce_odp_hold(mr, odp, va, n, write, may_sleep,
					     &faulted);
			if (ret)
				return ret;
			sroce_odp_unhold(odp, faulted);
		}
		va += n;
		len -= n;
	}
	return 0;
}

/**
 * sroce_odp_prefault - sroce_mr_prefault() for an ODP MR
 * @mr: the MR, looked up for the range
 * @iova: first byte
 * @len: bytes
 * @write: map for writing
 *
 * As sroce_odp_copy(). Returns 0, -EFAULT or -EWOULDBLOCK.
 */
int sroce_odp_prefault(struct sroce_mr *mr, u64 iova, u64 len, bool write)
{
	return sroce_odp_map_range(mr, iova, len, write, SROCE_ODP_MAP_CHECK);
}

/**
 * sroce_odp_map - resolve a fault an engine noted (struct sroce_odp_fault)
 * @mr: the MR, held
 * @iova: first byte
 * @len: bytes
 * @write: map for writing
 *
 * Process context, no engine owned: sleeps for as long as the process's
 * memory takes. Returns 0 or -EFAULT (not mapped in the process, or not
 * writable).
 */
int sroce_odp_map(struct sroce_mr *mr, u64 iova, u64 len, bool write)
{
	if (mr->type != SROCE_MR_ODP || !len)
		return 0;
	return sroce_odp_map_range(mr, iova, len, write, SROCE_ODP_MAP_FAULT);
}

/* sroce_odp_fault_hold() for [iova, iova + len), len > 0. */
static int sroce_odp_fault_hold_range(struct sroce_mr *mr, u64 iova, u64 len,
				      bool write, struct ib_umem_odp **held)
{
	struct ib_umem_odp *odp;
	u64 va, n;
	int err;

	va = sroce_odp_va(mr, iova);
	odp = sroce_odp_umem_get(mr, va, true);
	if (IS_ERR(odp))
		return -EFAULT;
	n = min_t(u64, len, ib_umem_end(odp) - va);
	if (len > n) {
		err = sroce_odp_map_range(mr, iova + n, len - n, write,
					  SROCE_ODP_MAP_FAULT);
		if (err)
			goto err_put;
	}
	err = sroce_odp_map_lock(mr, odp, va, n, write);
	if (err)
		goto err_put;
	*held = odp;
	return 0;

err_put:
	sroce_odp_umem_put(odp);
	return err;
}

/**
 * sroce_odp_fault_hold - resolve a noted fault and keep its start mapped
 * @mr: the MR, held
 * @iova: first byte
 * @len: bytes
 * @ahead: bytes after them to map as well if they can be (0: none)
 * @write: map for writing
 * @held: set to the umem held, or NULL
 *
 * As sroce_odp_map(), and on success the umem of the range's first byte
 * stays held with its umem_mutex until sroce_odp_fault_unhold(): the MMU
 * notifier cannot unmap those pages meanwhile, so the engines, run then,
 * find them usable even if the process invalidates the range in a loop
 * (without this, each retry could find the page dropped again). The rest
 * of a range over several implicit children is mapped first, not held.
 * [iova, iova + len + ahead) is mapped and held if it can be, so that the
 * operation the access is part of runs on without a fault per page (and
 * per munmap or MADV_DONTNEED the process may do meanwhile); else
 * [iova, iova + len) alone: whether the access fails depends on its own
 * bytes only. Process context, no engine owned. Returns 0 or -EFAULT.
 */
int sroce_odp_fault_hold(struct sroce_mr *mr, u64 iova, u64 len, u64 ahead,
			 bool write, struct ib_umem_odp **held)
{
	*held = NULL;
	if (mr->type != SROCE_MR_ODP || !len)
		return 0;
	if (ahead && !sroce_odp_fault_hold_range(mr, iova, len + ahead, write,
						 held))
		return 0;
	return sroce_odp_fault_hold_range(mr, iova, len, write, held);
}

/* Let go of what sroce_odp_fault_hold() held (@odp may be NULL). */
void sroce_odp_fault_unhold(struct ib_umem_odp *odp)
{
	if (!odp)
		return;
	mutex_unlock(&odp->umem_mutex);
	sroce_odp_umem_put(odp);
}

/* Run @work on the ODP workqueue (a fault resolved outside the engines). */
void sroce_odp_queue_work(struct work_struct *work)
{
	queue_work(sroce_odp_wq, work);
}

/* Prefetch [iova, iova + len) of @mr for @advice. Sleeps. */
static int sroce_odp_prefetch(struct sroce_mr *mr, u64 iova, u64 len,
			      enum ib_uverbs_advise_mr_advice advice)
{
	sroce_count(sroce_odp_dev(mr->odp), SROCE_CNT_ODP_PREFETCH);
	return sroce_odp_map_range(mr, iova, len,
				   advice == IB_UVERBS_ADVISE_MR_ADVICE_PREFETCH_WRITE,
				   advice == IB_UVERBS_ADVISE_MR_ADVICE_PREFETCH_NO_FAULT ?
				   SROCE_ODP_MAP_PRESENT : SROCE_ODP_MAP_FAULT);
}

/* An asynchronous prefetch: the MRs are held until it has run. */
struct sroce_prefetch_work {
	struct work_struct work;
	enum ib_uverbs_advise_mr_advice advice;
	u32 num_sge;
	struct {
		struct sroce_mr *mr;
		u64 iova;
		u64 len;
	} frag[] __counted_by(num_sge);
};

static void sroce_prefetch_work_fn(struct work_struct *w)
{
	struct sroce_prefetch_work *pw =
		container_of(w, struct sroce_prefetch_work, work);
	u32 i;

	for (i = 0; i < pw->num_sge; i++) {
		/* Advice only: a range that cannot be mapped is left alone. */
		sroce_odp_prefetch(pw->frag[i].mr, pw->frag[i].iova,
				   pw->frag[i].len, pw->advice);
		sroce_mr_put(pw->frag[i].mr);
	}
	kfree(pw);
}

/* The ODP MR of an advise_mr SGE with a reference, or an ERR_PTR. */
static struct sroce_mr *sroce_advise_lookup(struct sroce_dev *sdev,
					    struct sroce_pd *pd,
					    const struct ib_sge *sge,
					    int access)
{
	enum sroce_mr_err merr;
	struct sroce_mr *mr;

	mr = sroce_mr_lookup(sdev, sge->lkey, false, pd, 0, sge->addr,
			     sge->length, access, &merr);
	if (!mr)
		return ERR_PTR(merr == SROCE_MR_ERR_ACCESS ? -EPERM : -EINVAL);
	if (mr->type != SROCE_MR_ODP) {
		sroce_mr_put(mr);
		return ERR_PTR(-EINVAL);
	}
	return mr;
}

/**
 * sroce_advise_mr - ibv_advise_mr: prefetch pages of ODP MRs
 * @ibpd: the PD the MRs must belong to
 * @advice: PREFETCH (read), PREFETCH_WRITE or PREFETCH_NO_FAULT
 * @flags: IB_UVERBS_ADVISE_MR_FLAG_FLUSH: synchronous (done on return)
 * @sg_list: ranges (L_Key, address, length)
 * @num_sge: their number (> 0)
 * @attrs: unused
 *
 * Every SGE's L_Key is checked now, synchronous or not: -EINVAL for a bad
 * key, range or non-ODP MR, -EPERM for PREFETCH_WRITE without local write.
 * A synchronous prefetch returns -EFAULT if a range cannot be mapped.
 */
int sroce_advise_mr(struct ib_pd *ibpd, enum ib_uverbs_advise_mr_advice advice,
		    u32 flags, struct ib_sge *sg_list, u32 num_sge,
		    struct uverbs_attr_bundle *attrs)
{
	struct sroce_dev *sdev = to_sroce_dev(ibpd->device);
	struct sroce_pd *pd = to_sroce_pd(ibpd);
	struct sroce_prefetch_work *pw;
	struct sroce_mr *mr;
	int access = 0;
	int err = 0;
	u32 i;

	switch (advice) {
	case IB_UVERBS_ADVISE_MR_ADVICE_PREFETCH_WRITE:
		access = IB_ACCESS_LOCAL_WRITE;
		break;
	case IB_UVERBS_ADVISE_MR_ADVICE_PREFETCH:
	case IB_UVERBS_ADVISE_MR_ADVICE_PREFETCH_NO_FAULT:
		break;
	default:
		return -EOPNOTSUPP;
	}

	if (flags & IB_UVERBS_ADVISE_MR_FLAG_FLUSH) {
		for (i = 0; i < num_sge && !err; i++) {
			mr = sroce_advise_lookup(sdev, pd, &sg_list[i], access);
			if (IS_ERR(mr))
				return PTR_ERR(mr);
			err = sroce_odp_prefetch(mr, sg_list[i].addr,
						 sg_list[i].length, advice);
			sroce_mr_put(mr);
		}
		return err;
	}

	pw = kzalloc(struct_size(pw, frag, num_sge), GFP_KERNEL);
	if (!pw)
		return -ENOMEM;
	pw->advice = advice;
	pw->num_sge = num_sge;
	for (i = 0; i < num_sge; i++) {
		mr = sroce_advise_lookup(sdev, pd, &sg_list[i], access);
		if (IS_ERR(mr)) {
			err = PTR_ERR(mr);
			goto err_put;
		}
		pw->frag[i].mr = mr;
		pw->frag[i].iova = sg_list[i].addr;
		pw->frag[i].len = sg_list[i].length;
	}
	INIT_WORK(&pw->work, sroce_prefetch_work_fn);
	queue_work(sroce_odp_wq, &pw->work);
	return 0;

err_put:
	while (i--)
		sroce_mr_put(pw->frag[i].mr);
	kfree(pw);
	return err;
}
