// SPDX-License-Identifier: GPL-2.0-only
/*
 * mcast: UD multicast (seed-rules R1.1 multicast capable, R1.4 QPN
 * 0xFFFFFF). Two UD pairs share the devices; B1, B2 (device B) and, for the
 * loop case, A2 (the sender's own device) attach to a group; A1 sends to
 * QPN 0xFFFFFF at the group's address. Every attached QP gets the message,
 * byte for byte with A1 as source; a detached QP gets nothing; a wrong
 * Q_Key reaches nobody (R1.5). Attach and detach errors are the errnos of
 * the kernel's drivers (EINVAL).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <unistd.h>
#include "dp.h"

#define MSG 200
#define MC_GROUP 0	/* dp_mgid(): 239.1.2.3 or ff0e::5:6:7 */

static struct ibv_ah *mcast_ah(struct dp_end *e, const union ibv_gid *mgid)
{
	struct ibv_ah_attr at = {
		.is_global = 1,
		.port_num = 1,
		.grh = { .dgid = *mgid, .sgid_index = e->dev->gid_index,
			 .hop_limit = 8 },
	};
	struct ibv_ah *ah = ibv_create_ah(e->dev->pd, &at);

	CHECK(ah, "create_ah to the group: %s", strerror(errno));
	return ah;
}

static void post_rx(struct dp_end *e, uint64_t id)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)e->buf.p, .length = DP_GRH + MSG,
		.lkey = e->buf.mr->lkey,
	};

	memset(e->buf.p, 0x5a, DP_GRH + MSG);
	dp_post_recv(e, id, &sge, 1);
}

static void send_to_group(struct dp_pair *p, struct ibv_ah *ah, uint32_t qkey,
			  uint32_t seed)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)p->a.buf.p, .length = MSG,
		.lkey = p->a.buf.mr->lkey,
	};
	struct ibv_send_wr wr = {
		.wr_id = seed, .sg_list = &sge, .num_sge = 1,
		.opcode = IBV_WR_SEND, .send_flags = IBV_SEND_SIGNALED,
		.wr.ud = { .ah = ah, .remote_qpn = 0xffffff, .remote_qkey = qkey },
	};
	struct ibv_wc wc;
	size_t i;

	for (i = 0; i < MSG; i++)
		p->a.buf.p[i] = dp_pat(i, seed);
	dp_post_send(&p->a, &wr);
	dp_poll(p->a.scq, &wc, DP_TIMEOUT_MS, "multicast send");
	dp_check_wc(&wc, IBV_WC_SUCCESS, IBV_WC_SEND, seed, p->a.qp->qp_num,
		    "multicast send");
}

static void expect_rx(struct dp_end *e, const struct dp_pair *from, uint64_t id,
		      uint32_t seed, const char *who)
{
	struct ibv_wc wc;

	dp_poll(e->rcq, &wc, DP_TIMEOUT_MS, who);
	dp_check_wc(&wc, IBV_WC_SUCCESS, IBV_WC_RECV, id, e->qp->qp_num, who);
	CHECK_EQ(wc.byte_len, DP_GRH + MSG, "multicast receive byte_len");
	CHECK_EQ(wc.src_qp, from->a.qp->qp_num, "multicast receive src_qp");
	CHECK(wc.wc_flags & IBV_WC_GRH, "%s: no GRH flag", who);
	dp_check_range(e->buf.p + DP_GRH, MSG, seed, who);
}

static void attach(struct dp_end *e, const union ibv_gid *g)
{
	CHECK(!ibv_attach_mcast(e->qp, g, 0), "attach_mcast: %s", strerror(errno));
}

static void detach(struct dp_end *e, const union ibv_gid *g)
{
	CHECK(!ibv_detach_mcast(e->qp, g, 0), "detach_mcast: %s", strerror(errno));
}

/* Attached QPs on the far device (and with loop, on the sender's) receive. */
static void test_fanout(const struct dp_case *c)
{
	struct dp_cfg cfg = { .type = IBV_QPT_UD };
	struct dp_dev d[2];
	struct dp_pair p, q;
	union ibv_gid g;
	struct ibv_ah *ah;
	int loop = c->arg;

	dp_setup(&p, d, c->fam, &cfg);
	dp_pair_create(&q, &d[0], &d[1], &cfg);
	dp_mgid(c->fam, MC_GROUP, &g);
	ah = mcast_ah(&p.a, &g);
	attach(&p.b, &g);
	attach(&q.b, &g);
	if (loop)
		attach(&q.a, &g);
	/* Let the IP group join settle (MLD/IGMP reports are asynchronous). */
	usleep(200 * 1000);

	post_rx(&p.b, 1);
	post_rx(&q.b, 2);
	if (loop)
		post_rx(&q.a, 3);
	send_to_group(&p, ah, p.qkey, 11);
	expect_rx(&p.b, &p, 1, 11, "B1 (attached)");
	expect_rx(&q.b, &p, 2, 11, "B2 (attached)");
	if (loop)
		expect_rx(&q.a, &p, 3, 11, "A2 (attached, sender's device)");
	dp_expect_none(p.a.rcq, 100, "A1 (not attached)");

	/* Detached: B2 gets no more; B1 still does. */
	detach(&q.b, &g);
	if (loop)
		detach(&q.a, &g);
	post_rx(&p.b, 6);
	post_rx(&q.b, 4);
	send_to_group(&p, ah, p.qkey, 12);
	expect_rx(&p.b, &p, 6, 12, "B1 after B2 left");
	dp_expect_none(q.b.rcq, 300, "B2 after detach");
	if (loop)
		dp_expect_none(q.a.rcq, 100, "A2 after detach");

	/* seed-rules R1.5: a wrong Q_Key reaches no member. */
	post_rx(&p.b, 5);
	send_to_group(&p, ah, p.qkey ^ 1, 13);
	dp_expect_none(p.b.rcq, 300, "B1, wrong Q_Key");

	/* The last member leaves: the group is gone, nothing arrives. */
	detach(&p.b, &g);
	send_to_group(&p, ah, p.qkey, 14);
	dp_expect_none(p.b.rcq, 300, "B1 after the group emptied");

	ibv_destroy_ah(ah);
	dp_pair_destroy(&q);
	dp_teardown(&p, d);
}

static void test_errors(const struct dp_case *c)
{
	struct dp_cfg ud = { .type = IBV_QPT_UD }, rc = { .type = IBV_QPT_RC };
	struct dp_dev d[2];
	struct dp_pair p, r;
	union ibv_gid g, uni;

	dp_setup(&p, d, c->fam, &ud);
	dp_pair_create(&r, &d[0], &d[1], &rc);
	dp_mgid(c->fam, MC_GROUP, &g);
	uni = p.a.dev->gid;

	/* Only UD QPs join groups (IBA 10.5); only multicast GIDs are groups. */
	CHECK_EQ(ibv_attach_mcast(r.a.qp, &g, 0), EINVAL, "attach an RC QP");
	CHECK_EQ(ibv_attach_mcast(p.a.qp, &uni, 0), EINVAL, "attach a unicast GID");
	CHECK_EQ(ibv_detach_mcast(p.a.qp, &g, 0), EINVAL, "detach, never attached");
	/* Attaching twice is one attachment: one detach ends it. */
	attach(&p.a, &g);
	attach(&p.a, &g);
	detach(&p.a, &g);
	CHECK_EQ(ibv_detach_mcast(p.a.qp, &g, 0), EINVAL, "detach twice");
	/* An attached QP cannot be destroyed (uverbs: EBUSY) until it leaves. */
	attach(&p.b, &g);
	CHECK_EQ(ibv_destroy_qp(p.b.qp), EBUSY, "destroy_qp while attached");
	detach(&p.b, &g);
	dp_pair_destroy(&r);
	dp_teardown(&p, d);
}

static const struct dp_case cases[] = {
	{ "UD_mcast_fanout_v4", test_fanout, IBV_QPT_UD, 4, 0, 0 },
	{ "UD_mcast_fanout_v6", test_fanout, IBV_QPT_UD, 6, 0, 0 },
	{ "UD_mcast_loop_to_sender_device_v4", test_fanout, IBV_QPT_UD, 4, 0, 1 },
	{ "UD_mcast_loop_to_sender_device_v6", test_fanout, IBV_QPT_UD, 6, 0, 1 },
	{ "UD_mcast_attach_errors_v4", test_errors, IBV_QPT_UD, 4 },
	{ "UD_mcast_attach_errors_v6", test_errors, IBV_QPT_UD, 6 },
};

int main(int argc, char **argv)
{
	return dp_main(argc, argv, cases, ARRAY_SIZE(cases));
}
