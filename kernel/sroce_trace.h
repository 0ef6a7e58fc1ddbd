/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * sroce tracepoints (events/sroce/ in tracefs; Documentation/observability.md
 * lists them with their fields). Each is called once, where the decision it
 * reports is taken, beside the counter of that decision if there is one:
 * a retransmit event per retrans_timeout/seq_nak/rnr/implied_nak count.
 * CREATE_TRACE_POINTS is defined in sroce_trace.c only.
 *
 * sroce_odp_fault_start/end bracket the resolution of an on-demand paging
 * fault: an access to pages of an ODP MR that are not mapped (or not
 * writable) on the device side. The process-context owner of the QP's
 * engines that needs the pages (a doorbell caller, the work item, a
 * prefetch) resolves the fault itself, in line.
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM sroce

#ifndef SROCE_TRACE_TYPES_H
#define SROCE_TRACE_TYPES_H
/* Why the requester goes back (sroce_retransmit). */
enum sroce_retrans_cause {
	SROCE_RETRANS_CAUSE_TIMEOUT,	/* local ACK timer (R2.2) */
	SROCE_RETRANS_CAUSE_SEQ_NAK,	/* PSN sequence error NAK (R2.5) */
	SROCE_RETRANS_CAUSE_RNR,	/* RNR NAK, resent after the wait (R2.4) */
	SROCE_RETRANS_CAUSE_IMPLIED_NAK, /* a response past a lost one (R2.5) */
};

/* The requester's timers (sroce_timer_arm/expire). */
enum sroce_timer_kind {
	SROCE_TIMER_ACK,		/* local ACK timeout (qp->ack_timer) */
	SROCE_TIMER_RNR,		/* RNR NAK wait (qp->rnr_timer) */
	SROCE_TIMER_PACE,		/* DCQCN pacing (qp->rp->pace_timer) */
};
#endif /* SROCE_TRACE_TYPES_H */

#if !defined(SROCE_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define SROCE_TRACE_H

#include <linux/tracepoint.h>
#include <rdma/ib_verbs.h>
/* rdma.h names the CM events too: their enums come from these. */
#include <rdma/ib_cm.h>
#include <rdma/rdma_cm.h>
#include <trace/misc/rdma.h>

#include "sroce.h"
#include "sroce_qp.h"
#include "aeth.h"
#include "bth.h"
#include "ext_hdrs.h"
#include "opcode.h"

TRACE_DEFINE_ENUM(SROCE_RETRANS_CAUSE_TIMEOUT);
TRACE_DEFINE_ENUM(SROCE_RETRANS_CAUSE_SEQ_NAK);
TRACE_DEFINE_ENUM(SROCE_RETRANS_CAUSE_RNR);
TRACE_DEFINE_ENUM(SROCE_RETRANS_CAUSE_IMPLIED_NAK);
#define sroce_show_cause(c)						\
	__print_symbolic(c, { SROCE_RETRANS_CAUSE_TIMEOUT, "timeout" },	\
			 { SROCE_RETRANS_CAUSE_SEQ_NAK, "seq_nak" },	\
			 { SROCE_RETRANS_CAUSE_RNR, "rnr" },		\
			 { SROCE_RETRANS_CAUSE_IMPLIED_NAK, "implied_nak" })

TRACE_DEFINE_ENUM(SROCE_TIMER_ACK);
TRACE_DEFINE_ENUM(SROCE_TIMER_RNR);
TRACE_DEFINE_ENUM(SROCE_TIMER_PACE);
#define sroce_show_timer(t)						\
	__print_symbolic(t, { SROCE_TIMER_ACK, "ack" },			\
			 { SROCE_TIMER_RNR, "rnr" },			\
			 { SROCE_TIMER_PACE, "pace" })

TRACE_DEFINE_ENUM(IB_QPS_RESET);
TRACE_DEFINE_ENUM(IB_QPS_INIT);
TRACE_DEFINE_ENUM(IB_QPS_RTR);
TRACE_DEFINE_ENUM(IB_QPS_RTS);
TRACE_DEFINE_ENUM(IB_QPS_SQD);
TRACE_DEFINE_ENUM(IB_QPS_SQE);
TRACE_DEFINE_ENUM(IB_QPS_ERR);
#define sroce_show_qp_state(s)						\
	__print_symbolic(s, { IB_QPS_RESET, "RESET" },			\
			 { IB_QPS_INIT, "INIT" }, { IB_QPS_RTR, "RTR" },	\
			 { IB_QPS_RTS, "RTS" }, { IB_QPS_SQD, "SQD" },	\
			 { IB_QPS_SQE, "SQE" }, { IB_QPS_ERR, "ERR" })

TRACE_DEFINE_ENUM(SROCE_AETH_ACK);
TRACE_DEFINE_ENUM(SROCE_AETH_RNR_NAK);
TRACE_DEFINE_ENUM(SROCE_AETH_RESERVED);
TRACE_DEFINE_ENUM(SROCE_AETH_NAK);
#define sroce_show_aeth_type(t)						\
	__print_symbolic(t, { SROCE_AETH_ACK, "ack" },			\
			 { SROCE_AETH_RNR_NAK, "rnr_nak" },		\
			 { SROCE_AETH_RESERVED, "reserved" },		\
			 { SROCE_AETH_NAK, "nak" })

TRACE_DEFINE_ENUM(IB_WC_SEND);
TRACE_DEFINE_ENUM(IB_WC_RDMA_WRITE);
TRACE_DEFINE_ENUM(IB_WC_RDMA_READ);
TRACE_DEFINE_ENUM(IB_WC_COMP_SWAP);
TRACE_DEFINE_ENUM(IB_WC_FETCH_ADD);
TRACE_DEFINE_ENUM(IB_WC_BIND_MW);
TRACE_DEFINE_ENUM(IB_WC_LOCAL_INV);
TRACE_DEFINE_ENUM(IB_WC_REG_MR);
TRACE_DEFINE_ENUM(IB_WC_RECV);
TRACE_DEFINE_ENUM(IB_WC_RECV_RDMA_WITH_IMM);
#define sroce_show_wc_opcode(o)						\
	__print_symbolic(o, { IB_WC_SEND, "SEND" },			\
			 { IB_WC_RDMA_WRITE, "RDMA_WRITE" },		\
			 { IB_WC_RDMA_READ, "RDMA_READ" },		\
			 { IB_WC_COMP_SWAP, "COMP_SWAP" },		\
			 { IB_WC_FETCH_ADD, "FETCH_ADD" },		\
			 { IB_WC_BIND_MW, "BIND_MW" },			\
			 { IB_WC_LOCAL_INV, "LOCAL_INV" },		\
			 { IB_WC_REG_MR, "REG_MR" },			\
			 { IB_WC_RECV, "RECV" },			\
			 { IB_WC_RECV_RDMA_WITH_IMM, "RECV_RDMA_WITH_IMM" })

/*
 * One RoCEv2 packet at the BTH (@bth, @len bytes BTH .. ICRC, as
 * tx_bytes/rx_bytes count them). dqpn is the BTH destination QP: the peer's
 * QP on send, the local one on receive (0xffffff: multicast).
 */
DECLARE_EVENT_CLASS(sroce_pkt_class,
	TP_PROTO(const struct sroce_dev *sdev, const u8 *bth, u32 len),
	TP_ARGS(sdev, bth, len),
	TP_STRUCT__entry(
		__string(dev, dev_name(&sdev->ibdev.dev))
		__field(u32, dqpn)
		__field(u32, psn)
		__field(u32, len)
		__field(u8, opcode)
		__field(bool, ackreq)
	),
	TP_fast_assign(
		sroce_assign_str(dev, dev_name(&sdev->ibdev.dev));
		__entry->dqpn = sroce_bth_qpn(bth);
		__entry->psn = sroce_bth_psn(bth);
		__entry->len = len;
		__entry->opcode = sroce_bth_opcode(bth);
		__entry->ackreq = sroce_bth_ackreq(bth);
	),
	TP_printk("dev=%s dqpn=0x%x opcode=0x%02x psn=0x%06x len=%u%s",
		  __get_str(dev), __entry->dqpn, __entry->opcode, __entry->psn,
		  __entry->len, __entry->ackreq ? " ackreq" : "")
);

/* Every packet a QP sends: a test's tx_drop rule takes it afterwards. */
DEFINE_EVENT(sroce_pkt_class, sroce_pkt_send,
	TP_PROTO(const struct sroce_dev *sdev, const u8 *bth, u32 len),
	TP_ARGS(sdev, bth, len));

/* Every packet handed to a QP, after the lookup, state and P_Key checks. */
DEFINE_EVENT(sroce_pkt_class, sroce_pkt_recv,
	TP_PROTO(const struct sroce_dev *sdev, const u8 *bth, u32 len),
	TP_ARGS(sdev, bth, len));

/*
 * A packet with an AETH (ACK, NAK, RNR NAK, READ response FIRST/LAST/ONLY,
 * ATOMIC ACK) at @bth, built or parsed. credits: what an ACK's credit code
 * stands for, -1 for none (an SRQ, code 0x1f) or another type.
 */
DECLARE_EVENT_CLASS(sroce_aeth_class,
	TP_PROTO(const struct sroce_qp *qp, const u8 *bth),
	TP_ARGS(qp, bth),
	TP_STRUCT__entry(
		__string(dev, dev_name(&qp->sdev->ibdev.dev))
		__field(u32, qpn)
		__field(u32, psn)
		__field(u32, msn)
		__field(int, credits)
		__field(u8, opcode)
		__field(u8, syndrome)
		__field(u8, type)
		__field(u8, value)
	),
	TP_fast_assign(
		const u8 *aeth = bth +
			sroce_opcode_table[sroce_bth_opcode(bth)].offset[SROCE_EXT_AETH];
		u8 syn = sroce_aeth_syn(aeth);
		u8 val = FIELD_GET(SROCE_AETH_SYN_VAL, syn);
		u32 cr = sroce_credits_from_code(val);

		sroce_assign_str(dev, dev_name(&qp->sdev->ibdev.dev));
		__entry->qpn = qp->qpn;
		__entry->psn = sroce_bth_psn(bth);
		__entry->msn = sroce_aeth_msn(aeth);
		__entry->opcode = sroce_bth_opcode(bth);
		__entry->syndrome = syn;
		__entry->type = FIELD_GET(SROCE_AETH_SYN_TYPE, syn);
		__entry->value = val;
		__entry->credits = __entry->type == SROCE_AETH_ACK &&
				   cr != SROCE_CREDITS_UNLIMITED ? cr : -1;
	),
	TP_printk("dev=%s qpn=0x%x opcode=0x%02x psn=0x%06x syndrome=0x%02x type=%s value=%u msn=0x%06x credits=%d",
		  __get_str(dev), __entry->qpn, __entry->opcode, __entry->psn,
		  __entry->syndrome, sroce_show_aeth_type(__entry->type),
		  __entry->value, __entry->msn, __entry->credits)
);

/* The responder sends a packet with an AETH (sroce_resp_xmit). */
DEFINE_EVENT_CONDITION(sroce_aeth_class, sroce_ack_send,
	TP_PROTO(const struct sroce_qp *qp, const u8 *bth),
	TP_ARGS(qp, bth),
	TP_CONDITION(sroce_opcode_table[sroce_bth_opcode(bth)].mask & SROCE_M_AETH));

/* The completer takes a response with an AETH, duplicates included. */
DEFINE_EVENT_CONDITION(sroce_aeth_class, sroce_ack_recv,
	TP_PROTO(const struct sroce_qp *qp, const u8 *bth),
	TP_ARGS(qp, bth),
	TP_CONDITION(sroce_opcode_table[sroce_bth_opcode(bth)].mask & SROCE_M_AETH));

/* The requester goes back to @psn (comp.psn) for @cause. */
TRACE_EVENT(sroce_retransmit,
	TP_PROTO(const struct sroce_qp *qp, enum sroce_retrans_cause cause,
		 u32 psn),
	TP_ARGS(qp, cause, psn),
	TP_STRUCT__entry(
		__string(dev, dev_name(&qp->sdev->ibdev.dev))
		__field(u32, qpn)
		__field(u32, psn)
		__field(int, cause)
	),
	TP_fast_assign(
		sroce_assign_str(dev, dev_name(&qp->sdev->ibdev.dev));
		__entry->qpn = qp->qpn;
		__entry->psn = psn;
		__entry->cause = cause;
	),
	TP_printk("dev=%s qpn=0x%x cause=%s psn=0x%06x",
		  __get_str(dev), __entry->qpn, sroce_show_cause(__entry->cause),
		  __entry->psn)
);

/*
 * ECN (sroce_recv.c). sroce_cnp_send: the notification point answers a
 * packet marked CE that @qp received with a CNP to the sender's QP
 * @dqpn. sroce_cnp_recv: the reaction point takes a valid CNP for @qp.
 */
TRACE_EVENT(sroce_cnp_send,
	TP_PROTO(const struct sroce_qp *qp, u32 dqpn),
	TP_ARGS(qp, dqpn),
	TP_STRUCT__entry(
		__string(dev, dev_name(&qp->sdev->ibdev.dev))
		__field(u32, qpn)
		__field(u32, dqpn)
	),
	TP_fast_assign(
		sroce_assign_str(dev, dev_name(&qp->sdev->ibdev.dev));
		__entry->qpn = qp->qpn;
		__entry->dqpn = dqpn;
	),
	TP_printk("dev=%s qpn=0x%x dqpn=0x%x", __get_str(dev),
		  __entry->qpn, __entry->dqpn)
);

TRACE_EVENT(sroce_cnp_recv,
	TP_PROTO(const struct sroce_qp *qp),
	TP_ARGS(qp),
	TP_STRUCT__entry(
		__string(dev, dev_name(&qp->sdev->ibdev.dev))
		__field(u32, qpn)
	),
	TP_fast_assign(
		sroce_assign_str(dev, dev_name(&qp->sdev->ibdev.dev));
		__entry->qpn = qp->qpn;
	),
	TP_printk("dev=%s qpn=0x%x", __get_str(dev), __entry->qpn)
);

/*
 * DCQCN's reaction point (sroce_cc.c) changed @qp's send rate: a cut on a
 * CNP (@cut), or a recovery step (timer or byte counter). Rates in
 * Mbit/s, alpha in 1/1024ths; back at line rate the QP is not paced.
 */
TRACE_EVENT(sroce_cc_rate,
	TP_PROTO(const struct sroce_qp *qp, u32 rate, u32 target, u32 alpha,
		 bool cut),
	TP_ARGS(qp, rate, target, alpha, cut),
	TP_STRUCT__entry(
		__string(dev, dev_name(&qp->sdev->ibdev.dev))
		__field(u32, qpn)
		__field(u32, rate)
		__field(u32, target)
		__field(u32, alpha)
		__field(bool, cut)
	),
	TP_fast_assign(
		sroce_assign_str(dev, dev_name(&qp->sdev->ibdev.dev));
		__entry->qpn = qp->qpn;
		__entry->rate = rate;
		__entry->target = target;
		__entry->alpha = alpha;
		__entry->cut = cut;
	),
	TP_printk("dev=%s qpn=0x%x %s rate=%u target=%u alpha=%u",
		  __get_str(dev), __entry->qpn,
		  __entry->cut ? "cut" : "increase", __entry->rate,
		  __entry->target, __entry->alpha)
);

/* A requester timer started (to run @ns) or expired (@ns 0). */
DECLARE_EVENT_CLASS(sroce_timer_class,
	TP_PROTO(const struct sroce_qp *qp, enum sroce_timer_kind timer, u64 ns),
	TP_ARGS(qp, timer, ns),
	TP_STRUCT__entry(
		__string(dev, dev_name(&qp->sdev->ibdev.dev))
		__field(u64, ns)
		__field(u32, qpn)
		__field(int, timer)
	),
	TP_fast_assign(
		sroce_assign_str(dev, dev_name(&qp->sdev->ibdev.dev));
		__entry->ns = ns;
		__entry->qpn = qp->qpn;
		__entry->timer = timer;
	),
	TP_printk("dev=%s qpn=0x%x timer=%s ns=%llu",
		  __get_str(dev), __entry->qpn, sroce_show_timer(__entry->timer),
		  __entry->ns)
);

DEFINE_EVENT(sroce_timer_class, sroce_timer_arm,
	TP_PROTO(const struct sroce_qp *qp, enum sroce_timer_kind timer, u64 ns),
	TP_ARGS(qp, timer, ns));

DEFINE_EVENT(sroce_timer_class, sroce_timer_expire,
	TP_PROTO(const struct sroce_qp *qp, enum sroce_timer_kind timer, u64 ns),
	TP_ARGS(qp, timer, ns));

/* modify_qp, or an error moving the QP to ERR or SQE (sroce_qp_error). */
TRACE_EVENT(sroce_qp_state,
	TP_PROTO(const struct sroce_qp *qp, enum ib_qp_state from,
		 enum ib_qp_state to),
	TP_ARGS(qp, from, to),
	TP_STRUCT__entry(
		__string(dev, dev_name(&qp->sdev->ibdev.dev))
		__field(u32, qpn)
		__field(int, from)
		__field(int, to)
	),
	TP_fast_assign(
		sroce_assign_str(dev, dev_name(&qp->sdev->ibdev.dev));
		__entry->qpn = qp->qpn;
		__entry->from = from;
		__entry->to = to;
	),
	TP_printk("dev=%s qpn=0x%x from=%s to=%s",
		  __get_str(dev), __entry->qpn, sroce_show_qp_state(__entry->from),
		  sroce_show_qp_state(__entry->to))
);

/* A CQE with a status other than success (flushes included) was written. */
TRACE_EVENT(sroce_cqe_err,
	TP_PROTO(const struct sroce_dev *sdev, const struct sroce_cqe *cqe),
	TP_ARGS(sdev, cqe),
	TP_STRUCT__entry(
		__string(dev, dev_name(&sdev->ibdev.dev))
		__field(u64, wr_id)
		__field(u32, qpn)
		__field(u32, status)
		__field(u32, opcode)
	),
	TP_fast_assign(
		sroce_assign_str(dev, dev_name(&sdev->ibdev.dev));
		__entry->wr_id = cqe->wr_id;
		__entry->qpn = cqe->qp_num;
		__entry->status = cqe->status;
		__entry->opcode = cqe->opcode;
	),
	TP_printk("dev=%s qpn=0x%x wr_id=0x%llx status=%s opcode=%s",
		  __get_str(dev), __entry->qpn, __entry->wr_id,
		  rdma_show_wc_status(__entry->status),
		  sroce_show_wc_opcode(__entry->opcode))
);

TRACE_EVENT(sroce_odp_fault_start,
	TP_PROTO(const char *dev, u32 lkey, u64 va, u64 len, bool write,
		 u32 missing),
	TP_ARGS(dev, lkey, va, len, write, missing),
	TP_STRUCT__entry(
		__string(dev, dev)
		__field(u32, lkey)
		__field(u64, va)
		__field(u64, len)
		__field(bool, write)
		__field(u32, missing)
	),
	TP_fast_assign(
		sroce_assign_str(dev, dev);
		__entry->lkey = lkey;
		__entry->va = va;
		__entry->len = len;
		__entry->write = write;
		__entry->missing = missing;
	),
	TP_printk("%s lkey 0x%x va 0x%llx len %llu %s pages missing %u",
		  __get_str(dev), __entry->lkey, __entry->va, __entry->len,
		  __entry->write ? "write" : "read", __entry->missing)
);

TRACE_EVENT(sroce_odp_fault_end,
	TP_PROTO(const char *dev, u32 lkey, u64 va, u64 len, int ret),
	TP_ARGS(dev, lkey, va, len, ret),
	TP_STRUCT__entry(
		__string(dev, dev)
		__field(u32, lkey)
		__field(u64, va)
		__field(u64, len)
		__field(int, ret)
	),
	TP_fast_assign(
		sroce_assign_str(dev, dev);
		__entry->lkey = lkey;
		__entry->va = va;
		__entry->len = len;
		__entry->ret = ret;
	),
	TP_printk("%s lkey 0x%x va 0x%llx len %llu ret %d",
		  __get_str(dev), __entry->lkey, __entry->va, __entry->len,
		  __entry->ret)
);

#endif /* SROCE_TRACE_H */

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE sroce_trace
#include <trace/define_trace.h>
