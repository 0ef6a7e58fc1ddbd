// SPDX-License-Identifier: GPL-2.0-only
/*
 * Host unit tests of libsroce's send/receive WQE building and ring logic
 * (providers/sroce/sroce_wqe.c, sroce_ring.h) against the ABI in
 * include/uapi/rdma/sroce-abi.h: the immediate errors of ibv_post_send /
 * ibv_post_recv (seed-rules R1.2, R3.1, R3.8), every opcode's WQE fields,
 * SGE and inline layout, ring full and the 2^32 wrap, the flush doorbell
 * rule (R3.3) and the release ordering of the producer index.
 */
#include <stdatomic.h>
#include <stdlib.h>

#include "harness.h"
#include "sroce_wqe.h"
#include "core_bridge.h"

/* ------------------------------------------------------------------ */
/* Fixtures                                                           */
/* ------------------------------------------------------------------ */

struct test_ah {
	struct ibv_ah ibv_ah;
	uint32_t index;
};

uint32_t sroce_ah_index(struct ibv_ah *ah)
{
	return ((struct test_ah *)ah)->index;
}

#define WRID(i)		(0xC0DE000000000000ULL + (i))
#define ADDR(i)		(0x7f0000001000ULL + 64ULL * (i))
#define GARBAGE		0xAA

struct test_ring {
	uint8_t *mem;
	size_t size;
	struct sroce_ring_info info;
	struct sroce_uring r;
};

/*
 * A ring as the kernel would map it, in an exactly-sized heap block (so
 * ASan sees any write past the last slot); slots pre-filled with garbage,
 * both indices at @start.
 */
static int ring_make(struct test_ring *t, uint32_t log2, uint32_t stride,
		     uint32_t cap, uint32_t start)
{
	size_t slots = (size_t)1 << log2;

	t->size = SROCE_RING_HDR_SIZE + slots * stride;
	t->mem = calloc(1, t->size);
	if (!t->mem)
		return -1;
	memset(t->mem + SROCE_RING_HDR_SIZE, GARBAGE, slots * stride);
	((struct sroce_ring_hdr *)t->mem)->prod = start;
	((struct sroce_ring_hdr *)t->mem)->cons = start;
	t->info.mmap_offset = 0;
	t->info.mmap_size = t->size;
	t->info.log2_size = log2;
	t->info.stride = stride;
	return sroce_uring_setup(&t->r, t->mem, &t->info, stride, cap);
}

static void ring_free(struct test_ring *t)
{
	free(t->mem);
	t->mem = NULL;
}

/* The kernel consumed up to @cons. */
static void ring_consume(struct test_ring *t, uint32_t cons)
{
	t->r.hdr->cons = cons;
}

static bool all_bytes(const void *p, int c, size_t n)
{
	const uint8_t *b = p;
	size_t i;

	for (i = 0; i < n; i++)
		if (b[i] != c)
			return false;
	return true;
}

/*
 * The release hook (test_hooks.h): at the instant a producer index is
 * stored, every slot it publishes must already hold its complete WQE:
 * the WQE for ring index i has wr_id WRID(i) and, if it has SGEs, first
 * SGE address ADDR(i). Counts the stores and the violations.
 */
static struct {
	struct sroce_uring *ring;	/* NULL: no checks */
	bool send;			/* send WQEs (else receive) */
	int stores;
	int bad;
} hook;

static bool slot_complete(struct sroce_uring *r, bool send, uint32_t i)
{
	if (send) {
		struct sroce_send_wqe *w = sroce_uring_slot(r, i);

		return w->wr_id == WRID(i) &&
		       (!w->num_sge || sroce_wqe_sges(w)[0].addr == ADDR(i));
	} else {
		struct sroce_recv_wqe *w = sroce_uring_slot(r, i);

		return w->wr_id == WRID(i) &&
		       (!w->num_sge || sroce_rwqe_sges(w)[0].addr == ADDR(i));
	}
}

void test_store_release(uint32_t *p, uint32_t v)
{
	uint32_t i;

	hook.stores++;
	if (hook.ring) {
		if (p != &hook.ring->hdr->prod)
			hook.bad++;
		else
			for (i = *p; i != v; i++)
				if (!slot_complete(hook.ring, hook.send, i))
					hook.bad++;
	}
	atomic_store_explicit((_Atomic(uint32_t) *)p, v, memory_order_release);
}

static void hook_watch(struct sroce_uring *r, bool send)
{
	hook.ring = r;
	hook.send = send;
	hook.stores = 0;
	hook.bad = 0;
}

static const struct sroce_sq_caps rc_caps = {
	.qp_type = IBV_QPT_RC, .max_sge = 4, .max_inline = 64,
};
static const struct sroce_sq_caps uc_caps = {
	.qp_type = IBV_QPT_UC, .max_sge = 4, .max_inline = 64,
};
static const struct sroce_sq_caps ud_caps = {
	.qp_type = IBV_QPT_UD, .max_sge = 4, .max_inline = 64,
};

static struct ibv_sge sges[4];
static struct test_ah ah = { .index = 77 };

/* A SEND WR for ring index @i with one SGE, linked to @next. */
static void send_wr(struct ibv_send_wr *wr, uint32_t i,
		    struct ibv_send_wr *next, struct ibv_sge *sg)
{
	memset(wr, 0, sizeof(*wr));
	sg->addr = ADDR(i);
	sg->length = 100 + i;
	sg->lkey = 0x1234;
	wr->wr_id = WRID(i);
	wr->next = next;
	wr->sg_list = sg;
	wr->num_sge = 1;
	wr->opcode = IBV_WR_SEND;
	wr->send_flags = IBV_SEND_SIGNALED;
	wr->wr.ud.ah = &ah.ibv_ah;
}

/* ------------------------------------------------------------------ */
/* ABI layout                                                         */
/* ------------------------------------------------------------------ */

TEST(abi_layout)
{
	EXPECT_EQ(sizeof(struct sroce_send_wqe), 64);
	EXPECT_EQ(offsetof(struct sroce_send_wqe, wr), 32);
	EXPECT_EQ(sizeof(struct sroce_recv_wqe), 16);
	EXPECT_EQ(sizeof(struct sroce_sge), 16);
	EXPECT_EQ(offsetof(struct sroce_ring_hdr, prod), 0);
	EXPECT_EQ(offsetof(struct sroce_ring_hdr, cons), 64);
	EXPECT_EQ(offsetof(struct sroce_ring_hdr, flags), 128);
	EXPECT_EQ(offsetof(struct sroce_ring_hdr, engines_active), 192);
	EXPECT_LE(sizeof(struct sroce_ring_hdr), SROCE_RING_HDR_SIZE);
	/* SGEs follow the header 16-aligned, inline bytes likewise. */
	EXPECT_EQ(sroce_send_wqe_size(4, 0), 64 + 64);
	EXPECT_EQ(sroce_send_wqe_size(1, 100), 64 + 104);
	EXPECT_EQ(sroce_send_wqe_size(0, 0), 64);
	EXPECT_EQ(sroce_recv_wqe_size(3), 16 + 48);
}

/* ------------------------------------------------------------------ */
/* Which opcode on which QP type (seed-rules R1.2)                    */
/* ------------------------------------------------------------------ */

static const struct {
	uint32_t opcode;
	const char *kind;	/* name in kernel/core/opcode.c */
} opcode_kinds[] = {
	{ IBV_WR_RDMA_WRITE, "WRITE" },
	{ IBV_WR_RDMA_WRITE_WITH_IMM, "WRITE_IMM" },
	{ IBV_WR_SEND, "SEND" },
	{ IBV_WR_SEND_WITH_IMM, "SEND_IMM" },
	{ IBV_WR_RDMA_READ, "READ" },
	{ IBV_WR_ATOMIC_CMP_AND_SWP, "CMP_SWAP" },
	{ IBV_WR_ATOMIC_FETCH_AND_ADD, "FETCH_ADD" },
	{ IBV_WR_LOCAL_INV, "LOCAL_INV" },
	{ IBV_WR_BIND_MW, "BIND_MW" },
	{ IBV_WR_SEND_WITH_INV, "SEND_INV" },
	{ IBV_WR_FLUSH, "FLUSH" },
	{ IBV_WR_ATOMIC_WRITE, "ATOMIC_WRITE" },
};

/* The provider refuses exactly what the kernel would (one table each). */
TEST(opcode_table_matches_kernel_core)
{
	static const struct { uint32_t ibv; int core; } qpts[] = {
		{ IBV_QPT_RC, CORE_QPT_RC },
		{ IBV_QPT_UC, CORE_QPT_UC },
		{ IBV_QPT_UD, CORE_QPT_UD },
		{ IBV_QPT_XRC_SEND, CORE_QPT_XRC_INI },
	};
	size_t q, k;
	int core;

	for (q = 0; q < ARRAY_SIZE(qpts); q++) {
		for (k = 0; k < ARRAY_SIZE(opcode_kinds); k++) {
			core = core_wr_allowed(qpts[q].core, opcode_kinds[k].kind);
			ASSERT_NE(core, -1);
			if (sroce_wqe_opcode_ok(qpts[q].ibv, opcode_kinds[k].opcode) !=
			    (bool)core)
				TH_LOG("qpt %u opcode %s differs", qpts[q].ibv,
				       opcode_kinds[k].kind);
			EXPECT_EQ(sroce_wqe_opcode_ok(qpts[q].ibv,
						      opcode_kinds[k].opcode),
				  (bool)core);
		}
	}
}

TEST(opcode_unknown_refused)
{
	static const uint32_t bad_ops[] = {
		IBV_WR_TSO, IBV_WR_DRIVER1, 12, 13, 16, 255, 0xffffffff,
	};
	static const uint32_t bad_qpts[] = {
		0, 1, 5, IBV_QPT_RAW_PACKET, IBV_QPT_XRC_RECV, IBV_QPT_DRIVER,
		0xffffffff,
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(bad_ops); i++) {
		EXPECT_FALSE(sroce_wqe_opcode_ok(IBV_QPT_RC, bad_ops[i]));
		EXPECT_FALSE(sroce_wqe_has_payload(bad_ops[i]));
	}
	for (i = 0; i < ARRAY_SIZE(bad_qpts); i++)
		EXPECT_FALSE(sroce_wqe_opcode_ok(bad_qpts[i], IBV_WR_SEND));
}

/* IBA 1.5's FLUSH and ATOMIC WRITE: RC only, no SGEs, no payload. */
TEST(opcode_flush_atomic_write_rc_only)
{
	static const uint32_t ops[] = { IBV_WR_FLUSH, IBV_WR_ATOMIC_WRITE };
	size_t i;

	for (i = 0; i < ARRAY_SIZE(ops); i++) {
		EXPECT_TRUE(sroce_wqe_opcode_ok(IBV_QPT_RC, ops[i]));
		EXPECT_FALSE(sroce_wqe_opcode_ok(IBV_QPT_UC, ops[i]));
		EXPECT_FALSE(sroce_wqe_opcode_ok(IBV_QPT_UD, ops[i]));
		EXPECT_FALSE(sroce_wqe_opcode_ok(IBV_QPT_XRC_SEND, ops[i]));
		EXPECT_FALSE(sroce_wqe_has_payload(ops[i]));
		EXPECT_TRUE(sroce_wqe_no_sges(ops[i]));
	}
	EXPECT_FALSE(sroce_wqe_no_sges(IBV_WR_SEND));
	EXPECT_FALSE(sroce_wqe_no_sges(IBV_WR_ATOMIC_FETCH_AND_ADD));
	EXPECT_FALSE(sroce_wqe_no_sges(16));
}

/* seed-rules R1.2: the WR check gives EINVAL for a wrong QP type. */
TEST(wr_check_opcode_per_qp_type)
{
	struct ibv_send_wr wr;

	send_wr(&wr, 0, NULL, &sges[0]);
	wr.opcode = IBV_WR_RDMA_READ;
	EXPECT_EQ(sroce_send_wr_check(&rc_caps, &wr), 0);
	EXPECT_EQ(sroce_send_wr_check(&uc_caps, &wr), EINVAL);
	EXPECT_EQ(sroce_send_wr_check(&ud_caps, &wr), EINVAL);
	wr.opcode = IBV_WR_RDMA_WRITE;
	EXPECT_EQ(sroce_send_wr_check(&uc_caps, &wr), 0);
	EXPECT_EQ(sroce_send_wr_check(&ud_caps, &wr), EINVAL);
	wr.opcode = IBV_WR_ATOMIC_CMP_AND_SWP;
	EXPECT_EQ(sroce_send_wr_check(&uc_caps, &wr), EINVAL);
	EXPECT_EQ(sroce_send_wr_check(&ud_caps, &wr), EINVAL);
	wr.opcode = IBV_WR_ATOMIC_FETCH_AND_ADD;
	EXPECT_EQ(sroce_send_wr_check(&rc_caps, &wr), 0);
	EXPECT_EQ(sroce_send_wr_check(&uc_caps, &wr), EINVAL);
	wr.opcode = IBV_WR_SEND_WITH_INV;
	EXPECT_EQ(sroce_send_wr_check(&rc_caps, &wr), 0);
	EXPECT_EQ(sroce_send_wr_check(&uc_caps, &wr), EINVAL);
	wr.opcode = IBV_WR_SEND_WITH_IMM;
	EXPECT_EQ(sroce_send_wr_check(&ud_caps, &wr), 0);
	wr.opcode = IBV_WR_LOCAL_INV;
	EXPECT_EQ(sroce_send_wr_check(&uc_caps, &wr), 0);
	EXPECT_EQ(sroce_send_wr_check(&ud_caps, &wr), EINVAL);
	wr.opcode = IBV_WR_TSO;
	EXPECT_EQ(sroce_send_wr_check(&rc_caps, &wr), EINVAL);
}

/*
 * ibv_post_send's FLUSH has no type or level to give: always EINVAL.
 * ATOMIC WRITE: RC only, its SGEs (or inline pieces) exactly 8 bytes.
 */
TEST(wr_check_flush_atomic_write)
{
	static const struct sroce_sq_caps rc_no_inline = {
		.qp_type = IBV_QPT_RC, .max_sge = 4, .max_inline = 0,
	};
	struct ibv_sge sg[3] = {};
	struct ibv_send_wr wr;

	send_wr(&wr, 0, NULL, sg);
	wr.opcode = IBV_WR_FLUSH;
	wr.num_sge = 0;
	EXPECT_EQ(sroce_send_wr_check(&rc_caps, &wr), EINVAL);
	EXPECT_EQ(sroce_send_wr_check(&uc_caps, &wr), EINVAL);

	wr.opcode = IBV_WR_ATOMIC_WRITE;
	wr.num_sge = 1;
	sg[0].length = 8;
	EXPECT_EQ(sroce_send_wr_check(&rc_caps, &wr), 0);
	EXPECT_EQ(sroce_send_wr_check(&uc_caps, &wr), EINVAL);
	EXPECT_EQ(sroce_send_wr_check(&ud_caps, &wr), EINVAL);
	sg[0].length = 4;
	EXPECT_EQ(sroce_send_wr_check(&rc_caps, &wr), EINVAL);
	sg[0].length = 9;
	EXPECT_EQ(sroce_send_wr_check(&rc_caps, &wr), EINVAL);
	wr.num_sge = 0;
	EXPECT_EQ(sroce_send_wr_check(&rc_caps, &wr), EINVAL);
	/* Pieces that add up to 8, empty ones included. */
	wr.num_sge = 3;
	sg[0].length = 4;
	sg[1].length = 0;
	sg[2].length = 4;
	EXPECT_EQ(sroce_send_wr_check(&rc_caps, &wr), 0);
	/* A 32-bit sum of these would be 8. */
	sg[1].length = 0xffffffff;
	sg[2].length = 5;
	EXPECT_EQ(sroce_send_wr_check(&rc_caps, &wr), EINVAL);
	/* Inline: the 8 bytes live in the WQE, max_inline does not count. */
	wr.num_sge = 1;
	sg[0].length = 8;
	wr.send_flags |= IBV_SEND_INLINE;
	EXPECT_EQ(sroce_send_wr_check(&rc_no_inline, &wr), 0);
	sg[0].length = 4;
	EXPECT_EQ(sroce_send_wr_check(&rc_no_inline, &wr), EINVAL);
	/* More SGEs than the QP has: ENOMEM first, as for every opcode. */
	wr.num_sge = 5;
	EXPECT_EQ(sroce_send_wr_check(&rc_caps, &wr), ENOMEM);
}

/* ibv_wr_flush(): only a range must fit the WQE's 32-bit length. */
TEST(flush_length_check)
{
	EXPECT_EQ(sroce_check_flush(0, IBV_FLUSH_RANGE), 0);
	EXPECT_EQ(sroce_check_flush(UINT32_MAX, IBV_FLUSH_RANGE), 0);
	EXPECT_EQ(sroce_check_flush((uint64_t)UINT32_MAX + 1, IBV_FLUSH_RANGE),
		  EINVAL);
	EXPECT_EQ(sroce_check_flush(UINT64_MAX, IBV_FLUSH_RANGE), EINVAL);
	/* The whole MR: any length, it is not used. */
	EXPECT_EQ(sroce_check_flush(UINT64_MAX, IBV_FLUSH_MR), 0);
	EXPECT_EQ(sroce_check_flush(12345678, IBV_FLUSH_MR), 0);
	/* Unknown levels are the responder's to refuse. */
	EXPECT_EQ(sroce_check_flush((uint64_t)UINT32_MAX + 1, 7), 0);
}

/* ------------------------------------------------------------------ */
/* SGE count and inline limits                                        */
/* ------------------------------------------------------------------ */

TEST(wr_check_sge_count)
{
	struct ibv_send_wr wr;

	send_wr(&wr, 0, NULL, sges);
	wr.num_sge = 4;
	EXPECT_EQ(sroce_send_wr_check(&rc_caps, &wr), 0);
	wr.num_sge = 5;	/* seed-rules R3.8: mlx5 says ENOMEM */
	EXPECT_EQ(sroce_send_wr_check(&rc_caps, &wr), ENOMEM);
	wr.num_sge = -1;
	EXPECT_EQ(sroce_send_wr_check(&rc_caps, &wr), EINVAL);
	wr.num_sge = 0;
	EXPECT_EQ(sroce_send_wr_check(&rc_caps, &wr), 0);
	EXPECT_EQ(sroce_check_sge_count(&rc_caps, 1ULL << 32), ENOMEM);
}

TEST(wr_check_inline_limit)
{
	struct ibv_sge sg[2] = {};
	struct ibv_send_wr wr;

	send_wr(&wr, 0, NULL, sg);
	wr.send_flags |= IBV_SEND_INLINE;
	wr.sg_list = sg;
	wr.num_sge = 2;
	sg[0].length = 60;
	sg[1].length = 4;	/* exactly max_inline */
	EXPECT_EQ(sroce_send_wr_check(&rc_caps, &wr), 0);
	sg[1].length = 5;	/* one byte over: ENOMEM, as mlx5 */
	EXPECT_EQ(sroce_send_wr_check(&rc_caps, &wr), ENOMEM);
	/* A 32-bit sum would wrap to 0 here; ours must not. */
	sg[0].length = 0x80000000;
	sg[1].length = 0x80000000;
	EXPECT_EQ(sroce_send_wr_check(&rc_caps, &wr), ENOMEM);
	/* Too long without INLINE is the kernel's business, not ours. */
	wr.send_flags &= ~IBV_SEND_INLINE;
	EXPECT_EQ(sroce_send_wr_check(&rc_caps, &wr), 0);
	/* INLINE on an opcode that sends no payload. */
	sg[0].length = sg[1].length = 1;
	wr.send_flags |= IBV_SEND_INLINE;
	wr.opcode = IBV_WR_RDMA_READ;
	EXPECT_EQ(sroce_send_wr_check(&rc_caps, &wr), EINVAL);
	wr.opcode = IBV_WR_ATOMIC_FETCH_AND_ADD;
	EXPECT_EQ(sroce_send_wr_check(&rc_caps, &wr), EINVAL);
	wr.opcode = IBV_WR_RDMA_WRITE_WITH_IMM;
	EXPECT_EQ(sroce_send_wr_check(&rc_caps, &wr), 0);
	EXPECT_EQ(sroce_check_inline(&rc_caps, IBV_WR_SEND, 64), 0);
	EXPECT_EQ(sroce_check_inline(&rc_caps, IBV_WR_SEND, 65), ENOMEM);
	EXPECT_EQ(sroce_check_inline(&rc_caps, IBV_WR_LOCAL_INV, 0), EINVAL);
}

TEST(wr_check_objects)
{
	struct ibv_mr mr = { .lkey = 5 };
	struct ibv_mw mw = { .rkey = 6 };
	struct ibv_send_wr wr;

	send_wr(&wr, 0, NULL, sges);
	wr.wr.ud.ah = NULL;
	EXPECT_EQ(sroce_send_wr_check(&ud_caps, &wr), EINVAL);
	wr.wr.ud.ah = &ah.ibv_ah;
	EXPECT_EQ(sroce_send_wr_check(&ud_caps, &wr), 0);

	memset(&wr, 0, sizeof(wr));
	wr.opcode = IBV_WR_BIND_MW;
	EXPECT_EQ(sroce_send_wr_check(&rc_caps, &wr), EINVAL);	/* no MW */
	wr.bind_mw.mw = &mw;
	wr.bind_mw.bind_info.length = 4096;
	EXPECT_EQ(sroce_send_wr_check(&rc_caps, &wr), EINVAL);	/* no MR */
	wr.bind_mw.bind_info.mr = &mr;
	EXPECT_EQ(sroce_send_wr_check(&rc_caps, &wr), 0);
	wr.bind_mw.bind_info.mr = NULL;
	wr.bind_mw.bind_info.length = 0;			/* unbind */
	EXPECT_EQ(sroce_send_wr_check(&uc_caps, &wr), 0);
}

/* ------------------------------------------------------------------ */
/* WQE contents, per opcode                                           */
/* ------------------------------------------------------------------ */

/* Build @wr into a garbage-filled slot that ends where the heap block does. */
static struct sroce_send_wqe *build(struct test_ring *t,
				    const struct sroce_sq_caps *caps,
				    struct ibv_send_wr *wr)
{
	struct sroce_send_wqe *wqe = sroce_uring_slot(&t->r, t->r.mask);

	memset(wqe, GARBAGE, t->r.stride);
	sroce_wqe_from_wr(caps, wqe, wr);
	return wqe;
}

TEST(wqe_send_sges)
{
	struct ibv_sge sg[3] = {
		{ .addr = 0x1000, .length = 10, .lkey = 1 },
		{ .addr = 0x2000, .length = 0, .lkey = 2 },
		{ .addr = 0x3000, .length = 30, .lkey = 3 },
	};
	struct sroce_send_wqe *w;
	struct ibv_send_wr wr;
	struct test_ring t;
	uint32_t stride = sroce_send_wqe_size(4, 64);

	ASSERT_EQ(ring_make(&t, 2, stride, 4, 0), 0);
	send_wr(&wr, 0, NULL, &sges[0]);
	wr.sg_list = sg;
	wr.wr_id = 0x1122334455667788ULL;
	wr.num_sge = 3;
	/* IP_CSUM means nothing here and must not reach the kernel. */
	wr.send_flags = IBV_SEND_SIGNALED | IBV_SEND_SOLICITED |
			IBV_SEND_FENCE | IBV_SEND_IP_CSUM;
	w = build(&t, &rc_caps, &wr);
	EXPECT_EQ(w->wr_id, 0x1122334455667788ULL);
	EXPECT_EQ(w->opcode, IBV_WR_SEND);
	EXPECT_EQ(w->send_flags, IBV_SEND_SIGNALED | IBV_SEND_SOLICITED |
				 IBV_SEND_FENCE);
	EXPECT_EQ(w->num_sge, 3);
	EXPECT_EQ(w->inline_len, 0);
	EXPECT_EQ(w->imm_data, 0);
	EXPECT_EQ(w->xrc_remote_srqn, 0);
	EXPECT_TRUE(all_bytes(&w->wr, 0, sizeof(w->wr)));
	EXPECT_MEMEQ(sroce_wqe_sges(w), sg, sizeof(sg));
	ring_free(&t);
}

/* An XRC initiator's WR names the target's XRC SRQ; no other type's does. */
TEST(wqe_xrc_remote_srqn)
{
	static const struct sroce_sq_caps xrc_caps = {
		.qp_type = IBV_QPT_XRC_SEND, .max_sge = 4, .max_inline = 64,
	};
	struct sroce_send_wqe *w;
	struct ibv_send_wr wr;
	struct test_ring t;

	ASSERT_EQ(ring_make(&t, 2, sroce_send_wqe_size(4, 64), 4, 0), 0);
	send_wr(&wr, 0, NULL, sges);
	wr.opcode = IBV_WR_RDMA_WRITE;
	wr.wr.rdma.remote_addr = 0x1000;
	wr.wr.rdma.rkey = 7;
	wr.qp_type.xrc.remote_srqn = 0x123456;
	w = build(&t, &xrc_caps, &wr);
	EXPECT_EQ(w->xrc_remote_srqn, 0x123456);
	EXPECT_EQ(w->wr.rdma.rkey, 7);
	w = build(&t, &rc_caps, &wr);
	EXPECT_EQ(w->xrc_remote_srqn, 0);
	ring_free(&t);
}

TEST(wqe_each_opcode_rc)
{
	struct ibv_mr mr = { .lkey = 0xAB };
	struct ibv_mw mw = { .rkey = 0xCD };
	struct sroce_send_wqe *w;
	struct ibv_send_wr wr;
	struct test_ring t;

	ASSERT_EQ(ring_make(&t, 1, sroce_send_wqe_size(4, 64), 2, 0), 0);

	send_wr(&wr, 0, NULL, sges);
	wr.opcode = IBV_WR_RDMA_WRITE;
	wr.wr.rdma.remote_addr = 0xdead0000beefULL;
	wr.wr.rdma.rkey = 0x4242;
	w = build(&t, &rc_caps, &wr);
	EXPECT_EQ(w->opcode, IBV_WR_RDMA_WRITE);
	EXPECT_EQ(w->wr.rdma.remote_addr, 0xdead0000beefULL);
	EXPECT_EQ(w->wr.rdma.rkey, 0x4242);
	EXPECT_EQ(w->wr.rdma.reserved, 0);
	EXPECT_EQ(w->imm_data, 0);
	EXPECT_EQ(w->num_sge, 1);

	wr.opcode = IBV_WR_RDMA_WRITE_WITH_IMM;
	wr.imm_data = htobe32(0x01020304);
	w = build(&t, &rc_caps, &wr);
	EXPECT_EQ(w->imm_data, htobe32(0x01020304));	/* as given: BE */
	EXPECT_EQ(w->wr.rdma.remote_addr, 0xdead0000beefULL);
	EXPECT_EQ(w->wr.rdma.rkey, 0x4242);

	wr.opcode = IBV_WR_RDMA_READ;
	w = build(&t, &rc_caps, &wr);
	EXPECT_EQ(w->opcode, IBV_WR_RDMA_READ);
	EXPECT_EQ(w->imm_data, 0);
	EXPECT_EQ(w->wr.rdma.rkey, 0x4242);
	EXPECT_EQ(w->num_sge, 1);

	wr.opcode = IBV_WR_SEND_WITH_IMM;
	w = build(&t, &rc_caps, &wr);
	EXPECT_EQ(w->imm_data, htobe32(0x01020304));
	EXPECT_TRUE(all_bytes(&w->wr, 0, sizeof(w->wr)));

	wr.opcode = IBV_WR_SEND_WITH_INV;
	wr.invalidate_rkey = 0x77665544;
	w = build(&t, &rc_caps, &wr);
	EXPECT_EQ(w->imm_data, 0x77665544);		/* host order R_Key */
	EXPECT_EQ(w->num_sge, 1);

	memset(&wr, 0, sizeof(wr));
	wr.sg_list = sges;
	wr.num_sge = 1;
	wr.opcode = IBV_WR_ATOMIC_CMP_AND_SWP;
	wr.wr.atomic.remote_addr = 0x8000;
	wr.wr.atomic.rkey = 0x99;
	wr.wr.atomic.compare_add = 0x1111222233334444ULL;
	wr.wr.atomic.swap = 0x5555666677778888ULL;
	w = build(&t, &rc_caps, &wr);
	EXPECT_EQ(w->wr.atomic.remote_addr, 0x8000);
	EXPECT_EQ(w->wr.atomic.rkey, 0x99);
	EXPECT_EQ(w->wr.atomic.compare_add, 0x1111222233334444ULL);
	EXPECT_EQ(w->wr.atomic.swap, 0x5555666677778888ULL);
	EXPECT_EQ(w->wr.atomic.reserved, 0);
	EXPECT_EQ(w->num_sge, 1);

	wr.opcode = IBV_WR_ATOMIC_FETCH_AND_ADD;
	wr.wr.atomic.swap = 0;
	w = build(&t, &rc_caps, &wr);
	EXPECT_EQ(w->opcode, IBV_WR_ATOMIC_FETCH_AND_ADD);
	EXPECT_EQ(w->wr.atomic.compare_add, 0x1111222233334444ULL);
	EXPECT_EQ(w->wr.atomic.swap, 0);

	/* Local operations move no data: no SGEs even when some are given. */
	wr.opcode = IBV_WR_LOCAL_INV;
	wr.invalidate_rkey = 0xABCDEF01;
	w = build(&t, &rc_caps, &wr);
	EXPECT_EQ(w->opcode, IBV_WR_LOCAL_INV);
	EXPECT_EQ(w->imm_data, 0xABCDEF01);
	EXPECT_EQ(w->num_sge, 0);
	EXPECT_EQ(w->inline_len, 0);
	EXPECT_TRUE(all_bytes(&w->wr, 0, sizeof(w->wr)));

	memset(&wr, 0, sizeof(wr));
	wr.opcode = IBV_WR_BIND_MW;
	wr.wr_id = 9;
	wr.send_flags = IBV_SEND_SIGNALED;
	wr.bind_mw.mw = &mw;
	wr.bind_mw.rkey = 0xCE;
	wr.bind_mw.bind_info.mr = &mr;
	wr.bind_mw.bind_info.addr = 0x10000;
	wr.bind_mw.bind_info.length = 0x2000;
	wr.bind_mw.bind_info.mw_access_flags = 0x6;
	w = build(&t, &rc_caps, &wr);
	EXPECT_EQ(w->opcode, IBV_WR_BIND_MW);
	EXPECT_EQ(w->wr_id, 9);
	EXPECT_EQ(w->send_flags, IBV_SEND_SIGNALED);
	EXPECT_EQ(w->wr.bind_mw.addr, 0x10000);
	EXPECT_EQ(w->wr.bind_mw.length, 0x2000);
	EXPECT_EQ(w->wr.bind_mw.mw_rkey, 0xCD);
	EXPECT_EQ(w->wr.bind_mw.new_rkey, 0xCE);
	EXPECT_EQ(w->wr.bind_mw.mr_lkey, 0xAB);
	EXPECT_EQ(w->wr.bind_mw.access, 0x6);
	EXPECT_EQ(w->num_sge, 0);

	/* Unbind: no MR, length 0. */
	wr.bind_mw.bind_info.mr = NULL;
	wr.bind_mw.bind_info.length = 0;
	w = build(&t, &rc_caps, &wr);
	EXPECT_EQ(w->wr.bind_mw.mr_lkey, 0);
	EXPECT_EQ(w->wr.bind_mw.length, 0);
	ring_free(&t);
}

/* The 8 bytes of a classic ATOMIC WRITE, gathered into the WQE. */
TEST(wqe_atomic_write_from_wr)
{
	static const uint8_t want[8] = { 1, 2, 3, 4, 5, 6, 7, 8 };
	uint8_t lo[4] = { 1, 2, 3, 4 }, hi[4] = { 5, 6, 7, 8 };
	struct ibv_sge sg[3] = {
		{ .addr = (uintptr_t)lo, .length = 4, .lkey = 1 },
		{ .addr = 0x2000, .length = 0, .lkey = 2 },
		{ .addr = (uintptr_t)hi, .length = 4, .lkey = 3 },
	};
	struct sroce_send_wqe *w;
	struct ibv_send_wr wr;
	struct test_ring t;

	ASSERT_EQ(ring_make(&t, 1, sroce_send_wqe_size(4, 64), 2, 0), 0);
	send_wr(&wr, 5, NULL, &sges[0]);
	wr.opcode = IBV_WR_ATOMIC_WRITE;
	wr.sg_list = sg;
	wr.num_sge = 3;
	wr.wr.rdma.remote_addr = 0x7f00dead0008ULL;
	wr.wr.rdma.rkey = 0x5151;
	wr.send_flags = IBV_SEND_SIGNALED | IBV_SEND_FENCE;
	ASSERT_EQ(sroce_send_wr_check(&rc_caps, &wr), 0);
	w = build(&t, &rc_caps, &wr);
	EXPECT_EQ(w->wr_id, WRID(5));
	EXPECT_EQ(w->opcode, IBV_WR_ATOMIC_WRITE);
	EXPECT_EQ(w->send_flags, IBV_SEND_SIGNALED | IBV_SEND_FENCE);
	EXPECT_EQ(w->wr.atomic_write.remote_addr, 0x7f00dead0008ULL);
	EXPECT_EQ(w->wr.atomic_write.rkey, 0x5151);
	EXPECT_EQ(w->wr.atomic_write.reserved, 0);
	EXPECT_MEMEQ(w->wr.atomic_write.value, want, 8);
	EXPECT_EQ(w->num_sge, 0);
	EXPECT_EQ(w->inline_len, 0);
	EXPECT_EQ(w->imm_data, 0);
	EXPECT_TRUE(all_bytes((uint8_t *)&w->wr + 24, 0, sizeof(w->wr) - 24));

	/* Inline gives the same WQE, without the INLINE flag (no data). */
	wr.send_flags |= IBV_SEND_INLINE;
	wr.num_sge = 1;
	sg[0].addr = (uintptr_t)want;
	sg[0].length = 8;
	w = build(&t, &rc_caps, &wr);
	EXPECT_MEMEQ(w->wr.atomic_write.value, want, 8);
	EXPECT_EQ(w->send_flags, IBV_SEND_SIGNALED | IBV_SEND_FENCE);
	EXPECT_EQ(w->num_sge, 0);
	EXPECT_EQ(w->inline_len, 0);
	ring_free(&t);
}

/* The ibv_qp_ex setters of IBA 1.5's two opcodes. */
TEST(wqe_flush_atomic_write_setters)
{
	static const uint8_t v[8] = { 0xf0, 0xe1, 0xd2, 0xc3, 0xb4, 0xa5,
				      0x96, 0x87 };
	struct sroce_send_wqe *w;
	struct test_ring t;

	ASSERT_EQ(ring_make(&t, 1, sroce_send_wqe_size(4, 64), 2, 0), 0);
	w = sroce_uring_slot(&t.r, 0);
	memset(w, GARBAGE, t.r.stride);
	sroce_wqe_init(w, 11, IBV_WR_ATOMIC_WRITE,
		       IBV_SEND_SIGNALED | IBV_SEND_INLINE);
	sroce_wqe_set_atomic_write(w, 0x1000, 0x22, v);
	EXPECT_EQ(w->opcode, IBV_WR_ATOMIC_WRITE);
	EXPECT_EQ(w->send_flags, IBV_SEND_SIGNALED);
	EXPECT_EQ(w->wr.atomic_write.remote_addr, 0x1000);
	EXPECT_EQ(w->wr.atomic_write.rkey, 0x22);
	EXPECT_EQ(w->wr.atomic_write.reserved, 0);
	EXPECT_MEMEQ(w->wr.atomic_write.value, v, 8);
	EXPECT_EQ(w->num_sge, 0);
	EXPECT_EQ(w->inline_len, 0);

	memset(w, GARBAGE, t.r.stride);
	sroce_wqe_init(w, 12, IBV_WR_FLUSH, IBV_SEND_SIGNALED);
	sroce_wqe_set_flush(w, 0x2008, 0x33, 4096, IBV_FLUSH_GLOBAL,
			    IBV_FLUSH_RANGE);
	EXPECT_EQ(w->opcode, IBV_WR_FLUSH);
	EXPECT_EQ(w->wr.flush.remote_addr, 0x2008);
	EXPECT_EQ(w->wr.flush.rkey, 0x33);
	EXPECT_EQ(w->wr.flush.length, 4096);
	EXPECT_EQ(w->wr.flush.type, IBV_FLUSH_GLOBAL);
	EXPECT_EQ(w->wr.flush.level, IBV_FLUSH_RANGE);
	EXPECT_TRUE(all_bytes(w->wr.flush.reserved, 0, 6));
	EXPECT_EQ(w->num_sge, 0);
	EXPECT_EQ(w->inline_len, 0);
	sroce_wqe_set_flush(w, 0x2008, 0x33, UINT32_MAX, IBV_FLUSH_PERSISTENT,
			    IBV_FLUSH_RANGE);
	EXPECT_EQ(w->wr.flush.length, UINT32_MAX);
	EXPECT_EQ(w->wr.flush.type, IBV_FLUSH_PERSISTENT);
	/* The whole MR: length 0 whatever was given. */
	sroce_wqe_set_flush(w, 0, 0x33, 12345678, IBV_FLUSH_GLOBAL,
			    IBV_FLUSH_MR);
	EXPECT_EQ(w->wr.flush.length, 0);
	EXPECT_EQ(w->wr.flush.level, IBV_FLUSH_MR);
	/* type 0, unknown type bits, unknown level: passed through. */
	sroce_wqe_set_flush(w, 0x40, 0x33, 8, 0, IBV_FLUSH_RANGE);
	EXPECT_EQ(w->wr.flush.type, 0);
	sroce_wqe_set_flush(w, 0x40, 0x33, 8, 0xfc, 2);
	EXPECT_EQ(w->wr.flush.type, 0xfc);
	EXPECT_EQ(w->wr.flush.level, 2);
	EXPECT_EQ(w->wr.flush.length, 8);
	ring_free(&t);
}

/* A classic FLUSH or a short ATOMIC WRITE stops a list with EINVAL. */
TEST(sq_post_flush_atomic_write_bad_wr)
{
	struct ibv_send_wr wr[3], *bad = NULL;
	struct ibv_sge sg[3];
	uint64_t word = 0x0102030405060708ULL;
	struct test_ring t;
	uint32_t posted;

	ASSERT_EQ(ring_make(&t, 2, sroce_send_wqe_size(4, 64), 4, 0), 0);
	hook_watch(&t.r, true);
	send_wr(&wr[0], 0, &wr[1], &sg[0]);
	send_wr(&wr[1], 1, &wr[2], &sg[1]);
	send_wr(&wr[2], 2, NULL, &sg[2]);
	wr[1].opcode = IBV_WR_ATOMIC_WRITE;
	sg[1].addr = (uintptr_t)&word;
	sg[1].length = 4;
	EXPECT_EQ(sroce_sq_post(&t.r, &rc_caps, wr, &bad, &posted), EINVAL);
	EXPECT_TRUE(bad == &wr[1]);
	EXPECT_EQ(posted, 1);
	EXPECT_EQ(t.r.hdr->prod, 1);
	EXPECT_TRUE(all_bytes(sroce_uring_slot(&t.r, 1), GARBAGE, t.r.stride));

	/* Exactly 8 bytes: posted; then a classic FLUSH is refused. */
	sg[1].length = 8;
	wr[2].opcode = IBV_WR_FLUSH;
	wr[2].num_sge = 0;
	EXPECT_EQ(sroce_sq_post(&t.r, &rc_caps, &wr[1], &bad, &posted), EINVAL);
	EXPECT_TRUE(bad == &wr[2]);
	EXPECT_EQ(posted, 1);
	EXPECT_EQ(t.r.hdr->prod, 2);
	EXPECT_EQ(hook.bad, 0);
	EXPECT_MEMEQ(((struct sroce_send_wqe *)sroce_uring_slot(&t.r, 1))
		     ->wr.atomic_write.value, &word, 8);
	hook_watch(NULL, true);
	ring_free(&t);
}

TEST(wqe_ud_send)
{
	struct sroce_send_wqe *w;
	struct ibv_send_wr wr;
	struct test_ring t;

	ASSERT_EQ(ring_make(&t, 1, sroce_send_wqe_size(4, 64), 2, 0), 0);
	send_wr(&wr, 3, NULL, sges);
	wr.opcode = IBV_WR_SEND_WITH_IMM;
	wr.imm_data = htobe32(7);
	wr.wr.ud.remote_qpn = 0xABCDEF;
	wr.wr.ud.remote_qkey = 0x80010000;
	w = build(&t, &ud_caps, &wr);
	EXPECT_EQ(w->wr.ud.ah_index, 77);
	EXPECT_EQ(w->wr.ud.remote_qpn, 0xABCDEF);
	EXPECT_EQ(w->wr.ud.remote_qkey, 0x80010000);
	EXPECT_EQ(w->wr.ud.reserved, 0);
	EXPECT_EQ(w->imm_data, htobe32(7));
	EXPECT_EQ(w->num_sge, 1);
	EXPECT_EQ(sroce_wqe_sges(w)[0].addr, ADDR(3));
	ring_free(&t);
}

/* ------------------------------------------------------------------ */
/* Inline layout                                                      */
/* ------------------------------------------------------------------ */

TEST(wqe_inline_from_sges)
{
	static char a[] = "hello ", c[] = "world, fits exactly";
	char expect[64];
	struct ibv_sge sg[3] = {
		{ .addr = (uintptr_t)a, .length = 6, .lkey = 0xdead },
		{ .addr = 0, .length = 0 },	/* empty piece, NULL address */
		{ .addr = (uintptr_t)c, .length = 19 },
	};
	struct sroce_sq_caps caps = { IBV_QPT_RC, 1, 25 };
	struct sroce_send_wqe *w;
	struct ibv_send_wr wr;
	struct test_ring t;

	/* Slots of exactly header + 25 -> 96 bytes (rounded to 8). */
	ASSERT_EQ(ring_make(&t, 0, sroce_send_wqe_size(1, 25), 1, 0), 0);
	ASSERT_EQ(t.r.stride, 96);
	send_wr(&wr, 0, NULL, &sges[0]);
	wr.sg_list = sg;
	wr.num_sge = 3;
	EXPECT_EQ(sroce_send_wr_check(&caps, &wr), ENOMEM);	/* 3 > 1 SGE */
	caps.max_sge = 3;
	wr.send_flags = IBV_SEND_INLINE;
	ASSERT_EQ(sroce_send_wr_check(&caps, &wr), 0);
	w = build(&t, &caps, &wr);
	EXPECT_EQ(w->num_sge, 0);
	EXPECT_EQ(w->inline_len, 25);
	EXPECT_EQ(w->send_flags, IBV_SEND_INLINE);
	memcpy(expect, "hello world, fits exactly", 25);
	EXPECT_MEMEQ(sroce_wqe_inline(w), expect, 25);
	/* The rest of the slot is left alone (garbage stays garbage). */
	EXPECT_TRUE(all_bytes(sroce_wqe_inline(w) + 25, GARBAGE, 96 - 64 - 25));
	ring_free(&t);
}

TEST(wqe_inline_bufs_and_setters_replace)
{
	char x[40], y[24];
	struct ibv_data_buf bufs[3] = {
		{ x, sizeof(x) }, { NULL, 0 }, { y, sizeof(y) },
	};
	struct ibv_sge sg = { .addr = 0x42, .length = 8, .lkey = 1 };
	struct sroce_send_wqe *w;
	struct test_ring t;

	memset(x, 'x', sizeof(x));
	memset(y, 'y', sizeof(y));
	ASSERT_EQ(ring_make(&t, 0, sroce_send_wqe_size(4, 64), 1, 0), 0);
	w = sroce_uring_slot(&t.r, 0);
	sroce_wqe_init(w, 5, IBV_WR_SEND, IBV_SEND_INLINE | IBV_SEND_SIGNALED);
	EXPECT_EQ(w->send_flags, IBV_SEND_SIGNALED);	/* no data yet */
	sroce_wqe_set_sges(w, &sg, 1);
	EXPECT_EQ(w->num_sge, 1);
	sroce_wqe_set_inline_bufs(w, bufs, 3);
	EXPECT_EQ(w->num_sge, 0);
	EXPECT_EQ(w->inline_len, 64);
	EXPECT_EQ(w->send_flags, IBV_SEND_SIGNALED | IBV_SEND_INLINE);
	EXPECT_TRUE(all_bytes(sroce_wqe_inline(w), 'x', 40));
	EXPECT_TRUE(all_bytes(sroce_wqe_inline(w) + 40, 'y', 24));
	sroce_wqe_set_sges(w, &sg, 1);
	EXPECT_EQ(w->num_sge, 1);
	EXPECT_EQ(w->inline_len, 0);
	EXPECT_EQ(w->send_flags, IBV_SEND_SIGNALED);
	EXPECT_MEMEQ(sroce_wqe_sges(w), &sg, sizeof(sg));
	ring_free(&t);
}

/* ------------------------------------------------------------------ */
/* The send post loop: full, stop at the bad WR, wrap, ordering       */
/* ------------------------------------------------------------------ */

TEST(sq_post_full_enomem)
{
	struct ibv_send_wr wr[6], *bad = NULL;
	struct ibv_sge sg[6];
	struct test_ring t;
	uint32_t posted;
	int i;

	ASSERT_EQ(ring_make(&t, 2, sroce_send_wqe_size(4, 64), 4, 0), 0);
	hook_watch(&t.r, true);
	for (i = 4; i >= 0; i--)
		send_wr(&wr[i], i, i < 4 ? &wr[i + 1] : NULL, &sg[i]);
	EXPECT_EQ(sroce_sq_post(&t.r, &rc_caps, wr, &bad, &posted), ENOMEM);
	EXPECT_TRUE(bad == &wr[4]);
	EXPECT_EQ(posted, 4);
	EXPECT_EQ(t.r.hdr->prod, 4);
	EXPECT_EQ(t.r.prod, 4);
	EXPECT_EQ(hook.stores, 1);	/* one publication for the list */
	EXPECT_EQ(hook.bad, 0);

	/* Full: nothing written, nothing published. */
	send_wr(&wr[5], 4, NULL, &sg[5]);
	bad = NULL;
	EXPECT_EQ(sroce_sq_post(&t.r, &rc_caps, &wr[5], &bad, &posted), ENOMEM);
	EXPECT_TRUE(bad == &wr[5]);
	EXPECT_EQ(posted, 0);
	EXPECT_EQ(hook.stores, 1);

	/* The kernel consumed two: two more fit, the third does not. */
	ring_consume(&t, 2);
	send_wr(&wr[0], 4, &wr[1], &sg[0]);
	send_wr(&wr[1], 5, &wr[2], &sg[1]);
	send_wr(&wr[2], 6, NULL, &sg[2]);
	EXPECT_EQ(sroce_sq_post(&t.r, &rc_caps, wr, &bad, &posted), ENOMEM);
	EXPECT_TRUE(bad == &wr[2]);
	EXPECT_EQ(posted, 2);
	EXPECT_EQ(t.r.hdr->prod, 6);
	EXPECT_EQ(hook.bad, 0);
	hook_watch(NULL, true);
	ring_free(&t);
}

/* The kernel may grant fewer WRs than slots: the grant is the limit. */
TEST(sq_post_cap_below_slots)
{
	struct ibv_send_wr wr[4], *bad = NULL;
	struct ibv_sge sg[4];
	struct test_ring t;
	uint32_t posted;
	int i;

	ASSERT_EQ(ring_make(&t, 2, sroce_send_wqe_size(4, 64), 3, 0), 0);
	for (i = 3; i >= 0; i--)
		send_wr(&wr[i], i, i < 3 ? &wr[i + 1] : NULL, &sg[i]);
	EXPECT_EQ(sroce_sq_post(&t.r, &rc_caps, wr, &bad, &posted), ENOMEM);
	EXPECT_EQ(posted, 3);
	EXPECT_TRUE(bad == &wr[3]);
	ring_free(&t);
}

/* A bad WR in the middle: the ones before are posted, it is not written. */
TEST(sq_post_stops_at_bad_wr)
{
	struct ibv_send_wr wr[3], *bad = NULL;
	struct ibv_sge sg[3];
	struct test_ring t;
	uint32_t posted;

	ASSERT_EQ(ring_make(&t, 2, sroce_send_wqe_size(4, 64), 4, 0), 0);
	hook_watch(&t.r, true);
	send_wr(&wr[0], 0, &wr[1], &sg[0]);
	send_wr(&wr[1], 1, &wr[2], &sg[1]);
	send_wr(&wr[2], 2, NULL, &sg[2]);
	wr[1].opcode = IBV_WR_RDMA_READ;	/* not on UC */
	EXPECT_EQ(sroce_sq_post(&t.r, &uc_caps, wr, &bad, &posted), EINVAL);
	EXPECT_TRUE(bad == &wr[1]);
	EXPECT_EQ(posted, 1);
	EXPECT_EQ(t.r.hdr->prod, 1);
	EXPECT_TRUE(all_bytes(sroce_uring_slot(&t.r, 1), GARBAGE, t.r.stride));
	EXPECT_TRUE(all_bytes(sroce_uring_slot(&t.r, 2), GARBAGE, t.r.stride));

	/* The first WR bad: nothing at all, not even a publication. */
	hook.stores = 0;
	EXPECT_EQ(sroce_sq_post(&t.r, &uc_caps, &wr[1], &bad, &posted), EINVAL);
	EXPECT_EQ(posted, 0);
	EXPECT_EQ(hook.stores, 0);
	EXPECT_EQ(t.r.hdr->prod, 1);
	EXPECT_EQ(hook.bad, 0);
	hook_watch(NULL, true);
	ring_free(&t);
}

/* Free-running indices across 2^32: slots, fullness and publication. */
TEST(sq_post_wraps_at_2_32)
{
	const uint32_t start = 0xfffffffe;
	struct ibv_send_wr wr[5], *bad = NULL;
	struct ibv_sge sg[5];
	struct sroce_send_wqe *w;
	struct test_ring t;
	uint32_t posted, i;

	ASSERT_EQ(ring_make(&t, 2, sroce_send_wqe_size(4, 64), 4, start), 0);
	EXPECT_EQ(t.r.prod, start);
	hook_watch(&t.r, true);
	for (i = 0; i < 4; i++)
		send_wr(&wr[i], start + i, i < 3 ? &wr[i + 1] : NULL, &sg[i]);
	EXPECT_EQ(sroce_sq_post(&t.r, &rc_caps, wr, &bad, &posted), 0);
	EXPECT_EQ(posted, 4);
	EXPECT_EQ(t.r.hdr->prod, 2);
	for (i = 0; i < 4; i++) {
		w = sroce_uring_slot(&t.r, start + i);
		EXPECT_EQ(w->wr_id, WRID((uint32_t)(start + i)));
		EXPECT_EQ((uint8_t *)w - t.r.slots,
			  (size_t)((start + i) & 3) * t.r.stride);
	}
	/* prod - cons = 4 across the wrap: full. */
	send_wr(&wr[4], 2, NULL, &sg[4]);
	EXPECT_EQ(sroce_sq_post(&t.r, &rc_caps, &wr[4], &bad, &posted), ENOMEM);
	ring_consume(&t, 1);		/* consumed 0xfffffffe..0 */
	EXPECT_EQ(sroce_sq_post(&t.r, &rc_caps, &wr[4], &bad, &posted), 0);
	EXPECT_EQ(t.r.hdr->prod, 3);
	EXPECT_EQ(hook.bad, 0);
	hook_watch(NULL, true);
	ring_free(&t);
}

/* A cons the kernel never wrote (ahead of prod) only looks like "full". */
TEST(sq_post_garbage_cons_is_full)
{
	struct ibv_send_wr wr, *bad = NULL;
	struct ibv_sge sg;
	struct test_ring t;
	uint32_t posted;

	ASSERT_EQ(ring_make(&t, 2, sroce_send_wqe_size(4, 64), 4, 10), 0);
	ring_consume(&t, 20);
	send_wr(&wr, 10, NULL, &sg);
	EXPECT_EQ(sroce_sq_post(&t.r, &rc_caps, &wr, &bad, &posted), ENOMEM);
	EXPECT_EQ(posted, 0);
	EXPECT_TRUE(all_bytes(t.r.slots, GARBAGE, 4 * t.r.stride));
	ring_free(&t);
}

/*
 * Release ordering, as far as a single thread shows it: the producer
 * index is stored once per call, through the store-release, after every
 * slot it publishes is complete, and never to cons (test_ring_tsan checks
 * the same against a concurrent consumer).
 */
TEST(sq_publish_after_slots)
{
	struct ibv_send_wr wr[8], *bad = NULL;
	struct ibv_sge sg[8];
	struct test_ring t;
	uint32_t posted, i, n, base = 0;

	ASSERT_EQ(ring_make(&t, 3, sroce_send_wqe_size(4, 64), 8, 0), 0);
	hook_watch(&t.r, true);
	for (n = 1; n <= 8; n++) {
		for (i = 0; i < n; i++)
			send_wr(&wr[i], base + i, i + 1 < n ? &wr[i + 1] : NULL,
				&sg[i]);
		ASSERT_EQ(sroce_sq_post(&t.r, &rc_caps, wr, &bad, &posted), 0);
		ASSERT_EQ(posted, n);
		base += n;
		ring_consume(&t, base);
	}
	EXPECT_EQ(hook.stores, 8);
	EXPECT_EQ(hook.bad, 0);
	EXPECT_EQ(t.r.hdr->prod, base);

	/* The hook does see an incomplete slot (it is not a no-op). */
	hook.bad = 0;
	memset(sroce_uring_slot(&t.r, base), 0, t.r.stride);
	test_store_release(&t.r.hdr->prod, base + 1);
	EXPECT_EQ(hook.bad, 1);
	hook_watch(NULL, true);
	ring_free(&t);
}

/* ------------------------------------------------------------------ */
/* Receive queue                                                      */
/* ------------------------------------------------------------------ */

static void recv_wr(struct ibv_recv_wr *wr, uint32_t i,
		    struct ibv_recv_wr *next, struct ibv_sge *sg, int nsge)
{
	int k;

	memset(wr, 0, sizeof(*wr));
	for (k = 0; k < nsge; k++) {
		sg[k].addr = ADDR(i) + 0x100 * k;
		sg[k].length = 32 + k;
		sg[k].lkey = 0x55 + k;
	}
	wr->wr_id = WRID(i);
	wr->next = next;
	wr->sg_list = sg;
	wr->num_sge = nsge;
}

TEST(rq_post_layout_limits_wrap)
{
	const uint32_t start = 0xffffffff;
	struct ibv_recv_wr wr[4], *bad = NULL;
	struct ibv_sge sg[4][3];
	struct sroce_recv_wqe *w;
	struct test_ring t;
	bool flush;

	ASSERT_EQ(ring_make(&t, 1, sroce_recv_wqe_size(2), 2, start), 0);
	hook_watch(&t.r, false);
	recv_wr(&wr[0], start, &wr[1], sg[0], 2);
	recv_wr(&wr[1], start + 1, NULL, sg[1], 0);
	EXPECT_EQ(sroce_rq_post(&t.r, 2, wr, &bad, &flush), 0);
	EXPECT_FALSE(flush);
	EXPECT_EQ(t.r.hdr->prod, 1);
	w = sroce_uring_slot(&t.r, start);
	EXPECT_EQ(w->wr_id, WRID(start));
	EXPECT_EQ(w->num_sge, 2);
	EXPECT_EQ(w->reserved, 0);
	EXPECT_MEMEQ(sroce_rwqe_sges(w), sg[0], 2 * sizeof(struct sroce_sge));
	w = sroce_uring_slot(&t.r, start + 1);
	EXPECT_EQ(w->num_sge, 0);

	/* Full: ENOMEM; too many SGEs: EINVAL (checked first). */
	recv_wr(&wr[2], 1, NULL, sg[2], 2);
	EXPECT_EQ(sroce_rq_post(&t.r, 2, &wr[2], &bad, &flush), ENOMEM);
	EXPECT_TRUE(bad == &wr[2]);
	recv_wr(&wr[3], 1, NULL, sg[3], 3);
	EXPECT_EQ(sroce_rq_post(&t.r, 2, &wr[3], &bad, &flush), EINVAL);
	EXPECT_TRUE(bad == &wr[3]);
	wr[3].num_sge = -1;
	EXPECT_EQ(sroce_rq_post(&t.r, 2, &wr[3], &bad, &flush), EINVAL);
	ring_consume(&t, 1);
	EXPECT_EQ(sroce_rq_post(&t.r, 2, &wr[2], &bad, &flush), 0);
	EXPECT_EQ(t.r.hdr->prod, 2);
	EXPECT_EQ(hook.stores, 2);
	EXPECT_EQ(hook.bad, 0);
	hook_watch(NULL, false);
	ring_free(&t);
}

/* seed-rules R3.3: with SROCE_RING_FLUSH set, a post asks for a doorbell. */
TEST(rq_flush_flag_requests_doorbell)
{
	struct ibv_recv_wr wr, *bad = NULL;
	struct ibv_sge sg;
	struct test_ring t;
	bool flush = true;

	ASSERT_EQ(ring_make(&t, 2, sroce_recv_wqe_size(1), 4, 0), 0);
	recv_wr(&wr, 0, NULL, &sg, 1);
	EXPECT_EQ(sroce_rq_post(&t.r, 1, &wr, &bad, &flush), 0);
	EXPECT_FALSE(flush);
	t.r.hdr->flags = SROCE_CQ_OVERFLOW;	/* not ours */
	recv_wr(&wr, 1, NULL, &sg, 1);
	EXPECT_EQ(sroce_rq_post(&t.r, 1, &wr, &bad, &flush), 0);
	EXPECT_FALSE(flush);
	t.r.hdr->flags = SROCE_RING_FLUSH;
	recv_wr(&wr, 2, NULL, &sg, 1);
	EXPECT_EQ(sroce_rq_post(&t.r, 1, &wr, &bad, &flush), 0);
	EXPECT_TRUE(flush);
	/* Nothing posted (bad first WR): nothing to flush, no doorbell. */
	wr.num_sge = 2;
	EXPECT_EQ(sroce_rq_post(&t.r, 1, &wr, &bad, &flush), EINVAL);
	EXPECT_FALSE(flush);
	ring_free(&t);
}

/*
 * The SQ doorbell is skipped only while the kernel says its engines run
 * (engines_active), and never while the QP flushes (seed-rules R3.3).
 */
TEST(sq_doorbell_skipped_while_engines_active)
{
	struct test_ring t;

	ASSERT_EQ(ring_make(&t, 2, sroce_send_wqe_size(1, 0), 4, 0), 0);
	EXPECT_TRUE(sroce_uring_need_doorbell(&t.r));	/* old kernel: 0 */
	t.r.hdr->engines_active = 1;
	EXPECT_FALSE(sroce_uring_need_doorbell(&t.r));
	t.r.hdr->flags = SROCE_CQ_OVERFLOW;	/* not ours */
	EXPECT_FALSE(sroce_uring_need_doorbell(&t.r));
	t.r.hdr->flags = SROCE_RING_FLUSH;
	EXPECT_TRUE(sroce_uring_need_doorbell(&t.r));
	t.r.hdr->flags = 0;
	t.r.hdr->engines_active = 0;
	EXPECT_TRUE(sroce_uring_need_doorbell(&t.r));
	ring_free(&t);
}

/* ------------------------------------------------------------------ */
/* Ring set-up from the kernel's ring info                            */
/* ------------------------------------------------------------------ */

TEST(uring_setup_checks_kernel_layout)
{
	struct sroce_ring_info info = {
		.mmap_size = SROCE_RING_HDR_SIZE + 4 * 128,
		.log2_size = 2, .stride = 128,
	};
	struct sroce_uring r;
	uint8_t *mem = calloc(1, info.mmap_size);

	ASSERT_TRUE(mem);
	EXPECT_EQ(sroce_uring_setup(&r, mem, &info, 128, 100), 0);
	EXPECT_EQ(r.cap, 4);			/* clamped to the slots */
	EXPECT_EQ(r.mask, 3);
	EXPECT_TRUE(r.slots == mem + SROCE_RING_HDR_SIZE);
	EXPECT_EQ(sroce_uring_setup(&r, mem, &info, 136, 4), EPROTO);
	info.mmap_size -= 1;
	EXPECT_EQ(sroce_uring_setup(&r, mem, &info, 128, 4), EPROTO);
	info.mmap_size += 1;
	info.stride = 132;			/* not 8-byte aligned */
	EXPECT_EQ(sroce_uring_setup(&r, mem, &info, 128, 4), EPROTO);
	info.stride = 128;
	info.log2_size = 31;
	EXPECT_EQ(sroce_uring_setup(&r, mem, &info, 128, 4), EPROTO);

	/* After a RESET the kernel zeroes the indices: the producer follows. */
	info.log2_size = 2;
	((struct sroce_ring_hdr *)mem)->prod = 7;
	ASSERT_EQ(sroce_uring_setup(&r, mem, &info, 128, 4), 0);
	EXPECT_EQ(r.prod, 7);
	((struct sroce_ring_hdr *)mem)->prod = 0;
	sroce_uring_reload(&r);
	EXPECT_EQ(r.prod, 0);
	free(mem);
}

/* ------------------------------------------------------------------ */
/* Consumer-side removal (a reset QP's CQEs leave its CQ)             */
/* ------------------------------------------------------------------ */

static bool entry_is(const void *slot, void *arg)
{
	return *(const uint32_t *)slot == *(uint32_t *)arg;
}

/* Producer side of the test: entry @i of the ring holds value @v. */
static void ring_put(struct test_ring *t, uint32_t v)
{
	uint32_t p = t->r.hdr->prod;

	memcpy(sroce_uring_slot(&t->r, p), &v, sizeof(v));
	t->r.hdr->prod = p + 1;
}

TEST(uring_cons_remove_keeps_order_across_wrap)
{
	static const uint32_t vals[] = { 1, 7, 2, 7, 7, 3, 4, 7 };
	struct test_ring t;
	uint32_t seven = 7, none = 9, i, got[8], n = 0;
	const uint32_t *e;

	/* 8 slots, indices starting just below the 2^32 wrap. */
	ASSERT_EQ(ring_make(&t, 3, 16, 8, 0xfffffffcu), 0);
	for (i = 0; i < 8; i++)
		ring_put(&t, vals[i]);
	EXPECT_EQ(sroce_uring_cons_remove(&t.r, entry_is, &none), 0);
	EXPECT_EQ(t.r.cons, 0xfffffffcu);
	EXPECT_EQ(sroce_uring_cons_remove(&t.r, entry_is, &seven), 4);
	EXPECT_EQ(t.r.hdr->cons, t.r.cons);	/* published to the kernel */
	EXPECT_EQ(t.r.hdr->prod - t.r.cons, 4);
	while ((e = sroce_uring_cons_slot(&t.r))) {
		got[n++] = *e;
		sroce_uring_cons_advance(&t.r);
	}
	ASSERT_EQ(n, 4);
	EXPECT_EQ(got[0], 1);
	EXPECT_EQ(got[1], 2);
	EXPECT_EQ(got[2], 3);
	EXPECT_EQ(got[3], 4);
	/* Everything removed: the ring is empty, not garbage. */
	ring_put(&t, 7);
	ring_put(&t, 7);
	EXPECT_EQ(sroce_uring_cons_remove(&t.r, entry_is, &seven), 2);
	EXPECT_TRUE(sroce_uring_cons_slot(&t.r) == NULL);
	/* An impossible producer index is left alone. */
	t.r.hdr->prod = t.r.cons + 9;
	EXPECT_EQ(sroce_uring_cons_remove(&t.r, entry_is, &seven), 0);
	ring_free(&t);
}
