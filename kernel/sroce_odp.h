/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * sroce on-demand paging (ODP) MRs: explicit (a range) and implicit (the
 * whole address space), on the kernel's ib_umem_odp and MMU interval
 * notifiers. See sroce_odp.c.
 */
#ifndef SROCE_ODP_H
#define SROCE_ODP_H

#include <linux/irqflags.h>
#include <linux/preempt.h>
#include <linux/workqueue.h>
#include <rdma/ib_verbs.h>

#include "sroce_mem.h"
#include "sroce_param.h"

struct ib_umem_odp;
struct sroce_pd;

/* An implicit MR's pages are tracked in children of this many bytes. */
#define SROCE_ODP_CHILD_SHIFT 21
/*
 * Children an implicit MR may have: they cover max_mr_size, as much as
 * an explicit MR may. Each costs kernel memory (its page arrays) and an
 * MMU notifier, and lives until the MR is deregistered or an munmap
 * leaves it with nothing mapped.
 */
#define SROCE_ODP_MAX_CHILDREN (SROCE_MAX_MR_SIZE >> SROCE_ODP_CHILD_SHIFT)

int sroce_odp_module_init(void);
void sroce_odp_module_exit(void);

/*
 * Process context that may sleep? The engines run in the receive softirq
 * or in process context (a QP's work item, a doorbell caller:
 * sroce_exec.c); in_interrupt() also covers a process with BHs off.
 */
static inline bool sroce_odp_may_fault(void)
{
	return !in_interrupt() && !irqs_disabled();
}

bool sroce_odp_is_implicit(u64 start, u64 length);
int sroce_odp_init(struct sroce_mr *mr, u64 start, u64 length, int access);
void sroce_odp_release(struct sroce_mr *mr);

/* For sroce_mr.c: same contracts as sroce_mr_copy() and sroce_mr_atomic(). */
int sroce_odp_copy(struct sroce_mr *mr, u64 iova, void *buf, u32 len,
		   enum sroce_copy_dir dir);
int sroce_odp_prefault(struct sroce_mr *mr, u64 iova, u64 len, bool write);
int sroce_odp_map(struct sroce_mr *mr, u64 iova, u64 len, bool write);
int sroce_odp_fault_hold(struct sroce_mr *mr, u64 iova, u64 len, u64 ahead,
			 bool write, struct ib_umem_odp **held);
void sroce_odp_fault_unhold(struct ib_umem_odp *odp);
void sroce_odp_queue_work(struct work_struct *work);
int sroce_odp_atomic(struct sroce_mr *mr, u64 iova, enum sroce_atomic_op op,
		     u64 swap_add, u64 comp, u64 *orig);

int sroce_advise_mr(struct ib_pd *ibpd, enum ib_uverbs_advise_mr_advice advice,
		    u32 flags, struct ib_sge *sg_list, u32 num_sge,
		    struct uverbs_attr_bundle *attrs);

#endif /* SROCE_ODP_H */
