/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * sroce network attachment (sroce_net.c): the per-netns RoCEv2 UDP
 * sockets (port 4791) and the devices of each netns, the receive entries
 * (the sockets' encap_rcv and each device's loopback queue), per-device
 * net init/fini. Address vectors are in sroce_av.h, transmit in
 * sroce_xmit.h, receive validation in sroce_recv.h.
 *
 * Contexts: sroce_net_dev_init/fini and sroce_net_init/exit sleep (process
 * context only).
 */
#ifndef SROCE_NET_H
#define SROCE_NET_H

#include <linux/in.h>
#include <linux/in6.h>
#include <linux/list.h>
#include <linux/rcupdate.h>
#include <linux/skbuff.h>
#include <linux/workqueue.h>
#include <linux/xarray.h>
#include <rdma/ib_verbs.h>

#include "sroce_av.h"

#include "sroce.h"

/* IANA port of RoCEv2 (IBA Annex A17.2). */
#define SROCE_UDP_PORT		4791

/* Module init/exit: the per-netns bookkeeping. */
int sroce_net_init(void);
void sroce_net_exit(void);

/* Device life: the UDP sockets of the device's netns, loopback queue. */
int sroce_net_dev_init(struct sroce_dev *sdev);
void sroce_net_dev_fini(struct sroce_dev *sdev);

/*
 * The objects below are sroce_net.c's; sroce_xmit.c looks into them only
 * to deliver a packet to a sroce device of this host (local delivery).
 */

/*
 * One per netns with at least one sroce device, on sroce_net_list (both
 * in sroce_net.c, which has the rules in full).
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
	struct work_struct loop_work;	/* on system_bh_wq: drains loop_q */
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

#endif /* SROCE_NET_H */
