/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * sroce shared rings: the kernel side of the SQ, RQ, SRQ and CQ rings of
 * include/uapi/rdma/sroce-abi.h. A ring is one vmalloc_user() buffer: a
 * struct sroce_ring_hdr (SROCE_RING_HDR_SIZE), then 2^log2_size slots of
 * 'stride' bytes.
 *
 * The kernel keeps its own copy of the index it owns (prod when it
 * produces, cons when it consumes) and only publishes it to the header;
 * the other index, which user space may write, is read once per operation
 * and checked (prod - cons <= size). Slots user space can write are copied
 * out before they are looked at.
 *
 * Locking: none here. Each ring has one producer side and one consumer
 * side; the owner of the ring (CQ, RQ/SRQ, SQ) serialises each side with
 * its own lock and says so beside the ring field.
 *
 * Lifetime of a user ring: the memory belongs to its rdma_user_mmap_entry
 * and is freed by .mmap_free when the entry is removed and the last user
 * mapping is gone. After sroce_ring_free() the kernel must not touch it.
 */
#ifndef SROCE_RING_H
#define SROCE_RING_H

#include <linux/types.h>
#include <rdma/ib_verbs.h>
#include <rdma/sroce-abi.h>

struct sroce_mmap_entry {
	struct rdma_user_mmap_entry rdma;
	void *vaddr;		/* vmalloc_user() memory, freed by mmap_free */
};

struct sroce_ring {
	struct sroce_ring_hdr *hdr;	/* start of the buffer */
	u8 *slots;			/* hdr + SROCE_RING_HDR_SIZE */
	u32 log2_size;
	u32 mask;			/* slots - 1 */
	u32 stride;
	size_t bytes;			/* header + slots, page aligned */
	struct sroce_mmap_entry *mentry;	/* user rings only */
	/* The kernel's private copies of the indices it owns. */
	u32 prod;
	u32 cons;
};

static inline u32 sroce_ring_slots(const struct sroce_ring *r)
{
	return r->mask + 1;
}

static inline void *sroce_ring_slot(const struct sroce_ring *r, u32 idx)
{
	return r->slots + (size_t)(idx & r->mask) * r->stride;
}

int sroce_ring_init(struct sroce_ring *r, u32 min_slots, u32 stride,
		    struct ib_udata *udata);
void sroce_ring_free(struct sroce_ring *r);
void sroce_ring_info(const struct sroce_ring *r, struct sroce_ring_info *info);

/* Kernel as producer (CQ; kernel-owned RQ/SRQ/SQ). */
void *sroce_ring_prod_slot(struct sroce_ring *r);
void sroce_ring_prod_commit(struct sroce_ring *r);
u32 sroce_ring_user_cons(const struct sroce_ring *r);

/* Kernel as consumer (SQ, RQ, SRQ; kernel CQ poll). */
int sroce_ring_cons_count(struct sroce_ring *r, u32 *count);
void *sroce_ring_cons_slot(struct sroce_ring *r);
void sroce_ring_cons_advance(struct sroce_ring *r);

/* ib_device_ops .mmap / .mmap_free */
int sroce_mmap(struct ib_ucontext *ibuc, struct vm_area_struct *vma);
void sroce_mmap_free(struct rdma_user_mmap_entry *rentry);

extern const struct ib_device_ops sroce_ring_ops;

#endif /* SROCE_RING_H */
