/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * sroce memory objects: the key head that every MR and MW starts with,
 * struct sroce_mr and struct sroce_mw, and the inline helpers that need
 * nothing but them. Shared by the key table (sroce_key.c, which finds
 * the MR behind a key), the MR and MW verbs and memory access
 * (sroce_mr.c, sroce_mw.c), ODP (sroce_odp.c) and the engines; below all
 * of them: types and inlines only, no calls.
 */
#ifndef SROCE_MEM_H
#define SROCE_MEM_H

#include <linux/highmem.h>
#include <linux/mutex.h>
#include <linux/refcount.h>
#include <linux/spinlock.h>
#include <linux/types.h>
#include <linux/xarray.h>
#include <rdma/ib_umem.h>
#include <rdma/ib_verbs.h>
#include <rdma/sroce-abi.h>

enum sroce_key_kind {
	SROCE_KEY_MR,
	SROCE_KEY_MW,
};

/* What sdev->mr_xa holds. */
struct sroce_key {
	enum sroce_key_kind kind;	/* constant */
	u32 index;			/* constant: key >> 8 */
	refcount_t ref;			/* the table's, plus one per lookup */
};

enum sroce_mr_type {
	SROCE_MR_USER,		/* ib_umem pages */
	SROCE_MR_DMA,		/* all kernel virtual memory, iova = address */
	SROCE_MR_FAST,		/* fast registration: page list of kernel VAs */
	SROCE_MR_ODP,		/* on-demand paging: ib_umem_odp (sroce_odp.c) */
};

enum sroce_copy_dir {
	SROCE_TO_MR,		/* buf -> MR memory */
	SROCE_FROM_MR,		/* MR memory -> buf */
};

struct sroce_mr {
	struct ib_mr ibmr;
	struct sroce_key key;
	enum sroce_mr_type type;	/* constant */

	/* SROCE_MR_USER, constant after registration. */
	struct ib_umem *umem;
	struct page **pages;
	u32 npages;
	u32 page_off;			/* offset of the first byte in pages[0] */

	/*
	 * SROCE_MR_ODP: odp and odp_va constant after registration (odp is
	 * the root umem of an implicit MR); odp_children (implicit MRs: the
	 * child umem of each slice, by va >> SROCE_ODP_CHILD_SHIFT) changes
	 * under odp_child_lock. See sroce_odp.c.
	 */
	struct ib_umem_odp *odp;
	u64 odp_va;			/* user address of byte iova */
	struct xarray odp_children;
	struct mutex odp_child_lock;	/* changing odp_children */
	u32 odp_nchildren;		/* under odp_child_lock */

	/*
	 * SROCE_MR_FAST: page_list and nmapped are written by map_mr_sg
	 * (process context, by the MR's owner, before it posts the REG_MR
	 * that uses it) and read by REG_MR, which copies them into fr_pages
	 * under lock: a later map_mr_sg does not change a registration in
	 * use, and the engines never read page_list. max_pages (the length
	 * of both arrays) is constant.
	 */
	u64 *page_list;
	u32 max_pages;
	u32 nmapped;

	/*
	 * lock (spin_lock_irqsave: REG_MR and invalidation run in the
	 * engines) protects the registration below; lookups read it under
	 * the lock, and so do copies to and from a fast-registration MR
	 * (its translation changes with each REG_MR). ibmr.lkey/rkey mirror
	 * lkey/rkey.
	 */
	spinlock_t lock;
	bool valid;
	u32 lkey, rkey;
	int access;			/* IB_ACCESS_* */
	u64 iova, length;
	u32 page_shift;			/* SROCE_MR_FAST: of page_list */
	u32 fr_npages;			/* SROCE_MR_FAST: pages registered */
	u64 *fr_pages;			/* SROCE_MR_FAST: their kernel VAs */

	atomic_t num_mw;		/* windows bound to this MR; -1 dereg'ed */
};

/* IBA o10-36.2.2: remote write or atomic rights need local write too. */
static inline bool sroce_mr_access_ok(int access)
{
	return !(access & (IB_ACCESS_REMOTE_WRITE | IB_ACCESS_REMOTE_ATOMIC)) ||
	       (access & IB_ACCESS_LOCAL_WRITE);
}

/* Byte range [iova, iova + len) inside [base, base + size)? */
static inline bool sroce_range_ok(u64 base, u64 size, u64 iova, u64 len)
{
	return iova >= base && len <= size && iova - base <= size - len;
}

static inline struct sroce_mr *to_sroce_mr(struct ib_mr *ibmr)
{
	return container_of(ibmr, struct sroce_mr, ibmr);
}

/* What an atomic request does to its word. */
enum sroce_atomic_op {
	SROCE_ATOMIC_FETCH_ADD,
	SROCE_ATOMIC_CMP_SWAP,
	SROCE_ATOMIC_WRITE,	/* IBA 1.5 ATOMIC WRITE: no value back */
};

/*
 * An ATOMIC on the 8-byte aligned word at @off in @page with a real CPU
 * atomic: atomic against every other CPU and QP, with no global lock.
 * For pinned (sroce_mr.c) and ODP (sroce_odp.c) pages alike.
 */
static inline void sroce_atomic_on_page(struct page *page, unsigned int off,
					enum sroce_atomic_op op, u64 swap_add,
					u64 comp, u64 *orig)
{
	u8 *map = kmap_local_page(page);
	u64 *word = (u64 *)(map + off);

	switch (op) {
	case SROCE_ATOMIC_CMP_SWAP:
		*orig = cmpxchg64(word, comp, swap_add);
		break;
	case SROCE_ATOMIC_FETCH_ADD:
		*orig = atomic64_fetch_add(swap_add, (atomic64_t *)word);
		break;
	case SROCE_ATOMIC_WRITE:
		/* One store: no reader sees half of it. */
		*orig = 0;
		atomic64_set((atomic64_t *)word, swap_add);
		break;
	}
	kunmap_local(map);
}

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

#endif /* SROCE_MEM_H */
