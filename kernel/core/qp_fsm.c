// SPDX-License-Identifier: GPL-2.0-only
/*
 * qp_fsm.c - QP state transition table, attribute masks and per-state
 * capabilities.
 *
 * The table mirrors the RC/UC/UD/XRC_INI/XRC_TGT columns of
 * qp_state_table in drivers/infiniband/core/verbs.c, plus RESET -> ERR, which IBA allows
 * (any state may go to Error).  Any state -> RESET and -> ERR need
 * no attributes.  SQE is only ever entered by the QP itself (R3.2) and
 * left by a modify to RTS; RC never reaches SQE, so its SQE -> RTS entry
 * has no optional attributes, exactly like the kernel's table.
 */
#include "qp_fsm.h"

struct qp_edge {
	bool valid;
	u32 req[SROCE_QPT_COUNT];
	u32 opt[SROCE_QPT_COUNT];
};

#define QA(x)		SROCE_QPA_##x
#define T_RC		SROCE_QPT_RC
#define T_UC		SROCE_QPT_UC
#define T_UD		SROCE_QPT_UD
#define T_XI		SROCE_QPT_XRC_INI
#define T_XT		SROCE_QPT_XRC_TGT
#define EDGE_ANY	{ .valid = true }

/* Optional attributes when (re-)entering RTS from RTR, RTS, SQD, SQE. */
#define RTS_OPT_RC	(QA(CUR_STATE) | QA(ALT_PATH) | QA(ACCESS_FLAGS) |	\
			 QA(MIN_RNR_TIMER) | QA(PATH_MIG_STATE))
#define RTS_OPT_UC	(QA(CUR_STATE) | QA(ALT_PATH) | QA(ACCESS_FLAGS) |	\
			 QA(PATH_MIG_STATE))
#define RTS_OPT_UD	(QA(CUR_STATE) | QA(QKEY))

static const struct qp_edge qp_table[SROCE_QPS_COUNT][SROCE_QPS_COUNT] = {
	[SROCE_QPS_RESET] = {
		[SROCE_QPS_RESET] = EDGE_ANY,
		[SROCE_QPS_ERR] = EDGE_ANY,
		[SROCE_QPS_INIT] = {
			.valid = true,
			.req = {
				[T_RC] = QA(PKEY_INDEX) | QA(PORT) | QA(ACCESS_FLAGS),
				[T_UC] = QA(PKEY_INDEX) | QA(PORT) | QA(ACCESS_FLAGS),
				[T_UD] = QA(PKEY_INDEX) | QA(PORT) | QA(QKEY),
				[T_XI] = QA(PKEY_INDEX) | QA(PORT) | QA(ACCESS_FLAGS),
				[T_XT] = QA(PKEY_INDEX) | QA(PORT) | QA(ACCESS_FLAGS),
			},
		},
	},
	[SROCE_QPS_INIT] = {
		[SROCE_QPS_RESET] = EDGE_ANY,
		[SROCE_QPS_ERR] = EDGE_ANY,
		[SROCE_QPS_INIT] = {
			.valid = true,
			.opt = {
				[T_RC] = QA(PKEY_INDEX) | QA(PORT) | QA(ACCESS_FLAGS),
				[T_UC] = QA(PKEY_INDEX) | QA(PORT) | QA(ACCESS_FLAGS),
				[T_UD] = QA(PKEY_INDEX) | QA(PORT) | QA(QKEY),
				[T_XI] = QA(PKEY_INDEX) | QA(PORT) | QA(ACCESS_FLAGS),
				[T_XT] = QA(PKEY_INDEX) | QA(PORT) | QA(ACCESS_FLAGS),
			},
		},
		[SROCE_QPS_RTR] = {
			.valid = true,
			.req = {
				/* R4.1: min_rnr_timer, max_dest_rd_atomic */
				[T_RC] = QA(AV) | QA(PATH_MTU) | QA(DEST_QPN) |
				       QA(RQ_PSN) | QA(MAX_DEST_RD_ATOMIC) |
				       QA(MIN_RNR_TIMER),
				[T_UC] = QA(AV) | QA(PATH_MTU) | QA(DEST_QPN) |
				       QA(RQ_PSN),
				[T_XI] = QA(AV) | QA(PATH_MTU) | QA(DEST_QPN) |
				       QA(RQ_PSN),
				[T_XT] = QA(AV) | QA(PATH_MTU) | QA(DEST_QPN) |
				       QA(RQ_PSN) | QA(MAX_DEST_RD_ATOMIC) |
				       QA(MIN_RNR_TIMER),
			},
			.opt = {
				[T_RC] = QA(ALT_PATH) | QA(ACCESS_FLAGS) |
				       QA(PKEY_INDEX),
				[T_UC] = QA(ALT_PATH) | QA(ACCESS_FLAGS) |
				       QA(PKEY_INDEX),
				[T_UD] = QA(PKEY_INDEX) | QA(QKEY),
				[T_XI] = QA(ALT_PATH) | QA(ACCESS_FLAGS) |
				       QA(PKEY_INDEX),
				[T_XT] = QA(ALT_PATH) | QA(ACCESS_FLAGS) |
				       QA(PKEY_INDEX),
			},
		},
	},
	[SROCE_QPS_RTR] = {
		[SROCE_QPS_RESET] = EDGE_ANY,
		[SROCE_QPS_ERR] = EDGE_ANY,
		[SROCE_QPS_RTS] = {
			.valid = true,
			.req = {
				/* R4.1: timeout, retry_cnt, rnr_retry, max_rd_atomic */
				[T_RC] = QA(TIMEOUT) | QA(RETRY_CNT) |
				       QA(RNR_RETRY) | QA(SQ_PSN) |
				       QA(MAX_QP_RD_ATOMIC),
				[T_UC] = QA(SQ_PSN),
				[T_UD] = QA(SQ_PSN),
				[T_XI] = QA(TIMEOUT) | QA(RETRY_CNT) |
				       QA(RNR_RETRY) | QA(SQ_PSN) |
				       QA(MAX_QP_RD_ATOMIC),
				[T_XT] = QA(TIMEOUT) | QA(SQ_PSN),
			},
			.opt = {
				[T_RC] = RTS_OPT_RC,
				[T_UC] = RTS_OPT_UC,
				[T_UD] = RTS_OPT_UD,
				[T_XI] = RTS_OPT_UC,
				[T_XT] = RTS_OPT_RC,
			},
		},
	},
	[SROCE_QPS_RTS] = {
		[SROCE_QPS_RESET] = EDGE_ANY,
		[SROCE_QPS_ERR] = EDGE_ANY,
		[SROCE_QPS_RTS] = {
			.valid = true,
			.opt = {
				[T_RC] = RTS_OPT_RC,
				[T_UC] = RTS_OPT_UC,
				[T_UD] = RTS_OPT_UD,
				[T_XI] = RTS_OPT_UC,
				[T_XT] = RTS_OPT_RC,
			},
		},
		[SROCE_QPS_SQD] = {
			.valid = true,
			.opt = {
				[T_RC] = QA(EN_SQD_ASYNC_NOTIFY),
				[T_UC] = QA(EN_SQD_ASYNC_NOTIFY),
				[T_UD] = QA(EN_SQD_ASYNC_NOTIFY),
				[T_XI] = QA(EN_SQD_ASYNC_NOTIFY),
				[T_XT] = QA(EN_SQD_ASYNC_NOTIFY),
			},
		},
	},
	[SROCE_QPS_SQD] = {
		[SROCE_QPS_RESET] = EDGE_ANY,
		[SROCE_QPS_ERR] = EDGE_ANY,
		[SROCE_QPS_RTS] = {
			.valid = true,
			.opt = {
				[T_RC] = RTS_OPT_RC,
				[T_UC] = RTS_OPT_UC,
				[T_UD] = RTS_OPT_UD,
				[T_XI] = RTS_OPT_UC,
				[T_XT] = RTS_OPT_RC,
			},
		},
		[SROCE_QPS_SQD] = {
			.valid = true,
			.opt = {
				[T_RC] = QA(PORT) | QA(AV) | QA(TIMEOUT) |
				       QA(RETRY_CNT) | QA(RNR_RETRY) |
				       QA(MAX_QP_RD_ATOMIC) |
				       QA(MAX_DEST_RD_ATOMIC) | QA(ALT_PATH) |
				       QA(ACCESS_FLAGS) | QA(PKEY_INDEX) |
				       QA(MIN_RNR_TIMER) | QA(PATH_MIG_STATE),
				[T_UC] = QA(AV) | QA(ALT_PATH) | QA(ACCESS_FLAGS) |
				       QA(PKEY_INDEX) | QA(PATH_MIG_STATE),
				[T_UD] = QA(PKEY_INDEX) | QA(QKEY),
				[T_XI] = QA(PORT) | QA(AV) | QA(TIMEOUT) |
				       QA(RETRY_CNT) | QA(RNR_RETRY) |
				       QA(MAX_QP_RD_ATOMIC) | QA(ALT_PATH) |
				       QA(ACCESS_FLAGS) | QA(PKEY_INDEX) |
				       QA(PATH_MIG_STATE),
				[T_XT] = QA(PORT) | QA(AV) | QA(TIMEOUT) |
				       QA(MAX_DEST_RD_ATOMIC) | QA(ALT_PATH) |
				       QA(ACCESS_FLAGS) | QA(PKEY_INDEX) |
				       QA(MIN_RNR_TIMER) | QA(PATH_MIG_STATE),
			},
		},
	},
	[SROCE_QPS_SQE] = {
		[SROCE_QPS_RESET] = EDGE_ANY,
		[SROCE_QPS_ERR] = EDGE_ANY,
		[SROCE_QPS_RTS] = {
			.valid = true,
			.opt = {
				[T_UC] = QA(CUR_STATE) | QA(ACCESS_FLAGS),
				[T_UD] = QA(CUR_STATE) | QA(QKEY),
			},
		},
	},
	[SROCE_QPS_ERR] = {
		[SROCE_QPS_RESET] = EDGE_ANY,
		[SROCE_QPS_ERR] = EDGE_ANY,
	},
};

#undef QA
#undef T_RC
#undef T_UC
#undef T_UD
#undef T_XI
#undef T_XT
#undef EDGE_ANY

/* rdmavt ib_rvt_state_ops, seed-rules R3.3, R3.8, R4.2. */
static const u32 qp_caps[SROCE_QPS_COUNT] = {
	[SROCE_QPS_RESET] = 0,
	[SROCE_QPS_INIT] = SROCE_QPCAP_POST_RECV,
	[SROCE_QPS_RTR] = SROCE_QPCAP_POST_RECV | SROCE_QPCAP_PROCESS_RECV,
	[SROCE_QPS_RTS] = SROCE_QPCAP_POST_RECV | SROCE_QPCAP_PROCESS_RECV |
			  SROCE_QPCAP_POST_SEND | SROCE_QPCAP_PROCESS_SEND |
			  SROCE_QPCAP_PROCESS_NEXT_SEND,
	[SROCE_QPS_SQD] = SROCE_QPCAP_POST_RECV | SROCE_QPCAP_PROCESS_RECV |
			  SROCE_QPCAP_POST_SEND | SROCE_QPCAP_PROCESS_SEND,
	[SROCE_QPS_SQE] = SROCE_QPCAP_POST_RECV | SROCE_QPCAP_PROCESS_RECV |
			  SROCE_QPCAP_POST_SEND | SROCE_QPCAP_FLUSH_SEND,
	[SROCE_QPS_ERR] = SROCE_QPCAP_POST_RECV | SROCE_QPCAP_POST_SEND |
			  SROCE_QPCAP_FLUSH_SEND | SROCE_QPCAP_FLUSH_RECV,
};

#define QPS_NAME(name)	[SROCE_QPS_##name] = #name,
static const char * const qp_state_names[SROCE_QPS_COUNT] = {
	SROCE_QP_STATE_LIST(QPS_NAME)
};

#undef QPS_NAME

static bool state_ok(enum sroce_qp_state s)
{
	return (unsigned int)s < SROCE_QPS_COUNT;
}

static bool type_ok(enum sroce_qp_type t)
{
	return (unsigned int)t < SROCE_QPT_COUNT;
}

const char *sroce_qp_state_name(enum sroce_qp_state state)
{
	return state_ok(state) ? qp_state_names[state] : "UNKNOWN";
}

u32 sroce_qp_state_caps(enum sroce_qp_state state)
{
	return state_ok(state) ? qp_caps[state] : 0;
}

bool sroce_qp_edge_valid(enum sroce_qp_state cur, enum sroce_qp_state next)
{
	return state_ok(cur) && state_ok(next) && qp_table[cur][next].valid;
}

u32 sroce_qp_req_attrs(enum sroce_qp_type type, enum sroce_qp_state cur,
		       enum sroce_qp_state next)
{
	if (!type_ok(type) || !sroce_qp_edge_valid(cur, next))
		return 0;
	return qp_table[cur][next].req[type];
}

u32 sroce_qp_opt_attrs(enum sroce_qp_type type, enum sroce_qp_state cur,
		       enum sroce_qp_state next)
{
	if (!type_ok(type) || !sroce_qp_edge_valid(cur, next))
		return 0;
	return qp_table[cur][next].opt[type];
}

int sroce_qp_check_modify(enum sroce_qp_type type, enum sroce_qp_state cur,
			  enum sroce_qp_state next, u32 mask)
{
	u32 req, opt;

	if (!type_ok(type) || !sroce_qp_edge_valid(cur, next))
		return -EINVAL;

	if ((mask & SROCE_QPA_CUR_STATE) &&
	    cur != SROCE_QPS_RTR && cur != SROCE_QPS_RTS &&
	    cur != SROCE_QPS_SQD && cur != SROCE_QPS_SQE)
		return -EINVAL;

	req = qp_table[cur][next].req[type];
	opt = qp_table[cur][next].opt[type];

	if ((mask & req) != req)
		return -EINVAL;
	if (mask & ~(req | opt | SROCE_QPA_STATE))
		return -EINVAL;
	return 0;
}

enum sroce_qp_state sroce_qp_state_on_error(enum sroce_qp_type type,
					    enum sroce_qp_state cur,
					    bool send_side)
{
	if (cur == SROCE_QPS_RESET)
		return cur;
	if ((type == SROCE_QPT_UC || type == SROCE_QPT_UD) && send_side &&
	    (cur == SROCE_QPS_RTS || cur == SROCE_QPS_SQD))
		return SROCE_QPS_SQE;
	return SROCE_QPS_ERR;
}
