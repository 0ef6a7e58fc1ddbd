/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * sroce per-QP counters: what "rdma statistic show" reports for a counter
 * that QPs are bound to ("rdma statistic qp set link DEV/1 auto type on",
 * "rdma statistic qp bind link DEV/1 lqpn N"). Every QP counts them all
 * the time, whether bound or not; the counter object adds up what its
 * QPs counted while bound (sroce_stats.c). Names and meaning:
 * Documentation/observability.md. Apart from SROCE_COUNTER_LIST so that
 * the tests' list of port counters (selftests/net/net_lib.sh) does not
 * take these for port counters: the port has none of them.
 */
#ifndef SROCE_QP_STATS_H
#define SROCE_QP_STATS_H

#include <linux/compiler.h>
#include <linux/types.h>

#define SROCE_QP_COUNTER_LIST(X)					\
	X(TX_PKTS, "qp_tx_pkts")					\
	X(TX_BYTES, "qp_tx_bytes")					\
	X(RX_PKTS, "qp_rx_pkts")					\
	X(RX_BYTES, "qp_rx_bytes")					\
	X(REQ_SENT, "qp_req_pkts_sent")					\
	X(RETRANS_PKTS, "qp_retrans_pkts")				\
	X(TIMER_EXPIRED, "qp_ack_timer_expired")			\
	X(RNR_NAK_RCVD, "qp_rnr_nak_rcvd")				\
	X(SEQ_NAK_RCVD, "qp_seq_nak_rcvd")				\
	X(OUT_OF_SEQ, "qp_out_of_sequence")				\
	X(COMPLETIONS, "qp_completions")				\
	X(COMPLETION_ERRORS, "qp_completion_errors")

#define SROCE_QP_COUNTER_ENUM(id, name) SROCE_QCNT_##id,
enum sroce_qp_counter {
	SROCE_QP_COUNTER_LIST(SROCE_QP_COUNTER_ENUM)
	SROCE_NUM_QP_COUNTERS
};

#undef SROCE_QP_COUNTER_ENUM

/*
 * One set of a QP's counters. A QP has two, the send side's and the
 * responder's (sroce_qp.h), each written only by the owner of that side
 * (sroce_exec.c: one context at a time, handed over under engine_lock),
 * so a plain add; WRITE_ONCE because the counter object reads them
 * locklessly (READ_ONCE) while they move, and adds the two up.
 */
struct sroce_qp_stats {
	u64 v[SROCE_NUM_QP_COUNTERS];
};

static inline void sroce_qp_stats_add(struct sroce_qp_stats *s,
				      enum sroce_qp_counter c, u64 n)
{
	WRITE_ONCE(s->v[c], s->v[c] + n);
}

#endif /* SROCE_QP_STATS_H */
