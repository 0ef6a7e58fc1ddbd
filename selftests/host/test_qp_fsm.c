// SPDX-License-Identifier: GPL-2.0-only
/*
 * Host tests for kernel/core/qp_fsm.c: seed-rules R3.2, R3.3, R3.8, R4.1,
 * R4.2, against the semantics of the kernel's ib_modify_qp_is_ok().
 */
#include "harness.h"
#include "qp_fsm.h"

#define RESET	SROCE_QPS_RESET
#define INIT	SROCE_QPS_INIT
#define RTR	SROCE_QPS_RTR
#define RTS	SROCE_QPS_RTS
#define SQD	SROCE_QPS_SQD
#define SQE	SROCE_QPS_SQE
#define ERR	SROCE_QPS_ERR
#define RC	SROCE_QPT_RC
#define UC	SROCE_QPT_UC
#define UD	SROCE_QPT_UD
#define XI	SROCE_QPT_XRC_INI
#define XT	SROCE_QPT_XRC_TGT
#define A(x)	SROCE_QPA_##x

TEST(attr_bits_equal_ib_qp_attr_mask)
{
	/* values of enum ib_qp_attr_mask (include/rdma/ib_verbs.h) */
	ASSERT_EQ(A(STATE), 1UL);
	ASSERT_EQ(A(CUR_STATE), 1UL << 1);
	ASSERT_EQ(A(EN_SQD_ASYNC_NOTIFY), 1UL << 2);
	ASSERT_EQ(A(ACCESS_FLAGS), 1UL << 3);
	ASSERT_EQ(A(PKEY_INDEX), 1UL << 4);
	ASSERT_EQ(A(PORT), 1UL << 5);
	ASSERT_EQ(A(QKEY), 1UL << 6);
	ASSERT_EQ(A(AV), 1UL << 7);
	ASSERT_EQ(A(PATH_MTU), 1UL << 8);
	ASSERT_EQ(A(TIMEOUT), 1UL << 9);
	ASSERT_EQ(A(RETRY_CNT), 1UL << 10);
	ASSERT_EQ(A(RNR_RETRY), 1UL << 11);
	ASSERT_EQ(A(RQ_PSN), 1UL << 12);
	ASSERT_EQ(A(MAX_QP_RD_ATOMIC), 1UL << 13);
	ASSERT_EQ(A(ALT_PATH), 1UL << 14);
	ASSERT_EQ(A(MIN_RNR_TIMER), 1UL << 15);
	ASSERT_EQ(A(SQ_PSN), 1UL << 16);
	ASSERT_EQ(A(MAX_DEST_RD_ATOMIC), 1UL << 17);
	ASSERT_EQ(A(PATH_MIG_STATE), 1UL << 18);
	ASSERT_EQ(A(CAP), 1UL << 19);
	ASSERT_EQ(A(DEST_QPN), 1UL << 20);
}

TEST(state_names)
{
	static const char * const names[] = {
		"RESET", "INIT", "RTR", "RTS", "SQD", "SQE", "ERR"
	};
	int s;

	ASSERT_EQ(SROCE_QPS_COUNT, 7);
	for (s = 0; s < SROCE_QPS_COUNT; s++)
		ASSERT_STREQ(sroce_qp_state_name(s), names[s]);
	ASSERT_STREQ(sroce_qp_state_name(SROCE_QPS_COUNT), "UNKNOWN");
	/* same numbering as enum ib_qp_state */
	ASSERT_EQ(RESET, 0);
	ASSERT_EQ(ERR, 6);
}

/* seed-rules R4.1: the edge matrix, forbidden edges included */
TEST(edge_matrix)
{
	static const bool valid[7][7] = {
		/*           RESET  INIT   RTR    RTS    SQD    SQE    ERR */
		[RESET] = { 1,     1,     0,     0,     0,     0,     1 },
		[INIT]  = { 1,     1,     1,     0,     0,     0,     1 },
		[RTR]   = { 1,     0,     0,     1,     0,     0,     1 },
		[RTS]   = { 1,     0,     0,     1,     1,     0,     1 },
		[SQD]   = { 1,     0,     0,     1,     1,     0,     1 },
		[SQE]   = { 1,     0,     0,     1,     0,     0,     1 },
		[ERR]   = { 1,     0,     0,     0,     0,     0,     1 },
	};
	int c, n, t;

	for (c = 0; c < 7; c++) {
		for (n = 0; n < 7; n++) {
			EXPECT_EQ(sroce_qp_edge_valid(c, n), valid[c][n]);
			for (t = 0; t < SROCE_QPT_COUNT; t++) {
				u32 req = sroce_qp_req_attrs(t, c, n);
				int ret = sroce_qp_check_modify(t, c, n,
								req | A(STATE));

				EXPECT_EQ(ret, valid[c][n] ? 0 : -EINVAL);
			}
		}
	}
	ASSERT_FALSE(sroce_qp_edge_valid(SROCE_QPS_COUNT, RESET));
	ASSERT_FALSE(sroce_qp_edge_valid(RESET, SROCE_QPS_COUNT));
}

/* seed-rules R4.1: required masks per edge and QP type */
TEST(required_attrs)
{
	ASSERT_EQ(sroce_qp_req_attrs(RC, RESET, INIT),
		  A(PKEY_INDEX) | A(PORT) | A(ACCESS_FLAGS));
	ASSERT_EQ(sroce_qp_req_attrs(UC, RESET, INIT),
		  A(PKEY_INDEX) | A(PORT) | A(ACCESS_FLAGS));
	ASSERT_EQ(sroce_qp_req_attrs(UD, RESET, INIT),
		  A(PKEY_INDEX) | A(PORT) | A(QKEY));
	/* min_rnr_timer and max_dest_rd_atomic at INIT->RTR */
	ASSERT_EQ(sroce_qp_req_attrs(RC, INIT, RTR),
		  A(AV) | A(PATH_MTU) | A(DEST_QPN) | A(RQ_PSN) |
		  A(MAX_DEST_RD_ATOMIC) | A(MIN_RNR_TIMER));
	ASSERT_EQ(sroce_qp_req_attrs(UC, INIT, RTR),
		  A(AV) | A(PATH_MTU) | A(DEST_QPN) | A(RQ_PSN));
	ASSERT_EQ(sroce_qp_req_attrs(UD, INIT, RTR), 0U);
	/* timeout, retry_cnt, rnr_retry, max_rd_atomic at RTR->RTS */
	ASSERT_EQ(sroce_qp_req_attrs(RC, RTR, RTS),
		  A(SQ_PSN) | A(TIMEOUT) | A(RETRY_CNT) | A(RNR_RETRY) |
		  A(MAX_QP_RD_ATOMIC));
	ASSERT_EQ(sroce_qp_req_attrs(UC, RTR, RTS), A(SQ_PSN));
	ASSERT_EQ(sroce_qp_req_attrs(UD, RTR, RTS), A(SQ_PSN));
	ASSERT_EQ(sroce_qp_req_attrs(RC, RTS, SQD), 0U);
	ASSERT_EQ(sroce_qp_req_attrs(RC, SQD, RTS), 0U);
	ASSERT_EQ(sroce_qp_req_attrs(UD, SQE, RTS), 0U);
}

/*
 * XRC, typed from the XRC_INI and XRC_TGT columns of the kernel's
 * qp_state_table: the initiator needs what an RC requester needs, the
 * target what an RC responder needs (and a timeout, SQ PSN at RTS).
 */
TEST(xrc_attrs)
{
	u32 tgt_sqd = A(PORT) | A(AV) | A(TIMEOUT) | A(MAX_DEST_RD_ATOMIC) |
		      A(ALT_PATH) | A(ACCESS_FLAGS) | A(PKEY_INDEX) |
		      A(MIN_RNR_TIMER) | A(PATH_MIG_STATE);
	u32 ini_sqd = A(PORT) | A(AV) | A(TIMEOUT) | A(RETRY_CNT) |
		      A(RNR_RETRY) | A(MAX_QP_RD_ATOMIC) | A(ALT_PATH) |
		      A(ACCESS_FLAGS) | A(PKEY_INDEX) | A(PATH_MIG_STATE);
	int t;

	for (t = XI; t <= XT; t++) {
		ASSERT_EQ(sroce_qp_req_attrs(t, RESET, INIT),
			  A(PKEY_INDEX) | A(PORT) | A(ACCESS_FLAGS));
		ASSERT_EQ(sroce_qp_opt_attrs(t, INIT, INIT),
			  A(PKEY_INDEX) | A(PORT) | A(ACCESS_FLAGS));
		ASSERT_EQ(sroce_qp_opt_attrs(t, INIT, RTR),
			  A(ALT_PATH) | A(ACCESS_FLAGS) | A(PKEY_INDEX));
		ASSERT_EQ(sroce_qp_opt_attrs(t, RTS, SQD),
			  A(EN_SQD_ASYNC_NOTIFY));
		ASSERT_EQ(sroce_qp_opt_attrs(t, SQE, RTS), 0U);
	}
	ASSERT_EQ(sroce_qp_req_attrs(XI, INIT, RTR),
		  A(AV) | A(PATH_MTU) | A(DEST_QPN) | A(RQ_PSN));
	ASSERT_EQ(sroce_qp_req_attrs(XT, INIT, RTR),
		  A(AV) | A(PATH_MTU) | A(DEST_QPN) | A(RQ_PSN) |
		  A(MAX_DEST_RD_ATOMIC) | A(MIN_RNR_TIMER));
	ASSERT_EQ(sroce_qp_req_attrs(XI, RTR, RTS),
		  A(TIMEOUT) | A(RETRY_CNT) | A(RNR_RETRY) | A(SQ_PSN) |
		  A(MAX_QP_RD_ATOMIC));
	ASSERT_EQ(sroce_qp_req_attrs(XT, RTR, RTS), A(TIMEOUT) | A(SQ_PSN));
	ASSERT_EQ(sroce_qp_opt_attrs(XI, RTR, RTS),
		  A(CUR_STATE) | A(ALT_PATH) | A(ACCESS_FLAGS) |
		  A(PATH_MIG_STATE));
	ASSERT_EQ(sroce_qp_opt_attrs(XT, RTR, RTS),
		  A(CUR_STATE) | A(ALT_PATH) | A(ACCESS_FLAGS) |
		  A(MIN_RNR_TIMER) | A(PATH_MIG_STATE));
	ASSERT_EQ(sroce_qp_opt_attrs(XI, RTS, RTS),
		  sroce_qp_opt_attrs(XI, SQD, RTS));
	ASSERT_EQ(sroce_qp_opt_attrs(XT, RTS, RTS),
		  sroce_qp_opt_attrs(XT, SQD, RTS));
	ASSERT_EQ(sroce_qp_opt_attrs(XI, RTS, RTS),
		  sroce_qp_opt_attrs(XI, RTR, RTS));
	ASSERT_EQ(sroce_qp_opt_attrs(XT, RTS, RTS),
		  sroce_qp_opt_attrs(XT, RTR, RTS));
	ASSERT_EQ(sroce_qp_opt_attrs(XI, SQD, SQD), ini_sqd);
	ASSERT_EQ(sroce_qp_opt_attrs(XT, SQD, SQD), tgt_sqd);
	/* a Q_Key is no XRC attribute */
	ASSERT_EQ(sroce_qp_check_modify(XT, RESET, INIT,
					A(STATE) | A(PKEY_INDEX) | A(PORT) |
					A(ACCESS_FLAGS) | A(QKEY)), -EINVAL);
}

TEST(optional_attrs)
{
	ASSERT_EQ(sroce_qp_opt_attrs(RC, INIT, RTR),
		  A(ALT_PATH) | A(ACCESS_FLAGS) | A(PKEY_INDEX));
	ASSERT_EQ(sroce_qp_opt_attrs(UD, INIT, RTR), A(PKEY_INDEX) | A(QKEY));
	ASSERT_EQ(sroce_qp_opt_attrs(RC, RTR, RTS),
		  A(CUR_STATE) | A(ALT_PATH) | A(ACCESS_FLAGS) |
		  A(MIN_RNR_TIMER) | A(PATH_MIG_STATE));
	ASSERT_EQ(sroce_qp_opt_attrs(UD, RTS, RTS), A(CUR_STATE) | A(QKEY));
	ASSERT_EQ(sroce_qp_opt_attrs(RC, RTS, SQD), A(EN_SQD_ASYNC_NOTIFY));
	ASSERT_EQ(sroce_qp_opt_attrs(UC, SQE, RTS),
		  A(CUR_STATE) | A(ACCESS_FLAGS));
	ASSERT_EQ(sroce_qp_opt_attrs(RC, SQE, RTS), 0U);
	ASSERT_EQ(sroce_qp_opt_attrs(RC, SQD, SQD) & A(MAX_DEST_RD_ATOMIC),
		  A(MAX_DEST_RD_ATOMIC));
	ASSERT_EQ(sroce_qp_opt_attrs(RC, RTS, RESET), 0U);
	ASSERT_EQ(sroce_qp_opt_attrs(RC, RESET, RTS), 0U);	/* no edge */
}

/* Every required bit is needed; nothing outside req|opt|STATE passes. */
TEST(check_modify_mask_rules)
{
	int c, n, t, bit;

	for (t = 0; t < SROCE_QPT_COUNT; t++) {
		for (c = 0; c < 7; c++) {
			for (n = 0; n < 7; n++) {
				u32 req = sroce_qp_req_attrs(t, c, n);
				u32 opt = sroce_qp_opt_attrs(t, c, n);

				if (!sroce_qp_edge_valid(c, n))
					continue;
				EXPECT_EQ(sroce_qp_check_modify(t, c, n,
							req | opt | A(STATE)), 0);
				for (bit = 0; bit <= 25; bit++) {
					u32 b = 1U << bit;

					if (req & b)
						EXPECT_EQ(sroce_qp_check_modify(t, c, n,
								req & ~b), -EINVAL);
					else if (!(opt & b) && b != A(STATE))
						EXPECT_EQ(sroce_qp_check_modify(t, c, n,
								req | b), -EINVAL);
				}
			}
		}
	}
}

TEST(check_modify_examples)
{
	u32 rtr = A(STATE) | A(AV) | A(PATH_MTU) | A(DEST_QPN) | A(RQ_PSN) |
		  A(MAX_DEST_RD_ATOMIC) | A(MIN_RNR_TIMER);

	ASSERT_EQ(sroce_qp_check_modify(RC, INIT, RTR, rtr), 0);
	ASSERT_EQ(sroce_qp_check_modify(RC, INIT, RTR, rtr & ~A(MIN_RNR_TIMER)),
		  -EINVAL);
	/* UC does not take min_rnr_timer / max_dest_rd_atomic */
	ASSERT_EQ(sroce_qp_check_modify(UC, INIT, RTR, rtr), -EINVAL);
	/* UD needs a Q_Key at RESET->INIT, RC must not get one */
	ASSERT_EQ(sroce_qp_check_modify(UD, RESET, INIT,
					A(STATE) | A(PKEY_INDEX) | A(PORT) |
					A(QKEY)), 0);
	ASSERT_EQ(sroce_qp_check_modify(RC, RESET, INIT,
					A(STATE) | A(PKEY_INDEX) | A(PORT) |
					A(QKEY)), -EINVAL);
	/* CUR_STATE only from RTR, RTS, SQD, SQE */
	ASSERT_EQ(sroce_qp_check_modify(RC, RTS, RTS, A(CUR_STATE)), 0);
	ASSERT_EQ(sroce_qp_check_modify(RC, INIT, INIT, A(CUR_STATE)), -EINVAL);
	ASSERT_EQ(sroce_qp_check_modify(RC, RTS, RESET, A(CUR_STATE)), -EINVAL);
	/* any -> RESET / ERR take nothing but the state */
	ASSERT_EQ(sroce_qp_check_modify(RC, RTS, ERR, A(STATE)), 0);
	ASSERT_EQ(sroce_qp_check_modify(UD, SQE, RESET, A(STATE)), 0);
	ASSERT_EQ(sroce_qp_check_modify(RC, RTS, ERR, A(STATE) | A(QKEY)),
		  -EINVAL);
	/* forbidden edges */
	ASSERT_EQ(sroce_qp_check_modify(RC, RESET, RTR, A(STATE)), -EINVAL);
	ASSERT_EQ(sroce_qp_check_modify(RC, INIT, RTS, A(STATE)), -EINVAL);
	ASSERT_EQ(sroce_qp_check_modify(RC, RTR, SQD, A(STATE)), -EINVAL);
	ASSERT_EQ(sroce_qp_check_modify(RC, RTS, SQE, A(STATE)), -EINVAL);
	ASSERT_EQ(sroce_qp_check_modify(RC, ERR, INIT, A(STATE)), -EINVAL);
	ASSERT_EQ(sroce_qp_check_modify(RC, RTS, RTR, A(STATE)), -EINVAL);
	ASSERT_EQ(sroce_qp_check_modify(UD, RTR, RTR, A(STATE)), -EINVAL);
	/* bad arguments */
	ASSERT_EQ(sroce_qp_check_modify(SROCE_QPT_COUNT, RESET, RESET, 0),
		  -EINVAL);
	ASSERT_EQ(sroce_qp_check_modify(RC, SROCE_QPS_COUNT, RESET, 0),
		  -EINVAL);
}

/* seed-rules R4.1: the whole RC life cycle with minimal masks */
TEST(rc_lifecycle)
{
	ASSERT_EQ(sroce_qp_check_modify(RC, RESET, INIT, A(STATE) |
					sroce_qp_req_attrs(RC, RESET, INIT)), 0);
	ASSERT_EQ(sroce_qp_check_modify(RC, INIT, RTR, A(STATE) |
					sroce_qp_req_attrs(RC, INIT, RTR)), 0);
	ASSERT_EQ(sroce_qp_check_modify(RC, RTR, RTS, A(STATE) |
					sroce_qp_req_attrs(RC, RTR, RTS)), 0);
	ASSERT_EQ(sroce_qp_check_modify(RC, RTS, SQD, A(STATE) |
					A(EN_SQD_ASYNC_NOTIFY)), 0);
	ASSERT_EQ(sroce_qp_check_modify(RC, SQD, SQD, A(TIMEOUT)), 0);
	ASSERT_EQ(sroce_qp_check_modify(RC, SQD, RTS, A(STATE)), 0);
	ASSERT_EQ(sroce_qp_check_modify(RC, RTS, ERR, A(STATE)), 0);
	ASSERT_EQ(sroce_qp_check_modify(RC, ERR, RESET, A(STATE)), 0);
}

/* seed-rules R3.8 (posting) and R4.2 (receiving) per state */
TEST(state_caps)
{
	int s;

	for (s = 0; s < SROCE_QPS_COUNT; s++) {
		u32 caps = sroce_qp_state_caps(s);
		bool can_send = s == RTS || s == SQD || s == SQE || s == ERR;
		bool rx = s == RTR || s == RTS || s == SQD || s == SQE;

		EXPECT_EQ(!!(caps & SROCE_QPCAP_POST_SEND), can_send);
		EXPECT_EQ(!!(caps & SROCE_QPCAP_POST_RECV), s != RESET);
		EXPECT_EQ(!!(caps & SROCE_QPCAP_PROCESS_RECV), rx);
		EXPECT_EQ(!!(caps & SROCE_QPCAP_PROCESS_NEXT_SEND), s == RTS);
		EXPECT_EQ(!!(caps & SROCE_QPCAP_PROCESS_SEND),
			  s == RTS || s == SQD);
		/* R3.3: ERR flushes both queues, SQE only the send queue */
		EXPECT_EQ(!!(caps & SROCE_QPCAP_FLUSH_SEND),
			  s == SQE || s == ERR);
		EXPECT_EQ(!!(caps & SROCE_QPCAP_FLUSH_RECV), s == ERR);
	}
	ASSERT_EQ(sroce_qp_state_caps(SROCE_QPS_COUNT), 0U);
}

/* seed-rules R3.2: completion errors -> ERR (RC) or SQE (UC/UD send) */
TEST(state_on_error)
{
	ASSERT_EQ(sroce_qp_state_on_error(RC, RTS, true), ERR);
	ASSERT_EQ(sroce_qp_state_on_error(RC, RTS, false), ERR);
	ASSERT_EQ(sroce_qp_state_on_error(RC, SQD, true), ERR);
	ASSERT_EQ(sroce_qp_state_on_error(UC, RTS, true), SQE);
	ASSERT_EQ(sroce_qp_state_on_error(UD, RTS, true), SQE);
	ASSERT_EQ(sroce_qp_state_on_error(UD, SQD, true), SQE);
	ASSERT_EQ(sroce_qp_state_on_error(UC, RTS, false), ERR);
	ASSERT_EQ(sroce_qp_state_on_error(UC, RTR, false), ERR);
	ASSERT_EQ(sroce_qp_state_on_error(UD, SQE, false), ERR);
	ASSERT_EQ(sroce_qp_state_on_error(UC, RESET, true), RESET);
	/* XRC is reliable: a send-side error is the whole QP's, as RC */
	ASSERT_EQ(sroce_qp_state_on_error(XI, RTS, true), ERR);
	ASSERT_EQ(sroce_qp_state_on_error(XT, RTS, false), ERR);
}
