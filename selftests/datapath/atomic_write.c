// SPDX-License-Identifier: GPL-2.0-only
/*
 * atomic_write: IBA 1.5's RDMA ATOMIC WRITE (8 bytes placed at once at an
 * 8-byte aligned remote address) and RDMA FLUSH (type GLOBAL, level RANGE
 * or the whole MR), both RC only, through ibv_wr_atomic_write(),
 * ibv_wr_flush() and ibv_post_send(): the data, the completions, the
 * device capabilities, and the responder's checks, each error case
 * checked on both sides (status, both QPs in ERROR, the next WR flushed,
 * the target memory untouched, the responder's async event when B is
 * sroce).
 *
 * The statuses sroce gives (issue 21): an R_Key, range or access fault,
 * the MR's or the responder QP's, is REM_ACCESS_ERR (seed-rules R3.4
 * "WRITE: bad R_Key/range/access", R3.5), as sroce answers a WRITE, READ
 * or ATOMIC the QP's access flags forbid (errors/err_resp.c) and as RNICs
 * do; a misaligned ATOMIC WRITE is REM_INV_REQ_ERR (R3.4 "ATOMIC
 * misaligned"). rdma_rxe as the responder answers an operation its QP's
 * access flags forbid with REM_INV_REQ_ERR: noted, and expected of it.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <unistd.h>
#include "dp.h"

#define WORD_OFF 4096	/* the remote word in B's buffer */
#define GUARD 0xa5a5a5a5a5a5a5a5ULL
#define SENTINEL 0x5a

/* IB_UVERBS_DEVICE_* of device_cap_flags_ex (rdma/ib_user_verbs.h). */
#define CAP_FLUSH_GLOBAL	(1ULL << 38)
#define CAP_FLUSH_PERSISTENT	(1ULL << 39)
#define CAP_ATOMIC_WRITE	(1ULL << 40)

/* B's QP access and MR access in every case but the one it breaks. */
#define QP_ACCESS (IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |	\
		   IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC |	\
		   IBV_ACCESS_FLUSH_GLOBAL)

/* Is @d a sroce device (its sysfs directory has sroce_abi_version)? */
static int is_sroce(const struct dp_dev *d)
{
	char path[256];

	snprintf(path, sizeof(path),
		 "/sys/class/infiniband/%s/sroce_abi_version", d->name);
	return access(path, F_OK) == 0;
}

static void setup(const struct dp_case *c, struct dp_pair *p,
		  struct dp_dev d[2])
{
	struct dp_cfg cfg = {
		.type = IBV_QPT_RC,
		.qpex = 1,
		.max_send_sge = 4,
		.max_inline = 64,	/* rxe's provider checks it for inline */
		.qp_access_extra = IBV_ACCESS_FLUSH_GLOBAL,
		.mr_access_extra = IBV_ACCESS_FLUSH_GLOBAL,
		.send_ops_extra = IBV_QP_EX_WITH_ATOMIC_WRITE |
				  IBV_QP_EX_WITH_FLUSH,
	};

	dp_setup(p, d, c->fam ? c->fam : 4, &cfg);
}

/* One ibv_wr_atomic_write() batch; returns ibv_wr_complete()'s value. */
static int post_aw(struct dp_pair *p, uint64_t wr_id, uint64_t raddr,
		   uint32_t rkey, uint64_t value)
{
	struct ibv_qp_ex *x = p->a.qpx;

	ibv_wr_start(x);
	x->wr_id = wr_id;
	x->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_atomic_write(x, rkey, raddr, &value);
	return ibv_wr_complete(x);
}

static int post_flush(struct dp_pair *p, uint64_t wr_id, uint64_t raddr,
		      uint32_t rkey, size_t len, uint8_t type, uint8_t level)
{
	struct ibv_qp_ex *x = p->a.qpx;

	ibv_wr_start(x);
	x->wr_id = wr_id;
	x->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_flush(x, rkey, raddr, len, type, level);
	return ibv_wr_complete(x);
}

/* A classic ATOMIC WRITE of the bytes of @sge (@n of them). */
static int post_aw_classic(struct dp_pair *p, uint64_t wr_id, uint64_t raddr,
			   uint32_t rkey, struct ibv_sge *sge, int n,
			   unsigned int flags, struct ibv_send_wr **bad)
{
	struct ibv_send_wr wr = {
		.wr_id = wr_id, .sg_list = sge, .num_sge = n,
		.opcode = IBV_WR_ATOMIC_WRITE,
		.send_flags = IBV_SEND_SIGNALED | flags,
	};

	wr.wr.rdma.remote_addr = raddr;
	wr.wr.rdma.rkey = rkey;
	*bad = NULL;
	return ibv_post_send(p->a.qp, &wr, bad);
}

static void expect_wc(struct ibv_cq *cq, enum ibv_wc_status st,
		      enum ibv_wc_opcode op, uint64_t wr_id, struct ibv_qp *qp,
		      const char *what)
{
	struct ibv_wc wc;

	dp_poll(cq, &wc, 10000 * dp_time_scale, what);
	dp_check_wc(&wc, st, op, wr_id, qp->qp_num, what);
}

static const char *state_str(enum ibv_qp_state s)
{
	static const char *const n[] = { "RESET", "INIT", "RTR", "RTS", "SQD",
					 "SQE", "ERR" };

	return (unsigned int)s < ARRAY_SIZE(n) ? n[s] : "?";
}

/* ibv_query_qp's state must become @want within 2 s. */
static void expect_state(struct ibv_qp *qp, enum ibv_qp_state want,
			 const char *what)
{
	struct ibv_qp_init_attr ia;
	struct ibv_qp_attr at;
	uint64_t t0 = dp_now_ms();

	for (;;) {
		CHECK(!ibv_query_qp(qp, &at, IBV_QP_STATE, &ia),
		      "%s: query_qp: %s", what, strerror(errno));
		if (at.qp_state == want)
			return;
		CHECK(dp_now_ms() - t0 < 2000, "%s: QP 0x%x state %s, want %s",
		      what, qp->qp_num, state_str(at.qp_state), state_str(want));
		usleep(10000);
	}
}

/* The next async event of @ctx within @ms, or -1 (fd made non-blocking). */
static int next_event(struct ibv_context *ctx, int ms,
		      struct ibv_async_event *ev)
{
	struct pollfd pfd = { .fd = ctx->async_fd, .events = POLLIN };
	int fl = fcntl(ctx->async_fd, F_GETFL);

	CHECK(fl >= 0 && fcntl(ctx->async_fd, F_SETFL, fl | O_NONBLOCK) == 0,
	      "async fd: %s", strerror(errno));
	if (poll(&pfd, 1, ms) != 1 || ibv_get_async_event(ctx, ev))
		return -1;
	ibv_ack_async_event(ev);
	return 0;
}

/*
 * The error just seen on A's completion moved both QPs to ERROR (seed-rules
 * R3.2; R3.4: "in every row the responder QP goes to ERROR"), a WR posted
 * next is flushed (R3.3), and B's context got @event for its QP (R3.4's
 * responder column; required of sroce, noted for other devices).
 */
static void after_error(struct dp_pair *p, enum ibv_event_type event,
			int flush_op)
{
	struct ibv_async_event ev;
	int rc;

	expect_state(p->a.qp, IBV_QPS_ERR, "requester QP after the error");
	expect_state(p->b.qp, IBV_QPS_ERR, "responder QP after the error");
	if (flush_op)
		rc = post_flush(p, 99, (uintptr_t)p->b.buf.p,
				p->b.buf.mr->rkey, 8, IBV_FLUSH_GLOBAL,
				IBV_FLUSH_RANGE);
	else
		rc = post_aw(p, 99, (uintptr_t)p->b.buf.p + WORD_OFF,
			     p->b.buf.mr->rkey, 1);
	CHECK(!rc, "post after the error: %s", strerror(rc));
	expect_wc(p->a.scq, IBV_WC_WR_FLUSH_ERR, 0, 99, p->a.qp,
		  "WR posted after the error");
	dp_expect_none(p->a.scq, 50, "requester CQ after the flush");
	rc = next_event(p->b.dev->ctx, 3000, &ev);
	if (!is_sroce(p->b.dev)) {
		NOTE("responder %s: async event %s", p->b.dev->name,
		     rc ? "none" : ibv_event_type_str(ev.event_type));
		return;
	}
	CHECK(!rc, "responder: no async event, want %s",
	      ibv_event_type_str(event));
	CHECK(ev.event_type == event && ev.element.qp == p->b.qp,
	      "responder: async event %s, want %s on its QP",
	      ibv_event_type_str(ev.event_type), ibv_event_type_str(event));
}

/* Guard words around the target, the target itself set to @v. */
static uint64_t *target(struct dp_pair *p, uint64_t v)
{
	uint64_t *w = (uint64_t *)(p->b.buf.p + WORD_OFF);

	w[-1] = w[1] = GUARD;
	w[0] = v;
	return w;
}

static void check_guards(const uint64_t *w)
{
	CHECK_EQ(w[-1], GUARD, "word before the target");
	CHECK_EQ(w[1], GUARD, "word after the target");
}

/* Device capabilities: FLUSH_GLOBAL and ATOMIC_WRITE on both ends. */
static void test_caps(const struct dp_case *c)
{
	struct dp_dev d[2];
	int i;

	for (i = 0; i < 2; i++) {
		uint64_t f;

		dp_open(&d[i], i, 4);
		f = d[i].attr.device_cap_flags_ex;
		NOTE("%s: device_cap_flags_ex 0x%llx: FLUSH_GLOBAL %d, "
		     "FLUSH_PERSISTENT %d, ATOMIC_WRITE %d", d[i].name,
		     (unsigned long long)f, !!(f & CAP_FLUSH_GLOBAL),
		     !!(f & CAP_FLUSH_PERSISTENT), !!(f & CAP_ATOMIC_WRITE));
		CHECK(f & CAP_FLUSH_GLOBAL, "%s: no IB_UVERBS_DEVICE_FLUSH_GLOBAL",
		      d[i].name);
		CHECK(f & CAP_ATOMIC_WRITE, "%s: no IB_UVERBS_DEVICE_ATOMIC_WRITE",
		      d[i].name);
		/* sroce has no persistent memory: it must not claim it. */
		if (is_sroce(&d[i]))
			CHECK(!(f & CAP_FLUSH_PERSISTENT),
			      "%s: sroce advertises FLUSH_PERSISTENT", d[i].name);
	}
	dp_close(&d[1]);
	dp_close(&d[0]);
}

/* ibv_wr_atomic_write(): the 8 bytes replaced, nothing around them. */
static void test_aw_ex(const struct dp_case *c)
{
	static const uint64_t vals[] = {
		0x0123456789abcdefULL, 0, ~0ULL, 0x8000000000000001ULL,
	};
	struct dp_dev d[2];
	struct dp_pair p;
	uint64_t *w;
	size_t i;

	setup(c, &p, d);
	w = target(&p, 0x1111111111111111ULL);
	for (i = 0; i < ARRAY_SIZE(vals); i++) {
		CHECK(!post_aw(&p, i + 1, (uintptr_t)w, p.b.buf.mr->rkey,
			       vals[i]), "wr_complete: %s", strerror(errno));
		expect_wc(p.a.scq, IBV_WC_SUCCESS, IBV_WC_ATOMIC_WRITE, i + 1,
			  p.a.qp, "ATOMIC WRITE");
		CHECK_EQ(*w, vals[i], "remote word after the ATOMIC WRITE");
		check_guards(w);
	}
	/* The last 8 bytes of the MR are as good as any. */
	w = (uint64_t *)(p.b.buf.p + p.b.buf.len - 8);
	CHECK(!post_aw(&p, 9, (uintptr_t)w, p.b.buf.mr->rkey, 0x77ULL),
	      "wr_complete");
	expect_wc(p.a.scq, IBV_WC_SUCCESS, IBV_WC_ATOMIC_WRITE, 9, p.a.qp,
		  "ATOMIC WRITE to the MR's last word");
	CHECK_EQ(*w, 0x77, "the MR's last word");
	dp_expect_none(p.b.rcq, 50, "responder receive CQ (no WQE consumed)");
	NOTE("ibv_wr_atomic_write: %zu values placed, neighbours untouched",
	     ARRAY_SIZE(vals) + 1);
	dp_teardown(&p, d);
}

/* ibv_post_send(): 8 bytes from one SGE, from pieces, and inline. */
static void test_aw_classic(const struct dp_case *c)
{
	struct dp_dev d[2];
	struct dp_pair p;
	struct ibv_send_wr *bad;
	struct ibv_sge sg[3];
	struct ibv_wc wc;
	uint8_t *src;
	uint64_t *w, v;
	uint32_t lk;

	setup(c, &p, d);
	w = target(&p, 0);
	src = p.a.buf.p;
	lk = p.a.buf.mr->lkey;
	v = 0xfedcba9876543210ULL;
	memcpy(src, &v, 8);
	sg[0] = (struct ibv_sge){ (uintptr_t)src, 8, lk };
	CHECK(!post_aw_classic(&p, 1, (uintptr_t)w, p.b.buf.mr->rkey, sg, 1,
			       0, &bad), "post_send one SGE");
	dp_poll(p.a.scq, &wc, 10000 * dp_time_scale, "ATOMIC WRITE, one SGE");
	/* rdma-core 56.1's librxe copies no R_Key for it (convert_send_wr). */
	if (wc.status != IBV_WC_SUCCESS && !is_sroce(p.a.dev))
		dp_skip("%s's ibv_post_send ATOMIC_WRITE fails: %s (librxe "
			"passes no R_Key for it)", p.a.dev->name,
			ibv_wc_status_str(wc.status));
	dp_check_wc(&wc, IBV_WC_SUCCESS, IBV_WC_ATOMIC_WRITE, 1,
		    p.a.qp->qp_num, "ATOMIC WRITE, one SGE");
	CHECK_EQ(*w, v, "remote word (one SGE)");

	/* 3 + 0 + 5 bytes from three places. */
	v = 0x0102030405060708ULL;
	memcpy(src + 100, &v, 3);
	memcpy(src + 200, (uint8_t *)&v + 3, 5);
	sg[0] = (struct ibv_sge){ (uintptr_t)src + 100, 3, lk };
	sg[1] = (struct ibv_sge){ (uintptr_t)src + 150, 0, lk };
	sg[2] = (struct ibv_sge){ (uintptr_t)src + 200, 5, lk };
	if (p.a.cap.max_send_sge >= 3) {
		CHECK(!post_aw_classic(&p, 2, (uintptr_t)w, p.b.buf.mr->rkey,
				       sg, 3, 0, &bad), "post_send three SGEs");
		expect_wc(p.a.scq, IBV_WC_SUCCESS, IBV_WC_ATOMIC_WRITE, 2,
			  p.a.qp, "ATOMIC WRITE, three SGEs");
		CHECK_EQ(*w, v, "remote word (three SGEs)");
	} else {
		NOTE("max_send_sge %u: the three-SGE form is not posted",
		     p.a.cap.max_send_sge);
	}

	/* Inline: the bytes are taken at post time. */
	v = 0xa1b2c3d4e5f60718ULL;
	memcpy(src + 300, &v, 8);
	sg[0] = (struct ibv_sge){ (uintptr_t)src + 300, 8, 0 };
	CHECK(!post_aw_classic(&p, 3, (uintptr_t)w, p.b.buf.mr->rkey, sg, 1,
			       IBV_SEND_INLINE, &bad), "post_send inline");
	memset(src + 300, 0, 8);
	expect_wc(p.a.scq, IBV_WC_SUCCESS, IBV_WC_ATOMIC_WRITE, 3, p.a.qp,
		  "ATOMIC WRITE, inline");
	CHECK_EQ(*w, v, "remote word (inline)");
	check_guards(w);
	NOTE("ibv_post_send ATOMIC WRITE: one SGE, pieces and inline placed");
	dp_teardown(&p, d);
}

#define N_FLIGHT 16

/*
 * 16 ATOMIC WRITEs posted back to back to one word and, each, to a word
 * of its own: all complete in order, the last value wins the shared word.
 */
static void test_aw_flight(const struct dp_case *c)
{
	struct dp_dev d[2];
	struct dp_pair p;
	struct ibv_qp_ex *x;
	uint64_t *w, *own, v;
	int i;

	setup(c, &p, d);
	w = target(&p, 0);
	own = (uint64_t *)(p.b.buf.p + 2 * WORD_OFF);
	memset(own, SENTINEL, 8 * (N_FLIGHT + 1));
	x = p.a.qpx;
	ibv_wr_start(x);
	for (i = 0; i < N_FLIGHT; i++) {
		v = 0x1000000000000000ULL * (i + 1) + i;
		x->wr_id = 2 * i;
		x->wr_flags = IBV_SEND_SIGNALED;
		ibv_wr_atomic_write(x, p.b.buf.mr->rkey, (uintptr_t)w, &v);
		x->wr_id = 2 * i + 1;
		ibv_wr_atomic_write(x, p.b.buf.mr->rkey, (uintptr_t)&own[i], &v);
	}
	CHECK(!ibv_wr_complete(x), "wr_complete of %d ATOMIC WRITEs: %s",
	      2 * N_FLIGHT, strerror(errno));
	for (i = 0; i < 2 * N_FLIGHT; i++)
		expect_wc(p.a.scq, IBV_WC_SUCCESS, IBV_WC_ATOMIC_WRITE, i,
			  p.a.qp, "ATOMIC WRITE in flight");
	CHECK_EQ(*w, 0x1000000000000000ULL * N_FLIGHT + N_FLIGHT - 1,
		 "shared word: the last value");
	for (i = 0; i < N_FLIGHT; i++)
		CHECK_EQ(own[i], 0x1000000000000000ULL * (i + 1) + i,
			 "a WR's own word");
	dp_check_fill((uint8_t *)&own[N_FLIGHT], 8, SENTINEL, "after the words");
	check_guards(w);
	NOTE("%d ATOMIC WRITEs in one batch: in order, the last one wins",
	     2 * N_FLIGHT);
	dp_teardown(&p, d);
}

/* What a remote error case breaks. */
enum fault {
	F_MR_ACCESS,	/* B's MR lacks the access (REMOTE_WRITE / FLUSH_GLOBAL) */
	F_QP_ACCESS,	/* B's QP access flags lack it */
	F_MISALIGNED,	/* ATOMIC WRITE 4 bytes off alignment */
	F_OUTSIDE,	/* past the MR's end */
	F_PERSISTENT,	/* FLUSH type PERSISTENT, MR with FLUSH_GLOBAL only */
};

static const char *const fault_str[] = {
	"MR access flags", "QP access flags", "misaligned", "out of the MR",
	"type PERSISTENT on a FLUSH_GLOBAL MR",
};

/*
 * One ATOMIC WRITE (c->op 0) or FLUSH (c->op 1, level RANGE) that fails
 * at the responder for the fault c->arg. Requester: REM_ACCESS_ERR for
 * an MR or QP access, range or flush type fault (seed-rules R3.4 "WRITE:
 * bad R_Key/range/access", R3.5), REM_INV_REQ_ERR for a misaligned
 * ATOMIC WRITE (R3.4 "ATOMIC misaligned"). Responder: QP_ACCESS_ERR
 * (R3.4's responder column). rdma_rxe as the responder: REM_INV_REQ_ERR
 * and QP_REQ_ERR for the QP's access flags.
 */
static void test_remote_err(const struct dp_case *c)
{
	enum fault f = (enum fault)c->arg;
	int flush = c->op;
	enum ibv_wc_status want = f == F_MISALIGNED ?
		IBV_WC_REM_INV_REQ_ERR : IBV_WC_REM_ACCESS_ERR;
	enum ibv_event_type ev = IBV_EVENT_QP_ACCESS_ERR;
	struct ibv_qp_attr at = {};
	struct ibv_mr *mr2 = NULL;
	uint64_t addr;
	uint32_t rkey;
	uint8_t type = IBV_FLUSH_GLOBAL;
	struct dp_dev d[2];
	struct dp_pair p;
	struct ibv_wc wc;
	int rc;

	setup(c, &p, d);
	memset(p.b.buf.p, SENTINEL, p.b.buf.len);
	addr = (uintptr_t)p.b.buf.p + WORD_OFF;
	rkey = p.b.buf.mr->rkey;
	switch (f) {
	case F_MR_ACCESS:
		/* Everything but what the operation needs. */
		mr2 = ibv_reg_mr(p.b.dev->pd, p.b.buf.p, p.b.buf.len,
				 flush ? QP_ACCESS & ~IBV_ACCESS_FLUSH_GLOBAL :
					 IBV_ACCESS_LOCAL_WRITE |
					 IBV_ACCESS_REMOTE_READ |
					 IBV_ACCESS_FLUSH_GLOBAL);
		CHECK(mr2, "reg_mr: %s", strerror(errno));
		rkey = mr2->rkey;
		break;
	case F_QP_ACCESS:
		if (!is_sroce(p.b.dev)) {
			/* rdma_rxe: an opcode its QP refuses, not an access */
			want = IBV_WC_REM_INV_REQ_ERR;
			ev = IBV_EVENT_QP_REQ_ERR;
		}
		at.qp_access_flags = QP_ACCESS & ~(flush ? IBV_ACCESS_FLUSH_GLOBAL :
						   IBV_ACCESS_REMOTE_WRITE);
		CHECK(!ibv_modify_qp(p.b.qp, &at, IBV_QP_ACCESS_FLAGS),
		      "modify_qp access flags in RTS: %s", strerror(errno));
		break;
	case F_MISALIGNED:
		addr += 4;
		break;
	case F_OUTSIDE:
		/* ATOMIC WRITE: the word after the MR; FLUSH: 16 bytes over its end. */
		addr = (uintptr_t)p.b.buf.p + p.b.buf.len - (flush ? 8 : 0);
		break;
	case F_PERSISTENT:
		/*
		 * As rdma-core's test_qp_ex_rc_flush_type_violate: the QP
		 * allows both types, the MR only GLOBAL, so the MR's check
		 * fails (rxe checks the QP's first: INV_REQ without this).
		 */
		at.qp_access_flags = QP_ACCESS | IBV_ACCESS_FLUSH_PERSISTENT;
		CHECK(!ibv_modify_qp(p.b.qp, &at, IBV_QP_ACCESS_FLAGS),
		      "modify_qp access flags in RTS: %s", strerror(errno));
		type = IBV_FLUSH_PERSISTENT;
		break;
	}
	if (flush)
		rc = post_flush(&p, 7, addr, rkey, 16, type, IBV_FLUSH_RANGE);
	else
		rc = post_aw(&p, 7, addr, rkey, 0x0102030405060708ULL);
	CHECK(!rc, "wr_complete: %s", strerror(rc));
	dp_poll(p.a.scq, &wc, 10000 * dp_time_scale, "requester");
	if (wc.status != want)
		NOTE("%s -> %s %s: requester status %s (%d), want %s",
		     p.a.dev->name, p.b.dev->name, fault_str[f],
		     ibv_wc_status_str(wc.status), wc.status,
		     ibv_wc_status_str(want));
	dp_check_wc(&wc, want, 0, 7, p.a.qp->qp_num, "requester");
	after_error(&p, ev, flush);
	dp_expect_none(p.b.rcq, 50, "responder receive CQ");
	dp_check_fill(p.b.buf.p, p.b.buf.len, SENTINEL, "responder memory");
	NOTE("%s %s: requester %s, both QPs ERROR, next WR flushed",
	     flush ? "FLUSH" : "ATOMIC WRITE", fault_str[f],
	     ibv_wc_status_str(want));
	if (mr2)
		CHECK(!ibv_dereg_mr(mr2), "dereg_mr");
	dp_teardown(&p, d);
}

/* ibv_post_send of a 4-byte (and a 9-byte) ATOMIC WRITE: EINVAL, nothing sent. */
static void test_aw_classic_len(const struct dp_case *c)
{
	struct ibv_send_wr *bad;
	struct dp_dev d[2];
	struct dp_pair p;
	struct ibv_sge sg;
	uint64_t *w;
	int rc;

	setup(c, &p, d);
	w = target(&p, 0x42);
	memset(p.a.buf.p, 0x33, 16);
	sg = (struct ibv_sge){ (uintptr_t)p.a.buf.p, 4, p.a.buf.mr->lkey };
	rc = post_aw_classic(&p, 1, (uintptr_t)w, p.b.buf.mr->rkey, &sg, 1, 0,
			     &bad);
	if (!rc && !is_sroce(p.a.dev))
		dp_skip("%s's ibv_post_send takes a 4-byte ATOMIC_WRITE "
			"(librxe checks no length)", p.a.dev->name);
	CHECK_EQ(rc, EINVAL, "post_send of a 4-byte ATOMIC WRITE");
	CHECK(bad && bad->wr_id == 1, "bad_wr not set to the WR");
	sg.length = 9;
	rc = post_aw_classic(&p, 2, (uintptr_t)w, p.b.buf.mr->rkey, &sg, 1, 0,
			     &bad);
	CHECK_EQ(rc, EINVAL, "post_send of a 9-byte ATOMIC WRITE");
	/* Immediate errors leave the QP as it was (seed-rules R3.1). */
	expect_state(p.a.qp, IBV_QPS_RTS, "requester after the EINVAL");
	dp_expect_none(p.a.scq, 100, "requester CQ after the EINVAL");
	CHECK_EQ(*w, 0x42, "remote word after refused posts");
	sg.length = 8;
	CHECK(!post_aw_classic(&p, 3, (uintptr_t)w, p.b.buf.mr->rkey, &sg, 1,
			       0, &bad), "post_send of 8 bytes after the EINVAL");
	expect_wc(p.a.scq, IBV_WC_SUCCESS, IBV_WC_ATOMIC_WRITE, 3, p.a.qp,
		  "ATOMIC WRITE after the EINVAL");
	CHECK_EQ(*w, 0x3333333333333333ULL, "remote word");
	NOTE("4 and 9 bytes: EINVAL at post, QP still RTS; 8 bytes then placed");
	dp_teardown(&p, d);
}

/* ibv_post_send of a FLUSH: ibv_send_wr cannot say its type and level. */
static void test_flush_classic(const struct dp_case *c)
{
	struct ibv_send_wr wr = {
		.wr_id = 1, .opcode = IBV_WR_FLUSH,
		.send_flags = IBV_SEND_SIGNALED,
	}, *bad = NULL;
	struct dp_dev d[2];
	struct dp_pair p;
	struct ibv_wc wc;
	int rc;

	setup(c, &p, d);
	wr.wr.rdma.remote_addr = (uintptr_t)p.b.buf.p;
	wr.wr.rdma.rkey = p.b.buf.mr->rkey;
	rc = ibv_post_send(p.a.qp, &wr, &bad);
	if (rc != EINVAL && !is_sroce(p.a.dev)) {
		uint64_t t0 = dp_now_ms();

		/* Only noted: what it becomes is librxe's business. */
		while (!rc && dp_now_ms() - t0 < 3000) {
			if (ibv_poll_cq(p.a.scq, 1, &wc) == 1) {
				NOTE("%s posts a classic FLUSH: completion %s "
				     "opcode %d", p.a.dev->name,
				     ibv_wc_status_str(wc.status), wc.opcode);
				break;
			}
			usleep(1000);
		}
		dp_skip("%s's provider does not refuse ibv_post_send FLUSH "
			"(returned %d; librxe passes no R_Key, type or level)",
			p.a.dev->name, rc);
	}
	CHECK_EQ(rc, EINVAL, "ibv_post_send of IBV_WR_FLUSH");
	CHECK(bad == &wr, "bad_wr not set to the WR");
	expect_state(p.a.qp, IBV_QPS_RTS, "requester after the EINVAL");
	dp_expect_none(p.a.scq, 100, "requester CQ after the EINVAL");
	NOTE("ibv_post_send FLUSH: EINVAL, QP still RTS");
	dp_teardown(&p, d);
}

/* Neither opcode on UC or UD: create_qp_ex refuses the send ops. */
static void test_not_rc(const struct dp_case *c)
{
	static const struct { enum ibv_qp_type t; uint64_t ops; const char *n; } v[] = {
		{ IBV_QPT_UC, IBV_QP_EX_WITH_ATOMIC_WRITE, "UC ATOMIC_WRITE" },
		{ IBV_QPT_UC, IBV_QP_EX_WITH_FLUSH, "UC FLUSH" },
		{ IBV_QPT_UD, IBV_QP_EX_WITH_ATOMIC_WRITE, "UD ATOMIC_WRITE" },
		{ IBV_QPT_UD, IBV_QP_EX_WITH_FLUSH, "UD FLUSH" },
		{ IBV_QPT_RC, IBV_QP_EX_WITH_ATOMIC_WRITE | IBV_QP_EX_WITH_FLUSH,
		  "RC both" },
	};
	struct dp_dev d;
	struct ibv_cq *cq;
	size_t i;

	dp_open(&d, 0, 4);
	cq = ibv_create_cq(d.ctx, 16, NULL, NULL, 0);
	CHECK(cq, "create_cq: %s", strerror(errno));
	for (i = 0; i < ARRAY_SIZE(v); i++) {
		struct ibv_qp_init_attr_ex qa = {
			.qp_type = v[i].t, .send_cq = cq, .recv_cq = cq,
			.cap = { .max_send_wr = 4, .max_recv_wr = 4,
				 .max_send_sge = 1, .max_recv_sge = 1 },
			.comp_mask = IBV_QP_INIT_ATTR_PD |
				     IBV_QP_INIT_ATTR_SEND_OPS_FLAGS,
			.pd = d.pd,
			.send_ops_flags = IBV_QP_EX_WITH_SEND | v[i].ops,
		};
		struct ibv_qp *qp;

		errno = 0;
		qp = ibv_create_qp_ex(d.ctx, &qa);
		if (v[i].t == IBV_QPT_RC) {
			CHECK(qp, "%s: create_qp_ex: %s", v[i].n, strerror(errno));
			CHECK(!ibv_destroy_qp(qp), "destroy_qp");
			continue;
		}
		if (qp)
			CHECK(!ibv_destroy_qp(qp), "destroy_qp");
		CHECK(!qp, "%s: create_qp_ex succeeded", v[i].n);
		NOTE("%s: create_qp_ex fails: %s", v[i].n, strerror(errno));
	}
	CHECK(!ibv_destroy_cq(cq), "destroy_cq");
	dp_close(&d);
}

/*
 * RDMA WRITE, then FLUSH (global) of that range and of the whole MR with
 * a length past it, which level MR ignores (as rdma-core's
 * test_qp_ex_rc_flush): IBV_WC_FLUSH, success, and the data in place.
 */
static void test_flush(const struct dp_case *c)
{
	struct dp_dev d[2];
	struct dp_pair p;
	struct dp_sgl s;
	uint8_t *dst;
	int i;

	setup(c, &p, d);
	dst = p.b.buf.p + WORD_OFF;
	dp_sgl_make(&s, &p.a.buf, 0, 3000, 1, 0);
	dp_sgl_fill(&s, 21);
	dp_send_wr(&p, IBV_WR_RDMA_WRITE, 1, &s, IBV_SEND_SIGNALED, 0,
		   (uintptr_t)dst, p.b.buf.mr->rkey);
	expect_wc(p.a.scq, IBV_WC_SUCCESS, IBV_WC_RDMA_WRITE, 1, p.a.qp,
		  "RDMA WRITE");
	CHECK(!post_flush(&p, 2, (uintptr_t)dst, p.b.buf.mr->rkey, 3000,
			  IBV_FLUSH_GLOBAL, IBV_FLUSH_RANGE), "wr_complete");
	expect_wc(p.a.scq, IBV_WC_SUCCESS, IBV_WC_FLUSH, 2, p.a.qp,
		  "FLUSH of the range");
	dp_check_range(dst, 3000, 21, "data written then flushed");
	/* A range of 0 bytes, and the MR's last byte. */
	CHECK(!post_flush(&p, 3, (uintptr_t)dst, p.b.buf.mr->rkey, 0,
			  IBV_FLUSH_GLOBAL, IBV_FLUSH_RANGE), "wr_complete");
	expect_wc(p.a.scq, IBV_WC_SUCCESS, IBV_WC_FLUSH, 3, p.a.qp,
		  "FLUSH of 0 bytes");
	CHECK(!post_flush(&p, 4, (uintptr_t)p.b.buf.p + p.b.buf.len - 1,
			  p.b.buf.mr->rkey, 1, IBV_FLUSH_GLOBAL,
			  IBV_FLUSH_RANGE), "wr_complete");
	expect_wc(p.a.scq, IBV_WC_SUCCESS, IBV_WC_FLUSH, 4, p.a.qp,
		  "FLUSH of the MR's last byte");
	/* The whole MR: the length (here far past the MR) does not count. */
	for (i = 0; i < 2; i++) {
		CHECK(!post_flush(&p, 5 + i, (uintptr_t)p.b.buf.p,
				  p.b.buf.mr->rkey, i ? 12345678 : 0,
				  IBV_FLUSH_GLOBAL, IBV_FLUSH_MR), "wr_complete");
		expect_wc(p.a.scq, IBV_WC_SUCCESS, IBV_WC_FLUSH, 5 + i, p.a.qp,
			  "FLUSH of the whole MR");
	}
	/* A FLUSH orders nothing on its own: a WRITE after it still lands. */
	dp_sgl_fill(&s, 22);
	dp_send_wr(&p, IBV_WR_RDMA_WRITE, 7, &s, IBV_SEND_SIGNALED, 0,
		   (uintptr_t)dst, p.b.buf.mr->rkey);
	expect_wc(p.a.scq, IBV_WC_SUCCESS, IBV_WC_RDMA_WRITE, 7, p.a.qp,
		  "RDMA WRITE after the FLUSHes");
	dp_check_range(dst, 3000, 22, "data of the second WRITE");
	dp_expect_none(p.b.rcq, 50, "responder receive CQ");
	NOTE("WRITE then FLUSH (range, 0 bytes, last byte, whole MR): success");
	dp_teardown(&p, d);
}

/*
 * An MR with IBV_ACCESS_FLUSH_PERSISTENT registers exactly when the
 * device claims persistent flush (sroce does not: no persistent memory).
 */
static void test_persistent_mr(const struct dp_case *c)
{
	struct dp_dev d;
	struct ibv_mr *mr;
	int cap, err;
	void *buf;

	dp_open(&d, 1, 4);	/* B: the end that would be flushed */
	cap = !!(d.attr.device_cap_flags_ex & CAP_FLUSH_PERSISTENT);
	CHECK(!posix_memalign(&buf, 4096, 16384), "no memory");
	errno = 0;
	mr = ibv_reg_mr(d.pd, buf, 16384, IBV_ACCESS_LOCAL_WRITE |
			IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_FLUSH_GLOBAL |
			IBV_ACCESS_FLUSH_PERSISTENT);
	err = errno;
	if (mr)
		CHECK(!ibv_dereg_mr(mr), "dereg_mr");
	if (cap && !mr && !is_sroce(&d)) {
		free(buf);
		dp_skip("%s claims FLUSH_PERSISTENT but refuses such an MR on "
			"ordinary memory (%s)", d.name, strerror(err));
	}
	if (cap)
		CHECK(mr, "%s claims FLUSH_PERSISTENT: reg_mr: %s", d.name,
		      strerror(err));
	else
		/*
		 * ib_core's ib_check_mr_access() refuses it before the
		 * driver is asked, with EOPNOTSUPP (Linux 6.12).
		 */
		CHECK(!mr && (err == EOPNOTSUPP || err == EINVAL),
		      "%s does not claim FLUSH_PERSISTENT: reg_mr %s (errno %s), "
		      "want EOPNOTSUPP or EINVAL", d.name,
		      mr ? "succeeded" : "failed", strerror(err));
	NOTE("%s: FLUSH_PERSISTENT %s, MR with it %s (%s)", d.name,
	     cap ? "claimed" : "not claimed", mr ? "registered" : "refused",
	     mr ? "-" : strerror(err));
	free(buf);
	dp_close(&d);
}

#define AW(name, fn, fam) { name, fn, IBV_QPT_RC, fam, 0, 0 }
#define ERR(name, op, f) { name, test_remote_err, IBV_QPT_RC, 4, op, f }

static const struct dp_case cases[] = {
	AW("caps_flush_global_atomic_write", test_caps, 0),
	AW("RC_ATOMIC_WRITE_wr_v4", test_aw_ex, 4),
	AW("RC_ATOMIC_WRITE_wr_v6", test_aw_ex, 6),
	AW("RC_ATOMIC_WRITE_post_send_v4", test_aw_classic, 4),
	AW("RC_ATOMIC_WRITE_16_in_flight", test_aw_flight, 4),
	ERR("ATOMIC_WRITE_mr_no_remote_write", 0, F_MR_ACCESS),
	ERR("ATOMIC_WRITE_qp_no_remote_write", 0, F_QP_ACCESS),
	ERR("ATOMIC_WRITE_misaligned", 0, F_MISALIGNED),
	ERR("ATOMIC_WRITE_out_of_mr", 0, F_OUTSIDE),
	AW("ATOMIC_WRITE_post_send_4_bytes_einval", test_aw_classic_len, 0),
	AW("ATOMIC_WRITE_FLUSH_not_on_uc_ud", test_not_rc, 0),
	AW("RC_FLUSH_v4", test_flush, 4),
	AW("RC_FLUSH_v6", test_flush, 6),
	ERR("FLUSH_mr_no_flush_global", 1, F_MR_ACCESS),
	ERR("FLUSH_qp_no_flush_global", 1, F_QP_ACCESS),
	ERR("FLUSH_type_persistent_violate", 1, F_PERSISTENT),
	ERR("FLUSH_range_out_of_mr", 1, F_OUTSIDE),
	AW("FLUSH_post_send_einval", test_flush_classic, 0),
	AW("FLUSH_persistent_mr_per_cap", test_persistent_mr, 0),
};

int main(int argc, char **argv)
{
	return dp_main(argc, argv, cases, ARRAY_SIZE(cases));
}
