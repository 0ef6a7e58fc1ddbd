/* SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause */
/*
 * libsroce: the user side of the shared rings (include/uapi/rdma/sroce-abi.h).
 *
 * A ring is one mmap of the command fd: a struct sroce_ring_hdr page, then
 * 2^log2_size slots of 'stride' bytes. Indices are free running; the side
 * that owns an index keeps a private copy (prod or cons below) and
 * publishes it with a store-release after writing (producer) or reading
 * (consumer) the slots; the other index is loaded with acquire. The
 * caller serialises each side (the object's lock).
 */
#ifndef SROCE_RING_USER_H
#define SROCE_RING_USER_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <errno.h>
#include <sys/mman.h>
#include <rdma/sroce-abi.h>

struct sroce_uring {
	void *map;			/* MAP_FAILED-free: NULL when unmapped */
	size_t map_size;
	struct sroce_ring_hdr *hdr;
	uint8_t *slots;
	uint32_t mask;			/* slots - 1 */
	uint32_t stride;
	uint32_t log2_size;
	uint32_t prod;			/* private: we produce into this ring */
	uint32_t cons;			/* private: we consume from this ring */
};

static inline uint32_t sroce_load_acquire(const uint32_t *p)
{
	return atomic_load_explicit((_Atomic(uint32_t) *)p, memory_order_acquire);
}

static inline void sroce_store_release(uint32_t *p, uint32_t v)
{
	atomic_store_explicit((_Atomic(uint32_t) *)p, v, memory_order_release);
}

/* Maps a ring the kernel described; returns 0 or an errno value. */
static inline int sroce_uring_map(struct sroce_uring *r, int cmd_fd,
				  const struct sroce_ring_info *info,
				  uint32_t min_stride)
{
	void *map;

	if (info->log2_size > 16 || info->stride < min_stride ||
	    info->mmap_size < SROCE_RING_HDR_SIZE +
			      ((uint64_t)info->stride << info->log2_size))
		return EPROTO;
	map = mmap(NULL, info->mmap_size, PROT_READ | PROT_WRITE, MAP_SHARED,
		   cmd_fd, info->mmap_offset);
	if (map == MAP_FAILED)
		return errno;
	r->map = map;
	r->map_size = info->mmap_size;
	r->hdr = map;
	r->slots = (uint8_t *)map + SROCE_RING_HDR_SIZE;
	r->log2_size = info->log2_size;
	r->mask = (1U << info->log2_size) - 1;
	r->stride = info->stride;
	/* A resized CQ ring starts where the old one stopped. */
	r->prod = sroce_load_acquire(&r->hdr->prod);
	r->cons = sroce_load_acquire(&r->hdr->cons);
	return 0;
}

static inline void sroce_uring_unmap(struct sroce_uring *r)
{
	if (r->map)
		munmap(r->map, r->map_size);
	r->map = NULL;
}

static inline void *sroce_uring_slot(const struct sroce_uring *r, uint32_t i)
{
	return r->slots + (size_t)(i & r->mask) * r->stride;
}

/* Producer: the next free slot, or NULL when the ring is full. */
static inline void *sroce_uring_prod_slot(struct sroce_uring *r)
{
	uint32_t cons = sroce_load_acquire(&r->hdr->cons);

	if (r->prod - cons > r->mask)
		return NULL;
	return sroce_uring_slot(r, r->prod);
}

/* Producer: count the slot just filled (published by ..._publish). */
static inline void sroce_uring_prod_advance(struct sroce_uring *r)
{
	r->prod++;
}

static inline void sroce_uring_prod_publish(struct sroce_uring *r)
{
	sroce_store_release(&r->hdr->prod, r->prod);
}

/* Consumer: the next filled slot, or NULL when the ring is empty. */
static inline void *sroce_uring_cons_slot(struct sroce_uring *r)
{
	if (sroce_load_acquire(&r->hdr->prod) == r->cons)
		return NULL;
	return sroce_uring_slot(r, r->cons);
}

/* Consumer: release the slot just read. */
static inline void sroce_uring_cons_advance(struct sroce_uring *r)
{
	r->cons++;
	sroce_store_release(&r->hdr->cons, r->cons);
}

#endif /* SROCE_RING_USER_H */
