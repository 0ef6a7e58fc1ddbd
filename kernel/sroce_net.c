// SPDX-License-Identifier: GPL-2.0-only
/*
 * sroce network attachment: the RoCEv2 UDP sockets (port 4791) of each
 * network namespace that holds a sroce device's netdev and the devices
 * of each netns, the two receive entries that hand packets to
 * sroce_recv_skb() (the sockets' encap_rcv and each device's loopback
 * queue), per-device net init/fini, and address vectors. Transmit,
 * including the local delivery that fills the loopback queues, is
 * sroce_xmit.c's.
 *
 * Objects and locking (the structures are in sroce_netns.h):
 *
 * struct sroce_net_ns - one per netns with at least one sroce device:
 *   an IPv4 and an IPv6 UDP tunnel socket, and an xarray ifindex ->
 *   sroce_dev of the devices whose netdev is in that netns. On
 *   sroce_net_list. users, sock4/sock6, net and the list are protected by
 *   sroce_net_mutex (process context only: socket creation sleeps). The
 *   xarray has its own lock for writers (taken under sroce_net_mutex) and
 *   is read under RCU by the receive softirq and by local delivery. The
 *   sockets' sk_user_data points to the sroce_net_ns (RCU); the object is
 *   freed with kfree_rcu after its sockets are released, so a receive
 *   softirq that still sees it can finish.
 *
 * struct sroce_net_dev - one per device (sdev->net): its sroce_net_ns and
 *   its loopback queue (an sk_buff_head, with its own lock) filled by
 *   sroce_xmit.c and drained by a BH work item here. Written only by
 *   sroce_net_dev_init/fini.
 *
 * A device found through the xarray is used only after ib_device_try_get()
 * succeeded: that fails once unregistration has started, and the
 * ib_device memory itself is freed after an RCU grace period.
 *
 * Netns life: a sroce_net_ns is created by the first device's
 * sroce_net_dev_init and freed by the last sroce_net_dev_fini. If the
 * netns dies first (its devices' unregistration is asynchronous), the
 * pernet exit releases the sockets at once and leaves the (empty) object
 * to the last fini; no netns reference is held, so "ip netns del" works.
 */
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/netdevice.h>
#include <linux/skbuff.h>
#include <linux/slab.h>
#include <linux/workqueue.h>
#include <net/net_namespace.h>
#include <net/udp_tunnel.h>
#include <rdma/ib_verbs.h>

#include "sroce.h"
#include "sroce_net.h"
#include "sroce_netns.h"
#include "sroce_recv.h"

/* Loopback packets handled per run of the BH work. */
#define SROCE_LOOP_BUDGET	64

static LIST_HEAD(sroce_net_list);
static DEFINE_MUTEX(sroce_net_mutex);

/*
 * encap_rcv of the sockets: softirq, RCU held, skb->data at the UDP
 * header. Always consumes the skb (returns 0). Packets that arrive on a
 * netdev without a sroce device are dropped: there is no device to count
 * them on.
 */
static int sroce_udp_encap_recv(struct sock *sk, struct sk_buff *skb)
{
	struct sroce_net_ns *ns = rcu_dereference_sk_user_data(sk);
	struct sroce_dev *sdev = NULL;

	if (ns && skb->dev)
		sdev = sroce_ns_dev_get(ns, skb->dev);
	if (!sdev) {
		kfree_skb(skb);
		return 0;
	}
	sroce_recv_skb(sdev, skb, false);
	ib_device_put(&sdev->ibdev);
	return 0;
}

static struct socket *sroce_sock_create(struct net *net,
					struct sroce_net_ns *ns, bool ipv6)
{
	struct udp_tunnel_sock_cfg tcfg = {
		.sk_user_data = ns,
		.encap_type = 1,
		.encap_rcv = sroce_udp_encap_recv,
	};
	struct udp_port_cfg cfg = {
		.family = ipv6 ? AF_INET6 : AF_INET,
		.local_udp_port = htons(SROCE_UDP_PORT),
		/* RoCEv2 senders may leave the IPv6 UDP checksum zero. */
		.use_udp6_rx_checksums = false,
		.ipv6_v6only = ipv6,
	};
	struct socket *sock;
	int err;

	err = udp_sock_create(net, &cfg, &sock);
	if (err)
		return ERR_PTR(err);
	sroce_udp_tunnel_setup(net, sock, &tcfg);
	return sock;
}

/* Caller holds sroce_net_mutex. */
static void sroce_ns_release_socks(struct sroce_net_ns *ns)
{
	lockdep_assert_held(&sroce_net_mutex);
	if (ns->sock6)
		sroce_udp_tunnel_release(ns->sock6);
	if (ns->sock4)
		sroce_udp_tunnel_release(ns->sock4);
	ns->sock6 = NULL;
	ns->sock4 = NULL;
}

/*
 * The sroce_net_ns of @net with a new user, creating it and its sockets
 * if needed. Caller holds sroce_net_mutex and a reference on @net.
 */
static struct sroce_net_ns *sroce_ns_get(struct net *net)
{
	struct sroce_net_ns *ns;
	struct socket *sock;
	int err;

	lockdep_assert_held(&sroce_net_mutex);
	list_for_each_entry(ns, &sroce_net_list, node) {
		if (ns->net == net) {
			ns->users++;
			return ns;
		}
	}

	ns = kzalloc(sizeof(*ns), GFP_KERNEL);
	if (!ns)
		return ERR_PTR(-ENOMEM);
	ns->net = net;
	ns->users = 1;
	xa_init(&ns->devs);

	sock = sroce_sock_create(net, ns, false);
	if (IS_ERR(sock)) {
		err = PTR_ERR(sock);
		goto err_free_ns;
	}
	ns->sock4 = sock;
	sock = sroce_sock_create(net, ns, true);
	if (IS_ERR(sock)) {
		err = PTR_ERR(sock);
		/* IPv6 disabled (ipv6.disable=1): IPv4 only. */
		if (err != -EAFNOSUPPORT)
			goto err_release_socks;
		sock = NULL;
	}
	ns->sock6 = sock;
	list_add(&ns->node, &sroce_net_list);
	return ns;

err_release_socks:
	sroce_ns_release_socks(ns);
err_free_ns:
	kfree(ns);
	return ERR_PTR(err);
}

/* Drop a user; the last one frees. Caller holds sroce_net_mutex. */
static void sroce_ns_put(struct sroce_net_ns *ns)
{
	lockdep_assert_held(&sroce_net_mutex);
	if (--ns->users)
		return;
	sroce_ns_release_socks(ns);
	list_del(&ns->node);
	xa_destroy(&ns->devs);
	kfree_rcu(ns, rcu);
}

/* Drains the loopback queue of one device (BH context, RCU held). */
static void sroce_loop_work(struct work_struct *work)
{
	struct sroce_net_dev *nd = container_of(work, struct sroce_net_dev,
						loop_work.work);
	struct sroce_dev *sdev = nd->sdev;
	struct sk_buff *skb;
	int budget = SROCE_LOOP_BUDGET;

	if (!ib_device_try_get(&sdev->ibdev)) {
		/* Being unregistered: sroce_net_dev_fini purges the rest. */
		skb_queue_purge(&nd->loop_q);
		return;
	}
	while (budget-- && (skb = skb_dequeue(&nd->loop_q)))
		sroce_recv_skb(sdev, skb, true);
	if (!skb_queue_empty(&nd->loop_q))
		sroce_bh_work_queue(&nd->loop_work);
	ib_device_put(&sdev->ibdev);
}

/**
 * sroce_net_dev_init - attach a new device to its netns's RoCEv2 sockets
 * @sdev: the device, not yet registered; sdev->ndev set
 *
 * Creates the netns's UDP sockets if this is its first device. Process
 * context; takes sroce_net_mutex. Returns 0 or a negative errno
 * (-EADDRINUSE if something else owns UDP port 4791 in that netns, e.g.
 * rdma_rxe in init_net), leaving nothing behind on error.
 */
int sroce_net_dev_init(struct sroce_dev *sdev)
{
	struct net_device *ndev = sdev->ndev;
	struct sroce_net_ns *ns;
	struct sroce_net_dev *nd;
	struct net *net;
	int err;

	nd = kzalloc(sizeof(*nd), GFP_KERNEL);
	if (!nd)
		return -ENOMEM;
	nd->sdev = sdev;
	skb_queue_head_init(&nd->loop_q);
	sroce_bh_work_init(&nd->loop_work, sroce_loop_work);

	rcu_read_lock();
	net = maybe_get_net(dev_net(ndev));
	rcu_read_unlock();
	if (!net) {
		err = -ENODEV;		/* the netns is being dismantled */
		goto err_free_nd;
	}

	mutex_lock(&sroce_net_mutex);
	ns = sroce_ns_get(net);
	if (IS_ERR(ns)) {
		err = PTR_ERR(ns);
		goto err_unlock;
	}
	nd->ns = ns;
	nd->ifindex = ndev->ifindex;
	err = xa_insert(&ns->devs, nd->ifindex, sdev, GFP_KERNEL);
	if (err)
		goto err_put_ns;
	mutex_unlock(&sroce_net_mutex);
	put_net(net);
	sdev->net = nd;
	return 0;

err_put_ns:
	sroce_ns_put(ns);
err_unlock:
	mutex_unlock(&sroce_net_mutex);
	put_net(net);
err_free_nd:
	kfree(nd);
	return err;
}

/**
 * sroce_net_dev_fini - detach a device from its netns's sockets
 * @sdev: the device; unregistered (or never registered), so no new
 *        ib_device reference can be taken on it
 *
 * Releases the sockets with the netns's last device and drops queued
 * loopback packets. Idempotent. Process context; takes sroce_net_mutex.
 */
void sroce_net_dev_fini(struct sroce_dev *sdev)
{
	struct sroce_net_dev *nd = sdev->net;

	if (!nd)
		return;
	sdev->net = NULL;

	mutex_lock(&sroce_net_mutex);
	xa_erase(&nd->ns->devs, nd->ifindex);
	sroce_ns_put(nd->ns);
	mutex_unlock(&sroce_net_mutex);

	sroce_bh_work_cancel_sync(&nd->loop_work);
	skb_queue_purge(&nd->loop_q);
	kfree(nd);
}

/*
 * A netns is going away: its devices' netdevs are already gone from it,
 * but the devices' unregistration may still be queued. Release the
 * sockets now; the last sroce_net_dev_fini frees the object.
 */
static void __net_exit sroce_net_exit_net(struct net *net)
{
	struct sroce_net_ns *ns;

	mutex_lock(&sroce_net_mutex);
	list_for_each_entry(ns, &sroce_net_list, node) {
		if (ns->net == net) {
			sroce_ns_release_socks(ns);
			ns->net = NULL;
		}
	}
	mutex_unlock(&sroce_net_mutex);
}

static struct pernet_operations sroce_net_ops = {
	.exit = sroce_net_exit_net,
};

int sroce_net_init(void)
{
	return register_pernet_subsys(&sroce_net_ops);
}

void sroce_net_exit(void)
{
	unregister_pernet_subsys(&sroce_net_ops);
	/* Every device is gone, so every sroce_net_ns is. */
	WARN_ON(!list_empty(&sroce_net_list));
	/* No receive softirq may still run sroce_udp_encap_recv. */
	synchronize_net();
}
