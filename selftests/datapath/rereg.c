// SPDX-License-Identifier: GPL-2.0-only
/*
 * rereg: ibv_rereg_mr (IBA 11.2.8.4) seen from the wire, and the CQ
 * cleaning of a QP moved to RESET.
 *
 * B registers its own MR over part of its buffer; A writes into it with
 * RDMA WRITE. Changing the access rights, the PD or the translation of
 * B's MR must change what A's WRITE does: a revoked right or a key of
 * another PD gives A IBV_WC_REM_ACCESS_ERR (seed-rules R3.4, R3.5, R5.1),
 * a granted one lets the data in, a new translation puts it at the new
 * address and never at the old one.
 */
#include <errno.h>
#include <stdlib.h>
#include <unistd.h>
#include "dp.h"

#define LEN 4096

static struct ibv_mr *reg(struct dp_end *e, void *p, int access)
{
	struct ibv_mr *mr = ibv_reg_mr(e->dev->pd, p, LEN, access);

	CHECK(mr, "reg_mr: %s", strerror(errno));
	return mr;
}

/* A writes LEN pattern bytes to B's @addr with @rkey; returns A's status. */
static enum ibv_wc_status write_to(struct dp_pair *p, void *addr, uint32_t rkey,
				   uint32_t seed)
{
	struct dp_sgl s;
	struct ibv_wc wc;

	dp_sgl_make(&s, &p->a.buf, 0, LEN, 1, 0);
	dp_sgl_fill(&s, seed);
	dp_send_wr(p, IBV_WR_RDMA_WRITE, seed, &s, IBV_SEND_SIGNALED, 0,
		   (uintptr_t)addr, rkey);
	dp_poll(p->a.scq, &wc, DP_TIMEOUT_MS, "RDMA WRITE");
	CHECK_EQ(wc.wr_id, seed, "WRITE wr_id");
	return wc.status;
}

static void *page(void)
{
	void *p;

	CHECK(!posix_memalign(&p, 4096, LEN), "posix_memalign");
	memset(p, 0x5a, LEN);
	return p;
}

static void test_access(const struct dp_case *c)
{
	struct dp_cfg cfg = { .type = IBV_QPT_RC };
	struct dp_dev d[2];
	struct dp_pair p;
	struct ibv_mr *mr;
	void *buf;

	dp_setup(&p, d, c->fam, &cfg);
	buf = page();
	mr = reg(&p.b, buf, IBV_ACCESS_LOCAL_WRITE);
	/* Granting REMOTE_WRITE afterwards opens the MR to A's WRITE. */
	CHECK(!ibv_rereg_mr(mr, IBV_REREG_MR_CHANGE_ACCESS, NULL, NULL, 0,
			    IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE),
	      "rereg_mr (grant remote write): %s", strerror(errno));
	CHECK_EQ(write_to(&p, buf, mr->rkey, 1), IBV_WC_SUCCESS, "WRITE after the grant");
	dp_check_range(buf, LEN, 1, "WRITE data after the grant");
	/* Revoking it again: the same WRITE is a remote access error. */
	CHECK(!ibv_rereg_mr(mr, IBV_REREG_MR_CHANGE_ACCESS, NULL, NULL, 0,
			    IBV_ACCESS_LOCAL_WRITE),
	      "rereg_mr (revoke remote write): %s", strerror(errno));
	memset(buf, 0x5a, LEN);
	CHECK_EQ(write_to(&p, buf, mr->rkey, 2), IBV_WC_REM_ACCESS_ERR,
		 "WRITE after the revocation (seed-rules R3.4)");
	dp_check_fill(buf, LEN, 0x5a, "MR after the refused WRITE");
	/* Remote write without local write is refused (IBA o10-36.2.2). */
	CHECK_EQ(ibv_rereg_mr(mr, IBV_REREG_MR_CHANGE_ACCESS, NULL, NULL, 0,
			      IBV_ACCESS_REMOTE_WRITE) != 0, 1,
		 "rereg_mr to remote write without local write fails");
	CHECK(!ibv_dereg_mr(mr), "dereg_mr");
	free(buf);
	dp_teardown(&p, d);
}

static void test_pd(const struct dp_case *c)
{
	struct dp_cfg cfg = { .type = IBV_QPT_RC };
	struct dp_dev d[2];
	struct dp_pair p;
	struct ibv_pd *other;
	struct ibv_mr *mr;
	void *buf;

	dp_setup(&p, d, c->fam, &cfg);
	buf = page();
	mr = reg(&p.b, buf, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE);
	other = ibv_alloc_pd(p.b.dev->ctx);
	CHECK(other, "alloc_pd");
	CHECK(!ibv_rereg_mr(mr, IBV_REREG_MR_CHANGE_PD, other, NULL, 0, 0),
	      "rereg_mr (new PD): %s", strerror(errno));
	/* seed-rules R5.1: a key of another PD than the QP's fails. */
	CHECK_EQ(write_to(&p, buf, mr->rkey, 3), IBV_WC_REM_ACCESS_ERR,
		 "WRITE to an MR moved to another PD");
	dp_check_fill(buf, LEN, 0x5a, "MR after the refused WRITE");
	/* The PD is in use while the MR is in it. */
	CHECK_EQ(ibv_dealloc_pd(other), EBUSY, "dealloc_pd of the MR's new PD");
	CHECK(!ibv_dereg_mr(mr), "dereg_mr");
	CHECK(!ibv_dealloc_pd(other), "dealloc_pd");
	free(buf);
	dp_teardown(&p, d);
}

static void test_translation(const struct dp_case *c)
{
	struct dp_cfg cfg = { .type = IBV_QPT_RC };
	struct dp_dev d[2];
	struct dp_pair p;
	struct ibv_mr *mr;
	void *old, *new;

	dp_setup(&p, d, c->fam, &cfg);
	old = page();
	new = page();
	mr = reg(&p.b, old, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE);
	CHECK(!ibv_rereg_mr(mr, IBV_REREG_MR_CHANGE_TRANSLATION, NULL, new, LEN, 0),
	      "rereg_mr (new translation): %s", strerror(errno));
	CHECK(mr->addr == new && mr->length == LEN, "ibv_mr has the new range");
	CHECK_EQ(write_to(&p, new, mr->rkey, 4), IBV_WC_SUCCESS,
		 "WRITE to the new translation");
	dp_check_range(new, LEN, 4, "WRITE data at the new address");
	dp_check_fill(old, LEN, 0x5a, "old address after the rereg");
	CHECK(!ibv_dereg_mr(mr), "dereg_mr");
	free(old);
	free(new);
	dp_teardown(&p, d);
}

/* A QP moved to RESET leaves no completion in its CQ; other QPs' stay. */
static void test_reset_cleans_cq(const struct dp_case *c)
{
	struct dp_cfg cfg = { .type = IBV_QPT_RC };
	struct ibv_qp_init_attr ia = { .qp_type = IBV_QPT_UD,
		.cap = { .max_send_wr = 1, .max_recv_wr = 4, .max_send_sge = 1,
			 .max_recv_sge = 1 } };
	struct ibv_qp_attr at = { .qp_state = IBV_QPS_INIT, .port_num = 1,
				  .qkey = 0x11111111 };
	struct ibv_qp_attr err = { .qp_state = IBV_QPS_ERR };
	struct ibv_qp_attr reset = { .qp_state = IBV_QPS_RESET };
	struct ibv_sge sge;
	struct ibv_wc wc[8];
	struct dp_dev d[2];
	struct dp_pair p;
	struct ibv_qp *ud;
	int i, n;

	dp_setup(&p, d, c->fam, &cfg);
	ia.send_cq = p.b.rcq;
	ia.recv_cq = p.b.rcq;
	ud = ibv_create_qp(p.b.dev->pd, &ia);
	CHECK(ud, "create UD QP: %s", strerror(errno));
	CHECK(!ibv_modify_qp(ud, &at, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
			     IBV_QP_PORT | IBV_QP_QKEY), "UD to INIT");
	sge = (struct ibv_sge){ .addr = (uintptr_t)p.b.buf.p, .length = 64,
				.lkey = p.b.buf.mr->lkey };
	for (i = 0; i < 3; i++)
		dp_post_recv(&p.b, 100 + i, &sge, 1);
	for (i = 0; i < 2; i++) {
		struct ibv_recv_wr wr = { .wr_id = 200 + i, .sg_list = &sge,
					  .num_sge = 1 }, *bad;

		CHECK(!ibv_post_recv(ud, &wr, &bad), "post_recv on the UD QP");
	}
	/* seed-rules R3.3: in ERROR every posted WR completes flushed. */
	CHECK(!ibv_modify_qp(p.b.qp, &err, IBV_QP_STATE), "RC to ERR");
	CHECK(!ibv_modify_qp(ud, &err, IBV_QP_STATE), "UD to ERR");
	usleep(200 * 1000);
	CHECK(!ibv_modify_qp(p.b.qp, &reset, IBV_QP_STATE), "RC to RESET");
	n = 0;
	for (i = 0; i < 20 && n < 8; i++) {
		int got = ibv_poll_cq(p.b.rcq, 8 - n, wc + n);

		CHECK(got >= 0, "poll_cq");
		n += got;
		usleep(20 * 1000);
	}
	CHECK_EQ(n, 2, "completions left in the CQ (the UD QP's 2 flushes)");
	for (i = 0; i < n; i++) {
		CHECK_EQ(wc[i].qp_num, ud->qp_num, "a remaining CQE's qp_num");
		CHECK_EQ(wc[i].status, IBV_WC_WR_FLUSH_ERR, "a remaining CQE's status");
		CHECK_EQ(wc[i].wr_id, 200 + i, "remaining CQEs in posting order");
	}
	CHECK(!ibv_destroy_qp(ud), "destroy UD QP");
	dp_teardown(&p, d);
}

static const struct dp_case cases[] = {
	{ "RC_rereg_access_grant_and_revoke_v4", test_access, IBV_QPT_RC, 4 },
	{ "RC_rereg_pd_v4", test_pd, IBV_QPT_RC, 4 },
	{ "RC_rereg_translation_v6", test_translation, IBV_QPT_RC, 6 },
	{ "reset_removes_the_qps_cqes_v4", test_reset_cleans_cq, IBV_QPT_RC, 4 },
};

int main(int argc, char **argv)
{
	return dp_main(argc, argv, cases, ARRAY_SIZE(cases));
}
