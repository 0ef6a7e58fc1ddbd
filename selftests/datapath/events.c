// SPDX-License-Identifier: GPL-2.0-only
/*
 * events: inline data, signaled and unsignaled WRs, fences, solicited
 * events and completion channel events.
 */
#include <arpa/inet.h>
#include <poll.h>
#include <unistd.h>
#include "dp.h"

static int is_ud(const struct dp_pair *p)
{
	return p->cfg.type == IBV_QPT_UD;
}

/* Receive a len-byte message at B into slot k and check it (wr_id k). */
static void expect_recv(struct dp_pair *p, const struct dp_sgl *r, uint64_t wr_id,
			uint32_t seed, const char *what)
{
	struct ibv_wc wc;

	dp_poll(p->b.rcq, &wc, 10000, what);
	dp_check_wc(&wc, IBV_WC_SUCCESS, IBV_WC_RECV, wr_id, p->b.qp->qp_num, what);
	CHECK_EQ(wc.byte_len, r->len + (is_ud(p) ? DP_GRH : 0), "receive byte_len");
	dp_sgl_check(r, seed, 0x5a, what);
}

/*
 * Inline data up to the QP's max_inline_data: the payload is copied at post
 * time (the buffer is unregistered, lkey 0, and overwritten right after
 * ibv_post_send returns), yet B gets the original bytes.
 */
static void test_inline(const struct dp_case *c)
{
	static const unsigned int want[] = { 1024, 512, 256, 128, 64, 32, 16 };
	struct dp_cfg cfg = { .type = c->type };
	struct dp_dev d[2];
	struct dp_pair p;
	unsigned char *mem;
	unsigned int i, max = 0, n = 0;
	size_t sizes[3];
	struct ibv_wc wc;

	dp_open(&d[0], 0, c->fam);
	dp_open(&d[1], 1, c->fam);
	for (i = 0; i < ARRAY_SIZE(want) && !max; i++) {
		struct ibv_qp_init_attr qa = {
			.send_cq = NULL, .qp_type = c->type,
			.cap = { .max_send_wr = 4, .max_recv_wr = 4, .max_send_sge = 1,
				 .max_recv_sge = 1, .max_inline_data = want[i] },
		};
		struct ibv_cq *cq = ibv_create_cq(d[0].ctx, 8, NULL, NULL, 0);
		struct ibv_qp *qp;

		CHECK(cq, "create_cq");
		qa.send_cq = qa.recv_cq = cq;
		qp = ibv_create_qp(d[0].pd, &qa);
		if (qp) {
			max = qa.cap.max_inline_data;
			CHECK(max >= want[i], "create_qp asked inline %u, cap says %u",
			      want[i], max);
			ibv_destroy_qp(qp);
		}
		ibv_destroy_cq(cq);
	}
	if (!max)
		dp_skip("the device takes no inline data (asked %u..%u)",
			want[ARRAY_SIZE(want) - 1], want[0]);
	cfg.max_inline = max;
	dp_pair_create(&p, &d[0], &d[1], &cfg);
	if (is_ud(&p) && max > p.mtu)
		max = p.mtu;
	sizes[n++] = 1;
	sizes[n++] = max / 2;
	sizes[n++] = max;
	mem = malloc(max + 64);
	CHECK(mem, "malloc");
	for (i = 0; i < n; i++) {
		struct ibv_sge sge = { (uintptr_t)mem, sizes[i], 0 };
		struct ibv_send_wr wr = {
			.wr_id = i, .sg_list = &sge, .num_sge = 1, .opcode = IBV_WR_SEND,
			.send_flags = IBV_SEND_INLINE | IBV_SEND_SIGNALED,
		};
		struct dp_sgl r;
		size_t j;

		dp_sgl_make(&r, &p.b.buf, 0, sizes[i], 1, is_ud(&p));
		dp_sgl_clear(&r, 0x5a);
		dp_post_recv(&p.b, i, r.sge, r.n);
		for (j = 0; j < sizes[i]; j++)
			mem[j] = dp_pat(j, 40 + i);
		if (is_ud(&p)) {
			wr.wr.ud.ah = p.a.ah;
			wr.wr.ud.remote_qpn = p.b.qp->qp_num;
			wr.wr.ud.remote_qkey = p.qkey;
		}
		dp_post_send(&p.a, &wr);
		memset(mem, 0xee, max);	/* inline: already copied */
		dp_poll(p.a.scq, &wc, 10000, "inline SEND");
		dp_check_wc(&wc, IBV_WC_SUCCESS, IBV_WC_SEND, i, p.a.qp->qp_num, "inline SEND");
		expect_recv(&p, &r, i, 40 + i, "inline SEND payload");
	}
	if (c->type != IBV_QPT_UD) {	/* an inline RDMA WRITE of max bytes */
		struct ibv_sge sge = { (uintptr_t)mem, max, 0 };
		struct ibv_send_wr wr = {
			.wr_id = 9, .sg_list = &sge, .num_sge = 1, .opcode = IBV_WR_RDMA_WRITE_WITH_IMM,
			.send_flags = IBV_SEND_INLINE | IBV_SEND_SIGNALED,
		};
		unsigned char *dst = p.b.buf.p + 8192;
		struct ibv_sge rs = { (uintptr_t)p.b.buf.p, 16, p.b.buf.mr->lkey };
		size_t j;

		for (j = 0; j < max; j++)
			mem[j] = dp_pat(j, 50);
		memset(dst, 0x5a, max + 64);
		dp_post_recv(&p.b, 9, &rs, 1);
		wr.wr.rdma.remote_addr = (uintptr_t)dst;
		wr.wr.rdma.rkey = p.b.buf.mr->rkey;
		dp_post_send(&p.a, &wr);
		memset(mem, 0xee, max);
		dp_poll(p.a.scq, &wc, 10000, "inline WRITE_WITH_IMM");
		dp_check_wc(&wc, IBV_WC_SUCCESS, IBV_WC_RDMA_WRITE, 9, p.a.qp->qp_num,
			    "inline WRITE_WITH_IMM");
		dp_poll(p.b.rcq, &wc, 10000, "inline WRITE_WITH_IMM receive");
		dp_check_wc(&wc, IBV_WC_SUCCESS, IBV_WC_RECV_RDMA_WITH_IMM, 9,
			    p.b.qp->qp_num, "inline WRITE_WITH_IMM receive");
		dp_check_range(dst, max, 50, "inline WRITE data");
		dp_check_fill(dst + max, 64, 0x5a, "guard after inline WRITE");
	}
	NOTE("max_inline_data %u: inline sends of 1, %zu, %u bytes%s", max,
	     sizes[1], max, c->type != IBV_QPT_UD ? " and an inline WRITE" : "");
	free(mem);
	dp_teardown(&p, d);
}

/*
 * Signaled and unsignaled WRs: with sq_sig_all = 0 only WRs flagged
 * SIGNALED complete (all of them are delivered, in order); with
 * sq_sig_all = 1 every WR completes.
 */
static void test_signaled(const struct dp_case *c)
{
	struct dp_cfg cfg = { .type = c->type, .sq_sig_all = (int)c->arg };
	struct dp_dev d[2];
	struct dp_pair p;
	struct dp_sgl s[16], r[16];
	struct ibv_wc wc;
	int i;

	dp_setup(&p, d, c->fam, &cfg);
	for (i = 0; i < 16; i++) {
		dp_sgl_make(&r[i], &p.b.buf, i * 512, 100, 1, is_ud(&p));
		dp_sgl_clear(&r[i], 0x5a);
		dp_post_recv(&p.b, i, r[i].sge, r[i].n);
	}
	for (i = 0; i < 16; i++) {
		unsigned int flags = 0;

		if (!c->arg && (i == 7 || i == 15))
			flags = IBV_SEND_SIGNALED;
		dp_sgl_make(&s[i], &p.a.buf, i * 512, 100, 1, 0);
		dp_sgl_fill(&s[i], 60 + i);
		dp_send_wr(&p, IBV_WR_SEND, i, &s[i], flags, 0, 0, 0);
	}
	for (i = 0; i < 16; i++)
		expect_recv(&p, &r[i], i, 60 + i, "message in order");
	if (c->arg) {
		for (i = 0; i < 16; i++) {
			dp_poll(p.a.scq, &wc, 10000, "sq_sig_all completion");
			dp_check_wc(&wc, IBV_WC_SUCCESS, IBV_WC_SEND, i, p.a.qp->qp_num,
				    "sq_sig_all completion");
		}
	} else {
		dp_poll(p.a.scq, &wc, 10000, "signaled WR 7");
		dp_check_wc(&wc, IBV_WC_SUCCESS, IBV_WC_SEND, 7, p.a.qp->qp_num, "signaled WR 7");
		dp_poll(p.a.scq, &wc, 10000, "signaled WR 15");
		dp_check_wc(&wc, IBV_WC_SUCCESS, IBV_WC_SEND, 15, p.a.qp->qp_num, "signaled WR 15");
	}
	dp_expect_none(p.a.scq, 200, "send CQ after the signaled WRs");
	NOTE("16 sends, %s", c->arg ? "sq_sig_all: 16 completions" :
	     "2 signaled: exactly 2 completions (wr_id 7, 15)");
	dp_teardown(&p, d);
}

/*
 * IBV_SEND_FENCE: a SEND fenced behind an RDMA READ into the same local
 * buffer starts only after the READ has completed, so it carries the bytes
 * the READ brought (seed-rules R2.7: READ/ATOMIC ordering).
 */
static void test_fence(const struct dp_case *c)
{
	struct dp_cfg cfg = { .type = IBV_QPT_RC };
	struct dp_dev d[2];
	struct dp_pair p;
	struct dp_sgl l, r;
	struct ibv_wc wc;
	int round;
	size_t len = 3 * 1024 + 5, i;

	dp_setup(&p, d, c->fam, &cfg);
	for (round = 0; round < 8; round++) {
		unsigned char *src = p.b.buf.p + 16384;
		uint32_t seed = 70 + round;

		for (i = 0; i < len; i++)
			src[i] = dp_pat(i, seed);
		dp_sgl_make(&l, &p.a.buf, 0, len, 1, 0);
		dp_sgl_fill(&l, 0xdead);	/* stale local contents */
		dp_sgl_make(&r, &p.b.buf, 0, len, 1, 0);
		dp_sgl_clear(&r, 0x5a);
		dp_post_recv(&p.b, round, r.sge, r.n);
		dp_send_wr(&p, IBV_WR_RDMA_READ, 100 + round, &l, IBV_SEND_SIGNALED, 0,
			   (uintptr_t)src, p.b.buf.mr->rkey);
		dp_send_wr(&p, IBV_WR_SEND, 200 + round, &l,
			   IBV_SEND_SIGNALED | IBV_SEND_FENCE, 0, 0, 0);
		dp_poll(p.a.scq, &wc, 10000, "READ before the fenced SEND");
		dp_check_wc(&wc, IBV_WC_SUCCESS, IBV_WC_RDMA_READ, 100 + round,
			    p.a.qp->qp_num, "READ completes before the fenced SEND");
		dp_poll(p.a.scq, &wc, 10000, "fenced SEND");
		dp_check_wc(&wc, IBV_WC_SUCCESS, IBV_WC_SEND, 200 + round,
			    p.a.qp->qp_num, "fenced SEND");
		expect_recv(&p, &r, round, seed, "fenced SEND carries the READ's data");
	}
	NOTE("8 x READ then fenced SEND of the same buffer: SEND carried the read data");
	dp_teardown(&p, d);
}

/* Wait up to ms for an event on the channel; 1 if one came. */
static int channel_event(struct ibv_comp_channel *ch, int ms, struct ibv_cq *want_cq,
			 void *want_ctx, const char *what)
{
	struct pollfd pfd = { .fd = ch->fd, .events = POLLIN };
	struct ibv_cq *cq;
	void *ctx;
	int n = poll(&pfd, 1, ms);

	CHECK(n >= 0, "%s: poll on the channel: %m", what);
	if (!n)
		return 0;
	CHECK(!ibv_get_cq_event(ch, &cq, &ctx), "%s: ibv_get_cq_event: %m", what);
	CHECK(cq == want_cq, "%s: event for CQ %p, want %p", what, (void *)cq,
	      (void *)want_cq);
	CHECK(ctx == want_ctx, "%s: event cq_context %p, want %p", what, ctx, want_ctx);
	ibv_ack_cq_events(cq, 1);
	return 1;
}

static void send_one(struct dp_pair *p, uint64_t id, unsigned int flags,
		     struct dp_sgl *r)
{
	struct dp_sgl s;

	dp_sgl_make(r, &p->b.buf, id * 512, 100, 1, is_ud(p));
	dp_sgl_clear(r, 0x5a);
	dp_post_recv(&p->b, id, r->sge, r->n);
	dp_sgl_make(&s, &p->a.buf, id * 512, 100, 1, 0);
	dp_sgl_fill(&s, 90 + id);
	dp_send_wr(p, IBV_WR_SEND, id, &s, IBV_SEND_SIGNALED | flags, 0, 0, 0);
}

/*
 * Solicited events: a CQ armed with solicited_only gets no event for an
 * unsolicited message (its completion is still there to poll), and one for
 * a message sent with IBV_SEND_SOLICITED.
 */
static void test_solicited(const struct dp_case *c)
{
	struct dp_cfg cfg = { .type = c->type, .channel = 1 };
	struct dp_dev d[2];
	struct dp_pair p;
	struct dp_sgl r;
	struct ibv_wc wc;

	dp_setup(&p, d, c->fam, &cfg);
	CHECK(!ibv_req_notify_cq(p.b.rcq, 1), "req_notify_cq(solicited_only): %m");
	send_one(&p, 1, 0, &r);
	expect_recv(&p, &r, 1, 91, "unsolicited message");
	dp_poll(p.a.scq, &wc, 10000, "unsolicited send");
	CHECK(!channel_event(p.b.ch, 500, p.b.rcq, &p.b, "unsolicited"),
	      "an event came for an unsolicited message on a solicited-only CQ");
	send_one(&p, 2, IBV_SEND_SOLICITED, &r);
	CHECK(channel_event(p.b.ch, 10000, p.b.rcq, &p.b, "solicited"),
	      "no event within 10 s for a SOLICITED message");
	expect_recv(&p, &r, 2, 92, "solicited message");
	dp_poll(p.a.scq, &wc, 10000, "solicited send");
	NOTE("no event for the unsolicited message, one for the solicited one");
	dp_teardown(&p, d);
}

/*
 * Completion channel: an armed CQ gives exactly one event for the next
 * completion (on both the send CQ at A and the receive CQ at B), none while
 * not re-armed, and one again once re-armed.
 */
static void test_channel(const struct dp_case *c)
{
	struct dp_cfg cfg = { .type = c->type, .channel = 1 };
	struct dp_dev d[2];
	struct dp_pair p;
	struct dp_sgl r;
	struct ibv_wc wc;
	int i;

	dp_setup(&p, d, c->fam, &cfg);
	for (i = 0; i < 3; i++) {
		if (i != 1) {
			CHECK(!ibv_req_notify_cq(p.b.rcq, 0), "req_notify_cq: %m");
			CHECK(!ibv_req_notify_cq(p.a.scq, 0), "req_notify_cq: %m");
		}
		send_one(&p, i, 0, &r);
		if (i != 1) {
			CHECK(channel_event(p.b.ch, 10000, p.b.rcq, &p.b, "recv CQ"),
			      "round %d: no receive CQ event within 10 s", i);
			CHECK(channel_event(p.a.ch, 10000, p.a.scq, &p.a, "send CQ"),
			      "round %d: no send CQ event within 10 s", i);
		}
		expect_recv(&p, &r, i, 90 + i, "message");
		dp_poll(p.a.scq, &wc, 10000, "send");
		dp_check_wc(&wc, IBV_WC_SUCCESS, IBV_WC_SEND, i, p.a.qp->qp_num, "send");
		CHECK(!channel_event(p.b.ch, i == 1 ? 500 : 50, p.b.rcq, &p.b, "recv CQ"),
		      "round %d: a receive CQ event without arming (or a second one)", i);
		CHECK(!channel_event(p.a.ch, 50, p.a.scq, &p.a, "send CQ"),
		      "round %d: a send CQ event without arming (or a second one)", i);
	}
	NOTE("one event per arm on each CQ, none when not armed");
	dp_teardown(&p, d);
}

static const struct dp_case cases[] = {
	{ "RC_inline_v4", test_inline, IBV_QPT_RC, 4 },
	{ "UC_inline_v4", test_inline, IBV_QPT_UC, 4 },
	{ "UD_inline_v4", test_inline, IBV_QPT_UD, 4 },
	{ "RC_unsignaled_v4", test_signaled, IBV_QPT_RC, 4, 0, 0 },
	{ "UC_unsignaled_v4", test_signaled, IBV_QPT_UC, 4, 0, 0 },
	{ "UD_unsignaled_v4", test_signaled, IBV_QPT_UD, 4, 0, 0 },
	{ "RC_sq_sig_all_v4", test_signaled, IBV_QPT_RC, 4, 0, 1 },
	{ "UD_sq_sig_all_v6", test_signaled, IBV_QPT_UD, 6, 0, 1 },
	{ "RC_fence_after_read_v4", test_fence, IBV_QPT_RC, 4 },
	{ "RC_solicited_v4", test_solicited, IBV_QPT_RC, 4 },
	{ "UC_solicited_v4", test_solicited, IBV_QPT_UC, 4 },
	{ "UD_solicited_v6", test_solicited, IBV_QPT_UD, 6 },
	{ "RC_comp_channel_v4", test_channel, IBV_QPT_RC, 4 },
	{ "UD_comp_channel_v4", test_channel, IBV_QPT_UD, 4 },
};

int main(int argc, char **argv)
{
	return dp_main(argc, argv, cases, ARRAY_SIZE(cases));
}
