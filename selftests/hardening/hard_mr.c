// SPDX-License-Identifier: GPL-2.0-only
/*
 * hard_mr: the life of an MR under a message in progress (seed-rules R3.4,
 * R3.5, R3.7).
 *
 * An RNIC checks the R_Key of every packet of an RDMA WRITE and of every
 * RDMA READ response. Once the MR is deregistered, or the window the key
 * names is invalidated, the rest of the message fails: RC answers NAK
 * Remote Access Error and the responder QP goes to ERROR with
 * IBV_EVENT_QP_ACCESS_ERR (R3.4 "WRITE: bad R_Key", R3.5); UC drops the
 * message (R3.7) and the QP goes on. And ibv_dereg_mr never waits for a
 * peer: a WRITE whose sender stops after its FIRST packet must not hold
 * the MR.
 *
 * The WRITE cases inject WRITE FIRST / MIDDLE / LAST from A's address with
 * roce_pkt.py (the "peer that stops" is the test itself) into B's QP; the
 * READ case is a real READ from A, long enough to be in progress when B
 * deregisters the MR.
 */
#include <errno.h>
#include <pthread.h>
#include <unistd.h>
#include "../errors/err.h"

#define NAK_REM_ACCESS	0x62
#define SENTINEL	0x5a
#define DEREG_MS	3000	/* "promptly": a wait for a peer never ends */

#define OP_DEREG	0	/* ibv_dereg_mr of the MR */
#define OP_MW_INV	1	/* LOCAL_INV of the type 2 window the key names */

struct dereg_arg {
	struct ibv_mr *mr;
	int ret;
	int done;
};

static void *dereg_thread(void *v)
{
	struct dereg_arg *a = v;

	a->ret = ibv_dereg_mr(a->mr);
	if (a->ret)
		a->ret = errno ? errno : a->ret;
	__atomic_store_n(&a->done, 1, __ATOMIC_RELEASE);
	return NULL;
}

/*
 * ibv_dereg_mr(@mr) must return within DEREG_MS. If it hangs (the kernel
 * waits for the message in progress), B's QP is reset, which lets the
 * kernel put the MR, so that the case fails instead of hanging for good.
 */
static void timed_dereg(struct dp_pair *p, struct ibv_mr *mr)
{
	struct dereg_arg a = { .mr = mr };
	uint64_t t0 = dp_now_ms();
	pthread_t t;

	CHECK(!pthread_create(&t, NULL, dereg_thread, &a), "pthread_create");
	while (!__atomic_load_n(&a.done, __ATOMIC_ACQUIRE) &&
	       dp_now_ms() - t0 < DEREG_MS)
		usleep(10000);
	if (!__atomic_load_n(&a.done, __ATOMIC_ACQUIRE)) {
		struct ibv_qp_attr at = { .qp_state = IBV_QPS_RESET };

		NOTE("ibv_dereg_mr still waiting after %d ms: resetting B's QP",
		     DEREG_MS);
		ibv_modify_qp(p->b.qp, &at, IBV_QP_STATE);
		pthread_join(t, NULL);
		FAIL("ibv_dereg_mr waited for the peer's message (returned %d "
		     "only after B's QP was reset)", a.ret);
	}
	pthread_join(t, NULL);
	CHECK(a.ret == 0, "ibv_dereg_mr: %s", strerror(a.ret));
	NOTE("ibv_dereg_mr returned in %llu ms",
	     (unsigned long long)(dp_now_ms() - t0));
}

static int changed(const unsigned char *p, size_t len)
{
	for (size_t i = 0; i < len; i++)
		if (p[i] != SENTINEL)
			return 1;
	return 0;
}

/*
 * A 3-packet RDMA WRITE into a second MR over B's buffer: FIRST lands,
 * then the MR is deregistered or its window invalidated (c->op), then
 * MIDDLE and LAST come. They must not land: RC NAKs MIDDLE with Remote
 * Access Error and B's QP goes to ERROR (seed-rules R3.4, R3.5); UC drops
 * the rest of the message and B's QP stays RTS (seed-rules R3.7), as a
 * next message through a valid key shows.
 */
static void test_write(const struct dp_case *c)
{
	struct dp_cfg cfg = { .type = c->type };
	int uc = c->type == IBV_QPT_UC;
	struct ibv_mw *mw = NULL;
	struct ibv_mr *mr;
	struct dp_dev d[2];
	struct dp_pair p;
	unsigned char *buf;
	char args[256];
	uint32_t psn, rkey;
	unsigned int mtu;
	int syn;

	dp_setup(&p, d, c->fam, &cfg);
	mtu = p.mtu;
	buf = p.b.buf.p;
	CHECK(p.b.buf.len >= 8 * mtu, "buffer of %zu bytes", p.b.buf.len);
	memset(buf, SENTINEL, p.b.buf.len);
	mr = ibv_reg_mr(p.b.dev->pd, buf, 4 * mtu, IBV_ACCESS_LOCAL_WRITE |
			IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ |
			IBV_ACCESS_MW_BIND);
	CHECK(mr, "reg_mr: %m");
	rkey = mr->rkey;
	if (c->op == OP_MW_INV) {
		mw = ibv_alloc_mw(p.b.dev->pd, IBV_MW_TYPE_2);
		CHECK(mw, "alloc_mw type 2: %m");
		CHECK_EQ(err_bind_mw2(&p.b, mw, mr, (uintptr_t)buf, 3 * mtu,
				      IBV_ACCESS_REMOTE_WRITE |
				      IBV_ACCESS_REMOTE_READ),
			 IBV_WC_SUCCESS, "bind type 2");
		rkey = mw->rkey;
	}

	psn = p.cfg.psn_a;
	snprintf(args, sizeof(args), "--opcode 0x%x --va 0x%llx --rkey 0x%x "
		 "--dmalen %u --payload %u", uc ? 0x26 : 0x06,
		 (unsigned long long)(uintptr_t)buf, rkey, 3 * mtu, mtu);
	syn = err_inject(&p, psn, args);
	if (!uc)
		CHECK(syn >= 0 && syn < 0x20, "reply to WRITE FIRST: syndrome "
		      "%d (0x%x), want an ACK", syn, syn);
	CHECK(changed(buf, mtu), "WRITE FIRST did not land");
	CHECK(!changed(buf + mtu, p.b.buf.len - mtu), "bytes past WRITE FIRST");

	if (c->op == OP_DEREG)
		timed_dereg(&p, mr);
	else
		CHECK_EQ(err_local_inv(&p.b, rkey), IBV_WC_SUCCESS, "LOCAL_INV");

	snprintf(args, sizeof(args), "--opcode 0x%x --payload %u",
		 uc ? 0x27 : 0x07, mtu);
	syn = err_inject(&p, (psn + 1) & 0xffffff, args);
	if (uc) {
		CHECK(syn < 0, "UC sent a reply 0x%x", syn);
	} else {
		CHECK(syn == NAK_REM_ACCESS, "reply to WRITE MIDDLE after %s: "
		      "syndrome %d (0x%x), want NAK Remote Access Error 0x%x",
		      c->op == OP_DEREG ? "dereg_mr" : "LOCAL_INV", syn, syn,
		      NAK_REM_ACCESS);
		err_expect_event(p.b.dev->ctx, IBV_EVENT_QP_ACCESS_ERR, p.b.qp,
				 5000, "responder");
		err_expect_state(p.b.qp, IBV_QPS_ERR, "responder QP");
	}
	snprintf(args, sizeof(args), "--opcode 0x%x --payload %u",
		 uc ? 0x28 : 0x08, mtu);
	err_inject(&p, (psn + 2) & 0xffffff, args);
	CHECK(!changed(buf + mtu, p.b.buf.len - mtu),
	      "WRITE MIDDLE/LAST landed after %s",
	      c->op == OP_DEREG ? "dereg_mr" : "LOCAL_INV");

	if (uc) {
		/* Dropped, not failed: the next message goes through. */
		err_expect_state(p.b.qp, IBV_QPS_RTS, "responder QP (UC)");
		err_expect_no_event(p.b.dev->ctx, 50, "responder (UC)");
		snprintf(args, sizeof(args), "--opcode 0x2a --va 0x%llx "
			 "--rkey 0x%x --dmalen 64 --payload 64",
			 (unsigned long long)(uintptr_t)(buf + 6 * mtu),
			 p.b.buf.mr->rkey);
		err_inject(&p, (psn + 3) & 0xffffff, args);
		CHECK(changed(buf + 6 * mtu, 64),
		      "UC WRITE ONLY after the dropped message did not land");
	}
	NOTE("%s %s mid-WRITE: rest of the message %s", uc ? "UC" : "RC",
	     c->op == OP_DEREG ? "dereg_mr" : "LOCAL_INV of the window",
	     uc ? "dropped" : "NAKed, QP_ACCESS_ERR");
	if (mw)
		CHECK(!ibv_dealloc_mw(mw), "dealloc_mw");
	if (c->op != OP_DEREG)
		timed_dereg(&p, mr);
	dp_teardown(&p, d);
}

#define READ_LEN (128 * MiB)

/*
 * A long RDMA READ from A, and B deregisters the MR it reads while the
 * responses are going out: the READ must end there (R3.4 "READ/ATOMIC:
 * bad R_Key": A's READ completes with REM_ACCESS_ERR, B gets
 * QP_ACCESS_ERR and goes to ERROR), and dereg must not wait for the rest.
 */
static void test_read(const struct dp_case *c)
{
	struct dp_cfg cfg = { .type = IBV_QPT_RC, .buf_len = READ_LEN };
	struct ibv_sge ls;
	struct ibv_send_wr wr = {
		.wr_id = 31, .opcode = IBV_WR_RDMA_READ, .sg_list = &ls,
		.num_sge = 1, .send_flags = IBV_SEND_SIGNALED,
	};
	volatile unsigned char *first;
	struct dp_dev d[2];
	struct dp_pair p;
	struct ibv_mr *mr;
	uint64_t t0;

	dp_setup(&p, d, c->fam, &cfg);
	memset(p.a.buf.p, SENTINEL, READ_LEN);
	memset(p.b.buf.p, 0xa5, READ_LEN);
	mr = ibv_reg_mr(p.b.dev->pd, p.b.buf.p, READ_LEN, IBV_ACCESS_LOCAL_WRITE |
			IBV_ACCESS_REMOTE_READ);
	CHECK(mr, "reg_mr: %m");
	ls = (struct ibv_sge){ (uintptr_t)p.a.buf.p, READ_LEN, p.a.buf.mr->lkey };
	wr.wr.rdma.remote_addr = (uintptr_t)p.b.buf.p;
	wr.wr.rdma.rkey = mr->rkey;
	dp_post_send(&p.a, &wr);
	/* The READ is in progress once its first bytes have landed. */
	first = p.a.buf.p;
	t0 = dp_now_ms();
	while (*first == SENTINEL) {
		CHECK(dp_now_ms() - t0 < 10000, "no READ response in 10 s");
		usleep(1000);
	}
	timed_dereg(&p, mr);
	err_expect_wc(p.a.scq, IBV_WC_REM_ACCESS_ERR, 31, p.a.qp,
		      "READ whose MR was deregistered meanwhile");
	err_expect_event(p.b.dev->ctx, IBV_EVENT_QP_ACCESS_ERR, p.b.qp, 5000,
			 "responder");
	err_expect_state(p.b.qp, IBV_QPS_ERR, "responder QP");
	CHECK(p.a.buf.p[READ_LEN - 1] == SENTINEL,
	      "the READ's last byte came after dereg_mr");
	NOTE("dereg_mr mid-READ: REM_ACCESS_ERR, QP_ACCESS_ERR");
	dp_teardown(&p, d);
}

static const struct dp_case cases[] = {
	/* seed-rules R3.4, R3.5, R3.7 */
	{ "RC_WRITE_dereg_mid_message", test_write, IBV_QPT_RC, 4, OP_DEREG },
	{ "UC_WRITE_dereg_mid_message", test_write, IBV_QPT_UC, 4, OP_DEREG },
	{ "RC_WRITE_mw_inv_mid_message", test_write, IBV_QPT_RC, 4, OP_MW_INV },
	{ "UC_WRITE_mw_inv_mid_message", test_write, IBV_QPT_UC, 4, OP_MW_INV },
	{ "RC_READ_dereg_mid_message", test_read, IBV_QPT_RC, 4, OP_DEREG },
};

int main(int argc, char **argv)
{
	return dp_main(argc, argv, cases, ARRAY_SIZE(cases));
}
