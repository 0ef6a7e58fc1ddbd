// SPDX-License-Identifier: GPL-2.0-only
/*
 * hard_failnth: every verb survives the failure of any one of the kernel
 * allocations it makes. Debug kernel only (CONFIG_FAULT_INJECTION,
 * FAILSLAB, FAIL_PAGE_ALLOC; failnth.sh lets them fail sleeping and
 * order-0 allocations too).
 *
 * /proc/self/task/<tid>/fail-nth: writing N makes the N-th allocation of
 * the calling task from then on fail (slab or page allocator, whichever
 * comes N-th); reading it back gives 0 once that fault was injected, or
 * what is left of N if the task made fewer allocations. For each verb,
 * with N = 1, 2, ...: the objects the verb needs are made, fail-nth is set
 * to N, the verb is called, fail-nth is read back and cleared, and the
 * verb's result checked: it succeeded (the failed allocation had a
 * fallback) or it failed with ENOMEM (the errno each case allows), and a
 * verb that failed had a fault injected. Then everything is destroyed. The
 * loop ends at the first N the verb did not reach: every allocation of
 * its path has then failed once. The verbs: open_device (alloc_ucontext),
 * alloc_pd, reg_mr (pinned and ODP), create_cq, create_srq, create_qp (RC
 * and UD), modify_qp RESET -> INIT -> RTR -> RTS, create_ah, alloc_mw,
 * attach_mcast, and post_send, whose doorbell (a write() on the context's
 * file) runs the requester in the caller's task: there a failed skb
 * allocation must delay the WR, never lose it (its completion must come,
 * successful, and an RC WRITE's data land; a UD datagram may be lost on
 * the way, as on a wire, and is counted). A doorbell whose write() fails
 * in the core (ENOMEM) leaves the WR in the SQ ring, as rdma_rxe's
 * provider does: the next post's doorbell must then carry both.
 *
 * failnth.sh runs this, then checks that slab and vmalloc use are back
 * at the baseline, that kmemleak finds nothing allocated through sroce
 * or the RDMA core, and the kernel log (a KASAN, lockdep or UBSAN report
 * on an error path fails the test).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <arpa/inet.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>
#include "../errors/err.h"

#define MAX_N		2000	/* more allocations than any verb makes */
#define BUF_LEN		(64 * KiB)
#define WLEN		(4 * KiB)	/* post_send RC: packets at MTU 1024 */
#define UD_LEN		512		/* post_send UD: one packet */
#define ACCESS		(IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | \
			 IBV_ACCESS_REMOTE_READ)

/* ---- fail-nth --------------------------------------------------------- */

static int fnth_fd = -1;

/* Opened once: an open() in the loop would be an allocation of its own. */
static void fnth_open(void)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/self/task/%d/fail-nth", gettid());
	fnth_fd = open(path, O_RDWR);
	if (fnth_fd < 0 && errno == ENOENT)
		dp_skip("no %s: a kernel without CONFIG_FAULT_INJECTION", path);
	CHECK(fnth_fd >= 0, "open %s: %s", path, strerror(errno));
}

static void fnth_set(unsigned int n)
{
	char b[16];
	int len = snprintf(b, sizeof(b), "%u", n);

	CHECK(pwrite(fnth_fd, b, len, 0) == len, "write fail-nth: %s", strerror(errno));
}

/* What is left of the count: 0 once the fault was injected. */
static unsigned int fnth_left(void)
{
	char b[16] = "";

	CHECK(pread(fnth_fd, b, sizeof(b) - 1, 0) > 0, "read fail-nth: %s",
	      strerror(errno));
	return (unsigned int)strtoul(b, NULL, 10);
}

/* ---- the verbs -------------------------------------------------------- */

struct fx {
	struct dp_dev d[2];
	struct dp_pair p;	/* post_send */
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	unsigned char *buf;
	void *obj;		/* what the verb made */
	union ibv_gid mgid;
	struct ibv_device **list;	/* open_device: found before the loop */
	struct ibv_device *dev;
	uint32_t seed;
	uint64_t wr_id;
	unsigned int n;		/* the allocation that failed */
	int err;		/* what the verb returned */
	int injected;		/* it failed (fail-nth reached 0) */
	unsigned int rq_out;	/* UD: receives posted at B */
	uint64_t rq_next;
	unsigned int ud_lost;	/* UD: datagrams a failure lost */
};

struct fn_op {
	const char *name;
	void (*setup)(struct fx *x);	/* before fail-nth is set */
	int (*verb)(struct fx *x);	/* 0 or an errno */
	void (*undo)(struct fx *x);	/* after: x->obj (or NULL) and setup's */
	int (*errno_ok)(int e);
};

static int only_enomem(int e)
{
	return e == ENOMEM;
}

/*
 * libibverbs opens the device's character file by name, and when that
 * fails, looks for it by number (/dev/char/<major>:<minor>) and returns
 * that lookup's errno: a failed allocation in open(2) reads ENOENT.
 */
static int open_errno(int e)
{
	return e == ENOMEM || e == ENOENT;
}

static int ret_errno(void *obj)
{
	return obj ? 0 : errno ? errno : -1;
}

static void no_setup(struct fx *x)
{
	x->obj = NULL;
}

/* open_device (alloc_ucontext); the device list read before */
static int v_open(struct fx *x)
{
	x->obj = ibv_open_device(x->dev);
	return ret_errno(x->obj);
}

static void u_open(struct fx *x)
{
	if (x->obj)
		CHECK(!ibv_close_device(x->obj), "close_device");
}

/* alloc_pd */
static int v_pd(struct fx *x)
{
	x->obj = ibv_alloc_pd(x->d[0].ctx);
	return ret_errno(x->obj);
}

static void u_pd(struct fx *x)
{
	if (x->obj)
		CHECK(!ibv_dealloc_pd(x->obj), "dealloc_pd");
}

/* reg_mr, pinned and ODP */
static int v_mr(struct fx *x)
{
	x->obj = ibv_reg_mr(x->d[0].pd, x->buf, BUF_LEN, ACCESS);
	return ret_errno(x->obj);
}

static int v_mr_odp(struct fx *x)
{
	x->obj = ibv_reg_mr(x->d[0].pd, x->buf, BUF_LEN, ACCESS | IBV_ACCESS_ON_DEMAND);
	return ret_errno(x->obj);
}

static void u_mr(struct fx *x)
{
	if (x->obj)
		CHECK(!ibv_dereg_mr(x->obj), "dereg_mr");
}

/* create_cq */
static int v_cq(struct fx *x)
{
	x->obj = ibv_create_cq(x->d[0].ctx, 64, NULL, NULL, 0);
	return ret_errno(x->obj);
}

static void u_cq(struct fx *x)
{
	if (x->obj)
		CHECK(!ibv_destroy_cq(x->obj), "destroy_cq");
}

/* create_srq */
static int v_srq(struct fx *x)
{
	struct ibv_srq_init_attr sa = { .attr = { .max_wr = 64, .max_sge = 2 } };

	x->obj = ibv_create_srq(x->d[0].pd, &sa);
	return ret_errno(x->obj);
}

static void u_srq(struct fx *x)
{
	if (x->obj)
		CHECK(!ibv_destroy_srq(x->obj), "destroy_srq");
}

/* create_qp RC / UD */
static struct ibv_qp *make_qp(struct fx *x, enum ibv_qp_type type)
{
	struct ibv_qp_init_attr qa = {
		.send_cq = x->cq, .recv_cq = x->cq, .qp_type = type,
		.cap = { .max_send_wr = 16, .max_recv_wr = 16, .max_send_sge = 2,
			 .max_recv_sge = 2 },
	};

	return ibv_create_qp(x->d[0].pd, &qa);
}

static int v_qp_rc(struct fx *x)
{
	x->obj = make_qp(x, IBV_QPT_RC);
	return ret_errno(x->obj);
}

static int v_qp_ud(struct fx *x)
{
	x->obj = make_qp(x, IBV_QPT_UD);
	return ret_errno(x->obj);
}

static void u_qp(struct fx *x)
{
	if (x->obj)
		CHECK(!ibv_destroy_qp(x->obj), "destroy_qp");
}

/* modify_qp RESET -> INIT -> RTR -> RTS of an RC QP (to B's GID) */
static void s_modify(struct fx *x)
{
	x->obj = NULL;
	x->qp = make_qp(x, IBV_QPT_RC);
	CHECK(x->qp, "create_qp: %s", strerror(errno));
}

static int v_modify(struct fx *x)
{
	struct ibv_qp_attr at = {
		.qp_state = IBV_QPS_INIT, .port_num = 1,
		.qp_access_flags = IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ,
	};
	int ret;

	ret = ibv_modify_qp(x->qp, &at, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
			    IBV_QP_PORT | IBV_QP_ACCESS_FLAGS);
	if (ret)
		return ret;
	memset(&at, 0, sizeof(at));
	at.qp_state = IBV_QPS_RTR;
	at.path_mtu = IBV_MTU_1024;
	at.dest_qp_num = 0x123;
	at.rq_psn = 1;
	at.max_dest_rd_atomic = 16;
	at.min_rnr_timer = 12;
	at.ah_attr.is_global = 1;
	at.ah_attr.port_num = 1;
	at.ah_attr.grh.dgid = x->d[1].gid;
	at.ah_attr.grh.sgid_index = x->d[0].gid_index;
	at.ah_attr.grh.hop_limit = 64;
	ret = ibv_modify_qp(x->qp, &at, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
			    IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
			    IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER);
	if (ret)
		return ret;
	memset(&at, 0, sizeof(at));
	at.qp_state = IBV_QPS_RTS;
	at.sq_psn = 1;
	at.timeout = 14;
	at.retry_cnt = 7;
	at.rnr_retry = 7;
	at.max_rd_atomic = 16;
	return ibv_modify_qp(x->qp, &at, IBV_QP_STATE | IBV_QP_SQ_PSN |
			     IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
			     IBV_QP_MAX_QP_RD_ATOMIC);
}

static void u_modify(struct fx *x)
{
	CHECK(!ibv_destroy_qp(x->qp), "destroy_qp");
	x->qp = NULL;
}

/* create_ah to B */
static int v_ah(struct fx *x)
{
	struct ibv_ah_attr ah = {
		.is_global = 1, .port_num = 1,
		.grh = { .dgid = x->d[1].gid, .sgid_index = x->d[0].gid_index,
			 .hop_limit = 64 },
	};

	x->obj = ibv_create_ah(x->d[0].pd, &ah);
	return ret_errno(x->obj);
}

static void u_ah(struct fx *x)
{
	if (x->obj)
		CHECK(!ibv_destroy_ah(x->obj), "destroy_ah");
}

/* alloc_mw (type 2) */
static int v_mw(struct fx *x)
{
	x->obj = ibv_alloc_mw(x->d[0].pd, IBV_MW_TYPE_2);
	return ret_errno(x->obj);
}

static void u_mw(struct fx *x)
{
	if (x->obj)
		CHECK(!ibv_dealloc_mw(x->obj), "dealloc_mw");
}

/* attach_mcast of a UD QP */
static void s_mcast(struct fx *x)
{
	x->obj = NULL;
	x->qp = make_qp(x, IBV_QPT_UD);
	CHECK(x->qp, "create_qp: %s", strerror(errno));
	dp_mgid(4, 0, &x->mgid);
}

static int v_mcast(struct fx *x)
{
	int ret = ibv_attach_mcast(x->qp, &x->mgid, 0);

	x->obj = ret ? NULL : x->qp;
	return ret;
}

static void u_mcast(struct fx *x)
{
	if (x->obj)
		CHECK(!ibv_detach_mcast(x->qp, &x->mgid, 0), "detach_mcast");
	u_modify(x);
}

/*
 * post_send: one WRITE (RC) or SEND with immediate (UD; the immediate
 * names the round) from A to B; its doorbell runs A's requester in this
 * task, which allocates the skbs.
 */
#define UD_SLOTS	8	/* B's receives, each its own buffer */
#define UD_SLOT_LEN	(DP_GRH + UD_LEN)

static struct ibv_sge s_ls;

static void ud_recv_top_up(struct fx *x)
{
	struct dp_pair *p = &x->p;
	struct ibv_sge rs = { 0, UD_SLOT_LEN, p->b.buf.mr->lkey };

	for (; x->rq_out < UD_SLOTS; x->rq_out++, x->rq_next++) {
		rs.addr = (uintptr_t)p->b.buf.p + (x->rq_next % UD_SLOTS) * UD_SLOT_LEN;
		dp_post_recv(&p->b, x->rq_next, &rs, 1);
	}
}

static void s_post(struct fx *x)
{
	struct dp_pair *p = &x->p;

	x->obj = NULL;
	x->seed++;
	x->wr_id++;
	for (size_t i = 0; i < WLEN; i++)
		p->a.buf.p[i] = dp_pat(i, x->seed);
	if (p->cfg.type == IBV_QPT_UD)
		ud_recv_top_up(x);
	else
		memset(p->b.buf.p, 0, WLEN);
	s_ls = (struct ibv_sge){ (uintptr_t)p->a.buf.p,
				 p->cfg.type == IBV_QPT_UD ? UD_LEN : WLEN,
				 p->a.buf.mr->lkey };
}

static void post_wr(struct fx *x, struct ibv_send_wr *wr)
{
	struct dp_pair *p = &x->p;

	if (p->cfg.type == IBV_QPT_UD) {
		wr->opcode = IBV_WR_SEND_WITH_IMM;
		wr->imm_data = htonl(x->seed);
		wr->wr.ud.ah = p->a.ah;
		wr->wr.ud.remote_qpn = p->b.qp->qp_num;
		wr->wr.ud.remote_qkey = p->qkey;
	} else {
		wr->opcode = IBV_WR_RDMA_WRITE;
		wr->wr.rdma.remote_addr = (uintptr_t)p->b.buf.p;
		wr->wr.rdma.rkey = p->b.buf.mr->rkey;
	}
}

static int v_post(struct fx *x)
{
	struct ibv_send_wr wr = {
		.wr_id = x->wr_id, .sg_list = &s_ls, .num_sge = 1,
		.send_flags = IBV_SEND_SIGNALED,
	}, *bad;

	post_wr(x, &wr);
	return ibv_post_send(x->p.a.qp, &wr, &bad);
}

/* The next completion on @cq within 10 s, or a failure that says which round. */
static void post_wait(struct fx *x, struct ibv_cq *cq, struct ibv_wc *wc, const char *what)
{
	uint64_t t0 = dp_now_ms();
	int got;

	while (!(got = ibv_poll_cq(cq, 1, wc)))
		CHECK(dp_now_ms() - t0 < 10000ULL * dp_time_scale,
		      "%s: none within %d s after a post with allocation %u %s "
		      "(post_send returned %s)", what, 10 * dp_time_scale, x->n,
		      x->injected ? "failing" : "(not reached)",
		      x->err ? strerror(x->err) : "0");
	CHECK(got == 1, "poll_cq: %d", got);
}

/*
 * B's receives for up to 2 s: the datagram of this round (immediate =
 * seed) checked byte for byte. UD may lose a datagram on a failed
 * allocation (no retransmission): counted, not failed.
 */
static void ud_recv_check(struct fx *x)
{
	struct dp_pair *p = &x->p;
	uint64_t t0 = dp_now_ms();
	struct ibv_wc wc;
	unsigned char *b;
	int got;

	while (dp_now_ms() - t0 < 2000ULL * dp_time_scale) {
		got = ibv_poll_cq(p->b.rcq, 1, &wc);
		CHECK(got >= 0, "poll_cq");
		if (!got) {
			usleep(1000);
			continue;
		}
		x->rq_out--;
		dp_check_wc(&wc, IBV_WC_SUCCESS, IBV_WC_RECV, wc.wr_id, p->b.qp->qp_num,
			    "B's receive");
		if (!(wc.wc_flags & IBV_WC_WITH_IMM) || ntohl(wc.imm_data) != x->seed)
			continue;	/* an earlier round's, or the doorbell WR */
		CHECK_EQ(wc.byte_len, DP_GRH + UD_LEN, "the datagram's length");
		b = p->b.buf.p + (wc.wr_id % UD_SLOTS) * UD_SLOT_LEN;
		dp_check_range(b + DP_GRH, UD_LEN, x->seed, "the datagram at B");
		return;
	}
	x->ud_lost++;
}

/*
 * The WR must complete, successfully, and its data land. A post_send
 * that returned an error did so because its doorbell (the write()) failed
 * in the core before sroce saw it: the WR is in the SQ ring all the same,
 * as with rdma_rxe's provider, and the next doorbell takes it. One more
 * WR rings it here: then both must complete.
 */
static void u_post(struct fx *x)
{
	struct dp_pair *p = &x->p;
	int ud = p->cfg.type == IBV_QPT_UD;
	struct ibv_sge ls = { (uintptr_t)p->a.buf.p + WLEN, 8, p->a.buf.mr->lkey };
	struct ibv_send_wr wr = {
		.wr_id = ~0ULL, .sg_list = &ls, .num_sge = 1,
		.send_flags = IBV_SEND_SIGNALED,
	}, *bad;
	struct ibv_wc wc;

	if (x->err) {
		CHECK(x->err == ENOMEM, "post_send with allocation %u failing: %s",
		      x->n, strerror(x->err));
		post_wr(x, &wr);
		if (!ud)
			wr.wr.rdma.remote_addr += 2 * WLEN;
		else
			wr.imm_data = 0;
		CHECK(!ibv_post_send(p->a.qp, &wr, &bad), "post_send: %m");
	}
	post_wait(x, p->a.scq, &wc, "the WR's completion");
	dp_check_wc(&wc, IBV_WC_SUCCESS, ud ? IBV_WC_SEND : IBV_WC_RDMA_WRITE,
		    x->wr_id, p->a.qp->qp_num, "the WR posted with an allocation failing");
	if (x->err) {
		post_wait(x, p->a.scq, &wc, "the doorbell WR's completion");
		dp_check_wc(&wc, IBV_WC_SUCCESS, ud ? IBV_WC_SEND : IBV_WC_RDMA_WRITE,
			    ~0ULL, p->a.qp->qp_num, "the WR that rang the doorbell");
	}
	if (ud)
		ud_recv_check(x);
	else
		dp_check_range(p->b.buf.p, WLEN, x->seed, "the data at B");
}

/* ---- the loop --------------------------------------------------------- */

/* Every allocation of @op's verb fails once, each in a round of its own. */
static void run_op(struct fx *x, const struct fn_op *op)
{
	unsigned int n, left, ok_anyway = 0, failed = 0;
	uint64_t t0 = dp_now_ms();
	int err;

	for (n = 1; n <= MAX_N; n++) {
		op->setup(x);
		errno = 0;
		fnth_set(n);
		err = op->verb(x);
		left = fnth_left();
		fnth_set(0);
		x->n = n;
		x->err = err;
		x->injected = !left;
		if (err) {
			CHECK(!left, "%s failed (%s) with no allocation failed (fail-nth "
			      "%u not reached)", op->name, strerror(err), n);
			CHECK(op->errno_ok(err), "%s with allocation %u failing: %s",
			      op->name, n, err > 0 ? strerror(err) : "no errno");
			failed++;
		} else if (!left) {
			ok_anyway++;
		}
		op->undo(x);
		if (left)
			break;
	}
	CHECK(n <= MAX_N, "%s: more than %d allocations", op->name, MAX_N);
	NOTE("%s: %u allocations, each failed once: %u times the verb failed "
	     "cleanly, %u times it coped (%llu ms)", op->name, n - 1, failed,
	     ok_anyway, (unsigned long long)(dp_now_ms() - t0));
	if (x->ud_lost)
		NOTE("%s: %u datagrams lost to a failed allocation", op->name,
		     x->ud_lost);
	/* A post only rings a doorbell: the requester's failures delay it. */
	if (op->verb != v_post)
		CHECK(failed, "%s: no failed allocation made it fail", op->name);
}

static const struct fn_op ops[] = {
	{ "open_device", no_setup, v_open, u_open, open_errno },
	{ "alloc_pd", no_setup, v_pd, u_pd, only_enomem },
	{ "reg_mr", no_setup, v_mr, u_mr, only_enomem },
	{ "reg_mr_odp", no_setup, v_mr_odp, u_mr, only_enomem },
	{ "create_cq", no_setup, v_cq, u_cq, only_enomem },
	{ "create_srq", no_setup, v_srq, u_srq, only_enomem },
	{ "create_qp_rc", no_setup, v_qp_rc, u_qp, only_enomem },
	{ "create_qp_ud", no_setup, v_qp_ud, u_qp, only_enomem },
	{ "modify_qp_to_rts", s_modify, v_modify, u_modify, only_enomem },
	{ "create_ah", no_setup, v_ah, u_ah, only_enomem },
	{ "alloc_mw", no_setup, v_mw, u_mw, only_enomem },
	{ "attach_mcast", s_mcast, v_mcast, u_mcast, only_enomem },
	{ "post_send_rc", s_post, v_post, u_post, only_enomem },
	{ "post_send_ud", s_post, v_post, u_post, only_enomem },
};

static void test_verb(const struct dp_case *c)
{
	const struct fn_op *op = &ops[c->op];
	struct fx x;

	memset(&x, 0, sizeof(x));
	dp_open(&x.d[0], 0, 4);
	dp_open(&x.d[1], 1, 4);
	x.cq = ibv_create_cq(x.d[0].ctx, 64, NULL, NULL, 0);
	CHECK(x.cq, "create_cq: %s", strerror(errno));
	x.buf = mmap(NULL, BUF_LEN, PROT_READ | PROT_WRITE,
		     MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
	CHECK(x.buf != MAP_FAILED, "mmap");
	if (op->verb == v_post) {
		struct dp_cfg cfg = { .type = c->type };

		dp_pair_create(&x.p, &x.d[0], &x.d[1], &cfg);
	}
	if (op->verb == v_open) {
		x.list = ibv_get_device_list(NULL);
		CHECK(x.list, "get_device_list: %s", strerror(errno));
		for (int i = 0; x.list[i] && !x.dev; i++)
			if (!strcmp(ibv_get_device_name(x.list[i]), x.d[0].name))
				x.dev = x.list[i];
		CHECK(x.dev, "no %s in the device list", x.d[0].name);
	}
	fnth_open();
	run_op(&x, op);
	if (x.list)
		ibv_free_device_list(x.list);
	close(fnth_fd);
	if (op->verb == v_post)
		dp_pair_destroy(&x.p);
	munmap(x.buf, BUF_LEN);
	CHECK(!ibv_destroy_cq(x.cq), "destroy_cq");
	dp_close(&x.d[1]);
	dp_close(&x.d[0]);
}

static const struct dp_case cases[] = {
	{ "open_device", test_verb, 0, 4, 0 },
	{ "alloc_pd", test_verb, 0, 4, 1 },
	{ "reg_mr", test_verb, 0, 4, 2 },
	{ "reg_mr_odp", test_verb, 0, 4, 3 },
	{ "create_cq", test_verb, 0, 4, 4 },
	{ "create_srq", test_verb, 0, 4, 5 },
	{ "create_qp_rc", test_verb, IBV_QPT_RC, 4, 6 },
	{ "create_qp_ud", test_verb, IBV_QPT_UD, 4, 7 },
	{ "modify_qp_to_rts", test_verb, IBV_QPT_RC, 4, 8 },
	{ "create_ah", test_verb, 0, 4, 9 },
	{ "alloc_mw", test_verb, 0, 4, 10 },
	{ "attach_mcast", test_verb, IBV_QPT_UD, 4, 11 },
	{ "post_send_rc", test_verb, IBV_QPT_RC, 4, 12 },
	{ "post_send_ud", test_verb, IBV_QPT_UD, 4, 13 },
};

int main(int argc, char **argv)
{
	return dp_main(argc, argv, cases, ARRAY_SIZE(cases));
}
