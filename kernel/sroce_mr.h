/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * sroce memory regions and the key table they share with memory windows.
 *
 * sdev->mr_xa maps a key index (key >> 8) to a struct sroce_key, the head
 * of a struct sroce_mr or struct sroce_mw; the low byte of a key is its
 * variant. Lookups take the xarray lock (irqsave: engines run in softirq)
 * and a reference; deregistration removes the index and then waits until
 * the last reference is gone, so a looked-up object stays valid until
 * sroce_mr_put(). The engines hold a reference only while they handle one
 * packet or work request, never across the packets of a message (the
 * responder looks the R_Key up for each one), so that wait never depends
 * on a peer.
 */
#ifndef SROCE_MR_H
#define SROCE_MR_H

#include <linux/completion.h>
#include <linux/mutex.h>
#include <linux/refcount.h>
#include <linux/spinlock.h>
#include <linux/xarray.h>
#include <rdma/ib_umem.h>
#include <rdma/ib_verbs.h>
#include <rdma/sroce-abi.h>

struct sroce_dev;
struct sroce_pd;

enum sroce_key_kind {
	SROCE_KEY_MR,
	SROCE_KEY_MW,
};

/* What sdev->mr_xa holds. */
struct sroce_key {
	enum sroce_key_kind kind;	/* constant */
	u32 index;			/* constant: key >> 8 */
	refcount_t ref;			/* the table's, plus one per lookup */
	struct completion released;	/* ref reached zero */
};

enum sroce_mr_type {
	SROCE_MR_USER,		/* ib_umem pages */
	SROCE_MR_DMA,		/* all kernel virtual memory, iova = address */
	SROCE_MR_FAST,		/* fast registration: page list of kernel VAs */
	SROCE_MR_ODP,		/* on-demand paging: ib_umem_odp (sroce_odp.c) */
};

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

static inline struct sroce_mr *to_sroce_mr(struct ib_mr *ibmr)
{
	return container_of(ibmr, struct sroce_mr, ibmr);
}

/* Key table, shared with sroce_mw.c. */
int sroce_key_alloc(struct sroce_dev *sdev, struct sroce_key *k,
		    enum sroce_key_kind kind);
void sroce_key_publish(struct sroce_dev *sdev, struct sroce_key *k);
void sroce_key_remove(struct sroce_dev *sdev, struct sroce_key *k);
struct sroce_key *sroce_key_get(struct sroce_dev *sdev, u32 key);
void sroce_key_put(struct sroce_key *k);

/* For the engines: see the comments in sroce_mr.c. */
struct sroce_mr *sroce_mr_lookup(struct sroce_dev *sdev, u32 key, bool remote,
				 struct sroce_pd *pd, u64 qp_uid, u64 iova,
				 u64 len, int access, enum sroce_mr_err *err);
void sroce_mr_put(struct sroce_mr *mr);
int sroce_mr_copy(struct sroce_mr *mr, u64 iova, void *buf, u32 len,
		  enum sroce_copy_dir dir);
int sroce_mr_prefault(struct sroce_mr *mr, u64 iova, u64 len, bool write);
int sroce_mr_atomic(struct sroce_mr *mr, u64 iova, bool cmp_swap,
		    u64 swap_add, u64 comp, u64 *orig);
void sroce_atomic_on_page(struct page *page, unsigned int off, bool cmp_swap,
			  u64 swap_add, u64 comp, u64 *orig);
int sroce_sgl_copy(struct sroce_dev *sdev, struct sroce_pd *pd,
		   const struct sroce_sge *sges, u32 nsge, u64 offset,
		   void *buf, u32 len, enum sroce_copy_dir dir, int access);
void sroce_sgl_prefault(struct sroce_dev *sdev, struct sroce_pd *pd,
			const struct sroce_sge *sges, u32 nsge, u64 len);
int sroce_mr_local_invalidate(struct sroce_dev *sdev, struct sroce_pd *pd,
			      u32 key);
int sroce_mr_fast_reg(struct sroce_dev *sdev, struct sroce_pd *pd,
		      struct sroce_mr *mr, u32 key, int access);
enum sroce_mr_err sroce_mr_check(struct sroce_mr *mr, u32 key, bool remote,
				 struct sroce_pd *pd, u64 iova, u64 len,
				 int access);

extern const struct ib_device_ops sroce_mr_ops;

#endif /* SROCE_MR_H */
