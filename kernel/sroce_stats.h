/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * sroce port counters as rdma_hw_stats ("rdma statistic show link X/1",
 * /sys/class/infiniband/X/ports/1/hw_counters/).
 */
#ifndef SROCE_STATS_H
#define SROCE_STATS_H

#include <rdma/ib_verbs.h>

extern const struct ib_device_ops sroce_stats_ops;

#endif /* SROCE_STATS_H */
