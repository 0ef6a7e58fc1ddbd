// SPDX-License-Identifier: GPL-2.0-only
/*
 * loss: one RC (and UC) loss path per case, with sroce's deterministic drop
 * rules (Documentation/fault-injection.md). End A is the requester, B the
 * responder; A's first PSN is 0xfffff0 (dp.c), so most messages cross the
 * 24-bit PSN wrap (seed-rules R2.8). Every case checks the data byte for
 * byte, that the responder executed each message exactly once, and the
 * counters of the recovery path it exercised (seed-rules R2.1 - R2.8,
 * R3.7).
 */
#include <arpa/inet.h>
#include "rel.h"

#define MSG_PKTS 4			/* FIRST, MIDDLE, MIDDLE, LAST */
#define ROFF 4096			/* remote range in B's buffer */
#define READ_LONG_PKTS 32		/* responses of the long READ */

struct lossctx {
	struct dp_pair p;
	struct dp_dev d[2];
	struct rel_ctrs ca, cb;
	size_t len;
};

static void ctx_up(struct lossctx *x, enum ibv_qp_type type, struct dp_cfg *cfg)
{
	struct dp_cfg def = { .type = type };

	if (!cfg)
		cfg = &def;
	cfg->type = type;
	dp_setup(&x->p, x->d, 4, cfg);
	rel_fault_off(&x->p.a);
	rel_fault_off(&x->p.b);
	rel_netem('a', NULL);	/* left by a case that failed */
	rel_netem('b', NULL);
	x->len = (MSG_PKTS - 1) * x->p.mtu + x->p.mtu / 2;
	rel_ctrs_take(&x->ca, &x->p.a);
	rel_ctrs_take(&x->cb, &x->p.b);
}

static void ctx_down(struct lossctx *x)
{
	rel_ctrs_note(&x->ca);
	rel_ctrs_note(&x->cb);
	rel_fault_off(&x->p.a);
	rel_fault_off(&x->p.b);
	dp_teardown(&x->p, x->d);
}

#define A_DELTA(x, n) rel_delta(&(x)->ca, n)
#define B_DELTA(x, n) rel_delta(&(x)->cb, n)

/* A SEND of x->len bytes from A into a fresh WQE of B, checked. */
static void send_msg(struct lossctx *x, uint32_t seed)
{
	rel_send_msg(&x->p, x->len, seed);
}

/* A WRITE's @len bytes of pattern @seed at @dst, its 0x5a guards intact. */
static void check_written(const unsigned char *dst, size_t len, uint32_t seed)
{
	dp_check_fill(dst - DP_GAP, DP_GAP, 0x5a, "guard before the WRITE");
	dp_check_range(dst, len, seed, "written range");
	dp_check_fill(dst + len, DP_GAP, 0x5a, "guard after the WRITE");
}

static void write_msg(struct lossctx *x, uint32_t seed)
{
	unsigned char *dst = x->p.b.buf.p + ROFF;
	struct dp_sgl s;
	struct ibv_wc wc;

	dp_sgl_make(&s, &x->p.a.buf, 0, x->len, 1, 0);
	dp_sgl_fill(&s, seed);
	memset(dst - DP_GAP, 0x5a, x->len + 2 * DP_GAP);
	dp_send_wr(&x->p, IBV_WR_RDMA_WRITE, seed, &s, IBV_SEND_SIGNALED, 0,
		   (uintptr_t)dst, x->p.b.buf.mr->rkey);
	dp_poll(x->p.a.scq, &wc, DP_TIMEOUT_MS, "WRITE completion");
	dp_check_wc(&wc, IBV_WC_SUCCESS, IBV_WC_RDMA_WRITE, seed, x->p.a.qp->qp_num,
		    "WRITE");
	check_written(dst, x->len, seed);
}

/* A WRITE with immediate: the data lands, B gets one receive completion. */
static void write_imm_msg(struct lossctx *x, uint32_t seed)
{
	unsigned char *dst = x->p.b.buf.p + ROFF;
	struct dp_sgl s;
	struct ibv_wc wc;

	dp_post_recv(&x->p.b, seed, NULL, 0);
	dp_sgl_make(&s, &x->p.a.buf, 0, x->len, 1, 0);
	dp_sgl_fill(&s, seed);
	memset(dst - DP_GAP, 0x5a, x->len + 2 * DP_GAP);
	dp_send_wr(&x->p, IBV_WR_RDMA_WRITE_WITH_IMM, seed, &s, IBV_SEND_SIGNALED,
		   seed, (uintptr_t)dst, x->p.b.buf.mr->rkey);
	dp_poll(x->p.a.scq, &wc, DP_TIMEOUT_MS, "WRITE_IMM completion");
	dp_check_wc(&wc, IBV_WC_SUCCESS, IBV_WC_RDMA_WRITE, seed, x->p.a.qp->qp_num,
		    "WRITE_IMM");
	dp_poll(x->p.b.rcq, &wc, DP_TIMEOUT_MS, "receive completion");
	dp_check_wc(&wc, IBV_WC_SUCCESS, IBV_WC_RECV_RDMA_WITH_IMM, seed,
		    x->p.b.qp->qp_num, "RECV_RDMA_WITH_IMM");
	CHECK(wc.wc_flags & IBV_WC_WITH_IMM, "no immediate in the receive completion");
	CHECK_EQ(ntohl(wc.imm_data), seed, "immediate data");
	check_written(dst, x->len, seed);
	/* R2.6: executed once, so exactly one receive completion. */
	dp_expect_none(x->p.b.rcq, 100, "a second receive completion");
}

static void read_msg(struct lossctx *x, uint32_t seed)
{
	unsigned char *src = x->p.b.buf.p + ROFF;
	struct dp_sgl s;
	struct ibv_wc wc;
	size_t i;

	for (i = 0; i < x->len; i++)
		src[i] = dp_pat(i, seed);
	dp_sgl_make(&s, &x->p.a.buf, 64, x->len, 1, 0);
	dp_sgl_clear(&s, 0x5a);
	dp_send_wr(&x->p, IBV_WR_RDMA_READ, seed, &s, IBV_SEND_SIGNALED, 0,
		   (uintptr_t)src, x->p.b.buf.mr->rkey);
	dp_poll(x->p.a.scq, &wc, DP_TIMEOUT_MS, "READ completion");
	dp_check_wc(&wc, IBV_WC_SUCCESS, IBV_WC_RDMA_READ, seed, x->p.a.qp->qp_num,
		    "READ");
	CHECK_EQ(wc.byte_len, x->len, "READ byte_len");
	dp_sgl_check(&s, seed, 0x5a, "data read");
}

/* A signaled FETCH_AND_ADD of @add from A's 8 bytes at @res to B's @word. */
static void post_fetch_add(struct lossctx *x, uint64_t wr_id, uint64_t *res,
			   uint64_t *word, uint64_t add)
{
	struct ibv_sge sge = { (uintptr_t)res, 8, x->p.a.buf.mr->lkey };
	struct ibv_send_wr wr = {
		.wr_id = wr_id, .sg_list = &sge, .num_sge = 1,
		.opcode = IBV_WR_ATOMIC_FETCH_AND_ADD,
		.send_flags = IBV_SEND_SIGNALED,
	};

	wr.wr.atomic.remote_addr = (uintptr_t)word;
	wr.wr.atomic.rkey = x->p.b.buf.mr->rkey;
	wr.wr.atomic.compare_add = add;
	dp_post_send(&x->p.a, &wr);
}

/* The WRITE or SEND message is listed as c->op, the lost packet as c->arg. */
enum { LOSE_FIRST, LOSE_MIDDLE, LOSE_LAST };

/*
 * seed-rules R2.5: a lost first or middle packet makes B NAK the gap once
 * and A resend at once from the NAKed PSN (no timer); a lost last packet
 * has nothing behind it, so only the local ACK timer recovers it (R2.2),
 * and A goes back to the oldest unacknowledged PSN (R2.6: the packets B
 * already has are duplicates, ACKed again and not executed again).
 */
static void test_lose_pkt(const struct dp_case *c)
{
	static const int send_ops[] = { OP_SEND_FIRST, OP_SEND_MIDDLE, OP_SEND_LAST };
	static const int write_ops[] = { OP_WRITE_FIRST, OP_WRITE_MIDDLE, OP_WRITE_LAST };
	int write = c->op != IBV_WR_SEND;
	struct lossctx x;

	ctx_up(&x, IBV_QPT_RC, NULL);
	/* skip=1 for "middle": the second MIDDLE, PSN first + 2 */
	rel_fault(&x.p.a, "tx", "opcode=%d skip=%d drop=1",
		  (write ? write_ops : send_ops)[c->arg], c->arg == LOSE_MIDDLE);
	if (c->op == IBV_WR_RDMA_WRITE_WITH_IMM)
		write_imm_msg(&x, 11 + c->arg);
	else if (write)
		write_msg(&x, 11 + c->arg);
	else
		send_msg(&x, 11 + c->arg);
	CHECK_EQ(A_DELTA(&x, "fault_tx_drops"), 1, "packets dropped by the rule");
	/* Go-back-N from the oldest unacknowledged PSN: all 4, or 2 after MIDDLE 1 */
	CHECK_EQ(A_DELTA(&x, "retrans_pkts"), c->arg == LOSE_MIDDLE ? 2 : MSG_PKTS,
		 "A retrans_pkts");
	if (c->arg == LOSE_LAST) {
		CHECK_EQ(B_DELTA(&x, "seq_nak_sent"), 0, "B seq_nak_sent");
		CHECK_EQ(A_DELTA(&x, "ack_timer_expired"), 1, "A ack_timer_expired");
		CHECK_EQ(A_DELTA(&x, "retrans_timeout"), 1, "A retrans_timeout");
		/* FIRST and both MIDDLEs came again: duplicates, not executed. */
		CHECK_EQ(B_DELTA(&x, "duplicate_request"), MSG_PKTS - 1,
			 "B duplicate_request");
	} else {
		/*
		 * The restart packet goes twice, unless it takes a receive
		 * WQE (SEND FIRST; of a WRITE with immediate only the LAST
		 * does): the copy is a duplicate (R2.6).
		 */
		long copies = !write && c->arg == LOSE_FIRST ? 0 : 1;

		CHECK_EQ(B_DELTA(&x, "seq_nak_sent"), 1, "B seq_nak_sent (once per gap)");
		/* ... in two copies; A acts on the first only (R2.5) */
		CHECK_EQ(B_DELTA(&x, "seq_nak_copies"), 1, "B seq_nak_copies");
		CHECK_EQ(A_DELTA(&x, "seq_nak_rcvd"), 2, "A seq_nak_rcvd");
		CHECK_EQ(A_DELTA(&x, "dup_nak_ignored"), 1, "A dup_nak_ignored");
		CHECK_EQ(A_DELTA(&x, "retrans_seq_nak"), 1, "A retrans_seq_nak");
		CHECK_EQ(A_DELTA(&x, "retrans_timeout"), 0, "A retrans_timeout");
		CHECK_EQ(A_DELTA(&x, "restart_copies"), copies, "A restart_copies");
		/* the packets after the gap: 3 after FIRST, LAST after MIDDLE 2 */
		CHECK_EQ(B_DELTA(&x, "out_of_sequence"),
			 c->arg == LOSE_FIRST ? MSG_PKTS - 1 : 1, "B out_of_sequence");
		CHECK_EQ(B_DELTA(&x, "duplicate_request"), copies,
			 "B duplicate_request (the restart copy)");
	}
	/* The QP goes on working. */
	if (write)
		write_msg(&x, 21);
	else
		send_msg(&x, 21);
	ctx_down(&x);
}

/* seed-rules R2.2: a lost READ request has no successor: the timer. */
static void test_lose_read_req(const struct dp_case *c)
{
	struct lossctx x;

	ctx_up(&x, IBV_QPT_RC, NULL);
	rel_fault(&x.p.a, "tx", "opcode=%d", OP_READ_REQ);
	read_msg(&x, 31);
	CHECK_EQ(A_DELTA(&x, "fault_tx_drops"), 1, "READ requests dropped");
	CHECK_EQ(A_DELTA(&x, "retrans_timeout"), 1, "A retrans_timeout");
	CHECK_EQ(B_DELTA(&x, "duplicate_request"), 0, "B duplicate_request");
	read_msg(&x, 32);
	ctx_down(&x);
}

/*
 * seed-rules R2.6: a lost middle READ response: A asks again for the part
 * it lacks (a narrowed READ), B finds the READ in its table and serves it
 * again, without a timer.
 */
static void test_lose_read_resp(const struct dp_case *c)
{
	struct dp_cfg cfg = { .max_rd_atomic = (uint8_t)c->arg,
			      .max_dest_rd_atomic = (uint8_t)c->arg };
	struct lossctx x;

	ctx_up(&x, IBV_QPT_RC, &cfg);
	rel_fault(&x.p.b, "tx", "opcode=%d", OP_READ_RESP_MIDDLE);
	read_msg(&x, 41);
	CHECK_EQ(B_DELTA(&x, "fault_tx_drops"), 1, "READ responses dropped");
	CHECK_EQ(B_DELTA(&x, "duplicate_request"), 1, "B duplicate READs");
	CHECK_EQ(A_DELTA(&x, "retrans_implied_nak"), 1, "A retrans_implied_nak");
	CHECK_EQ(A_DELTA(&x, "retrans_timeout"), 0, "A retrans_timeout");
	read_msg(&x, 42);
	/* seed-rules R2.7: a duplicate is not a new READ, even in a full table. */
	CHECK_EQ(B_DELTA(&x, "rd_atomic_overflow"), 0, "B rd_atomic_overflow");
	ctx_down(&x);
}

/*
 * seed-rules R2.5, R2.6: one lost response of a long READ. Every response
 * after it arrives past comp.psn and reports the same gap: A goes back
 * once (one narrowed READ, one retry_cnt), not once per response, nor
 * again for the ACK in the LAST of those (it acknowledges a READ still
 * unanswered); or B serves the rest of the READ again for each and, with
 * losses, A spends its retries on its own duplicates.
 */
static void test_lose_one_of_many(const struct dp_case *c)
{
	struct dp_cfg cfg = { .buf_len = ROFF + READ_LONG_PKTS * 4096 + 4096 };
	struct lossctx x;

	ctx_up(&x, IBV_QPT_RC, &cfg);
	x.len = READ_LONG_PKTS * x.p.mtu;
	/*
	 * Spaced out, as on a real link, each response past the gap is
	 * handled on its own, the requester running after each: taken in
	 * one batch they would ask for one go-back even if each asked.
	 */
	rel_netem('b', "rate 8mbit");
	rel_fault(&x.p.b, "tx", "opcode=%d skip=1", OP_READ_RESP_MIDDLE);
	read_msg(&x, 45);
	rel_netem('b', NULL);
	CHECK_EQ(B_DELTA(&x, "fault_tx_drops"), 1, "READ responses dropped");
	CHECK(A_DELTA(&x, "out_of_sequence") >= 1, "A saw no response past the gap");
	CHECK_EQ(B_DELTA(&x, "duplicate_request"), 1, "B duplicate READs");
	CHECK_EQ(A_DELTA(&x, "retrans_pkts"), 1, "A READ requests resent");
	CHECK_EQ(A_DELTA(&x, "retrans_implied_nak"), 1, "A go-backs for the gap");
	CHECK_EQ(A_DELTA(&x, "retrans_timeout"), 0, "A retrans_timeout");
	read_msg(&x, 46);
	ctx_down(&x);
}

/*
 * seed-rules R2.5, R2.6: the LAST response of a READ lost, a second READ
 * behind it. The second READ's responses each acknowledge the first past
 * its end, which the first's lost response then must be (an implied NAK):
 * A goes back once, at the first of them, with no timer, resending both
 * READs once; not once per response, each making B serve both again.
 */
static void test_lose_read_tail(const struct dp_case *c)
{
	struct dp_cfg cfg = { .buf_len = ROFF + 2 * READ_LONG_PKTS * 4096 + 4096 };
	unsigned char *src;
	struct dp_sgl s[2];
	struct ibv_wc wc;
	struct lossctx x;
	size_t len[2], i;
	int k;

	ctx_up(&x, IBV_QPT_RC, &cfg);
	len[0] = 4 * x.p.mtu;
	len[1] = READ_LONG_PKTS * x.p.mtu;
	for (k = 0; k < 2; k++) {
		src = x.p.b.buf.p + ROFF + k * len[0];
		for (i = 0; i < len[k]; i++)
			src[i] = dp_pat(i, 47 + k);
		/* apart, for the guard bytes each side of each */
		dp_sgl_make(&s[k], &x.p.a.buf, 64 + k * (len[0] + 4096), len[k], 1, 0);
		dp_sgl_clear(&s[k], 0x5a);
	}
	rel_netem('b', "rate 8mbit");	/* as in test_lose_one_of_many() */
	rel_fault(&x.p.b, "tx", "opcode=%d", OP_READ_RESP_LAST);
	for (k = 0; k < 2; k++)
		dp_send_wr(&x.p, IBV_WR_RDMA_READ, 47 + k, &s[k], IBV_SEND_SIGNALED,
			   0, (uintptr_t)(x.p.b.buf.p + ROFF + k * len[0]),
			   x.p.b.buf.mr->rkey);
	for (k = 0; k < 2; k++) {
		dp_poll(x.p.a.scq, &wc, DP_TIMEOUT_MS, "READ completion");
		dp_check_wc(&wc, IBV_WC_SUCCESS, IBV_WC_RDMA_READ, 47 + k,
			    x.p.a.qp->qp_num, "READ");
		CHECK_EQ(wc.byte_len, len[k], "READ byte_len");
		dp_sgl_check(&s[k], 47 + k, 0x5a, "data read");
	}
	rel_netem('b', NULL);
	CHECK_EQ(B_DELTA(&x, "fault_tx_drops"), 1, "READ responses dropped");
	CHECK_EQ(B_DELTA(&x, "duplicate_request"), 2, "B duplicate READs (one of each)");
	CHECK_EQ(A_DELTA(&x, "retrans_pkts"), 2, "A READ requests resent");
	CHECK_EQ(A_DELTA(&x, "retrans_implied_nak"), 1, "A go-backs for the gap");
	CHECK_EQ(A_DELTA(&x, "retrans_timeout"), 0, "A retrans_timeout");
	ctx_down(&x);
}

/*
 * seed-rules R2.5: one loss episode costs one retry_cnt, however many
 * reports of it come before the go-back makes progress. A READ's FIRST
 * response and the FIRST packet of the WRITE behind it lost: the READ's
 * later responses (an implied NAK at the READ) and B's sequence NAK of
 * the WRITE (a gap at a later PSN, in two copies) report the same
 * episode, and the one go-back from the READ resends both. With
 * retry_cnt 1, a retry charged per report fails the READ with
 * RETRY_EXC_ERR.
 */
static void test_read_gap_then_nak(const struct dp_case *c)
{
	struct dp_cfg cfg = { .rc_timers = 1, .timeout = 18, .retry_cnt = 1,
			      .rnr_retry = 7, .min_rnr_timer = 1 };
	unsigned char *src, *dst;
	struct ibv_send_wr wr[2];
	struct dp_sgl rd, s;
	struct ibv_wc wc;
	struct lossctx x;
	size_t i;

	ctx_up(&x, IBV_QPT_RC, &cfg);
	src = x.p.b.buf.p + ROFF;
	dst = x.p.b.buf.p + 2 * ROFF;
	for (i = 0; i < x.len; i++)
		src[i] = dp_pat(i, 51);
	dp_sgl_make(&rd, &x.p.a.buf, 64, x.len, 1, 0);
	dp_sgl_clear(&rd, 0x5a);
	dp_sgl_make(&s, &x.p.a.buf, 2 * ROFF, x.len, 1, 0);
	dp_sgl_fill(&s, 52);
	memset(dst - DP_GAP, 0x5a, x.len + 2 * DP_GAP);
	rel_fault(&x.p.b, "tx", "opcode=%d", OP_READ_RESP_FIRST);
	rel_fault(&x.p.a, "tx", "opcode=%d", OP_WRITE_FIRST);
	/* One post: both on the wire before any answer (TCG answers fast). */
	wr[0] = (struct ibv_send_wr){
		.wr_id = 51, .next = &wr[1], .sg_list = rd.sge, .num_sge = rd.n,
		.opcode = IBV_WR_RDMA_READ, .send_flags = IBV_SEND_SIGNALED,
	};
	wr[0].wr.rdma.remote_addr = (uintptr_t)src;
	wr[0].wr.rdma.rkey = x.p.b.buf.mr->rkey;
	wr[1] = (struct ibv_send_wr){
		.wr_id = 52, .sg_list = s.sge, .num_sge = s.n,
		.opcode = IBV_WR_RDMA_WRITE, .send_flags = IBV_SEND_SIGNALED,
	};
	wr[1].wr.rdma.remote_addr = (uintptr_t)dst;
	wr[1].wr.rdma.rkey = x.p.b.buf.mr->rkey;
	dp_post_send(&x.p.a, wr);
	dp_poll(x.p.a.scq, &wc, DP_TIMEOUT_MS, "READ completion");
	dp_check_wc(&wc, IBV_WC_SUCCESS, IBV_WC_RDMA_READ, 51, x.p.a.qp->qp_num,
		    "READ (one loss episode, retry_cnt 1)");
	dp_sgl_check(&rd, 51, 0x5a, "data read");
	dp_poll(x.p.a.scq, &wc, DP_TIMEOUT_MS, "WRITE completion");
	dp_check_wc(&wc, IBV_WC_SUCCESS, IBV_WC_RDMA_WRITE, 52, x.p.a.qp->qp_num,
		    "WRITE");
	check_written(dst, x.len, 52);
	CHECK_EQ(B_DELTA(&x, "fault_tx_drops"), 1, "READ responses dropped");
	CHECK_EQ(A_DELTA(&x, "fault_tx_drops"), 1, "WRITE packets dropped");
	CHECK(B_DELTA(&x, "seq_nak_sent") >= 1, "B NAKed no gap");
	CHECK_EQ(A_DELTA(&x, "retrans_implied_nak") + A_DELTA(&x, "retrans_seq_nak"), 1,
		 "A go-backs for the one episode");
	CHECK_EQ(A_DELTA(&x, "retrans_timeout"), 0, "A retrans_timeout");
	CHECK_EQ(A_DELTA(&x, "retry_exceeded"), 0, "A retry_exceeded");
	ctx_down(&x);
}

/* seed-rules R2.6: a lost ACK: the SEND comes again, is ACKed, not re-run. */
static void test_lose_ack(const struct dp_case *c)
{
	struct lossctx x;

	ctx_up(&x, IBV_QPT_RC, NULL);
	x.len = 100;
	rel_fault(&x.p.b, "tx", "opcode=%d aeth=ack", OP_ACK);
	send_msg(&x, 51);
	CHECK_EQ(B_DELTA(&x, "fault_tx_drops"), 1, "ACKs dropped");
	CHECK_EQ(A_DELTA(&x, "retrans_timeout"), 1, "A retrans_timeout");
	CHECK_EQ(B_DELTA(&x, "duplicate_request"), 1, "B duplicate_request");
	send_msg(&x, 52);
	ctx_down(&x);
}

/*
 * seed-rules R2.5: a sequence NAK is not sent again for the same gap (B
 * sends its two copies back to back, once): with both copies lost, the
 * timer recovers (R2.2).
 */
static void test_lose_nak(const struct dp_case *c)
{
	struct lossctx x;

	ctx_up(&x, IBV_QPT_RC, NULL);
	rel_fault(&x.p.a, "tx", "opcode=%d", OP_SEND_MIDDLE);
	rel_fault(&x.p.b, "tx", "opcode=%d aeth=nak drop=2", OP_ACK);
	send_msg(&x, 61);
	CHECK_EQ(B_DELTA(&x, "fault_tx_drops"), 2, "NAKs dropped");
	CHECK_EQ(B_DELTA(&x, "seq_nak_sent"), 1, "B seq_nak_sent (once per gap)");
	CHECK_EQ(B_DELTA(&x, "seq_nak_copies"), 1, "B seq_nak_copies");
	CHECK_EQ(A_DELTA(&x, "seq_nak_rcvd"), 0, "A seq_nak_rcvd");
	CHECK_EQ(A_DELTA(&x, "retrans_timeout"), 1, "A retrans_timeout");
	/* A timeout's resend is not copied: only a NAK-driven one is. */
	CHECK_EQ(A_DELTA(&x, "restart_copies"), 0, "A restart_copies");
	send_msg(&x, 62);
	ctx_down(&x);
}

/*
 * seed-rules R2.5: one copy of the sequence NAK lost: the other one makes
 * A resend at once, without the local ACK timer (R2.2).
 */
static void test_lose_one_nak_copy(const struct dp_case *c)
{
	struct lossctx x;

	ctx_up(&x, IBV_QPT_RC, NULL);
	rel_fault(&x.p.a, "tx", "opcode=%d", OP_WRITE_MIDDLE);
	rel_fault(&x.p.b, "tx", "opcode=%d aeth=nak", OP_ACK);
	write_msg(&x, 63);
	CHECK_EQ(B_DELTA(&x, "fault_tx_drops"), 1, "NAK copies dropped");
	CHECK_EQ(B_DELTA(&x, "seq_nak_sent"), 1, "B seq_nak_sent (once per gap)");
	CHECK_EQ(A_DELTA(&x, "seq_nak_rcvd"), 1, "A seq_nak_rcvd");
	CHECK_EQ(A_DELTA(&x, "dup_nak_ignored"), 0, "A dup_nak_ignored");
	CHECK_EQ(A_DELTA(&x, "retrans_seq_nak"), 1, "A retrans_seq_nak");
	CHECK_EQ(A_DELTA(&x, "ack_timer_expired"), 0, "A ack_timer_expired");
	CHECK_EQ(A_DELTA(&x, "retrans_timeout"), 0, "A retrans_timeout");
	write_msg(&x, 64);
	ctx_down(&x);
}

/*
 * seed-rules R2.5, R2.6: the first packet resent after a NAK is lost
 * again. B NAKed that gap already and stays silent, but A sent the restart
 * packet twice: the copy fills the gap, without the local ACK timer. The
 * 2nd MIDDLE of a WRITE is dropped twice: first sent and first resent.
 */
static void test_lose_restart(const struct dp_case *c)
{
	struct lossctx x;

	ctx_up(&x, IBV_QPT_RC, NULL);
	rel_fault(&x.p.a, "tx", "opcode=%d skip=1 drop=2", OP_WRITE_MIDDLE);
	write_msg(&x, 65);
	CHECK_EQ(A_DELTA(&x, "fault_tx_drops"), 2, "packets dropped");
	CHECK_EQ(B_DELTA(&x, "seq_nak_sent"), 1, "B seq_nak_sent (once per gap)");
	CHECK_EQ(A_DELTA(&x, "retrans_seq_nak"), 1, "A retrans_seq_nak");
	CHECK_EQ(A_DELTA(&x, "ack_timer_expired"), 0, "A ack_timer_expired");
	CHECK_EQ(A_DELTA(&x, "restart_copies"), 1, "A restart_copies");
	/* the copy was the first to arrive: executed, no duplicate */
	CHECK_EQ(B_DELTA(&x, "duplicate_request"), 0, "B duplicate_request");
	write_msg(&x, 66);
	ctx_down(&x);
}

/*
 * seed-rules R2.5: a NAK of a new gap, found in the resend of the first,
 * is acted on at once: only a NAK of the PSN already gone back to, with no
 * progress since, is a copy. A SEND with PSNs 0xfffffe (FIRST), 0xffffff,
 * 0 (MIDDLEs), 1 (LAST): the FIRST is lost when first sent (its resend is
 * not copied: it takes a receive WQE, so no re-ACK comes in between), the
 * PSN 0 when first resent: the second gap is across the 24-bit wrap (R2.8).
 */
static void test_nak_new_gap(const struct dp_case *c)
{
	struct dp_cfg cfg = { .psn_a = 0xfffffe, .psn_b = 0xfffffd };
	struct lossctx x;

	ctx_up(&x, IBV_QPT_RC, &cfg);
	rel_fault(&x.p.a, "tx", "psn=0xfffffe");
	rel_fault(&x.p.b, "rx", "psn=0 skip=1");
	send_msg(&x, 67);
	CHECK_EQ(A_DELTA(&x, "fault_tx_drops"), 1, "packets dropped by A");
	CHECK_EQ(B_DELTA(&x, "fault_rx_drops"), 1, "packets dropped by B");
	CHECK_EQ(B_DELTA(&x, "seq_nak_sent"), 2, "B seq_nak_sent (two gaps)");
	CHECK_EQ(A_DELTA(&x, "seq_nak_rcvd"), 4, "A seq_nak_rcvd");
	CHECK_EQ(A_DELTA(&x, "dup_nak_ignored"), 2, "A dup_nak_ignored");
	CHECK_EQ(A_DELTA(&x, "retrans_seq_nak"), 2, "A retrans_seq_nak");
	CHECK_EQ(A_DELTA(&x, "ack_timer_expired"), 0, "A ack_timer_expired");
	/* 3 after the lost FIRST, then the LAST after the lost PSN 0 */
	CHECK_EQ(B_DELTA(&x, "out_of_sequence"), MSG_PKTS, "B out_of_sequence");
	/* the MIDDLE at PSN 0 restarts the second resend: copied */
	CHECK_EQ(A_DELTA(&x, "restart_copies"), 1, "A restart_copies");
	CHECK_EQ(B_DELTA(&x, "duplicate_request"), 1, "B duplicate_request");
	send_msg(&x, 68);
	ctx_down(&x);
}

/* seed-rules R2.6: a lost ATOMIC ACK: the duplicate gets the saved value. */
static void test_lose_atomic_resp(const struct dp_case *c)
{
	uint64_t *word, *res;
	struct ibv_wc wc;
	struct lossctx x;

	ctx_up(&x, IBV_QPT_RC, NULL);
	if (x.d[0].attr.orig_attr.atomic_cap == IBV_ATOMIC_NONE)
		dp_skip("the device has no atomics");
	word = (uint64_t *)(x.p.b.buf.p + ROFF);
	res = (uint64_t *)x.p.a.buf.p;
	*word = 1000;
	*res = 0;
	rel_fault(&x.p.b, "tx", "opcode=%d", OP_ATOMIC_ACK);
	post_fetch_add(&x, 71, res, word, 7);
	dp_poll(x.p.a.scq, &wc, DP_TIMEOUT_MS, "FETCH_AND_ADD completion");
	dp_check_wc(&wc, IBV_WC_SUCCESS, IBV_WC_FETCH_ADD, 71, x.p.a.qp->qp_num,
		    "FETCH_AND_ADD");
	CHECK_EQ(*word, 1007, "target after one FETCH_AND_ADD (executed once)");
	CHECK_EQ(*res, 1000, "original value returned to the requester");
	CHECK_EQ(B_DELTA(&x, "fault_tx_drops"), 1, "ATOMIC ACKs dropped");
	CHECK_EQ(B_DELTA(&x, "duplicate_request"), 1, "B duplicate_request");
	CHECK_EQ(A_DELTA(&x, "retrans_timeout"), 1, "A retrans_timeout");
	ctx_down(&x);
}

/*
 * seed-rules R2.2, R2.6: a go-back the local ACK timer asked for is not
 * undone by a response that answers nothing. R1, a READ whose response
 * is always lost, then F2, a FETCH_AND_ADD; meanwhile copies of F2's
 * ATOMIC ACKNOWLEDGE keep arriving (a response after R1's says R1's was
 * lost: go back). One copy handled after the timer had expired but before
 * the requester resent used to cancel that resend, and the timer, already
 * run, was not started again: the QP waited for ever (a soak with heavy
 * loss, duplicated and reordered READ and ATOMIC responses).
 * Now R1's retries run out: RETRY_EXC_ERR, then F2 flushed.
 */
static void test_stray_resp_after_timeout(const struct dp_case *c)
{
	struct dp_cfg cfg = { .rc_timers = 1, .timeout = 12, .retry_cnt = 7,
			      .rnr_retry = 7, .min_rnr_timer = 1 };
	uint64_t *word, *res;
	struct ibv_qp_init_attr qi;
	struct ibv_qp_attr qa;
	struct ibv_wc wc;
	struct lossctx x;
	struct dp_sgl s;
	unsigned long sent;
	uint32_t psn;
	FILE *fl;

	ctx_up(&x, IBV_QPT_RC, &cfg);
	if (x.d[0].attr.orig_attr.atomic_cap == IBV_ATOMIC_NONE)
		dp_skip("the device has no atomics");
	psn = x.p.cfg.psn_a;
	word = (uint64_t *)(x.p.b.buf.p + ROFF);
	res = (uint64_t *)(x.p.a.buf.p + 2 * ROFF);
	rel_fault(&x.p.a, "rx", "opcode=%d psn=0x%x drop=1000000", OP_READ_RESP_ONLY, psn);
	fl = rel_flood_a(&x.p, (psn + 1) & 0xffffff, 4,
			 "--opcode 0x12 --payload 0");
	dp_sgl_make(&s, &x.p.a.buf, 0, 64, 1, 0);
	dp_send_wr(&x.p, IBV_WR_RDMA_READ, 81, &s, IBV_SEND_SIGNALED, 0,
		   (uintptr_t)word + 64, x.p.b.buf.mr->rkey);
	post_fetch_add(&x, 82, res, word, 1);
	/* 8 timeouts of 16.8 ms, in real time: well within the wait. */
	dp_poll(x.p.a.scq, &wc, DP_TIMEOUT_MS, "READ completion (a stall if none)");
	dp_check_wc(&wc, IBV_WC_RETRY_EXC_ERR, IBV_WC_RDMA_READ, 81,
		    x.p.a.qp->qp_num, "READ whose response is always lost");
	dp_poll(x.p.a.scq, &wc, DP_TIMEOUT_MS, "FETCH_AND_ADD completion");
	CHECK_EQ(wc.status, IBV_WC_WR_FLUSH_ERR, "FETCH_AND_ADD (flushed)");
	CHECK(!ibv_query_qp(x.p.a.qp, &qa, IBV_QP_STATE, &qi), "query_qp");
	CHECK_EQ(qa.qp_state, IBV_QPS_ERR, "requester QP state");
	sent = rel_flood_end(fl);
	NOTE("%lu ATOMIC ACK copies sent", sent);
	CHECK(A_DELTA(&x, "duplicate_response") > 0,
	      "no copy reached the requester as a response that answers nothing");
	CHECK_EQ(A_DELTA(&x, "retry_exceeded"), 1, "A retry_exceeded");
	rel_fault_off(&x.p.a);
	ctx_down(&x);
}

/*
 * seed-rules R2.2: the last packet of a burst has no successor to reveal
 * the gap: only the local ACK timer recovers it. Coalesced ACKs (R2.8)
 * acknowledge the rest.
 */
static void test_lose_burst_tail(const struct dp_case *c)
{
	enum { N = 8, LEN = 200 };
	struct dp_sgl s[N], r[N];
	struct ibv_wc wc;
	struct lossctx x;
	int i;

	ctx_up(&x, IBV_QPT_RC, NULL);
	rel_fault(&x.p.a, "tx", "opcode=%d skip=%d", OP_SEND_ONLY, N - 1);
	for (i = 0; i < N; i++) {
		dp_sgl_make(&r[i], &x.p.b.buf, i * 512, LEN, 1, 0);
		dp_sgl_clear(&r[i], 0x5a);
		dp_post_recv(&x.p.b, 100 + i, r[i].sge, r[i].n);
	}
	for (i = 0; i < N; i++) {
		dp_sgl_make(&s[i], &x.p.a.buf, i * 512, LEN, 1, 0);
		dp_sgl_fill(&s[i], 100 + i);
		dp_send_wr(&x.p, IBV_WR_SEND, 100 + i, &s[i], IBV_SEND_SIGNALED, 0, 0, 0);
	}
	for (i = 0; i < N; i++) {
		dp_poll(x.p.a.scq, &wc, DP_TIMEOUT_MS, "SEND completion");
		dp_check_wc(&wc, IBV_WC_SUCCESS, IBV_WC_SEND, 100 + i,
			    x.p.a.qp->qp_num, "SEND of the burst");
		dp_poll(x.p.b.rcq, &wc, DP_TIMEOUT_MS, "receive completion");
		dp_check_wc(&wc, IBV_WC_SUCCESS, IBV_WC_RECV, 100 + i,
			    x.p.b.qp->qp_num, "RECV of the burst");
		dp_sgl_check(&r[i], 100 + i, 0x5a, "message of the burst");
	}
	dp_expect_none(x.p.b.rcq, 100, "an extra receive completion");
	CHECK_EQ(A_DELTA(&x, "fault_tx_drops"), 1, "SENDs dropped");
	CHECK_EQ(A_DELTA(&x, "retrans_timeout"), 1, "A retrans_timeout");
	CHECK_EQ(A_DELTA(&x, "retrans_pkts"), 1, "A retrans_pkts (the rest was ACKed)");
	CHECK_EQ(B_DELTA(&x, "seq_nak_sent"), 0, "B seq_nak_sent");
	ctx_down(&x);
}

/*
 * seed-rules R2.8: the lost packet is the one whose PSN wraps to 0, in a
 * SEND and a WRITE that start at 0xfffffe.
 */
static void test_psn_wrap(const struct dp_case *c)
{
	struct dp_cfg cfg = { .psn_a = 0xfffffe, .psn_b = 0xfffffd };
	struct lossctx x;

	ctx_up(&x, IBV_QPT_RC, &cfg);
	rel_fault(&x.p.a, "tx", "psn=0");
	send_msg(&x, 81);		/* PSNs 0xfffffe .. 0x000001 */
	CHECK_EQ(A_DELTA(&x, "fault_tx_drops"), 1, "packets dropped");
	CHECK_EQ(A_DELTA(&x, "retrans_seq_nak"), 1, "A retrans_seq_nak");
	rel_fault(&x.p.a, "tx", "psn=3");
	write_msg(&x, 82);		/* PSNs 2 .. 5 */
	CHECK_EQ(A_DELTA(&x, "fault_tx_drops"), 2, "packets dropped");
	rel_fault(&x.p.b, "tx", "psn=7 opcode=%d", OP_READ_RESP_MIDDLE);
	read_msg(&x, 83);		/* PSNs 6 .. 9 */
	CHECK_EQ(B_DELTA(&x, "fault_tx_drops"), 1, "READ responses dropped");
	ctx_down(&x);
}

/*
 * seed-rules R2.2: with every packet lost, retry_cnt = N means exactly N
 * retries (N + 1 transmissions), then IBV_WC_RETRY_EXC_ERR, the QP in
 * ERROR and the rest flushed. 7 is a count, not "infinite".
 */
static void test_retry_exhausted(const struct dp_case *c)
{
	struct dp_cfg cfg = { .rc_timers = 1, .timeout = 8, .retry_cnt = c->arg,
			      .rnr_retry = 7, .min_rnr_timer = 1 };
	struct ibv_qp_attr qa;
	struct ibv_qp_init_attr qi;
	struct ibv_wc wc;
	struct lossctx x;

	ctx_up(&x, IBV_QPT_RC, &cfg);
	x.len = 64;
	rel_fault(&x.p.a, "tx", "drop=1000000");
	dp_send_wr(&x.p, IBV_WR_SEND, 91, NULL, IBV_SEND_SIGNALED, 0, 0, 0);
	dp_send_wr(&x.p, IBV_WR_SEND, 92, NULL, IBV_SEND_SIGNALED, 0, 0, 0);
	dp_poll(x.p.a.scq, &wc, DP_TIMEOUT_MS, "SEND completion");
	dp_check_wc(&wc, IBV_WC_RETRY_EXC_ERR, IBV_WC_SEND, 91, x.p.a.qp->qp_num,
		    "SEND with every packet lost");
	dp_poll(x.p.a.scq, &wc, DP_TIMEOUT_MS, "second SEND completion");
	CHECK_EQ(wc.status, IBV_WC_WR_FLUSH_ERR, "second SEND (flushed)");
	CHECK(!ibv_query_qp(x.p.a.qp, &qa, IBV_QP_STATE, &qi), "query_qp");
	CHECK_EQ(qa.qp_state, IBV_QPS_ERR, "requester QP state");
	CHECK_EQ(A_DELTA(&x, "ack_timer_expired"), c->arg + 1, "A ack_timer_expired");
	CHECK_EQ(A_DELTA(&x, "retrans_timeout"), c->arg, "A retrans_timeout");
	CHECK_EQ(A_DELTA(&x, "retry_exceeded"), 1, "A retry_exceeded");
	/* Go-back-N: every retry sends both SENDs again. */
	/*
	 * A new connection has no end-to-end credits (R2.10): the first
	 * SEND goes alone, and each retry resends only it.
	 */
	CHECK_EQ(A_DELTA(&x, "fault_tx_drops"), c->arg + 1, "transmissions");
	CHECK_EQ(A_DELTA(&x, "retrans_pkts"), c->arg, "A retrans_pkts");
	rel_fault_off(&x.p.a);
	ctx_down(&x);
}

/* seed-rules R2.2: timeout = 0: no timer, so a lost tail is never resent. */
static void test_timeout_zero(const struct dp_case *c)
{
	struct dp_cfg cfg = { .rc_timers = 1, .timeout = 0, .retry_cnt = 7,
			      .rnr_retry = 7, .min_rnr_timer = 1 };
	struct lossctx x;

	ctx_up(&x, IBV_QPT_RC, &cfg);
	rel_fault(&x.p.a, "tx", "opcode=%d", OP_SEND_ONLY);
	dp_send_wr(&x.p, IBV_WR_SEND, 95, NULL, IBV_SEND_SIGNALED, 0, 0, 0);
	dp_expect_none(x.p.a.scq, 1000, "SEND completion with no timer");
	CHECK_EQ(A_DELTA(&x, "ack_timer_expired"), 0, "A ack_timer_expired");
	CHECK_EQ(A_DELTA(&x, "fault_tx_drops"), 1, "SENDs dropped");
	ctx_down(&x);
}

/*
 * seed-rules R2.4: RNR NAK: rnr_retry = N gives N retries then
 * IBV_WC_RNR_RETRY_EXC_ERR; 7 retries until a receive WQE comes.
 */
static void test_rnr(const struct dp_case *c)
{
	struct dp_cfg cfg = { .rc_timers = 1, .timeout = 14, .retry_cnt = 7,
			      .rnr_retry = c->arg, .min_rnr_timer = 1 };
	struct ibv_sge sge;
	struct ibv_wc wc;
	struct lossctx x;

	ctx_up(&x, IBV_QPT_RC, &cfg);
	dp_send_wr(&x.p, IBV_WR_SEND, 97, NULL, IBV_SEND_SIGNALED, 0, 0, 0);
	if (c->arg != 7) {
		dp_poll(x.p.a.scq, &wc, DP_TIMEOUT_MS, "SEND completion");
		dp_check_wc(&wc, IBV_WC_RNR_RETRY_EXC_ERR, IBV_WC_SEND, 97,
			    x.p.a.qp->qp_num, "SEND with no receive WQE");
		CHECK_EQ(A_DELTA(&x, "rnr_nak_rcvd"), c->arg + 1, "A rnr_nak_rcvd");
		CHECK_EQ(A_DELTA(&x, "retrans_rnr"), c->arg, "A retrans_rnr");
		CHECK_EQ(A_DELTA(&x, "rnr_retry_exceeded"), 1, "A rnr_retry_exceeded");
	} else {
		rel_sleep_ms(300);	/* many RNR waits of 10 us */
		CHECK(A_DELTA(&x, "retrans_rnr") > 8, "A retried too few times");
		sge = (struct ibv_sge){ (uintptr_t)x.p.b.buf.p, 64, x.p.b.buf.mr->lkey };
		dp_post_recv(&x.p.b, 98, &sge, 1);
		dp_poll(x.p.a.scq, &wc, DP_TIMEOUT_MS, "SEND completion");
		dp_check_wc(&wc, IBV_WC_SUCCESS, IBV_WC_SEND, 97, x.p.a.qp->qp_num,
			    "SEND after the receive WQE came");
		dp_poll(x.p.b.rcq, &wc, DP_TIMEOUT_MS, "receive completion");
		dp_check_wc(&wc, IBV_WC_SUCCESS, IBV_WC_RECV, 98, x.p.b.qp->qp_num,
			    "RECV after RNR waits");
		CHECK_EQ(A_DELTA(&x, "rnr_retry_exceeded"), 0, "A rnr_retry_exceeded");
	}
	ctx_down(&x);
}

/*
 * seed-rules R3.7: UC: a lost packet drops that message; the receive WQE
 * is used again by the next message, and nothing goes to ERROR.
 */
static void test_uc_lose_middle(const struct dp_case *c)
{
	struct dp_sgl s, r;
	struct ibv_wc wc;
	struct lossctx x;

	ctx_up(&x, IBV_QPT_UC, NULL);
	dp_sgl_make(&r, &x.p.b.buf, 0, x.len, 1, 0);
	dp_sgl_clear(&r, 0x5a);
	dp_post_recv(&x.p.b, 200, r.sge, r.n);
	dp_sgl_make(&s, &x.p.a.buf, 0, x.len, 1, 0);
	dp_sgl_fill(&s, 201);
	rel_fault(&x.p.a, "tx", "opcode=0x21");	/* UC SEND MIDDLE */
	dp_send_wr(&x.p, IBV_WR_SEND, 201, &s, IBV_SEND_SIGNALED, 0, 0, 0);
	dp_poll(x.p.a.scq, &wc, DP_TIMEOUT_MS, "UC SEND completion");
	dp_check_wc(&wc, IBV_WC_SUCCESS, IBV_WC_SEND, 201, x.p.a.qp->qp_num, "UC SEND");
	dp_expect_none(x.p.b.rcq, 200, "receive of the message that lost a packet");
	dp_sgl_fill(&s, 202);
	dp_send_wr(&x.p, IBV_WR_SEND, 202, &s, IBV_SEND_SIGNALED, 0, 0, 0);
	dp_poll(x.p.a.scq, &wc, DP_TIMEOUT_MS, "UC SEND completion");
	dp_poll(x.p.b.rcq, &wc, DP_TIMEOUT_MS, "receive of the next message");
	dp_check_wc(&wc, IBV_WC_SUCCESS, IBV_WC_RECV, 200, x.p.b.qp->qp_num,
		    "the same receive WQE, reused");
	CHECK_EQ(wc.byte_len, x.len, "receive byte_len");
	dp_sgl_check(&r, 202, 0x5a, "the next message");
	CHECK_EQ(B_DELTA(&x, "uc_msg_dropped"), 1, "B uc_msg_dropped");
	ctx_down(&x);
}

/*
 * seed-rules R2.10: end-to-end credits. B has 2 receive WQEs and A posts
 * 6 SENDs: A sends 2, then only one message at a time (the probe that
 * meets an RNR NAK) instead of the whole burst; when B posts 4 more
 * receives, everything completes in order. With an SRQ, B's ACKs carry no
 * credits and A never waits for them.
 */
static void test_credits(const struct dp_case *c)
{
	enum { N = 6, FIRST = 2, LEN = 100 };
	struct dp_cfg cfg = { .srq = c->arg };
	struct dp_sgl s[N], r[N];
	struct ibv_wc wc;
	struct lossctx x;
	int i;

	ctx_up(&x, IBV_QPT_RC, &cfg);
	/* One round trip first: its ACK brings the first credit count. */
	dp_sgl_make(&r[0], &x.p.b.buf, 0, LEN, 1, 0);
	if (c->arg)
		dp_post_srq_recv(x.p.b.srq, 299, r[0].sge, r[0].n);
	else
		dp_post_recv(&x.p.b, 299, r[0].sge, r[0].n);
	dp_send_wr(&x.p, IBV_WR_SEND, 299, NULL, IBV_SEND_SIGNALED, 0, 0, 0);
	dp_poll(x.p.a.scq, &wc, DP_TIMEOUT_MS, "first SEND completion");
	dp_poll(x.p.b.rcq, &wc, DP_TIMEOUT_MS, "first receive completion");
	rel_ctrs_take(&x.ca, &x.p.a);
	for (i = 0; i < N; i++) {
		dp_sgl_make(&r[i], &x.p.b.buf, i * 512, LEN, 1, 0);
		dp_sgl_clear(&r[i], 0x5a);
		dp_sgl_make(&s[i], &x.p.a.buf, i * 512, LEN, 1, 0);
		dp_sgl_fill(&s[i], 300 + i);
	}
	for (i = 0; i < FIRST; i++) {
		if (c->arg)
			dp_post_srq_recv(x.p.b.srq, 300 + i, r[i].sge, r[i].n);
		else
			dp_post_recv(&x.p.b, 300 + i, r[i].sge, r[i].n);
	}
	for (i = 0; i < N; i++)
		dp_send_wr(&x.p, IBV_WR_SEND, 300 + i, &s[i], IBV_SEND_SIGNALED, 0, 0, 0);
	rel_sleep_ms(300);
	for (i = FIRST; i < N; i++) {
		if (c->arg)
			dp_post_srq_recv(x.p.b.srq, 300 + i, r[i].sge, r[i].n);
		else
			dp_post_recv(&x.p.b, 300 + i, r[i].sge, r[i].n);
	}
	for (i = 0; i < N; i++) {
		dp_poll(x.p.a.scq, &wc, DP_TIMEOUT_MS, "SEND completion");
		dp_check_wc(&wc, IBV_WC_SUCCESS, IBV_WC_SEND, 300 + i,
			    x.p.a.qp->qp_num, "SEND");
		dp_poll(x.p.b.rcq, &wc, DP_TIMEOUT_MS, "receive completion");
		dp_check_wc(&wc, IBV_WC_SUCCESS, IBV_WC_RECV, 300 + i,
			    x.p.b.qp->qp_num, "RECV");
		dp_sgl_check(&r[i], 300 + i, 0x5a, "message");
	}
	CHECK(A_DELTA(&x, "retrans_rnr") > 0, "no RNR NAK: B had WQEs for all?");
	/* R2.4: RNR waits are not ACK timeouts, and after an RNR NAK the
	 * packets behind the NAKed one get no sequence NAK. */
	CHECK_EQ(A_DELTA(&x, "ack_timer_expired"), 0, "A ack_timer_expired");
	CHECK_EQ(B_DELTA(&x, "seq_nak_sent"), 0, "B seq_nak_sent");
	if (c->arg) {
		CHECK_EQ(A_DELTA(&x, "credit_stall"), 0,
			 "A credit_stall with an SRQ (its ACKs carry no credits)");
	} else {
		CHECK(A_DELTA(&x, "credit_stall") > 0, "A never waited for credits");
		/* Each RNR retry resends only the probe, not a burst. */
		CHECK_EQ(A_DELTA(&x, "retrans_pkts"), A_DELTA(&x, "retrans_rnr"),
			 "A retrans_pkts (one per RNR retry)");
	}
	ctx_down(&x);
}

/*
 * Packets corrupted on the wire both ways (netem flips one bit of each
 * packet it picks): each one whose BTH or payload took the bit fails its
 * ICRC and is dropped (rx_drop_icrc) with no effect, and is recovered as
 * a lost packet is (seed-rules R2.2, R2.5, R2.6). Every message lands
 * intact, its guards untouched, executed once.
 */
static void test_corrupt(const struct dp_case *c)
{
	struct lossctx x;
	uint32_t i;

	ctx_up(&x, IBV_QPT_RC, NULL);
	rel_netem('a', "corrupt 5%");
	rel_netem('b', "corrupt 5%");
	for (i = 0; i < 40; i++) {
		write_msg(&x, 100 + i);
		send_msg(&x, 200 + i);
		read_msg(&x, 300 + i);
	}
	rel_netem('a', NULL);
	rel_netem('b', NULL);
	/* About 18 each way are expected: none at all has a chance under 1e-7. */
	CHECK(B_DELTA(&x, "rx_drop_icrc") > 0, "B dropped no request for its ICRC");
	CHECK(A_DELTA(&x, "rx_drop_icrc") > 0, "A dropped no response for its ICRC");
	write_msg(&x, 1);
	send_msg(&x, 2);
	read_msg(&x, 3);
	ctx_down(&x);
}

#define RC(n, f, o, a) { n, f, IBV_QPT_RC, 4, o, a }
static const struct dp_case cases[] = {
	RC("send_lose_first", test_lose_pkt, IBV_WR_SEND, LOSE_FIRST),
	RC("send_lose_middle", test_lose_pkt, IBV_WR_SEND, LOSE_MIDDLE),
	RC("send_lose_last", test_lose_pkt, IBV_WR_SEND, LOSE_LAST),
	RC("write_lose_first", test_lose_pkt, IBV_WR_RDMA_WRITE, LOSE_FIRST),
	RC("write_lose_middle", test_lose_pkt, IBV_WR_RDMA_WRITE, LOSE_MIDDLE),
	RC("write_lose_last", test_lose_pkt, IBV_WR_RDMA_WRITE, LOSE_LAST),
	RC("write_imm_lose_first", test_lose_pkt, IBV_WR_RDMA_WRITE_WITH_IMM, LOSE_FIRST),
	RC("write_imm_lose_middle", test_lose_pkt, IBV_WR_RDMA_WRITE_WITH_IMM, LOSE_MIDDLE),
	RC("read_lose_request", test_lose_read_req, 0, 0),
	RC("read_lose_middle_response", test_lose_read_resp, 0, 0),
	RC("read_lose_middle_response_table_of_1", test_lose_read_resp, 0, 1),
	RC("read_lose_one_of_many_responses", test_lose_one_of_many, 0, 0),
	RC("read_lose_last_response_read_behind", test_lose_read_tail, 0, 0),
	RC("read_gap_then_nak_one_retry", test_read_gap_then_nak, 0, 0),
	RC("lose_ack", test_lose_ack, 0, 0),
	RC("lose_nak", test_lose_nak, 0, 0),
	RC("lose_one_nak_copy", test_lose_one_nak_copy, 0, 0),
	RC("lose_restart_twice", test_lose_restart, 0, 0),
	RC("nak_new_gap_after_rewind", test_nak_new_gap, 0, 0),
	RC("atomic_lose_response", test_lose_atomic_resp, 0, 0),
	RC("lose_burst_tail", test_lose_burst_tail, 0, 0),
	RC("stray_response_after_timeout", test_stray_resp_after_timeout, 0, 0),
	RC("psn_wrap_losses", test_psn_wrap, 0, 0),
	RC("retry_cnt_0_exhausted", test_retry_exhausted, 0, 0),
	RC("retry_cnt_7_exhausted", test_retry_exhausted, 0, 7),
	RC("timeout_0_no_timer", test_timeout_zero, 0, 0),
	RC("rnr_retry_2_exhausted", test_rnr, 0, 2),
	RC("rnr_retry_7_infinite", test_rnr, 0, 7),
	RC("credits_rq", test_credits, 0, 0),
	RC("credits_srq_none", test_credits, 0, 1),
	RC("corrupt_both_ways", test_corrupt, 0, 0),
	{ "uc_lose_middle", test_uc_lose_middle, IBV_QPT_UC, 4, 0, 0 },
};

int main(int argc, char **argv)
{
	return dp_main(argc, argv, cases, ARRAY_SIZE(cases));
}
