/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * sroce driver attributes of "rdma resource show qp|cq|mr|srq -dd" and
 * its -j form (sroce_restrack.c). Documentation/observability.md lists
 * them.
 */
#ifndef SROCE_RESTRACK_H
#define SROCE_RESTRACK_H

#include <rdma/ib_verbs.h>

extern const struct ib_device_ops sroce_restrack_ops;

#endif /* SROCE_RESTRACK_H */
