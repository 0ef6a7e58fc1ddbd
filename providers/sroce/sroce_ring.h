/* SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause */
/*
 * User side of the sroce rings (include/uapi/rdma/sroce-abi.h): one mmap
 * of the command fd, a struct sroce_ring_hdr (256 bytes), then the slots. User
 * space produces into the SQ, RQ and SRQ rings and consumes from the CQ.
 *
 *   slot(r, i)          &slots[(i & mask) * stride]
 *   load_cons(r)        load-acquire of hdr->cons   (the kernel's index)
 *   publish(r)          store-release of hdr->prod  (after the slot writes)
 *   load_flags(r)       load-acquire of hdr->flags
 *   need_doorbell(r)    SQ: full fence, then flags and engines_active
 *
 * Indices are free-running u32: "used = prod - cons" is right across the
 * 2^32 wrap. A hostile or garbage cons can only make the ring look full.
 * No locking here: the caller holds the queue's lock.
 */
#ifndef SROCE_RING_USER_H
#define SROCE_RING_USER_H

#include <errno.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <rdma/sroce-abi.h>

/*
 * The host unit test overrides these to watch the ordering of the slot
 * writes against the index store; everyone else gets C11 atomics.
 */
#ifndef sroce_uring_store_release
#define sroce_uring_store_release(p, v)					\
	atomic_store_explicit((_Atomic(uint32_t) *)(p), (v),		\
			      memory_order_release)
#endif
#ifndef sroce_uring_load_acquire
#define sroce_uring_load_acquire(p)					\
	atomic_load_explicit((_Atomic(uint32_t) *)(p), memory_order_acquire)
#endif

struct sroce_uring {
	struct sroce_ring_hdr *hdr;	/* start of the mapping */
	uint8_t *slots;			/* hdr + SROCE_RING_HDR_SIZE */
	size_t map_size;		/* for munmap; 0 = no ring */
	uint32_t mask;			/* slots - 1 */
	uint32_t stride;		/* bytes per slot */
	uint32_t log2_size;
	uint32_t cap;			/* most entries outstanding (<= slots) */
	uint32_t prod;			/* producer: local index, not yet public */
	uint32_t cons;			/* consumer (CQ): local index */
};

/*
 * sroce_uring_setup - describe a mapped ring after checking the kernel's
 * ring info against the mapping. @map is mmap()'s result for @info,
 * @min_stride the bytes one entry needs at the advertised caps, @cap the
 * WR count the kernel granted. Returns 0, or EPROTO when the layout cannot
 * hold what was granted (a kernel/provider mismatch).
 */
static inline int sroce_uring_setup(struct sroce_uring *r, void *map,
				    const struct sroce_ring_info *info,
				    uint32_t min_stride, uint32_t cap)
{
	uint64_t slots;

	if (info->log2_size > 24 || info->stride < min_stride ||
	    info->stride % 8)
		return EPROTO;
	slots = 1ULL << info->log2_size;
	if (info->mmap_size < SROCE_RING_HDR_SIZE + slots * info->stride)
		return EPROTO;
	r->hdr = map;
	r->slots = (uint8_t *)map + SROCE_RING_HDR_SIZE;
	r->map_size = info->mmap_size;
	r->mask = (uint32_t)slots - 1;
	r->stride = info->stride;
	r->log2_size = info->log2_size;
	r->cap = cap < slots ? cap : (uint32_t)slots;
	/* The kernel starts (and resets) both indices at 0; a resized CQ ring
	 * starts where the old one stopped: take the kernel's word. */
	r->prod = sroce_uring_load_acquire(&r->hdr->prod);
	r->cons = sroce_uring_load_acquire(&r->hdr->cons);
	return 0;
}

/* mmap a ring the kernel described and set it up; 0 or an errno value. */
static inline int sroce_uring_map(struct sroce_uring *r, int cmd_fd,
				  const struct sroce_ring_info *info,
				  uint32_t min_stride, uint32_t cap)
{
	void *map;
	int err;

	if (!info->mmap_size)
		return EPROTO;
	map = mmap(NULL, info->mmap_size, PROT_READ | PROT_WRITE, MAP_SHARED,
		   cmd_fd, info->mmap_offset);
	if (map == MAP_FAILED)
		return errno;
	err = sroce_uring_setup(r, map, info, min_stride, cap);
	if (err)
		munmap(map, info->mmap_size);
	return err;
}

static inline void sroce_uring_unmap(struct sroce_uring *r)
{
	if (r->map_size)
		munmap(r->hdr, r->map_size);
	r->map_size = 0;
	r->hdr = NULL;
}

static inline void *sroce_uring_slot(const struct sroce_uring *r, uint32_t i)
{
	return r->slots + (size_t)(i & r->mask) * r->stride;
}

static inline uint32_t sroce_uring_load_cons(const struct sroce_uring *r)
{
	return sroce_uring_load_acquire(&r->hdr->cons);
}

static inline uint32_t sroce_uring_load_flags(const struct sroce_uring *r)
{
	return sroce_uring_load_acquire(&r->hdr->flags);
}

/* Can index @i be filled, i.e. are fewer than cap entries outstanding? */
static inline bool sroce_uring_full(const struct sroce_uring *r, uint32_t i)
{
	return i - sroce_uring_load_cons(r) >= r->cap;
}

/* Make every slot below @prod visible to the kernel: one release store. */
static inline void sroce_uring_publish(struct sroce_uring *r, uint32_t prod)
{
	r->prod = prod;
	sroce_uring_store_release(&r->hdr->prod, prod);
}

/*
 * Must the kernel be told to flush what was just published? Call after
 * sroce_uring_publish(). The full fence orders our prod store before the
 * flags load; the kernel orders its flags store before its prod load
 * (smp_mb()), so at least one side sees the other and no WQE is stranded.
 */
static inline bool sroce_uring_need_flush(const struct sroce_uring *r)
{
	atomic_thread_fence(memory_order_seq_cst);
	return sroce_uring_load_flags(r) & SROCE_RING_FLUSH;
}

/*
 * SQ: must a doorbell system call follow what was just published? Call
 * after sroce_uring_publish(). Not while the kernel runs the QP's engines
 * (engines_active): it re-reads prod after clearing the word, and the
 * full fence here orders our prod store before the word's load, as the
 * kernel orders its clearing store before its prod load (smp_mb()), so
 * either we see the word cleared and ring, or the kernel sees our WQEs.
 * Always in ERROR/SQE (SROCE_RING_FLUSH): the flush is the doorbell's job.
 */
static inline bool sroce_uring_need_doorbell(const struct sroce_uring *r)
{
	atomic_thread_fence(memory_order_seq_cst);
	if (sroce_uring_load_flags(r) & SROCE_RING_FLUSH)
		return true;
	return !sroce_uring_load_acquire(&r->hdr->engines_active);
}

/* Consumer (CQ): the next filled slot, or NULL when the ring is empty. */
static inline void *sroce_uring_cons_slot(struct sroce_uring *r)
{
	if (sroce_uring_load_acquire(&r->hdr->prod) == r->cons)
		return NULL;
	return sroce_uring_slot(r, r->cons);
}

/* Consumer: release the slot just read to the kernel. */
static inline void sroce_uring_cons_advance(struct sroce_uring *r)
{
	r->cons++;
	sroce_uring_store_release(&r->hdr->cons, r->cons);
}

/*
 * Consumer: remove the filled entries that @drop selects, keeping the
 * order of the others (a CQ losing a reset QP's completions). Kept entries
 * move towards the producer end and cons advances past the freed slots,
 * so the producer, which writes only at prod and beyond, never meets a
 * slot being moved. Returns how many were removed.
 */
static inline uint32_t sroce_uring_cons_remove(struct sroce_uring *r,
					       bool (*drop)(const void *slot,
							    void *arg),
					       void *arg)
{
	uint32_t prod = sroce_uring_load_acquire(&r->hdr->prod);
	uint32_t i = prod, w = prod;

	if (prod - r->cons > r->mask + 1)
		return 0;	/* an impossible producer index: touch nothing */
	while (i != r->cons) {
		i--;
		if (drop(sroce_uring_slot(r, i), arg))
			continue;
		w--;
		if (w != i)
			memcpy(sroce_uring_slot(r, w), sroce_uring_slot(r, i),
			       r->stride);
	}
	if (w == r->cons)
		return 0;
	i = w - r->cons;
	r->cons = w;
	sroce_uring_store_release(&r->hdr->cons, r->cons);
	return i;
}

/* After a RESET the kernel has zeroed the indices: start again from them. */
static inline void sroce_uring_reload(struct sroce_uring *r)
{
	if (r->hdr)
		r->prod = sroce_uring_load_acquire(&r->hdr->prod);
}

#endif /* SROCE_RING_USER_H */
