/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * sroce execution model: who runs a QP's engines, and where. See
 * sroce_exec.c.
 */
#ifndef SROCE_EXEC_H
#define SROCE_EXEC_H

struct sk_buff;
struct sroce_qp;
struct work_struct;

void sroce_engine_init(struct sroce_qp *qp);
void sroce_engine_release(struct sroce_qp *qp);
/* Own the engines for a verb (process context, sleeps), and let go. */
void sroce_engine_lock(struct sroce_qp *qp);
void sroce_engine_unlock(struct sroce_qp *qp);

/* The work functions of qp->work and qp->uwork (sroce_work.c queues them). */
void sroce_qp_work(struct work_struct *work);
void sroce_qp_unbound_work(struct work_struct *work);
/* A user post_send doorbell: runs the engines in the caller if idle. */
void sroce_qp_doorbell(struct sroce_qp *qp);
/*
 * Receive: queue @skb, which passed its QP's checks, for @qp's engines
 * and run them; consumes @skb. Caller holds a reference on @qp. Softirq.
 */
void sroce_qp_deliver(struct sroce_qp *qp, struct sk_buff *skb);

#endif /* SROCE_EXEC_H */
