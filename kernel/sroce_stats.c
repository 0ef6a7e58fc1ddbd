// SPDX-License-Identifier: GPL-2.0-only
/*
 * sroce port counters and per-QP counter objects. The port counters are
 * sdev->counters[] (atomic64_t, bumped lock-free with sroce_count()); this
 * file only exports them to the RDMA core's hw_stats, which caches a
 * snapshot for RDMA_HW_STATS_DEFAULT_LIFESPAN. Names and order come from
 * SROCE_COUNTER_LIST (sroce_counters.h); their meaning is documented in
 * Documentation/observability.md.
 *
 * Counter objects ("rdma statistic qp set link DEV/1 auto ...", "rdma
 * statistic qp bind ..."): each QP counts SROCE_QP_COUNTER_LIST
 * (sroce_qp_stats.h) all its life; a counter object reports what its QPs
 * counted while bound to it. The core adds every counter object's values
 * to the port's, index by index, in "rdma statistic show link" and
 * sysfs: on an RNIC a bound QP stops counting in the port's default set.
 * sroce's port counters count every QP, so the counter objects use a
 * table of their own after the port's: the port's entries of it are
 * always 0, and an object's entries of the port counters are always 0
 * and hidden. The object's extra entries are IB_STAT_FLAG_OPTIONAL, off
 * at the port (nothing to enable: no modify_hw_stat) and absent from
 * sysfs.
 */
#include <linux/bitmap.h>
#include <linux/slab.h>
#include <rdma/ib_verbs.h>
#include <rdma/rdma_counter.h>

#include "sroce.h"
#include "sroce_qp.h"
#include "sroce_qp_stats.h"
#include "sroce_stats.h"

#define SROCE_COUNTER_DESC(id, str) [SROCE_CNT_##id] = { .name = str },
#define SROCE_QP_COUNTER_DESC(id, str)				\
	[SROCE_NUM_COUNTERS + SROCE_QCNT_##id] = {		\
		.name = str, .flags = IB_STAT_FLAG_OPTIONAL,	\
	},
static const struct rdma_stat_desc sroce_counter_descs[] = {
	SROCE_COUNTER_LIST(SROCE_COUNTER_DESC)
	SROCE_QP_COUNTER_LIST(SROCE_QP_COUNTER_DESC)
};

#undef SROCE_COUNTER_DESC
#undef SROCE_QP_COUNTER_DESC

#define SROCE_NUM_DESCS (SROCE_NUM_COUNTERS + SROCE_NUM_QP_COUNTERS)

/* The one table, port and counter objects alike, @n from @first hidden. */
static struct rdma_hw_stats *sroce_alloc_stats(unsigned int first,
					       unsigned int n)
{
	struct rdma_hw_stats *stats;

	BUILD_BUG_ON(ARRAY_SIZE(sroce_counter_descs) != SROCE_NUM_DESCS);
	stats = rdma_alloc_hw_stats_struct(sroce_counter_descs,
					   SROCE_NUM_DESCS,
					   RDMA_HW_STATS_DEFAULT_LIFESPAN);
	if (stats)
		bitmap_set(stats->is_disabled, first, n);
	return stats;
}

static struct rdma_hw_stats *sroce_alloc_hw_port_stats(struct ib_device *ibdev,
						       u32 port_num)
{
	return sroce_alloc_stats(SROCE_NUM_COUNTERS, SROCE_NUM_QP_COUNTERS);
}

/* Called by the core under its hw_stats lock; any port, all counters. */
static int sroce_get_hw_stats(struct ib_device *ibdev,
			      struct rdma_hw_stats *stats, u32 port_num,
			      int index)
{
	struct sroce_dev *sdev = to_sroce_dev(ibdev);
	int i;

	if (!port_num || stats->num_counters != SROCE_NUM_DESCS)
		return -EINVAL;
	for (i = 0; i < SROCE_NUM_COUNTERS; i++)
		stats->value[i] = atomic64_read(&sdev->counters[i]);
	for (; i < SROCE_NUM_DESCS; i++)
		stats->value[i] = 0;
	return SROCE_NUM_DESCS;
}

/*
 * The driver side of one rdma_counter, in sdev->counter_xa by the
 * counter's id. The core serialises bind, unbind and update_stats of a
 * counter with its counter->lock (a mutex; process context), which
 * protects all of this and each bound QP's binding.
 * A QP is unbound (by the core, under that lock) before it is destroyed,
 * so every QP on @qps is alive while the lock is held.
 */
struct sroce_counter_obj {
	struct list_head qps;		/* of struct sroce_qp_binding */
	/* What QPs since unbound counted while they were bound. */
	u64 left[SROCE_NUM_QP_COUNTERS];
};

/*
 * One bound QP (qp->binding): allocated at bind so that the many QPs
 * never bound carry none of it.
 */
struct sroce_qp_binding {
	struct list_head link;		/* in the counter's qps */
	struct sroce_qp *qp;
	struct sroce_qp_stats base;	/* the QP's counts when it was bound */
};

static struct sroce_counter_obj *sroce_counter_of(struct rdma_counter *counter)
{
	return xa_load(&to_sroce_dev(counter->device)->counter_xa, counter->id);
}

/* A QP's counts now; they move while it is read. */
static u64 sroce_qp_stat(struct sroce_qp *qp, unsigned int i)
{
	return READ_ONCE(qp->stats.v[i]) + READ_ONCE(qp->rstats.v[i]);
}

static struct rdma_hw_stats *
sroce_counter_alloc_stats(struct rdma_counter *counter)
{
	return sroce_alloc_stats(0, SROCE_NUM_COUNTERS);
}

/*
 * The counter gets its driver side and its id when its first QP is
 * bound, as the core names a counter object by the id the driver gives
 * it; a counter whose first bind failed is freed by the core without
 * counter_dealloc, so nothing may be left for it before that.
 */
static int sroce_counter_bind_qp(struct rdma_counter *counter,
				 struct ib_qp *ibqp)
{
	struct sroce_dev *sdev = to_sroce_dev(counter->device);
	struct sroce_qp *qp = to_sroce_qp(ibqp);
	struct sroce_qp_binding *b;
	struct sroce_counter_obj *c;
	unsigned int i;
	int err;

	if (WARN_ON_ONCE(qp->binding))
		return -EINVAL;
	b = kzalloc(sizeof(*b), GFP_KERNEL);
	if (!b)
		return -ENOMEM;
	if (!counter->id) {
		c = kzalloc(sizeof(*c), GFP_KERNEL);
		if (!c) {
			err = -ENOMEM;
			goto err_binding;
		}
		INIT_LIST_HEAD(&c->qps);
		err = xa_alloc_cyclic(&sdev->counter_xa, &counter->id, c,
				      xa_limit_32b, &sdev->counter_next,
				      GFP_KERNEL);
		if (err < 0) {
			kfree(c);
			goto err_binding;
		}
	} else {
		c = sroce_counter_of(counter);
		if (WARN_ON_ONCE(!c)) {
			err = -EINVAL;
			goto err_binding;
		}
	}
	b->qp = qp;
	for (i = 0; i < SROCE_NUM_QP_COUNTERS; i++)
		b->base.v[i] = sroce_qp_stat(qp, i);
	list_add_tail(&b->link, &c->qps);
	qp->binding = b;
	ibqp->counter = counter;
	return 0;

err_binding:
	kfree(b);
	return err;
}

static int sroce_counter_unbind_qp(struct ib_qp *ibqp)
{
	struct sroce_qp *qp = to_sroce_qp(ibqp);
	struct sroce_counter_obj *c = sroce_counter_of(ibqp->counter);
	struct sroce_qp_binding *b = qp->binding;
	unsigned int i;

	if (WARN_ON_ONCE(!c || !b))
		return -EINVAL;
	for (i = 0; i < SROCE_NUM_QP_COUNTERS; i++)
		c->left[i] += sroce_qp_stat(qp, i) - b->base.v[i];
	list_del(&b->link);
	kfree(b);
	qp->binding = NULL;
	ibqp->counter = NULL;
	return 0;
}

static int sroce_counter_update_stats(struct rdma_counter *counter)
{
	struct sroce_counter_obj *c = sroce_counter_of(counter);
	struct sroce_qp_binding *b;
	unsigned int i;
	u64 sum;

	if (!c)
		return 0;	/* no QP was ever bound: all 0 */
	for (i = 0; i < SROCE_NUM_QP_COUNTERS; i++) {
		sum = c->left[i];
		list_for_each_entry(b, &c->qps, link)
			sum += sroce_qp_stat(b->qp, i) - b->base.v[i];
		counter->stats->value[SROCE_NUM_COUNTERS + i] = sum;
	}
	return 0;
}

/* The last QP is gone and the core has taken the counter's final values. */
static int sroce_counter_dealloc(struct rdma_counter *counter)
{
	struct sroce_dev *sdev = to_sroce_dev(counter->device);
	struct sroce_counter_obj *c;

	if (!counter->id)
		return 0;
	c = xa_erase(&sdev->counter_xa, counter->id);
	WARN_ON_ONCE(c && !list_empty(&c->qps));
	kfree(c);
	return 0;
}

SROCE_COUNTER_OPS(sroce_counter_bind_qp, sroce_counter_unbind_qp)

const struct ib_device_ops sroce_stats_ops = {
	.alloc_hw_port_stats = sroce_alloc_hw_port_stats,
	.counter_alloc_stats = sroce_counter_alloc_stats,
	.counter_bind_qp = sroce_counter_bind_qp_op,
	.counter_dealloc = sroce_counter_dealloc,
	.counter_unbind_qp = sroce_counter_unbind_qp_op,
	.counter_update_stats = sroce_counter_update_stats,
	.get_hw_stats = sroce_get_hw_stats,
};
