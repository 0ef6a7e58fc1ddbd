/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * sroce QP work items (sroce_work.c): have a QP's engines run by its work
 * item. Below the engines: anything may call it.
 */
#ifndef SROCE_WORK_H
#define SROCE_WORK_H

struct sroce_qp;

int sroce_work_init(void);
void sroce_work_exit(void);

/* Have the work item run the engines; the queued work holds a reference. */
void sroce_qp_schedule(struct sroce_qp *qp);
/* The same on an unbound worker, unless the QP is pinned to a CPU. */
void sroce_qp_schedule_unbound(struct sroce_qp *qp);
/* The same on @cpu (the responder's backlog is there). */
void sroce_qp_schedule_on(struct sroce_qp *qp, int cpu);

#endif /* SROCE_WORK_H */
