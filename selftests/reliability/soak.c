// SPDX-License-Identifier: GPL-2.0-only
/*
 * soak: RC SEND, WRITE, READ and FETCH_AND_ADD in pipelined batches over
 * netem on both veths (UDP 4791 is all the traffic there): duplication,
 * reordering, and random loss of 1%, 5% and 10% together with both. Not
 * 20%: a request or its answer is then lost with p = 0.36, and eight such
 * attempts in a row (retry_cnt 7 used up, as on any RNIC) happen often
 * enough in a soak to fail it at random.
 * Every message is checked byte for byte, every receive must appear once,
 * and the atomics must be exact: each FETCH_AND_ADD runs once and returns
 * the sum of the adds before it (seed-rules R2.1 - R2.8).
 *
 * Usage (selftests/reliability/soak.sh): -t <case>; SOAK_BATCHES=<n>
 * overrides the number of batches of each case.
 */
#include <arpa/inet.h>
#include "rel.h"

#define BATCH	8
#define SLOT	(32 * KiB)
#define AREA	(BATCH * SLOT)		/* 256 KiB */
#define RECV_AREA	0
#define WRITE_AREA	AREA
#define READ_AREA	(2 * AREA)
#define ATOMIC_OFF	(3 * AREA)	/* B: the counter; A: the results */

struct soak {
	struct dp_pair p;
	struct dp_dev d[2];
	struct rel_ctrs ca, cb;
	uint64_t rnd, sum;
	unsigned long ops[4], bytes;
};

static uint32_t rnd(struct soak *s)
{
	s->rnd = s->rnd * 6364136223846793005ULL + 1442695040888963407ULL;
	return (uint32_t)(s->rnd >> 33);
}

/* One batch: BATCH WRs of random kinds and sizes in flight together. */
static void batch(struct soak *s, uint32_t seed)
{
	struct dp_pair *p = &s->p;
	uint64_t *word = (uint64_t *)(p->b.buf.p + ATOMIC_OFF);
	uint64_t want_orig[BATCH];
	struct dp_sgl sg[BATCH], rg[BATCH];
	size_t len[BATCH];
	int kind[BATCH], nrecv = 0, i, j;
	struct ibv_wc wc;
	unsigned int max = 4 * p->mtu;

	for (i = 0; i < BATCH; i++) {
		uint32_t sd = seed * BATCH + i;
		unsigned char *b = p->b.buf.p;

		kind[i] = rnd(s) % 4;
		len[i] = 1 + rnd(s) % max;
		switch (kind[i]) {
		case 0:		/* SEND into its own receive WQE */
			dp_sgl_make(&sg[i], &p->a.buf, RECV_AREA + i * SLOT, len[i], 1, 0);
			dp_sgl_fill(&sg[i], sd);
			dp_sgl_make(&rg[i], &p->b.buf, RECV_AREA + i * SLOT, len[i], 1, 0);
			dp_sgl_clear(&rg[i], 0x5a);
			dp_post_recv(&p->b, sd, rg[i].sge, rg[i].n);
			nrecv++;
			dp_send_wr(p, IBV_WR_SEND, sd, &sg[i], IBV_SEND_SIGNALED, 0, 0, 0);
			break;
		case 1:		/* WRITE */
			dp_sgl_make(&sg[i], &p->a.buf, WRITE_AREA + i * SLOT, len[i], 1, 0);
			dp_sgl_fill(&sg[i], sd);
			memset(b + WRITE_AREA + i * SLOT, 0x5a, len[i] + DP_GAP);
			dp_send_wr(p, IBV_WR_RDMA_WRITE, sd, &sg[i], IBV_SEND_SIGNALED,
				   0, (uintptr_t)b + WRITE_AREA + i * SLOT,
				   p->b.buf.mr->rkey);
			break;
		case 2:		/* READ */
			for (j = 0; j < (int)len[i]; j++)
				b[READ_AREA + i * SLOT + j] = dp_pat(j, sd);
			dp_sgl_make(&sg[i], &p->a.buf, READ_AREA + i * SLOT, len[i], 1, 0);
			dp_sgl_clear(&sg[i], 0x5a);
			dp_send_wr(p, IBV_WR_RDMA_READ, sd, &sg[i], IBV_SEND_SIGNALED, 0,
				   (uintptr_t)b + READ_AREA + i * SLOT, p->b.buf.mr->rkey);
			break;
		default: {	/* FETCH_AND_ADD of sd + 1 */
			uint64_t *res = (uint64_t *)(p->a.buf.p + ATOMIC_OFF) + i;
			struct ibv_sge sge = { (uintptr_t)res, 8, p->a.buf.mr->lkey };
			struct ibv_send_wr wr = {
				.wr_id = sd, .sg_list = &sge, .num_sge = 1,
				.opcode = IBV_WR_ATOMIC_FETCH_AND_ADD,
				.send_flags = IBV_SEND_SIGNALED,
			};

			*res = ~0ULL;
			wr.wr.atomic.remote_addr = (uintptr_t)word;
			wr.wr.atomic.rkey = p->b.buf.mr->rkey;
			wr.wr.atomic.compare_add = sd + 1;
			want_orig[i] = s->sum;
			s->sum += sd + 1;
			len[i] = 8;
			dp_post_send(&p->a, &wr);
			break;
		}
		}
		s->ops[kind[i]]++;
		s->bytes += len[i];
	}
	for (i = 0; i < BATCH; i++) {
		uint32_t sd = seed * BATCH + i;
		static const enum ibv_wc_opcode op[] = {
			IBV_WC_SEND, IBV_WC_RDMA_WRITE, IBV_WC_RDMA_READ, IBV_WC_FETCH_ADD,
		};

		dp_poll(p->a.scq, &wc, 120000, "send queue completion");
		dp_check_wc(&wc, IBV_WC_SUCCESS, op[kind[i]], sd, p->a.qp->qp_num,
			    "completion of the batch (in posting order)");
	}
	for (i = 0; i < BATCH; i++) {
		uint32_t sd = seed * BATCH + i;
		unsigned char *w = p->b.buf.p + WRITE_AREA + i * SLOT;

		switch (kind[i]) {
		case 0:
			dp_poll(p->b.rcq, &wc, 120000, "receive completion");
			dp_check_wc(&wc, IBV_WC_SUCCESS, IBV_WC_RECV, sd, p->b.qp->qp_num,
				    "receive (in order, once)");
			CHECK_EQ(wc.byte_len, len[i], "receive byte_len");
			dp_sgl_check(&rg[i], sd, 0x5a, "received message");
			nrecv--;
			break;
		case 1:
			dp_check_range(w, len[i], sd, "written range");
			dp_check_fill(w + len[i], DP_GAP, 0x5a, "guard after the WRITE");
			break;
		case 2:
			dp_sgl_check(&sg[i], sd, 0x5a, "data read");
			break;
		default:
			CHECK_EQ(((uint64_t *)(p->a.buf.p + ATOMIC_OFF))[i], want_orig[i],
				 "FETCH_AND_ADD original value (each executed once)");
			break;
		}
	}
	CHECK_EQ(nrecv, 0, "receives left");
	CHECK_EQ(*word, s->sum, "atomic counter (every add exactly once)");
}

/* c->arg: batches; the netem arguments are in the case's name table. */
static const char *const netem_of[] = {
	"delay 1ms duplicate 30%",
	"delay 2ms reorder 50% 50%",
	"delay 1ms reorder 25% 50% duplicate 2% loss 1%",
	"delay 1ms reorder 25% 50% duplicate 2% loss 5%",
	"delay 1ms reorder 25% 50% duplicate 2% loss 10%",
};

static void test_soak(const struct dp_case *c)
{
	struct dp_cfg cfg = {
		.type = IBV_QPT_RC, .buf_len = 4 * AREA, .max_send_wr = 64,
		.max_recv_wr = 64, .rc_timers = 1, .timeout = 12, .retry_cnt = 7,
		.rnr_retry = 7, .min_rnr_timer = 1,
	};
	const char *env = getenv("SOAK_BATCHES");
	long n = env ? atol(env) : c->arg, i;
	uint64_t t0;
	struct soak s;

	memset(&s, 0, sizeof(s));
	s.rnd = 0x5eed0000 + c->op;
	dp_setup(&s.p, s.d, 4, &cfg);
	if (s.d[0].attr.orig_attr.atomic_cap == IBV_ATOMIC_NONE)
		dp_skip("the device has no atomics");
	*(uint64_t *)(s.p.b.buf.p + ATOMIC_OFF) = 0;
	rel_ctrs_take(&s.ca, &s.p.a);
	rel_ctrs_take(&s.cb, &s.p.b);
	rel_netem('a', netem_of[c->op]);
	rel_netem('b', netem_of[c->op]);
	t0 = dp_now_ms();
	for (i = 0; i < n; i++)
		batch(&s, (uint32_t)i + 1);
	rel_netem('a', NULL);
	rel_netem('b', NULL);
	NOTE("netem '%s': %ld batches, %lu SEND %lu WRITE %lu READ %lu FETCH_ADD, %lu bytes in %llu ms",
	     netem_of[c->op], n, s.ops[0], s.ops[1], s.ops[2], s.ops[3], s.bytes,
	     (unsigned long long)(dp_now_ms() - t0));
	/* The recovery paths the impairment must have exercised. */
	if (strstr(netem_of[c->op], "duplicate"))
		CHECK(rel_delta(&s.cb, "duplicate_request") +
		      rel_delta(&s.ca, "duplicate_response") > 0,
		      "no duplicate seen under netem duplicate");
	if (strstr(netem_of[c->op], "reorder") || strstr(netem_of[c->op], "loss"))
		CHECK(rel_delta(&s.cb, "out_of_sequence") +
		      rel_delta(&s.ca, "out_of_sequence") > 0,
		      "no out-of-sequence packet seen");
	if (strstr(netem_of[c->op], "loss"))
		CHECK(rel_delta(&s.ca, "retrans_pkts") > 0, "no retransmission under loss");
	rel_ctrs_note(&s.ca);
	rel_ctrs_note(&s.cb);
	dp_teardown(&s.p, s.d);
}

static const struct dp_case cases[] = {
	{ "netem_duplicate", test_soak, IBV_QPT_RC, 4, 0, 40 },
	{ "netem_reorder", test_soak, IBV_QPT_RC, 4, 1, 40 },
	{ "loss_1pct", test_soak, IBV_QPT_RC, 4, 2, 40 },
	{ "loss_5pct", test_soak, IBV_QPT_RC, 4, 3, 40 },
	{ "loss_10pct", test_soak, IBV_QPT_RC, 4, 4, 25 },
};

int main(int argc, char **argv)
{
	return dp_main(argc, argv, cases, ARRAY_SIZE(cases));
}
