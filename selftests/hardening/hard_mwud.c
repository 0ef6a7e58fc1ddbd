// SPDX-License-Identifier: GPL-2.0-only
/*
 * hard_mwud: memory windows bound to a QP that is gone, and UD datagrams
 * too long for the path MTU or for the receive WQE.
 *
 * MW2_QPN_reused_*: a type 2 window belongs to the QP that bound it (IBA
 * 10.6.7.2.2), not to its number. B's QP X binds a window, X is destroyed,
 * and a new QP Y on B gets X's QPN (the device's debugfs qp_next, see
 * Documentation/fault-injection.md), in X's PD or in another one. A's
 * WRITE through the window to Y is seed-rules R3.4 "WRITE: bad R_Key"
 * (R3.5: the R_Key check): REM_ACCESS_ERR on A, QP_ACCESS_ERR and ERROR
 * on Y, the window's memory untouched.
 *
 * UD_over_MTU_dropped: a UD datagram longer than the port's active MTU is
 * malformed (seed-rules R1.1: a UD message is at most one path MTU): it is
 * dropped and counted (rx_drop_ud_over_mtu) without a completion, an event
 * or a state change, like the silent drops of R1.5; a datagram of exactly
 * the MTU is received.
 *
 * UD_too_long_for_WQE: a datagram within the MTU but longer than the
 * receive WQE completes it with LOC_LEN_ERR and the QP goes to ERROR
 * (seed-rules R3.2; IBA: a receive WQE completed in error takes the QP
 * to ERROR).
 *
 * GSI_survives_oversized: the GSI QP (QP1, owned by ib_mad) neither dies
 * of an over-MTU datagram nor of one longer than a MAD buffer with the GSI
 * Q_Key: both are dropped and counted (rx_drop_ud_over_mtu,
 * rx_drop_gsi_too_long), QP1 stays RTS (`rdma resource show qp`) and an
 * rdma_cm connection (rping, whose CM MADs go through QP1) still works.
 *
 * Teardown under traffic (the rounds teardown.sh cannot do from outside
 * a process): a thread of A keeps up to 16 signalled WRs in flight to B,
 * each burst one ibv_post_send (RC and UC: 16 KiB RDMA WRITEs; UD:
 * SENDs; ODP: RC WRITEs into an ODP MR of B), while the main thread acts. Every round must end, the traffic thread
 * within 30 s and every verb within 10 s, with no task in D state (and
 * no kernel report: mwud.sh checks the log), and every completion must be
 * a success or the error the action explains:
 *   RESET_under_traffic_*: B's QP is moved to RESET. B then drops what
 *   arrives (seed-rules R4.2: a QP receives only in RTR, RTS, SQD, SQE):
 *   RC (and ODP) gives A IBV_WC_RETRY_EXC_ERR, then WR_FLUSH_ERR for the
 *   rest (seed-rules R2.2, R2.9, R3.3); UC and UD complete every WR
 *   successfully.
 *   Then the pair is reconnected and A's QP is moved to RESET mid-stream:
 *   its WRs complete successfully or flushed, or vanish (RESET empties
 *   the queues and the CQ of the QP), and a post after it fails with
 *   EINVAL (seed-rules R3.8). Reconnected, the pair carries a
 *   data-checked message again.
 *   MW{1,2}_dealloc_under_WRITE: A's RC WRITEs go through a bound type 1
 *   or type 2 window of B, and B deallocates the window: its R_Key is
 *   dead at once, so A gets IBV_WC_REM_ACCESS_ERR, then WR_FLUSH_ERR;
 *   B gets IBV_EVENT_QP_ACCESS_ERR and goes to ERROR (seed-rules R3.4
 *   "WRITE: bad R_Key", R3.5).
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <unistd.h>
#include "../errors/err.h"

#define MW_REMOTE (IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ)
#define MR_FULL (IBV_ACCESS_LOCAL_WRITE | MW_REMOTE | IBV_ACCESS_MW_BIND)
#define WIN_LEN 4096
#define GSI_QKEY 0x80010000u

static void post_write(struct dp_pair *p, uint64_t addr, uint32_t rkey, uint64_t wr_id)
{
	struct ibv_sge ls = { (uintptr_t)p->a.buf.p, 64, p->a.buf.mr->lkey };
	struct ibv_send_wr wr = {
		.wr_id = wr_id, .opcode = IBV_WR_RDMA_WRITE, .sg_list = &ls,
		.num_sge = 1, .send_flags = IBV_SEND_SIGNALED,
	};

	memset(p->a.buf.p, 0xc3, 64);
	wr.wr.rdma.remote_addr = addr;
	wr.wr.rdma.rkey = rkey;
	dp_post_send(&p->a, &wr);
}

/*
 * seed-rules R3.4, R3.5: a type 2 window bound by QP X is no key for the
 * QP Y that later gets X's number (c->op 0: Y in X's PD, 1: in another).
 */
static void test_mw2_qpn_reused(const struct dp_case *c)
{
	struct dp_cfg cfg = { .type = IBV_QPT_RC };
	struct ibv_pd *pd_b, *pd2 = NULL;
	struct dp_pair px, py;
	unsigned char *win;
	struct ibv_mr *mr;
	struct ibv_mw *mw;
	struct dp_dev d[2];
	uint32_t qpn;

	dp_open(&d[0], 0, c->fam);
	dp_open(&d[1], 1, c->fam);
	pd_b = d[1].pd;
	win = aligned_alloc(4096, WIN_LEN);
	CHECK(win, "aligned_alloc");
	mr = ibv_reg_mr(pd_b, win, WIN_LEN, MR_FULL);
	CHECK(mr, "reg_mr: %m");
	mw = ibv_alloc_mw(pd_b, IBV_MW_TYPE_2);
	CHECK(mw, "alloc_mw type 2: %m");

	/* X binds the window and uses it. */
	dp_pair_create(&px, &d[0], &d[1], &cfg);
	CHECK_EQ(err_bind_mw2(&px.b, mw, mr, (uintptr_t)win, WIN_LEN, MW_REMOTE),
		 IBV_WC_SUCCESS, "bind on X");
	memset(win, 0x5a, WIN_LEN);
	post_write(&px, (uintptr_t)win, mw->rkey, 21);
	err_expect_wc(px.a.scq, IBV_WC_SUCCESS, 21, px.a.qp, "WRITE through the window to X");
	dp_check_fill(win, 64, 0xc3, "window bytes written through X");
	qpn = px.b.qp->qp_num;
	dp_pair_destroy(&px);

	/* Y gets X's number, in X's PD or another one. */
	if (c->op) {
		pd2 = ibv_alloc_pd(d[1].ctx);
		CHECK(pd2, "alloc_pd: %m");
		d[1].pd = pd2;
	}
	dp_debugfs_write(&d[1], "qp_next", qpn);
	dp_pair_create(&py, &d[0], &d[1], &cfg);
	d[1].pd = pd_b;
	CHECK_EQ(py.b.qp->qp_num, qpn, "Y's QPN (X's, through qp_next)");

	memset(win, 0x5a, WIN_LEN);
	post_write(&py, (uintptr_t)win, mw->rkey, 22);
	err_expect_wc(py.a.scq, IBV_WC_REM_ACCESS_ERR, 22, py.a.qp,
		      "requester WRITE through X's window to Y");
	err_expect_event(d[1].ctx, IBV_EVENT_QP_ACCESS_ERR, py.b.qp, 5000, "Y");
	err_expect_state(py.b.qp, IBV_QPS_ERR, "Y");
	err_expect_state(py.a.qp, IBV_QPS_ERR, "requester QP");
	dp_check_fill(win, WIN_LEN, 0x5a, "window memory");
	NOTE("window of destroyed QP 0x%x denied to its successor (%s PD)", qpn,
	     c->op ? "another" : "the same");

	dp_pair_destroy(&py);
	CHECK(!ibv_dealloc_mw(mw), "dealloc_mw");
	CHECK(!ibv_dereg_mr(mr), "dereg_mr");
	free(win);
	if (pd2)
		CHECK(!ibv_dealloc_pd(pd2), "dealloc_pd");
	dp_close(&d[1]);
	dp_close(&d[0]);
}

/* @count UD SEND ONLY of @len bytes to B's QP @qpn from A's address. */
static void inject_ud(const struct dp_pair *p, uint32_t qpn, uint32_t qkey,
		      unsigned int len, unsigned int count)
{
	err_inject_ud(p, qpn, 0xFFFF, qkey, len, count);
}

static void post_ud_recv(struct dp_pair *p, uint64_t wr_id, uint32_t len)
{
	struct ibv_sge rs = { (uintptr_t)p->b.buf.p, DP_GRH + len, p->b.buf.mr->lkey };

	dp_post_recv(&p->b, wr_id, &rs, 1);
}

/* seed-rules R1.1, R1.5: over the MTU: dropped, counted, nothing else. */
static void test_ud_over_mtu(const struct dp_case *c)
{
	struct dp_cfg cfg = { .type = IBV_QPT_UD };
	struct dp_dev d[2];
	struct dp_pair p;
	long n0;

	dp_setup(&p, d, c->fam, &cfg);
	CHECK(p.mtu + 4 + 100 <= 1500, "an over-MTU datagram fits the veth");
	post_ud_recv(&p, 1, 2 * p.mtu);
	n0 = err_counter(&d[1], "rx_drop_ud_over_mtu");
	inject_ud(&p, p.b.qp->qp_num, p.qkey, p.mtu + 4, 1);
	dp_expect_none(p.b.rcq, 300, "B's receive CQ after an over-MTU datagram");
	err_expect_no_event(d[1].ctx, 50, "B's context");
	err_expect_state(p.b.qp, IBV_QPS_RTS, "B's UD QP");
	CHECK_EQ(err_counter(&d[1], "rx_drop_ud_over_mtu") - n0, 1,
		 "rx_drop_ud_over_mtu delta");
	/* The WQE is still there for a datagram of exactly the MTU. */
	inject_ud(&p, p.b.qp->qp_num, p.qkey, p.mtu, 1);
	err_expect_ud_recv(&p, 1, p.mtu);
	CHECK_EQ(err_counter(&d[1], "rx_drop_ud_over_mtu") - n0, 1,
		 "rx_drop_ud_over_mtu delta");
	NOTE("%u bytes dropped and counted, %u received", p.mtu + 4, p.mtu);
	dp_teardown(&p, d);
}

/* seed-rules R3.2: within the MTU, too long for the WQE: LOC_LEN_ERR. */
static void test_ud_too_long_for_wqe(const struct dp_case *c)
{
	struct dp_cfg cfg = { .type = IBV_QPT_UD };
	struct dp_dev d[2];
	struct dp_pair p;
	struct ibv_wc wc;

	dp_setup(&p, d, c->fam, &cfg);
	post_ud_recv(&p, 3, 128);
	inject_ud(&p, p.b.qp->qp_num, p.qkey, 512, 1);
	dp_poll(p.b.rcq, &wc, 5000, "B's receive");
	dp_check_wc(&wc, IBV_WC_LOC_LEN_ERR, IBV_WC_RECV, 3, p.b.qp->qp_num,
		    "B's receive of 512 bytes into 128");
	err_expect_state(p.b.qp, IBV_QPS_ERR, "B's UD QP");
	NOTE("512-byte datagram into a 128-byte WQE: LOC_LEN_ERR, QP in ERROR");
	dp_teardown(&p, d);
}

/* The state of @d's GSI QP as `rdma resource show qp` prints it. */
static void qp1_state(const struct dp_dev *d, char *st, size_t n)
{
	char cmd[256], tok[128], prev[128] = "";
	FILE *f;

	snprintf(st, n, "?");
	snprintf(cmd, sizeof(cmd), "rdma resource show qp link %s/1 lqpn 1", d->name);
	f = popen(cmd, "r");
	CHECK(f, "popen: %m");
	while (fscanf(f, "%127s", tok) == 1) {
		if (!strcmp(prev, "state"))
			snprintf(st, n, "%.31s", tok);
		snprintf(prev, sizeof(prev), "%s", tok);
	}
	CHECK(pclose(f) == 0, "%s failed", cmd);
}

static void expect_qp1_rts(const struct dp_dev *d, const char *what)
{
	char st[32];

	qp1_state(d, st, sizeof(st));
	CHECK(!strcmp(st, "RTS"), "%s: %s's QP1 is %s, want RTS", what, d->name, st);
}

/*
 * An rdma_cm connection from B to A (rping, 2 iterations): its CM MADs go
 * through both devices' QP1. Returns rping's exit status (0 works).
 */
static int rdma_cm_works(const struct dp_pair *p)
{
	const char *na = getenv("NS_A"), *nb = getenv("NS_B");
	const struct dp_dev *a = p->a.dev;
	char cmd[1024], ip[32];
	int rc;

	if (!na || !nb)
		dp_skip("needs NS_A and NS_B (sroce target)");
	if (system("command -v rping >/dev/null"))
		dp_skip("no rping (rdmacm-utils)");
	snprintf(ip, sizeof(ip), "%u.%u.%u.%u", a->ip[0], a->ip[1], a->ip[2], a->ip[3]);
	snprintf(cmd, sizeof(cmd),
		 "ip netns exec %s timeout 30 rping -s -a %s -p 7471 -C 2 >/dev/null 2>&1 & s=$!; "
		 "sleep 1; ip netns exec %s timeout 20 rping -c -a %s -p 7471 -C 2 -S 64; c=$?; "
		 "wait $s; s=$?; echo \"rping client $c server $s\"; [ $c = 0 ] && [ $s = 0 ]",
		 na, ip, nb, ip);
	NOTE("%s", cmd);
	rc = system(cmd);
	return rc;
}

/* seed-rules R1.1, R1.5: QP1 survives any datagram; rdma_cm still works. */
static void test_gsi_survives(const struct dp_case *c)
{
	struct dp_cfg cfg = { .type = IBV_QPT_UD };
	long m0, g0;
	struct dp_dev d[2];
	struct dp_pair p;

	dp_setup(&p, d, c->fam, &cfg);
	expect_qp1_rts(&d[1], "before");
	CHECK(!rdma_cm_works(&p), "rdma_cm connection before any injection");
	m0 = err_counter(&d[1], "rx_drop_ud_over_mtu");
	g0 = err_counter(&d[1], "rx_drop_gsi_too_long");
	/* Over the MTU. */
	inject_ud(&p, 1, GSI_QKEY, p.mtu + 4, 1);
	/* Within the MTU, longer than any MAD (256 bytes) and its buffer. */
	inject_ud(&p, 1, GSI_QKEY, p.mtu, 3);
	usleep(300 * 1000);
	expect_qp1_rts(&d[1], "after the oversized datagrams");
	CHECK(!rdma_cm_works(&p), "rdma_cm connection after the oversized datagrams");
	CHECK_EQ(err_counter(&d[1], "rx_drop_ud_over_mtu") - m0, 1,
		 "rx_drop_ud_over_mtu delta");
	CHECK_EQ(err_counter(&d[1], "rx_drop_gsi_too_long") - g0, 3,
		 "rx_drop_gsi_too_long delta");
	NOTE("QP1 dropped and counted 1 over-MTU and 3 over-MAD datagrams; rdma_cm works");
	dp_teardown(&p, d);
}

/* ---- teardown under traffic ------------------------------------------ */

#define ST_DEPTH	16		/* signalled WRs in flight */
#define ST_LEN		(16 * KiB)	/* RC/UC WRITE bytes: several packets */
#define ST_SLOTS	4		/* WRITE targets: B's 64 KiB buffer */
#define ST_UD_LEN	256		/* UD SEND bytes */
#define ST_WARM		20		/* successes before the action */
#define ST_END_MS	30000		/* the traffic thread must be done */
#define ST_DRAIN_MS	3000		/* after stop: WRs RESET took away */
#define ST_VERB_MS	(10000 * dp_time_scale)	/* a verb must return */

struct stream {
	struct dp_pair *p;
	uint32_t rkey;			/* RC/UC: B's MR or window */
	uint64_t raddr;
	atomic_int stop;		/* main -> thread: post no more, drain */
	/* Results, written by the thread. */
	atomic_ulong ok, nerr;
	enum ibv_wc_status first_err;	/* the first status not SUCCESS */
	enum ibv_wc_status bad;		/* one after it not WR_FLUSH_ERR */
	int nbad;
	unsigned long posted, left;	/* left: never completed */
	int post_err;			/* errno of the post that failed */
	int timed_out;
	atomic_int done;		/* the thread has left its loop */
	pthread_t th;
};

/*
 * @n WRs, numbered from s->posted, in one ibv_post_send (one doorbell, so
 * that a burst is in flight when the action comes). Returns how many were
 * posted; a failure is left in s->post_err.
 */
static unsigned int stream_post(struct stream *s, unsigned int n)
{
	struct ibv_send_wr wr[ST_DEPTH], *bad = NULL;
	struct ibv_sge ls[ST_DEPTH];
	struct dp_pair *p = s->p;
	unsigned int i;
	size_t off;

	for (i = 0; i < n; i++) {
		off = ((s->posted + i) % ST_SLOTS) * ST_LEN;
		ls[i] = (struct ibv_sge){ (uintptr_t)p->a.buf.p + off, ST_LEN,
					  p->a.buf.mr->lkey };
		wr[i] = (struct ibv_send_wr){
			.wr_id = s->posted + i, .sg_list = &ls[i], .num_sge = 1,
			.send_flags = IBV_SEND_SIGNALED,
			.next = i + 1 < n ? &wr[i + 1] : NULL,
		};
		if (p->cfg.type == IBV_QPT_UD) {
			ls[i].length = ST_UD_LEN;
			wr[i].opcode = IBV_WR_SEND;
			wr[i].wr.ud.ah = p->a.ah;
			wr[i].wr.ud.remote_qpn = p->b.qp->qp_num;
			wr[i].wr.ud.remote_qkey = p->qkey;
		} else {
			wr[i].opcode = IBV_WR_RDMA_WRITE;
			wr[i].wr.rdma.remote_addr = s->raddr + off;
			wr[i].wr.rdma.rkey = s->rkey;
		}
	}
	s->post_err = ibv_post_send(p->a.qp, wr, &bad);
	return s->post_err ? (unsigned int)(bad - wr) : n;
}

/*
 * A's traffic: ST_DEPTH WRs in flight until told to stop, an error
 * completes, or a post fails; then whatever is in flight is drained.
 */
static void *stream_thread(void *v)
{
	struct stream *s = v;
	uint64_t t0 = dp_now_ms(), t_stop = 0;
	unsigned long out = 0;
	struct ibv_wc wc[16];
	int i, n;

	for (;;) {
		if (atomic_load(&s->stop) && !t_stop)
			t_stop = dp_now_ms();
		if (!t_stop && !atomic_load(&s->nerr) && !s->post_err &&
		    out < ST_DEPTH) {
			n = stream_post(s, ST_DEPTH - out);
			out += n;
			s->posted += n;
		}
		n = ibv_poll_cq(s->p->a.scq, 16, wc);
		if (n < 0)
			break;
		for (i = 0; i < n; i++) {
			out--;
			if (wc[i].status == IBV_WC_SUCCESS) {
				atomic_fetch_add(&s->ok, 1);
				continue;
			}
			if (!atomic_load(&s->nerr))
				s->first_err = wc[i].status;
			else if (wc[i].status != IBV_WC_WR_FLUSH_ERR && !s->nbad++)
				s->bad = wc[i].status;
			atomic_fetch_add(&s->nerr, 1);
		}
		if (!out && (t_stop || atomic_load(&s->nerr) || s->post_err))
			break;
		if (t_stop && dp_now_ms() - t_stop > ST_DRAIN_MS)
			break;
		if (dp_now_ms() - t0 > ST_END_MS) {
			s->timed_out = 1;
			break;
		}
		if (!n && (out >= ST_DEPTH || t_stop || atomic_load(&s->nerr) ||
			   s->post_err))
			usleep(200);
	}
	s->left = out;
	atomic_store(&s->done, 1);
	return NULL;
}

/* UD: receives for everything B may get before the action. */
static void stream_ud_recvs(struct dp_pair *p)
{
	struct ibv_sge rs = { (uintptr_t)p->b.buf.p, DP_GRH + ST_UD_LEN,
			      p->b.buf.mr->lkey };
	unsigned int i;

	for (i = 0; i < p->cfg.max_recv_wr; i++)
		dp_post_recv(&p->b, 1000 + i, &rs, 1);
}

/*
 * Start A's traffic and wait until ST_WARM WRs have succeeded; fail at
 * once if it ends first (a WR or a post failed).
 */
static void stream_start(struct stream *s, struct dp_pair *p, uint64_t raddr,
			 uint32_t rkey)
{
	uint64_t t0 = dp_now_ms();

	memset(s, 0, sizeof(*s));
	s->p = p;
	s->raddr = raddr;
	s->rkey = rkey;
	if (p->cfg.type == IBV_QPT_UD)
		stream_ud_recvs(p);
	CHECK(!pthread_create(&s->th, NULL, stream_thread, s), "pthread_create");
	while (atomic_load(&s->ok) < ST_WARM) {
		CHECK(!atomic_load(&s->nerr), "traffic failed before the action: %s",
		      ibv_wc_status_str(s->first_err));
		/* done is stored after post_err: the thread's write is seen. */
		CHECK(!atomic_load(&s->done), "traffic ended before the action "
		      "after %lu WRs: post error %s", atomic_load(&s->ok),
		      s->post_err ? strerror(s->post_err) : "none");
		CHECK(dp_now_ms() - t0 < (uint64_t)ST_VERB_MS,
		      "%lu WRs succeeded in %d ms", atomic_load(&s->ok), ST_VERB_MS);
		usleep(1000);
	}
}

/*
 * Keep A's traffic going until a WR fails or the traffic ends (a post
 * failed), at most ST_VERB_MS: the WRs in flight at the action may all
 * have completed before it, and only a WR posted after it is sure to meet
 * it.
 */
static void stream_until_error(struct stream *s)
{
	uint64_t t0 = dp_now_ms();

	while (!atomic_load(&s->nerr) && !atomic_load(&s->done) &&
	       dp_now_ms() - t0 < (uint64_t)ST_VERB_MS)
		usleep(1000);
}

/* Stop A's traffic (if it has not ended) and collect it. */
static void stream_end(struct stream *s, const char *what)
{
	atomic_store(&s->stop, 1);
	pthread_join(s->th, NULL);
	CHECK(!s->timed_out, "%s: A's traffic still running after %d ms (%lu WRs "
	      "in flight)", what, ST_END_MS, s->left);
	CHECK(!s->nbad, "%s: %d completions after the first error (%s) were "
	      "neither WR_FLUSH_ERR, e.g. %s", what, s->nbad,
	      ibv_wc_status_str(s->first_err), ibv_wc_status_str(s->bad));
	NOTE("%s: %lu posted, %lu succeeded, %lu failed (first %s), %lu never "
	     "completed; post error: %s", what, s->posted, atomic_load(&s->ok),
	     atomic_load(&s->nerr),
	     atomic_load(&s->nerr) ? ibv_wc_status_str(s->first_err) : "none",
	     s->left, s->post_err ? strerror(s->post_err) : "none");
}

/* A verb, called at @t0, that must have succeeded within ST_VERB_MS. */
static void timed(int ret, uint64_t t0, const char *what)
{
	CHECK(!ret, "%s: %s", what, strerror(ret));
	CHECK(dp_now_ms() - t0 < (uint64_t)ST_VERB_MS, "%s took %llu ms", what,
	      (unsigned long long)(dp_now_ms() - t0));
}

/* No task of the guest in D state (2 s for one that is passing through). */
static void expect_no_d_state(const char *what)
{
	uint64_t t0 = dp_now_ms();
	char path[300], buf[512], who[256];
	struct dirent *de;
	char *st;
	FILE *f;
	DIR *d;

	do {
		who[0] = 0;
		d = opendir("/proc");
		CHECK(d, "opendir /proc");
		while ((de = readdir(d))) {
			if (!isdigit((unsigned char)de->d_name[0]))
				continue;
			snprintf(path, sizeof(path), "/proc/%s/stat", de->d_name);
			f = fopen(path, "r");
			if (!f)
				continue;
			if (fgets(buf, sizeof(buf), f)) {
				st = strrchr(buf, ')');
				if (st && st[1] == ' ' && st[2] == 'D')
					snprintf(who, sizeof(who), "%.200s", buf);
			}
			fclose(f);
		}
		closedir(d);
		if (!who[0])
			return;
		usleep(100 * 1000);
	} while (dp_now_ms() - t0 < 2000);
	FAIL("%s: a task in D state: %.200s", what, who);
}

/* One data-checked message from A to B on a reconnected pair. */
static void pair_works(struct dp_pair *p, uint64_t raddr, uint32_t rkey,
		       unsigned char *rbuf, const char *what)
{
	static uint32_t seed = 7;
	struct dp_sgl sl;
	struct ibv_wc wc;
	struct ibv_sge rs = { (uintptr_t)p->b.buf.p, DP_GRH + ST_UD_LEN,
			      p->b.buf.mr->lkey };
	size_t len = p->cfg.type == IBV_QPT_UD ? ST_UD_LEN : ST_LEN;

	seed++;
	dp_sgl_make(&sl, &p->a.buf, 0, len, 1, 0);
	dp_sgl_fill(&sl, seed);
	if (p->cfg.type == IBV_QPT_UD) {
		memset(p->b.buf.p, 0, DP_GRH + ST_UD_LEN);
		dp_post_recv(&p->b, 77, &rs, 1);
		dp_send_wr(p, IBV_WR_SEND, 76, &sl, IBV_SEND_SIGNALED, 0, 0, 0);
		dp_poll(p->b.rcq, &wc, 5000 * dp_time_scale, what);
		dp_check_wc(&wc, IBV_WC_SUCCESS, IBV_WC_RECV, 77, p->b.qp->qp_num, what);
		dp_check_range(p->b.buf.p + DP_GRH, len, seed, what);
	} else {
		memset(rbuf, 0, len);
		dp_send_wr(p, IBV_WR_RDMA_WRITE, 76, &sl, IBV_SEND_SIGNALED, 0,
			   raddr, rkey);
	}
	dp_poll(p->a.scq, &wc, 5000 * dp_time_scale, what);
	dp_check_wc(&wc, IBV_WC_SUCCESS, p->cfg.type == IBV_QPT_UD ? IBV_WC_SEND :
		    IBV_WC_RDMA_WRITE, 76, p->a.qp->qp_num, what);
	/*
	 * A UC WRITE completes when it leaves (seed-rules R1.7): B may place
	 * it a little later (on another CPU), so wait for its last byte.
	 */
	if (p->cfg.type == IBV_QPT_UC) {
		uint64_t t0 = dp_now_ms();

		while (((volatile unsigned char *)rbuf)[len - 1] !=
		       dp_pat(len - 1, seed) &&
		       dp_now_ms() - t0 < 5000 * (uint64_t)dp_time_scale)
			usleep(1000);
	}
	if (p->cfg.type != IBV_QPT_UD)
		dp_check_range(rbuf, len, seed, what);
}

static void reset_qp(struct ibv_qp *qp, const char *what)
{
	struct ibv_qp_attr at = { .qp_state = IBV_QPS_RESET };
	uint64_t t0 = dp_now_ms();

	timed(ibv_modify_qp(qp, &at, IBV_QP_STATE), t0, what);
}

/*
 * seed-rules R4.2, R2.2, R2.9, R3.3, R3.8: modify_qp to RESET of the
 * responder, then of the requester, while A's traffic runs (c->op: into
 * an ODP MR).
 */
static void test_reset(const struct dp_case *c)
{
	struct dp_cfg cfg = {
		.type = c->type, .rc_timers = 1, .retry_cnt = 7, .rnr_retry = 7,
		.min_rnr_timer = 12,
		/* 67 ms (268 ms on the debug kernel): no give-up on a stall. */
		.timeout = dp_time_scale > 1 ? 16 : 14,
	};
	int rc = c->type == IBV_QPT_RC;
	struct ibv_mr *odp = NULL;
	struct ibv_send_wr wr = { .opcode = IBV_WR_SEND }, *bad;
	struct dp_dev d[2];
	struct dp_pair p;
	struct stream s;
	uint64_t raddr;
	uint32_t rkey;

	dp_setup(&p, d, c->fam, &cfg);
	raddr = (uintptr_t)p.b.buf.p;
	rkey = p.b.buf.mr->rkey;
	if (c->op) {
		odp = ibv_reg_mr(p.b.dev->pd, p.b.buf.p, p.b.buf.len,
				 IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
				 IBV_ACCESS_ON_DEMAND);
		CHECK(odp, "ODP MR: %s", strerror(errno));
		rkey = odp->rkey;
	}

	/* The responder. */
	stream_start(&s, &p, raddr, rkey);
	reset_qp(p.b.qp, "modify_qp of B to RESET under traffic");
	err_expect_state(p.b.qp, IBV_QPS_RESET, "B");
	if (rc)
		stream_until_error(&s);
	else		/* Nothing tells A: its WRs go on succeeding. */
		usleep(300 * 1000);
	stream_end(&s, "B reset");
	if (rc) {
		CHECK(atomic_load(&s.nerr) && s.first_err == IBV_WC_RETRY_EXC_ERR,
		      "A's WRs to a responder in RESET: first error %s, want "
		      "RETRY_EXC_ERR", atomic_load(&s.nerr) ?
		      ibv_wc_status_str(s.first_err) : "none");
		CHECK(!s.left, "%lu of A's WRs never completed", s.left);
		err_expect_state(p.a.qp, IBV_QPS_ERR, "A");
	} else {
		CHECK(!atomic_load(&s.nerr), "A's %s WRs to a responder in RESET: "
		      "%s", c->type == IBV_QPT_UD ? "UD" : "UC",
		      ibv_wc_status_str(s.first_err));
		CHECK(!s.left && !s.post_err, "%lu of A's WRs never completed (post "
		      "error %s)", s.left, strerror(s.post_err));
	}
	expect_no_d_state("B reset");
	dp_pair_reconnect(&p);
	pair_works(&p, raddr, rkey, p.b.buf.p, "after B's RESET, reconnected");

	/* The requester. */
	stream_start(&s, &p, raddr, rkey);
	reset_qp(p.a.qp, "modify_qp of A to RESET under its own traffic");
	err_expect_state(p.a.qp, IBV_QPS_RESET, "A");
	stream_end(&s, "A reset");
	CHECK(!atomic_load(&s.nerr) || s.first_err == IBV_WC_WR_FLUSH_ERR,
	      "A's WRs around its RESET: %s, want success or WR_FLUSH_ERR",
	      ibv_wc_status_str(s.first_err));
	CHECK(!s.post_err || s.post_err == EINVAL, "a post around the RESET: %s",
	      strerror(s.post_err));
	/* seed-rules R3.8: a QP in RESET takes no WR. */
	CHECK_EQ(ibv_post_send(p.a.qp, &wr, &bad), EINVAL, "post_send in RESET");
	expect_no_d_state("A reset");
	dp_pair_reconnect(&p);
	pair_works(&p, raddr, rkey, p.b.buf.p, "after A's RESET, reconnected");
	NOTE("%s%s: RESET of the responder and of the requester under traffic",
	     c->type == IBV_QPT_RC ? "RC" : c->type == IBV_QPT_UC ? "UC" : "UD",
	     odp ? " (ODP)" : "");
	if (odp)
		CHECK(!ibv_dereg_mr(odp), "dereg ODP MR");
	dp_teardown(&p, d);
}

/*
 * seed-rules R3.4, R3.5: ibv_dealloc_mw of a bound window (type c->op)
 * while A's RC WRITEs go through it.
 */
static void test_mw_dealloc(const struct dp_case *c)
{
	struct dp_cfg cfg = { .type = IBV_QPT_RC };
	enum ibv_mw_type type = (enum ibv_mw_type)c->op;
	struct dp_dev d[2];
	struct dp_pair p;
	struct ibv_mr *mr;
	struct ibv_mw *mw;
	struct stream s;
	uint64_t t0;

	dp_setup(&p, d, c->fam, &cfg);
	mr = ibv_reg_mr(p.b.dev->pd, p.b.buf.p, p.b.buf.len, MR_FULL);
	CHECK(mr, "reg_mr: %m");
	mw = ibv_alloc_mw(p.b.dev->pd, type);
	CHECK(mw, "alloc_mw type %d: %m", type);
	if (type == IBV_MW_TYPE_1) {
		struct ibv_mw_bind b = {
			.wr_id = 11, .send_flags = IBV_SEND_SIGNALED,
			.bind_info = { .mr = mr, .addr = (uintptr_t)p.b.buf.p,
				       .length = p.b.buf.len,
				       .mw_access_flags = IBV_ACCESS_REMOTE_WRITE },
		};

		CHECK(!ibv_bind_mw(p.b.qp, mw, &b), "ibv_bind_mw: %m");
		CHECK_EQ(err_local_wc(&p.b, 11, IBV_WC_BIND_MW, "bind type 1"),
			 IBV_WC_SUCCESS, "bind type 1");
	} else {
		CHECK_EQ(err_bind_mw2(&p.b, mw, mr, (uintptr_t)p.b.buf.p,
				      p.b.buf.len, IBV_ACCESS_REMOTE_WRITE),
			 IBV_WC_SUCCESS, "bind type 2");
	}

	stream_start(&s, &p, (uintptr_t)p.b.buf.p, mw->rkey);
	t0 = dp_now_ms();
	timed(ibv_dealloc_mw(mw), t0, "dealloc_mw of the window under WRITE traffic");
	stream_until_error(&s);
	stream_end(&s, "dealloc_mw");
	CHECK(atomic_load(&s.nerr) && s.first_err == IBV_WC_REM_ACCESS_ERR,
	      "A's WRITEs through a deallocated window: first error %s, want "
	      "REM_ACCESS_ERR", atomic_load(&s.nerr) ?
	      ibv_wc_status_str(s.first_err) : "none");
	CHECK(!s.left, "%lu of A's WRs never completed", s.left);
	err_expect_event(p.b.dev->ctx, IBV_EVENT_QP_ACCESS_ERR, p.b.qp, 5000,
			 "responder");
	err_expect_state(p.b.qp, IBV_QPS_ERR, "responder QP");
	err_expect_state(p.a.qp, IBV_QPS_ERR, "requester QP");
	expect_no_d_state("dealloc_mw");
	t0 = dp_now_ms();
	timed(ibv_dereg_mr(mr), t0, "dereg_mr of the window's MR");
	NOTE("type %d window deallocated under WRITE traffic: REM_ACCESS_ERR, "
	     "QP_ACCESS_ERR", type);
	dp_teardown(&p, d);
}

static const struct dp_case cases[] = {
	/* seed-rules R3.4, R3.5 */
	{ "MW2_QPN_reused_same_PD", test_mw2_qpn_reused, IBV_QPT_RC, 4, 0 },
	{ "MW2_QPN_reused_other_PD", test_mw2_qpn_reused, IBV_QPT_RC, 4, 1 },
	/* seed-rules R1.1, R1.5 */
	{ "UD_over_MTU_dropped", test_ud_over_mtu, IBV_QPT_UD, 4 },
	/* seed-rules R3.2 */
	{ "UD_too_long_for_WQE", test_ud_too_long_for_wqe, IBV_QPT_UD, 4 },
	/* seed-rules R1.1, R1.5 */
	{ "GSI_survives_oversized", test_gsi_survives, IBV_QPT_UD, 4 },
	/* seed-rules R4.2, R2.2, R2.9, R3.3, R3.8 */
	{ "RESET_under_traffic_RC", test_reset, IBV_QPT_RC, 4, 0 },
	{ "RESET_under_traffic_UC", test_reset, IBV_QPT_UC, 4, 0 },
	{ "RESET_under_traffic_UD", test_reset, IBV_QPT_UD, 4, 0 },
	{ "RESET_under_traffic_ODP", test_reset, IBV_QPT_RC, 4, 1 },
	/* seed-rules R3.4, R3.5 */
	{ "MW1_dealloc_under_WRITE", test_mw_dealloc, IBV_QPT_RC, 4, IBV_MW_TYPE_1 },
	{ "MW2_dealloc_under_WRITE", test_mw_dealloc, IBV_QPT_RC, 4, IBV_MW_TYPE_2 },
};

int main(int argc, char **argv)
{
	return dp_main(argc, argv, cases, ARRAY_SIZE(cases));
}
