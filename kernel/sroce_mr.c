// SPDX-License-Identifier: GPL-2.0-only
/*
 * sroce memory regions: user, DMA and fast-registration MRs (ODP MRs in
 * sroce_odp.c), and the copy, atomic and invalidation helpers the engines
 * use. Keys and their lookup are in sroce_key.c.
 */
#include <linux/highmem.h>
#include <linux/random.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <rdma/ib_umem.h>
#include <rdma/ib_verbs.h>

#include "sroce.h"
#include "sroce_crc.h"
#include "sroce_engine.h"
#include "sroce_key.h"
#include "sroce_mr.h"
#include "sroce_mw.h"
#include "sroce_odp.h"
#include "sroce_param.h"

static u32 sroce_new_key(u32 index)
{
	return index << 8 | get_random_u8();
}

/*
 * Kernel virtual address of MR byte @iova and how many bytes follow it
 * contiguously (within the page for page-based MRs). NULL if @iova is not
 * backed. User pages are returned through *page for kmap_local_page.
 * Not for ODP MRs; for fast-registration MRs with mr->lock held.
 */
static void *sroce_mr_chunk(struct sroce_mr *mr, u64 iova, struct page **page,
			    unsigned int *off, u64 *room)
{
	u64 pos, psz;
	u32 idx;

	*page = NULL;
	switch (mr->type) {
	case SROCE_MR_DMA:
		*room = U64_MAX;
		return (void *)(uintptr_t)iova;
	case SROCE_MR_USER:
		pos = mr->page_off + (iova - mr->iova);
		idx = pos >> PAGE_SHIFT;
		if (pos >> PAGE_SHIFT >= mr->npages)
			return NULL;
		*page = mr->pages[idx];
		*off = pos & ~PAGE_MASK;
		*room = PAGE_SIZE - *off;
		return NULL;
	case SROCE_MR_FAST:
		lockdep_assert_held(&mr->lock);
		psz = 1ULL << mr->page_shift;
		pos = (mr->iova & (psz - 1)) + (iova - mr->iova);
		if (pos >> mr->page_shift >= mr->fr_npages)
			return NULL;
		idx = pos >> mr->page_shift;
		*off = pos & (psz - 1);
		*room = psz - *off;
		return (void *)(uintptr_t)(mr->fr_pages[idx] + *off);
	case SROCE_MR_ODP:
		break;		/* sroce_odp.c: pages are faulted in */
	}
	return NULL;
}

static int sroce_mr_copy_pages(struct sroce_mr *mr, u64 iova, void *buf,
			       u32 len, enum sroce_copy_dir dir, u32 *crc)
{
	struct page *page;
	unsigned int off = 0;
	u64 room;
	void *va;
	u32 n;

	while (len) {
		va = sroce_mr_chunk(mr, iova, &page, &off, &room);
		if (!va && !page)
			return -EFAULT;
		n = min_t(u64, len, room);
		if (page)
			va = kmap_local_page(page) + off;
		if (dir == SROCE_TO_MR)
			memcpy(va, buf, n);
		else if (crc)
			*crc = sroce_crc32_copy(*crc, buf, va, n);
		else
			memcpy(buf, va, n);
		if (page)
			kunmap_local(va);
		buf += n;
		iova += n;
		len -= n;
	}
	return 0;
}

/*
 * A fast-registration MR's translation changes with each REG_MR and
 * invalidation: the copy is made under mr->lock, from one consistent view
 * of it, and only while it is valid, so that no byte moves once a
 * LOCAL_INV or SEND_WITH_INV has invalidated it. The engines copy at most
 * one packet's payload per call.
 */
static int sroce_mr_copy_fast(struct sroce_mr *mr, u64 iova, void *buf,
			      u32 len, enum sroce_copy_dir dir, u32 *crc)
{
	unsigned long flags;
	int err = -EFAULT;

	spin_lock_irqsave(&mr->lock, flags);
	if (mr->valid && sroce_range_ok(mr->iova, mr->length, iova, len))
		err = sroce_mr_copy_pages(mr, iova, buf, len, dir, crc);
	spin_unlock_irqrestore(&mr->lock, flags);
	return err;
}

/**
 * sroce_mr_copy - copy between a buffer and an MR's memory
 * @mr: an MR returned by sroce_mr_lookup() for a range covering the copy
 * @iova: first MR byte
 * @buf: kernel buffer
 * @len: bytes
 * @dir: SROCE_TO_MR or SROCE_FROM_MR
 * @crc: NULL, or (SROCE_FROM_MR) a running sroce_crc32() to which the
 *       bytes copied are added, in the same pass where the CRC allows
 *
 * Any context the engines run in; never sleeps. On an ODP MR a page not
 * mapped for the access is a fault, -EWOULDBLOCK: the caller must then
 * leave the packet or WQE as it was (part of the bytes may be copied),
 * pass the error through sroce_odp_fault_note() and call sroce_qp_defer(), so
 * that process context resolves the fault and the engine does it again
 * (sroce_exec.c). Returns 0, -EWOULDBLOCK, or -EFAULT if part of the
 * range is outside the MR or (fast registration) the MR was invalidated
 * since the lookup.
 */
int sroce_mr_copy(struct sroce_mr *mr, u64 iova, void *buf, u32 len,
		  enum sroce_copy_dir dir, u32 *crc)
{
	int err;

	if (mr->type == SROCE_MR_FAST)
		return sroce_mr_copy_fast(mr, iova, buf, len, dir, crc);
	if (!sroce_range_ok(mr->iova, mr->length, iova, len))
		return -EFAULT;
	if (mr->type != SROCE_MR_ODP)
		return sroce_mr_copy_pages(mr, iova, buf, len, dir, crc);
	err = sroce_odp_copy(mr, iova, buf, len, dir);
	if (!err && crc)
		*crc = sroce_crc32(*crc, buf, len);
	return err;
}

/**
 * sroce_mr_prefault - make an MR range accessible before using it
 * @mr: an MR returned by sroce_mr_lookup() for a range covering this one
 * @iova: first byte
 * @len: bytes
 * @write: the range will be written
 *
 * For an ODP MR, makes sure the range is mapped before the operation has
 * begun (a READ, before its first response), so that an access error is
 * found then; nothing to do for other MRs. Like sroce_mr_copy(): a page
 * not mapped is a fault, -EWOULDBLOCK. Returns 0, -EWOULDBLOCK or -EFAULT.
 */
int sroce_mr_prefault(struct sroce_mr *mr, u64 iova, u64 len, bool write)
{
	if (mr->type != SROCE_MR_ODP || !len)
		return 0;
	return sroce_odp_prefault(mr, iova, len, write);
}

/**
 * sroce_odp_fault_note - note the ODP fault an engine's access met
 * @f: the QP's note (qp->odp_fault; its engines' owner only)
 * @mr: the MR of the access, held by the caller
 * @iova: first byte of the access
 * @len: its bytes
 * @write: it writes
 *
 * For an access that returned -EWOULDBLOCK. Keeps the first fault noted
 * (the engine stops at it). Returns -EWOULDBLOCK, or -EFAULT if process
 * context could not map this range (f->failed): the access fails then,
 * as an access to unmapped memory does on an RNIC.
 */
int sroce_odp_fault_note(struct sroce_odp_fault *f, struct sroce_mr *mr,
			 u64 iova, u64 len, bool write)
{
	if (f->mr && f->failed && f->mr == mr && iova >= f->iova &&
	    iova + len <= f->iova + f->len && (f->write || !write)) {
		sroce_odp_fault_drop(f);
		return -EFAULT;
	}
	if (f->mr && !f->failed)
		return -EWOULDBLOCK;
	sroce_odp_fault_drop(f);
	refcount_inc(&mr->key.ref);
	*f = (struct sroce_odp_fault){ .mr = mr, .iova = iova, .len = len,
				   .write = write };
	return -EWOULDBLOCK;
}

/*
 * Bytes after a faulting access mapped with it: an operation of many
 * packets (an RDMA WRITE or READ of up to this much) takes one fault, not
 * one per page, and runs on while they are held mapped, as an RNIC faults
 * the rest of an RDMA operation with its first page. A bound on the time
 * the resolver holds the umem, and on what a fault allocates at once.
 */
#define SROCE_ODP_FAULT_AHEAD_MAX	SZ_1M

/**
 * sroce_odp_fault_ahead - the noted access's operation goes on after it
 * @f: the QP's note, as after sroce_odp_fault_note()
 * @mr: the MR of the access
 * @iova: first byte of the access
 * @ahead: bytes of the operation after the access (in @mr)
 *
 * If the fault noted is this access's, its resolver maps up to @ahead more
 * bytes of @mr after it if it can; a failure there is not the access's
 * (sroce_odp_fault_hold()). Owner of the QP's engines.
 */
void sroce_odp_fault_ahead(struct sroce_odp_fault *f, struct sroce_mr *mr,
			   u64 iova, u64 ahead)
{
	u64 room;

	if (f->mr != mr || f->failed || f->iova != iova)
		return;
	/* The access is inside the MR: what of it is left after the access. */
	room = mr->length - (f->iova + f->len - mr->iova);
	f->ahead = min3(ahead, room, (u64)SROCE_ODP_FAULT_AHEAD_MAX);
}

/**
 * sroce_odp_fault_map - resolve a noted fault: map its range
 * @f: the note, taken from the QP (its MR still held)
 * @held: the umem kept mapped, for sroce_odp_fault_unhold()
 *
 * Process context, no engine owned: sleeps for as long as the process's
 * memory takes (sroce_exec.c). On success the start of the range stays
 * mapped until sroce_odp_fault_unhold(@held) (sroce_odp_fault_hold()).
 * Sets f->failed if the range cannot be mapped so (no VMA, no
 * permission).
 */
void sroce_odp_fault_map(struct sroce_odp_fault *f, struct ib_umem_odp **held)
{
	f->failed = sroce_odp_fault_hold(f->mr, f->iova, f->len, f->ahead,
					 f->write, held) < 0;
}

/* Forget a note, dropping its MR. */
void sroce_odp_fault_drop(struct sroce_odp_fault *f)
{
	if (!f->mr)
		return;
	sroce_mr_put(f->mr);
	f->mr = NULL;
	f->failed = false;
}

/*
 * Not for ODP MRs; for fast-registration MRs with mr->lock held. The word
 * must be naturally aligned in memory, not only in the iova space, and so
 * within one page: -EINVAL if it is not (a fast-registration MR whose pages
 * are smaller than the word, or whose pages are not aligned to 8 bytes).
 */
static int sroce_mr_atomic_paged(struct sroce_mr *mr, u64 iova,
				 enum sroce_atomic_op op,
				 u64 swap_add, u64 comp, u64 *orig)
{
	unsigned int off = 0;
	struct page *page;
	u64 room;
	void *va;

	if (!sroce_range_ok(mr->iova, mr->length, iova, sizeof(u64)))
		return -EFAULT;
	va = sroce_mr_chunk(mr, iova, &page, &off, &room);
	if (!va && !page)
		return -EFAULT;
	if (va)
		off = offset_in_page(va);
	if (room < sizeof(u64) || off % sizeof(u64))
		return -EINVAL;
	if (!page) {
		if (!virt_addr_valid(va))
			return -EFAULT;
		page = virt_to_page(va);
	}
	sroce_atomic_on_page(page, off, op, swap_add, comp, orig);
	return 0;
}

/**
 * sroce_mr_atomic - execute an ATOMIC on an MR word
 * @mr: an MR returned by sroce_mr_lookup() for the 8 bytes at @iova
 * @iova: the word (8-byte aligned, seed-rules R1.2)
 * @op: compare and swap, fetch and add, or ATOMIC WRITE
 * @swap_add: swap, add or written value
 * @comp: compare value
 * @orig: set to the word's value before the operation
 *
 * Like sroce_mr_copy(); on -EWOULDBLOCK the ATOMIC was not executed.
 * Returns 0, -EWOULDBLOCK, -EFAULT, or -EINVAL (not executed) if the word
 * is not 8-byte aligned in the memory behind the MR.
 */
int sroce_mr_atomic(struct sroce_mr *mr, u64 iova, enum sroce_atomic_op op,
		    u64 swap_add, u64 comp, u64 *orig)
{
	unsigned long flags;
	int err;

	if (mr->type == SROCE_MR_ODP) {
		if (!sroce_range_ok(mr->iova, mr->length, iova, sizeof(u64)))
			return -EFAULT;
		if ((mr->odp_va + (iova - mr->iova)) % sizeof(u64))
			return -EINVAL;
		return sroce_odp_atomic(mr, iova, op, swap_add, comp, orig);
	}
	if (mr->type != SROCE_MR_FAST)
		return sroce_mr_atomic_paged(mr, iova, op, swap_add, comp,
					     orig);
	/* As in sroce_mr_copy_fast(): under the lock, only while valid. */
	spin_lock_irqsave(&mr->lock, flags);
	err = mr->valid ? sroce_mr_atomic_paged(mr, iova, op, swap_add, comp,
						orig) : -EFAULT;
	spin_unlock_irqrestore(&mr->lock, flags);
	return err;
}

/**
 * sroce_sgl_copy - copy between a buffer and a scatter/gather list
 * @sdev: the device
 * @pd: the PD of the QP whose SGL this is
 * @sges: the SGL, already copied out of the ring
 * @nsge: its length
 * @offset: bytes of the SGL to skip (the message so far)
 * @buf: the buffer
 * @len: the bytes to copy
 * @dir: SROCE_TO_MR (receive, READ response) or SROCE_FROM_MR (send)
 * @access: IB_ACCESS_LOCAL_WRITE when writing into the SGL, else 0
 * @fault: the QP's fault note (sroce_odp_fault_note())
 * @crc: as for sroce_mr_copy()
 *
 * Context as sroce_mr_copy(). Returns 0; -EWOULDBLOCK as sroce_mr_copy(),
 * the fault noted in @fault;
 * -EACCES on a protection fault (an SGE whose L_Key or range fails a check, or
 * ODP memory that cannot be mapped: IB_WC_LOC_PROT_ERR, seed-rules R3.5);
 * -EMSGSIZE if the SGL is shorter than @offset + @len (IB_WC_LOC_LEN_ERR).
 */
int sroce_sgl_copy(struct sroce_dev *sdev, struct sroce_pd *pd,
		   const struct sroce_sge *sges, u32 nsge, u64 offset,
		   void *buf, u32 len, enum sroce_copy_dir dir, int access,
		   struct sroce_odp_fault *fault, u32 *crc)
{
	enum sroce_mr_err merr;
	struct sroce_mr *mr;
	u32 i, n;
	int err;

	for (i = 0; i < nsge && len; i++) {
		if (offset >= sges[i].length) {
			offset -= sges[i].length;
			continue;
		}
		n = min_t(u64, len, sges[i].length - offset);
		mr = sroce_mr_lookup(sdev, sges[i].lkey, false, pd, 0,
				     sges[i].addr + offset, n, access, &merr);
		if (!mr)
			return -EACCES;
		err = sroce_mr_copy(mr, sges[i].addr + offset, buf, n, dir, crc);
		if (err == -EWOULDBLOCK)
			err = sroce_odp_fault_note(fault, mr,
						   sges[i].addr + offset, n,
						   dir == SROCE_TO_MR);
		sroce_mr_put(mr);
		if (err)
			return err == -EWOULDBLOCK ? err : -EACCES;
		buf += n;
		len -= n;
		offset = 0;
	}
	return len ? -EMSGSIZE : 0;
}

/**
 * sroce_sgl_prefault - note unmapped ODP memory an SGL will be written to
 * @sdev: the device
 * @pd: the PD of the QP whose SGL this is
 * @sges: the SGL, already copied out of the ring
 * @nsge: its length
 * @len: the bytes of it that will be written
 * @fault: the QP's fault note
 *
 * Advice only: a READ or ATOMIC requester running in process context
 * notes the first part of its sink that is not mapped yet, without
 * stopping, and its owner maps it while the request is on the wire, so
 * that the response, which arrives in the receive softirq, finds the
 * pages usable instead of stopping for a fault there. Errors are left to
 * the access that follows. Does nothing in softirq (nothing would resolve
 * the note soon), or for SGEs outside ODP MRs.
 */
void sroce_sgl_prefault(struct sroce_dev *sdev, struct sroce_pd *pd,
			const struct sroce_sge *sges, u32 nsge, u64 len,
			struct sroce_odp_fault *fault)
{
	enum sroce_mr_err merr;
	struct sroce_mr *mr;
	u32 i, n;
	int err;

	if (!sroce_odp_may_fault() || fault->mr)
		return;
	for (i = 0; i < nsge && len; i++) {
		n = min_t(u64, len, sges[i].length);
		len -= n;
		if (!n)
			continue;
		mr = sroce_mr_lookup(sdev, sges[i].lkey, false, pd, 0,
				     sges[i].addr, n, IB_ACCESS_LOCAL_WRITE,
				     &merr);
		if (!mr)
			return;
		err = sroce_mr_prefault(mr, sges[i].addr, n, true);
		if (err == -EWOULDBLOCK)
			sroce_odp_fault_note(fault, mr, sges[i].addr, n, true);
		sroce_mr_put(mr);
		if (err)
			return;
	}
}

/**
 * sroce_mr_local_invalidate - LOCAL_INV or a received SEND_WITH_INV
 * @sdev: the device
 * @pd: the PD of the QP
 * @key: the key to invalidate
 *
 * Invalidates a fast-registration MR or a type 2 window. Any context.
 * Returns 0 or -EINVAL (no such key, wrong variant, other PD, an MR that
 * is not a fast-registration MR, or one with windows bound).
 */
int sroce_mr_local_invalidate(struct sroce_dev *sdev, struct sroce_pd *pd,
			      u32 key)
{
	struct sroce_key *k = sroce_key_get(sdev, key);
	struct sroce_mr *mr;
	unsigned long flags;
	int err = 0;

	if (!k)
		return -EINVAL;
	if (k->kind == SROCE_KEY_MW) {
		err = sroce_mw_invalidate(container_of(k, struct sroce_mw, key),
					  pd, key);
		sroce_key_put(k);
		return err;
	}
	mr = container_of(k, struct sroce_mr, key);
	spin_lock_irqsave(&mr->lock, flags);
	if (mr->type != SROCE_MR_FAST || key != mr->rkey ||
	    mr->ibmr.pd != &pd->ibpd || atomic_read(&mr->num_mw))
		err = -EINVAL;
	else
		mr->valid = false;
	spin_unlock_irqrestore(&mr->lock, flags);
	sroce_key_put(k);
	return err;
}

/**
 * sroce_mr_fast_reg - a REG_MR work request
 * @sdev: the device
 * @pd: the PD of the QP posting it
 * @mr: a fast-registration MR (from ib_reg_wr.mr) mapped by map_mr_sg
 * @key: the new key (ib_reg_wr.key: same index, new variant)
 * @access: IB_ACCESS_* of the registration
 *
 * Any context. The MR must be invalid (never registered or invalidated).
 * The page list map_mr_sg made is copied: the registration does not
 * change until the MR is invalidated and registered again, whatever
 * map_mr_sg does meanwhile. Returns 0 or -EINVAL.
 */
int sroce_mr_fast_reg(struct sroce_dev *sdev, struct sroce_pd *pd,
		      struct sroce_mr *mr, u32 key, int access)
{
	u32 npages = min(READ_ONCE(mr->nmapped), mr->max_pages);
	u32 page_size = READ_ONCE(mr->ibmr.page_size);
	unsigned long flags;
	int err = 0;

	if (mr->type != SROCE_MR_FAST || (key >> 8) != mr->key.index ||
	    mr->ibmr.pd != &pd->ibpd || !npages ||
	    !is_power_of_2(page_size) || !sroce_mr_access_ok(access))
		return -EINVAL;
	spin_lock_irqsave(&mr->lock, flags);
	if (mr->valid) {
		err = -EINVAL;
	} else {
		mr->lkey = key;
		mr->rkey = key;
		mr->ibmr.lkey = key;
		mr->ibmr.rkey = key;
		mr->access = access;
		mr->iova = mr->ibmr.iova;
		mr->length = mr->ibmr.length;
		mr->page_shift = ilog2(page_size);
		memcpy(mr->fr_pages, mr->page_list,
		       npages * sizeof(*mr->fr_pages));
		mr->fr_npages = npages;
		mr->valid = true;
	}
	spin_unlock_irqrestore(&mr->lock, flags);
	return err;
}

static struct sroce_mr *sroce_mr_new(struct sroce_dev *sdev, struct ib_pd *ibpd,
				     enum sroce_mr_type type)
{
	struct sroce_mr *mr = kzalloc(sizeof(*mr), GFP_KERNEL);
	int err;

	if (!mr)
		return ERR_PTR(-ENOMEM);
	err = sroce_key_alloc(sdev, &mr->key, SROCE_KEY_MR);
	if (err) {
		kfree(mr);
		return ERR_PTR(err);
	}
	mr->type = type;
	spin_lock_init(&mr->lock);
	atomic_set(&mr->num_mw, 0);
	mr->ibmr.pd = ibpd;
	mr->lkey = sroce_new_key(mr->key.index);
	mr->rkey = mr->lkey;
	mr->ibmr.lkey = mr->lkey;
	mr->ibmr.rkey = mr->rkey;
	return mr;
}

static void sroce_mr_release(struct sroce_mr *mr)
{
	if (mr->type == SROCE_MR_ODP)
		sroce_odp_release(mr);
	if (mr->umem)
		ib_umem_release(mr->umem);
	kvfree(mr->pages);
	kfree(mr->page_list);
	kfree(mr->fr_pages);
	kfree(mr);
}

/*
 * A DMA MR covers all kernel memory at its kernel virtual addresses: with
 * remote rights its R_Key would let any peer read or write any kernel
 * address (and crash the kernel on an unmapped one). Local rights only,
 * which is all the core's PDs ask for (local_dma_lkey); a PD with
 * IB_PD_UNSAFE_GLOBAL_RKEY gets -EINVAL.
 */
static struct ib_mr *sroce_get_dma_mr(struct ib_pd *ibpd, int access)
{
	struct sroce_dev *sdev = to_sroce_dev(ibpd->device);
	struct sroce_mr *mr;

	if (access & ~IB_ACCESS_LOCAL_WRITE)
		return ERR_PTR(-EINVAL);
	mr = sroce_mr_new(sdev, ibpd, SROCE_MR_DMA);
	if (IS_ERR(mr))
		return ERR_CAST(mr);
	mr->access = access;
	mr->iova = 0;
	mr->length = U64_MAX;
	mr->valid = true;
	sroce_key_publish(sdev, &mr->key);
	return &mr->ibmr;
}

/* The pinned pages of @mr->umem, in order, for iova -> page lookups. */
static int sroce_mr_fill_pages(struct sroce_mr *mr, u64 start)
{
	struct ib_umem *umem = mr->umem;
	struct scatterlist *sg;
	u32 n = 0, i, j;

	mr->npages = ib_umem_num_pages(umem);
	mr->pages = kvcalloc(max(mr->npages, 1U), sizeof(*mr->pages),
			     sroce_user_gfp(true));
	if (!mr->pages)
		return -ENOMEM;
	for_each_sgtable_sg(&umem->sgt_append.sgt, sg, i) {
		for (j = 0; j < sg->length >> PAGE_SHIFT && n < mr->npages; j++)
			mr->pages[n++] = nth_page(sg_page(sg), j);
	}
	if (n != mr->npages)
		return -EFAULT;
	mr->page_off = offset_in_page(start);
	return 0;
}

/* The common end of a user (pinned or ODP) registration: valid, then visible. */
static struct ib_mr *sroce_mr_publish_user(struct sroce_dev *sdev,
					   struct sroce_mr *mr, u64 iova,
					   u64 length, int access)
{
	mr->access = access;
	mr->iova = iova;
	mr->length = length;
	mr->ibmr.iova = iova;
	mr->ibmr.length = length;
	mr->ibmr.page_size = PAGE_SIZE;
	mr->valid = true;
	sroce_key_publish(sdev, &mr->key);
	return &mr->ibmr;
}

/* An ODP MR: explicit, or implicit for (NULL, SIZE_MAX) (sroce_odp.c). */
static struct ib_mr *sroce_reg_odp_mr(struct sroce_dev *sdev,
				      struct ib_pd *ibpd, u64 start,
				      u64 length, u64 iova, int access)
{
	struct sroce_mr *mr;
	int err;

	if (sroce_odp_is_implicit(start, length)) {
		if (iova)
			return ERR_PTR(-EINVAL);
	} else if (!length || iova + length < iova ||
		   start + length < start ||
		   length > sdev->attr.max_mr_size) {
		return ERR_PTR(-EINVAL);
	}
	mr = sroce_mr_new(sdev, ibpd, SROCE_MR_ODP);
	if (IS_ERR(mr))
		return ERR_CAST(mr);
	err = sroce_odp_init(mr, start, length, access);
	if (err)
		goto err_remove;
	return sroce_mr_publish_user(sdev, mr, iova, length, access);

err_remove:
	sroce_key_remove(sdev, &mr->key);
	sroce_mr_release(mr);
	return ERR_PTR(err);
}

static struct ib_mr *sroce_reg_user_mr(struct ib_pd *ibpd, u64 start,
				       u64 length, u64 iova, int access,
				       struct ib_udata *udata)
{
	struct sroce_dev *sdev = to_sroce_dev(ibpd->device);
	struct sroce_mr *mr;
	int err;

	/* IBA o10-36.2.2, as the core and mlx5 check it. */
	if (!sroce_mr_access_ok(access))
		return ERR_PTR(-EINVAL);
	if (access & IB_ACCESS_ON_DEMAND)
		return sroce_reg_odp_mr(sdev, ibpd, start, length, iova, access);
	if (iova + length < iova || length > sdev->attr.max_mr_size)
		return ERR_PTR(-EINVAL);

	mr = sroce_mr_new(sdev, ibpd, SROCE_MR_USER);
	if (IS_ERR(mr))
		return ERR_CAST(mr);
	mr->umem = ib_umem_get(ibpd->device, start, length, access);
	if (IS_ERR(mr->umem)) {
		err = PTR_ERR(mr->umem);
		mr->umem = NULL;
		goto err_remove;
	}
	err = sroce_mr_fill_pages(mr, start);
	if (err)
		goto err_remove;
	return sroce_mr_publish_user(sdev, mr, iova, length, access);

err_remove:
	sroce_key_remove(sdev, &mr->key);
	sroce_mr_release(mr);
	return ERR_PTR(err);
}

/*
 * Re-registration (IBA 11.2.8.4). A new PD or new access rights change the
 * MR in place under its lock, keeping its keys: a packet checked before
 * the change finishes with the old rights, any later one sees the new.
 * A new translation, or write access over pages pinned for reading only,
 * needs new pinned pages: that is a new MR, which the core puts in the
 * old one's place and then destroys the old one.
 */
static struct ib_mr *sroce_rereg_user_mr(struct ib_mr *ibmr, int flags,
					 u64 start, u64 length, u64 iova,
					 int access, struct ib_pd *new_pd,
					 struct ib_udata *udata)
{
	struct sroce_mr *mr = to_sroce_mr(ibmr);
	unsigned long irqflags;

	if (mr->type != SROCE_MR_USER || !mr->umem ||
	    (flags & ~(IB_MR_REREG_TRANS | IB_MR_REREG_PD | IB_MR_REREG_ACCESS)))
		return ERR_PTR(-EINVAL);
	if (!(flags & IB_MR_REREG_ACCESS))
		access = mr->access;
	if (!sroce_mr_access_ok(access))
		return ERR_PTR(-EINVAL);
	/* The old MR is destroyed if we make a new one: windows forbid it. */
	if (atomic_read(&mr->num_mw))
		return ERR_PTR(-EBUSY);

	/* Pinned to on-demand paging is a new MR too (sroce_odp.c). */
	if (!(flags & IB_MR_REREG_TRANS) &&
	    ((ib_access_writable(access) && !mr->umem->writable) ||
	     (access & IB_ACCESS_ON_DEMAND))) {
		flags |= IB_MR_REREG_TRANS;
		start = mr->umem->address;
		length = mr->length;
		iova = mr->iova;
	}
	if (flags & IB_MR_REREG_TRANS)
		return sroce_reg_user_mr(new_pd, start, length, iova, access,
					 udata);

	spin_lock_irqsave(&mr->lock, irqflags);
	mr->access = access;
	WRITE_ONCE(mr->ibmr.pd, new_pd);
	spin_unlock_irqrestore(&mr->lock, irqflags);
	return NULL;
}

static struct ib_mr *sroce_alloc_mr(struct ib_pd *ibpd, enum ib_mr_type type,
				    u32 max_num_sg)
{
	struct sroce_dev *sdev = to_sroce_dev(ibpd->device);
	struct sroce_mr *mr;

	if (type != IB_MR_TYPE_MEM_REG)
		return ERR_PTR(-EINVAL);
	if (!max_num_sg || max_num_sg > sdev->attr.max_fast_reg_page_list_len)
		return ERR_PTR(-EINVAL);
	mr = sroce_mr_new(sdev, ibpd, SROCE_MR_FAST);
	if (IS_ERR(mr))
		return ERR_CAST(mr);
	mr->page_list = kcalloc(max_num_sg, sizeof(*mr->page_list), GFP_KERNEL);
	mr->fr_pages = kcalloc(max_num_sg, sizeof(*mr->fr_pages), GFP_KERNEL);
	if (!mr->page_list || !mr->fr_pages) {
		sroce_key_remove(sdev, &mr->key);
		sroce_mr_release(mr);
		return ERR_PTR(-ENOMEM);
	}
	mr->max_pages = max_num_sg;
	/* Invalid until a REG_MR work request registers it. */
	sroce_key_publish(sdev, &mr->key);
	return &mr->ibmr;
}

static int sroce_set_page(struct ib_mr *ibmr, u64 addr)
{
	struct sroce_mr *mr = to_sroce_mr(ibmr);

	if (mr->nmapped >= mr->max_pages)
		return -ENOMEM;
	/* Virtual DMA: the "DMA address" is a kernel virtual address. */
	mr->page_list[mr->nmapped++] = addr;
	return 0;
}

static int sroce_map_mr_sg(struct ib_mr *ibmr, struct scatterlist *sg,
			   int sg_nents, unsigned int *sg_offset)
{
	struct sroce_mr *mr = to_sroce_mr(ibmr);

	mr->nmapped = 0;
	return ib_sg_to_pages(ibmr, sg, sg_nents, sg_offset, sroce_set_page);
}

static int sroce_dereg_mr(struct ib_mr *ibmr, struct ib_udata *udata)
{
	struct sroce_dev *sdev = to_sroce_dev(ibmr->device);
	struct sroce_mr *mr = to_sroce_mr(ibmr);

	/*
	 * Windows bound to it must be unbound or freed first. Negative from
	 * here on: a bind racing this fails (sroce_mw_bind).
	 */
	if (atomic_cmpxchg(&mr->num_mw, 0, -1))
		return -EBUSY;
	/*
	 * Waits for the packets in flight that looked it up: one packet
	 * each, never a whole message (see sroce_key.h).
	 */
	sroce_key_remove(sdev, &mr->key);
	sroce_mr_release(mr);
	return 0;
}

SROCE_REG_USER_MR_OP(sroce_reg_user_mr)

const struct ib_device_ops sroce_mr_ops = {
	.advise_mr = sroce_advise_mr,
	.alloc_mr = sroce_alloc_mr,
	.dereg_mr = sroce_dereg_mr,
	.get_dma_mr = sroce_get_dma_mr,
	.map_mr_sg = sroce_map_mr_sg,
	.reg_user_mr = sroce_reg_user_mr_op,
	.rereg_user_mr = sroce_rereg_user_mr,
};
