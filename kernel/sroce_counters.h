/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * sroce device counters, shown by "rdma statistic" (rdma_hw_stats). Bump a
 * counter exactly where the decision it counts is taken. The names come
 * from this one list, so they cannot drift from the enum.
 */
#ifndef SROCE_COUNTERS_H
#define SROCE_COUNTERS_H

#define SROCE_COUNTER_LIST(X)						\
	/* packets and bytes */						\
	X(TX_PKTS, "tx_pkts")						\
	X(TX_BYTES, "tx_bytes")						\
	X(RX_PKTS, "rx_pkts")						\
	X(RX_BYTES, "rx_bytes")						\
	X(TX_ERRORS, "tx_errors")					\
	X(TX_GSO_SKBS, "tx_gso_skbs")					\
	/* received packets dropped, by reason */			\
	X(DROP_ICRC, "rx_drop_icrc")					\
	X(DROP_MALFORMED, "rx_drop_malformed")				\
	X(DROP_NO_QP, "rx_drop_no_qp")					\
	X(DROP_QP_STATE, "rx_drop_qp_state")				\
	X(DROP_QP_TYPE, "rx_drop_qp_type")				\
	X(DROP_BAD_QKEY, "rx_drop_bad_qkey")				\
	X(DROP_BAD_PKEY, "rx_drop_bad_pkey")				\
	X(DROP_NO_MEM, "rx_drop_no_mem")				\
	X(DROP_NO_RECV_WQE, "rx_drop_no_recv_wqe")			\
	X(DROP_MCAST, "rx_drop_mcast")					\
	X(DROP_CNP, "rx_drop_cnp")	/* CNP: bad length, no live QP */	\
	X(DROP_RX_QUEUE_FULL, "rx_drop_queue_full")			\
	/* dropped by a test's fault rule (Documentation/fault-injection.md) */ \
	X(FAULT_TX_DROP, "fault_tx_drops")				\
	X(FAULT_RX_DROP, "fault_rx_drops")				\
	/* requester */							\
	X(REQ_SENT, "req_pkts_sent")					\
	X(RETRANS_PKTS, "retrans_pkts")					\
	X(RETRANS_TIMEOUT, "retrans_timeout")				\
	X(RETRANS_SEQ_NAK, "retrans_seq_nak")				\
	X(RETRANS_RNR, "retrans_rnr")					\
	X(RETRANS_IMPLIED_NAK, "retrans_implied_nak")			\
	X(RESTART_COPIES, "restart_copies")				\
	X(TIMER_EXPIRED, "ack_timer_expired")				\
	X(RETRY_EXCEEDED, "retry_exceeded")				\
	X(RNR_RETRY_EXCEEDED, "rnr_retry_exceeded")			\
	X(RD_ATOMIC_STALL, "rd_atomic_stall")				\
	X(CREDIT_STALL, "credit_stall")					\
	X(RX_HANDOFF, "rx_handoffs")					\
	X(LOOP_OTHER_CPU, "loop_other_cpu")				\
	X(RESP_UNSPLIT, "resp_unsplits")				\
	/* completer: ACKs and NAKs received */				\
	X(ACK_RCVD, "ack_rcvd")						\
	X(RNR_NAK_RCVD, "rnr_nak_rcvd")					\
	X(SEQ_NAK_RCVD, "seq_nak_rcvd")					\
	X(ERR_NAK_RCVD, "err_nak_rcvd")					\
	X(DUP_RESP, "duplicate_response")				\
	X(DUP_NAK, "dup_nak_ignored")					\
	/* responder */							\
	X(ACK_SENT, "ack_sent")						\
	X(RNR_NAK_SENT, "rnr_nak_sent")					\
	X(SEQ_NAK_SENT, "seq_nak_sent")					\
	X(SEQ_NAK_COPIES, "seq_nak_copies")				\
	X(ERR_NAK_SENT, "err_nak_sent")					\
	X(DUP_REQ, "duplicate_request")					\
	X(OUT_OF_SEQ, "out_of_sequence")				\
	X(UC_MSG_DROPPED, "uc_msg_dropped")				\
	X(RD_ATOMIC_OVERFLOW, "rd_atomic_overflow")			\
	/* completions and events */					\
	X(COMPLETIONS, "completions")					\
	X(COMPLETION_ERRORS, "completion_errors")			\
	X(CQ_OVERFLOW, "cq_overflow")					\
	/* on-demand paging */						\
	X(ODP_FAULTS, "odp_faults")					\
	X(ODP_PAGES_FAULTED, "odp_pages_faulted")			\
	X(ODP_INVALIDATIONS, "odp_invalidations")			\
	X(ODP_PREFETCH, "odp_prefetch")					\
	X(ODP_FAULT_DEFERRED, "odp_fault_deferred")			\
	X(ODP_FAULT_IN_DOORBELL, "odp_fault_in_doorbell")		\
	X(ODP_FAULT_RNR_NAK, "odp_fault_rnr_nak")			\
	/* UD datagrams dropped by their QP (sroce_resp_ud) */		\
	X(DROP_UD_OVER_MTU, "rx_drop_ud_over_mtu")			\
	X(DROP_GSI_TOO_LONG, "rx_drop_gsi_too_long")			\
	/* ECN (mlx5's names): notification point, reaction point */	\
	X(NP_ECN_MARKED, "np_ecn_marked_roce_packets")			\
	X(NP_CNP_SENT, "np_cnp_sent")					\
	X(RP_CNP_HANDLED, "rp_cnp_handled")				\
	X(RP_RATE_CUT, "rp_rate_cuts")	/* CNPs that cut a QP's rate */	\
	X(RP_PACED, "rp_paced")		/* a packet held back for its pace */

#define SROCE_COUNTER_ENUM(id, name) SROCE_CNT_##id,
enum sroce_counter {
	SROCE_COUNTER_LIST(SROCE_COUNTER_ENUM)
	SROCE_NUM_COUNTERS
};

#undef SROCE_COUNTER_ENUM

#endif /* SROCE_COUNTERS_H */
