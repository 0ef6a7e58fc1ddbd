// SPDX-License-Identifier: GPL-2.0-only
/*
 * err_rdatomic: the responder's READ/ATOMIC table (seed-rules R2.7, R3.4
 * row "READ/ATOMIC over max_dest_rd_atomic"). A requester whose
 * max_rd_atomic is larger than the responder's max_dest_rd_atomic posts a
 * chain of READs (and an ATOMIC) in one ibv_post_send: they all leave at
 * once, and the ones behind a large READ arrive while its responses are
 * still going out. The first new READ/ATOMIC that finds max_dest_rd_atomic
 * earlier ones unanswered fails: the responder gets IBV_EVENT_QP_ACCESS_ERR
 * and goes to ERROR; the requester's WR completes with REM_INV_REQ_ERR
 * after the WRs before it completed with their data, and the rest flush
 * (R3.3). An ATOMIC over the limit is not executed.
 *
 * With equal limits the requester's window (its SQ stalls, R2.7) keeps it
 * within the table and nothing fails: no false overflow.
 */
#include <errno.h>
#include <unistd.h>
#include "err.h"

#define BIG_READ	(1 * MiB)	/* the READ the others queue behind */
#define SMALL_READ	(64 * KiB)
#define NREADS		6
#define ATOMIC_OFF	(3 * MiB)	/* the ATOMIC's word in B's buffer */
#define BUF_LEN		(4 * MiB)

/* Where READ i reads (B) and lands (A): READ 0 is the big one. */
static size_t read_off(int i)
{
	return i ? BIG_READ + (size_t)(i - 1) * SMALL_READ : 0;
}

static size_t read_len(int i)
{
	return i ? SMALL_READ : BIG_READ;
}

static uint64_t *atomic_word(struct dp_pair *p)
{
	return (uint64_t *)(p->b.buf.p + ATOMIC_OFF);
}

/*
 * Post, in one chain, READs 0..nreads-1 and then (if @atomic) a
 * FETCH_AND_ADD of 1 to B's word, WR ids 1, 2, ...
 */
static void post_chain(struct dp_pair *p, int nreads, int atomic)
{
	struct ibv_send_wr wr[NREADS + 1], *bad = NULL;
	struct ibv_sge sge[NREADS + 1];
	int i, n = nreads + !!atomic;

	memset(wr, 0, sizeof(wr));
	for (i = 0; i < n; i++) {
		wr[i].wr_id = i + 1;
		wr[i].sg_list = &sge[i];
		wr[i].num_sge = 1;
		wr[i].send_flags = IBV_SEND_SIGNALED;
		wr[i].next = i + 1 < n ? &wr[i + 1] : NULL;
		if (i < nreads) {
			sge[i] = (struct ibv_sge){ (uintptr_t)p->a.buf.p + read_off(i),
						   read_len(i), p->a.buf.mr->lkey };
			wr[i].opcode = IBV_WR_RDMA_READ;
			wr[i].wr.rdma.remote_addr = (uintptr_t)p->b.buf.p + read_off(i);
			wr[i].wr.rdma.rkey = p->b.buf.mr->rkey;
		} else {
			sge[i] = (struct ibv_sge){ (uintptr_t)p->a.buf.p + ATOMIC_OFF, 8,
						   p->a.buf.mr->lkey };
			wr[i].opcode = IBV_WR_ATOMIC_FETCH_AND_ADD;
			wr[i].wr.atomic.remote_addr = (uintptr_t)atomic_word(p);
			wr[i].wr.atomic.rkey = p->b.buf.mr->rkey;
			wr[i].wr.atomic.compare_add = 1;
		}
	}
	CHECK(!ibv_post_send(p->a.qp, wr, &bad), "post_send chain: %s", strerror(errno));
}

/* B's data for the READs, A's landing area cleared, B's word set. */
static void prepare(struct dp_pair *p)
{
	size_t i;

	for (i = 0; i < ATOMIC_OFF; i++)
		p->b.buf.p[i] = dp_pat(i, 77);
	memset(p->a.buf.p, 0x5a, p->a.buf.len);
	*atomic_word(p) = 1000;
}

/* WR i + 1 (READ i) completed: its data arrived. */
static void read_ok(struct dp_pair *p, int i)
{
	char what[64];

	snprintf(what, sizeof(what), "READ %d", i);
	err_expect_wc(p->a.scq, IBV_WC_SUCCESS, i + 1, p->a.qp, what);
	CHECK(!memcmp(p->a.buf.p + read_off(i), p->b.buf.p + read_off(i), read_len(i)),
	      "READ %d: data differs from B's", i);
}

/*
 * seed-rules R2.7, R3.4: requester max_rd_atomic 16, responder
 * max_dest_rd_atomic c->arg. c->op: 0 the chain is READs only and READ
 * c->arg is the one over the limit; 1 one READ then an ATOMIC (over a
 * table of one).
 */
static void test_overflow(const struct dp_case *c)
{
	struct dp_cfg cfg = { .type = IBV_QPT_RC, .buf_len = BUF_LEN,
			      .max_rd_atomic = 16,
			      .max_dest_rd_atomic = (uint8_t)c->arg };
	int atomic = c->op, nreads = atomic ? 1 : NREADS, over = (int)c->arg;
	long ov0, nak0;
	struct dp_dev d[2];
	struct dp_pair p;
	struct ibv_qp_attr at;
	struct ibv_qp_init_attr ia;
	int i;

	dp_setup(&p, d, c->fam, &cfg);
	CHECK(!ibv_query_qp(p.b.qp, &at, IBV_QP_MAX_DEST_RD_ATOMIC, &ia), "query_qp B");
	CHECK_EQ(at.max_dest_rd_atomic, c->arg, "B's max_dest_rd_atomic");
	CHECK(!ibv_query_qp(p.a.qp, &at, IBV_QP_MAX_QP_RD_ATOMIC, &ia), "query_qp A");
	CHECK_EQ(at.max_rd_atomic, 16, "A's max_rd_atomic");
	prepare(&p);
	ov0 = err_counter(&d[1], "rd_atomic_overflow");
	nak0 = err_counter(&d[1], "err_nak_sent");
	post_chain(&p, nreads, atomic);
	/* Responses in PSN order: the WRs before the failing one are whole. */
	for (i = 0; i < over; i++)
		read_ok(&p, i);
	err_expect_wc(p.a.scq, IBV_WC_REM_INV_REQ_ERR, over + 1, p.a.qp,
		      atomic ? "the ATOMIC over the limit" : "the READ over the limit");
	for (i = over + 1; i < nreads + atomic; i++)
		err_expect_wc(p.a.scq, IBV_WC_WR_FLUSH_ERR, i + 1, p.a.qp, "a WR behind it");
	dp_expect_none(p.a.scq, 50, "A's send CQ");
	err_expect_event(p.b.dev->ctx, IBV_EVENT_QP_ACCESS_ERR, p.b.qp, 5000, "responder");
	err_expect_state(p.b.qp, IBV_QPS_ERR, "responder QP");
	err_expect_state(p.a.qp, IBV_QPS_ERR, "requester QP");
	err_expect_no_event(p.a.dev->ctx, 50, "requester context");
	CHECK_EQ(err_counter(&d[1], "rd_atomic_overflow") - ov0, 1, "B rd_atomic_overflow delta");
	CHECK_EQ(err_counter(&d[1], "err_nak_sent") - nak0, 1, "B err_nak_sent delta");
	if (atomic)
		CHECK_EQ(*atomic_word(&p), 1000, "B's word (the ATOMIC must not run)");
	NOTE("table of %ld: WR %d (%s) REM_INV_REQ_ERR after %d whole READs, responder "
	     "QP_ACCESS_ERR, both ERROR", c->arg, over + 1, atomic ? "ATOMIC" : "READ", over);
	dp_teardown(&p, d);
}

/*
 * seed-rules R2.7: requester max_rd_atomic == responder max_dest_rd_atomic
 * == c->arg: the same chain (READs and an ATOMIC) all succeeds; the
 * requester's SQ had to stall (its window is what keeps it in the table).
 */
static void test_equal(const struct dp_case *c)
{
	struct dp_cfg cfg = { .type = IBV_QPT_RC, .buf_len = BUF_LEN,
			      .max_rd_atomic = (uint8_t)c->arg,
			      .max_dest_rd_atomic = (uint8_t)c->arg };
	long ov0, stall0;
	struct dp_dev d[2];
	struct dp_pair p;
	int i;

	dp_setup(&p, d, c->fam, &cfg);
	prepare(&p);
	ov0 = err_counter(&d[1], "rd_atomic_overflow");
	stall0 = err_counter(&d[0], "rd_atomic_stall");
	post_chain(&p, NREADS, 1);
	for (i = 0; i < NREADS; i++)
		read_ok(&p, i);
	err_expect_wc(p.a.scq, IBV_WC_SUCCESS, NREADS + 1, p.a.qp, "ATOMIC");
	CHECK_EQ(*(uint64_t *)(p.a.buf.p + ATOMIC_OFF), 1000, "ATOMIC's original value");
	CHECK_EQ(*atomic_word(&p), 1001, "B's word after the ATOMIC");
	dp_expect_none(p.a.scq, 50, "A's send CQ");
	err_expect_no_event(p.b.dev->ctx, 50, "responder context");
	err_expect_state(p.b.qp, IBV_QPS_RTS, "responder QP");
	err_expect_state(p.a.qp, IBV_QPS_RTS, "requester QP");
	CHECK_EQ(err_counter(&d[1], "rd_atomic_overflow") - ov0, 0, "B rd_atomic_overflow delta");
	CHECK(err_counter(&d[0], "rd_atomic_stall") > stall0,
	      "A's SQ never stalled: the chain did not test the window");
	NOTE("limits %ld/%ld: %d READs and an ATOMIC succeed, no overflow", c->arg,
	     c->arg, NREADS);
	dp_teardown(&p, d);
}

static const struct dp_case cases[] = {
	/* seed-rules R2.7, R3.4 */
	{ "READ_over_table_of_1", test_overflow, IBV_QPT_RC, 4, 0, 1 },
	{ "READ_over_table_of_2", test_overflow, IBV_QPT_RC, 4, 0, 2 },
	{ "ATOMIC_over_table_of_1", test_overflow, IBV_QPT_RC, 4, 1, 1 },
	{ "equal_limits_1", test_equal, IBV_QPT_RC, 4, 0, 1 },
	{ "equal_limits_2", test_equal, IBV_QPT_RC, 4, 0, 2 },
};

int main(int argc, char **argv)
{
	return dp_main(argc, argv, cases, ARRAY_SIZE(cases));
}
