/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * sroce_compat.h - what differs between the kernels sroce builds for.
 *
 * sroce is written against Debian 13's Linux 6.12. Debian 12's 6.1 and the
 * newest kernel in Debian's archive differ in a few kernel and RDMA core
 * interfaces: this header, and only it, tests LINUX_VERSION_CODE, and
 * gives the rest of the module one spelling of each, the 6.12 one where it
 * can (README, "Supported kernels and rdma-core"). Each entry names the
 * release that brought the interface sroce uses.
 */
#ifndef SROCE_COMPAT_H
#define SROCE_COMPAT_H

#include <linux/version.h>
#include <linux/interrupt.h>
#include <linux/mm.h>
#include <linux/workqueue.h>
#include <net/route.h>
#include <rdma/ib_verbs.h>
#include <rdma/uverbs_ioctl.h>

/* 6.12: <asm/unaligned.h> moved to <linux/unaligned.h>. */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 12, 0)
#include <linux/unaligned.h>
#else
#include <asm/unaligned.h>
#endif

/*
 * 6.2: IBA 1.5's RDMA FLUSH and ATOMIC WRITE in the RDMA core. Before it
 * the WR and WC opcodes (the uverbs values, which libsroce posts in the
 * ring whatever the kernel) get their 6.2 names; the access bits keep
 * their values, which no MR of a 6.1 core can hold (ib_check_mr_access
 * refuses them), so a FLUSH meets a remote access error there; the
 * device capability bits do not exist and stay unadvertised.
 */
#if LINUX_VERSION_CODE < KERNEL_VERSION(6, 2, 0)
#define IB_WR_FLUSH 14
#define IB_WR_ATOMIC_WRITE 15
#define IB_WC_FLUSH 8
#define IB_WC_ATOMIC_WRITE 9
#define IB_ACCESS_FLUSH_GLOBAL BIT(8)
#define IB_ACCESS_FLUSH_PERSISTENT BIT(9)
#define IB_FLUSH_GLOBAL 1
#define IB_FLUSH_PERSISTENT 2
#define IB_FLUSH_RANGE 0
#define IB_FLUSH_MR 1
#define SROCE_DEVICE_FLUSH_CAPS 0
#else
#define SROCE_DEVICE_FLUSH_CAPS (IB_DEVICE_FLUSH_GLOBAL | IB_DEVICE_ATOMIC_WRITE)
#endif

/*
 * 6.2: ib_device_ops.fill_res_srq_entry. Before it an SRQ's restrack
 * entry has no driver attributes (the function is then unused).
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 2, 0)
#define SROCE_OP_FILL_RES_SRQ_ENTRY(fn) .fill_res_srq_entry = (fn),
#else
#define SROCE_OP_FILL_RES_SRQ_ENTRY(fn)
#endif

/* 6.3: vm_flags are set through vm_flags_set(). */
#if LINUX_VERSION_CODE < KERNEL_VERSION(6, 3, 0)
static inline void vm_flags_set(struct vm_area_struct *vma, vm_flags_t flags)
{
	vma->vm_flags |= flags;
}
#endif

/*
 * Work run in softirq context: 6.9's BH workqueue (system_bh_wq), a
 * tasklet before it. The function is called with the address of ->work
 * either way (container_of(work, ..., member.work)).
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 9, 0)
struct sroce_bh_work {
	struct work_struct work;
};

static inline void sroce_bh_work_init(struct sroce_bh_work *w, work_func_t fn)
{
	INIT_WORK(&w->work, fn);
}

static inline void sroce_bh_work_queue(struct sroce_bh_work *w)
{
	queue_work(system_bh_wq, &w->work);
}

static inline void sroce_bh_work_queue_on(int cpu, struct sroce_bh_work *w)
{
	queue_work_on(cpu, system_bh_wq, &w->work);
}

static inline void sroce_bh_work_cancel_sync(struct sroce_bh_work *w)
{
	cancel_work_sync(&w->work);
}
#else
struct sroce_bh_work {
	struct work_struct work;	/* only its address is used */
	struct tasklet_struct tasklet;
	work_func_t fn;
};

static inline void sroce_bh_work_run(struct tasklet_struct *t)
{
	struct sroce_bh_work *w = from_tasklet(w, t, tasklet);

	w->fn(&w->work);
}

static inline void sroce_bh_work_init(struct sroce_bh_work *w, work_func_t fn)
{
	w->fn = fn;
	tasklet_setup(&w->tasklet, sroce_bh_work_run);
}

static inline void sroce_bh_work_queue(struct sroce_bh_work *w)
{
	tasklet_schedule(&w->tasklet);
}

/* A tasklet runs where it is scheduled: here. */
static inline void sroce_bh_work_queue_on(int cpu, struct sroce_bh_work *w)
{
	tasklet_schedule(&w->tasklet);
}

static inline void sroce_bh_work_cancel_sync(struct sroce_bh_work *w)
{
	tasklet_kill(&w->tasklet);
}
#endif

/*
 * 6.17: a per-CPU workqueue says so (WQ_PERCPU; 7.x warns at an
 * allocation with neither it nor WQ_UNBOUND). Before, it is the default.
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 17, 0)
#define SROCE_WQ_PERCPU WQ_PERCPU
#else
#define SROCE_WQ_PERCPU 0
#endif

/* 6.10: __assign_str() takes the source from __string(). */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 10, 0)
#define sroce_assign_str(dst, src) __assign_str(dst)
#else
#define sroce_assign_str(dst, src) __assign_str(dst, src)
#endif

/* 6.10: dst_rtable(). */
#if LINUX_VERSION_CODE < KERNEL_VERSION(6, 10, 0)
#define dst_rtable(_dst) container_of(_dst, struct rtable, dst)
#endif

/*
 * 6.11: ib_device_ops.create_cq gets the uverbs attribute bundle, not the
 * udata. sroce_create_cq() takes a SROCE_CREATE_CQ_ARG and finds its
 * udata (NULL for a kernel CQ) with sroce_create_cq_udata().
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 11, 0)
#define SROCE_CREATE_CQ_ARG struct uverbs_attr_bundle
static inline struct ib_udata *
sroce_create_cq_udata(struct uverbs_attr_bundle *attrs)
{
	return attrs ? &attrs->driver_udata : NULL;
}
#else
#define SROCE_CREATE_CQ_ARG struct ib_udata
static inline struct ib_udata *sroce_create_cq_udata(struct ib_udata *udata)
{
	return udata;
}
#endif

/*
 * 6.14: the core dispatches IB_EVENT_PORT_ACTIVE and IB_EVENT_PORT_ERR
 * itself, once per change, for the netdev a port is bound to
 * (ib_device_set_netdev(); ib_dispatch_port_state_event() on its netdev
 * events): a driver's own would come twice (seen on 7.3). Before, the
 * driver dispatches them. sroce_port_event() is that choice.
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 14, 0)
static inline void sroce_port_event(struct ib_event *ev)
{
}
#else
static inline void sroce_port_event(struct ib_event *ev)
{
	ib_dispatch_event(ev);
}
#endif

/* 6.13: hrtimer_setup() sets the function with the rest (hrtimer_init went in 6.15). */
#if LINUX_VERSION_CODE < KERNEL_VERSION(6, 13, 0)
static inline void hrtimer_setup(struct hrtimer *timer,
				 enum hrtimer_restart (*function)(struct hrtimer *),
				 clockid_t clock_id, enum hrtimer_mode mode)
{
	hrtimer_init(timer, clock_id, mode);
	timer->function = function;
}
#endif

/*
 * 6.15: counter_bind_qp and counter_unbind_qp take the port (sroce has
 * one). SROCE_COUNTER_OPS(bind, unbind) defines bind_op and unbind_op,
 * of the core's types, calling sroce's bind(counter, qp) and unbind(qp).
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 15, 0)
#define SROCE_COUNTER_OPS(bind, unbind)					\
static int bind##_op(struct rdma_counter *counter, struct ib_qp *qp,	\
		     u32 port)						\
{									\
	return bind(counter, qp);					\
}									\
static int unbind##_op(struct ib_qp *qp, u32 port)			\
{									\
	return unbind(qp);						\
}
#else
#define SROCE_COUNTER_OPS(bind, unbind)					\
static int bind##_op(struct rdma_counter *counter, struct ib_qp *qp)	\
{									\
	return bind(counter, qp);					\
}									\
static int unbind##_op(struct ib_qp *qp)				\
{									\
	return unbind(qp);						\
}
#endif

/*
 * ODP pages (sroce_odp.c). Up to 6.15 an ib_umem_odp keeps a dma_list:
 * per page (of 1 << page_shift bytes) its DMA address, for sroce's
 * virtual-DMA device the kernel address, or'ed with its access bits. From
 * 6.16 it keeps HMM PFNs (map.pfn_list, one per PAGE_SIZE) with
 * HMM_PFN_VALID and HMM_PFN_WRITE, and ib_umem_odp_map_dma_and_lock()
 * takes HMM_PFN_WRITE for write access. sroce speaks SROCE_ODP_READ and
 * SROCE_ODP_WRITE rights through these three helpers.
 */
#include <rdma/ib_umem_odp.h>
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 16, 0)
#include <linux/hmm.h>

#define SROCE_ODP_READ BIT_ULL(0)
#define SROCE_ODP_WRITE BIT_ULL(1)

/* The rights page @i of @odp is mapped with, 0 if unmapped. */
static inline u64 sroce_odp_perm(struct ib_umem_odp *odp, unsigned long i)
{
	unsigned long pfn =
		READ_ONCE(odp->map.pfn_list[i << (odp->page_shift - PAGE_SHIFT)]);

	if (!(pfn & HMM_PFN_VALID))
		return 0;
	return SROCE_ODP_READ | (pfn & HMM_PFN_WRITE ? SROCE_ODP_WRITE : 0);
}

/* ib_umem_odp_map_dma_and_lock() for the rights @perm. */
static inline int sroce_odp_map_dma_and_lock(struct ib_umem_odp *odp, u64 va,
					     u64 len, u64 perm, bool fault)
{
	return ib_umem_odp_map_dma_and_lock(odp, va, len,
					    perm & SROCE_ODP_WRITE ?
					    HMM_PFN_WRITE : 0, fault);
}

/* The page holding user address @va (mapped), and @va's offset in it. */
static inline struct page *sroce_odp_va_page(struct ib_umem_odp *odp, u64 va,
					     unsigned int *off)
{
	unsigned long i = (va - ib_umem_start(odp)) >> PAGE_SHIFT;

	*off = offset_in_page(va);
	return hmm_pfn_to_page(READ_ONCE(odp->map.pfn_list[i]));
}
#else
#define SROCE_ODP_READ ODP_READ_ALLOWED_BIT
#define SROCE_ODP_WRITE ODP_WRITE_ALLOWED_BIT

static inline u64 sroce_odp_perm(struct ib_umem_odp *odp, unsigned long i)
{
	return READ_ONCE(odp->dma_list[i]) &
	       (ODP_READ_ALLOWED_BIT | ODP_WRITE_ALLOWED_BIT);
}

static inline int sroce_odp_map_dma_and_lock(struct ib_umem_odp *odp, u64 va,
					     u64 len, u64 perm, bool fault)
{
	return ib_umem_odp_map_dma_and_lock(odp, va, len, perm, fault);
}

static inline struct page *sroce_odp_va_page(struct ib_umem_odp *odp, u64 va,
					     unsigned int *off)
{
	unsigned long i = (va - ib_umem_start(odp)) >> odp->page_shift;
	dma_addr_t dma = READ_ONCE(odp->dma_list[i]);
	void *kva = (void *)(uintptr_t)(dma & ODP_DMA_ADDR_MASK) +
		    (va & (BIT(odp->page_shift) - 1));

	*off = offset_in_page(kva);
	return virt_to_page(kva);
}
#endif

/*
 * 6.17: reg_user_mr takes a DMA handle (only a device that allocates them
 * gets one: sroce does not). SROCE_REG_USER_MR_OP(fn) defines fn_op, of the
 * core's type, calling sroce's fn(pd, start, length, iova, access, udata).
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 17, 0)
#define SROCE_REG_USER_MR_OP(fn)					\
static struct ib_mr *fn##_op(struct ib_pd *pd, u64 start, u64 length,	\
			     u64 iova, int access, struct ib_dmah *dmah,\
			     struct ib_udata *udata)			\
{									\
	return fn(pd, start, length, iova, access, udata);		\
}
#else
#define SROCE_REG_USER_MR_OP(fn)					\
static struct ib_mr *fn##_op(struct ib_pd *pd, u64 start, u64 length,	\
			     u64 iova, int access, struct ib_udata *udata)\
{									\
	return fn(pd, start, length, iova, access, udata);		\
}
#endif

/* 6.18: nth_page() is gone: a folio's pages are contiguous in memmap. */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 18, 0)
#define nth_page(page, n) ((page) + (n))
#endif

/*
 * 6.18: an IPv4 flow carries a DSCP (flowi4_dscp), no more a TOS.
 * SROCE_FLOWI4_TCLASS(tc) initializes the flow's field from a traffic
 * class.
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 18, 0)
#include <net/inet_dscp.h>
#define SROCE_FLOWI4_TCLASS(tc) .flowi4_dscp = inet_dsfield_to_dscp(tc)
#else
#define SROCE_FLOWI4_TCLASS(tc) .flowi4_tos = RT_TOS(tc)
#endif

/* 6.19: the UDP tunnel helpers take the struct sock. */
#include <net/udp_tunnel.h>
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 19, 0)
static inline void sroce_udp_tunnel_setup(struct net *net, struct socket *sock,
					  struct udp_tunnel_sock_cfg *cfg)
{
	setup_udp_tunnel_sock(net, sock->sk, cfg);
}

static inline void sroce_udp_tunnel_release(struct socket *sock)
{
	udp_tunnel_sock_release(sock->sk);
}
#else
static inline void sroce_udp_tunnel_setup(struct net *net, struct socket *sock,
					  struct udp_tunnel_sock_cfg *cfg)
{
	setup_udp_tunnel_sock(net, sock, cfg);
}

static inline void sroce_udp_tunnel_release(struct socket *sock)
{
	udp_tunnel_sock_release(sock);
}
#endif

/* 7.0: ib_umem_get() is ib_umem_get_va(). */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(7, 0, 0)
static inline struct ib_umem *ib_umem_get(struct ib_device *device,
					  unsigned long addr, size_t size,
					  int access)
{
	return ib_umem_get_va(device, addr, size, access);
}
#endif

/*
 * 7.0: resize_cq is resize_user_cq (the kernel's ib_resize_cq() is gone)
 * with an unsigned size, and a user CQ may have its own create_user_cq
 * (sroce's create_cq makes both kinds). SROCE_CQ_OPS(create, resize)
 * gives the ops' entries; resize(cq, int cqe, udata) is sroce's.
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(7, 0, 0)
#define SROCE_RESIZE_CQ_OP(fn)						\
static int fn##_op(struct ib_cq *cq, unsigned int cqe,			\
		   struct ib_udata *udata)				\
{									\
	return cqe > INT_MAX ? -EINVAL : fn(cq, cqe, udata);		\
}

#define SROCE_CQ_OPS(create, resize)					\
	.create_cq = (create), .create_user_cq = (create),		\
	.resize_user_cq = resize##_op
#else
#define SROCE_RESIZE_CQ_OP(fn)						\
static int fn##_op(struct ib_cq *cq, int cqe, struct ib_udata *udata)	\
{									\
	return fn(cq, cqe, udata);					\
}

#define SROCE_CQ_OPS(create, resize)					\
	.create_cq = (create), .resize_cq = resize##_op
#endif

/*
 * 7.0: ib_device_get_by_name() is gone. sroce_ib_device_get_by_name()
 * finds a registered device by name, with a reference (ib_device_put()),
 * or returns NULL: through the core's function, or with a client that
 * looks at every device once (ib_register_client() calls its add() for
 * each) and claims none.
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(7, 0, 0)
struct sroce_name_lookup {
	const char *name;
	struct ib_device *dev;
};

/* The lookup in progress: one at a time (the mutex). */
static struct sroce_name_lookup *sroce_name_lookup_cur __maybe_unused;
static __maybe_unused DEFINE_MUTEX(sroce_name_lookup_mutex);

static inline int sroce_name_lookup_add(struct ib_device *dev)
{
	struct sroce_name_lookup *l = sroce_name_lookup_cur;

	if (!l->dev && !strcmp(dev_name(&dev->dev), l->name) &&
	    ib_device_try_get(dev))
		l->dev = dev;
	return -EOPNOTSUPP;	/* no client data: remove() is never called */
}

static inline void sroce_name_lookup_remove(struct ib_device *dev, void *data)
{
}

static inline struct ib_device *sroce_ib_device_get_by_name(const char *name)
{
	struct sroce_name_lookup l = { .name = name };
	struct ib_client client = {
		.name = "sroce_name_lookup",
		.add = sroce_name_lookup_add,
		.remove = sroce_name_lookup_remove,
	};

	mutex_lock(&sroce_name_lookup_mutex);
	sroce_name_lookup_cur = &l;
	if (!ib_register_client(&client))
		ib_unregister_client(&client);
	sroce_name_lookup_cur = NULL;
	mutex_unlock(&sroce_name_lookup_mutex);
	return l.dev;
}
#else
static inline struct ib_device *sroce_ib_device_get_by_name(const char *name)
{
	return ib_device_get_by_name(name, RDMA_DRIVER_UNKNOWN);
}
#endif

/*
 * 6.6: the page pool's interface is <net/page_pool/helpers.h>. 6.7: every
 * pool hands out page fragments; before it, only one created with
 * PP_FLAG_PAGE_FRAG.
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 6, 0)
#include <net/page_pool/helpers.h>
#else
#include <net/page_pool.h>
#endif
#ifdef PP_FLAG_PAGE_FRAG
#define SROCE_PP_FLAG_FRAG PP_FLAG_PAGE_FRAG
#else
#define SROCE_PP_FLAG_FRAG 0
#endif

#endif /* SROCE_COMPAT_H */
