// SPDX-License-Identifier: GPL-2.0-only
/*
 * sroce transmit skb pool: the data of each large outgoing packet's skb
 * on a page of a per-CPU page_pool, which takes the page back, uncleared,
 * when whoever receives the skb frees it.
 *
 * Why: a packet of path MTU 2048 or 4096 is otherwise a kmalloc-4k or
 * -8k object. Thousands are in flight and freed on the receiving side, so
 * their slabs are freed and allocated again all the time, and a kernel
 * built with init_on_alloc (Debian's) clears each new slab page: more
 * work per byte than the ICRC and the copies together. Smaller packets
 * stay on kmalloc, where no gain was measured.
 *
 * Objects and locking: one pool per possible CPU, created at module load
 * and destroyed at unload. A pool hands out pages to one context at a
 * time: its own CPU with bottom halves disabled (page_pool's rule for a
 * pool without a NAPI instance). Pages come back from any context through
 * the pool's ring, which has its own lock. A pool destroyed while its
 * pages are still in skbs is freed by the page_pool core once the last
 * one returns; no module code runs then.
 */
#include <linux/bottom_half.h>
#include <linux/cpumask.h>
#include <linux/err.h>
#include <linux/irqflags.h>
#include <linux/percpu.h>
#include <linux/skbuff.h>
#include <linux/topology.h>

#include "sroce_compat.h"
#include "sroce_txpool.h"

/* Order-1 pages: one 4096-byte packet with its headers and shared info. */
#define SROCE_TXPOOL_ORDER	1
/* Pages each pool's ring keeps for reuse (2 MiB); beyond, they are freed. */
#define SROCE_TXPOOL_RING	256
/* Smaller skbs (one of path MTU 1024 or less) come from kmalloc. */
#define SROCE_TXPOOL_MIN	2048

static DEFINE_PER_CPU(struct page_pool *, sroce_txpool);

/**
 * sroce_txpool_exit - destroy every CPU's pool
 *
 * Module unload (and a failed load), after the last sender has stopped.
 */
void sroce_txpool_exit(void)
{
	int cpu;

	for_each_possible_cpu(cpu) {
		struct page_pool *pool = per_cpu(sroce_txpool, cpu);

		per_cpu(sroce_txpool, cpu) = NULL;
		if (pool)
			page_pool_destroy(pool);
	}
}

/**
 * sroce_txpool_init - create a pool for each possible CPU
 *
 * Module load. Returns 0 or a negative errno (none created then).
 */
int sroce_txpool_init(void)
{
	struct page_pool_params params = {
		.flags = SROCE_PP_FLAG_FRAG,
		.order = SROCE_TXPOOL_ORDER,
		.pool_size = SROCE_TXPOOL_RING,
	};
	int cpu;

	for_each_possible_cpu(cpu) {
		struct page_pool *pool;

		params.nid = cpu_to_node(cpu);
		pool = page_pool_create(&params);
		if (IS_ERR(pool)) {
			sroce_txpool_exit();
			return PTR_ERR(pool);
		}
		per_cpu(sroce_txpool, cpu) = pool;
	}
	return 0;
}

/**
 * sroce_txpool_skb - an empty skb of @size bytes of data from this CPU's pool
 * @size: the bytes the caller will reserve and put
 *
 * Returns NULL when @size is too small or too large for the pool, in
 * hard interrupt context or with interrupts off (where bottom halves
 * cannot be disabled), or when out of memory: the caller then uses
 * alloc_skb(). Any other context.
 */
struct sk_buff *sroce_txpool_skb(unsigned int size)
{
	unsigned int truesize = SKB_DATA_ALIGN(size) +
				SKB_DATA_ALIGN(sizeof(struct skb_shared_info));
	struct page_pool *pool;
	unsigned int offset;
	struct sk_buff *skb;
	struct page *page;

	if (size < SROCE_TXPOOL_MIN ||
	    truesize > PAGE_SIZE << SROCE_TXPOOL_ORDER ||
	    in_hardirq() || irqs_disabled())
		return NULL;

	local_bh_disable();
	pool = this_cpu_read(sroce_txpool);
	page = page_pool_alloc_frag(pool, &offset, truesize,
				    GFP_ATOMIC | __GFP_NOWARN);
	local_bh_enable();
	if (!page)
		return NULL;

	skb = build_skb(page_address(page) + offset, truesize);
	if (unlikely(!skb)) {
		page_pool_put_full_page(pool, page, false);
		return NULL;
	}
	skb_mark_for_recycle(skb);
	return skb;
}
