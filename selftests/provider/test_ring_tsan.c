// SPDX-License-Identifier: GPL-2.0-only
/*
 * The SQ ring under a concurrent consumer that does what the kernel does
 * (load-acquire prod, read the slot, store-release cons), built with
 * ThreadSanitizer: if the provider published a slot before writing it,
 * or overwrote a slot the consumer had not released, TSan reports a data
 * race on the slot (test_ring_tsan_relaxed shows that it does). The
 * consumer also checks every WQE's contents and order.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sroce_wqe.h"

#define TOTAL	200000U
#define LOG2	3

static struct sroce_uring sq;
static const struct sroce_sq_caps caps = { IBV_QPT_RC, 2, 32 };
static int consumer_errors;

uint32_t sroce_ah_index(struct ibv_ah *ah)
{
	(void)ah;
	return 0;
}

static void *consumer(void *arg)
{
	struct sroce_ring_hdr *hdr = sq.hdr;
	uint32_t cons = 0, prod;
	struct sroce_send_wqe *w;

	(void)arg;
	while (cons != TOTAL) {
		prod = atomic_load_explicit((_Atomic(uint32_t) *)&hdr->prod,
					    memory_order_acquire);
		for (; cons != prod; cons++) {
			w = sroce_uring_slot(&sq, cons);
			if (w->wr_id != cons || w->opcode != IBV_WR_RDMA_WRITE ||
			    (cons & 1 ? w->inline_len != 8 || w->num_sge :
			     w->num_sge != 2 ||
			     sroce_wqe_sges(w)[1].addr != 3ULL * cons) ||
			    w->wr.rdma.remote_addr != 5ULL * cons) {
				if (!consumer_errors++)
					fprintf(stderr, "# bad WQE at %u\n", cons);
			}
			atomic_store_explicit((_Atomic(uint32_t) *)&hdr->cons,
					      cons + 1, memory_order_release);
		}
	}
	return NULL;
}

int main(void)
{
	struct sroce_ring_info info = {
		.log2_size = LOG2,
		.stride = sroce_send_wqe_size(caps.max_sge, caps.max_inline),
	};
	struct ibv_send_wr wr[4], *bad;
	struct ibv_sge sg[4][2];
	uint64_t payload[4];
	uint32_t next = 0, posted, n, i;
	unsigned int seed = 1;
	pthread_t thr;
	void *mem;
	int err;

	info.mmap_size = SROCE_RING_HDR_SIZE + ((size_t)1 << LOG2) * info.stride;
	mem = calloc(1, info.mmap_size);
	if (!mem || sroce_uring_setup(&sq, mem, &info, info.stride, 1U << LOG2))
		return 2;
	printf("TAP version 13\n1..1\n");
	pthread_create(&thr, NULL, consumer, NULL);
	while (next != TOTAL) {
		n = 1 + rand_r(&seed) % 4;
		if (n > TOTAL - next)
			n = TOTAL - next;
		for (i = 0; i < n; i++) {
			uint32_t id = next + i;

			memset(&wr[i], 0, sizeof(wr[i]));
			wr[i].wr_id = id;
			wr[i].next = i + 1 < n ? &wr[i + 1] : NULL;
			wr[i].opcode = IBV_WR_RDMA_WRITE;
			wr[i].wr.rdma.remote_addr = 5ULL * id;
			sg[i][0].addr = 1;
			sg[i][1].addr = 3ULL * id;
			payload[i] = id;
			if (id & 1) {
				sg[i][0].addr = (uintptr_t)&payload[i];
				sg[i][0].length = 8;
				wr[i].num_sge = 1;
				wr[i].send_flags = IBV_SEND_INLINE;
			} else {
				wr[i].num_sge = 2;
			}
			wr[i].sg_list = sg[i];
		}
		err = sroce_sq_post(&sq, &caps, wr, &bad, &posted);
		if (err && err != ENOMEM) {
			printf("# post: error %d\nnot ok 1 ring_vs_consumer\n", err);
			return 1;
		}
		next += posted;
	}
	pthread_join(thr, NULL);
	if (consumer_errors) {
		printf("# %d bad WQEs\nnot ok 1 ring_vs_consumer\n",
		       consumer_errors);
		return 1;
	}
	printf("ok 1 ring_vs_consumer\n");
	free(mem);
	return 0;
}
