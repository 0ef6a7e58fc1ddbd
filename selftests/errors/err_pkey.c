// SPDX-License-Identifier: GPL-2.0-only
/*
 * err_pkey: an RC or UC packet whose BTH P_Key does not match the
 * receiving QP's P_Key (IBA 10.9.3; seed-rules R1.5 says it for UD, and
 * RC and UC check it alike) is dropped silently and counted in
 * rx_drop_bad_pkey: no completion, no ACK or NAK, no async event, both
 * QPs stay RTS and the expected PSN does not move, so the next message
 * goes through.
 *
 * The verbs cannot send a wrong P_Key (a QP sends with its table entry),
 * so each packet is a SEND ONLY at B's expected PSN injected with
 * selftests/net/roce_pkt.py from A's address. With the right P_Key the
 * same injected packet is received, which shows that only its P_Key made
 * the difference.
 */
#include <errno.h>
#include <unistd.h>
#include "err.h"

/* AETH syndromes (IBA 9.7.5.2.2): 0x00..0x1f ACK. */
#define SYN_IS_ACK(s) ((s) >= 0 && ((s) & 0x60) == 0)

/* B's responder counters that any answer to a request moves. */
static const char *const answers[] = {
	"ack_sent", "rnr_nak_sent", "seq_nak_sent", "err_nak_sent",
	"duplicate_request", "out_of_sequence", "uc_msg_dropped",
};

struct snap {
	long bad_pkey, rx_pkts, ans[ARRAY_SIZE(answers)];
};

static void snap_take(const struct dp_dev *d, struct snap *s)
{
	size_t i;

	s->bad_pkey = err_counter(d, "rx_drop_bad_pkey");
	s->rx_pkts = err_counter(d, "rx_pkts");
	for (i = 0; i < ARRAY_SIZE(answers); i++)
		s->ans[i] = err_counter(d, answers[i]);
}

/* One SEND ONLY of 64 bytes to B's QP at @psn with @pkey. */
static int inject_send(const struct dp_pair *p, uint32_t psn, uint16_t pkey)
{
	char args[128];

	snprintf(args, sizeof(args), "--opcode 0x%x --payload 64 --pkey 0x%x",
		 p->cfg.type == IBV_QPT_RC ? 0x04 : 0x24, pkey);
	return err_inject(p, psn, args);
}

/* seed-rules R1.5 (RC, UC): wrong P_Keys injected, dropped, counted. */
static void test_bad_pkey(const struct dp_case *c)
{
	static const uint16_t bad[] = {
		0x1234,		/* another partition, full member */
		0x7FFE,		/* another partition, limited member */
	};
	struct dp_cfg cfg = { .type = c->type };
	int rc = c->type == IBV_QPT_RC;
	struct snap s0, s1;
	struct dp_dev d[2];
	struct dp_pair p;
	struct ibv_sge rs;
	struct ibv_wc wc;
	struct dp_sgl s;
	size_t i;
	int syn;

	dp_setup(&p, d, c->fam, &cfg);
	rs = (struct ibv_sge){ (uintptr_t)p.b.buf.p, 256, p.b.buf.mr->lkey };
	dp_post_recv(&p.b, 1, &rs, 1);
	snap_take(&d[1], &s0);
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		syn = inject_send(&p, p.cfg.psn_a, bad[i]);
		CHECK(syn == -1, "B answered a P_Key 0x%x packet: syndrome 0x%x",
		      bad[i], syn);
	}
	snap_take(&d[1], &s1);
	CHECK_EQ(s1.rx_pkts - s0.rx_pkts, ARRAY_SIZE(bad), "B rx_pkts delta");
	CHECK_EQ(s1.bad_pkey - s0.bad_pkey, ARRAY_SIZE(bad), "B rx_drop_bad_pkey delta");
	for (i = 0; i < ARRAY_SIZE(answers); i++)
		CHECK_EQ(s1.ans[i] - s0.ans[i], 0, answers[i]);
	dp_expect_none(p.b.rcq, 200, "B's receive CQ after wrong P_Keys");
	dp_expect_none(p.a.scq, 50, "A's send CQ after wrong P_Keys");
	err_expect_no_event(p.b.dev->ctx, 50, "B's context");
	err_expect_no_event(p.a.dev->ctx, 50, "A's context");
	err_expect_state(p.b.qp, IBV_QPS_RTS, "B's QP");
	err_expect_state(p.a.qp, IBV_QPS_RTS, "A's QP");

	/* The next message, at the same PSN, goes through. */
	dp_sgl_make(&s, &p.a.buf, 0, 100, 1, 0);
	dp_sgl_fill(&s, 7);
	dp_send_wr(&p, IBV_WR_SEND, 2, &s, IBV_SEND_SIGNALED, 0, 0, 0);
	err_expect_wc(p.a.scq, IBV_WC_SUCCESS, 2, p.a.qp, "A's SEND");
	dp_poll(p.b.rcq, &wc, 5000, "B's receive");
	dp_check_wc(&wc, IBV_WC_SUCCESS, IBV_WC_RECV, 1, p.b.qp->qp_num, "B's receive");
	CHECK_EQ(wc.byte_len, 100, "B's receive byte_len");
	dp_check_range(p.b.buf.p, 100, 7, "received message");

	/* The injected packet with the right P_Key, at the next PSN, is taken. */
	dp_post_recv(&p.b, 3, &rs, 1);
	syn = inject_send(&p, (p.cfg.psn_a + 1) & 0xFFFFFF, 0xFFFF);
	if (rc)
		CHECK(SYN_IS_ACK(syn), "reply to the right P_Key: syndrome %d, want an ACK",
		      syn);
	dp_poll(p.b.rcq, &wc, 5000, "B's receive of the injected packet");
	dp_check_wc(&wc, IBV_WC_SUCCESS, IBV_WC_RECV, 3, p.b.qp->qp_num,
		    "B's receive of the injected packet");
	CHECK_EQ(wc.byte_len, 64, "injected byte_len");
	snap_take(&d[1], &s1);
	CHECK_EQ(s1.bad_pkey - s0.bad_pkey, ARRAY_SIZE(bad), "B rx_drop_bad_pkey delta");
	err_expect_state(p.b.qp, IBV_QPS_RTS, "B's QP");
	err_expect_state(p.a.qp, IBV_QPS_RTS, "A's QP");
	NOTE("%zu packets with a wrong P_Key dropped and counted, no answer; the "
	     "next SEND and the right P_Key received", ARRAY_SIZE(bad));
	dp_teardown(&p, d);
}

static const struct dp_case cases[] = {
	/* seed-rules R1.5 */
	{ "RC_wrong_PKey_injected", test_bad_pkey, IBV_QPT_RC, 4 },
	{ "UC_wrong_PKey_injected", test_bad_pkey, IBV_QPT_UC, 4 },
};

int main(int argc, char **argv)
{
	return dp_main(argc, argv, cases, ARRAY_SIZE(cases));
}
