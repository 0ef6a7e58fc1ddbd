/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * qp_fsm.h - the IBA QP state machine as data (IBA 10.3.1, 11.2.4.2;
 * seed-rules R3.2, R3.3, R3.8, R4.1, R4.2).
 *
 * The transition table has the semantics of the kernel's
 * ib_modify_qp_is_ok() / qp_state_table (drivers/infiniband/core/verbs.c)
 * for RC, UC and UD.  The SROCE_QPA_* values equal enum ib_qp_attr_mask's
 * IB_QP_* bits; the kernel glue checks that with BUILD_BUG_ON (the core
 * itself cannot include <rdma/ib_verbs.h>).
 */
#ifndef SROCE_CORE_QP_FSM_H
#define SROCE_CORE_QP_FSM_H

#include "core_types.h"
#include "qp_type.h"

#define SROCE_QP_STATE_LIST(X)						\
	X(RESET) X(INIT) X(RTR) X(RTS) X(SQD) X(SQE) X(ERR)

/* Same order and values as enum ib_qp_state (IB_QPS_RESET..IB_QPS_ERR). */
#define SROCE_QPS_ENUM(name)	SROCE_QPS_##name,
enum sroce_qp_state {
	SROCE_QP_STATE_LIST(SROCE_QPS_ENUM)
	SROCE_QPS_COUNT
};

#undef SROCE_QPS_ENUM

/* Attribute mask bits, numerically equal to IB_QP_*. */
#define SROCE_QPA_STATE			BIT(0)
#define SROCE_QPA_CUR_STATE		BIT(1)
#define SROCE_QPA_EN_SQD_ASYNC_NOTIFY	BIT(2)
#define SROCE_QPA_ACCESS_FLAGS		BIT(3)
#define SROCE_QPA_PKEY_INDEX		BIT(4)
#define SROCE_QPA_PORT			BIT(5)
#define SROCE_QPA_QKEY			BIT(6)
#define SROCE_QPA_AV			BIT(7)
#define SROCE_QPA_PATH_MTU		BIT(8)
#define SROCE_QPA_TIMEOUT		BIT(9)
#define SROCE_QPA_RETRY_CNT		BIT(10)
#define SROCE_QPA_RNR_RETRY		BIT(11)
#define SROCE_QPA_RQ_PSN		BIT(12)
#define SROCE_QPA_MAX_QP_RD_ATOMIC	BIT(13)
#define SROCE_QPA_ALT_PATH		BIT(14)
#define SROCE_QPA_MIN_RNR_TIMER		BIT(15)
#define SROCE_QPA_SQ_PSN		BIT(16)
#define SROCE_QPA_MAX_DEST_RD_ATOMIC	BIT(17)
#define SROCE_QPA_PATH_MIG_STATE	BIT(18)
#define SROCE_QPA_CAP			BIT(19)
#define SROCE_QPA_DEST_QPN		BIT(20)
#define SROCE_QPA_ALL			GENMASK(20, 0)

/*
 * Per-state capabilities (the rdmavt ib_rvt_state_ops idea).
 *  POST_SEND / POST_RECV: posting is accepted (R3.8: send needs RTS, SQD,
 *      SQE or ERR; recv needs anything but RESET).  In SQE/ERR the posted
 *      WR is flushed (R3.3).
 *  PROCESS_RECV: incoming packets are processed and ACK/NAK may be sent
 *      (R4.2: RTR, RTS, SQD, SQE).
 *  PROCESS_SEND: the send engine runs (finishes the message in progress).
 *  PROCESS_NEXT_SEND: the send engine may start a new WQE (RTS only).
 *  FLUSH_SEND / FLUSH_RECV: queued WRs complete with WR_FLUSH_ERR (R3.3).
 */
#define SROCE_QPCAP_POST_RECV		BIT(0)
#define SROCE_QPCAP_POST_SEND		BIT(1)
#define SROCE_QPCAP_PROCESS_RECV	BIT(2)
#define SROCE_QPCAP_PROCESS_SEND	BIT(3)
#define SROCE_QPCAP_PROCESS_NEXT_SEND	BIT(4)
#define SROCE_QPCAP_FLUSH_SEND		BIT(5)
#define SROCE_QPCAP_FLUSH_RECV		BIT(6)

/* sroce_qp_state_name - "RESET" .. "ERR", "UNKNOWN" if out of range */
const char *sroce_qp_state_name(enum sroce_qp_state state);

/* sroce_qp_state_caps - SROCE_QPCAP_* bits of @state (0 if invalid) */
u32 sroce_qp_state_caps(enum sroce_qp_state state);

/* sroce_qp_edge_valid - may a modify_qp move @cur to @next at all? */
bool sroce_qp_edge_valid(enum sroce_qp_state cur, enum sroce_qp_state next);

/* Required / optional attributes of an edge (0 for invalid edges). */
u32 sroce_qp_req_attrs(enum sroce_qp_type type, enum sroce_qp_state cur,
		       enum sroce_qp_state next);
u32 sroce_qp_opt_attrs(enum sroce_qp_type type, enum sroce_qp_state cur,
		       enum sroce_qp_state next);

/**
 * sroce_qp_check_modify() - ib_modify_qp_is_ok() for sroce
 * @type: QP type
 * @cur:  current state (or the CUR_STATE attribute the caller trusts)
 * @next: requested state (== @cur when the mask lacks SROCE_QPA_STATE)
 * @mask: SROCE_QPA_* bits the caller supplied
 *
 * Return: 0 if the edge exists, all required attributes are present and
 * nothing outside required|optional|STATE is; -EINVAL otherwise (also for
 * CUR_STATE given outside RTR/RTS/SQD/SQE, and out-of-range arguments).
 */
int sroce_qp_check_modify(enum sroce_qp_type type, enum sroce_qp_state cur,
			  enum sroce_qp_state next, u32 mask);

/**
 * sroce_qp_state_on_error() - state a QP moves to on a completion error
 * @type:      QP type
 * @cur:       current state
 * @send_side: the error came from the send queue
 *
 * R3.2: RC goes to ERR; a UC/UD send-side error in RTS or SQD goes to SQE;
 * everything else goes to ERR.  RESET stays RESET (nothing runs there).
 */
enum sroce_qp_state sroce_qp_state_on_error(enum sroce_qp_type type,
					    enum sroce_qp_state cur,
					    bool send_side);

#endif /* SROCE_CORE_QP_FSM_H */
