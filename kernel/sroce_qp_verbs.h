/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * sroce QP verbs (sroce_qp_verbs.c): create, modify, query, destroy and
 * the post verbs, as the device's ops table hands them to the core. The
 * QP object they work on is sroce_qp.h.
 */
#ifndef SROCE_QP_VERBS_H
#define SROCE_QP_VERBS_H

#include <rdma/ib_verbs.h>

extern const struct ib_device_ops sroce_qp_ops;

#endif /* SROCE_QP_VERBS_H */
