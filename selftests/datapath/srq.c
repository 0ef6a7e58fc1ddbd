// SPDX-License-Identifier: GPL-2.0-only
/*
 * srq: receives through one shared receive queue from two QPs (RC, UC, UD).
 *
 * B has one SRQ with 2*M receive WQEs (wr_id = buffer slot); two pairs
 * A1->B1 and A2->B2 (B1, B2 attached to the SRQ) each send M messages,
 * interleaved. Every message must land intact in the slot its completion
 * names, each slot exactly once, each QP's completions in its send order,
 * and the SRQ's WQEs are consumed in the order they were posted (so each
 * QP sees increasing wr_ids).
 */
#include <unistd.h>
#include "dp.h"

#define M 16
#define LEN 300
#define SLOT 1024

static void test_srq(const struct dp_case *c)
{
	struct dp_cfg cfg = { .type = c->type, .buf_len = 64 * KiB };
	struct ibv_srq_init_attr sa = { .attr = { .max_wr = 2 * M, .max_sge = 1 } };
	struct dp_dev d[2];
	struct dp_pair p[2];
	struct dp_buf rb;
	struct ibv_srq *srq;
	struct ibv_wc wc;
	static int used[2 * M];
	int i, k, got[2] = { 0, 0 }, ud = c->type == IBV_QPT_UD;
	uint64_t last[2] = { 0, 0 };

	dp_open(&d[0], 0, c->fam);
	dp_open(&d[1], 1, c->fam);
	srq = ibv_create_srq(d[1].pd, &sa);
	CHECK(srq, "create_srq: %m");
	cfg.use_srq = srq;
	dp_pair_create(&p[0], &d[0], &d[1], &cfg);
	dp_pair_create(&p[1], &d[0], &d[1], &cfg);
	rb.len = 2 * M * SLOT;
	CHECK(!posix_memalign((void **)&rb.p, 4096, rb.len), "memory");
	memset(rb.p, 0x5a, rb.len);
	rb.mr = ibv_reg_mr(d[1].pd, rb.p, rb.len, IBV_ACCESS_LOCAL_WRITE);
	CHECK(rb.mr, "reg_mr: %m");
	for (i = 0; i < 2 * M; i++) {
		struct ibv_sge sge = { (uintptr_t)rb.p + i * SLOT, LEN + (ud ? DP_GRH : 0),
				       rb.mr->lkey };

		dp_post_srq_recv(srq, i, &sge, 1);
	}
	for (k = 0; k < M; k++)
		for (i = 0; i < 2; i++) {
			struct dp_sgl s;

			dp_sgl_make(&s, &p[i].a.buf, k * 512, LEN, 1, 0);
			dp_sgl_fill(&s, (i + 1) << 16 | k);
			dp_send_wr(&p[i], IBV_WR_SEND, k, &s, IBV_SEND_SIGNALED, 0, 0, 0);
		}
	for (k = 0; k < 2 * M; k++) {
		/* Whichever of B1's and B2's CQs has the next completion. */
		uint64_t t0 = dp_now_ms();
		int n = 0;

		for (;;) {
			for (i = 0; i < 2; i++) {
				n = ibv_poll_cq(p[i].b.rcq, 1, &wc);
				CHECK(n >= 0, "poll_cq");
				if (n)
					break;
			}
			if (n)
				break;
			CHECK(dp_now_ms() - t0 < 10000, "only %d of %d SRQ receives "
			      "completed (QP1 %d, QP2 %d)", k, 2 * M, got[0], got[1]);
			usleep(200);
		}
		dp_check_wc(&wc, IBV_WC_SUCCESS, IBV_WC_RECV, wc.wr_id, p[i].b.qp->qp_num,
			    "SRQ receive");
		CHECK(wc.wr_id < 2 * M, "SRQ receive wr_id %llu was never posted",
		      (unsigned long long)wc.wr_id);
		CHECK(!used[wc.wr_id], "SRQ WQE %llu completed twice",
		      (unsigned long long)wc.wr_id);
		used[wc.wr_id] = 1;
		CHECK(!got[i] || wc.wr_id > last[i], "QP%d: SRQ WQE %llu after %llu "
		      "(WQEs not consumed in posting order)", i + 1,
		      (unsigned long long)wc.wr_id, (unsigned long long)last[i]);
		last[i] = wc.wr_id;
		CHECK_EQ(wc.byte_len, LEN + (ud ? DP_GRH : 0), "SRQ receive byte_len");
		if (ud)
			CHECK_EQ(wc.src_qp, p[i].a.qp->qp_num, "UD src_qp");
		dp_check_range(rb.p + wc.wr_id * SLOT + (ud ? DP_GRH : 0), LEN,
			       (i + 1) << 16 | got[i], "message in the SRQ slot");
		dp_check_fill(rb.p + wc.wr_id * SLOT + LEN + (ud ? DP_GRH : 0), 64, 0x5a,
			      "bytes after the message in the SRQ slot");
		got[i]++;
	}
	CHECK(got[0] == M && got[1] == M, "QP1 got %d, QP2 got %d, want %d each",
	      got[0], got[1], M);
	for (i = 0; i < 2; i++)
		for (k = 0; k < M; k++) {
			dp_poll(p[i].a.scq, &wc, 10000, "send completion");
			dp_check_wc(&wc, IBV_WC_SUCCESS, IBV_WC_SEND, k, p[i].a.qp->qp_num,
				    "send completion");
		}
	NOTE("2 QPs x %d messages through one SRQ: all intact, FIFO WQE use", M);
	dp_pair_destroy(&p[1]);
	dp_pair_destroy(&p[0]);
	CHECK(!ibv_destroy_srq(srq), "destroy_srq");
	CHECK(!ibv_dereg_mr(rb.mr), "dereg_mr");
	free(rb.p);
	dp_close(&d[1]);
	dp_close(&d[0]);
}

static const struct dp_case cases[] = {
	{ "RC_srq_two_qps_v4", test_srq, IBV_QPT_RC, 4 },
	{ "UC_srq_two_qps_v4", test_srq, IBV_QPT_UC, 4 },
	{ "UD_srq_two_qps_v4", test_srq, IBV_QPT_UD, 4 },
	{ "RC_srq_two_qps_v6", test_srq, IBV_QPT_RC, 6 },
};

int main(int argc, char **argv)
{
	return dp_main(argc, argv, cases, ARRAY_SIZE(cases));
}
