/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * sroce: software RoCEv2 RDMA device. Core objects.
 *
 * Device-level locks (Documentation/locking.md has every lock and the
 * order they nest in):
 *   sroce_link_mutex (sroce_device.c; serialises newlink only, never taken
 *                     under RTNL), then sroce_net_mutex (sroce_net.c) or
 *                     sroce_dev_lock, one after the other
 *   RTNL (netdev notifier context), then sroce_dev_lock or
 *                     sroce_dev.port_lock, never both at once
 */
#ifndef SROCE_H
#define SROCE_H

#include <linux/atomic.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/netdevice.h>
#include <linux/spinlock.h>
#include <linux/xarray.h>
#include <rdma/ib_verbs.h>

#include "sroce_compat.h"
#include "sroce_counters.h"
#include "sroce_param.h"
#include "fault.h"

#define DRV_NAME "sroce"

struct dentry;
struct sroce_net_dev;

/* Objects whose number per device query_device limits (sroce_obj_get). */
enum sroce_obj_type {
	SROCE_OBJ_PD,
	SROCE_OBJ_AH,
	SROCE_OBJ_CQ,
	SROCE_OBJ_SRQ,
	SROCE_OBJ_QP,
	SROCE_OBJ_MR,
	SROCE_OBJ_MW,
	SROCE_NUM_OBJ_TYPES
};

/*
 * The device's multicast groups (sroce_mcast.c). attach_mutex serialises
 * attach and detach (which sleep to join the IP group) and is taken
 * before RTNL; lock guards the group list and every group's QP array for
 * the receive path (softirq).
 */
struct sroce_mcast {
	struct mutex attach_mutex;	/* attach/detach; before RTNL */
	spinlock_t lock;		/* groups, ngroups, nattached, each qps[] */
	struct list_head groups;	/* struct sroce_mcg, under lock */
	u32 ngroups;			/* under lock */
	u32 nattached;			/* QP attachments in all groups */
};

/* The device's test-only packet drop rules (sroce_fault.h). */
enum sroce_fault_dir {
	SROCE_FAULT_TX,
	SROCE_FAULT_RX,
	SROCE_FAULT_NDIRS,
};

struct sroce_fault {
	/* rule[], armed[]: debugfs, and the data path while a rule is armed */
	spinlock_t lock;
	bool armed[SROCE_FAULT_NDIRS];	/* read locklessly on the data path */
	struct sroce_fault_rule rule[SROCE_FAULT_NDIRS];
	struct dentry *dir;
};

static inline bool sroce_fault_armed(const struct sroce_fault *f,
				     enum sroce_fault_dir dir)
{
	return READ_ONCE(f->armed[dir]);
}

struct sroce_dev {
	struct ib_device ibdev;

	/* Set at creation, constant for the device's life. */
	struct net_device *ndev;	/* reference held by ib_device_set_netdev */
	struct ib_device_attr attr;	/* what query_device reports */

	/* Protected by sroce_dev_lock (sroce_device.c). */
	struct list_head list;

	/* Protected by port_lock: the last port state reported by an event. */
	spinlock_t port_lock;
	enum ib_port_state port_state;

	/*
	 * Object tables (xarrays, IRQ-safe). A reader takes the xarray's
	 * lock and the object's reference under it (sroce_qp_get,
	 * sroce_key_get, sroce_ah_get_by_index, sroce_xrc_srq_get): a
	 * destroyed object is freed with no RCU grace period, so once the
	 * erase returns no lookup holds it without a reference.
	 * Keys: QPN, MR/MW key index (key >> 8), SRQ number, user AH index.
	 */
	struct xarray qp_xa;
	struct xarray mr_xa;
	struct xarray srq_xa;
	struct xarray ah_xa;
	u32 mr_next, qp_next, srq_next, ah_next;	/* xa_alloc_cyclic cursors */

	struct sroce_net_dev *net;	/* sroce_net.c; set by sroce_net_dev_init */

	struct sroce_mcast mcast;	/* sroce_mcast.c, its own locks */

	/*
	 * Live objects of each type (sroce_obj_get/put): atomic, no lock; a
	 * create takes one before its work and gives it back on every error.
	 */
	atomic_t nobj[SROCE_NUM_OBJ_TYPES];

	/* Lock free; see sroce_counters.h and sroce_stats.c. */
	atomic64_t counters[SROCE_NUM_COUNTERS];
	/*
	 * The driver side of the core's per-QP counter objects
	 * (sroce_stats.c), by rdma_counter id; the xarray's own lock.
	 */
	struct xarray counter_xa;
	u32 counter_next;		/* xa_alloc_cyclic cursor */

	/* Test-only drop rules (sroce_fault.c), off by default. */
	struct sroce_fault fault;
};

static inline void sroce_count(struct sroce_dev *sdev, enum sroce_counter c)
{
	atomic64_inc(&sdev->counters[c]);
}

static inline void sroce_count_add(struct sroce_dev *sdev,
				   enum sroce_counter c, u64 n)
{
	atomic64_add(n, &sdev->counters[c]);
}

/*
 * The port is the netdev: active while it is up and operational. Read by
 * query_port, the port events and the engines (any context, no lock).
 */
static inline enum ib_port_state sroce_port_state(struct sroce_dev *sdev)
{
	struct net_device *ndev = sdev->ndev;

	return netif_running(ndev) && netif_oper_up(ndev) ?
	       IB_PORT_ACTIVE : IB_PORT_DOWN;
}

/* Largest IB MTU whose packets, with every header, fit the netdev MTU. */
static inline enum ib_mtu sroce_active_mtu(struct sroce_dev *sdev)
{
	int room = (int)READ_ONCE(sdev->ndev->mtu) - SROCE_MAX_HDR_OVERHEAD;
	enum ib_mtu mtu;

	for (mtu = IB_MTU_4096; mtu > IB_MTU_256; mtu--)
		if (ib_mtu_enum_to_int(mtu) <= room)
			break;
	return mtu;
}

/* The limit query_device reports for @type. */
static inline u32 sroce_obj_max(const struct sroce_dev *sdev,
				enum sroce_obj_type type)
{
	const struct ib_device_attr *a = &sdev->attr;

	switch (type) {
	case SROCE_OBJ_PD:
		return a->max_pd;
	case SROCE_OBJ_AH:
		return a->max_ah;
	case SROCE_OBJ_CQ:
		return a->max_cq;
	case SROCE_OBJ_SRQ:
		return a->max_srq;
	case SROCE_OBJ_QP:
		return a->max_qp;
	case SROCE_OBJ_MR:
		return a->max_mr;
	case SROCE_OBJ_MW:
		return a->max_mw;
	default:
		return 0;
	}
}

/**
 * sroce_obj_get - count a new object against the device's limit
 * @sdev: the device
 * @type: the object's type
 *
 * Any context. Returns 0, or -ENOMEM if the device already has as many
 * objects of @type as query_device advertises. -ENOMEM, not rxe's -EINVAL:
 * the arguments are fine, the device is out of a resource, as mlx5 says
 * when its firmware runs out and as sroce's own full key/QPN tables say.
 * Each success is paired with one sroce_obj_put(), on destroy or on the
 * create's error path.
 */
static inline int sroce_obj_get(struct sroce_dev *sdev,
				enum sroce_obj_type type)
{
	if (!atomic_add_unless(&sdev->nobj[type], 1, sroce_obj_max(sdev, type)))
		return -ENOMEM;
	return 0;
}

static inline void sroce_obj_put(struct sroce_dev *sdev,
				 enum sroce_obj_type type)
{
	WARN_ON_ONCE(atomic_dec_return(&sdev->nobj[type]) < 0);
}

struct sroce_ucontext {
	struct ib_ucontext ibuc;
};

struct sroce_pd {
	struct ib_pd ibpd;
};

/* An XRC domain: the core's object is all there is (its QPs, its SRQs). */
struct sroce_xrcd {
	struct ib_xrcd ibxrcd;
};

static inline struct sroce_dev *to_sroce_dev(struct ib_device *ibdev)
{
	return container_of(ibdev, struct sroce_dev, ibdev);
}

static inline struct sroce_ucontext *to_sroce_uc(struct ib_ucontext *ibuc)
{
	return container_of(ibuc, struct sroce_ucontext, ibuc);
}

static inline struct sroce_pd *to_sroce_pd(struct ib_pd *ibpd)
{
	return container_of(ibpd, struct sroce_pd, ibpd);
}

/**
 * sroce_user_gfp - allocation flags for memory an object is created with
 * @user: made for a user process (the verb has udata), not a kernel consumer
 *
 * A user object's memory is charged to the creating process's memory
 * cgroup. Past the cgroup's limit the allocation fails quietly and the
 * verb returns -ENOMEM (__GFP_RETRY_MAYFAIL) rather than the cgroup's OOM
 * killer picking a victim: the caller can cope, as with any resource.
 */
static inline gfp_t sroce_user_gfp(bool user)
{
	return user ? GFP_KERNEL_ACCOUNT | __GFP_RETRY_MAYFAIL | __GFP_NOWARN :
		       GFP_KERNEL;
}

#define sroce_dbg_dev(sdev, fmt, ...) \
	ibdev_dbg(&(sdev)->ibdev, "%s: " fmt, __func__, ##__VA_ARGS__)

/* sroce_device.c: device registry, life cycle and port events */
int sroce_newlink(const char *ibdev_name, struct net_device *ndev);
struct sroce_dev *sroce_dev_get_by_netdev(struct net_device *ndev);
void sroce_dev_unregister_all(void);
void sroce_port_update(struct sroce_dev *sdev);

/* sroce_verbs.c: device, port, context and PD verbs */
extern const struct ib_device_ops sroce_verbs_ops;
void sroce_init_device_attrs(struct sroce_dev *sdev);

#endif /* SROCE_H */
