// SPDX-License-Identifier: GPL-2.0-only
/*
 * rdma_rw: RDMA WRITE and WRITE with immediate (RC, UC) and RDMA READ (RC)
 * from end A into/out of end B's memory, over IPv4 and IPv6 GIDs.
 *
 * Sizes 0, 1, MTU-1, MTU, MTU+1, 1 MiB (16 MiB once for WRITE and READ on
 * RC), each with one local SGE and with the maximum the device reports
 * (max_sge for WRITE, max_sge_rd for READ) and always one contiguous remote
 * range (seed-rules R1.6). Every byte of the remote (WRITE) or local (READ)
 * range is checked, and the 64 guard bytes on both sides must stay
 * untouched. The responder's receive queue must not be consumed by WRITE
 * or READ, and WRITE with immediate consumes a receive WQE without touching
 * its buffer (seed-rules R1.6).
 */
#include <arpa/inet.h>
#include "dp.h"

#define BIG 1
#define ROFF (4096 + 192)		/* remote range offset in B's buffer */
#define RQ_SLOT(p) ((p)->b.buf.p + (p)->b.buf.len - 256)

static void post_marker_recv(struct dp_pair *p, uint64_t wr_id)
{
	struct ibv_sge sge = { (uintptr_t)RQ_SLOT(p), 64, p->b.buf.mr->lkey };

	memset(RQ_SLOT(p), 0x77, 64);
	dp_post_recv(&p->b, wr_id, &sge, 1);
}

/* seed-rules R1.2 (WRITE, WRITE with immediate on RC/UC), R1.3, R1.6. */
static void xfer_write(struct dp_pair *p, enum ibv_wr_opcode op, size_t len,
		       int nsge, uint32_t seed)
{
	int imm = op == IBV_WR_RDMA_WRITE_WITH_IMM;
	uint32_t immv = seed * 0x9e3779b1u;
	unsigned char *dst = p->b.buf.p + ROFF;
	struct dp_sgl s;
	struct ibv_wc wc;
	char what[96];

	snprintf(what, sizeof(what), "%s len %zu sge %d",
		 imm ? "RDMA_WRITE_WITH_IMM" : "RDMA_WRITE", len, nsge);
	dp_sgl_make(&s, &p->a.buf, 0, len, nsge, 0);
	dp_sgl_fill(&s, seed);
	memset(dst - DP_GAP, 0x5a, len + 2 * DP_GAP);
	post_marker_recv(p, seed);
	dp_send_wr(p, op, seed, &s, IBV_SEND_SIGNALED, immv, (uintptr_t)dst,
		   p->b.buf.mr->rkey);
	dp_poll(p->a.scq, &wc, DP_TIMEOUT_MS, what);
	dp_check_wc(&wc, IBV_WC_SUCCESS, IBV_WC_RDMA_WRITE, seed, p->a.qp->qp_num, what);
	if (imm) {
		dp_poll(p->b.rcq, &wc, DP_TIMEOUT_MS, what);
		dp_check_wc(&wc, IBV_WC_SUCCESS, IBV_WC_RECV_RDMA_WITH_IMM, seed,
			    p->b.qp->qp_num, what);
		CHECK_EQ(wc.byte_len, len, "WRITE_WITH_IMM receive byte_len");
		CHECK_EQ(wc.wc_flags & (IBV_WC_WITH_IMM | IBV_WC_WITH_INV),
			 IBV_WC_WITH_IMM, "WRITE_WITH_IMM receive wc_flags");
		CHECK_EQ(ntohl(wc.imm_data), immv, "WRITE_WITH_IMM imm_data");
		dp_check_fill(RQ_SLOT(p), 64, 0x77,
			      "receive buffer of WRITE_WITH_IMM (must stay unused)");
	} else {
		/*
		 * A zero-length SEND behind the WRITE: in order on the QP, so
		 * once B has it the WRITE has landed (UC has no ACK), and it
		 * must consume the receive posted before the WRITE.
		 */
		dp_send_wr(p, IBV_WR_SEND, seed + 1, NULL, IBV_SEND_SIGNALED, 0, 0, 0);
		dp_poll(p->a.scq, &wc, DP_TIMEOUT_MS, "SEND after WRITE");
		dp_check_wc(&wc, IBV_WC_SUCCESS, IBV_WC_SEND, seed + 1,
			    p->a.qp->qp_num, "SEND after WRITE");
		dp_poll(p->b.rcq, &wc, DP_TIMEOUT_MS, "receive of the SEND after WRITE");
		dp_check_wc(&wc, IBV_WC_SUCCESS, IBV_WC_RECV, seed, p->b.qp->qp_num,
			    "receive WQE consumed by the SEND after the WRITE, not the WRITE");
		CHECK_EQ(wc.byte_len, 0, "byte_len of the SEND after WRITE");
	}
	dp_check_fill(dst - DP_GAP, DP_GAP, 0x5a, "guard before the remote range");
	dp_check_range(dst, len, seed, what);
	dp_check_fill(dst + len, DP_GAP, 0x5a, "guard after the remote range");
	dp_expect_none(p->b.rcq, 0, what);
}

/* seed-rules R1.2 (READ on RC only), R1.6 (READ fills the requester's SGEs). */
static void xfer_read(struct dp_pair *p, size_t len, int nsge, uint32_t seed)
{
	unsigned char *src = p->b.buf.p + ROFF;
	struct dp_sgl s;
	struct ibv_wc wc;
	size_t i;
	char what[64];

	snprintf(what, sizeof(what), "RDMA_READ len %zu sge %d", len, nsge);
	for (i = 0; i < len; i++)
		src[i] = dp_pat(i, seed);
	dp_sgl_make(&s, &p->a.buf, 64, len, nsge, 0);
	dp_sgl_clear(&s, 0x5a);
	memset(p->a.buf.p, 0x5a, 64);
	dp_send_wr(p, IBV_WR_RDMA_READ, seed, &s, IBV_SEND_SIGNALED, 0,
		   (uintptr_t)src, p->b.buf.mr->rkey);
	dp_poll(p->a.scq, &wc, DP_TIMEOUT_MS, what);
	dp_check_wc(&wc, IBV_WC_SUCCESS, IBV_WC_RDMA_READ, seed, p->a.qp->qp_num, what);
	CHECK_EQ(wc.byte_len, len, "RDMA_READ completion byte_len");
	dp_sgl_check(&s, seed, 0x5a, what);
	dp_check_fill(p->a.buf.p, 64, 0x5a, "guard before the first local SGE");
	dp_expect_none(p->b.rcq, 0, "responder receive queue during READ");
}

static void sizes_of(const struct dp_pair *p, size_t *sz, int *n)
{
	*n = 0;
	sz[(*n)++] = 0;
	sz[(*n)++] = 1;
	sz[(*n)++] = p->mtu - 1;
	sz[(*n)++] = p->mtu;
	sz[(*n)++] = p->mtu + 1;
	sz[(*n)++] = MiB;
}

static void test_write(const struct dp_case *c)
{
	struct dp_cfg cfg = {
		.type = c->type, .max_send_sge = ~0U,
		.buf_len = (c->arg & BIG ? 16 * MiB : MiB) + 64 * KiB,
	};
	struct dp_dev d[2];
	struct dp_pair p;
	size_t sz[8];
	int n, i, j, maxsge;
	uint32_t seed = c->fam * 1000 + c->type * 100 + c->op;

	dp_setup(&p, d, c->fam, &cfg);
	maxsge = p.a.cap.max_send_sge > DP_MAX_SGE ? DP_MAX_SGE : p.a.cap.max_send_sge;
	sizes_of(&p, sz, &n);
	NOTE("%s over IPv%d, path MTU %u, 1 and %d SGEs",
	     c->op == IBV_WR_RDMA_WRITE ? "RDMA_WRITE" : "RDMA_WRITE_WITH_IMM",
	     c->fam, p.mtu, maxsge);
	for (i = 0; i < n; i++)
		for (j = 0; j < 2; j++)
			xfer_write(&p, c->op, sz[i], j ? maxsge : 1, seed++);
	if (c->arg & BIG)
		xfer_write(&p, c->op, 16 * MiB, 1, seed++);
	NOTE("%d writes checked byte for byte%s", 2 * n, c->arg & BIG ? " plus 16 MiB" : "");
	dp_teardown(&p, d);
}

static void test_read(const struct dp_case *c)
{
	struct dp_cfg cfg = {
		.type = IBV_QPT_RC, .max_send_sge = ~0U,
		.buf_len = (c->arg & BIG ? 16 * MiB : MiB) + 64 * KiB,
	};
	struct dp_dev d[2];
	struct dp_pair p;
	struct ibv_wc wc;
	size_t sz[8];
	int n, i, j, maxsge;
	uint32_t seed = c->fam * 1000 + 77;

	dp_setup(&p, d, c->fam, &cfg);
	maxsge = p.a.cap.max_send_sge;
	if (maxsge > (int)d[0].attr.orig_attr.max_sge_rd)
		maxsge = d[0].attr.orig_attr.max_sge_rd;
	if (maxsge > DP_MAX_SGE)
		maxsge = DP_MAX_SGE;
	CHECK(maxsge >= 1, "device max_sge_rd is %d", d[0].attr.orig_attr.max_sge_rd);
	sizes_of(&p, sz, &n);
	NOTE("RDMA_READ over IPv%d, path MTU %u, 1 and %d SGEs (max_sge_rd %d)",
	     c->fam, p.mtu, maxsge, d[0].attr.orig_attr.max_sge_rd);
	post_marker_recv(&p, 999);
	for (i = 0; i < n; i++)
		for (j = 0; j < 2; j++)
			xfer_read(&p, sz[i], j ? maxsge : 1, seed++);
	if (c->arg & BIG)
		xfer_read(&p, 16 * MiB, 1, seed++);
	/* The receive posted before the READs is still the first one. */
	dp_send_wr(&p, IBV_WR_SEND, 1, NULL, IBV_SEND_SIGNALED, 0, 0, 0);
	dp_poll(p.b.rcq, &wc, DP_TIMEOUT_MS, "SEND after the READs");
	dp_check_wc(&wc, IBV_WC_SUCCESS, IBV_WC_RECV, 999, p.b.qp->qp_num,
		    "receive WQE posted before the READs (not consumed by them)");
	dp_poll(p.a.scq, &wc, DP_TIMEOUT_MS, "SEND after the READs");
	NOTE("%d reads checked byte for byte%s", 2 * n, c->arg & BIG ? " plus 16 MiB" : "");
	dp_teardown(&p, d);
}

static const struct dp_case cases[] = {
	{ "RC_RDMA_WRITE_v4", test_write, IBV_QPT_RC, 4, IBV_WR_RDMA_WRITE, BIG },
	{ "RC_RDMA_WRITE_v6", test_write, IBV_QPT_RC, 6, IBV_WR_RDMA_WRITE },
	{ "UC_RDMA_WRITE_v4", test_write, IBV_QPT_UC, 4, IBV_WR_RDMA_WRITE },
	{ "UC_RDMA_WRITE_v6", test_write, IBV_QPT_UC, 6, IBV_WR_RDMA_WRITE },
	{ "RC_RDMA_WRITE_WITH_IMM_v4", test_write, IBV_QPT_RC, 4, IBV_WR_RDMA_WRITE_WITH_IMM },
	{ "RC_RDMA_WRITE_WITH_IMM_v6", test_write, IBV_QPT_RC, 6, IBV_WR_RDMA_WRITE_WITH_IMM },
	{ "UC_RDMA_WRITE_WITH_IMM_v4", test_write, IBV_QPT_UC, 4, IBV_WR_RDMA_WRITE_WITH_IMM },
	{ "UC_RDMA_WRITE_WITH_IMM_v6", test_write, IBV_QPT_UC, 6, IBV_WR_RDMA_WRITE_WITH_IMM },
	{ "RC_RDMA_READ_v4", test_read, IBV_QPT_RC, 4, IBV_WR_RDMA_READ, BIG },
	{ "RC_RDMA_READ_v6", test_read, IBV_QPT_RC, 6, IBV_WR_RDMA_READ },
};

int main(int argc, char **argv)
{
	return dp_main(argc, argv, cases, ARRAY_SIZE(cases));
}
