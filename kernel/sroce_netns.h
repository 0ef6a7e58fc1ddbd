/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * sroce in the network namespaces: the RoCEv2 UDP port, each netns's
 * sockets and table of sroce devices, and each device's loopback queue.
 * sroce_net.c sets them up, receives through them and has the rules in
 * full; sroce_xmit.c reads them only to deliver a packet to a sroce
 * device of this host (local delivery). Below both: types and one
 * lookup, no calls.
 */
#ifndef SROCE_NETNS_H
#define SROCE_NETNS_H

#include <linux/list.h>
#include <linux/netdevice.h>
#include <linux/rcupdate.h>
#include <linux/skbuff.h>
#include <linux/workqueue.h>
#include <linux/xarray.h>
#include <rdma/ib_verbs.h>

#include "sroce.h"

/* IANA port of RoCEv2 (IBA Annex A17.2). */
#define SROCE_UDP_PORT		4791

/*
 * One per netns with at least one sroce device, on sroce_net_list (both
 * in sroce_net.c).
 */
struct sroce_net_ns {
	/* Protected by sroce_net_mutex. */
	struct list_head node;		/* on sroce_net_list */
	struct net *net;		/* NULL once the netns has exited */
	unsigned int users;		/* devices using this object */
	struct socket *sock4;		/* NULL when released */
	struct socket *sock6;		/* NULL if IPv6 is off or released */

	/* ifindex -> struct sroce_dev; RCU readers, xa lock for writers. */
	struct xarray devs;
	struct rcu_head rcu;
};

/*
 * One per device (sdev->net), written only by sroce_net_dev_init/fini.
 * loop_q is the device's loopback FIFO, under its own sk_buff_head lock:
 * filled by any transmitting owner (sroce_loopback(), sroce_xmit.c),
 * drained by loop_work (sroce_loop_work()) and purged by
 * sroce_net_dev_fini() (sroce_net.c).
 */
struct sroce_net_dev {
	struct sroce_dev *sdev;
	struct sroce_net_ns *ns;
	int ifindex;			/* key in ns->devs */
	struct sk_buff_head loop_q;	/* packets sent to this device locally */
	struct sroce_bh_work loop_work;	/* BH context: drains loop_q */
};

/*
 * The device of @ndev in @ns, with an ib_device reference, or NULL.
 * Context: RCU read-side section (softirq counts).
 */
static inline struct sroce_dev *sroce_ns_dev_get(struct sroce_net_ns *ns,
						 const struct net_device *ndev)
{
	struct sroce_dev *sdev = xa_load(&ns->devs, ndev->ifindex);

	if (!sdev || sdev->ndev != ndev || !ib_device_try_get(&sdev->ibdev))
		return NULL;
	return sdev;
}

#endif /* SROCE_NETNS_H */
