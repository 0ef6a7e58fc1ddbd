// SPDX-License-Identifier: GPL-2.0-only
/*
 * sroce device life cycle: the registry of sroce devices, creation on
 * "rdma link add", teardown when the core unregisters one ("rdma link
 * del", netdev removal or module unload), and port events.
 */
#include <linux/if_arp.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/netdevice.h>
#include <net/addrconf.h>
#include <rdma/ib_verbs.h>
#include <rdma/sroce-abi.h>

#include "sroce.h"
#include "sroce_fault.h"
#include "sroce_net.h"
#include "sroce_param.h"
#include "sroce_ring.h"
#include "sroce_cq.h"
#include "sroce_srq.h"
#include "sroce_mr.h"
#include "sroce_mw.h"
#include "sroce_ah.h"
#include "sroce_restrack.h"
#include "sroce_stats.h"
#include "sroce_qp_verbs.h"
#include "sroce_mcast.h"

/* The devices of this module; sroce_dev_lock protects the list. */
static LIST_HEAD(sroce_dev_list);
static DEFINE_SPINLOCK(sroce_dev_lock);

/* Serialises newlink so that two links cannot claim one netdev. */
static DEFINE_MUTEX(sroce_link_mutex);

/**
 * sroce_dev_get_by_netdev - find the registered sroce device on a netdev
 * @ndev: the netdev
 *
 * Returns the device with an ib_device reference (drop it with
 * ib_device_put()), or NULL if there is none or it is not (or no longer)
 * registered.
 */
struct sroce_dev *sroce_dev_get_by_netdev(struct net_device *ndev)
{
	struct sroce_dev *sdev, *found = NULL;

	spin_lock(&sroce_dev_lock);
	list_for_each_entry(sdev, &sroce_dev_list, list) {
		if (sdev->ndev == ndev) {
			if (ib_device_try_get(&sdev->ibdev))
				found = sdev;
			break;
		}
	}
	spin_unlock(&sroce_dev_lock);
	return found;
}

/* Returns true if any device, registered or not yet, uses @ndev. */
static bool sroce_netdev_in_use(struct net_device *ndev)
{
	struct sroce_dev *sdev;
	bool used = false;

	spin_lock(&sroce_dev_lock);
	list_for_each_entry(sdev, &sroce_dev_list, list)
		used |= sdev->ndev == ndev;
	spin_unlock(&sroce_dev_lock);
	return used;
}

static void sroce_dev_list_add(struct sroce_dev *sdev)
{
	spin_lock(&sroce_dev_lock);
	list_add_tail(&sdev->list, &sroce_dev_list);
	spin_unlock(&sroce_dev_lock);
}

static void sroce_dev_list_del(struct sroce_dev *sdev)
{
	spin_lock(&sroce_dev_lock);
	list_del_init(&sdev->list);
	spin_unlock(&sroce_dev_lock);
}

/* libsroce matches devices by this attribute; see Documentation/abi.md. */
static ssize_t sroce_abi_version_show(struct device *device,
				      struct device_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%u\n", SROCE_ABI_VERSION);
}
static DEVICE_ATTR_RO(sroce_abi_version);

static struct attribute *sroce_dev_attrs[] = {
	&dev_attr_sroce_abi_version.attr,
	NULL,
};

static const struct attribute_group sroce_dev_attr_group = {
	.attrs = sroce_dev_attrs,
};

/**
 * sroce_port_update - report a change of the port state
 * @sdev: the device; the caller holds an ib_device reference
 *
 * Called from the netdev notifier. Dispatches IB_EVENT_PORT_ACTIVE or
 * IB_EVENT_PORT_ERR once per change (seed-rules R3.9), where the core does
 * not (sroce_port_event()); QP states are not touched.
 */
void sroce_port_update(struct sroce_dev *sdev)
{
	enum ib_port_state state = sroce_port_state(sdev);
	struct ib_event ev = {
		.device = &sdev->ibdev,
		.element.port_num = 1,
	};
	bool changed;

	spin_lock_bh(&sdev->port_lock);
	changed = sdev->port_state != state;
	sdev->port_state = state;
	spin_unlock_bh(&sdev->port_lock);
	if (!changed)
		return;

	ev.event = state == IB_PORT_ACTIVE ? IB_EVENT_PORT_ACTIVE :
					     IB_EVENT_PORT_ERR;
	sroce_dbg_dev(sdev, "port %s\n",
		      state == IB_PORT_ACTIVE ? "active" : "down");
	sroce_port_event(&ev);
}

/*
 * Registration, with the name assigned; dealloc_driver cannot run before
 * this returns (the core holds a reference until registration ends).
 */
static int sroce_enable_driver(struct ib_device *ibdev)
{
	sroce_fault_dev_debugfs(to_sroce_dev(ibdev));
	return 0;
}

/* Last call for a device being unregistered; ib_dealloc_device follows. */
static void sroce_dealloc_driver(struct ib_device *ibdev)
{
	struct sroce_dev *sdev = to_sroce_dev(ibdev);
	int i;

	/* The core destroyed every object before calling us. */
	WARN_ON(!xa_empty(&sdev->qp_xa) || !xa_empty(&sdev->mr_xa) ||
		!xa_empty(&sdev->srq_xa) || !xa_empty(&sdev->ah_xa) ||
		!xa_empty(&sdev->counter_xa));
	for (i = 0; i < SROCE_NUM_OBJ_TYPES; i++)
		WARN_ON(atomic_read(&sdev->nobj[i]));
	xa_destroy(&sdev->qp_xa);
	xa_destroy(&sdev->mr_xa);
	xa_destroy(&sdev->srq_xa);
	xa_destroy(&sdev->ah_xa);
	xa_destroy(&sdev->counter_xa);
	sroce_mcast_fini(sdev);
	sroce_dev_list_del(sdev);
	sroce_fault_dev_fini(sdev);
	sroce_net_dev_fini(sdev);
	pr_info(DRV_NAME ": removed %s\n", dev_name(&ibdev->dev));
}

/* The driver's identity and the device's own life cycle. */
static const struct ib_device_ops sroce_device_ops = {
	.owner = THIS_MODULE,
	.driver_id = RDMA_DRIVER_UNKNOWN,
	.uverbs_abi_ver = SROCE_ABI_VERSION,
	.device_group = &sroce_dev_attr_group,

	.dealloc_driver = sroce_dealloc_driver,
	.enable_driver = sroce_enable_driver,
};

/*
 * Each area of the driver (device, CQ, QP, MR, ...) exports the part of the
 * ib_device_ops it implements; a device gets them all.
 */
static const struct ib_device_ops *const sroce_area_ops[] = {
	&sroce_device_ops, &sroce_verbs_ops,
	&sroce_ring_ops, &sroce_cq_ops, &sroce_srq_ops, &sroce_mr_ops, &sroce_mw_ops, &sroce_ah_ops,
	&sroce_stats_ops, &sroce_qp_ops, &sroce_mcast_ops, &sroce_restrack_ops,
};

/*
 * Creates and registers a sroce device on @ndev. Caller holds
 * sroce_link_mutex and has checked that @ndev has no sroce device.
 */
static int sroce_dev_create(const char *ibdev_name, struct net_device *ndev)
{
	struct ib_device *other;
	struct sroce_dev *sdev;
	unsigned int i;
	int err;

	if (ndev->type != ARPHRD_ETHER ||
	    ndev->addr_len != ETH_ALEN) {
		pr_info_ratelimited(DRV_NAME ": %s is not an Ethernet device\n",
				    netdev_name(ndev));
		return -EINVAL;
	}
	other = sroce_ib_device_get_by_name(ibdev_name);
	if (other) {
		ib_device_put(other);
		pr_info_ratelimited(DRV_NAME ": name %s is in use\n", ibdev_name);
		return -EEXIST;
	}

	sdev = ib_alloc_device(sroce_dev, ibdev);
	if (!sdev)
		return -ENOMEM;
	sdev->ndev = ndev;
	INIT_LIST_HEAD(&sdev->list);
	spin_lock_init(&sdev->port_lock);
	sdev->port_state = sroce_port_state(sdev);
	/*
	 * IRQ-safe, and said so: an allocation that may sleep drops the
	 * lock of the type the flags give (__xas_nomem).
	 */
	xa_init_flags(&sdev->qp_xa, XA_FLAGS_ALLOC | XA_FLAGS_LOCK_IRQ);
	xa_init_flags(&sdev->mr_xa, XA_FLAGS_ALLOC1 | XA_FLAGS_LOCK_IRQ);
	xa_init_flags(&sdev->srq_xa, XA_FLAGS_ALLOC1 | XA_FLAGS_LOCK_IRQ);
	xa_init_flags(&sdev->ah_xa, XA_FLAGS_ALLOC1 | XA_FLAGS_LOCK_IRQ);
	xa_init_flags(&sdev->counter_xa, XA_FLAGS_ALLOC1);
	sroce_mcast_init(&sdev->mcast);
	sroce_init_device_attrs(sdev);
	sroce_fault_dev_init(sdev);
	for (i = 0; i < ARRAY_SIZE(sroce_area_ops); i++)
		ib_set_device_ops(&sdev->ibdev, sroce_area_ops[i]);
	/*
	 * Write commands the core leaves off by default: the doorbells of
	 * libsroce's rings (post_send / post_recv with no WRs) and CQ arming.
	 */
	sdev->ibdev.uverbs_cmd_mask |= BIT_ULL(IB_USER_VERBS_CMD_POST_SEND) |
				       BIT_ULL(IB_USER_VERBS_CMD_POST_RECV) |
				       BIT_ULL(IB_USER_VERBS_CMD_REQ_NOTIFY_CQ);

	err = ib_device_set_netdev(&sdev->ibdev, ndev, 1);
	if (err)
		goto err_dealloc;
	err = sroce_net_dev_init(sdev);
	if (err)
		goto err_dealloc;

	/* Visible to the notifier before registration: see the check below. */
	sroce_dev_list_add(sdev);
	err = ib_register_device(&sdev->ibdev, ibdev_name, NULL);
	if (err)
		goto err_list_del;

	/*
	 * An unregistration of @ndev that the notifier saw before the device
	 * was registered cannot have queued our removal; do it here.
	 */
	if (READ_ONCE(ndev->reg_state) != NETREG_REGISTERED)
		ib_unregister_device_queued(&sdev->ibdev);
	pr_info(DRV_NAME ": added %s on %s\n", dev_name(&sdev->ibdev.dev),
		netdev_name(ndev));
	return 0;

err_list_del:
	sroce_dev_list_del(sdev);
	sroce_net_dev_fini(sdev);
err_dealloc:
	/* ib_dealloc_device drops the netdev reference taken above. */
	ib_dealloc_device(&sdev->ibdev);
	return err;
}

/**
 * sroce_newlink - create and register a sroce device on a netdev
 * @ibdev_name: the name asked for in "rdma link add"
 * @ndev: the netdev; the caller holds a reference for the duration
 *
 * The rdma link type's newlink; process context, not under RTNL. Returns
 * 0 or a negative errno (-EEXIST if @ndev already has a sroce device),
 * leaving nothing behind on error.
 */
int sroce_newlink(const char *ibdev_name, struct net_device *ndev)
{
	int err;

	mutex_lock(&sroce_link_mutex);
	if (sroce_netdev_in_use(ndev)) {
		pr_info_ratelimited(DRV_NAME ": %s already has a sroce device\n",
				    netdev_name(ndev));
		err = -EEXIST;
	} else {
		err = sroce_dev_create(ibdev_name, ndev);
	}
	mutex_unlock(&sroce_link_mutex);
	return err;
}

/**
 * sroce_dev_unregister_all - unregister every sroce device
 *
 * Module exit, after the link type and the netdev notifier are gone so
 * that no device can be added. Returns when each device is gone.
 */
void sroce_dev_unregister_all(void)
{
	struct sroce_dev *sdev;

	for (;;) {
		spin_lock(&sroce_dev_lock);
		sdev = list_first_entry_or_null(&sroce_dev_list,
						struct sroce_dev, list);
		if (sdev)
			get_device(&sdev->ibdev.dev);
		spin_unlock(&sroce_dev_lock);
		if (!sdev)
			break;
		/* dealloc_driver takes it off the list, here or in queued work */
		ib_unregister_device(&sdev->ibdev);
		sroce_dev_list_del(sdev);
		put_device(&sdev->ibdev.dev);
	}
}
