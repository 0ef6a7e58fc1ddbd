// SPDX-License-Identifier: GPL-2.0-only
/*
 * sroce port counters. The counters themselves are sdev->counters[]
 * (atomic64_t, bumped lock-free with sroce_count()); this file only
 * exports them to the RDMA core's hw_stats, which caches a snapshot for
 * RDMA_HW_STATS_DEFAULT_LIFESPAN. Names and order come from
 * SROCE_COUNTER_LIST (sroce_counters.h); their meaning is documented in
 * Documentation/observability.md.
 */
#include <rdma/ib_verbs.h>

#include "sroce.h"
#include "sroce_stats.h"

#define SROCE_COUNTER_DESC(id, str) [SROCE_CNT_##id] = { .name = str },
static const struct rdma_stat_desc sroce_counter_descs[] = {
	SROCE_COUNTER_LIST(SROCE_COUNTER_DESC)
};

#undef SROCE_COUNTER_DESC

static struct rdma_hw_stats *sroce_alloc_hw_port_stats(struct ib_device *ibdev,
						       u32 port_num)
{
	BUILD_BUG_ON(ARRAY_SIZE(sroce_counter_descs) != SROCE_NUM_COUNTERS);
	return rdma_alloc_hw_stats_struct(sroce_counter_descs,
					  ARRAY_SIZE(sroce_counter_descs),
					  RDMA_HW_STATS_DEFAULT_LIFESPAN);
}

/* Called by the core under its hw_stats lock; any port, all counters. */
static int sroce_get_hw_stats(struct ib_device *ibdev,
			      struct rdma_hw_stats *stats, u32 port_num,
			      int index)
{
	struct sroce_dev *sdev = to_sroce_dev(ibdev);
	int i;

	if (!port_num || stats->num_counters != SROCE_NUM_COUNTERS)
		return -EINVAL;
	for (i = 0; i < SROCE_NUM_COUNTERS; i++)
		stats->value[i] = atomic64_read(&sdev->counters[i]);
	return SROCE_NUM_COUNTERS;
}

const struct ib_device_ops sroce_stats_ops = {
	.alloc_hw_port_stats = sroce_alloc_hw_port_stats,
	.get_hw_stats = sroce_get_hw_stats,
};
