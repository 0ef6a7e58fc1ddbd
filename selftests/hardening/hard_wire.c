// SPDX-License-Identifier: GPL-2.0-only
/*
 * hard_wire: traffic that puts every opcode sroce sends on the wire, for
 * selftests/device/tshark.sh, which captures it and has tshark decode it.
 *
 * One case per service and address family. Each does its operations once,
 * checks their completions (the data too where it is cheap), and prints a
 * manifest line for the capture's checker (device/tshark_check.py):
 *
 *   # <case>: wire type=RC fam=4 qpn_a=0x... qpn_b=0x... psn_a=0x... npsn=N
 *
 * A sends every request with PSNs psn_a .. psn_a + N - 1 (mod 2^24) to
 * qpn_b; on RC, B answers to qpn_a with PSNs of that range.
 *
 * The opcodes (seed-rules R1.2, R1.3): SEND FIRST/MIDDLE/LAST/ONLY with
 * and without immediate (RC, UC), with invalidate (RC); RDMA WRITE
 * FIRST/MIDDLE/LAST/ONLY with and without immediate (RC, UC); READ request
 * and READ response FIRST/MIDDLE/LAST/ONLY, CMP_SWAP, FETCH_ADD, ATOMIC
 * ACK, ACK (RC); a sequence NAK (a SEND MIDDLE dropped by a tx_drop rule,
 * seed-rules R2.5) and an RNR NAK (a SEND to an empty receive queue,
 * seed-rules R2.4); UD SEND ONLY with and without immediate. sroce sends
 * no CNP.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <unistd.h>
#include "../errors/err.h"

#define SMALL 64
#define B_RECV 0		/* B's buffer: receives */
#define B_WRITE (16 * KiB)	/* WRITE target */
#define B_READ (32 * KiB)	/* READ source */
#define B_ATOMIC (48 * KiB)	/* the atomic word */
#define B_MW (56 * KiB)		/* the type 2 window */
#define MW_LEN (4 * KiB)
#define RNR_TIMER 26		/* 81.92 ms: a few RNR NAKs, not hundreds */

struct wire {
	struct dp_dev d[2];
	struct dp_pair p;
	size_t big;		/* FIRST, MIDDLE, LAST */
	uint32_t npsn;		/* PSNs A's requests used */
	uint32_t seed;
};

static uint32_t npkts(const struct wire *w, size_t len)
{
	return len ? (uint32_t)((len + w->p.mtu - 1) / w->p.mtu) : 1;
}

static void fault(const struct dp_end *e, const char *rule)
{
	char path[256];
	FILE *f;

	snprintf(path, sizeof(path), "/sys/kernel/debug/sroce/%s/tx_drop",
		 e->dev->name);
	f = fopen(path, "w");
	if (!f)
		dp_skip("no %s (debugfs not mounted?)", path);
	CHECK(fputs(rule, f) >= 0 && fclose(f) == 0, "write '%s' to %s: %s",
	      rule, path, strerror(errno));
}

static void wire_up(struct wire *w, const struct dp_case *c)
{
	struct dp_cfg cfg = {
		.type = c->type,
		.rc_timers = 1, .timeout = 14, .retry_cnt = 7, .rnr_retry = 7,
		.min_rnr_timer = RNR_TIMER,
	};

	memset(w, 0, sizeof(*w));
	dp_setup(&w->p, w->d, c->fam, &cfg);
	w->big = 2 * w->p.mtu + w->p.mtu / 2;
	w->seed = 1000;
	fault(&w->p.a, "off");
	fault(&w->p.b, "off");
}

static void wire_down(struct wire *w, const struct dp_case *c)
{
	static const char *const tname[] = {
		[IBV_QPT_RC] = "RC", [IBV_QPT_UC] = "UC", [IBV_QPT_UD] = "UD",
	};

	NOTE("wire type=%s fam=%d qpn_a=0x%06x qpn_b=0x%06x psn_a=0x%06x npsn=%u",
	     tname[c->type], c->fam, w->p.a.qp->qp_num, w->p.b.qp->qp_num,
	     w->p.cfg.psn_a, w->npsn);
	fault(&w->p.a, "off");
	dp_teardown(&w->p, w->d);
}

/* A's receive SGE list on B for @len bytes (UD: after a GRH SGE). */
static void recv_sgl(struct wire *w, struct dp_sgl *r, size_t len)
{
	dp_sgl_make(r, &w->p.b.buf, B_RECV, len, 1, w->p.cfg.type == IBV_QPT_UD);
	dp_sgl_clear(r, 0x5a);
	dp_post_recv(&w->p.b, w->seed, r->sge, r->n);
}

/* B's receive of a SEND (or WRITE with immediate) and its flags. */
static void recv_done(struct wire *w, enum ibv_wc_opcode op, size_t len,
		      int imm, uint32_t inv)
{
	struct ibv_wc wc;

	dp_poll(w->p.b.rcq, &wc, DP_TIMEOUT_MS, "receive completion");
	dp_check_wc(&wc, IBV_WC_SUCCESS, op, w->seed, w->p.b.qp->qp_num, "receive");
	CHECK_EQ(wc.byte_len, len + (w->p.cfg.type == IBV_QPT_UD ? DP_GRH : 0),
		 "receive byte_len");
	if (imm) {
		CHECK(wc.wc_flags & IBV_WC_WITH_IMM, "no immediate in the receive");
		CHECK_EQ(ntohl(wc.imm_data), w->seed, "immediate data");
	}
	if (inv) {
		CHECK(wc.wc_flags & IBV_WC_WITH_INV, "no IBV_WC_WITH_INV in the receive");
		CHECK_EQ(wc.invalidated_rkey, inv, "invalidated_rkey");
	}
}

static void send_done(struct wire *w, enum ibv_wc_opcode op, const char *what)
{
	struct ibv_wc wc;

	dp_poll(w->p.a.scq, &wc, DP_TIMEOUT_MS, what);
	dp_check_wc(&wc, IBV_WC_SUCCESS, op, w->seed, w->p.a.qp->qp_num, what);
}

/* SEND, SEND with immediate or with invalidate of @len bytes, checked. */
static void do_send(struct wire *w, enum ibv_wr_opcode op, size_t len,
		    uint32_t inv_rkey)
{
	struct dp_sgl s, r;

	w->seed++;
	recv_sgl(w, &r, len);
	dp_sgl_make(&s, &w->p.a.buf, 0, len, 1, 0);
	dp_sgl_fill(&s, w->seed);
	dp_send_wr(&w->p, op, w->seed, &s, IBV_SEND_SIGNALED, w->seed, 0, inv_rkey);
	send_done(w, IBV_WC_SEND, "SEND completion");
	recv_done(w, IBV_WC_RECV, len, op == IBV_WR_SEND_WITH_IMM,
		  op == IBV_WR_SEND_WITH_INV ? inv_rkey : 0);
	dp_sgl_check(&r, w->seed, 0x5a, "data received");
	w->npsn += npkts(w, len);
}

/* Wait for @len bytes of the pattern at @p (a UC WRITE has no completion at B). */
static void wait_range(const unsigned char *p, size_t len, uint32_t seed)
{
	uint64_t t0 = dp_now_ms();
	size_t i;

	for (;;) {
		for (i = 0; i < len && p[i] == dp_pat(i, seed); i++)
			;
		if (i == len)
			return;
		CHECK(dp_now_ms() - t0 < 5000, "WRITE data did not land: byte %zu "
		      "is 0x%02x, want 0x%02x", i, p[i], dp_pat(i, seed));
		usleep(1000);
	}
}

static void do_write(struct wire *w, int imm, size_t len)
{
	unsigned char *dst = w->p.b.buf.p + B_WRITE;
	struct dp_sgl s;

	w->seed++;
	if (imm)	/* its receive WQE takes no data (seed-rules R1.6) */
		dp_post_recv(&w->p.b, w->seed, NULL, 0);
	memset(dst, 0x5a, len);
	dp_sgl_make(&s, &w->p.a.buf, 0, len, 1, 0);
	dp_sgl_fill(&s, w->seed);
	dp_send_wr(&w->p, imm ? IBV_WR_RDMA_WRITE_WITH_IMM : IBV_WR_RDMA_WRITE,
		   w->seed, &s, IBV_SEND_SIGNALED, w->seed, (uintptr_t)dst,
		   w->p.b.buf.mr->rkey);
	send_done(w, IBV_WC_RDMA_WRITE, "WRITE completion");
	if (imm)
		recv_done(w, IBV_WC_RECV_RDMA_WITH_IMM, len, 1, 0);
	wait_range(dst, len, w->seed);
	w->npsn += npkts(w, len);
}

static void do_read(struct wire *w, size_t len)
{
	unsigned char *src = w->p.b.buf.p + B_READ;
	struct dp_sgl s;
	size_t i;

	w->seed++;
	for (i = 0; i < len; i++)
		src[i] = dp_pat(i, w->seed);
	dp_sgl_make(&s, &w->p.a.buf, 0, len, 1, 0);
	dp_sgl_clear(&s, 0x5a);
	dp_send_wr(&w->p, IBV_WR_RDMA_READ, w->seed, &s, IBV_SEND_SIGNALED, 0,
		   (uintptr_t)src, w->p.b.buf.mr->rkey);
	send_done(w, IBV_WC_RDMA_READ, "READ completion");
	dp_sgl_check(&s, w->seed, 0x5a, "data read");
	w->npsn += npkts(w, len);
}

static void do_atomic(struct wire *w, enum ibv_wr_opcode op, uint64_t cmp_add,
		      uint64_t swap, uint64_t want_old)
{
	uint64_t *word = (uint64_t *)(void *)(w->p.b.buf.p + B_ATOMIC);
	uint64_t *old = (uint64_t *)(void *)w->p.a.buf.p;
	struct ibv_sge ls = { (uintptr_t)old, 8, w->p.a.buf.mr->lkey };
	struct ibv_send_wr wr = {
		.sg_list = &ls, .num_sge = 1, .opcode = op,
		.send_flags = IBV_SEND_SIGNALED,
	};

	wr.wr_id = ++w->seed;
	wr.wr.atomic.remote_addr = (uintptr_t)word;
	wr.wr.atomic.rkey = w->p.b.buf.mr->rkey;
	wr.wr.atomic.compare_add = cmp_add;
	wr.wr.atomic.swap = swap;
	*old = ~0ULL;
	dp_post_send(&w->p.a, &wr);
	send_done(w, op == IBV_WR_ATOMIC_CMP_AND_SWP ? IBV_WC_COMP_SWAP :
		  IBV_WC_FETCH_ADD, "ATOMIC completion");
	CHECK_EQ(*old, want_old, "original value returned");
	w->npsn++;
}

/*
 * SENDs with invalidate of a type 2 window of B, bound by B's QP (each
 * bind gives the window a new R_Key variant).
 */
static void do_send_inv(struct wire *w)
{
	struct ibv_mr *mr;
	struct ibv_mw *mw;
	size_t len[2] = { SMALL, w->big };
	int i;

	mr = ibv_reg_mr(w->d[1].pd, w->p.b.buf.p, w->p.b.buf.len,
			IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
			IBV_ACCESS_MW_BIND);
	CHECK(mr, "reg_mr for a window: %m");
	mw = ibv_alloc_mw(w->d[1].pd, IBV_MW_TYPE_2);
	if (!mw)
		dp_skip("no type 2 memory windows: %m");
	for (i = 0; i < 2; i++) {
		CHECK_EQ(err_bind_mw2(&w->p.b, mw, mr, (uintptr_t)w->p.b.buf.p + B_MW,
				      MW_LEN, IBV_ACCESS_REMOTE_WRITE),
			 IBV_WC_SUCCESS, "bind the window");
		do_send(w, IBV_WR_SEND_WITH_INV, len[i], mw->rkey);
	}
	CHECK(!ibv_dealloc_mw(mw), "dealloc_mw");
	CHECK(!ibv_dereg_mr(mr), "dereg_mr");
}

/* seed-rules R2.5: A's SEND MIDDLE lost, B NAKs the gap, A resends. */
static void do_seq_nak(struct wire *w)
{
	uint64_t naks = dp_counter(w->p.b.dev, "seq_nak_sent");

	fault(&w->p.a, "opcode=0x01");
	do_send(w, IBV_WR_SEND, w->big, 0);
	fault(&w->p.a, "off");
	CHECK(dp_counter(w->p.b.dev, "seq_nak_sent") > naks,
	      "B sent no sequence NAK for the lost SEND MIDDLE");
}

/*
 * seed-rules R2.4: a SEND that finds B's receive queue empty is RNR
 * NAKed; A retries after B's min_rnr_timer until a receive is posted.
 */
static void do_rnr_nak(struct wire *w)
{
	uint64_t t0, naks = dp_counter(w->p.b.dev, "rnr_nak_sent");
	struct dp_sgl s, r;

	w->seed++;
	dp_sgl_make(&s, &w->p.a.buf, 0, SMALL, 1, 0);
	dp_sgl_fill(&s, w->seed);
	dp_send_wr(&w->p, IBV_WR_SEND, w->seed, &s, IBV_SEND_SIGNALED, 0, 0, 0);
	t0 = dp_now_ms();
	while (dp_counter(w->p.b.dev, "rnr_nak_sent") == naks)
		CHECK(dp_now_ms() - t0 < 10000, "B sent no RNR NAK within 10 s");
	recv_sgl(w, &r, SMALL);
	send_done(w, IBV_WC_SEND, "SEND completion after RNR NAKs");
	recv_done(w, IBV_WC_RECV, SMALL, 0, 0);
	dp_sgl_check(&r, w->seed, 0x5a, "data received after RNR NAKs");
	w->npsn++;
}

static void test_rc(const struct dp_case *c)
{
	uint64_t *word;
	struct wire w;

	wire_up(&w, c);
	word = (uint64_t *)(void *)(w.p.b.buf.p + B_ATOMIC);
	do_send(&w, IBV_WR_SEND, w.big, 0);
	do_send(&w, IBV_WR_SEND_WITH_IMM, w.big, 0);
	do_send(&w, IBV_WR_SEND, SMALL, 0);
	do_send(&w, IBV_WR_SEND_WITH_IMM, SMALL, 0);
	do_send_inv(&w);
	do_write(&w, 0, w.big);
	do_write(&w, 1, w.big);
	do_write(&w, 0, SMALL);
	do_write(&w, 1, SMALL);
	do_read(&w, w.big);
	do_read(&w, SMALL);
	*word = 7;
	do_atomic(&w, IBV_WR_ATOMIC_CMP_AND_SWP, 7, 9, 7);
	do_atomic(&w, IBV_WR_ATOMIC_FETCH_AND_ADD, 5, 0, 9);
	CHECK_EQ(*word, 14, "the atomic word");
	do_seq_nak(&w);
	do_rnr_nak(&w);
	wire_down(&w, c);
}

static void test_uc(const struct dp_case *c)
{
	struct wire w;

	wire_up(&w, c);
	do_send(&w, IBV_WR_SEND, w.big, 0);
	do_send(&w, IBV_WR_SEND_WITH_IMM, w.big, 0);
	do_send(&w, IBV_WR_SEND, SMALL, 0);
	do_send(&w, IBV_WR_SEND_WITH_IMM, SMALL, 0);
	do_write(&w, 0, w.big);
	do_write(&w, 1, w.big);
	do_write(&w, 0, SMALL);
	do_write(&w, 1, SMALL);
	wire_down(&w, c);
}

static void test_ud(const struct dp_case *c)
{
	struct wire w;

	wire_up(&w, c);
	do_send(&w, IBV_WR_SEND, SMALL, 0);
	do_send(&w, IBV_WR_SEND_WITH_IMM, SMALL, 0);
	do_send(&w, IBV_WR_SEND, w.p.mtu, 0);
	wire_down(&w, c);
}

static const struct dp_case cases[] = {
	{ "rc_v4", test_rc, IBV_QPT_RC, 4 },
	{ "rc_v6", test_rc, IBV_QPT_RC, 6 },
	{ "uc_v4", test_uc, IBV_QPT_UC, 4 },
	{ "uc_v6", test_uc, IBV_QPT_UC, 6 },
	{ "ud_v4", test_ud, IBV_QPT_UD, 4 },
	{ "ud_v6", test_ud, IBV_QPT_UD, 6 },
};

int main(int argc, char **argv)
{
	return dp_main(argc, argv, cases, ARRAY_SIZE(cases));
}
