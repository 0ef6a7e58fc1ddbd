// SPDX-License-Identifier: GPL-2.0-only
/*
 * sroce multicast: attach_mcast / detach_mcast and the group lookup of
 * the receive fan-out.
 *
 * A group is its MGID, an IPv4-mapped or IPv6 multicast address. The first
 * attachment joins that IP group on the netdev (so the IP layer accepts
 * the datagrams and the MAC filter lets them in, as a NIC's multicast
 * table would); the last detachment leaves it. The receive path
 * (sroce_recv.c) delivers a packet to QPN 0xFFFFFF, one clone each, to
 * every QP sroce_mcast_qps() finds attached to the group of its
 * destination address; P_Key and Q_Key are checked as for any datagram
 * (R1.5). Groups hold no QP reference: destroy_qp takes its QP out of
 * every group first, under the lock sroce_mcast_qps() holds while it
 * takes its own references to the group's QPs.
 */
#include <linux/igmp.h>
#include <linux/inetdevice.h>
#include <linux/ipv6.h>
#include <linux/rtnetlink.h>
#include <linux/skbuff.h>
#include <net/addrconf.h>
#include <rdma/ib_addr.h>

#include "sroce.h"
#include "sroce_mcast.h"
#include "sroce_param.h"
#include "sroce_qp.h"

struct sroce_mcg {
	struct list_head list;		/* in sroce_mcast.groups */
	union ib_gid mgid;
	u32 nqps;
	struct sroce_qp *qps[SROCE_MAX_MCAST_QP_ATTACH];
	/*
	 * Attachments of qps[i] (attach_mutex): uverbs passes an attach of
	 * a group it holds already under another MLID on to the driver, and
	 * counts the QP busy once per attach that succeeded, so each needs
	 * a detach that succeeds (an MLID means nothing on RoCE).
	 */
	u32 nattach[SROCE_MAX_MCAST_QP_ATTACH];
};

void sroce_mcast_init(struct sroce_mcast *m)
{
	mutex_init(&m->attach_mutex);
	spin_lock_init(&m->lock);
	INIT_LIST_HEAD(&m->groups);
}

/* Caller holds m->lock. */
static struct sroce_mcg *sroce_mcg_find(struct sroce_mcast *m,
					const union ib_gid *mgid)
{
	struct sroce_mcg *g;

	list_for_each_entry(g, &m->groups, list)
		if (!memcmp(&g->mgid, mgid, sizeof(*mgid)))
			return g;
	return NULL;
}

/* Join or leave the IP group of @mgid on the device's netdev. Sleeps. */
static int sroce_mcast_ip(struct sroce_dev *sdev, const union ib_gid *mgid,
			  bool join)
{
	const struct in6_addr *a = (const struct in6_addr *)mgid->raw;
	struct in_device *in_dev;
	int err = 0;

	if (ipv6_addr_v4mapped(a)) {
		rtnl_lock();
		in_dev = __in_dev_get_rtnl(sdev->ndev);
		if (!in_dev)
			err = -ENODEV;
		else if (join)
			ip_mc_inc_group(in_dev, a->s6_addr32[3]);
		else
			ip_mc_dec_group(in_dev, a->s6_addr32[3]);
		rtnl_unlock();
		return err;
	}
	if (!IS_ENABLED(CONFIG_IPV6))
		return -EINVAL;
	return join ? ipv6_dev_mc_inc(sdev->ndev, a) :
		      ipv6_dev_mc_dec(sdev->ndev, a);
}

static bool sroce_mgid_valid(const union ib_gid *mgid)
{
	const struct in6_addr *a = (const struct in6_addr *)mgid->raw;

	if (ipv6_addr_v4mapped(a))
		return ipv4_is_multicast(a->s6_addr32[3]);
	return ipv6_addr_is_multicast(a);
}

static int sroce_attach_mcast(struct ib_qp *ibqp, union ib_gid *mgid, u16 mlid)
{
	struct sroce_qp *qp = to_sroce_qp(ibqp);
	struct sroce_dev *sdev = qp->sdev;
	struct sroce_mcast *m = &sdev->mcast;
	struct sroce_mcg *g, *new = NULL;
	int err = 0;
	u32 i;

	/* Only UD QPs join groups (IBA 10.5); the GSI QP does not. */
	if (ibqp->qp_type != IB_QPT_UD || !sroce_mgid_valid(mgid))
		return -EINVAL;

	mutex_lock(&m->attach_mutex);
	spin_lock_bh(&m->lock);
	g = sroce_mcg_find(m, mgid);
	spin_unlock_bh(&m->lock);
	if (!g) {
		if (m->ngroups >= SROCE_MAX_MCAST_GRP) {
			err = -ENOMEM;
			goto unlock;
		}
		new = kzalloc(sizeof(*new), GFP_KERNEL);
		if (!new) {
			err = -ENOMEM;
			goto unlock;
		}
		new->mgid = *mgid;
		err = sroce_mcast_ip(sdev, mgid, true);
		if (err) {
			kfree(new);
			goto unlock;
		}
		g = new;
	}
	for (i = 0; i < g->nqps; i++)
		if (g->qps[i] == qp) {
			g->nattach[i]++;	/* attached already: one more */
			goto unlock;
		}
	if (g->nqps >= SROCE_MAX_MCAST_QP_ATTACH ||
	    m->nattached >= SROCE_MAX_MCAST_TOTAL_ATTACH) {
		err = -ENOMEM;
		goto undo_new;
	}
	spin_lock_bh(&m->lock);
	g->nattach[g->nqps] = 1;
	g->qps[g->nqps++] = qp;
	if (new) {
		list_add_tail(&new->list, &m->groups);
		m->ngroups++;
	}
	m->nattached++;
	spin_unlock_bh(&m->lock);
	atomic_inc(&qp->mcast_groups);
	mutex_unlock(&m->attach_mutex);
	return 0;

undo_new:
	if (new) {
		sroce_mcast_ip(sdev, mgid, false);
		kfree(new);
	}
unlock:
	mutex_unlock(&m->attach_mutex);
	return err;
}

/*
 * Take one attachment of @qp to @g away, or all of them (@all: the QP is
 * destroyed). Caller holds attach_mutex. Returns true if @qp was
 * attached. A QP whose last attachment goes leaves the group; an emptied
 * group is unlinked and freed, and its IP group left.
 */
static bool sroce_mcg_remove(struct sroce_dev *sdev, struct sroce_mcg *g,
			     struct sroce_qp *qp, bool all)
{
	struct sroce_mcast *m = &sdev->mcast;
	bool empty = false;
	u32 i, last;

	spin_lock_bh(&m->lock);
	for (i = 0; i < g->nqps && g->qps[i] != qp; i++)
		;
	if (i == g->nqps) {
		spin_unlock_bh(&m->lock);
		return false;
	}
	if (!all && --g->nattach[i]) {
		spin_unlock_bh(&m->lock);
		return true;
	}
	last = --g->nqps;
	g->qps[i] = g->qps[last];
	g->nattach[i] = g->nattach[last];
	m->nattached--;
	if (!g->nqps) {
		list_del(&g->list);
		m->ngroups--;
		empty = true;
	}
	spin_unlock_bh(&m->lock);
	atomic_dec(&qp->mcast_groups);
	if (empty) {
		sroce_mcast_ip(sdev, &g->mgid, false);
		kfree(g);
	}
	return true;
}

static int sroce_detach_mcast(struct ib_qp *ibqp, union ib_gid *mgid, u16 mlid)
{
	struct sroce_qp *qp = to_sroce_qp(ibqp);
	struct sroce_mcast *m = &qp->sdev->mcast;
	struct sroce_mcg *g;
	int err = -EINVAL;

	mutex_lock(&m->attach_mutex);
	spin_lock_bh(&m->lock);
	g = sroce_mcg_find(m, mgid);
	spin_unlock_bh(&m->lock);
	if (g && sroce_mcg_remove(qp->sdev, g, qp, false))
		err = 0;
	mutex_unlock(&m->attach_mutex);
	return err;
}

void sroce_mcast_qp_gone(struct sroce_qp *qp)
{
	struct sroce_mcast *m = &qp->sdev->mcast;
	struct sroce_mcg *g, *next;

	if (!atomic_read(&qp->mcast_groups))
		return;
	mutex_lock(&m->attach_mutex);
	/* Only attach/detach change the list, and we hold their mutex. */
	list_for_each_entry_safe(g, next, &m->groups, list)
		sroce_mcg_remove(qp->sdev, g, qp, true);
	mutex_unlock(&m->attach_mutex);
}

/* Device teardown: every QP is gone, so every group is. */
void sroce_mcast_fini(struct sroce_dev *sdev)
{
	WARN_ON(!list_empty(&sdev->mcast.groups));
	mutex_destroy(&sdev->mcast.attach_mutex);
}

/**
 * sroce_mcast_qps - the QPs of this device attached to a group
 * @sdev: the receiving device
 * @mgid: the group: a multicast packet's destination address as a GID
 * @qps:  filled with up to SROCE_MAX_MCAST_QP_ATTACH QPs, each with a
 *        reference the caller drops (sroce_qp_put())
 *
 * Returns how many QPs are in @qps (0: no group, or none of its QPs
 * here). Softirq or BH work. The QPs are taken under the lock and fed by
 * the caller after it is dropped: their engines run outside the
 * device-wide lock, and a QP detached or destroyed meanwhile stays valid
 * until its packet is handed over (destroy_qp waits for the reference).
 */
u32 sroce_mcast_qps(struct sroce_dev *sdev, const union ib_gid *mgid,
		    struct sroce_qp **qps)
{
	struct sroce_mcast *m = &sdev->mcast;
	struct sroce_mcg *g;
	u32 i, n = 0;

	spin_lock(&m->lock);
	g = sroce_mcg_find(m, mgid);
	for (i = 0; g && i < g->nqps; i++)
		if (refcount_inc_not_zero(&g->qps[i]->ref))
			qps[n++] = g->qps[i];
	spin_unlock(&m->lock);
	return n;
}

const struct ib_device_ops sroce_mcast_ops = {
	.attach_mcast = sroce_attach_mcast,
	.detach_mcast = sroce_detach_mcast,
};
