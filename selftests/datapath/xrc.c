// SPDX-License-Identifier: GPL-2.0-only
/*
 * xrc: eXtended Reliable Connected transport (IBA annex A14; issue 21).
 *
 * A holds an XRC initiator QP (XRC_SEND); B an XRC domain with one XRC
 * target QP (XRC_RECV) and XRC SRQs, each with its own PD and CQ. Every
 * request names an SRQ in its XRCETH: the target takes the receive WQE,
 * the completion's CQ and the PD that R_Keys must belong to from that
 * SRQ. Cases:
 *   send_two_srqs     SENDs of 1 to 3 MTUs alternate between two SRQs:
 *                     each lands in its SRQ's buffer, completes on its
 *                     SRQ's CQ with the target's QPN
 *   rdma_by_srq_pd    WRITE, READ (multi-packet) and FETCH_ADD on an MR of
 *                     the named SRQ's PD work; a WRITE whose R_Key is of
 *                     another PD fails with REM_ACCESS_ERR
 *   bad_srqn          a SEND naming no XRC SRQ of the domain (a number never
 *                     given; a basic SRQ's) fails with REM_INV_REQ_ERR
 *   no_posts          ibv_post_send on the target and ibv_post_recv on the
 *                     initiator fail with EINVAL, nothing moves
 *   shared_xrcd       a second process opens the domain through the same
 *                     file, opens the target with ibv_open_qp and creates
 *                     its own XRC SRQ: the initiator's SEND reaches it
 */
#include <fcntl.h>
#include <unistd.h>
#include <sys/wait.h>
#include "dp.h"

#define DEPTH 32
#define BUF (64 * KiB)

struct xrc_srq {
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_srq *srq;
	uint32_t num;
	struct dp_buf buf;
};

struct xrc {
	struct dp_dev d[2];
	struct ibv_xrcd *xrcd;
	struct ibv_cq *scq;
	struct ibv_qp *ini, *tgt;
	struct dp_buf sbuf;
	int fd;			/* the domain's file, -1: none */
};

static void reg(struct ibv_pd *pd, struct dp_buf *b, size_t len)
{
	b->len = len;
	CHECK(!posix_memalign((void **)&b->p, 4096, len), "memory");
	memset(b->p, 0, len);
	b->mr = ibv_reg_mr(pd, b->p, len, IBV_ACCESS_LOCAL_WRITE |
			   IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ |
			   IBV_ACCESS_REMOTE_ATOMIC);
	CHECK(b->mr, "reg_mr: %s", strerror(errno));
}

static void unreg(struct dp_buf *b)
{
	CHECK(!ibv_dereg_mr(b->mr), "dereg_mr");
	free(b->p);
}

static struct ibv_xrcd *open_xrcd(struct ibv_context *ctx, int fd)
{
	struct ibv_xrcd_init_attr xa = {
		.comp_mask = IBV_XRCD_INIT_ATTR_FD | IBV_XRCD_INIT_ATTR_OFLAGS,
		.fd = fd,
		.oflags = O_CREAT,
	};
	struct ibv_xrcd *x = ibv_open_xrcd(ctx, &xa);

	CHECK(x, "open_xrcd (fd %d): %s", fd, strerror(errno));
	return x;
}

/* An XRC SRQ of @xrcd on @ctx, with a PD, CQ and buffer of its own. */
static void srq_make(struct xrc_srq *s, struct ibv_context *ctx,
		     struct ibv_xrcd *xrcd)
{
	struct ibv_srq_init_attr_ex sa = {
		.attr = { .max_wr = DEPTH, .max_sge = 1 },
		.comp_mask = IBV_SRQ_INIT_ATTR_TYPE | IBV_SRQ_INIT_ATTR_PD |
			     IBV_SRQ_INIT_ATTR_XRCD | IBV_SRQ_INIT_ATTR_CQ,
		.srq_type = IBV_SRQT_XRC,
	};

	s->pd = ibv_alloc_pd(ctx);
	CHECK(s->pd, "alloc_pd: %s", strerror(errno));
	s->cq = ibv_create_cq(ctx, DEPTH, NULL, NULL, 0);
	CHECK(s->cq, "create_cq: %s", strerror(errno));
	sa.pd = s->pd;
	sa.xrcd = xrcd;
	sa.cq = s->cq;
	s->srq = ibv_create_srq_ex(ctx, &sa);
	CHECK(s->srq, "create_srq_ex XRC: %s", strerror(errno));
	CHECK(!ibv_get_srq_num(s->srq, &s->num), "get_srq_num");
	reg(s->pd, &s->buf, BUF);
}

static void srq_free(struct xrc_srq *s)
{
	unreg(&s->buf);
	CHECK(!ibv_destroy_srq(s->srq), "destroy_srq");
	CHECK(!ibv_destroy_cq(s->cq), "destroy_cq");
	CHECK(!ibv_dealloc_pd(s->pd), "dealloc_pd");
}

static void srq_post(struct xrc_srq *s, uint64_t wr_id, size_t off, size_t len)
{
	struct ibv_sge sge = { (uintptr_t)s->buf.p + off, len, s->buf.mr->lkey };

	dp_post_srq_recv(s->srq, wr_id, &sge, 1);
}

static void modify(struct ibv_qp *qp, struct ibv_qp_attr *at, int mask,
		   const char *what)
{
	CHECK(!ibv_modify_qp(qp, at, mask), "modify_qp %s: %s", what,
	      strerror(errno));
}

/*
 * Initiator and target through INIT, RTR and RTS with the attributes the
 * kernel's table asks of each (the target: no retry counts, a timeout).
 */
static void connect_pair(struct xrc *x)
{
	enum ibv_mtu mtu = x->d[0].port.active_mtu < x->d[1].port.active_mtu ?
			   x->d[0].port.active_mtu : x->d[1].port.active_mtu;
	struct ibv_qp_attr at = {
		.qp_state = IBV_QPS_INIT, .port_num = 1,
		.qp_access_flags = IBV_ACCESS_REMOTE_WRITE |
				   IBV_ACCESS_REMOTE_READ |
				   IBV_ACCESS_REMOTE_ATOMIC,
	};
	int init = IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
		   IBV_QP_ACCESS_FLAGS;

	modify(x->ini, &at, init, "initiator to INIT");
	modify(x->tgt, &at, init, "target to INIT");

	memset(&at, 0, sizeof(at));
	at.qp_state = IBV_QPS_RTR;
	at.path_mtu = mtu;
	at.dest_qp_num = x->tgt->qp_num;
	at.rq_psn = 0x200;
	dp_fill_ah(&at.ah_attr, &x->d[0], &x->d[1]);
	modify(x->ini, &at, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
	       IBV_QP_DEST_QPN | IBV_QP_RQ_PSN, "initiator to RTR");
	at.dest_qp_num = x->ini->qp_num;
	at.rq_psn = 0x100;
	at.max_dest_rd_atomic = 4;
	at.min_rnr_timer = 12;
	dp_fill_ah(&at.ah_attr, &x->d[1], &x->d[0]);
	modify(x->tgt, &at, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
	       IBV_QP_DEST_QPN | IBV_QP_RQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC |
	       IBV_QP_MIN_RNR_TIMER, "target to RTR");

	memset(&at, 0, sizeof(at));
	at.qp_state = IBV_QPS_RTS;
	at.timeout = 14;
	at.retry_cnt = 7;
	at.rnr_retry = 7;
	at.sq_psn = 0x100;
	at.max_rd_atomic = 4;
	modify(x->ini, &at, IBV_QP_STATE | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
	       IBV_QP_RNR_RETRY | IBV_QP_SQ_PSN | IBV_QP_MAX_QP_RD_ATOMIC,
	       "initiator to RTS");
	at.sq_psn = 0x200;
	modify(x->tgt, &at, IBV_QP_STATE | IBV_QP_TIMEOUT | IBV_QP_SQ_PSN,
	       "target to RTS");
}

/* Devices, the domain (through @fd if >= 0), both QPs, connected. */
static void setup(struct xrc *x, int fd)
{
	struct ibv_qp_init_attr_ex qa = {
		.qp_type = IBV_QPT_XRC_SEND,
		.cap = { .max_send_wr = DEPTH, .max_send_sge = 1 },
		.comp_mask = IBV_QP_INIT_ATTR_PD,
	};

	memset(x, 0, sizeof(*x));
	x->fd = fd;
	dp_open(&x->d[0], 0, 4);
	dp_open(&x->d[1], 1, 4);
	CHECK(x->d[1].attr.orig_attr.device_cap_flags & IBV_DEVICE_XRC,
	      "IBV_DEVICE_XRC not advertised");
	x->xrcd = open_xrcd(x->d[1].ctx, fd);
	x->scq = ibv_create_cq(x->d[0].ctx, DEPTH, NULL, NULL, 0);
	CHECK(x->scq, "create_cq: %s", strerror(errno));
	qa.pd = x->d[0].pd;
	qa.send_cq = x->scq;
	x->ini = ibv_create_qp_ex(x->d[0].ctx, &qa);
	CHECK(x->ini, "create XRC_SEND QP: %s", strerror(errno));
	memset(&qa, 0, sizeof(qa));
	qa.qp_type = IBV_QPT_XRC_RECV;
	qa.comp_mask = IBV_QP_INIT_ATTR_XRCD;
	qa.xrcd = x->xrcd;
	x->tgt = ibv_create_qp_ex(x->d[1].ctx, &qa);
	CHECK(x->tgt, "create XRC_RECV QP: %s", strerror(errno));
	reg(x->d[0].pd, &x->sbuf, BUF);
	connect_pair(x);
}

static void teardown(struct xrc *x)
{
	unreg(&x->sbuf);
	CHECK(!ibv_destroy_qp(x->ini), "destroy initiator");
	CHECK(!ibv_destroy_qp(x->tgt), "destroy target");
	CHECK(!ibv_destroy_cq(x->scq), "destroy_cq");
	CHECK(!ibv_close_xrcd(x->xrcd), "close_xrcd");
	dp_close(&x->d[1]);
	dp_close(&x->d[0]);
}

/* One WR of the initiator to XRC SRQ @srqn (0 sges for len 0). */
static void ini_post(struct xrc *x, enum ibv_wr_opcode op, uint64_t wr_id,
		     uint32_t srqn, size_t off, size_t len, uint64_t raddr,
		     uint32_t rkey)
{
	struct ibv_sge sge = { (uintptr_t)x->sbuf.p + off, len, x->sbuf.mr->lkey };
	struct ibv_send_wr wr = {
		.wr_id = wr_id, .sg_list = &sge, .num_sge = len ? 1 : 0,
		.opcode = op, .send_flags = IBV_SEND_SIGNALED,
	}, *bad;

	wr.qp_type.xrc.remote_srqn = srqn;
	if (op == IBV_WR_ATOMIC_FETCH_AND_ADD) {
		wr.wr.atomic.remote_addr = raddr;
		wr.wr.atomic.rkey = rkey;
		wr.wr.atomic.compare_add = 5;
	} else {
		wr.wr.rdma.remote_addr = raddr;
		wr.wr.rdma.rkey = rkey;
	}
	CHECK(!ibv_post_send(x->ini, &wr, &bad), "post_send on the initiator: %s",
	      strerror(errno));
}

static void ini_done(struct xrc *x, enum ibv_wc_status st,
		     enum ibv_wc_opcode op, uint64_t wr_id, const char *what)
{
	struct ibv_wc wc;

	dp_poll(x->scq, &wc, 10000, what);
	dp_check_wc(&wc, st, op, wr_id, x->ini->qp_num, what);
}

static void test_send_two_srqs(const struct dp_case *c)
{
	static const size_t len[] = { 100, 1500, 3000, 1024, 64, 2500 };
	struct xrc_srq s[2];
	struct ibv_wc wc;
	struct xrc x;
	size_t i;

	setup(&x, -1);
	srq_make(&s[0], x.d[1].ctx, x.xrcd);
	srq_make(&s[1], x.d[1].ctx, x.xrcd);
	CHECK(s[0].num != s[1].num, "two SRQs, one number %u", s[0].num);
	for (i = 0; i < ARRAY_SIZE(len); i++) {
		memset(s[i % 2].buf.p + i * 4096, 0x5a, 4096);
		srq_post(&s[i % 2], i, i * 4096, 4000);
	}
	for (i = 0; i < ARRAY_SIZE(len); i++) {
		for (size_t k = 0; k < len[i]; k++)
			x.sbuf.p[i * 4096 + k] = dp_pat(k, i);
		ini_post(&x, IBV_WR_SEND, i, s[i % 2].num, i * 4096, len[i], 0, 0);
	}
	for (i = 0; i < ARRAY_SIZE(len); i++) {
		dp_poll(s[i % 2].cq, &wc, 10000, "receive on the SRQ's CQ");
		dp_check_wc(&wc, IBV_WC_SUCCESS, IBV_WC_RECV, i, x.tgt->qp_num,
			    "receive (qp_num: the target's)");
		CHECK_EQ(wc.byte_len, len[i], "receive byte_len");
		dp_check_range(s[i % 2].buf.p + i * 4096, len[i], i,
			       "message in its SRQ's buffer");
		dp_check_fill(s[i % 2].buf.p + i * 4096 + len[i], 64, 0x5a,
			      "bytes after the message");
		ini_done(&x, IBV_WC_SUCCESS, IBV_WC_SEND, i, "send completion");
	}
	dp_expect_none(s[0].cq, 100, "SRQ 1's CQ");
	dp_expect_none(s[1].cq, 100, "SRQ 2's CQ");
	NOTE("%zu SENDs (up to 3 MTUs) alternating between XRC SRQs %u and %u",
	     ARRAY_SIZE(len), s[0].num, s[1].num);
	srq_free(&s[1]);
	srq_free(&s[0]);
	teardown(&x);
}

static void test_rdma_by_srq_pd(const struct dp_case *c)
{
	struct xrc_srq s;
	struct dp_buf other;
	struct ibv_pd *opd;
	struct xrc x;
	uint64_t v;
	size_t k;

	setup(&x, -1);
	srq_make(&s, x.d[1].ctx, x.xrcd);
	for (k = 0; k < 5000; k++)
		x.sbuf.p[k] = dp_pat(k, 7);
	ini_post(&x, IBV_WR_RDMA_WRITE, 1, s.num, 0, 5000,
		 (uintptr_t)s.buf.p + 8192, s.buf.mr->rkey);
	ini_done(&x, IBV_WC_SUCCESS, IBV_WC_RDMA_WRITE, 1, "WRITE");
	dp_check_range(s.buf.p + 8192, 5000, 7, "WRITE into the SRQ's PD's MR");
	ini_post(&x, IBV_WR_RDMA_READ, 2, s.num, 16384, 5000,
		 (uintptr_t)s.buf.p + 8192, s.buf.mr->rkey);
	ini_done(&x, IBV_WC_SUCCESS, IBV_WC_RDMA_READ, 2, "READ");
	dp_check_range(x.sbuf.p + 16384, 5000, 7, "READ back");
	*(uint64_t *)(s.buf.p + 40000) = 37;
	ini_post(&x, IBV_WR_ATOMIC_FETCH_AND_ADD, 3, s.num, 32768, 8,
		 (uintptr_t)s.buf.p + 40000, s.buf.mr->rkey);
	ini_done(&x, IBV_WC_SUCCESS, IBV_WC_FETCH_ADD, 3, "FETCH_ADD");
	memcpy(&v, x.sbuf.p + 32768, 8);
	CHECK_EQ(v, 37, "FETCH_ADD's old value");
	CHECK_EQ(*(uint64_t *)(s.buf.p + 40000), 42, "FETCH_ADD's new value");

	/* The device PD's MR is not the SRQ's PD's: no access (annex A14). */
	opd = x.d[1].pd;
	reg(opd, &other, 4096);
	memset(other.p, 0x33, 4096);
	ini_post(&x, IBV_WR_RDMA_WRITE, 4, s.num, 0, 100,
		 (uintptr_t)other.p, other.mr->rkey);
	ini_done(&x, IBV_WC_REM_ACCESS_ERR, IBV_WC_RDMA_WRITE, 4,
		 "WRITE to an MR of another PD");
	dp_check_fill(other.p, 4096, 0x33, "the other PD's MR");
	NOTE("WRITE, READ of 5000 B and FETCH_ADD through SRQ %u's PD; another PD's R_Key refused",
	     s.num);
	unreg(&other);
	srq_free(&s);
	teardown(&x);
}

static void test_bad_srqn(const struct dp_case *c)
{
	struct ibv_srq_init_attr ba = { .attr = { .max_wr = 4, .max_sge = 1 } };
	struct ibv_srq *basic;
	struct xrc_srq s;
	uint32_t bad[2];
	struct xrc x;
	int i;

	for (i = 0; i < 2; i++) {
		setup(&x, -1);
		srq_make(&s, x.d[1].ctx, x.xrcd);
		srq_post(&s, 1, 0, 4000);
		basic = ibv_create_srq(x.d[1].pd, &ba);
		CHECK(basic, "create_srq: %s", strerror(errno));
		/* a number no SRQ has; a basic SRQ's number */
		bad[0] = 0xfffff0;
		CHECK(!ibv_get_srq_num(basic, &bad[1]), "get_srq_num (basic)");
		ini_post(&x, IBV_WR_SEND, 9, bad[i], 0, 64, 0, 0);
		ini_done(&x, IBV_WC_REM_INV_REQ_ERR, IBV_WC_SEND, 9,
			 "SEND to no XRC SRQ of the domain");
		dp_expect_none(s.cq, 100, "the XRC SRQ's CQ");
		CHECK(!ibv_destroy_srq(basic), "destroy basic SRQ");
		srq_free(&s);
		teardown(&x);
	}
	NOTE("SRQ number 0xfffff0, a basic SRQ's number: REM_INV_REQ_ERR");
}

static void test_no_posts(const struct dp_case *c)
{
	struct ibv_send_wr swr = { .opcode = IBV_WR_SEND }, *bs;
	struct ibv_recv_wr rwr = { 0 }, *br;
	struct xrc_srq s;
	struct xrc x;

	setup(&x, -1);
	srq_make(&s, x.d[1].ctx, x.xrcd);
	errno = 0;
	CHECK_EQ(ibv_post_send(x.tgt, &swr, &bs), EINVAL, "post_send on the target");
	CHECK_EQ(ibv_post_recv(x.ini, &rwr, &br), EINVAL,
		 "post_recv on the initiator");
	dp_expect_none(s.cq, 100, "the SRQ's CQ");
	dp_expect_none(x.scq, 100, "the initiator's CQ");
	srq_free(&s);
	teardown(&x);
}

/*
 * A second process opens the domain through the same file, the target
 * QP by number, and makes its own XRC SRQ; it reports the SRQ number
 * through a pipe and exits 0 once the message arrived intact.
 */
static void child_receiver(const char *path, uint32_t tgt_qpn, int wfd)
{
	struct ibv_qp_open_attr oa = {
		.comp_mask = IBV_QP_OPEN_ATTR_NUM | IBV_QP_OPEN_ATTR_XRCD |
			     IBV_QP_OPEN_ATTR_TYPE,
		.qp_num = tgt_qpn,
		.qp_type = IBV_QPT_XRC_RECV,
	};
	struct ibv_xrcd *xrcd;
	struct xrc_srq s;
	struct dp_dev d;
	struct ibv_qp *qp;
	struct ibv_wc wc;
	int fd;

	dp_open(&d, 1, 4);
	fd = open(path, O_RDONLY);
	CHECK(fd >= 0, "open %s: %m", path);
	xrcd = open_xrcd(d.ctx, fd);
	oa.xrcd = xrcd;
	qp = ibv_open_qp(d.ctx, &oa);
	CHECK(qp, "open_qp %u: %s", tgt_qpn, strerror(errno));
	srq_make(&s, d.ctx, xrcd);
	memset(s.buf.p, 0x5a, 4096);
	srq_post(&s, 77, 0, 4000);
	CHECK(write(wfd, &s.num, sizeof(s.num)) == sizeof(s.num), "pipe");
	dp_poll(s.cq, &wc, 10000, "child: receive");
	dp_check_wc(&wc, IBV_WC_SUCCESS, IBV_WC_RECV, 77, tgt_qpn, "child: receive");
	CHECK_EQ(wc.byte_len, 2000, "child: byte_len");
	dp_check_range(s.buf.p, 2000, 99, "child: message");
	srq_free(&s);
	CHECK(!ibv_destroy_qp(qp), "child: close the opened QP");
	CHECK(!ibv_close_xrcd(xrcd), "child: close_xrcd");
	close(fd);
	dp_close(&d);
	_exit(0);
}

static void test_shared_xrcd(const struct dp_case *c)
{
	char path[] = "/tmp/sroce-xrcd-XXXXXX";
	int fd = mkstemp(path), p[2], st;
	uint32_t srqn;
	struct xrc x;
	pid_t pid;
	size_t k;

	CHECK(fd >= 0, "mkstemp: %m");
	setup(&x, fd);
	CHECK(!pipe(p), "pipe");
	pid = fork();
	CHECK(pid >= 0, "fork");
	if (!pid) {
		close(p[0]);
		child_receiver(path, x.tgt->qp_num, p[1]);
	}
	close(p[1]);
	CHECK(read(p[0], &srqn, sizeof(srqn)) == sizeof(srqn),
	      "no SRQ number from the second process");
	for (k = 0; k < 2000; k++)
		x.sbuf.p[k] = dp_pat(k, 99);
	ini_post(&x, IBV_WR_SEND, 5, srqn, 0, 2000, 0, 0);
	ini_done(&x, IBV_WC_SUCCESS, IBV_WC_SEND, 5, "send to the other process");
	CHECK(waitpid(pid, &st, 0) == pid, "waitpid");
	CHECK(WIFEXITED(st) && !WEXITSTATUS(st), "the second process failed (status %d)",
	      st);
	NOTE("a second process shares the domain by file, opens QP %u, receives on its SRQ %u",
	     x.tgt->qp_num, srqn);
	teardown(&x);
	close(fd);
	unlink(path);
}

static const struct dp_case cases[] = {
	{ "send_two_srqs", test_send_two_srqs, IBV_QPT_XRC_SEND, 4 },
	{ "rdma_by_srq_pd", test_rdma_by_srq_pd, IBV_QPT_XRC_SEND, 4 },
	{ "bad_srqn", test_bad_srqn, IBV_QPT_XRC_SEND, 4 },
	{ "no_posts", test_no_posts, IBV_QPT_XRC_SEND, 4 },
	{ "shared_xrcd", test_shared_xrcd, IBV_QPT_XRC_SEND, 4 },
};

int main(int argc, char **argv)
{
	return dp_main(argc, argv, cases, ARRAY_SIZE(cases));
}
