// SPDX-License-Identifier: GPL-2.0-only
/*
 * err_resp: every responder-side failure of seed-rules R3.4 and every
 * protection check of R3.5 on RC, each provoked once and checked on both
 * sides: the responder's completion status or async event, the requester's
 * completion status (or, for a request injected with a raw socket, the
 * NAK on the wire), and both QPs' states afterwards (R3.2).
 *
 * Not provoked: "SEND over max_msg_sz" at the responder (it takes 2 GiB of
 * registered receive buffer; the requester-side check is SEND_over_max_msg
 * here). "READ/ATOMIC over max_dest_rd_atomic" is errors/err_rdatomic.c.
 */
#include <errno.h>
#include <unistd.h>
#include "err.h"

/* What is wrong with the key or address a case uses. */
enum fault {
	F_DEAD_KEY,	/* a key no MR has (seed-rules R3.5: wrong key) */
	F_OUTSIDE,	/* a range past the MR's end (R3.5) */
	F_MR_ACCESS,	/* an MR whose access flags forbid the operation (R3.5) */
	F_OTHER_PD,	/* an MR of another PD (R5.1) */
	F_QP_ACCESS,	/* the responder QP's access flags forbid it */
	F_MISALIGNED,	/* an ATOMIC on a word not 8-byte aligned (R3.4) */
};

static const char *const fault_str[] = {
	"dead key", "range outside the MR", "MR access flags forbid it",
	"key of another PD", "QP access flags forbid it", "misaligned",
};

/* NAK syndromes (IBA 9.7.5.2.2): 0x60 | code. */
#define NAK_INV_REQ	0x61
#define NAK_REM_ACCESS	0x62

struct target {
	uint64_t addr;
	uint32_t key;
	uint32_t len;		/* SGE length (receive side) */
	struct ibv_pd *pd2;
	struct ibv_mr *mr2;
};

/*
 * Make the faulty (addr, key) into end e's buffer. @remote: an R_Key
 * (else an L_Key); @n bytes are to be accessed.
 */
static void make_target(struct dp_end *e, enum fault f, int remote, uint32_t n,
			struct target *t)
{
	struct dp_buf *b = &e->buf;
	struct ibv_qp_attr at = { .qp_access_flags = IBV_ACCESS_LOCAL_WRITE };

	memset(t, 0, sizeof(*t));
	t->addr = (uintptr_t)b->p + 4096;
	t->key = remote ? b->mr->rkey : b->mr->lkey;
	t->len = n;
	switch (f) {
	case F_DEAD_KEY:
		t->key = err_dead_key(e->dev->pd, b->p, 4096, remote);
		break;
	case F_OUTSIDE:
		/* Starts inside, ends 8 bytes past the end (atomics: all past). */
		t->addr = (uintptr_t)b->p + b->len - (n > 8 ? n - 8 : 0);
		break;
	case F_MR_ACCESS:
		/* Remote: local write only. Local (receive): no access at all. */
		t->mr2 = ibv_reg_mr(e->dev->pd, b->p, b->len,
				    remote ? IBV_ACCESS_LOCAL_WRITE : 0);
		CHECK(t->mr2, "reg_mr: %m");
		t->key = remote ? t->mr2->rkey : t->mr2->lkey;
		break;
	case F_OTHER_PD:
		t->pd2 = ibv_alloc_pd(e->dev->ctx);
		CHECK(t->pd2, "alloc_pd: %m");
		t->mr2 = ibv_reg_mr(t->pd2, b->p, b->len, IBV_ACCESS_LOCAL_WRITE |
				    IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ |
				    IBV_ACCESS_REMOTE_ATOMIC);
		CHECK(t->mr2, "reg_mr: %m");
		t->key = remote ? t->mr2->rkey : t->mr2->lkey;
		break;
	case F_QP_ACCESS:
		CHECK(!ibv_modify_qp(e->qp, &at, IBV_QP_ACCESS_FLAGS),
		      "modify_qp access flags in RTS: %m");
		break;
	case F_MISALIGNED:
		t->addr += 4;
		break;
	}
}

static void drop_target(struct target *t)
{
	if (t->mr2)
		CHECK(!ibv_dereg_mr(t->mr2), "dereg_mr");
	if (t->pd2)
		CHECK(!ibv_dealloc_pd(t->pd2), "dealloc_pd");
}

/* Both QPs are in ERROR, and B's context got no (other) event. */
static void both_in_error(struct dp_pair *p)
{
	err_expect_state(p->b.qp, IBV_QPS_ERR, "responder QP after the error");
	err_expect_state(p->a.qp, IBV_QPS_ERR, "requester QP after the error");
	err_expect_no_event(p->a.dev->ctx, 50, "requester context");
}

/*
 * SEND into a receive WQE that cannot take it (seed-rules R3.4 rows 1-3,
 * R3.5 on the L_Key): responder LOC_LEN_ERR / LOC_PROT_ERR, requester
 * REM_INV_REQ_ERR / REM_OP_ERR, both QPs in ERROR, no async event.
 */
static void test_send_recv(const struct dp_case *c)
{
	struct dp_cfg cfg = { .type = IBV_QPT_RC };
	int too_short = c->arg < 0;
	struct dp_dev d[2];
	struct dp_pair p;
	struct target t;
	struct dp_sgl s;
	struct ibv_sge rs;

	dp_setup(&p, d, c->fam, &cfg);
	if (too_short) {
		memset(&t, 0, sizeof(t));
		t.addr = (uintptr_t)p.b.buf.p;
		t.key = p.b.buf.mr->lkey;
		t.len = 99;
	} else {
		make_target(&p.b, (enum fault)c->arg, 0, 100, &t);
	}
	rs = (struct ibv_sge){ t.addr, t.len, t.key };
	dp_post_recv(&p.b, 1, &rs, 1);
	dp_sgl_make(&s, &p.a.buf, 0, 100, 1, 0);
	dp_sgl_fill(&s, 1);
	dp_send_wr(&p, IBV_WR_SEND, 2, &s, IBV_SEND_SIGNALED, 0, 0, 0);
	err_expect_wc(p.b.rcq, too_short ? IBV_WC_LOC_LEN_ERR : IBV_WC_LOC_PROT_ERR,
		      1, p.b.qp, "responder receive");
	err_expect_wc(p.a.scq, too_short ? IBV_WC_REM_INV_REQ_ERR : IBV_WC_REM_OP_ERR,
		      2, p.a.qp, "requester send");
	err_expect_no_event(p.b.dev->ctx, 50, "responder context");
	both_in_error(&p);
	NOTE("%s: responder %s, requester %s, both QPs ERROR",
	     too_short ? "99-byte receive for 100 bytes" : fault_str[c->arg],
	     too_short ? "LOC_LEN_ERR" : "LOC_PROT_ERR",
	     too_short ? "REM_INV_REQ_ERR" : "REM_OP_ERR");
	drop_target(&t);
	dp_teardown(&p, d);
}

/*
 * WRITE, WRITE with immediate, READ, ATOMIC against a bad R_Key, range,
 * access or PD (seed-rules R3.4 rows 5 and 8, R3.5, R5.1) or a misaligned
 * ATOMIC (row 11): responder IBV_EVENT_QP_ACCESS_ERR, requester
 * REM_ACCESS_ERR (misaligned: REM_INV_REQ_ERR), both QPs in ERROR. The
 * target memory is untouched.
 */
static void test_remote(const struct dp_case *c)
{
	struct dp_cfg cfg = { .type = IBV_QPT_RC };
	enum fault f = (enum fault)c->arg;
	enum ibv_wr_opcode op = (enum ibv_wr_opcode)c->op;
	int atomic = op == IBV_WR_ATOMIC_FETCH_AND_ADD;
	uint32_t n = atomic ? 8 : 100;
	struct ibv_send_wr wr = { .wr_id = 7, .opcode = op, .num_sge = 1,
				  .send_flags = IBV_SEND_SIGNALED };
	struct ibv_sge rs, ls;
	struct dp_dev d[2];
	struct dp_pair p;
	struct target t;
	struct ibv_wc wc;

	dp_setup(&p, d, c->fam, &cfg);
	make_target(&p.b, f, 1, n, &t);
	memset(p.b.buf.p, 0x5a, p.b.buf.len);
	ls = (struct ibv_sge){ (uintptr_t)p.a.buf.p, n, p.a.buf.mr->lkey };
	memset(p.a.buf.p, 0x11, n);
	wr.sg_list = &ls;
	if (atomic) {
		wr.wr.atomic.remote_addr = t.addr;
		wr.wr.atomic.rkey = t.key;
		wr.wr.atomic.compare_add = 1;
	} else {
		wr.wr.rdma.remote_addr = t.addr;
		wr.wr.rdma.rkey = t.key;
	}
	if (op == IBV_WR_RDMA_WRITE_WITH_IMM) {
		rs = (struct ibv_sge){ (uintptr_t)p.b.buf.p, 16, p.b.buf.mr->lkey };
		dp_post_recv(&p.b, 3, &rs, 1);
	}
	dp_post_send(&p.a, &wr);
	err_expect_wc(p.a.scq, f == F_MISALIGNED ? IBV_WC_REM_INV_REQ_ERR :
		      IBV_WC_REM_ACCESS_ERR, 7, p.a.qp, "requester");
	err_expect_event(p.b.dev->ctx, IBV_EVENT_QP_ACCESS_ERR, p.b.qp, 5000,
			 "responder");
	if (op == IBV_WR_RDMA_WRITE_WITH_IMM) {
		/* The receive WQE it took completes, in error (R3.3, R3.4). */
		dp_poll(p.b.rcq, &wc, 5000, "responder receive of the WRITE w/imm");
		CHECK(wc.wr_id == 3 && (wc.status == IBV_WC_LOC_ACCESS_ERR ||
					wc.status == IBV_WC_WR_FLUSH_ERR),
		      "responder receive: wr_id %llu status %s, want 3 with "
		      "LOC_ACCESS_ERR or WR_FLUSH_ERR",
		      (unsigned long long)wc.wr_id, ibv_wc_status_str(wc.status));
	}
	dp_expect_none(p.b.rcq, 50, "responder receive CQ");
	both_in_error(&p);
	dp_check_fill(p.b.buf.p, p.b.buf.len, 0x5a, "responder memory");
	NOTE("%s: responder QP_ACCESS_ERR, requester %s, both QPs ERROR",
	     fault_str[f], f == F_MISALIGNED ? "REM_INV_REQ_ERR" : "REM_ACCESS_ERR");
	drop_target(&t);
	dp_teardown(&p, d);
}

/*
 * Local protection (seed-rules R3.5): a send-side SGE with a dead L_Key,
 * outside its MR, of another PD, or a READ into an MR without local write:
 * the requester gets LOC_PROT_ERR and goes to ERROR; the responder sees
 * nothing (no completion, its receive WQE stays posted, QP still RTS).
 * SEND over max_msg_sz: LOC_LEN_ERR before anything is sent.
 */
static void test_local(const struct dp_case *c)
{
	struct dp_cfg cfg = { .type = IBV_QPT_RC };
	enum ibv_wr_opcode op = (enum ibv_wr_opcode)c->op;
	struct ibv_send_wr wr = { .wr_id = 9, .opcode = op, .num_sge = 1,
				  .send_flags = IBV_SEND_SIGNALED };
	struct ibv_sge ls[2], rs;
	enum ibv_wc_status want = IBV_WC_LOC_PROT_ERR;
	struct dp_dev d[2];
	struct dp_pair p;
	struct target t;

	dp_setup(&p, d, c->fam, &cfg);
	rs = (struct ibv_sge){ (uintptr_t)p.b.buf.p, 256, p.b.buf.mr->lkey };
	dp_post_recv(&p.b, 4, &rs, 1);
	if (c->arg < 0) {
		/* 2 GiB + 1 byte in two SGEs (R1.3: max_msg_sz is 2^31). */
		memset(&t, 0, sizeof(t));
		CHECK_EQ(d[0].attr.orig_attr.max_sge >= 2, 1, "max_sge >= 2");
		ls[0] = (struct ibv_sge){ (uintptr_t)p.a.buf.p, 1U << 30, p.a.buf.mr->lkey };
		ls[1] = (struct ibv_sge){ (uintptr_t)p.a.buf.p, (1U << 30) + 1,
					  p.a.buf.mr->lkey };
		wr.num_sge = 2;
		want = IBV_WC_LOC_LEN_ERR;
	} else {
		make_target(&p.a, (enum fault)c->arg, 0, 100, &t);
		ls[0] = (struct ibv_sge){ t.addr, t.len, t.key };
	}
	wr.sg_list = ls;
	if (op == IBV_WR_RDMA_READ) {
		wr.wr.rdma.remote_addr = (uintptr_t)p.b.buf.p;
		wr.wr.rdma.rkey = p.b.buf.mr->rkey;
	}
	dp_post_send(&p.a, &wr);
	err_expect_wc(p.a.scq, want, 9, p.a.qp, "requester");
	err_expect_state(p.a.qp, IBV_QPS_ERR, "requester QP");
	/* The flush completes nothing else; the responder saw no message. */
	dp_expect_none(p.a.scq, 50, "requester send CQ");
	dp_expect_none(p.b.rcq, 200, "responder receive CQ");
	err_expect_state(p.b.qp, IBV_QPS_RTS, "responder QP");
	err_expect_no_event(p.b.dev->ctx, 50, "responder context");
	err_expect_no_event(p.a.dev->ctx, 50, "requester context");
	NOTE("%s: requester %s and ERROR; responder untouched (RTS, receive posted)",
	     c->arg < 0 ? "2 GiB + 1 SEND" : fault_str[c->arg],
	     ibv_wc_status_str(want));
	drop_target(&t);
	dp_teardown(&p, d);
}

/*
 * A request injected with a raw socket from A's address (seed-rules R3.4
 * rows "too long" and "bad opcode or payload length"): the responder gets
 * IBV_EVENT_QP_REQ_ERR and goes to ERROR; the NAK Invalid Request it sends
 * is read on the wire (what a requester turns into REM_INV_REQ_ERR, see
 * SEND_recv_too_short). A's QP, which never sent that PSN, ignores the
 * NAK and stays RTS.
 */
static void test_inject(const struct dp_case *c)
{
	struct dp_cfg cfg = { .type = IBV_QPT_RC };
	struct dp_dev d[2];
	struct dp_pair p;
	char args[256];
	int syn;

	dp_setup(&p, d, c->fam, &cfg);
	switch (c->arg) {
	case 0:	/* RDMA WRITE ONLY claiming 2^31 + 1 bytes */
		snprintf(args, sizeof(args), "--opcode 0x0a --va 0x%llx --rkey 0x%x "
			 "--dmalen 0x80000001 --payload 64",
			 (unsigned long long)(uintptr_t)p.b.buf.p, p.b.buf.mr->rkey);
		break;
	case 1:	/* RDMA READ of 2^31 + 1 bytes */
		snprintf(args, sizeof(args), "--opcode 0x0c --va 0x%llx --rkey 0x%x "
			 "--dmalen 0x80000001 --payload 0",
			 (unsigned long long)(uintptr_t)p.b.buf.p, p.b.buf.mr->rkey);
		break;
	case 2:	/* SEND MIDDLE with no message in progress: bad opcode */
		snprintf(args, sizeof(args), "--opcode 0x01 --payload %u", p.mtu);
		break;
	case 3:	/* RDMA WRITE ONLY carrying 64 bytes for a RETH length of 32 */
		snprintf(args, sizeof(args), "--opcode 0x0a --va 0x%llx --rkey 0x%x "
			 "--dmalen 32 --payload 64",
			 (unsigned long long)(uintptr_t)p.b.buf.p, p.b.buf.mr->rkey);
		break;
	case 4:	/* SEND FIRST shorter than the path MTU: bad payload length */
		snprintf(args, sizeof(args), "--opcode 0x00 --payload 64");
		break;
	}
	memset(p.b.buf.p, 0x5a, p.b.buf.len);
	if (c->arg >= 2) {
		struct ibv_sge rs = { (uintptr_t)p.b.buf.p + 8192, 8192,
				      p.b.buf.mr->lkey };

		dp_post_recv(&p.b, 5, &rs, 1);
	}
	syn = err_inject(&p, p.cfg.psn_a, args);
	CHECK(syn == NAK_INV_REQ, "reply to the injected request: syndrome %d "
	      "(0x%x), want NAK Invalid Request 0x%x", syn, syn, NAK_INV_REQ);
	err_expect_event(p.b.dev->ctx, IBV_EVENT_QP_REQ_ERR, p.b.qp, 5000,
			 "responder");
	err_expect_state(p.b.qp, IBV_QPS_ERR, "responder QP");
	if (c->arg >= 2)	/* the receive WQE is flushed, never filled */
		err_expect_wc(p.b.rcq, IBV_WC_WR_FLUSH_ERR, 5, p.b.qp,
			      "responder receive");
	dp_check_fill(p.b.buf.p, p.b.buf.len, 0x5a, "responder memory");
	usleep(100000);
	err_expect_state(p.a.qp, IBV_QPS_RTS, "requester QP (a NAK for nothing it sent)");
	dp_expect_none(p.a.scq, 50, "requester send CQ");
	NOTE("NAK Invalid Request on the wire, responder QP_REQ_ERR and ERROR");
	dp_teardown(&p, d);
}

/*
 * seed-rules R3.6: A's SEND waits for its ACK (B has no receive WQE, so B
 * answers RNR NAK and A keeps retrying); an RDMA READ RESPONSE ONLY for
 * that PSN, injected from B's address, is a response of an unexpected
 * opcode: the SEND completes with BAD_RESP_ERR and A goes to ERROR.
 */
static void test_bad_resp(const struct dp_case *c)
{
	struct dp_cfg cfg = { .type = IBV_QPT_RC };
	struct dp_dev d[2];
	struct dp_pair p;
	struct dp_sgl s;

	dp_setup(&p, d, c->fam, &cfg);
	dp_sgl_make(&s, &p.a.buf, 0, 64, 1, 0);
	dp_send_wr(&p, IBV_WR_SEND, 1, &s, IBV_SEND_SIGNALED, 0, 0, 0);
	usleep(100000);
	dp_expect_none(p.a.scq, 50, "SEND before its ACK");
	err_inject_to(&p, 0, p.cfg.psn_a, "--opcode 0x10 --payload 64");
	err_expect_wc(p.a.scq, IBV_WC_BAD_RESP_ERR, 1, p.a.qp, "requester SEND");
	err_expect_state(p.a.qp, IBV_QPS_ERR, "requester QP");
	err_expect_state(p.b.qp, IBV_QPS_RTS, "responder QP");
	dp_expect_none(p.b.rcq, 50, "responder receive CQ");
	NOTE("READ response to a SEND: BAD_RESP_ERR, requester ERROR");
	dp_teardown(&p, d);
}

#define RECV(n, f) { "SEND_recv_" n, test_send_recv, IBV_QPT_RC, 4, 0, f }
#define REM(n, op, f) { n, test_remote, IBV_QPT_RC, 4, op, f }
#define LOC(n, op, f) { n, test_local, IBV_QPT_RC, 4, op, f }
#define INJ(n, k) { "inject_" n, test_inject, IBV_QPT_RC, 4, 0, k }

static const struct dp_case cases[] = {
	/* seed-rules R3.4, R3.5 */
	RECV("too_short", -1),
	RECV("dead_lkey", F_DEAD_KEY),
	RECV("outside_mr", F_OUTSIDE),
	RECV("mr_no_local_write", F_MR_ACCESS),
	RECV("lkey_other_pd", F_OTHER_PD),
	REM("WRITE_dead_rkey", IBV_WR_RDMA_WRITE, F_DEAD_KEY),
	REM("WRITE_outside_mr", IBV_WR_RDMA_WRITE, F_OUTSIDE),
	REM("WRITE_mr_no_remote_write", IBV_WR_RDMA_WRITE, F_MR_ACCESS),
	REM("WRITE_rkey_other_pd", IBV_WR_RDMA_WRITE, F_OTHER_PD),
	REM("WRITE_qp_no_remote_write", IBV_WR_RDMA_WRITE, F_QP_ACCESS),
	REM("WRITE_IMM_dead_rkey", IBV_WR_RDMA_WRITE_WITH_IMM, F_DEAD_KEY),
	REM("READ_dead_rkey", IBV_WR_RDMA_READ, F_DEAD_KEY),
	REM("READ_outside_mr", IBV_WR_RDMA_READ, F_OUTSIDE),
	REM("READ_mr_no_remote_read", IBV_WR_RDMA_READ, F_MR_ACCESS),
	REM("READ_rkey_other_pd", IBV_WR_RDMA_READ, F_OTHER_PD),
	REM("READ_qp_no_remote_read", IBV_WR_RDMA_READ, F_QP_ACCESS),
	REM("ATOMIC_dead_rkey", IBV_WR_ATOMIC_FETCH_AND_ADD, F_DEAD_KEY),
	REM("ATOMIC_outside_mr", IBV_WR_ATOMIC_FETCH_AND_ADD, F_OUTSIDE),
	REM("ATOMIC_mr_no_remote_atomic", IBV_WR_ATOMIC_FETCH_AND_ADD, F_MR_ACCESS),
	REM("ATOMIC_rkey_other_pd", IBV_WR_ATOMIC_FETCH_AND_ADD, F_OTHER_PD),
	REM("ATOMIC_misaligned", IBV_WR_ATOMIC_FETCH_AND_ADD, F_MISALIGNED),
	LOC("SEND_dead_lkey", IBV_WR_SEND, F_DEAD_KEY),
	LOC("SEND_outside_mr", IBV_WR_SEND, F_OUTSIDE),
	LOC("SEND_lkey_other_pd", IBV_WR_SEND, F_OTHER_PD),
	LOC("READ_into_mr_no_local_write", IBV_WR_RDMA_READ, F_MR_ACCESS),
	LOC("SEND_over_max_msg_sz", IBV_WR_SEND, -1),
	INJ("WRITE_too_long", 0),
	INJ("READ_too_long", 1),
	INJ("SEND_MIDDLE_out_of_sequence", 2),
	INJ("WRITE_payload_not_reth_len", 3),
	INJ("SEND_FIRST_short_payload", 4),
	{ "inject_READ_response_to_SEND", test_bad_resp, IBV_QPT_RC, 4 },
};

int main(int argc, char **argv)
{
	return dp_main(argc, argv, cases, ARRAY_SIZE(cases));
}
