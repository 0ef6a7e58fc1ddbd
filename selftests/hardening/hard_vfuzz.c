// SPDX-License-Identifier: GPL-2.0-only
/*
 * hard_vfuzz: a verbs and ring fuzzer for sroce, run as an unprivileged
 * user (hardening/vfuzz.sh). From a printed seed and for a bounded time
 * (FUZZ_SEED, FUZZ_SECS to replay) it issues random sequences of verbs on
 * both devices: PD, CQ (and resize), QP (RC/UC/UD and bad types, random
 * caps, random valid and invalid transitions and attribute masks), SRQ,
 * MR (reg, rereg, dereg, ODP, the backing memory unmapped while
 * registered), MW (alloc, bind, dealloc), AH, advise_mr, multicast attach
 * and detach, random send and receive WRs, fork() with a child touching
 * the memory, and the command fd passed over a unix socket (SCM_RIGHTS) to
 * a fresh process that issues commands and maps rings on it; meanwhile a
 * thread scribbles the mapped rings (indices, kernel-owned words, slots)
 * and rings doorbells with random QP handles.
 *
 * Every call may fail: the program checks only that calls return (any
 * errno) and that nothing the kernel does kills it; it counts each
 * operation and each errno and prints them with the seed. The kernel side
 * (reports, tasks in D state, spinning workers, leaks) is checked by the
 * shell test.
 *
 * How the rings are found is err_ring.c's documented hack: mappings of
 * /dev/infiniband/uverbs* in /proc/self/maps. Mappings go away only in
 * the main thread under map_lock, which the scribbler holds while it
 * writes, so it never writes into memory that is no longer a ring.
 *
 * User-space invariants kept on purpose (they would crash the program, not
 * the kernel): objects of one context are never handed to another; an
 * inline send reads only mapped memory; memory any MR may reach (and any
 * SGE address) is in the fuzzer's own arena or an address where nothing is
 * mapped, so neither the peer nor the kernel can scribble the heap; an
 * implicit ODP MR never gets remote access.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <execinfo.h>
#include <fcntl.h>
#include <poll.h>
#include <time.h>
#include <pthread.h>
#include <signal.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <rdma/ib_user_verbs.h>
#include <rdma/rdma_user_ioctl.h>
#include <rdma/ib_user_ioctl_cmds.h>
#include "../datapath/dp.h"
#include "../../include/uapi/rdma/sroce-abi.h"

#define NDEV 2
#define NPD 4
#define NCQ 8
#define NQP 12
#define NSRQ 4
#define NMR 12
#define NMW 8
#define NAH 6
#define NCH 2
#define NXRCD 2
#define SLOT (1UL << 20)		/* arena bytes per MR slot */
#define PG 4096UL
#define MAX_EXTRA_CTX 60		/* contexts opened and dropped per run */
#define MAX_FD_PASS 20
#define MAX_FORK 40

/* ---- operations and their counts ------------------------------------ */

#define OPS(X) X(pd_alloc) X(pd_dealloc) X(cq_create) X(cq_resize)	\
	X(cq_destroy) X(cq_poll) X(cq_notify) X(qp_create) X(qp_modify)	\
	X(qp_connect) X(qp_query) X(qp_destroy) X(srq_create) X(srq_modify)	\
	X(srq_query) X(srq_destroy) X(srq_post_recv) X(mr_reg) X(mr_reg_odp)	\
	X(mr_reg_implicit) X(mr_rereg) X(mr_dereg) X(mr_munmap) X(mw_alloc)	\
	X(mw_bind) X(mw_dealloc) X(ah_create) X(ah_destroy) X(advise_mr)	\
	X(mcast_attach) X(mcast_detach) X(post_send) X(post_recv)		\
	X(query) X(fork) X(fd_pass) X(ctx_cycle) X(async_event) X(cq_event)	\
	X(scribble) X(doorbell) X(rx_write_cmd) X(rx_ioctl) X(rx_mmap)	\
	X(rx_cq_create) X(xrcd_open) X(xrcd_close)

#define X_ENUM(n) OP_##n,
#define X_NAME(n) #n,
enum { OPS(X_ENUM) NOPS };
static const char *const op_name[] = { OPS(X_NAME) };

/* Counts live in shared memory: the fd receiver's are added to ours. */
struct counts {
	unsigned long calls[NOPS], ok[NOPS];
	unsigned long err[NOPS][8];	/* the op's most frequent errnos */
	int err_no[NOPS][8];
	unsigned long errno_tot[256];
};
static struct counts *cnt;

/* The last operations of the main thread, printed if the program dies. */
static int hist[64];
static unsigned int hist_n;

static void rec(int op, int e)
{
	int i;

	if (op < OP_scribble || op > OP_doorbell)
		hist[hist_n++ % ARRAY_SIZE(hist)] = op;

	__atomic_fetch_add(&cnt->calls[op], 1, __ATOMIC_RELAXED);
	if (!e) {
		__atomic_fetch_add(&cnt->ok[op], 1, __ATOMIC_RELAXED);
		return;
	}
	if (e < 0 || e > 255)
		e = 255;
	__atomic_fetch_add(&cnt->errno_tot[e], 1, __ATOMIC_RELAXED);
	for (i = 0; i < 8; i++) {
		if (cnt->err_no[op][i] == e || !cnt->err_no[op][i]) {
			cnt->err_no[op][i] = e;
			__atomic_fetch_add(&cnt->err[op][i], 1, __ATOMIC_RELAXED);
			return;
		}
	}
}

/* A call returning an object: errno when NULL (0 there means "unset"). */
static int rec_ptr(int op, const void *p)
{
	rec(op, p ? 0 : (errno ? errno : 254));
	return p != NULL;
}

/* ---- random numbers ---------------------------------------------------- */

static uint64_t rng_s;

static uint64_t rnd64(uint64_t *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 0x2545F4914F6CDD1DULL;
}

static uint32_t rnd(void) { return (uint32_t)(rnd64(&rng_s) >> 32); }
static uint32_t rn(uint32_t n) { return n ? rnd() % n : 0; }
static int pct(int p) { return (int)rn(100) < p; }

/* A count around the device limit @max: mostly small, sometimes extreme. */
static uint32_t rcount(uint32_t max, uint32_t small)
{
	switch (rn(20)) {
	case 0: return 0;
	case 1: return max;
	case 2: return max + 1;
	case 3: return pct(50) ? 0x80000000u : ~0u;
	case 4: return 1;
	default: return 1 + rn(small);
	}
}

/* ---- state -------------------------------------------------------------- */

struct mrent {
	struct ibv_mr *mr;
	int implicit;
	int odp;
};

struct qpent {
	struct ibv_qp *qp;
	enum ibv_qp_type type;
	int ex;			/* created with ibv_create_qp_ex, send ops */
	int nm;			/* multicast attachments made (up to 8) */
	union ibv_gid mg[8];
	uint16_t ml[8];
};

struct fdev {
	struct dp_dev d;
	struct ibv_pd *pd[NPD];
	struct ibv_cq *cq[NCQ];
	struct ibv_comp_channel *ch[NCH];
	struct qpent qp[NQP];
	struct ibv_srq *srq[NSRQ];
	struct mrent mr[NMR];
	struct ibv_mw *mw[NMW];
	struct ibv_ah *ah[NAH];
	struct ibv_xrcd *xrcd[NXRCD];
	uint32_t dead_keys[8];
};

static struct fdev dev[NDEV];
static unsigned char *arena;	/* NDEV * NMR slots of SLOT bytes */
static size_t slot_len[NDEV * NMR];	/* mapped bytes at the slot's start */
static int big_objects;		/* objects created at the device limits */
static pthread_mutex_t map_lock = PTHREAD_MUTEX_INITIALIZER;
static volatile int stop;
static int extra_ctx, fd_passes, forks;
static const char *self_exe;

static unsigned char *slot_base(int d, int i)
{
	return arena + (size_t)(d * NMR + i) * SLOT;
}

/* An address for an SGE or an MR: in the arena, or where nothing maps. */
static uint64_t raddr(int d)
{
	unsigned char *b = slot_base(d, rn(NMR));

	switch (rn(12)) {
	case 0: return 0;
	case 1: return 0x1000 + rn(0xe000);	/* below mmap_min_addr */
	case 2: return 0xffff880000000000ULL + rn(1u << 30);	/* kernel */
	case 3: return 0x0000800000000000ULL - rn(64);	/* past user space */
	default: return (uintptr_t)b + rn(SLOT + PG);
	}
}

static uint32_t rlen(void)
{
	switch (rn(10)) {
	case 0: return 0;
	case 1: return ~0u - rn(4);
	case 2: return 0x80000000u;
	case 3: return rn(SLOT * 2);
	default: return rn(8192);
	}
}

static void *pick(void *arr, int n, size_t sz)
{
	int start = rn(n), i;

	for (i = 0; i < n; i++) {
		void **p = (void **)((char *)arr + ((start + i) % n) * sz);

		if (*p)
			return *p;
	}
	return NULL;
}

static int free_idx(void *arr, int n, size_t sz)
{
	int start = rn(n), i;

	for (i = 0; i < n; i++) {
		void **p = (void **)((char *)arr + ((start + i) % n) * sz);

		if (!*p)
			return (start + i) % n;
	}
	return -1;
}

static int used_idx(void *arr, int n, size_t sz)
{
	int start = rn(n), i;

	for (i = 0; i < n; i++) {
		void **p = (void **)((char *)arr + ((start + i) % n) * sz);

		if (*p)
			return (start + i) % n;
	}
	return -1;
}

/* A used element of an array of structs whose first member is a pointer. */
static void *pick_ent(void *arr, int n, size_t sz)
{
	int i = used_idx(arr, n, sz);

	return i < 0 ? NULL : (char *)arr + i * sz;
}

#define PICK(a) pick((a), ARRAY_SIZE(a), sizeof((a)[0]))
#define PICKE(a) pick_ent((a), ARRAY_SIZE(a), sizeof((a)[0]))
#define FREE_IDX(a) free_idx((a), ARRAY_SIZE(a), sizeof((a)[0]))
#define USED_IDX(a) used_idx((a), ARRAY_SIZE(a), sizeof((a)[0]))

static struct ibv_pd *rpd(struct fdev *f)
{
	struct ibv_pd *pd = PICK(f->pd);

	return pd && pct(80) ? pd : f->d.pd;
}

static uint32_t rkey_of(struct fdev *f)
{
	struct mrent *m = PICKE(f->mr);
	struct ibv_mw *mw = PICK(f->mw);

	switch (rn(8)) {
	case 0: return rnd();
	case 1: return f->dead_keys[rn(8)];
	case 2: return mw ? mw->rkey : rnd();
	case 3: return m ? m->mr->lkey : 0;
	default: return m ? m->mr->rkey : rnd();
	}
}

static uint32_t lkey_of(struct fdev *f)
{
	struct mrent *m = PICKE(f->mr);

	switch (rn(8)) {
	case 0: return rnd();
	case 1: return f->dead_keys[rn(8)];
	case 2: return m ? m->mr->rkey : 0;
	default: return m ? m->mr->lkey : rnd();
	}
}

/* A scatter list; @readable: the provider reads it (inline), keep it mapped. */
static int rsgl(struct fdev *f, struct ibv_sge *sg, int max, int readable)
{
	int d = f - dev, n = rn(10) ? rn(4) + 1 : rn(max + 1), i;

	for (i = 0; i < n; i++) {
		sg[i].lkey = lkey_of(f);
		if (readable) {
			int s = rn(NMR);
			size_t l = slot_len[d * NMR + s];
			uint32_t off = l ? rn(l) : 0;

			if (!l) {
				sg[i].addr = (uintptr_t)slot_base(d, 0);
				sg[i].length = 0;
				continue;
			}
			sg[i].addr = (uintptr_t)slot_base(d, s) + off;
			sg[i].length = rn(l - off < 1024 ? l - off + 1 : 1024);
		} else {
			sg[i].addr = raddr(d);
			sg[i].length = rlen();
		}
	}
	return n;
}

/* One SGE inside a live MR of @f, with its lkey (0 if there is none). */
static int sane_sge(struct fdev *f, struct ibv_sge *sg, uint32_t max_len)
{
	struct mrent *m = PICKE(f->mr);
	size_t off;

	if (!m)
		return 0;
	if (m->implicit) {
		int d = f - dev, i = rn(NMR);

		off = slot_len[d * NMR + i] ? rn(slot_len[d * NMR + i]) : 0;
		sg->addr = (uintptr_t)slot_base(d, i) + off;
	} else {
		off = m->mr->length ? rn(m->mr->length) : 0;
		sg->addr = (uintptr_t)m->mr->addr + off;
		if (m->mr->length - off < max_len)
			max_len = m->mr->length - off;
	}
	sg->length = 1 + rn(max_len ? max_len : 1);
	sg->lkey = m->mr->lkey;
	return 1;
}

/* ---- async events and completion channels ------------------------------ */

static void drain_events(struct fdev *f)
{
	struct ibv_async_event ev;
	struct ibv_cq *cq;
	void *cctx;
	int i;

	while (!ibv_get_async_event(f->d.ctx, &ev)) {
		rec(OP_async_event, 0);
		ibv_ack_async_event(&ev);
	}
	for (i = 0; i < NCH; i++) {
		if (!f->ch[i])
			continue;
		while (!ibv_get_cq_event(f->ch[i], &cq, &cctx)) {
			rec(OP_cq_event, 0);
			ibv_ack_cq_events(cq, 1);
		}
	}
}

static void mcast_detach(struct qpent *q, int k);

/* ---- PD, CQ ------------------------------------------------------------ */

static void op_pd_alloc(struct fdev *f)
{
	int i = FREE_IDX(f->pd);

	if (i < 0)
		return;
	f->pd[i] = ibv_alloc_pd(f->d.ctx);
	rec_ptr(OP_pd_alloc, f->pd[i]);
}

static void op_pd_dealloc(struct fdev *f)
{
	int i = USED_IDX(f->pd), e;

	if (i < 0)
		return;
	e = ibv_dealloc_pd(f->pd[i]);	/* EBUSY while anything uses it */
	rec(OP_pd_dealloc, e);
	if (!e)
		f->pd[i] = NULL;
}

static void op_cq_create(struct fdev *f)
{
	int i = FREE_IDX(f->cq);
	uint32_t cqe = rcount(f->d.attr.orig_attr.max_cqe, 256);

	if (i < 0)
		return;
	if (cqe >= 4096 && big_objects >= 2)
		cqe = 1 + rn(256);
	if (pct(30)) {
		struct ibv_cq_init_attr_ex a = {
			.cqe = cqe,
			.channel = pct(50) ? f->ch[rn(NCH)] : NULL,
			.comp_vector = pct(90) ? 0 : rnd() % 4,
			.wc_flags = pct(80) ? IBV_WC_EX_WITH_BYTE_LEN : rnd(),
			.comp_mask = pct(90) ? 0 : rnd(),
			.flags = pct(90) ? 0 : rnd(),
		};
		struct ibv_cq_ex *cx = ibv_create_cq_ex(f->d.ctx, &a);

		f->cq[i] = cx ? ibv_cq_ex_to_cq(cx) : NULL;
	} else {
		f->cq[i] = ibv_create_cq(f->d.ctx, (int)cqe, NULL,
					 pct(50) ? f->ch[rn(NCH)] : NULL,
					 pct(95) ? 0 : (int)rnd() % 8);
	}
	if (rec_ptr(OP_cq_create, f->cq[i]) && cqe >= 4096)
		big_objects++;
}

static void op_cq_resize(struct fdev *f)
{
	struct ibv_cq *cq = PICK(f->cq);
	uint32_t n = rcount(f->d.attr.orig_attr.max_cqe, 512);

	if (!cq)
		return;
	if (n >= 4096 && big_objects >= 2)
		n = 1 + rn(512);
	/* The old ring is unmapped: not while the scribbler writes. */
	pthread_mutex_lock(&map_lock);
	rec(OP_cq_resize, ibv_resize_cq(cq, (int)n));
	pthread_mutex_unlock(&map_lock);
}

static void op_cq_destroy(struct fdev *f)
{
	int i = USED_IDX(f->cq), e;

	if (i < 0)
		return;
	pthread_mutex_lock(&map_lock);
	e = ibv_destroy_cq(f->cq[i]);	/* EBUSY while a QP uses it */
	pthread_mutex_unlock(&map_lock);
	rec(OP_cq_destroy, e);
	if (!e)
		f->cq[i] = NULL;
}

static void op_cq_poll(struct fdev *f)
{
	struct ibv_wc wc[32];
	int i, n;

	for (i = 0; i < NCQ; i++) {
		if (!f->cq[i])
			continue;
		n = ibv_poll_cq(f->cq[i], 1 + rn(32), wc);
		rec(OP_cq_poll, n < 0 ? EIO : 0);
	}
}

static void op_cq_notify(struct fdev *f)
{
	struct ibv_cq *cq = PICK(f->cq);

	if (cq)
		rec(OP_cq_notify, ibv_req_notify_cq(cq, rn(2)));
}

/* ---- SRQ ------------------------------------------------------------- */

/* XRC domains: no file (a private one), as a process alone opens it. */
static void op_xrcd_open(struct fdev *f)
{
	struct ibv_xrcd_init_attr a = {
		.comp_mask = IBV_XRCD_INIT_ATTR_FD | IBV_XRCD_INIT_ATTR_OFLAGS,
		.fd = -1,
		.oflags = O_CREAT,
	};
	int i = FREE_IDX(f->xrcd);

	if (i < 0)
		return;
	f->xrcd[i] = ibv_open_xrcd(f->d.ctx, &a);
	rec_ptr(OP_xrcd_open, f->xrcd[i]);
}

/* EBUSY while an XRC SRQ or target QP of it lives. */
static void op_xrcd_close(struct fdev *f)
{
	int i = USED_IDX(f->xrcd), e;

	if (i < 0)
		return;
	e = ibv_close_xrcd(f->xrcd[i]);
	rec(OP_xrcd_close, e);
	if (!e)
		f->xrcd[i] = NULL;
}

static void op_srq_create(struct fdev *f)
{
	int i = FREE_IDX(f->srq);
	struct ibv_srq_init_attr_ex a = {};

	if (i < 0)
		return;
	a.attr.max_wr = rcount(f->d.attr.orig_attr.max_srq_wr, 128);
	a.attr.max_sge = rcount(f->d.attr.orig_attr.max_srq_sge, 4);
	a.attr.srq_limit = pct(70) ? 0 : rn(a.attr.max_wr + 2);
	if (a.attr.max_wr >= 4096 && big_objects >= 2)
		a.attr.max_wr = 1 + rn(128);
	a.comp_mask = IBV_SRQ_INIT_ATTR_TYPE | IBV_SRQ_INIT_ATTR_PD;
	a.pd = rpd(f);
	/* An XRC SRQ: a domain and a CQ (either may be missing: EINVAL). */
	if (pct(30)) {
		a.srq_type = IBV_SRQT_XRC;
		a.comp_mask |= IBV_SRQ_INIT_ATTR_XRCD | IBV_SRQ_INIT_ATTR_CQ;
		a.xrcd = PICK(f->xrcd);
		a.cq = PICK(f->cq);
	}
	/* libibverbs reads the handles unchecked: no NULL PD, domain, CQ. */
	if (!a.pd || (a.srq_type == IBV_SRQT_XRC && (!a.xrcd || !a.cq)))
		return;
	f->srq[i] = ibv_create_srq_ex(f->d.ctx, &a);
	if (rec_ptr(OP_srq_create, f->srq[i]) && a.attr.max_wr >= 4096)
		big_objects++;
}

static void op_srq_modify(struct fdev *f)
{
	struct ibv_srq *srq = PICK(f->srq);
	struct ibv_srq_attr a = {
		.max_wr = rcount(f->d.attr.orig_attr.max_srq_wr, 128),
		.srq_limit = pct(50) ? rn(64) : rnd(),
	};
	int mask = pct(70) ? IBV_SRQ_LIMIT : rnd() & 7;

	if (srq)
		rec(OP_srq_modify, ibv_modify_srq(srq, &a, mask));
}

static void op_srq_query(struct fdev *f)
{
	struct ibv_srq *srq = PICK(f->srq);
	struct ibv_srq_attr a;

	if (srq)
		rec(OP_srq_query, ibv_query_srq(srq, &a));
}

static void op_srq_destroy(struct fdev *f)
{
	int i = USED_IDX(f->srq), e;

	if (i < 0)
		return;
	pthread_mutex_lock(&map_lock);
	e = ibv_destroy_srq(f->srq[i]);
	pthread_mutex_unlock(&map_lock);
	rec(OP_srq_destroy, e);
	if (!e)
		f->srq[i] = NULL;
}

static void op_srq_post_recv(struct fdev *f)
{
	struct ibv_srq *srq = PICK(f->srq);
	struct ibv_recv_wr wr[4], *bad;
	struct ibv_sge sg[4][DP_MAX_SGE + 2];
	int n = 1 + rn(4), i;

	if (!srq)
		return;
	for (i = 0; i < n; i++) {
		wr[i].wr_id = rnd();
		wr[i].sg_list = sg[i];
		wr[i].num_sge = rsgl(f, sg[i], DP_MAX_SGE + 1, 0);
		wr[i].next = i + 1 < n ? &wr[i + 1] : NULL;
	}
	rec(OP_srq_post_recv, ibv_post_srq_recv(srq, wr, &bad));
}

/* ---- QP ---------------------------------------------------------------- */

static const enum ibv_qp_type qp_types[] = {
	IBV_QPT_RC, IBV_QPT_RC, IBV_QPT_RC, IBV_QPT_UC, IBV_QPT_UC,
	IBV_QPT_UD, IBV_QPT_UD, IBV_QPT_RAW_PACKET, IBV_QPT_XRC_SEND,
	IBV_QPT_XRC_SEND, IBV_QPT_XRC_RECV,
};

static void op_qp_create(struct fdev *f)
{
	int i = FREE_IDX(f->qp), big;
	struct ibv_qp_init_attr_ex a = {};
	const struct ibv_device_attr *da = &f->d.attr.orig_attr;
	struct ibv_qp *qp;

	if (i < 0)
		return;
	a.qp_type = qp_types[rn(ARRAY_SIZE(qp_types))];
	a.send_cq = PICK(f->cq);
	a.recv_cq = pct(50) ? a.send_cq : PICK(f->cq);
	a.srq = pct(25) ? PICK(f->srq) : NULL;
	/* libibverbs reads the CQs' handles unchecked: no QP without CQs. */
	if (!a.send_cq || !a.recv_cq)
		return;
	a.cap.max_send_wr = rcount(da->max_qp_wr, 64);
	a.cap.max_recv_wr = rcount(da->max_qp_wr, 64);
	a.cap.max_send_sge = rcount(da->max_sge, 4);
	a.cap.max_recv_sge = rcount(da->max_sge, 4);
	a.cap.max_inline_data = pct(50) ? 0 : rcount(256, 256);
	a.sq_sig_all = rn(2);
	a.pd = rpd(f);
	a.comp_mask = IBV_QP_INIT_ATTR_PD;
	big = a.cap.max_send_wr >= 4096 || a.cap.max_recv_wr >= 4096;
	if (big && big_objects >= 2) {
		a.cap.max_send_wr = 1 + rn(64);
		a.cap.max_recv_wr = 1 + rn(64);
		big = 0;
	}
	if (pct(25)) {
		a.comp_mask |= IBV_QP_INIT_ATTR_SEND_OPS_FLAGS;
		a.send_ops_flags = pct(80) ? IBV_QP_EX_WITH_SEND |
			IBV_QP_EX_WITH_RDMA_WRITE | IBV_QP_EX_WITH_RDMA_READ :
			rnd();
	}
	/* An XRC target: a domain instead of a PD, CQs and queues. */
	if (a.qp_type == IBV_QPT_XRC_RECV) {
		a.xrcd = PICK(f->xrcd);
		if (!a.xrcd)
			return;
		a.comp_mask = IBV_QP_INIT_ATTR_XRCD | (pct(80) ? 0 :
			      a.comp_mask & IBV_QP_INIT_ATTR_SEND_OPS_FLAGS);
	}
	qp = ibv_create_qp_ex(f->d.ctx, &a);
	if (!rec_ptr(OP_qp_create, qp))
		return;
	big_objects += big;
	f->qp[i].qp = qp;
	f->qp[i].type = a.qp_type;
	f->qp[i].ex = !!(a.comp_mask & IBV_QP_INIT_ATTR_SEND_OPS_FLAGS);
	f->qp[i].nm = 0;
}

static void rah(struct fdev *f, struct fdev *peer, struct ibv_ah_attr *ah)
{
	memset(ah, 0, sizeof(*ah));
	ah->is_global = pct(95);
	ah->port_num = pct(95) ? 1 : rn(3);
	ah->grh.sgid_index = pct(90) ? (uint32_t)f->d.gid_index : rn(300);
	ah->grh.hop_limit = pct(90) ? 64 : rn(256);
	ah->grh.traffic_class = pct(90) ? 0 : rn(256);
	ah->grh.flow_label = pct(90) ? 0 : rnd();
	ah->sl = pct(90) ? 0 : rn(256);
	ah->static_rate = pct(90) ? 0 : rn(32);
	ah->dlid = pct(90) ? 0 : rn(65536);
	if (pct(85)) {
		ah->grh.dgid = peer->d.gid;
	} else {
		for (int k = 0; k < 16; k++)
			ah->grh.dgid.raw[k] = rn(256);
		/*
		 * Mostly multicast: ib_core resolves a unicast GID's MAC
		 * (ARP, ND) in an uninterruptible wait of up to seconds.
		 */
		if (pct(70))
			ah->grh.dgid.raw[0] = 0xff;
	}
}

static void op_qp_modify(struct fdev *f)
{
	struct qpent *q = PICKE(f->qp);
	struct ibv_qp_attr a = {};
	int mask;

	if (!q)
		return;
	if (pct(30)) {	/* the moves valid from most states */
		static const enum ibv_qp_state st[] = {
			IBV_QPS_ERR, IBV_QPS_RESET, IBV_QPS_SQD, IBV_QPS_RTS,
		};

		a.qp_state = st[rn(ARRAY_SIZE(st))];
		a.en_sqd_async_notify = 1;
		mask = IBV_QP_STATE | (a.qp_state == IBV_QPS_SQD ?
				       IBV_QP_EN_SQD_ASYNC_NOTIFY : 0);
		rec(OP_qp_modify, ibv_modify_qp(q->qp, &a, mask));
		return;
	}
	mask = rnd() & ((1 << 21) - 1);
	if (pct(80))
		mask |= IBV_QP_STATE;
	a.qp_state = rn(8);
	a.cur_qp_state = rn(8);
	a.path_mtu = rn(8);
	a.path_mig_state = rn(3);
	a.qkey = pct(50) ? 0x11111111 : rnd();
	a.rq_psn = rnd();
	a.sq_psn = rnd();
	a.dest_qp_num = pct(50) ? rnd() & 0xffffff : rnd();
	a.qp_access_flags = rnd() & 0x3ff;
	a.cap.max_send_wr = rn(64);
	a.cap.max_recv_wr = rn(64);
	rah(f, &dev[!(f - dev)], &a.ah_attr);
	rah(f, &dev[!(f - dev)], &a.alt_ah_attr);
	a.pkey_index = rn(4);
	a.alt_pkey_index = rn(4);
	a.en_sqd_async_notify = rn(2);
	a.max_rd_atomic = pct(50) ? rn(20) : rn(256);
	a.max_dest_rd_atomic = pct(50) ? rn(20) : rn(256);
	a.min_rnr_timer = rn(32);
	a.port_num = pct(80) ? 1 : rn(4);
	a.timeout = rn(32);
	a.retry_cnt = rn(8);
	a.rnr_retry = rn(8);
	a.alt_port_num = rn(3);
	a.alt_timeout = rn(32);
	a.rate_limit = pct(90) ? 0 : rnd();
	rec(OP_qp_modify, ibv_modify_qp(q->qp, &a, mask));
}

static int modify(struct ibv_qp *qp, struct ibv_qp_attr *a, int mask)
{
	int e = ibv_modify_qp(qp, a, mask);

	rec(OP_qp_connect, e);
	return e;
}

/* A valid RESET..RTS path to a QP of the other device (traffic flows). */
static void op_qp_connect(struct fdev *f)
{
	struct fdev *pf = &dev[!(f - dev)];
	struct qpent *q = PICKE(f->qp), *p = NULL;
	struct ibv_qp_attr a;
	int i, start = rn(NQP), mtu;

	if (!q)
		return;
	for (i = 0; i < NQP && !p; i++) {
		struct qpent *c = &pf->qp[(start + i) % NQP];

		if (c->qp && c->type == q->type)
			p = c;
	}
	if (!p || (q->type != IBV_QPT_RC && q->type != IBV_QPT_UC &&
		   q->type != IBV_QPT_UD))
		return;
	mtu = pct(70) ? IBV_MTU_1024 : 1 + rn(5);
	for (int side = 0; side < 2; side++) {
		struct qpent *x = side ? p : q, *y = side ? q : p;
		struct fdev *xf = side ? pf : f, *yf = side ? f : pf;
		int mask;

		memset(&a, 0, sizeof(a));
		a.qp_state = IBV_QPS_RESET;
		if (pct(80) && modify(x->qp, &a, IBV_QP_STATE))
			continue;
		a.qp_state = IBV_QPS_INIT;
		a.port_num = 1;
		mask = IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT;
		if (x->type == IBV_QPT_UD) {
			a.qkey = 0x11111111;
			mask |= IBV_QP_QKEY;
		} else {
			a.qp_access_flags = pct(80) ? 0xf : rnd() & 0x3ff;
			mask |= IBV_QP_ACCESS_FLAGS;
		}
		if (modify(x->qp, &a, mask))
			continue;
		memset(&a, 0, sizeof(a));
		a.qp_state = IBV_QPS_RTR;
		mask = IBV_QP_STATE;
		if (x->type != IBV_QPT_UD) {
			a.path_mtu = mtu;
			a.dest_qp_num = y->qp->qp_num;
			a.rq_psn = rnd() & 0xffffff;
			rah(xf, yf, &a.ah_attr);
			if (pct(90)) {	/* the right address */
				a.ah_attr.is_global = 1;
				a.ah_attr.port_num = 1;
				a.ah_attr.grh.sgid_index = xf->d.gid_index;
				a.ah_attr.grh.dgid = yf->d.gid;
			}
			mask |= IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN |
				IBV_QP_RQ_PSN;
			if (x->type == IBV_QPT_RC) {
				a.max_dest_rd_atomic = rn(17);
				a.min_rnr_timer = rn(32);
				mask |= IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER;
			}
		}
		if (modify(x->qp, &a, mask))
			continue;
		memset(&a, 0, sizeof(a));
		a.qp_state = IBV_QPS_RTS;
		a.sq_psn = rnd() & 0xffffff;
		mask = IBV_QP_STATE | IBV_QP_SQ_PSN;
		if (x->type == IBV_QPT_RC) {
			/* Short timers: a broken peer costs little time. */
			a.timeout = 8 + rn(8);
			a.retry_cnt = rn(8);
			a.rnr_retry = rn(8);
			a.max_rd_atomic = rn(17);
			mask |= IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
				IBV_QP_RNR_RETRY | IBV_QP_MAX_QP_RD_ATOMIC;
		}
		modify(x->qp, &a, mask);
	}
}

static void op_qp_query(struct fdev *f)
{
	struct qpent *q = PICKE(f->qp);
	struct ibv_qp_attr a;
	struct ibv_qp_init_attr ia;

	if (q)
		rec(OP_qp_query, ibv_query_qp(q->qp, &a, pct(90) ? 0x1fffff : rnd(), &ia));
}

static void op_qp_destroy(struct fdev *f)
{
	int i = USED_IDX(f->qp), e;

	if (i < 0)
		return;
	/* uverbs refuses (EBUSY) while the QP has multicast attachments. */
	while (f->qp[i].nm && pct(80))
		mcast_detach(&f->qp[i], 0);
	pthread_mutex_lock(&map_lock);
	e = ibv_destroy_qp(f->qp[i].qp);
	pthread_mutex_unlock(&map_lock);
	rec(OP_qp_destroy, e);
	if (!e)
		f->qp[i].qp = NULL;
}

/* ---- posting ------------------------------------------------------------- */

static const enum ibv_wr_opcode send_ops[] = {
	IBV_WR_SEND, IBV_WR_SEND, IBV_WR_SEND_WITH_IMM, IBV_WR_RDMA_WRITE,
	IBV_WR_RDMA_WRITE, IBV_WR_RDMA_WRITE_WITH_IMM, IBV_WR_RDMA_READ,
	IBV_WR_RDMA_READ, IBV_WR_ATOMIC_CMP_AND_SWP, IBV_WR_ATOMIC_FETCH_AND_ADD,
	IBV_WR_LOCAL_INV, IBV_WR_BIND_MW, IBV_WR_SEND_WITH_INV, IBV_WR_TSO,
	IBV_WR_DRIVER1, IBV_WR_ATOMIC_WRITE, IBV_WR_FLUSH,
};

/* A WR a correct application could post on @q (its buffers may be gone). */
static int sane_wr(struct fdev *f, struct fdev *pf, struct qpent *q,
		   struct ibv_send_wr *w, struct ibv_sge *sg)
{
	static const enum ibv_wr_opcode rc_ops[] = {
		IBV_WR_SEND, IBV_WR_SEND_WITH_IMM, IBV_WR_RDMA_WRITE,
		IBV_WR_RDMA_WRITE_WITH_IMM, IBV_WR_RDMA_READ,
		IBV_WR_ATOMIC_CMP_AND_SWP, IBV_WR_ATOMIC_FETCH_AND_ADD,
		IBV_WR_SEND_WITH_INV,
	};
	struct mrent *rm = PICKE(pf->mr);

	switch (q->type) {
	case IBV_QPT_RC: w->opcode = rc_ops[rn(ARRAY_SIZE(rc_ops))]; break;
	case IBV_QPT_UC: w->opcode = rc_ops[rn(4)]; break;
	case IBV_QPT_UD: w->opcode = rc_ops[rn(2)]; break;
	default: return 0;
	}
	w->send_flags = IBV_SEND_SIGNALED;
	w->sg_list = sg;
	w->num_sge = sane_sge(f, sg, q->type == IBV_QPT_UD ? 1024 : 16384);
	w->imm_data = rnd();
	w->wr_id = rnd();
	if (w->opcode == IBV_WR_SEND_WITH_INV)
		w->invalidate_rkey = rkey_of(pf);
	if (q->type == IBV_QPT_UD) {
		struct ibv_qp *pq = pf->qp[rn(NQP)].qp;

		w->wr.ud.ah = PICK(f->ah);
		w->wr.ud.remote_qpn = pq ? pq->qp_num : 1;
		w->wr.ud.remote_qkey = 0x11111111;
		return w->wr.ud.ah != NULL;
	}
	if (w->opcode == IBV_WR_ATOMIC_CMP_AND_SWP ||
	    w->opcode == IBV_WR_ATOMIC_FETCH_AND_ADD) {
		if (w->num_sge)
			sg->length = 8;
		w->wr.atomic.remote_addr = rm ? ((uintptr_t)rm->mr->addr + 7) & ~7ULL : 0;
		w->wr.atomic.rkey = rm ? rm->mr->rkey : 0;
		w->wr.atomic.compare_add = rnd();
		w->wr.atomic.swap = rnd();
	} else if (rm) {
		w->wr.rdma.remote_addr = (uintptr_t)rm->mr->addr;
		w->wr.rdma.rkey = rm->mr->rkey;
	}
	return 1;
}

static void op_post_send(struct fdev *f)
{
	struct fdev *pf = &dev[!(f - dev)];
	struct qpent *q = PICKE(f->qp);
	struct ibv_send_wr wr[4], *bad;
	struct ibv_sge sg[4][DP_MAX_SGE + 2];
	int n = 1 + rn(4), i;

	if (!q)
		return;
	memset(wr, 0, sizeof(wr));
	for (i = 0; i < n; i++) {
		struct ibv_send_wr *w = &wr[i];
		struct mrent *m;

		w->wr_id = rnd();
		w->opcode = pct(95) ? send_ops[rn(ARRAY_SIZE(send_ops))] : rnd() % 64;
		w->send_flags = pct(70) ? (rnd() & (IBV_SEND_SIGNALED | IBV_SEND_SOLICITED |
						   IBV_SEND_FENCE)) : rnd() & 0xff;
		if (pct(20))
			w->send_flags |= IBV_SEND_INLINE;
		w->sg_list = sg[i];
		w->num_sge = rsgl(f, sg[i], DP_MAX_SGE + 1,
				  w->send_flags & IBV_SEND_INLINE);
		w->imm_data = rnd();
		switch (w->opcode) {
		case IBV_WR_ATOMIC_CMP_AND_SWP:
		case IBV_WR_ATOMIC_FETCH_AND_ADD:
			w->wr.atomic.remote_addr = raddr(!(f - dev)) & (pct(80) ? ~7ULL : ~0ULL);
			w->wr.atomic.rkey = rkey_of(pf);
			w->wr.atomic.compare_add = rnd();
			w->wr.atomic.swap = rnd();
			break;
		case IBV_WR_BIND_MW:
			w->bind_mw.mw = pct(95) ? PICK(f->mw) : NULL;
			w->bind_mw.rkey = w->bind_mw.mw ?
				ibv_inc_rkey(w->bind_mw.mw->rkey) : rnd();
			m = PICKE(f->mr);
			w->bind_mw.bind_info.mr = m ? m->mr : NULL;
			w->bind_mw.bind_info.addr = m ? (uintptr_t)m->mr->addr +
				rn(m->mr->length + 1) - (pct(10) ? 8 : 0) : raddr(f - dev);
			w->bind_mw.bind_info.length = rlen();
			w->bind_mw.bind_info.mw_access_flags = rnd() & 0x7f;
			break;
		default:
			w->wr.rdma.remote_addr = raddr(!(f - dev));
			w->wr.rdma.rkey = rkey_of(pf);
			break;
		}
		/* XRC: an SRQ number of the peer's, or any */
		w->qp_type.xrc.remote_srqn = pct(50) ? 1 + rn(8) : rnd();
		if (q->type == IBV_QPT_UD && w->opcode != IBV_WR_BIND_MW) {
			/* Only a live AH of this context (the provider reads it). */
			w->wr.ud.ah = PICK(f->ah);
			struct ibv_qp *pq = pf->qp[rn(NQP)].qp;

			w->wr.ud.remote_qpn = pct(50) ? (pq ? pq->qp_num : 1) : rnd();
			w->wr.ud.remote_qkey = pct(80) ? 0x11111111 : rnd();
		}
		w->next = i + 1 < n ? &wr[i + 1] : NULL;
		if (pct(60)) {
			struct ibv_send_wr *next = w->next;

			memset(w, 0, sizeof(*w));
			if (!sane_wr(f, pf, q, w, sg[i]))
				return;
			w->next = next;
		}
	}
	rec(OP_post_send, ibv_post_send(q->qp, wr, &bad));
}

static void op_post_recv(struct fdev *f)
{
	struct qpent *q = PICKE(f->qp);
	struct ibv_recv_wr wr[4], *bad;
	struct ibv_sge sg[4][DP_MAX_SGE + 2];
	int n = 1 + rn(4), i;

	if (!q)
		return;
	for (i = 0; i < n; i++) {
		wr[i].wr_id = rnd();
		wr[i].sg_list = sg[i];
		wr[i].num_sge = pct(60) ? sane_sge(f, sg[i], 16384) :
				  rsgl(f, sg[i], DP_MAX_SGE + 1, 0);
		wr[i].next = i + 1 < n ? &wr[i + 1] : NULL;
	}
	rec(OP_post_recv, ibv_post_recv(q->qp, wr, &bad));
}

/* ---- MR, MW, AH ------------------------------------------------------ */

static int access_flags(void)
{
	static const int common[] = {
		IBV_ACCESS_LOCAL_WRITE,
		IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
			IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC,
		IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_MW_BIND |
			IBV_ACCESS_REMOTE_READ,
		IBV_ACCESS_REMOTE_READ,
		IBV_ACCESS_REMOTE_WRITE,	/* invalid without LOCAL_WRITE */
		0,
	};

	return pct(80) ? common[rn(ARRAY_SIZE(common))] :
		(int)(rnd() & 0x1fff & ~IBV_ACCESS_ON_DEMAND);
}

/* Map (part of) a slot's memory: fresh pages at its start. */
static void slot_map(int d, int i)
{
	unsigned char *b = slot_base(d, i);
	size_t len = (1 + rn(SLOT / PG)) * PG;

	if (mmap(b, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS |
		 MAP_FIXED, -1, 0) == MAP_FAILED)
		FAIL("mmap slot: %m");
	if (pct(50))
		memset(b, 0xa5, len < 65536 ? len : 65536);
	slot_len[d * NMR + i] = len;
}

/* The slot's pages go; a PROT_NONE mapping keeps the range ours. */
static void slot_unmap(int d, int i)
{
	unsigned char *b = slot_base(d, i);

	if (munmap(b, SLOT) ||
	    mmap(b, SLOT, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED |
		 MAP_NORESERVE, -1, 0) == MAP_FAILED)
		FAIL("unmap slot: %m");
	slot_len[d * NMR + i] = 0;
}

static void op_mr_reg(struct fdev *f)
{
	int d = f - dev, i = FREE_IDX(f->mr), acc, kind = rn(10), op;
	unsigned char *b;
	size_t off, len;

	if (i < 0)
		return;
	b = slot_base(d, i);
	if (!slot_len[d * NMR + i] || pct(30))
		slot_map(d, i);
	off = pct(60) ? 0 : rn(PG * 2);
	len = pct(80) ? 1 + rn(slot_len[d * NMR + i]) : rlen();
	acc = access_flags();
	op = OP_mr_reg;
	if (kind == 0 && !f->mr[i].mr) {
		/*
		 * Implicit ODP: the whole address space, local access only,
		 * else a peer could write into the heap.
		 */
		op = OP_mr_reg_implicit;
		f->mr[i].mr = ibv_reg_mr(rpd(f), NULL, SIZE_MAX,
					 IBV_ACCESS_ON_DEMAND |
					 (pct(50) ? IBV_ACCESS_LOCAL_WRITE : 0));
		f->mr[i].implicit = 1;
		f->mr[i].odp = 1;
	} else {
		if (kind < 4) {
			acc |= IBV_ACCESS_ON_DEMAND;
			op = OP_mr_reg_odp;
		}
		f->mr[i].mr = ibv_reg_mr(rpd(f), b + off, len, acc);
		f->mr[i].implicit = 0;
		f->mr[i].odp = !!(acc & IBV_ACCESS_ON_DEMAND);
	}
	rec_ptr(op, f->mr[i].mr);
}

static void op_mr_rereg(struct fdev *f)
{
	int d = f - dev, i = USED_IDX(f->mr), flags, acc, e;
	unsigned char *b;

	if (i < 0 || f->mr[i].implicit)
		return;
	b = slot_base(d, i);
	flags = pct(80) ? (int)(rnd() & 7) : (int)rnd();
	acc = access_flags();
	if (pct(20))
		acc |= IBV_ACCESS_ON_DEMAND;
	e = ibv_rereg_mr(f->mr[i].mr, flags, rpd(f), b + rn(PG * 2),
			 pct(80) ? 1 + rn(slot_len[d * NMR + i] + 1) : rlen(), acc);
	rec(OP_mr_rereg, e ? (errno ? errno : 253) : 0);
}

static void op_mr_dereg(struct fdev *f)
{
	int i = USED_IDX(f->mr), e;
	uint32_t key;

	if (i < 0)
		return;
	key = f->mr[i].mr->rkey;
	e = ibv_dereg_mr(f->mr[i].mr);
	rec(OP_mr_dereg, e);
	if (!e) {
		f->mr[i].mr = NULL;
		f->dead_keys[rn(8)] = key;
	}
}

static void op_mr_munmap(struct fdev *f)
{
	int d = f - dev, i = USED_IDX(f->mr);

	if (i < 0 || f->mr[i].implicit || !slot_len[d * NMR + i])
		return;
	slot_unmap(d, i);
	rec(OP_mr_munmap, 0);
	if (pct(30))
		slot_map(d, i);	/* new pages under the old registration */
}

static void op_mw_alloc(struct fdev *f)
{
	int i = FREE_IDX(f->mw);

	if (i < 0)
		return;
	f->mw[i] = ibv_alloc_mw(rpd(f), pct(45) ? IBV_MW_TYPE_1 :
				pct(90) ? IBV_MW_TYPE_2 : rn(8));
	rec_ptr(OP_mw_alloc, f->mw[i]);
}

static void op_mw_bind(struct fdev *f)
{
	struct ibv_mw *mw = PICK(f->mw);
	struct qpent *q = PICKE(f->qp);
	struct mrent *m = PICKE(f->mr);
	struct ibv_mw_bind b = {};

	if (!mw || !q)
		return;
	b.wr_id = rnd();
	b.send_flags = rnd() & (IBV_SEND_SIGNALED | IBV_SEND_FENCE);
	b.bind_info.mr = m ? m->mr : NULL;
	b.bind_info.addr = m ? (uintptr_t)m->mr->addr + rn(PG) : raddr(f - dev);
	b.bind_info.length = pct(50) ? rn(PG) : rlen();
	b.bind_info.mw_access_flags = pct(70) ? IBV_ACCESS_REMOTE_WRITE |
				      IBV_ACCESS_REMOTE_READ : rnd() & 0x7f;
	rec(OP_mw_bind, ibv_bind_mw(q->qp, mw, &b));
}

static void op_mw_dealloc(struct fdev *f)
{
	int i = USED_IDX(f->mw), e;

	if (i < 0)
		return;
	e = ibv_dealloc_mw(f->mw[i]);
	rec(OP_mw_dealloc, e);
	if (!e)
		f->mw[i] = NULL;
}

static void op_ah_create(struct fdev *f)
{
	int i = FREE_IDX(f->ah);
	struct ibv_ah_attr a;

	if (i < 0)
		return;
	rah(f, &dev[!(f - dev)], &a);
	f->ah[i] = ibv_create_ah(rpd(f), &a);
	rec_ptr(OP_ah_create, f->ah[i]);
}

static void op_ah_destroy(struct fdev *f)
{
	int i = USED_IDX(f->ah), e;

	if (i < 0)
		return;
	e = ibv_destroy_ah(f->ah[i]);
	rec(OP_ah_destroy, e);
	if (!e)
		f->ah[i] = NULL;
}

static void op_advise_mr(struct fdev *f)
{
	struct ibv_sge sg[8];
	int n = rsgl(f, sg, 7, 0);
	struct mrent *m = PICKE(f->mr);

	if (m && m->odp && pct(60)) {	/* a prefetch of an ODP MR's pages */
		n = 1 + rn(4);
		for (int k = 0; k < n; k++)
			sane_sge(f, &sg[k], 65536);
		for (int k = 0; k < n; k++)
			sg[k].lkey = m->mr->lkey;
		rec(OP_advise_mr, ibv_advise_mr(m->mr->pd,
			IBV_ADVISE_MR_ADVICE_PREFETCH + rn(3),
			rn(2) * IBV_ADVISE_MR_FLAG_FLUSH, sg, n));
		return;
	}

	uint32_t advice = pct(90) ? IBV_ADVISE_MR_ADVICE_PREFETCH + rn(3) :
				    rnd() % 16;
	uint32_t flags = pct(80) ? IBV_ADVISE_MR_FLAG_FLUSH * rn(2) : rnd();
	uint32_t num = pct(95) ? (uint32_t)n : rnd() % 1000;

	rec(OP_advise_mr, ibv_advise_mr(rpd(f), advice, flags, sg, num));
}

static void rmgid(union ibv_gid *g)
{
	memset(g, 0, sizeof(*g));
	if (pct(60)) {	/* IPv4 multicast, mapped */
		g->raw[10] = g->raw[11] = 0xff;
		g->raw[12] = 224 + rn(16);
		g->raw[13] = rn(4);
		g->raw[15] = rn(4);
	} else if (pct(60)) {
		g->raw[0] = 0xff;
		g->raw[1] = 0x0e;
		g->raw[15] = rn(4);
	} else {
		for (int k = 0; k < 16; k++)
			g->raw[k] = rn(256);
	}
}

static void mcast_detach(struct qpent *q, int k)
{
	int e = ibv_detach_mcast(q->qp, &q->mg[k], q->ml[k]);

	rec(OP_mcast_detach, e);
	q->mg[k] = q->mg[--q->nm];
	q->ml[k] = q->ml[q->nm];
}

/* The MLID is ignored on RoCE; uverbs still tells attachments apart by it. */
static void op_mcast(struct fdev *f, int attach)
{
	struct qpent *q = PICKE(f->qp);
	uint16_t lid = rn(2) ? 0 : rn(4);
	union ibv_gid g;
	int e;

	if (!q)
		return;
	if (!attach && q->nm && pct(70)) {	/* one it made */
		mcast_detach(q, rn(q->nm));
		return;
	}
	rmgid(&g);
	if (!attach) {
		rec(OP_mcast_detach, ibv_detach_mcast(q->qp, &g, lid));
		return;
	}
	e = ibv_attach_mcast(q->qp, &g, lid);
	rec(OP_mcast_attach, e);
	if (!e && q->nm < 8) {
		q->mg[q->nm] = g;
		q->ml[q->nm++] = lid;
	}
}

static void op_query(struct fdev *f)
{
	struct ibv_device_attr_ex a;
	struct ibv_port_attr pa;
	union ibv_gid g;

	switch (rn(3)) {
	case 0: rec(OP_query, ibv_query_device_ex(f->d.ctx, NULL, &a)); break;
	case 1: rec(OP_query, ibv_query_port(f->d.ctx, rn(4), &pa)); break;
	default: rec(OP_query, ibv_query_gid(f->d.ctx, 1, rn(300), &g) ? errno : 0);
	}
}

/* ---- fork, fd passing, contexts dropped with objects alive ------------ */

/* The child writes its copy of every slot and tries the command fd. */
static void op_fork(void)
{
	pid_t pid;
	int st;

	if (forks >= MAX_FORK)
		return;
	forks++;
	pid = fork();
	if (pid < 0) {
		rec(OP_fork, errno);
		return;
	}
	if (!pid) {
		struct ib_uverbs_cmd_hdr h = { IB_USER_VERBS_CMD_QUERY_DEVICE, 4, 0 };

		for (int d = 0; d < NDEV; d++)
			for (int i = 0; i < NMR; i++)
				if (slot_len[d * NMR + i])
					memset(slot_base(d, i), 0x5a,
					       slot_len[d * NMR + i]);
		/* Not its file: uverbs refuses a process with other creds. */
		if (write(dev[0].d.ctx->cmd_fd, &h, sizeof(h)) < 0)
			(void)0;
		_exit(0);
	}
	if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st))
		FAIL("fork child: status 0x%x", st);
	rec(OP_fork, 0);
}

/* The receiver's counts (it writes them at its end), within 20 s. */
static void add_counts(int sock)
{
	static struct counts rc;
	struct pollfd p = { sock, POLLIN, 0 };
	size_t got = 0;
	ssize_t k;
	int i, j, o;

	while (got < sizeof(rc) && poll(&p, 1, 20000) == 1 &&
	       (k = read(sock, (char *)&rc + got, sizeof(rc) - got)) > 0)
		got += k;
	if (got != sizeof(rc))
		return;	/* the exit status tells what went wrong */
	for (o = 0; o < NOPS; o++) {
		cnt->calls[o] += rc.calls[o];
		cnt->ok[o] += rc.ok[o];
		for (j = 0; j < 8 && rc.err_no[o][j]; j++)
			for (i = 0; i < 8; i++)
				if (cnt->err_no[o][i] == rc.err_no[o][j] ||
				    !cnt->err_no[o][i]) {
					cnt->err_no[o][i] = rc.err_no[o][j];
					cnt->err[o][i] += rc.err[o][j];
					break;
				}
	}
	for (i = 0; i < 256; i++)
		cnt->errno_tot[i] += rc.errno_tot[i];
}

static int send_fd(int sock, int fd)
{
	char c = 'F', ctl[CMSG_SPACE(sizeof(int))] = {};
	struct iovec iov = { &c, 1 };
	struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1,
			    .msg_control = ctl, .msg_controllen = sizeof(ctl) };
	struct cmsghdr *cm = CMSG_FIRSTHDR(&m);

	cm->cmsg_level = SOL_SOCKET;
	cm->cmsg_type = SCM_RIGHTS;
	cm->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(cm), &fd, sizeof(int));
	return sendmsg(sock, &m, 0) == 1 ? 0 : errno;
}

static int recv_fd(int sock)
{
	char c, ctl[CMSG_SPACE(sizeof(int))];
	struct iovec iov = { &c, 1 };
	struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1,
			    .msg_control = ctl, .msg_controllen = sizeof(ctl) };
	struct cmsghdr *cm;
	int fd;

	if (recvmsg(sock, &m, 0) != 1)
		return -1;
	cm = CMSG_FIRSTHDR(&m);
	if (!cm || cm->cmsg_type != SCM_RIGHTS)
		return -1;
	memcpy(&fd, CMSG_DATA(cm), sizeof(int));
	return fd;
}

/*
 * The command fd goes to a fresh process (exec'd: it shares no mapping and
 * inherits no fd), which issues write() and ioctl() commands on it, creates
 * CQs in our context, maps their rings and ours by offset, and scribbles.
 */
static void op_fd_pass(void)
{
	struct fdev *f = &dev[rn(NDEV)];
	int sv[2], st, e, n = 0;
	char arg_sock[16], arg_seed[24];
	pid_t pid;

	if (fd_passes >= MAX_FD_PASS)
		return;
	fd_passes++;
	if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv)) {
		rec(OP_fd_pass, errno);
		return;
	}
	snprintf(arg_sock, sizeof(arg_sock), "%d", sv[1]);
	snprintf(arg_seed, sizeof(arg_seed), "%u", rnd());
	pid = fork();
	if (!pid) {
		close(sv[0]);
		execl(self_exe, self_exe, "--receiver", arg_sock, arg_seed,
		      (char *)NULL);
		_exit(127);
	}
	close(sv[1]);
	e = pid < 0 ? errno : send_fd(sv[0], f->d.ctx->cmd_fd);
	if (pid > 0 && !e)
		add_counts(sv[0]);
	close(sv[0]);
	if (pid > 0) {
		/* A receiver stuck past 20 s is stuck in the kernel. */
		while (waitpid(pid, &st, WNOHANG) == 0) {
			if (++n > 2000) {
				kill(pid, SIGKILL);
				waitpid(pid, &st, 0);
				FAIL("fd receiver stuck for 20 s (a command blocked in the kernel?)");
			}
			usleep(10000);
		}
		if (!WIFEXITED(st) || WEXITSTATUS(st))
			FAIL("fd receiver: status 0x%x", st);
	}
	rec(OP_fd_pass, e);
}

/* Open a context, make objects, post, then close it with all of them alive. */
static void op_ctx_cycle(void)
{
	struct fdev *f = &dev[rn(NDEV)];
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_qp *qp;

	if (extra_ctx >= MAX_EXTRA_CTX)
		return;
	extra_ctx++;
	ctx = dp_open_ctx(f->d.name);
	if (!rec_ptr(OP_ctx_cycle, ctx))
		return;
	pd = ibv_alloc_pd(ctx);
	cq = ibv_create_cq(ctx, 1 + rn(64), NULL, NULL, 0);
	if (pd && cq) {
		struct ibv_qp_init_attr a = {
			.send_cq = cq, .recv_cq = cq,
			.cap = { 8, 8, 1, 1, 0 },
			.qp_type = pct(50) ? IBV_QPT_RC : IBV_QPT_UD,
		};
		struct ibv_qp_attr m = { .qp_state = IBV_QPS_INIT, .port_num = 1,
					 .qkey = 1, .qp_access_flags = 0xf };
		int d = f - dev, s = rn(NMR);
		struct ibv_mr *mr = slot_len[d * NMR + s] ?
			ibv_reg_mr(pd, slot_base(d, s), slot_len[d * NMR + s],
				   IBV_ACCESS_LOCAL_WRITE) : NULL;
		struct ibv_sge sg = { (uintptr_t)slot_base(d, s), 64,
				      mr ? mr->lkey : 0 };
		struct ibv_recv_wr rw = { .sg_list = &sg, .num_sge = 1 }, *bad;

		qp = ibv_create_qp(pd, &a);
		if (qp && !ibv_modify_qp(qp, &m, IBV_QP_STATE | IBV_QP_PORT |
					 IBV_QP_PKEY_INDEX |
					 (a.qp_type == IBV_QPT_UD ? IBV_QP_QKEY :
					  IBV_QP_ACCESS_FLAGS)))
			ibv_post_recv(qp, &rw, &bad);
	}
	/* Leaks the user-space objects on purpose; their rings stay mapped. */
	rec(OP_ctx_cycle, ibv_close_device(ctx));
}

/* ---- the scribbler thread ----------------------------------------------- */

struct ring_map {
	unsigned long lo, hi;
};

/* Writable uverbs mappings of this process (no allocation: no malloc). */
static int find_rings(struct ring_map *r, int max)
{
	static char buf[1 << 18];
	ssize_t len = 0, k;
	int fd = open("/proc/self/maps", O_RDONLY), n = 0;
	char *p, *nl;

	if (fd < 0)
		return 0;
	while (len < (ssize_t)sizeof(buf) - 1 &&
	       (k = read(fd, buf + len, sizeof(buf) - 1 - len)) > 0)
		len += k;
	close(fd);
	buf[len] = 0;
	for (p = buf; *p && n < max; p = nl + 1) {
		unsigned long lo, hi;
		char perm[8];

		nl = strchr(p, '\n');
		if (!nl)
			break;
		*nl = 0;
		if (strstr(p, "/dev/infiniband/uverbs") &&
		    sscanf(p, "%lx-%lx %7s", &lo, &hi, perm) == 3 &&
		    perm[0] == 'r' && perm[1] == 'w' && hi - lo > SROCE_RING_HDR_SIZE) {
			r[n].lo = lo;
			r[n].hi = hi;
			n++;
		}
	}
	return n;
}

static uint32_t scribble_val(uint64_t *s, uint32_t old)
{
	switch (rnd64(s) % 8) {
	case 0: return (uint32_t)rnd64(s);
	case 1: return old + 1 + rnd64(s) % 4;
	case 2: return old - 1 - rnd64(s) % 4;
	case 3: return old + 0x40000000u;
	case 4: return 0;
	case 5: return ~0u;
	default: return old + (uint32_t)(rnd64(s) % 70000);
	}
}

static void scribble_ring(uint64_t *s, struct ring_map *r)
{
	struct sroce_ring_hdr *h = (void *)r->lo;
	unsigned char *slots = (unsigned char *)r->lo + SROCE_RING_HDR_SIZE;
	size_t n = r->hi - r->lo - SROCE_RING_HDR_SIZE;
	int k;

	switch (rnd64(s) % 6) {
	case 0:
		__atomic_store_n(&h->prod, scribble_val(s, h->prod), __ATOMIC_RELEASE);
		break;
	case 1:
		__atomic_store_n(&h->cons, scribble_val(s, h->cons), __ATOMIC_RELEASE);
		break;
	case 2:
		__atomic_store_n(&h->flags, (uint32_t)rnd64(s), __ATOMIC_RELEASE);
		break;
	case 3:
		__atomic_store_n(&h->engines_active, (uint32_t)rnd64(s) & 1,
				 __ATOMIC_RELEASE);
		break;
	default:
		for (k = 0; k < 16; k++) {
			size_t off = rnd64(s) % n;

			if (rnd64(s) % 2)
				off &= ~(size_t)7;
			slots[off] = (unsigned char)rnd64(s);
		}
		if (rnd64(s) % 4 == 0) {	/* a plausible WQE header */
			size_t off = (rnd64(s) % n) & ~(size_t)63;
			uint32_t *w = (uint32_t *)(slots + off);

			if (off + 32 <= n) {
				w[2] = rnd64(s) % 16;		/* opcode */
				w[4] = rnd64(s) % 70;		/* num_sge */
				w[5] = (uint32_t)rnd64(s);	/* inline_len */
			}
		}
	}
}

static void doorbell(uint64_t *s, int fd)
{
	struct {
		struct ib_uverbs_cmd_hdr hdr;
		struct ib_uverbs_post_send cmd;
	} c = {};
	struct ib_uverbs_post_send_resp resp;
	int recv = rnd64(s) % 2;

	c.hdr.command = recv ? IB_USER_VERBS_CMD_POST_RECV :
			IB_USER_VERBS_CMD_POST_SEND;
	c.hdr.in_words = sizeof(c) / 4;
	c.hdr.out_words = sizeof(resp) / 4;
	c.cmd.response = (uintptr_t)&resp;
	c.cmd.qp_handle = rnd64(s) % 40;
	c.cmd.wqe_size = recv ? sizeof(struct ib_uverbs_recv_wr) :
			 sizeof(struct ib_uverbs_send_wr);
	rec(OP_doorbell, write(fd, &c, sizeof(c)) == sizeof(c) ? 0 : errno);
}

static void scribble_round(uint64_t *s, struct ring_map *r, int max)
{
	int n = find_rings(r, max), k;

	for (k = 0; n && k < 1 + (int)(rnd64(s) % 8); k++) {
		scribble_ring(s, &r[rnd64(s) % n]);
		rec(OP_scribble, 0);
	}
}

static void *scribbler(void *arg)
{
	static struct ring_map r[4096];
	uint64_t s = (uintptr_t)arg | 1;

	while (!stop) {
		pthread_mutex_lock(&map_lock);
		scribble_round(&s, r, ARRAY_SIZE(r));
		pthread_mutex_unlock(&map_lock);
		for (int k = 0; k < 1 + (int)(rnd64(&s) % 4); k++)
			doorbell(&s, dev[rnd64(&s) % NDEV].d.ctx->cmd_fd);
		usleep(2000 + rnd64(&s) % 20000);
	}
	return NULL;
}

/* ---- the fd receiver (a separate process) ------------------------------ */

static int uioctl(int fd, uint16_t obj, uint16_t meth, struct ib_uverbs_attr *at,
		  int n)
{
	struct {
		struct ib_uverbs_ioctl_hdr h;
		struct ib_uverbs_attr a[8];
	} c = {};

	c.h.length = sizeof(c.h) + n * sizeof(c.a[0]);
	c.h.object_id = obj;
	c.h.method_id = meth;
	c.h.num_attrs = n;
	memcpy(c.a, at, n * sizeof(*at));
	if (ioctl(fd, RDMA_VERBS_IOCTL, &c))
		return errno;
	memcpy(at, c.a, n * sizeof(*at));	/* new handles come back here */
	return 0;
}

static int receiver(int sock, uint32_t seed)
{
	static struct ring_map r[4096];
	uint64_t s = seed | 1ULL << 40;
	struct sroce_create_cq_resp cq_resp;
	uint32_t cq_handles[8], ncq = 0, u32, handles[64];
	uint64_t u64;
	int fd = recv_fd(sock), i, e;

	if (fd < 0)
		return 2;
	for (i = 0; i < 40; i++) {
		struct ib_uverbs_attr a[8] = {};

		switch (rnd64(&s) % 8) {
		case 0: {	/* write(): not this process's file */
			struct {
				struct ib_uverbs_cmd_hdr hdr;
				struct ib_uverbs_alloc_pd cmd;
			} c = {};
			struct ib_uverbs_alloc_pd_resp resp;

			c.hdr.command = rnd64(&s) % 2 ? IB_USER_VERBS_CMD_ALLOC_PD :
					rnd64(&s) % 60;
			c.hdr.in_words = sizeof(c) / 4;
			c.hdr.out_words = sizeof(resp) / 4;
			c.cmd.response = (uintptr_t)&resp;
			rec(OP_rx_write_cmd, write(fd, &c, sizeof(c)) < 0 ? errno : 0);
			break;
		}
		case 1:
			a[0].attr_id = UVERBS_ATTR_QUERY_CONTEXT_NUM_COMP_VECTORS;
			a[0].len = 4;
			a[0].data = (uintptr_t)&u32;
			a[1].attr_id = UVERBS_ATTR_QUERY_CONTEXT_CORE_SUPPORT;
			a[1].len = 8;
			a[1].data = (uintptr_t)&u64;
			rec(OP_rx_ioctl, uioctl(fd, UVERBS_OBJECT_DEVICE,
						UVERBS_METHOD_QUERY_CONTEXT, a, 2));
			break;
		case 2:
			a[0].attr_id = UVERBS_ATTR_INFO_OBJECT_ID;
			a[0].len = 2;
			a[0].data = rnd64(&s) % 2 ? UVERBS_OBJECT_QP : rnd64(&s) % 24;
			a[1].attr_id = UVERBS_ATTR_INFO_TOTAL_HANDLES;
			a[1].len = 4;
			a[1].data = (uintptr_t)&u32;
			a[2].attr_id = UVERBS_ATTR_INFO_HANDLES_LIST;
			a[2].len = sizeof(handles);
			a[2].data = (uintptr_t)handles;
			rec(OP_rx_ioctl, uioctl(fd, UVERBS_OBJECT_DEVICE,
						UVERBS_METHOD_INFO_HANDLES, a, 3));
			break;
		case 3:
			if (ncq >= ARRAY_SIZE(cq_handles))
				break;
			a[0].attr_id = UVERBS_ATTR_CREATE_CQ_HANDLE;
			a[0].flags = UVERBS_ATTR_F_MANDATORY;
			a[1].attr_id = UVERBS_ATTR_CREATE_CQ_CQE;
			a[1].len = 4;
			a[1].data = rnd64(&s) % 4 ? 1 + rnd64(&s) % 128 : (uint32_t)rnd64(&s);
			a[2].attr_id = UVERBS_ATTR_CREATE_CQ_USER_HANDLE;
			a[2].len = 8;
			a[3].attr_id = UVERBS_ATTR_CREATE_CQ_COMP_VECTOR;
			a[3].len = 4;
			a[4].attr_id = UVERBS_ATTR_CREATE_CQ_RESP_CQE;
			a[4].len = 4;
			a[4].data = (uintptr_t)&u32;
			a[5].attr_id = UVERBS_ATTR_UHW_OUT;
			a[5].len = sizeof(cq_resp);
			a[5].data = (uintptr_t)&cq_resp;
			memset(&cq_resp, 0, sizeof(cq_resp));
			e = uioctl(fd, UVERBS_OBJECT_CQ, UVERBS_METHOD_CQ_CREATE,
				   a, 6);
			rec(OP_rx_cq_create, e);
			if (e)
				break;
			cq_handles[ncq++] = (uint32_t)a[0].data;
			if (cq_resp.ring.mmap_size && cq_resp.ring.mmap_size < (64 << 20)) {
				void *m = mmap(NULL, cq_resp.ring.mmap_size,
					       PROT_READ | PROT_WRITE, MAP_SHARED,
					       fd, cq_resp.ring.mmap_offset);

				rec(OP_rx_mmap, m == MAP_FAILED ? errno : 0);
				if (m != MAP_FAILED) {
					struct ring_map rm = {
						(uintptr_t)m,
						(uintptr_t)m + cq_resp.ring.mmap_size,
					};

					for (int k = 0; k < 8; k++)
						scribble_ring(&s, &rm);
					if (rnd64(&s) % 2)
						munmap(m, cq_resp.ring.mmap_size);
				}
			}
			break;
		case 4: {	/* our rings, and others, by offset */
			size_t len = PG * (1 + rnd64(&s) % 64);
			void *m = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED,
				       fd, PG * (rnd64(&s) % 128));

			rec(OP_rx_mmap, m == MAP_FAILED ? errno : 0);
			if (m != MAP_FAILED && len > SROCE_RING_HDR_SIZE) {
				struct ring_map rm = { (uintptr_t)m, (uintptr_t)m + len };

				for (int k = 0; k < 8; k++)
					scribble_ring(&s, &rm);
			}
			if (m != MAP_FAILED && rnd64(&s) % 3)
				munmap(m, len);
			break;
		}
		case 7: {	/* destroy a CQ it made (its rings may stay mapped) */
			struct ib_uverbs_destroy_cq_resp dr;

			if (!ncq)
				break;
			a[0].attr_id = UVERBS_ATTR_DESTROY_CQ_HANDLE;
			a[0].data = cq_handles[--ncq];
			a[1].attr_id = UVERBS_ATTR_DESTROY_CQ_RESP;
			a[1].len = sizeof(dr);
			a[1].data = (uintptr_t)&dr;
			rec(OP_rx_ioctl, uioctl(fd, UVERBS_OBJECT_CQ,
						UVERBS_METHOD_CQ_DESTROY, a, 2));
			break;
		}
		case 5:
			scribble_round(&s, r, ARRAY_SIZE(r));
			doorbell(&s, fd);
			break;
		default:
			u32 = 1 + rnd64(&s) % 2;
			a[0].attr_id = UVERBS_ATTR_QUERY_PORT_PORT_NUM;
			a[0].len = 1;
			a[0].data = u32;
			a[1].attr_id = UVERBS_ATTR_QUERY_PORT_RESP;
			a[1].len = sizeof(struct ib_uverbs_query_port_resp_ex);
			a[1].data = (uintptr_t)handles;
			rec(OP_rx_ioctl, uioctl(fd, UVERBS_OBJECT_DEVICE,
						UVERBS_METHOD_QUERY_PORT, a, 2));
		}
	}
	/* The counts go back to the fuzzer, which adds them to its own. */
	return write(sock, cnt, sizeof(*cnt)) == sizeof(*cnt) ? 0 : 2;
}

/* ---- the run ------------------------------------------------------------- */

/*
 * Destroy what is left, in passes (a dependency may free up), then say what
 * could not be destroyed and why: the close of the context must still
 * release it (uverbs WARNs when a driver's destroy keeps failing).
 */
static void destroy_all(struct fdev *f)
{
	int i, pass, e;

	pthread_mutex_lock(&map_lock);
	for (pass = 0; pass < 3; pass++) {
		int last = pass == 2;

#define TRY(what, cond, call, clear) do {				\
		if ((cond) && (e = (call)) == 0)			\
			clear;						\
		else if ((cond) && last)				\
			printf("# left on %s: %s %d (%s)\n", f->d.name,	\
			       what, i, strerror(e));			\
	} while (0)
		for (i = 0; i < NQP; i++)
			while (f->qp[i].qp && f->qp[i].nm)
				mcast_detach(&f->qp[i], 0);
		for (i = 0; i < NQP; i++)
			TRY("qp", f->qp[i].qp, ibv_destroy_qp(f->qp[i].qp), f->qp[i].qp = NULL);
		for (i = 0; i < NMW; i++)
			TRY("mw", f->mw[i], ibv_dealloc_mw(f->mw[i]), f->mw[i] = NULL);
		for (i = 0; i < NMR; i++)
			TRY("mr", f->mr[i].mr, ibv_dereg_mr(f->mr[i].mr), f->mr[i].mr = NULL);
		for (i = 0; i < NAH; i++)
			TRY("ah", f->ah[i], ibv_destroy_ah(f->ah[i]), f->ah[i] = NULL);
		for (i = 0; i < NSRQ; i++)
			TRY("srq", f->srq[i], ibv_destroy_srq(f->srq[i]), f->srq[i] = NULL);
		for (i = 0; i < NCQ; i++)
			TRY("cq", f->cq[i], ibv_destroy_cq(f->cq[i]), f->cq[i] = NULL);
		for (i = 0; i < NPD; i++)
			TRY("pd", f->pd[i], ibv_dealloc_pd(f->pd[i]), f->pd[i] = NULL);
		for (i = 0; i < NXRCD; i++)
			TRY("xrcd", f->xrcd[i], ibv_close_xrcd(f->xrcd[i]),
			    f->xrcd[i] = NULL);
#undef TRY
	}
	pthread_mutex_unlock(&map_lock);
}

static void print_counts(uint64_t seed, unsigned int secs, unsigned long iters)
{
	int i, k;

	printf("# FUZZ seed=%llu secs=%u iterations=%lu (replay: FUZZ_SEED=%llu FUZZ_SECS=%u)\n",
	       (unsigned long long)seed, secs, iters, (unsigned long long)seed, secs);
	printf("# %-16s %9s %9s  errnos (count)\n", "operation", "calls", "ok");
	for (i = 0; i < NOPS; i++) {
		char line[512];
		int l = 0;

		for (k = 0; k < 8 && cnt->err_no[i][k]; k++)
			l += snprintf(line + l, sizeof(line) - l, " %s(%lu)",
				      cnt->err_no[i][k] == 255 ? "other" :
				      cnt->err_no[i][k] >= 253 ? "unset" :
				      strerrorname_np(cnt->err_no[i][k]) ?: "?",
				      cnt->err[i][k]);
		line[l] = 0;
		printf("# %-16s %9lu %9lu %s\n", op_name[i], cnt->calls[i],
		       cnt->ok[i], line);
	}
	printf("# errno totals:");
	for (i = 1; i < 256; i++)
		if (cnt->errno_tot[i])
			printf(" %s=%lu", i >= 253 ? "unset" :
			       strerrorname_np(i) ?: "?", cnt->errno_tot[i]);
	printf("\n");
}

/*
 * A signal that kills the program: where, and the operations before it
 * (the backtrace's offsets go to addr2line -e build/selftests/hard_vfuzz).
 */
static void crash(int sig, siginfo_t *si, void *uc)
{
	void *bt[32];
	char line[128];
	unsigned int i;
	int n;

	(void)uc;
	n = snprintf(line, sizeof(line), "# CRASH signal %d at address %p; last operations:",
		     sig, si->si_addr);
	if (write(1, line, n) < 0)
		_exit(5);
	for (i = hist_n > ARRAY_SIZE(hist) ? hist_n - ARRAY_SIZE(hist) : 0; i < hist_n; i++) {
		n = snprintf(line, sizeof(line), " %s", op_name[hist[i % ARRAY_SIZE(hist)]]);
		if (write(1, line, n) < 0)
			_exit(5);
	}
	if (write(1, "\n", 1) < 0)
		_exit(5);
	n = backtrace(bt, ARRAY_SIZE(bt));
	backtrace_symbols_fd(bt, n, 1);
	signal(sig, SIG_DFL);
	raise(sig);
}

static void fuzz(const struct dp_case *c)
{
	struct sigaction sa = { .sa_sigaction = crash, .sa_flags = SA_SIGINFO };

	const char *es = getenv("FUZZ_SEED"), *et = getenv("FUZZ_SECS");
	uint64_t seed = es ? strtoull(es, NULL, 0) : (uint64_t)time(NULL) ^ getpid();
	unsigned int secs = et ? strtoul(et, NULL, 0) : 60;
	unsigned long iters = 0;
	uint64_t t_end;
	pthread_t th;
	int d, i;

	(void)c;
	sigaction(SIGSEGV, &sa, NULL);
	sigaction(SIGBUS, &sa, NULL);
	sigaction(SIGILL, &sa, NULL);
	sigaction(SIGFPE, &sa, NULL);
	sigaction(SIGABRT, &sa, NULL);
	alarm(secs + 120);
	printf("# FUZZ seed=%llu secs=%u uid=%d\n", (unsigned long long)seed,
	       secs, (int)getuid());
	fflush(stdout);
	rng_s = seed * 0x9E3779B97F4A7C15ULL + 1;
	arena = mmap(NULL, NDEV * NMR * SLOT, PROT_NONE,
		     MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	CHECK(arena != MAP_FAILED, "arena: %m");
	for (d = 0; d < NDEV; d++) {
		dp_open(&dev[d].d, d, 4);
		fcntl(dev[d].d.ctx->async_fd, F_SETFL,
		      fcntl(dev[d].d.ctx->async_fd, F_GETFL) | O_NONBLOCK);
		for (i = 0; i < NCH; i++) {
			dev[d].ch[i] = ibv_create_comp_channel(dev[d].d.ctx);
			CHECK(dev[d].ch[i], "comp channel: %m");
			fcntl(dev[d].ch[i]->fd, F_SETFL,
			      fcntl(dev[d].ch[i]->fd, F_GETFL) | O_NONBLOCK);
		}
	}
	CHECK(!pthread_create(&th, NULL, scribbler, (void *)(uintptr_t)(seed ^ 0xabcdef)),
	      "pthread_create");
	t_end = dp_now_ms() + secs * 1000ULL;
	while (dp_now_ms() < t_end) {
		struct fdev *f = &dev[rn(NDEV)];
		uint32_t w = rn(1000);

		iters++;
		if (w < 30) op_pd_alloc(f);
		else if (w < 45) op_pd_dealloc(f);
		else if (w < 85) op_cq_create(f);
		else if (w < 100) op_cq_resize(f);
		else if (w < 120) op_cq_destroy(f);
		else if (w < 170) op_cq_poll(f);
		else if (w < 180) op_cq_notify(f);
		else if (w < 230) op_qp_create(f);
		else if (w < 290) op_qp_modify(f);
		else if (w < 330) op_qp_connect(f);
		else if (w < 340) op_qp_query(f);
		else if (w < 370) op_qp_destroy(f);
		else if (w < 385) op_srq_create(f);
		else if (w < 395) op_srq_modify(f);
		else if (w < 400) op_srq_query(f);
		else if (w < 410) op_srq_destroy(f);
		else if (w < 425) op_srq_post_recv(f);
		else if (w < 470) op_mr_reg(f);
		else if (w < 485) op_mr_rereg(f);
		else if (w < 510) op_mr_dereg(f);
		else if (w < 520) op_mr_munmap(f);
		else if (w < 535) op_mw_alloc(f);
		else if (w < 550) op_mw_bind(f);
		else if (w < 560) op_mw_dealloc(f);
		else if (w < 575) op_ah_create(f);
		else if (w < 585) op_ah_destroy(f);
		else if (w < 600) op_advise_mr(f);
		else if (w < 610) op_mcast(f, 1);
		else if (w < 615) op_mcast(f, 0);
		else if (w < 800) op_post_send(f);
		else if (w < 900) op_post_recv(f);
		else if (w < 940) op_query(f);
		else if (w < 944) op_fork();
		else if (w < 947) op_fd_pass();
		else if (w < 952) op_ctx_cycle();
		else if (w < 958) op_xrcd_open(f);
		else if (w < 961) op_xrcd_close(f);
		drain_events(f);
	}
	stop = 1;
	pthread_join(th, NULL);
	for (d = 0; d < NDEV; d++) {
		drain_events(&dev[d]);
		destroy_all(&dev[d]);
	}
	print_counts(seed, secs, iters);
	/* Closing the contexts releases whatever destroy_all could not. */
	for (d = 0; d < NDEV; d++) {
		for (i = 0; i < NCH; i++)
			ibv_destroy_comp_channel(dev[d].ch[i]);
		ibv_close_device(dev[d].d.ctx);
	}
	NOTE("fuzzed %lu iterations for %u s, seed %llu: every call returned",
	     iters, secs, (unsigned long long)seed);
}

/*
 * Finding 1, shrunk: a UD QP attached to one group under two MLIDs.
 * Each attach that succeeds is counted by the core (qp->usecnt), so each
 * needs a detach that succeeds, and then the QP must be destroyable (sroce
 * once answered the second attach without counting it: destroy_qp said
 * EBUSY for good and closing the context WARNed in uverbs).
 */
static void mcast_two_mlids(const struct dp_case *c)
{
	struct dp_dev d;
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	struct ibv_qp_init_attr a = { .cap = { 1, 1, 1, 1, 0 }, .qp_type = IBV_QPT_UD };
	union ibv_gid g = { .raw = { [10] = 0xff, [11] = 0xff, [12] = 239, [15] = 1 } };
	int e1, e2, d1, d2, e;

	(void)c;
	dp_open(&d, 0, 4);
	cq = ibv_create_cq(d.ctx, 4, NULL, NULL, 0);
	CHECK(cq, "create_cq: %m");
	a.send_cq = a.recv_cq = cq;
	qp = ibv_create_qp(d.pd, &a);
	CHECK(qp, "create_qp: %m");
	e1 = ibv_attach_mcast(qp, &g, 0);
	e2 = ibv_attach_mcast(qp, &g, 1);
	d1 = ibv_detach_mcast(qp, &g, 0);
	d2 = ibv_detach_mcast(qp, &g, 1);
	e = ibv_destroy_qp(qp);
	NOTE("attach mlid 0: %d, mlid 1: %d; detach mlid 0: %d, mlid 1: %d; destroy_qp: %d (%s)",
	     e1, e2, d1, d2, e, strerror(e));
	CHECK(!e, "destroy_qp after every attachment was detached: %s", strerror(e));
	ibv_destroy_cq(cq);
	dp_close(&d);
}

static const struct dp_case cases[] = {
	{ "verbs_ring_fuzz", fuzz, IBV_QPT_RC, 4 },
	{ "repro_mcast_two_mlids", mcast_two_mlids, IBV_QPT_UD, 4 },
};

int main(int argc, char **argv)
{
	cnt = mmap(NULL, sizeof(*cnt), PROT_READ | PROT_WRITE,
		   MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (cnt == MAP_FAILED)
		return 1;
	if (argc == 4 && !strcmp(argv[1], "--receiver"))
		return receiver(atoi(argv[2]), strtoul(argv[3], NULL, 0));
	self_exe = "/proc/self/exe";
	printf("# uid=%d\n", (int)getuid());	/* vfuzz.sh checks who ran */
	fflush(stdout);
	return dp_main(argc, argv, cases, ARRAY_SIZE(cases));
}
