/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * sroce congestion control (sroce_cc.c): the reaction point of DCQCN
 * (core/dcqcn.c) in a QP's requester. A valid CNP received for the QP
 * marks it (any receive context); the requester, in its next run, cuts
 * its rate, and from then on paces its packets with qp->pace_timer until
 * the rate has recovered to the line rate.
 *
 * State: qp->req.cc, qp->req.ccp and qp->req.pace_next belong to the
 * engines' owner; qp->cnp_pending is set by the receive path and taken
 * by the owner (atomic); qp->pace_timer only schedules the QP's work.
 */
#ifndef SROCE_CC_H
#define SROCE_CC_H

#include <linux/types.h>

struct sroce_dev;
struct sroce_qp;

/* Line rate of @sdev's netdev in Mbit/s (process context: takes RTNL). */
u32 sroce_cc_line_mbps(struct sroce_dev *sdev);

/* Create: the pace timer. */
void sroce_cc_init(struct sroce_qp *qp);
/* RTR -> RTS: an unlimited rate, with the module's parameters now. */
void sroce_cc_start(struct sroce_qp *qp, u32 line_mbps);
/* Reset, error, destroy: stop the pace timer (process context). */
void sroce_cc_stop(struct sroce_qp *qp);

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
