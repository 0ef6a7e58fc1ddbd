// SPDX-License-Identifier: GPL-2.0-only
/*
 * atomic: ATOMIC_CMP_AND_SWP and ATOMIC_FETCH_AND_ADD on RC (seed-rules
 * R1.2: 8-byte aligned 8-byte word in the responder's host endianness, RC
 * only), over IPv4 and IPv6 GIDs, and two QPs racing FETCH_AND_ADD on one
 * word.
 */
#include <pthread.h>
#include <unistd.h>
#include "dp.h"

#define WORD_OFF 4096	/* the remote word in B's buffer */

static uint64_t atomic_op(struct dp_pair *p, enum ibv_wr_opcode op, uint64_t wr_id,
			  uint64_t *remote, uint64_t cmp_add, uint64_t swap,
			  uint64_t *result)
{
	struct ibv_sge sge = { (uintptr_t)result, 8, p->a.buf.mr->lkey };
	struct ibv_send_wr wr = {
		.wr_id = wr_id, .sg_list = &sge, .num_sge = 1, .opcode = op,
		.send_flags = IBV_SEND_SIGNALED,
	};
	struct ibv_wc wc;
	const char *what = op == IBV_WR_ATOMIC_CMP_AND_SWP ? "CMP_AND_SWP" : "FETCH_AND_ADD";

	wr.wr.atomic.remote_addr = (uintptr_t)remote;
	wr.wr.atomic.rkey = p->b.buf.mr->rkey;
	wr.wr.atomic.compare_add = cmp_add;
	wr.wr.atomic.swap = swap;
	*result = 0x5a5a5a5a5a5a5a5aULL;
	dp_post_send(&p->a, &wr);
	dp_poll(p->a.scq, &wc, 10000, what);
	dp_check_wc(&wc, IBV_WC_SUCCESS, op == IBV_WR_ATOMIC_CMP_AND_SWP ?
		    IBV_WC_COMP_SWAP : IBV_WC_FETCH_ADD, wr_id, p->a.qp->qp_num, what);
	CHECK_EQ(wc.byte_len, 8, "atomic completion byte_len");
	return *result;
}

static void setup(const struct dp_case *c, struct dp_pair *p, struct dp_dev d[2])
{
	struct dp_cfg cfg = { .type = IBV_QPT_RC };

	dp_setup(p, d, c->fam, &cfg);
	if (d[0].attr.orig_attr.atomic_cap == IBV_ATOMIC_NONE ||
	    d[1].attr.orig_attr.atomic_cap == IBV_ATOMIC_NONE)
		dp_skip("device reports atomic_cap NONE");
}

/* CMP_AND_SWP returns the old value and swaps only on a match. */
static void test_cas(const struct dp_case *c)
{
	struct dp_dev d[2];
	struct dp_pair p;
	uint64_t *remote, *res, old;

	setup(c, &p, d);
	remote = (uint64_t *)(p.b.buf.p + WORD_OFF);
	res = (uint64_t *)p.a.buf.p;
	remote[-1] = remote[1] = 0xa5a5a5a5a5a5a5a5ULL;
	*remote = 0x1122334455667788ULL;
	old = atomic_op(&p, IBV_WR_ATOMIC_CMP_AND_SWP, 1, remote,
			0x1122334455667788ULL, 0x8877665544332211ULL, res);
	CHECK_EQ(old, 0x1122334455667788ULL, "CMP_AND_SWP (match) returned value");
	CHECK_EQ(*remote, 0x8877665544332211ULL, "remote word after a matching CMP_AND_SWP");

	old = atomic_op(&p, IBV_WR_ATOMIC_CMP_AND_SWP, 2, remote,
			0x1122334455667788ULL, 0xdeadbeefdeadbeefULL, res);
	CHECK_EQ(old, 0x8877665544332211ULL, "CMP_AND_SWP (mismatch) returned value");
	CHECK_EQ(*remote, 0x8877665544332211ULL,
		 "remote word after a mismatching CMP_AND_SWP (must not change)");

	/* Differs from the current value only in the top bit: still no swap. */
	old = atomic_op(&p, IBV_WR_ATOMIC_CMP_AND_SWP, 3, remote,
			0x0877665544332211ULL, 0, res);
	CHECK_EQ(old, 0x8877665544332211ULL, "CMP_AND_SWP (top-bit mismatch) returned value");
	CHECK_EQ(*remote, 0x8877665544332211ULL, "remote word after top-bit mismatch");

	old = atomic_op(&p, IBV_WR_ATOMIC_CMP_AND_SWP, 4, remote,
			0x8877665544332211ULL, 0, res);
	CHECK_EQ(old, 0x8877665544332211ULL, "CMP_AND_SWP to zero returned value");
	CHECK_EQ(*remote, 0, "remote word after CMP_AND_SWP to zero");
	CHECK_EQ(remote[-1], 0xa5a5a5a5a5a5a5a5ULL, "word before the target");
	CHECK_EQ(remote[1], 0xa5a5a5a5a5a5a5a5ULL, "word after the target");
	NOTE("CMP_AND_SWP: swap on match, no swap on mismatch, old value returned");
	dp_teardown(&p, d);
}

/* FETCH_AND_ADD returns the old value; the sum wraps at 2^64. */
static void test_faa(const struct dp_case *c)
{
	struct dp_dev d[2];
	struct dp_pair p;
	uint64_t *remote, *res, old;

	setup(c, &p, d);
	remote = (uint64_t *)(p.b.buf.p + WORD_OFF + 8);
	res = (uint64_t *)p.a.buf.p;
	remote[-1] = remote[1] = 0xa5a5a5a5a5a5a5a5ULL;
	*remote = 0x00000000ffffffffULL;
	old = atomic_op(&p, IBV_WR_ATOMIC_FETCH_AND_ADD, 1, remote, 1, 0, res);
	CHECK_EQ(old, 0x00000000ffffffffULL, "FETCH_AND_ADD returned value");
	CHECK_EQ(*remote, 0x0000000100000000ULL, "remote word after +1 (carry into bit 32)");
	*remote = 0xfffffffffffffff0ULL;
	old = atomic_op(&p, IBV_WR_ATOMIC_FETCH_AND_ADD, 2, remote, 0x20, 0, res);
	CHECK_EQ(old, 0xfffffffffffffff0ULL, "FETCH_AND_ADD returned value");
	CHECK_EQ(*remote, 0x10, "remote word after a wrapping add");
	old = atomic_op(&p, IBV_WR_ATOMIC_FETCH_AND_ADD, 3, remote, 0, 0, res);
	CHECK_EQ(old, 0x10, "FETCH_AND_ADD of 0 returned value");
	CHECK_EQ(*remote, 0x10, "remote word after +0");
	CHECK_EQ(remote[-1], 0xa5a5a5a5a5a5a5a5ULL, "word before the target");
	CHECK_EQ(remote[1], 0xa5a5a5a5a5a5a5a5ULL, "word after the target");
	NOTE("FETCH_AND_ADD: old values returned, carry and 2^64 wrap correct");
	dp_teardown(&p, d);
}

#define RACE_N 200

struct racer {
	struct dp_pair *p;
	uint64_t *word;
	uint32_t rkey;
	int window;
	char err[160];
};

/* Posts RACE_N FETCH_AND_ADD(1), up to window in flight; results in slots. */
static void *race(void *arg)
{
	struct racer *r = arg;
	struct dp_pair *p = r->p;
	uint64_t *slots = (uint64_t *)p->a.buf.p;
	int posted = 0, done = 0;

	while (done < RACE_N) {
		while (posted < RACE_N && posted - done < r->window) {
			struct ibv_sge sge = { (uintptr_t)&slots[posted], 8, p->a.buf.mr->lkey };
			struct ibv_send_wr wr = {
				.wr_id = posted, .sg_list = &sge, .num_sge = 1,
				.opcode = IBV_WR_ATOMIC_FETCH_AND_ADD,
				.send_flags = IBV_SEND_SIGNALED,
			}, *bad;

			wr.wr.atomic.remote_addr = (uintptr_t)r->word;
			wr.wr.atomic.rkey = r->rkey;
			wr.wr.atomic.compare_add = 1;
			if (ibv_post_send(p->a.qp, &wr, &bad)) {
				snprintf(r->err, sizeof(r->err), "post_send %d failed", posted);
				return NULL;
			}
			posted++;
		}
		{
			struct ibv_wc wc;
			uint64_t t0 = dp_now_ms();
			int n;

			while ((n = ibv_poll_cq(p->a.scq, 1, &wc)) == 0) {
				if (dp_now_ms() - t0 > 20000) {
					snprintf(r->err, sizeof(r->err),
						 "no completion for FAA %d in 20 s", done);
					return NULL;
				}
				usleep(100);
			}
			if (n < 0 || wc.status != IBV_WC_SUCCESS || wc.wr_id != (uint64_t)done ||
			    wc.opcode != IBV_WC_FETCH_ADD) {
				snprintf(r->err, sizeof(r->err), "FAA %d: completion n=%d "
					 "status %s wr_id %llu opcode %d", done, n,
					 ibv_wc_status_str(wc.status),
					 (unsigned long long)wc.wr_id, wc.opcode);
				return NULL;
			}
			done++;
		}
	}
	return NULL;
}

/* Two QPs racing FETCH_AND_ADD(1) RACE_N times each reach exactly 2*RACE_N,
 * and the values they got back are 0..2*RACE_N-1, each exactly once. */
static void test_race(const struct dp_case *c)
{
	struct dp_cfg cfg = { .type = IBV_QPT_RC, .buf_len = 64 * KiB };
	struct dp_dev d[2];
	struct dp_pair p[2];
	struct racer r[2];
	pthread_t t[2];
	static unsigned char seen[2 * RACE_N];
	uint64_t *word;
	int i, k, window;

	dp_open(&d[0], 0, c->fam);
	dp_open(&d[1], 1, c->fam);
	if (d[0].attr.orig_attr.atomic_cap == IBV_ATOMIC_NONE)
		dp_skip("device reports atomic_cap NONE");
	dp_pair_create(&p[0], &d[0], &d[1], &cfg);
	dp_pair_create(&p[1], &d[0], &d[1], &cfg);
	/* Both B QPs are in d[1]'s PD: p[0]'s MR serves p[1] too. */
	word = (uint64_t *)(p[0].b.buf.p + WORD_OFF);
	*word = 0;
	window = d[0].attr.orig_attr.max_qp_init_rd_atom;
	if (window > 8)
		window = 8;
	for (i = 0; i < 2; i++)
		r[i] = (struct racer){ .p = &p[i], .word = word,
				       .rkey = p[0].b.buf.mr->rkey, .window = window };
	for (i = 0; i < 2; i++)
		CHECK(!pthread_create(&t[i], NULL, race, &r[i]), "pthread_create");
	for (i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	for (i = 0; i < 2; i++)
		CHECK(!r[i].err[0], "QP %d: %s", i, r[i].err);
	CHECK_EQ(*word, 2 * RACE_N, "final value of the shared word");
	for (i = 0; i < 2; i++) {
		uint64_t *slots = (uint64_t *)p[i].a.buf.p;

		for (k = 0; k < RACE_N; k++) {
			CHECK(slots[k] < 2 * RACE_N, "QP %d FAA %d returned %llu, "
			      "outside 0..%d", i, k, (unsigned long long)slots[k],
			      2 * RACE_N - 1);
			CHECK(!seen[slots[k]], "value %llu returned twice (QP %d FAA %d)",
			      (unsigned long long)slots[k], i, k);
			seen[slots[k]] = 1;
			CHECK(k == 0 || slots[k] > slots[k - 1], "QP %d: FAA %d returned "
			      "%llu, not above FAA %d's %llu", i, k,
			      (unsigned long long)slots[k], k - 1,
			      (unsigned long long)slots[k - 1]);
		}
	}
	NOTE("2 QPs x %d FETCH_AND_ADD (window %d): sum %d, every old value unique",
	     RACE_N, window, 2 * RACE_N);
	dp_pair_destroy(&p[1]);
	dp_pair_destroy(&p[0]);
	dp_close(&d[1]);
	dp_close(&d[0]);
}

static const struct dp_case cases[] = {
	{ "RC_CMP_AND_SWP_v4", test_cas, IBV_QPT_RC, 4 },
	{ "RC_CMP_AND_SWP_v6", test_cas, IBV_QPT_RC, 6 },
	{ "RC_FETCH_AND_ADD_v4", test_faa, IBV_QPT_RC, 4 },
	{ "RC_FETCH_AND_ADD_v6", test_faa, IBV_QPT_RC, 6 },
	{ "RC_FETCH_AND_ADD_two_qps_race_v4", test_race, IBV_QPT_RC, 4 },
};

int main(int argc, char **argv)
{
	return dp_main(argc, argv, cases, ARRAY_SIZE(cases));
}
