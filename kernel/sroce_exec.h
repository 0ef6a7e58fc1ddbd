/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * sroce execution model: who runs a QP's engines, and where. See
 * sroce_exec.c.
 */
#ifndef SROCE_EXEC_H
#define SROCE_EXEC_H

struct sroce_qp;
struct work_struct;

int sroce_exec_module_init(void);
void sroce_exec_module_exit(void);

void sroce_engine_init(struct sroce_qp *qp);
/* Own the engines for a verb (process context, sleeps), and let go. */
void sroce_engine_lock(struct sroce_qp *qp);
void sroce_engine_unlock(struct sroce_qp *qp);

/* Have the work item run the engines; the queued work holds a reference. */
void sroce_qp_schedule(struct sroce_qp *qp);
void sroce_qp_work(struct work_struct *work);
void sroce_qp_unbound_work(struct work_struct *work);
/* A user post_send doorbell: runs the engines in the caller if idle. */
void sroce_qp_doorbell(struct sroce_qp *qp);

#endif /* SROCE_EXEC_H */
