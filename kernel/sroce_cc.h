/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * sroce congestion control (sroce_cc.c): the reaction point of DCQCN
 * (core/dcqcn.c) in a QP's requester. A valid CNP received for the QP
 * marks it (any receive context); the requester, in its next run, cuts
 * its rate, and from then on paces its packets with its pace timer until
 * the rate has recovered to the line rate.
 */
#ifndef SROCE_CC_H
#define SROCE_CC_H

#include <linux/atomic.h>
#include <linux/hrtimer.h>
#include <linux/types.h>

#include "dcqcn.h"

struct sroce_dev;
struct sroce_qp;

/*
 * The reaction point of a QP whose requester sends to one peer (RC, UC,
 * an XRC initiator: qp->rp, allocated with the QP; none for the others,
 * and DCQCN's state stays out of every QP that cannot use it).
 * on, cc, p, pace_next and ackreq_ns belong to the owner of the QP's
 * send side. CNPs arrived for it: cnp_pending is set by the receive path
 * (any context) and taken by the owner (atomic); cnp_first_ns and
 * cnp_last_ns (ktime_get_ns()), when the first and the last of them
 * arrived, are written before it (a race between receivers only blurs
 * them). pace_timer only schedules the QP's work.
 */
struct sroce_rp {
	struct sroce_qp *qp;
	bool on;			/* from RTS, unless disabled */
	struct sroce_dcqcn cc;
	struct sroce_dcqcn_params p;
	u64 pace_next;			/* ns: when the next packet may go */
	u64 ackreq_ns;			/* ns: the last AckReq sent while paced */
	struct hrtimer pace_timer;
	atomic_t cnp_pending;
	u64 cnp_first_ns;
	u64 cnp_last_ns;
};

/* Line rate of @sdev's netdev in Mbit/s (process context: takes RTNL). */
u32 sroce_cc_line_mbps(struct sroce_dev *sdev);

/* Create: the reaction point, if the QP's type has one (-ENOMEM). */
int sroce_cc_init(struct sroce_qp *qp);
/* Destroy, once nothing can arm its timer any more. */
void sroce_cc_free(struct sroce_qp *qp);
/* RTR -> RTS: an unlimited rate, with the module's parameters now. */
void sroce_cc_start(struct sroce_qp *qp, u32 line_mbps);
/* Reset, error, destroy: stop the pace timer (process context). */
void sroce_cc_stop(struct sroce_qp *qp);
/* The rate and target rate now, Mbit/s, if the QP's rate is controlled. */
void sroce_cc_rates(const struct sroce_qp *qp, u32 *rate, u32 *target);

/* Receive path: a valid CNP for @qp (the caller holds a reference). */
void sroce_cc_cnp(struct sroce_qp *qp);

/*
 * Requester, engine owner: take the CNPs that arrived since its last run
 * (start of sroce_req_run()).
 */
void sroce_cc_take_cnps(struct sroce_qp *qp);

/*
 * Requester, engine owner, before it sends a packet of about @bytes:
 * true if the QP must wait for its pace (the pace timer is armed), false
 * if the packet may go now (and is counted against the rate).
 */
bool sroce_cc_must_wait(struct sroce_qp *qp, u32 bytes);
bool sroce_cc_ack_due(struct sroce_qp *qp);
void sroce_cc_ackreq_sent(struct sroce_qp *qp);

#endif /* SROCE_CC_H */
