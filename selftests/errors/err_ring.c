// SPDX-License-Identifier: GPL-2.0-only
/*
 * err_ring: a work queue whose producer index user space corrupted
 * (seed-rules R3.9: SRQ_ERR, QP_FATAL). The kernel reads the rings' user-
 * written indices as hostile; one claiming more WQEs than the ring holds is
 * what a real RNIC reports as a work queue catastrophic error:
 * - an SRQ goes to error for good, IBV_EVENT_SRQ_ERR once; the QP that met
 *   it gets IBV_EVENT_QP_FATAL and ERROR, and so does every later QP that
 *   takes from it; the requester gets REM_OP_ERR (NAK Remote Operational
 *   Error), not an endless RNR wait;
 * - a QP's own RQ: QP_FATAL and ERROR the same way;
 * - a QP's SQ: QP_FATAL and ERROR at the next doorbell.
 *
 * How the test corrupts a ring (a documented hack): libsroce keeps the ring
 * addresses in its private structs, so the test finds the mapping in
 * /proc/self/maps (rings are mappings of /dev/infiniband/uverbs*) whose
 * header (struct sroce_ring_hdr, include/uapi/rdma/sroce-abi.h) shows a
 * producer index no other ring has at that moment, and writes the index.
 * The SQ doorbell is an empty IB_USER_VERBS_CMD_POST_SEND written to the
 * context's command fd, as libsroce's own doorbell is.
 */
#include <errno.h>
#include <unistd.h>
#include <rdma/ib_user_verbs.h>
#include "err.h"
#include "../../include/uapi/rdma/sroce-abi.h"

#define BAD_PROD_JUMP 0x40000000u	/* far more WQEs than any ring holds */

/* The one ring header whose producer index is @prod (fails unless one). */
static struct sroce_ring_hdr *find_ring(uint32_t prod)
{
	struct sroce_ring_hdr *found = NULL;
	unsigned long lo, hi;
	char line[512];
	int n = 0;
	FILE *f = fopen("/proc/self/maps", "r");

	CHECK(f, "/proc/self/maps: %m");
	while (fgets(line, sizeof(line), f)) {
		struct sroce_ring_hdr *h;

		if (!strstr(line, "/dev/infiniband/uverbs") ||
		    sscanf(line, "%lx-%lx", &lo, &hi) != 2 ||
		    hi - lo < SROCE_RING_HDR_SIZE)
			continue;
		h = (struct sroce_ring_hdr *)lo;
		if (__atomic_load_n(&h->prod, __ATOMIC_ACQUIRE) == prod) {
			found = h;
			n++;
		}
	}
	fclose(f);
	CHECK(n == 1, "%d ring mappings with producer index %u, want 1", n, prod);
	return found;
}

static void corrupt(struct sroce_ring_hdr *h)
{
	__atomic_store_n(&h->prod, h->cons + BAD_PROD_JUMP, __ATOMIC_RELEASE);
}

/* libsroce's send doorbell, by hand: POST_SEND with no WRs. */
static void send_doorbell(struct ibv_qp *qp)
{
	struct {
		struct ib_uverbs_cmd_hdr hdr;
		struct ib_uverbs_post_send cmd;
	} c = {};
	struct ib_uverbs_post_send_resp resp;

	c.hdr.command = IB_USER_VERBS_CMD_POST_SEND;
	c.hdr.in_words = sizeof(c) / 4;
	c.hdr.out_words = sizeof(resp) / 4;
	c.cmd.response = (uintptr_t)&resp;
	c.cmd.qp_handle = qp->handle;
	c.cmd.wqe_size = sizeof(struct ib_uverbs_send_wr);
	CHECK(write(qp->context->cmd_fd, &c, sizeof(c)) == sizeof(c),
	      "POST_SEND doorbell: %m");
}

static void post_recvs(struct dp_end *e, struct ibv_srq *srq, int n)
{
	struct ibv_sge rs = { (uintptr_t)e->buf.p, 256, e->buf.mr->lkey };

	for (int i = 0; i < n; i++) {
		if (srq)
			dp_post_srq_recv(srq, 100 + i, &rs, 1);
		else
			dp_post_recv(e, 100 + i, &rs, 1);
	}
}

/*
 * A SEND from A into B's broken receive queue: A's SEND completes with
 * REM_OP_ERR; B gets SRQ_ERR first if @srq_err, then QP_FATAL (and, on an
 * SRQ, LAST_WQE_REACHED as its QP is in ERROR); both QPs end in ERROR.
 */
static void send_into_broken(struct dp_pair *p, uint64_t wr_id,
			     struct ibv_srq *srq, int srq_err)
{
	struct dp_sgl s;

	dp_sgl_make(&s, &p->a.buf, 0, 64, 1, 0);
	dp_send_wr(p, IBV_WR_SEND, wr_id, &s, IBV_SEND_SIGNALED, 0, 0, 0);
	err_expect_wc(p->a.scq, IBV_WC_REM_OP_ERR, wr_id, p->a.qp, "requester SEND");
	if (srq_err)
		err_expect_event(p->b.dev->ctx, IBV_EVENT_SRQ_ERR, srq, 5000,
				 "responder SRQ");
	err_expect_event(p->b.dev->ctx, IBV_EVENT_QP_FATAL, p->b.qp, 5000,
			 "responder QP");
	if (srq)
		err_expect_event(p->b.dev->ctx, IBV_EVENT_QP_LAST_WQE_REACHED,
				 p->b.qp, 5000, "responder QP on the SRQ");
	err_expect_no_event(p->b.dev->ctx, 50, "responder context");
	err_expect_state(p->b.qp, IBV_QPS_ERR, "responder QP");
	err_expect_state(p->a.qp, IBV_QPS_ERR, "requester QP");
	dp_expect_none(p->b.rcq, 50, "responder receive CQ");
	err_expect_no_event(p->a.dev->ctx, 50, "requester context");
}

/*
 * seed-rules R3.9 SRQ_ERR: B's SRQ (shared by two pairs) gets a corrupt
 * producer index; pair 1's SEND fails (SRQ_ERR, then QP_FATAL); pair 2's
 * too, with no second SRQ_ERR, even after the index is restored: the SRQ
 * stays in error. No receive completes (WRs on an SRQ stay, R3.3).
 */
static void test_srq(const struct dp_case *c)
{
	struct dp_cfg cfg = { .type = IBV_QPT_RC, .srq = 1 };
	struct sroce_ring_hdr *h;
	struct dp_dev d[2];
	struct dp_pair p, p2;
	uint32_t good;

	dp_setup(&p, d, c->fam, &cfg);
	cfg.srq = 0;
	cfg.use_srq = p.b.srq;
	dp_pair_create(&p2, &d[0], &d[1], &cfg);
	post_recvs(&p.b, p.b.srq, 5);
	h = find_ring(5);
	good = h->prod;
	corrupt(h);
	send_into_broken(&p, 1, p.b.srq, 1);
	__atomic_store_n(&h->prod, good, __ATOMIC_RELEASE);
	send_into_broken(&p2, 2, p.b.srq, 0);
	NOTE("corrupt SRQ producer index: SRQ_ERR once, QP_FATAL per QP, REM_OP_ERR");
	dp_pair_destroy(&p2);
	dp_teardown(&p, d);
}

/* seed-rules R3.9 QP_FATAL: B's own RQ gets a corrupt producer index. */
static void test_rq(const struct dp_case *c)
{
	struct dp_cfg cfg = { .type = IBV_QPT_RC };
	struct dp_dev d[2];
	struct dp_pair p;

	dp_setup(&p, d, c->fam, &cfg);
	post_recvs(&p.b, NULL, 5);
	corrupt(find_ring(5));
	send_into_broken(&p, 1, NULL, 0);
	NOTE("corrupt RQ producer index: QP_FATAL, ERROR, requester REM_OP_ERR");
	dp_teardown(&p, d);
}

/*
 * seed-rules R3.9 QP_FATAL: A's SQ gets a corrupt producer index after 7
 * WRITEs went through; the next doorbell puts A in ERROR with QP_FATAL.
 * B is untouched.
 */
static void test_sq(const struct dp_case *c)
{
	struct dp_cfg cfg = { .type = IBV_QPT_RC };
	struct dp_dev d[2];
	struct dp_pair p;
	struct dp_sgl s;

	dp_setup(&p, d, c->fam, &cfg);
	dp_sgl_make(&s, &p.a.buf, 0, 64, 1, 0);
	for (int i = 0; i < 7; i++)
		dp_send_wr(&p, IBV_WR_RDMA_WRITE, 10 + i, &s,
			   i == 6 ? IBV_SEND_SIGNALED : 0, 0,
			   (uintptr_t)p.b.buf.p, p.b.buf.mr->rkey);
	err_expect_wc(p.a.scq, IBV_WC_SUCCESS, 16, p.a.qp, "the 7th WRITE");
	corrupt(find_ring(7));
	send_doorbell(p.a.qp);
	err_expect_event(p.a.dev->ctx, IBV_EVENT_QP_FATAL, p.a.qp, 5000,
			 "requester QP");
	err_expect_state(p.a.qp, IBV_QPS_ERR, "requester QP");
	dp_expect_none(p.a.scq, 50, "requester send CQ");
	err_expect_state(p.b.qp, IBV_QPS_RTS, "responder QP");
	err_expect_no_event(p.b.dev->ctx, 50, "responder context");
	/* The index stays bad: the QP's work item must not requeue itself. */
	err_expect_cpus_idle(1000, "SQ with a corrupt producer index, in ERROR");
	NOTE("corrupt SQ producer index: QP_FATAL and ERROR at the doorbell, no work left running");
	dp_teardown(&p, d);
}

static const struct dp_case cases[] = {
	/* seed-rules R3.9 */
	{ "SRQ_prod_corrupt_SRQ_ERR", test_srq, IBV_QPT_RC, 4 },
	{ "RQ_prod_corrupt_QP_FATAL", test_rq, IBV_QPT_RC, 4 },
	{ "SQ_prod_corrupt_QP_FATAL", test_sq, IBV_QPT_RC, 4 },
};

int main(int argc, char **argv)
{
	return dp_main(argc, argv, cases, ARRAY_SIZE(cases));
}
