// SPDX-License-Identifier: GPL-2.0-only
/*
 * sroce QP work items: the workqueues, and queueing a QP's work item on
 * the CPU where it must run. The lowest part of the execution model
 * (sroce_exec.c): the engines and the error path ask for a run here
 * (sroce_qp_schedule()) without calling up into the scheduler; the work
 * function itself, sroce_qp_work(), is sroce_exec.c's (create_qp sets it).
 */
#include <linux/workqueue.h>

#include "sroce_qp.h"
#include "sroce_work.h"

/*
 * All work items run here. Per-CPU (not WQ_UNBOUND): a QP's work may have
 * to run on one given CPU (sroce_qp_run_owned()).
 */
static struct workqueue_struct *sroce_wq;

/* Work that should not wait for this CPU: sroce_qp_schedule_unbound(). */
static struct workqueue_struct *sroce_unbound_wq;

/* Where the QP's work item must run: that CPU, else the local one. */
static int sroce_qp_home_cpu(struct sroce_qp *qp)
{
	int cpu = sroce_qp_pinned_cpu(qp);

	return cpu < 0 ? WORK_CPU_UNBOUND : cpu;
}

/* Queue the QP's work on @cpu; the queued work holds a reference. */
static void sroce_qp_queue_on(struct sroce_qp *qp, int cpu)
{
	if (!refcount_inc_not_zero(&qp->ref))
		return;
	if (!queue_work_on(cpu, sroce_wq, &qp->work))
		sroce_qp_put(qp);
}

void sroce_qp_schedule_on(struct sroce_qp *qp, int cpu)
{
	sroce_qp_queue_on(qp, cpu);
}

/* Queue the QP's work where it must run (sroce_qp_home_cpu()). */
void sroce_qp_schedule(struct sroce_qp *qp)
{
	sroce_qp_queue_on(qp, sroce_qp_home_cpu(qp));
}

/*
 * Queue the QP's work on an unbound worker, which the scheduler wakes on
 * an idle CPU if there is one, rather than on this CPU behind the task
 * running here, so that the posting process goes on posting while another
 * CPU works (sroce_qp_rx_handoff()).
 * A QP pinned to a CPU by its backlog still goes there
 * (sroce_qp_run_owned()).
 */
void sroce_qp_schedule_unbound(struct sroce_qp *qp)
{
	if (sroce_qp_pinned_cpu(qp) >= 0) {
		sroce_qp_schedule(qp);
		return;
	}
	if (!refcount_inc_not_zero(&qp->ref))
		return;
	if (!queue_work(sroce_unbound_wq, &qp->uwork))
		sroce_qp_put(qp);
}

int sroce_work_init(void)
{
	sroce_wq = alloc_workqueue("sroce", WQ_MEM_RECLAIM | SROCE_WQ_PERCPU, 0);
	if (!sroce_wq)
		return -ENOMEM;
	sroce_unbound_wq = alloc_workqueue("sroce_unbound",
					   WQ_UNBOUND | WQ_MEM_RECLAIM, 0);
	if (!sroce_unbound_wq) {
		destroy_workqueue(sroce_wq);
		return -ENOMEM;
	}
	return 0;
}

void sroce_work_exit(void)
{
	destroy_workqueue(sroce_unbound_wq);
	destroy_workqueue(sroce_wq);
}
