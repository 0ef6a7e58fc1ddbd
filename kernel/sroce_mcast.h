/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * sroce multicast groups: UD QPs attached to an MGID receive the packets
 * sent to QPN 0xFFFFFF at that group's IP address (seed-rules R1.1, R1.4).
 */
#ifndef SROCE_MCAST_H
#define SROCE_MCAST_H

#include <linux/types.h>
#include <rdma/ib_verbs.h>

struct sroce_dev;
struct sroce_mcast;
struct sroce_qp;

void sroce_mcast_init(struct sroce_mcast *m);
void sroce_mcast_fini(struct sroce_dev *sdev);
/* Detach @qp from every group (destroy_qp). */
void sroce_mcast_qp_gone(struct sroce_qp *qp);
/* Receive: the QPs attached to group @mgid, each with a reference. */
u32 sroce_mcast_qps(struct sroce_dev *sdev, const union ib_gid *mgid,
		    struct sroce_qp **qps);

extern const struct ib_device_ops sroce_mcast_ops;

#endif /* SROCE_MCAST_H */
