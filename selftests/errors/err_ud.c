// SPDX-License-Identifier: GPL-2.0-only
/*
 * err_ud: UD's silent drops (seed-rules R1.5). A UD datagram with a wrong
 * P_Key or Q_Key is dropped without a completion, an async event or a
 * state change, and counted (rx_drop_bad_pkey / rx_drop_bad_qkey in
 * `rdma statistic`). A Q_Key with the top bit set in a send WR is
 * privileged: the QP's own Q_Key goes on the wire instead.
 *
 * The wrong P_Key cannot be sent through the verbs (a UD QP sends with its
 * P_Key table entry), so it is injected with selftests/net/roce_pkt.py from
 * A's address; a second injection with the right P_Key shows the packet
 * is otherwise acceptable (it completes on B).
 */
#include <errno.h>
#include <unistd.h>
#include "err.h"

#define QKEY_PRIV 0x80000000u

/* One UD SEND ONLY of 64 bytes to B's QP from A's address. */
static void inject_ud(const struct dp_pair *p, uint32_t pkey, uint32_t qkey)
{
	err_inject_ud(p, p->b.qp->qp_num, pkey, qkey, 64, 1);
}

static void post_ud_recv(struct dp_pair *p, uint64_t wr_id)
{
	struct ibv_sge rs = { (uintptr_t)p->b.buf.p, DP_GRH + 256, p->b.buf.mr->lkey };

	dp_post_recv(&p->b, wr_id, &rs, 1);
}

/* Nothing happened on B: no completion, no event, QP still RTS. */
static void b_saw_nothing(struct dp_pair *p, const char *what)
{
	dp_expect_none(p->b.rcq, 300, what);
	err_expect_no_event(p->b.dev->ctx, 50, "B's context");
	err_expect_state(p->b.qp, IBV_QPS_RTS, "B's QP");
}

/* seed-rules R1.5: wrong P_Key injected, dropped and counted. */
static void test_bad_pkey(const struct dp_case *c)
{
	struct dp_cfg cfg = { .type = IBV_QPT_UD };
	struct dp_dev d[2];
	struct dp_pair p;
	long n0, q0;

	dp_setup(&p, d, c->fam, &cfg);
	post_ud_recv(&p, 1);
	n0 = err_counter(&d[1], "rx_drop_bad_pkey");
	q0 = err_counter(&d[1], "rx_drop_bad_qkey");
	inject_ud(&p, 0x1234, p.qkey);		/* another partition */
	inject_ud(&p, 0x7FFE, p.qkey);		/* limited member of another */
	b_saw_nothing(&p, "B's receive CQ after wrong P_Keys");
	CHECK_EQ(err_counter(&d[1], "rx_drop_bad_pkey") - n0, 2, "rx_drop_bad_pkey delta");
	CHECK_EQ(err_counter(&d[1], "rx_drop_bad_qkey") - q0, 0, "rx_drop_bad_qkey delta");
	inject_ud(&p, 0xFFFF, p.qkey);		/* the default partition */
	err_expect_ud_recv(&p, 1, 64);
	CHECK_EQ(err_counter(&d[1], "rx_drop_bad_pkey") - n0, 2, "rx_drop_bad_pkey delta");
	NOTE("2 datagrams with a wrong P_Key dropped and counted, the right one received");
	dp_teardown(&p, d);
}

/*
 * seed-rules R1.5, R1.7: a send WR with Q_Key @c->arg. A's send completes
 * either way (UD completes when it leaves); B receives only if the Q_Key
 * on the wire is its QP's (a privileged WR Q_Key means the sender QP's
 * own, which the harness set equal to B's).
 */
static void test_qkey(const struct dp_case *c)
{
	struct dp_cfg cfg = { .type = IBV_QPT_UD };
	struct ibv_send_wr wr = { .wr_id = 5, .opcode = IBV_WR_SEND, .num_sge = 1,
				  .send_flags = IBV_SEND_SIGNALED };
	uint32_t wr_qkey = (uint32_t)c->arg;
	int delivered = c->op;
	struct dp_dev d[2];
	struct dp_pair p;
	struct ibv_sge ls;
	long q0;

	dp_setup(&p, d, c->fam, &cfg);
	CHECK(!(p.qkey & QKEY_PRIV), "the harness's Q_Key is not privileged");
	if (!wr_qkey)
		wr_qkey = p.qkey ^ 0x01010101;
	post_ud_recv(&p, 6);
	q0 = err_counter(&d[1], "rx_drop_bad_qkey");
	ls = (struct ibv_sge){ (uintptr_t)p.a.buf.p, 64, p.a.buf.mr->lkey };
	wr.sg_list = &ls;
	wr.wr.ud.ah = p.a.ah;
	wr.wr.ud.remote_qpn = p.b.qp->qp_num;
	wr.wr.ud.remote_qkey = wr_qkey;
	dp_post_send(&p.a, &wr);
	err_expect_wc(p.a.scq, IBV_WC_SUCCESS, 5, p.a.qp, "A's UD send");
	if (delivered) {
		err_expect_ud_recv(&p, 6, 64);
		CHECK_EQ(err_counter(&d[1], "rx_drop_bad_qkey") - q0, 0, "rx_drop_bad_qkey delta");
	} else {
		b_saw_nothing(&p, "B's receive CQ after a wrong Q_Key");
		CHECK_EQ(err_counter(&d[1], "rx_drop_bad_qkey") - q0, 1, "rx_drop_bad_qkey delta");
	}
	err_expect_state(p.a.qp, IBV_QPS_RTS, "A's QP");
	NOTE("WR Q_Key 0x%x: %s", wr_qkey, delivered ? "received" : "dropped and counted");
	dp_teardown(&p, d);
}

static const struct dp_case cases[] = {
	/* seed-rules R1.5 */
	{ "UD_wrong_PKey_injected", test_bad_pkey, IBV_QPT_UD, 4 },
	{ "UD_wrong_QKey", test_qkey, IBV_QPT_UD, 4, 0, 0 },
	{ "UD_privileged_QKey_uses_QP_QKey", test_qkey, IBV_QPT_UD, 4, 1, QKEY_PRIV },
	{ "UD_privileged_QKey_low_bits_ignored", test_qkey, IBV_QPT_UD, 4, 1,
	  QKEY_PRIV | 0x2222 },
};

int main(int argc, char **argv)
{
	return dp_main(argc, argv, cases, ARRAY_SIZE(cases));
}
