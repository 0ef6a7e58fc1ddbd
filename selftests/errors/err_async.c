// SPDX-License-Identifier: GPL-2.0-only
/*
 * err_async: the affiliated and unaffiliated asynchronous events of
 * seed-rules R3.9, each provoked and checked with the QPs' states:
 * COMM_EST (once per entry to RTR), SQ_DRAINED (RTS -> SQD -> RTS),
 * QP_LAST_WQE_REACHED (the SRQ keeps its WQEs, R3.3), CQ_ERR with
 * QP_FATAL on a CQ overrun, SRQ_LIMIT_REACHED (once, then re-armed),
 * PORT_ERR / PORT_ACTIVE with QP states unchanged, and R3.1: affiliated
 * events reach only the owning context, unaffiliated ones every context
 * (a second process). QP_ACCESS_ERR (also here) and QP_REQ_ERR are in err_resp;
 * GID_CHANGE and DEVICE_FATAL in device/gid_change.sh and
 * device/rmmod_with_devices.sh.
 */
#include <errno.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>
#include "err.h"

static void recv_slot(struct dp_pair *p, uint64_t id)
{
	struct ibv_sge rs = { (uintptr_t)p->b.buf.p + 256 * (id % 64), 256,
			      p->b.buf.mr->lkey };

	dp_post_recv(&p->b, id, &rs, 1);
}

static void send_a(struct dp_pair *p, uint64_t id)
{
	struct dp_sgl s;

	dp_sgl_make(&s, &p->a.buf, 0, 32, 1, 0);
	dp_send_wr(p, IBV_WR_SEND, id, &s, IBV_SEND_SIGNALED, 0, 0, 0);
}

/* A SEND from A that B receives (wr_id id on both sides). */
static void round_trip(struct dp_pair *p, uint64_t id, const char *what)
{
	recv_slot(p, id);
	send_a(p, id);
	err_expect_wc(p->a.scq, IBV_WC_SUCCESS, id, p->a.qp, what);
	err_expect_wc(p->b.rcq, IBV_WC_SUCCESS, id, p->b.qp, what);
}

/* B: RESET -> INIT -> RTR, expecting A's next PSN @rq_psn. */
static void b_reset_to_rtr(struct dp_pair *p, uint32_t rq_psn)
{
	struct ibv_qp_attr at = { .qp_state = IBV_QPS_RESET };
	struct dp_end *b = &p->b;

	CHECK(!ibv_modify_qp(b->qp, &at, IBV_QP_STATE), "to RESET: %m");
	memset(&at, 0, sizeof(at));
	at.qp_state = IBV_QPS_INIT;
	at.port_num = 1;
	at.qp_access_flags = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE;
	CHECK(!ibv_modify_qp(b->qp, &at, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
			     IBV_QP_PORT | IBV_QP_ACCESS_FLAGS), "to INIT: %m");
	memset(&at, 0, sizeof(at));
	at.qp_state = IBV_QPS_RTR;
	at.path_mtu = b->dev->port.active_mtu;
	at.dest_qp_num = p->a.qp->qp_num;
	at.rq_psn = rq_psn;
	at.max_dest_rd_atomic = 1;
	at.min_rnr_timer = 12;
	at.ah_attr.is_global = 1;
	at.ah_attr.port_num = 1;
	at.ah_attr.grh.dgid = p->a.dev->gid;
	at.ah_attr.grh.sgid_index = b->dev->gid_index;
	at.ah_attr.grh.hop_limit = 64;
	CHECK(!ibv_modify_qp(b->qp, &at, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
			     IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
			     IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER),
	      "to RTR: %m");
}

/*
 * COMM_EST (seed-rules R3.9): the first packet B receives in RTR raises
 * it once; the next packet does not; after RESET -> INIT -> RTR again the
 * first packet raises it again. A sees no event.
 */
static void test_comm_est(const struct dp_case *c)
{
	struct dp_cfg cfg = { .type = IBV_QPT_RC };
	struct dp_dev d[2];
	struct dp_pair p;
	int entry;

	dp_setup(&p, d, c->fam, &cfg);
	for (entry = 0; entry < 2; entry++) {
		b_reset_to_rtr(&p, (p.cfg.psn_a + 2 * entry) & 0xffffff);
		err_expect_no_event(p.b.dev->ctx, 50, "responder before traffic");
		round_trip(&p, 2 * entry, "first SEND in RTR");
		err_expect_event(p.b.dev->ctx, IBV_EVENT_COMM_EST, p.b.qp, 2000,
				 "first packet in RTR");
		err_expect_state(p.b.qp, IBV_QPS_RTR, "responder QP");
		round_trip(&p, 2 * entry + 1, "second SEND in RTR");
		err_expect_no_event(p.b.dev->ctx, 200, "second packet in RTR");
	}
	err_expect_no_event(p.a.dev->ctx, 50, "requester context");
	err_expect_state(p.a.qp, IBV_QPS_RTS, "requester QP");
	NOTE("COMM_EST once per entry to RTR (2 entries, 4 packets)");
	dp_teardown(&p, d);
}

/*
 * SQ_DRAINED (seed-rules R3.9, R4.1): RTS -> SQD with en_sqd_async_notify
 * while SENDs are queued: the event comes once, when what had started is
 * acknowledged; the QP is then in SQD, not draining, and has started
 * nothing more (the rest stays queued, uncompleted). SQD -> RTS sends the
 * rest, all in order.
 */
static void test_sq_drained(const struct dp_case *c)
{
	struct dp_cfg cfg = { .type = IBV_QPT_RC };
	struct ibv_qp_attr at = { .qp_state = IBV_QPS_SQD, .en_sqd_async_notify = 1 };
	struct ibv_qp_init_attr ia;
	struct dp_dev d[2];
	struct dp_pair p;
	struct ibv_wc wc;
	uint64_t i, done = 0;

	dp_setup(&p, d, c->fam, &cfg);
	for (i = 0; i < 8; i++) {
		recv_slot(&p, i);
		send_a(&p, i);
	}
	CHECK(!ibv_modify_qp(p.a.qp, &at, IBV_QP_STATE | IBV_QP_EN_SQD_ASYNC_NOTIFY),
	      "RTS -> SQD: %m");
	err_expect_event(p.a.dev->ctx, IBV_EVENT_SQ_DRAINED, p.a.qp, 10000, "SQD");
	CHECK(!ibv_query_qp(p.a.qp, &at, IBV_QP_STATE, &ia), "query_qp: %m");
	CHECK_EQ(at.qp_state, IBV_QPS_SQD, "state after SQ_DRAINED");
	CHECK_EQ(at.sq_draining, 0, "sq_draining after SQ_DRAINED");
	/* Drained: what started has completed, nothing more will now. */
	while (ibv_poll_cq(p.a.scq, 1, &wc) == 1) {
		dp_check_wc(&wc, IBV_WC_SUCCESS, IBV_WC_SEND, done, p.a.qp->qp_num,
			    "send completed before SQ_DRAINED");
		done++;
	}
	dp_expect_none(p.a.scq, 300, "send CQ in SQD after draining");
	for (i = 0; i < done; i++)
		err_expect_wc(p.b.rcq, IBV_WC_SUCCESS, i, p.b.qp, "receive");
	dp_expect_none(p.b.rcq, 100, "receive CQ: nothing sent in SQD");
	err_expect_no_event(p.a.dev->ctx, 100, "a second SQ_DRAINED");
	at.qp_state = IBV_QPS_RTS;
	CHECK(!ibv_modify_qp(p.a.qp, &at, IBV_QP_STATE), "SQD -> RTS: %m");
	for (i = done; i < 8; i++) {
		err_expect_wc(p.a.scq, IBV_WC_SUCCESS, i, p.a.qp, "send after RTS");
		err_expect_wc(p.b.rcq, IBV_WC_SUCCESS, i, p.b.qp, "receive after RTS");
	}
	round_trip(&p, 8, "SEND after SQD -> RTS");
	err_expect_state(p.b.qp, IBV_QPS_RTS, "responder QP");
	NOTE("%llu of 8 sends done before SQ_DRAINED, the rest after SQD -> RTS",
	     (unsigned long long)done);
	dp_teardown(&p, d);
}

/*
 * QP_LAST_WQE_REACHED (seed-rules R3.9) and "WRs on an SRQ stay" (R3.3):
 * B's QP on an SRQ goes to ERROR; the event comes; the SRQ's WQEs are not
 * flushed, and a second QP on the same SRQ receives into them in order.
 */
static void test_last_wqe(const struct dp_case *c)
{
	struct dp_cfg cfg = { .type = IBV_QPT_RC, .srq = 1 };
	struct dp_cfg cfg2 = { .type = IBV_QPT_RC };
	struct dp_dev d[2];
	struct dp_pair p, p2;
	struct ibv_sge rs;
	struct dp_sgl s;
	uint64_t i;

	dp_setup(&p, d, c->fam, &cfg);
	for (i = 0; i < 4; i++) {
		rs = (struct ibv_sge){ (uintptr_t)p.b.buf.p + 256 * i, 256,
				       p.b.buf.mr->lkey };
		dp_post_srq_recv(p.b.srq, i, &rs, 1);
	}
	send_a(&p, 0);
	err_expect_wc(p.a.scq, IBV_WC_SUCCESS, 0, p.a.qp, "send");
	err_expect_wc(p.b.rcq, IBV_WC_SUCCESS, 0, p.b.qp, "receive through the SRQ");
	err_modify_to_err(p.b.qp);
	err_expect_event(p.b.dev->ctx, IBV_EVENT_QP_LAST_WQE_REACHED, p.b.qp, 5000,
			 "SRQ QP in ERROR");
	dp_expect_none(p.b.rcq, 200, "receive CQ: the SRQ's WQEs are not flushed");
	cfg2.use_srq = p.b.srq;
	dp_pair_create(&p2, &d[0], &d[1], &cfg2);
	for (i = 1; i < 4; i++) {
		dp_sgl_make(&s, &p2.a.buf, 0, 32, 1, 0);
		dp_send_wr(&p2, IBV_WR_SEND, i, &s, IBV_SEND_SIGNALED, 0, 0, 0);
		err_expect_wc(p2.a.scq, IBV_WC_SUCCESS, i, p2.a.qp, "send on pair 2");
		err_expect_wc(p2.b.rcq, IBV_WC_SUCCESS, i, p2.b.qp,
			      "pair 2 receives into the SRQ's remaining WQEs");
	}
	err_expect_no_event(p.b.dev->ctx, 100, "responder context");
	dp_pair_destroy(&p2);
	NOTE("LAST_WQE_REACHED; 3 SRQ WQEs survived and served another QP");
	dp_teardown(&p, d);
}

/*
 * CQ_ERR (seed-rules R3.9): UD sends overrun A's send CQ; A gets CQ_ERR
 * for the CQ and QP_FATAL for the QP, which goes to ERROR. B is untouched.
 */
static void test_cq_overrun(const struct dp_case *c)
{
	struct dp_cfg cfg = { .type = IBV_QPT_UD, .max_send_wr = 16 };
	struct ibv_async_event ev;
	struct dp_dev d[2];
	struct dp_pair p;
	struct dp_sgl s;
	int sent = 0, i, cq_err = 0, qp_fatal = 0;

	dp_setup(&p, d, c->fam, &cfg);
	dp_sgl_make(&s, &p.a.buf, 0, 32, 1, 0);
	while (sent <= p.a.scq->cqe + 16) {
		for (i = 0; i < 8; i++, sent++)
			dp_send_wr(&p, IBV_WR_SEND, sent, &s, IBV_SEND_SIGNALED, 0, 0, 0);
		usleep(50000);	/* let them leave: the SQ has 16 slots */
	}
	while (!(cq_err && qp_fatal)) {
		CHECK(!ibv_get_async_event(p.a.dev->ctx, &ev), "get_async_event: %m");
		ibv_ack_async_event(&ev);
		if (ev.event_type == IBV_EVENT_CQ_ERR) {
			CHECK(ev.element.cq == p.a.scq, "CQ_ERR for another CQ");
			cq_err++;
		} else if (ev.event_type == IBV_EVENT_QP_FATAL) {
			CHECK(ev.element.qp == p.a.qp, "QP_FATAL for another QP");
			qp_fatal++;
		} else {
			FAIL("unexpected event %s", ibv_event_type_str(ev.event_type));
		}
	}
	err_expect_no_event(p.a.dev->ctx, 200, "requester context after");
	err_expect_state(p.a.qp, IBV_QPS_ERR, "QP on the overrun CQ");
	err_expect_state(p.b.qp, IBV_QPS_RTS, "peer QP");
	err_expect_no_event(p.b.dev->ctx, 50, "peer context");
	NOTE("%d sends into a CQ of %d: CQ_ERR and QP_FATAL once each", sent,
	     p.a.scq->cqe);
	dp_teardown(&p, d);
}

/*
 * SRQ_LIMIT_REACHED (seed-rules R3.9): armed at 4 on an SRQ holding 6
 * WQEs, it fires once when fewer than 4 remain, not again, and again
 * after ibv_modify_srq re-arms it.
 */
static void test_srq_limit(const struct dp_case *c)
{
	struct dp_cfg cfg = { .type = IBV_QPT_RC, .srq = 1 };
	struct ibv_srq_attr sa = { .srq_limit = 4 };
	struct dp_dev d[2];
	struct dp_pair p;
	struct ibv_sge rs;
	uint64_t i;

	dp_setup(&p, d, c->fam, &cfg);
	for (i = 0; i < 6; i++) {
		rs = (struct ibv_sge){ (uintptr_t)p.b.buf.p + 256 * i, 256,
				       p.b.buf.mr->lkey };
		dp_post_srq_recv(p.b.srq, i, &rs, 1);
	}
	CHECK(!ibv_modify_srq(p.b.srq, &sa, IBV_SRQ_LIMIT), "arm the limit: %m");
	for (i = 0; i < 2; i++) {
		send_a(&p, i);
		err_expect_wc(p.b.rcq, IBV_WC_SUCCESS, i, p.b.qp, "receive");
	}
	err_expect_no_event(p.b.dev->ctx, 200, "4 WQEs left, limit 4");
	send_a(&p, 2);
	err_expect_wc(p.b.rcq, IBV_WC_SUCCESS, 2, p.b.qp, "receive");
	err_expect_event(p.b.dev->ctx, IBV_EVENT_SRQ_LIMIT_REACHED, p.b.srq, 2000,
			 "3 WQEs left");
	send_a(&p, 3);
	err_expect_wc(p.b.rcq, IBV_WC_SUCCESS, 3, p.b.qp, "receive");
	err_expect_no_event(p.b.dev->ctx, 200, "not re-armed");
	sa.srq_limit = 3;
	CHECK(!ibv_modify_srq(p.b.srq, &sa, IBV_SRQ_LIMIT), "re-arm: %m");
	send_a(&p, 4);
	err_expect_wc(p.b.rcq, IBV_WC_SUCCESS, 4, p.b.qp, "receive");
	err_expect_event(p.b.dev->ctx, IBV_EVENT_SRQ_LIMIT_REACHED, p.b.srq, 2000,
			 "re-armed at 3, 1 WQE left");
	for (i = 0; i < 5; i++)
		err_expect_wc(p.a.scq, IBV_WC_SUCCESS, i, p.a.qp, "send");
	err_expect_state(p.b.qp, IBV_QPS_RTS, "responder QP");
	NOTE("limit event once at 3 < 4, again after re-arming");
	dp_teardown(&p, d);
}

static void run(const char *cmd)
{
	NOTE("%s", cmd);
	CHECK(system(cmd) == 0, "%s failed", cmd);
}

/*
 * PORT_ERR / PORT_ACTIVE (seed-rules R3.9) with QP states unchanged, and
 * R3.1: a second process with its own context on device A gets the port
 * events (unaffiliated) but not the QP_ACCESS_ERR of a QP it does not own
 * (affiliated).
 */
static void test_port_two_procs(const struct dp_case *c)
{
	struct dp_cfg cfg = { .type = IBV_QPT_RC };
	const char *ns = getenv("NS_A"), *ifn = getenv("SNIFF_IF");
	struct dp_dev d[2], other;
	int ready[2], done[2], st;
	struct dp_pair p;
	char cmd[256], ch;
	pid_t pid;

	if (!ns || !ifn)
		dp_skip("needs NS_A and SNIFF_IF (sroce target)");
	dp_setup(&p, d, c->fam, &cfg);
	CHECK(!pipe(ready) && !pipe(done), "pipe: %m");
	pid = fork();
	CHECK(pid >= 0, "fork: %m");
	if (!pid) {
		/* The other process: its own context on device A. */
		dp_case_name = "other process";
		dp_open(&other, 0, c->fam);
		CHECK(write(ready[1], "r", 1) == 1, "write");
		err_expect_event(other.ctx, IBV_EVENT_PORT_ERR, NULL, 10000,
				 "other process: link down");
		err_expect_event(other.ctx, IBV_EVENT_PORT_ACTIVE, NULL, 10000,
				 "other process: link up");
		CHECK(read(done[0], &ch, 1) == 1, "read");
		err_expect_no_event(other.ctx, 300,
				    "other process: the owner's QP_ACCESS_ERR is not ours");
		dp_close(&other);
		_exit(0);
	}
	CHECK(read(ready[0], &ch, 1) == 1, "child not ready");
	snprintf(cmd, sizeof(cmd), "ip -n %s link set %s down", ns, ifn);
	run(cmd);
	err_expect_event(p.a.dev->ctx, IBV_EVENT_PORT_ERR, NULL, 10000, "link down");
	err_expect_state(p.a.qp, IBV_QPS_RTS, "QP A with the port down");
	err_expect_state(p.b.qp, IBV_QPS_RTS, "QP B with the peer's port down");
	snprintf(cmd, sizeof(cmd), "ip -n %s link set %s up", ns, ifn);
	run(cmd);
	err_expect_event(p.a.dev->ctx, IBV_EVENT_PORT_ACTIVE, NULL, 10000, "link up");
	err_expect_state(p.a.qp, IBV_QPS_RTS, "QP A after the port is back");
	/* Affiliated: B WRITEs to a dead R_Key at A, A's QP_ACCESS_ERR. */
	{
		struct ibv_sge ls = { (uintptr_t)p.b.buf.p, 16, p.b.buf.mr->lkey };
		struct ibv_send_wr wr = { .wr_id = 9, .sg_list = &ls, .num_sge = 1,
					  .opcode = IBV_WR_RDMA_WRITE,
					  .send_flags = IBV_SEND_SIGNALED };

		wr.wr.rdma.remote_addr = (uintptr_t)p.a.buf.p;
		wr.wr.rdma.rkey = err_dead_key(p.a.dev->pd, p.a.buf.p, 4096, 1);
		dp_post_send(&p.b, &wr);
		err_expect_wc(p.b.scq, IBV_WC_REM_ACCESS_ERR, 9, p.b.qp, "B's WRITE");
		err_expect_event(p.a.dev->ctx, IBV_EVENT_QP_ACCESS_ERR, p.a.qp, 5000,
				 "owner of the QP");
	}
	CHECK(write(done[1], "d", 1) == 1, "write");
	CHECK(waitpid(pid, &st, 0) == pid, "waitpid");
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0, "the other process failed");
	/* Traffic works after the link came back (a fresh pair). */
	dp_pair_destroy(&p);
	dp_pair_create(&p, &d[0], &d[1], &cfg);
	round_trip(&p, 1, "SEND after link up");
	NOTE("port events in both processes, QPs stayed RTS");
	dp_teardown(&p, d);
}

static const struct dp_case cases[] = {
	{ "COMM_EST_once_per_RTR", test_comm_est, IBV_QPT_RC, 4 },
	{ "SQ_DRAINED", test_sq_drained, IBV_QPT_RC, 4 },
	{ "LAST_WQE_REACHED_srq_wqes_stay", test_last_wqe, IBV_QPT_RC, 4 },
	{ "CQ_ERR_overrun_QP_FATAL", test_cq_overrun, IBV_QPT_UD, 4 },
	{ "SRQ_LIMIT_REACHED_rearm", test_srq_limit, IBV_QPT_RC, 4 },
	{ "PORT_ERR_ACTIVE_two_processes", test_port_two_procs, IBV_QPT_RC, 4 },
};

int main(int argc, char **argv)
{
	return dp_main(argc, argv, cases, ARRAY_SIZE(cases));
}
