// SPDX-License-Identifier: GPL-2.0-only
/*
 * sroce shared rings: allocation, mmap to user space, and the kernel-side
 * producer and consumer helpers. See sroce_ring.h for the rules.
 */
#include <linux/log2.h>
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>
#include <rdma/ib_verbs.h>
#include <rdma/uverbs_ioctl.h>

#include "sroce.h"
#include "sroce_ring.h"

/* Largest ring: 2^16 slots (the biggest queue sroce offers is 2^15). */
#define SROCE_RING_MAX_LOG2 16

/**
 * sroce_ring_init - allocate a ring and, for a user object, its mmap entry
 * @r: the ring, zeroed by the caller
 * @min_slots: at least this many slots (rounded up to a power of two)
 * @stride: bytes per slot (a multiple of 8)
 * @udata: the creating verb's udata; non-NULL makes the ring mappable
 *
 * Process context. Returns 0 or -EINVAL/-ENOMEM; on error nothing is left.
 */
int sroce_ring_init(struct sroce_ring *r, u32 min_slots, u32 stride,
		    struct ib_udata *udata)
{
	struct sroce_ucontext *uc;
	u32 log2;
	int err;

	BUILD_BUG_ON(sizeof(struct sroce_ring_hdr) > SROCE_RING_HDR_SIZE);
	if (!stride || stride % 8 || min_slots > (1U << SROCE_RING_MAX_LOG2))
		return -EINVAL;
	log2 = order_base_2(max(min_slots, 1U));
	r->log2_size = log2;
	r->mask = (1U << log2) - 1;
	r->stride = stride;
	r->bytes = PAGE_ALIGN(SROCE_RING_HDR_SIZE + ((size_t)stride << log2));
	r->hdr = __vmalloc(r->bytes, sroce_user_gfp(udata) | __GFP_ZERO);
	if (!r->hdr)
		return -ENOMEM;
	r->slots = (u8 *)r->hdr + SROCE_RING_HDR_SIZE;
	r->prod = 0;
	r->cons = 0;
	r->mentry = NULL;
	if (!udata)
		return 0;

	uc = rdma_udata_to_drv_context(udata, struct sroce_ucontext, ibuc);
	r->mentry = kzalloc(sizeof(*r->mentry), sroce_user_gfp(udata));
	if (!r->mentry) {
		err = -ENOMEM;
		goto err_vfree;
	}
	r->mentry->vaddr = r->hdr;
	err = rdma_user_mmap_entry_insert(&uc->ibuc, &r->mentry->rdma, r->bytes);
	if (err)
		goto err_free_entry;
	return 0;

err_free_entry:
	kfree(r->mentry);
	r->mentry = NULL;
err_vfree:
	vfree(r->hdr);
	r->hdr = NULL;
	return err;
}

/*
 * Releases the ring. A user ring's memory lives on in its mmap entry until
 * user space unmaps it; the kernel must not touch it after this call.
 */
void sroce_ring_free(struct sroce_ring *r)
{
	if (!r->hdr)
		return;
	if (r->mentry)
		rdma_user_mmap_entry_remove(&r->mentry->rdma);
	else
		vfree(r->hdr);
	r->hdr = NULL;
	r->slots = NULL;
	r->mentry = NULL;
}

void sroce_ring_info(const struct sroce_ring *r, struct sroce_ring_info *info)
{
	memset(info, 0, sizeof(*info));
	if (!r->mentry)
		return;
	info->mmap_offset = rdma_user_mmap_get_offset(&r->mentry->rdma);
	info->mmap_size = r->bytes;
	info->log2_size = r->log2_size;
	info->stride = r->stride;
}

/**
 * sroce_ring_prod_slot - the next free slot for the kernel as producer
 * @r: the ring; the caller serialises the producer side
 *
 * Reads the consumer index once (it may be user-written and hostile): a
 * ring whose indices say it holds more than its size counts as full.
 * Returns the slot to fill, or NULL if the ring is full.
 */
void *sroce_ring_prod_slot(struct sroce_ring *r)
{
	/* Acquire: the consumer has finished reading what it released. */
	/* Pairs with the consumer's release of cons: its reads are done. */
	u32 cons = smp_load_acquire(&r->hdr->cons);

	if (r->prod - cons >= sroce_ring_slots(r))
		return NULL;
	return sroce_ring_slot(r, r->prod);
}

/* Publishes the slot filled after sroce_ring_prod_slot(). */
void sroce_ring_prod_commit(struct sroce_ring *r)
{
	r->prod++;
	/* The slot's contents are visible before the index that covers it. */
	smp_store_release(&r->hdr->prod, r->prod);
}

/* The consumer index as user space last published it (unchecked). */
u32 sroce_ring_user_cons(const struct sroce_ring *r)
{
	/* Pairs with the user consumer's release of cons. */
	return smp_load_acquire(&r->hdr->cons);
}

/**
 * sroce_ring_cons_count - entries ready for the kernel as consumer
 * @r: the ring; the caller serialises the consumer side
 * @count: set to the number of entries ready
 *
 * Reads the producer index once. Returns 0, or -EIO if the producer index
 * is impossible (claims more than the ring's size): the producer is broken
 * or hostile, and nothing is consumed.
 */
int sroce_ring_cons_count(struct sroce_ring *r, u32 *count)
{
	/* Acquire: the slots up to prod are written before we read them. */
	/* Pairs with the producer's release: slots below prod are written. */
	u32 prod = smp_load_acquire(&r->hdr->prod);
	u32 n = prod - r->cons;

	if (n > sroce_ring_slots(r)) {
		*count = 0;
		return -EIO;
	}
	*count = n;
	return 0;
}

/* The slot at the consumer index; only after a count > 0. */
void *sroce_ring_cons_slot(struct sroce_ring *r)
{
	return sroce_ring_slot(r, r->cons);
}

/* Releases the consumed slot to the producer. */
void sroce_ring_cons_advance(struct sroce_ring *r)
{
	r->cons++;
	/* The slot has been read before the producer may reuse it. */
	smp_store_release(&r->hdr->cons, r->cons);
}

int sroce_mmap(struct ib_ucontext *ibuc, struct vm_area_struct *vma)
{
	struct rdma_user_mmap_entry *rentry;
	struct sroce_mmap_entry *entry;
	unsigned long off;
	int err = 0;

	rentry = rdma_user_mmap_entry_get(ibuc, vma);
	if (!rentry)
		return -EINVAL;
	entry = container_of(rentry, struct sroce_mmap_entry, rdma);
	/*
	 * The ring is __vmalloc()ed (zeroed; remap_vmalloc_range wants
	 * vmalloc_user, which cannot charge a memory cgroup): its pages
	 * are inserted one by one. The entry's size is the VMA's (checked by
	 * rdma_user_mmap_entry_get).
	 */
	vm_flags_set(vma, VM_DONTEXPAND | VM_DONTDUMP);
	for (off = 0; off < vma->vm_end - vma->vm_start; off += PAGE_SIZE) {
		err = vm_insert_page(vma, vma->vm_start + off,
				     vmalloc_to_page(entry->vaddr + off));
		if (err)
			break;
	}
	rdma_user_mmap_entry_put(rentry);
	return err;
}

/* Last reference to a ring's mmap entry: the ring memory goes with it. */
void sroce_mmap_free(struct rdma_user_mmap_entry *rentry)
{
	struct sroce_mmap_entry *entry =
		container_of(rentry, struct sroce_mmap_entry, rdma);

	vfree(entry->vaddr);
	kfree(entry);
}

const struct ib_device_ops sroce_ring_ops = {
	.mmap = sroce_mmap,
	.mmap_free = sroce_mmap_free,
};
