// SPDX-License-Identifier: GPL-2.0-only
/*
 * hard_race: races between sroce's receive path, its doorbell callers and
 * the verbs that create and destroy what they use. Each case runs for a
 * bounded time (SROCE_RACE_SECS, else a default per kernel: the debug
 * kernel, SROCE_KERNEL=debug, is slower) and checks data, completions
 * and the rules below; a use-after-free or a lock misuse shows as a
 * kernel report, which fails the test too (hardening/race.sh,
 * check_dmesg).
 *
 * qp_lookup: a UD QP on A floods SENDs at two QPNs of B while another
 * process, on the other CPU, destroys and recreates B's QPs at exactly
 * those numbers (the device's debugfs qp_next) in a loop. The receive
 * path looks every packet's QP up by number in softirq; destroy_qp must
 * not let that QP's memory go while a lookup may still take a reference
 * to it. Every receive posted completes exactly once, as a SEND of the
 * flood (data checked) or as a flush error. That window is a few
 * instructions, but under TCG one host thread runs the vCPUs in turn
 * (slices of up to 100 ms), so the flood's vCPU can stop inside it while
 * the other runs whole destroys.
 *
 * doorbell_hold, doorbell_odp: a process ringing a doorbell runs its QP's
 * engines in its system call, and a receive softirq running on top of it
 * leaves an ODP fault of a QP of the same process to it. The caller may
 * sleep on a fault of its own before it gets to that one, and another
 * process's doorbell may then run on its CPU: that one must not
 * take over the first one's fault (it would sleep on memory of another
 * process: userfaultfd, FUSE, that memcg's reclaim). The ODP memory here
 * is a file of a FUSE daemon of this program, which notes the task that
 * made each page read: the fault of a page of one process must never be
 * made by another test process. doorbell_hold makes the interleaving
 * certain: a doorbell leaves a fault, then sleeps on a page the daemon
 * holds back, while another process pinned to the same CPU posts. In
 * doorbell_odp three processes pinned to one CPU each WRITE to fresh ODP
 * pages and from fresh ODP pages in one doorbell, data checked.
 *
 * mcast: a UD QP on A floods a multicast group while one process, on the
 * other CPU, attaches, detaches, re-attaches and destroys UD QPs of B in
 * the group, and kills processes whose QPs are attached. Every message
 * received is checked (data, source QP, order); a QP gets nothing sent
 * after its last detach returned; every receive of a destroyed QP
 * completes once; attach, detach, destroy and process exit return in
 * bounded time.
 *
 * Needs two CPUs to race anything (it runs with one, but proves little).
 * Run one case: race.sh -t <name>; list them: race.sh -l.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>
#include "../errors/err.h"
#include "fuse_file.h"

#define PG		4096UL
#define MSG		64		/* flood message: seq, then pattern */
#define RSZ		128		/* a UD receive buffer: GRH + MSG */
#define VERB_MS		(10000 * dp_time_scale)	/* a verb or exit must be done */

/* ---- common ---------------------------------------------------------- */

/* How long a case races: SROCE_RACE_SECS, else per kernel. */
static uint64_t race_ms(int stock_s, int debug_s)
{
	const char *e = getenv("SROCE_RACE_SECS");
	const char *k = getenv("SROCE_KERNEL");

	if (e && atoi(e) > 0)
		return (uint64_t)atoi(e) * 1000;
	return (uint64_t)(k && !strcmp(k, "debug") ? debug_s : stock_s) * 1000;
}

static int ncpus(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);

	return n < 1 ? 1 : (int)n;
}

/* The CPU the races happen on, and the other one. */
static int cpu_race(void) { return ncpus() > 1 ? 1 : 0; }
static int cpu_other(void) { return 0; }

/* Pin the calling thread to @cpu. */
static void pin(int cpu)
{
	cpu_set_t s;

	CPU_ZERO(&s);
	CPU_SET(cpu, &s);
	CHECK(!sched_setaffinity(0, sizeof(s), &s), "sched_setaffinity CPU %d: %s",
	      cpu, strerror(errno));
}

static void *shm_alloc(size_t len)
{
	void *p = mmap(NULL, len, PROT_READ | PROT_WRITE,
		       MAP_SHARED | MAP_ANONYMOUS, -1, 0);

	CHECK(p != MAP_FAILED, "mmap shared %zu: %s", len, strerror(errno));
	return p;
}

/* fork(); the child dies with the case's process, whatever ends it. */
static pid_t fork_child(void)
{
	pid_t ppid = getpid(), pid;

	fflush(stdout);
	pid = fork();
	CHECK(pid >= 0, "fork: %s", strerror(errno));
	if (!pid) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (getppid() != ppid)
			_exit(1);
	}
	return pid;
}

/* Wait up to @ms for child @pid; a child still there is killed: fail. */
static void child_wait(pid_t pid, uint64_t ms, const char *what)
{
	uint64_t t0 = dp_now_ms();
	int st = 0;
	pid_t r;

	while ((r = waitpid(pid, &st, WNOHANG)) == 0 && dp_now_ms() - t0 < ms)
		usleep(10000);
	if (r == 0) {
		kill(pid, SIGKILL);
		waitpid(pid, &st, 0);
		FAIL("%s: not done within %llu ms (killed)", what,
		     (unsigned long long)ms);
	}
	CHECK(r == pid, "waitpid %s: %s", what, strerror(errno));
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0, "%s failed (%s %d)", what,
	      WIFEXITED(st) ? "exit" : "signal",
	      WIFEXITED(st) ? WEXITSTATUS(st) : WTERMSIG(st));
}

/* Has child @pid ended (then it must have passed)? */
static int child_ended(pid_t pid, const char *what)
{
	int st = 0;
	pid_t r = waitpid(pid, &st, WNOHANG);

	if (!r)
		return 0;
	CHECK(r == pid && WIFEXITED(st) && WEXITSTATUS(st) == 0,
	      "%s failed before its time was up", what);
	return 1;
}

static void msg_fill(unsigned char *m, uint32_t seq)
{
	size_t i;

	memcpy(m, &seq, 4);
	for (i = 4; i < MSG; i++)
		m[i] = dp_pat(i, seq);
}

/* The message's seq, after checking its bytes. */
static uint32_t msg_check(const unsigned char *m, const char *what)
{
	uint32_t seq;
	size_t i;

	memcpy(&seq, m, 4);
	for (i = 4; i < MSG; i++)
		CHECK(m[i] == dp_pat(i, seq), "%s: byte %zu of message %u is "
		      "0x%02x, want 0x%02x", what, i, seq, m[i], dp_pat(i, seq));
	return seq;
}

/* A UD QP on @d with CQ @cq, in RTR with Q_Key @qkey: it receives. */
static struct ibv_qp *ud_qp(struct dp_dev *d, struct ibv_cq *cq,
			    unsigned int nrecv, uint32_t qkey)
{
	struct ibv_qp_init_attr ia = {
		.send_cq = cq, .recv_cq = cq, .qp_type = IBV_QPT_UD,
		.cap = { .max_send_wr = 1, .max_recv_wr = nrecv,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};
	struct ibv_qp_attr at = {
		.qp_state = IBV_QPS_INIT, .pkey_index = 0, .port_num = 1,
		.qkey = qkey,
	};
	struct ibv_qp *qp = ibv_create_qp(d->pd, &ia);

	CHECK(qp, "create UD QP on %s: %s", d->name, strerror(errno));
	CHECK(!ibv_modify_qp(qp, &at, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
			     IBV_QP_PORT | IBV_QP_QKEY), "UD QP to INIT: %s",
	      strerror(errno));
	at.qp_state = IBV_QPS_RTR;
	CHECK(!ibv_modify_qp(qp, &at, IBV_QP_STATE), "UD QP to RTR: %s",
	      strerror(errno));
	return qp;
}

static void to_err(struct ibv_qp *qp)
{
	struct ibv_qp_attr at = { .qp_state = IBV_QPS_ERR };

	CHECK(!ibv_modify_qp(qp, &at, IBV_QP_STATE), "modify_qp to ERR: %s",
	      strerror(errno));
}

static void post_rbuf(struct ibv_qp *qp, struct ibv_mr *mr, unsigned char *b,
		      uint64_t wr_id)
{
	struct ibv_sge sge = { (uintptr_t)b, RSZ, mr->lkey };
	struct ibv_recv_wr wr = { .wr_id = wr_id, .sg_list = &sge, .num_sge = 1 };
	struct ibv_recv_wr *bad;
	int rc;

	memset(b, 0x5a, RSZ);
	rc = ibv_post_recv(qp, &wr, &bad);
	CHECK(!rc, "post_recv: %s", strerror(rc));
}

/*
 * The flood sender: @n UD SENDs of MSG bytes, inline, seqs @seq.., the
 * last one signalled and polled. @ah, @qpn, @qkey: where to. One batch
 * to one QPN leaves as one GSO skb (one UDP flow): more packets a second.
 */
static void flood_batch(struct dp_pair *p, struct ibv_ah *ah, uint32_t qpn,
			uint32_t qkey, uint32_t seq, unsigned int n)
{
	unsigned char m[32][MSG];
	struct ibv_send_wr wr[32];
	struct ibv_sge sg[32];
	struct ibv_wc wc;
	unsigned int i;

	CHECK(n >= 1 && n <= 32, "batch of %u", n);
	for (i = 0; i < n; i++) {
		msg_fill(m[i], seq + i);
		sg[i] = (struct ibv_sge){ (uintptr_t)m[i], MSG, 0 };
		wr[i] = (struct ibv_send_wr){
			.wr_id = seq + i, .sg_list = &sg[i], .num_sge = 1,
			.opcode = IBV_WR_SEND,
			.send_flags = IBV_SEND_INLINE |
				      (i + 1 == n ? IBV_SEND_SIGNALED : 0),
			.next = i + 1 < n ? &wr[i + 1] : NULL,
			.wr.ud = { .ah = ah, .remote_qpn = qpn,
				   .remote_qkey = qkey },
		};
	}
	dp_post_send(&p->a, wr);
	dp_poll(p->a.scq, &wc, DP_TIMEOUT_MS, "flood batch");
	dp_check_wc(&wc, IBV_WC_SUCCESS, IBV_WC_SEND, seq + n - 1,
		    p->a.qp->qp_num, "flood batch");
}

/* ---- qp_lookup ------------------------------------------------------ */

#define LK_R		16	/* receives per incarnation */

struct lk_shared {
	atomic_int go, ready, stop;
	atomic_uint sender_qpn, qkey, qpn[2];
	atomic_ulong incarnations, received, flushed;
};

struct lk_slot {
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	unsigned int gen, outstanding;
};

/* One completion of slot @k (generation checked), counted. */
static void lk_wc(struct lk_shared *sh, struct lk_slot *s, int k,
		  unsigned char *rbuf, const struct ibv_wc *wc)
{
	unsigned int i = wc->wr_id & 0xff;

	CHECK(wc->wr_id >> 8 == s->gen && i < LK_R, "slot %d: completion of "
	      "wr_id 0x%llx, want generation %u", k,
	      (unsigned long long)wc->wr_id, s->gen);
	CHECK(s->outstanding > 0, "slot %d: more completions than receives", k);
	s->outstanding--;
	if (wc->status == IBV_WC_WR_FLUSH_ERR) {
		atomic_fetch_add(&sh->flushed, 1);
		return;
	}
	CHECK(wc->status == IBV_WC_SUCCESS, "slot %d: receive status %s", k,
	      ibv_wc_status_str(wc->status));
	CHECK_EQ(wc->opcode, IBV_WC_RECV, "receive opcode");
	CHECK_EQ(wc->qp_num, atomic_load(&sh->qpn[k]), "receive qp_num");
	CHECK_EQ(wc->src_qp, atomic_load(&sh->sender_qpn), "receive src_qp");
	CHECK_EQ(wc->byte_len, DP_GRH + MSG, "receive byte_len");
	msg_check(rbuf + ((size_t)k * LK_R + i) * RSZ + DP_GRH, "flood receive");
	atomic_fetch_add(&sh->received, 1);
}

static void lk_poll(struct lk_shared *sh, struct lk_slot *s, int k,
		    unsigned char *rbuf, int wait_all)
{
	uint64_t t0 = dp_now_ms();
	struct ibv_wc wc[16];
	int n, j;

	do {
		n = ibv_poll_cq(s->cq, 16, wc);
		CHECK(n >= 0, "poll_cq: %d", n);
		for (j = 0; j < n; j++)
			lk_wc(sh, s, k, rbuf, &wc[j]);
		CHECK(dp_now_ms() - t0 < (uint64_t)DP_TIMEOUT_MS, "slot %d: %u "
		      "receives of a QP in ERR never completed", k, s->outstanding);
	} while (wait_all && s->outstanding);
}

/* A QP at the slot's number, receives posted. */
static void lk_create(struct lk_shared *sh, struct dp_dev *d, struct lk_slot *s,
		      int k, struct ibv_mr *mr, unsigned char *rbuf, int reuse)
{
	unsigned int i;

	if (reuse)
		dp_debugfs_write(d, "qp_next", atomic_load(&sh->qpn[k]));
	s->qp = ud_qp(d, s->cq, LK_R, atomic_load(&sh->qkey));
	if (reuse)
		CHECK_EQ(s->qp->qp_num, atomic_load(&sh->qpn[k]),
			 "QPN of the new QP (qp_next)");
	else
		atomic_store(&sh->qpn[k], s->qp->qp_num);
	s->gen++;
	for (i = 0; i < LK_R; i++)
		post_rbuf(s->qp, mr, rbuf + ((size_t)k * LK_R + i) * RSZ,
			  (uint64_t)s->gen << 8 | i);
	s->outstanding = LK_R;
	atomic_fetch_add(&sh->incarnations, 1);
}

/* ERR, every receive completed, destroyed. */
static void lk_retire(struct lk_shared *sh, struct lk_slot *s, int k,
		      unsigned char *rbuf)
{
	to_err(s->qp);
	lk_poll(sh, s, k, rbuf, 1);
	CHECK(!ibv_destroy_qp(s->qp), "destroy_qp: %s", strerror(errno));
	s->qp = NULL;
}

/* The process that destroys and recreates B's QPs at the flood's QPNs. */
static void lk_churn(struct lk_shared *sh, int fam)
{
	size_t len = 2 * LK_R * RSZ;
	struct lk_slot s[2] = { 0 };
	unsigned char *rbuf;
	struct ibv_mr *mr;
	struct dp_dev d;
	int k = 0;

	dp_open(&d, 1, fam);
	CHECK(!posix_memalign((void **)&rbuf, PG, len), "memalign");
	mr = ibv_reg_mr(d.pd, rbuf, len, IBV_ACCESS_LOCAL_WRITE);
	CHECK(mr, "reg_mr: %s", strerror(errno));
	for (k = 0; k < 2; k++) {
		s[k].cq = ibv_create_cq(d.ctx, 2 * LK_R, NULL, NULL, 0);
		CHECK(s[k].cq, "create_cq: %s", strerror(errno));
	}
	while (!atomic_load(&sh->go))
		usleep(1000);
	lk_create(sh, &d, &s[0], 0, mr, rbuf, 0);
	lk_create(sh, &d, &s[1], 1, mr, rbuf, 0);
	atomic_store(&sh->ready, 1);
	for (k = 0; !atomic_load(&sh->stop); k ^= 1) {
		/* The other slot's QP lives meanwhile and takes the flood. */
		lk_poll(sh, &s[k ^ 1], k ^ 1, rbuf, 0);
		lk_retire(sh, &s[k], k, rbuf);
		lk_create(sh, &d, &s[k], k, mr, rbuf, 1);
	}
	for (k = 0; k < 2; k++) {
		lk_retire(sh, &s[k], k, rbuf);
		CHECK(!ibv_destroy_cq(s[k].cq), "destroy_cq");
	}
	CHECK(!ibv_dereg_mr(mr), "dereg_mr");
	dp_close(&d);
}

static void test_qp_lookup(const struct dp_case *c)
{
	struct dp_cfg cfg = { .type = IBV_QPT_UD, .max_inline = MSG };
	struct lk_shared *sh = shm_alloc(sizeof(*sh));
	uint64_t ms = race_ms(25, 30), t0, nb = 0;
	uint32_t seq = 0, qpn[2];
	long nq0, nq1;
	struct dp_dev d[2];
	struct dp_pair p;
	pid_t pid;

	/* The churn only ever runs on the race CPU, the flood elsewhere. */
	pin(cpu_race());
	pid = fork_child();
	if (!pid) {
		lk_churn(sh, c->fam);
		_exit(0);
	}
	pin(cpu_other());
	dp_setup(&p, d, c->fam, &cfg);
	atomic_store(&sh->sender_qpn, p.a.qp->qp_num);
	atomic_store(&sh->qkey, p.qkey);
	atomic_store(&sh->go, 1);
	t0 = dp_now_ms();
	while (!atomic_load(&sh->ready)) {
		CHECK(!child_ended(pid, "the QP churn"), "the QP churn ended early");
		CHECK(dp_now_ms() - t0 < (uint64_t)VERB_MS, "the QP churn did not start");
		usleep(1000);
	}
	qpn[0] = atomic_load(&sh->qpn[0]);
	qpn[1] = atomic_load(&sh->qpn[1]);
	nq0 = err_counter(&d[1], "rx_drop_no_qp");
	NOTE("flood from QP 0x%x at QPNs 0x%x and 0x%x of %s for %llu s",
	     p.a.qp->qp_num, qpn[0], qpn[1], d[1].name,
	     (unsigned long long)ms / 1000);
	t0 = dp_now_ms();
	while (dp_now_ms() - t0 < ms) {
		flood_batch(&p, p.a.ah, qpn[nb & 1], p.qkey, seq, 32);
		seq += 32;
		if (!(++nb & 15))
			CHECK(!child_ended(pid, "the QP churn"), "the QP churn ended early");
	}
	atomic_store(&sh->stop, 1);
	child_wait(pid, 2 * (uint64_t)DP_TIMEOUT_MS, "the QP churn");
	nq1 = err_counter(&d[1], "rx_drop_no_qp");
	NOTE("%u SENDs; %lu QPs made at those numbers; %lu receives completed "
	     "with data, %lu flushed; %ld SENDs found no QP", seq,
	     atomic_load(&sh->incarnations), atomic_load(&sh->received),
	     atomic_load(&sh->flushed), nq1 - nq0);
	/* Not vacuous: QPs came and went, and the flood reached them. */
	CHECK(atomic_load(&sh->incarnations) >= 20, "only %lu QPs made",
	      atomic_load(&sh->incarnations));
	CHECK(atomic_load(&sh->received) >= 20, "only %lu SENDs received",
	      atomic_load(&sh->received));
	CHECK(nq1 > nq0, "no SEND met a QPN between two QPs");
	dp_teardown(&p, d);
}

/* ---- a FUSE file whose reads are noted -------------------------------- */

#define FZ_LEN		(64 * MiB)
#define FZ_PAGES	(FZ_LEN / PG)

/* Shared with the daemon. */
struct fz_log {
	atomic_int hold;		/* READ replies wait while set */
	atomic_int reader[FZ_PAGES];	/* task that read the page last */
};

struct fz {
	struct fuse_file f;
	struct fz_log *log;
	int cpu;			/* the daemon's */
};

static unsigned char fz_byte(uint64_t off)
{
	return (unsigned char)(off * 7 + 3 + (off >> 12) * 13);
}

static void fz_daemon_start(void *ctx)
{
	const struct fz *z = ctx;

	pin(z->cpu);
}

/* Note the task that made the READ (that faulted the page in) per page. */
static void fz_on_read(void *ctx, uint32_t pid, uint64_t off, uint32_t size)
{
	const struct fz *z = ctx;
	uint64_t pg;

	for (pg = off / PG; pg < FZ_PAGES && pg * PG < off + size; pg++)
		atomic_store(&z->log->reader[pg], (int)pid);
}

static int fz_hold(void *ctx)
{
	const struct fz *z = ctx;

	return atomic_load(&z->log->hold);
}

/*
 * The file, "f", of FZ_LEN bytes (fz_byte()) of a daemon on @cpu, mapped
 * privately. Each READ notes its task; while hold is set, READ replies wait.
 */
static void fz_start(struct fz *z, int cpu)
{
	memset(z, 0, sizeof(*z));
	z->log = shm_alloc(sizeof(*z->log));
	z->cpu = cpu;
	z->f.name = "sroce_race";
	z->f.len = FZ_LEN;
	z->f.byte = fz_byte;
	z->f.max_readahead = 0;		/* a fault reads its page only */
	z->f.ctx = z;
	z->f.daemon_start = fz_daemon_start;
	z->f.on_read = fz_on_read;
	z->f.hold = fz_hold;
	fuse_file_start(&z->f);
}

static void fz_stop(struct fz *z)
{
	atomic_store(&z->log->hold, 0);
	fuse_file_stop(&z->f);
	munmap(z->log, sizeof(*z->log));
}

static int fz_reader(const struct fz *z, const unsigned char *p)
{
	return atomic_load(&z->log->reader[(p - z->f.map) / PG]);
}

/* ---- doorbell: ODP faults of one process in another's doorbell ------- */

#define DB_REGION	(16 * MiB)	/* a process's part of the file */
#define DB_HALF		(DB_REGION / 2)
#define DB_ROUNDS	(DB_HALF / PG)	/* one fresh page each way a round */
#define DB_LEN		1024
#define DB_XOFF		256		/* in B's target page */
#define DB_YOFF		512		/* in A's source page */
#define DB_BOFF		(8 * KiB)	/* in B's pinned buffer */
#define DB_WORKERS	3
#define ODP_ACCESS	(IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | \
			 IBV_ACCESS_REMOTE_READ | IBV_ACCESS_ON_DEMAND)

/*
 * One process's RC pair over its region of the file: B's ODP MR over the
 * X half (WRITE targets), A's over the Y half (WRITE sources). Each round
 * uses a fresh page of each, so each access is a fault that reads the
 * page from the daemon.
 */
struct dbw {
	struct dp_dev d[2];
	struct dp_pair p;
	struct ibv_mr *amr, *bmr;
	unsigned char *x, *y;
};

static void db_setup(struct dbw *w, const struct fz *z, int region, int fam)
{
	struct dp_cfg cfg = { .type = IBV_QPT_RC, .buf_len = 64 * KiB };

	dp_setup(&w->p, w->d, fam, &cfg);
	w->x = z->f.map + (size_t)region * DB_REGION;
	w->y = w->x + DB_HALF;
	w->amr = ibv_reg_mr(w->d[0].pd, w->y, DB_HALF, ODP_ACCESS);
	CHECK(w->amr, "reg_mr ODP over the FUSE file (A): %s", strerror(errno));
	w->bmr = ibv_reg_mr(w->d[1].pd, w->x, DB_HALF, ODP_ACCESS);
	CHECK(w->bmr, "reg_mr ODP over the FUSE file (B): %s", strerror(errno));
}

static void db_teardown(struct dbw *w)
{
	CHECK(!ibv_dereg_mr(w->amr), "dereg_mr");
	CHECK(!ibv_dereg_mr(w->bmr), "dereg_mr");
	dp_teardown(&w->p, w->d);
}

static uint32_t db_seed(int who, unsigned int r)
{
	return (uint32_t)who << 20 | r;
}

/*
 * One doorbell, two WRITEs: A's pinned pattern to a fresh page of B's ODP
 * MR (B faults in the receive softirq, on top of this doorbell: the fault
 * is left to this caller), then a fresh page of A's ODP MR to B's pinned
 * buffer (A faults here, in the doorbell, and sleeps on the daemon).
 */
static void db_post(struct dbw *w, int who, unsigned int r)
{
	unsigned char *a = w->p.a.buf.p;
	struct ibv_sge s1 = { (uintptr_t)a, DB_LEN, w->p.a.buf.mr->lkey };
	struct ibv_sge s2 = { (uintptr_t)w->y + r * PG + DB_YOFF, DB_LEN,
			      w->amr->lkey };
	struct ibv_send_wr w2 = {
		.wr_id = r, .sg_list = &s2, .num_sge = 1,
		.opcode = IBV_WR_RDMA_WRITE, .send_flags = IBV_SEND_SIGNALED,
		.wr.rdma = { (uintptr_t)w->p.b.buf.p + DB_BOFF,
			     w->p.b.buf.mr->rkey },
	};
	struct ibv_send_wr w1 = {
		.wr_id = ~0ULL, .sg_list = &s1, .num_sge = 1,
		.opcode = IBV_WR_RDMA_WRITE, .next = &w2,
		.wr.rdma = { (uintptr_t)w->x + r * PG + DB_XOFF, w->bmr->rkey },
	};
	size_t i;

	for (i = 0; i < DB_LEN; i++)
		a[i] = dp_pat(i, db_seed(who, r));
	memset(w->p.b.buf.p + DB_BOFF, 0x5a, DB_LEN);
	dp_post_send(&w->p.a, &w1);
}

/* Round @r completed (both WRITEs, in order), the bytes where they went. */
static void db_check(struct dbw *w, const struct fz *z, int who, unsigned int r)
{
	const unsigned char *y = w->y + r * PG + DB_YOFF;
	const unsigned char *b = w->p.b.buf.p + DB_BOFF;
	uint64_t yoff = y - z->f.map;
	struct ibv_wc wc;
	size_t i;

	dp_poll(w->p.a.scq, &wc, DP_TIMEOUT_MS, "the two WRITEs");
	dp_check_wc(&wc, IBV_WC_SUCCESS, IBV_WC_RDMA_WRITE, r,
		    w->p.a.qp->qp_num, "WRITE from A's ODP page");
	dp_check_range(w->x + r * PG + DB_XOFF, DB_LEN, db_seed(who, r),
		       "WRITE into B's ODP page");
	for (i = 0; i < DB_LEN; i++)
		CHECK(b[i] == fz_byte(yoff + i), "WRITE from A's ODP page: byte "
		      "%zu is 0x%02x, want 0x%02x", i, b[i], fz_byte(yoff + i));
}

/* A process of its own, pinned memory only, WRITEs checked. */
struct dbq {
	atomic_int ready, go, rounds;
	atomic_long deferred;	/* B's odp_fault_deferred when it started */
};

static void db_other(struct dbq *q, int fam, int cpu)
{
	struct dp_cfg cfg = { .type = IBV_QPT_RC, .buf_len = 64 * KiB };
	struct dp_dev d[2];
	struct dp_pair p;
	struct dp_sgl sa, sb;
	struct ibv_wc wc;
	int r;

	pin(cpu);
	dp_setup(&p, d, fam, &cfg);
	dp_sgl_make(&sa, &p.a.buf, 0, 4096, 1, 0);
	dp_sgl_make(&sb, &p.b.buf, 0, 4096, 1, 0);
	atomic_store(&q->ready, 1);
	while (!atomic_load(&q->go))
		usleep(1000);
	/* Read here: the process that posted cannot open a file now. */
	atomic_store(&q->deferred, (long)dp_counter(&d[1], "odp_fault_deferred"));
	for (r = 0; r < 20; r++) {
		dp_sgl_fill(&sa, 1000 + r);
		dp_sgl_clear(&sb, 0x5a);
		dp_send_wr(&p, IBV_WR_RDMA_WRITE, r, &sa, IBV_SEND_SIGNALED, 0,
			   sb.sge[0].addr, p.b.buf.mr->rkey);
		dp_poll(p.a.scq, &wc, DP_TIMEOUT_MS, "the other process's WRITE");
		dp_check_wc(&wc, IBV_WC_SUCCESS, IBV_WC_RDMA_WRITE, r,
			    p.a.qp->qp_num, "the other process's WRITE");
		dp_sgl_check(&sb, 1000 + r, 0x5a, "the other process's WRITE");
		atomic_store(&q->rounds, r + 1);
	}
	dp_teardown(&p, d);
}

struct db_thread_arg {
	struct dbw *w;
	atomic_int go, done, tid;
	int cpu;
};

static void *db_thread(void *v)
{
	struct db_thread_arg *t = v;

	pin(t->cpu);
	atomic_store(&t->tid, (int)gettid());
	while (!atomic_load(&t->go))
		usleep(1000);
	db_post(t->w, 9, 0);
	atomic_store(&t->done, 1);
	return NULL;
}

/*
 * P's doorbell (a thread pinned to the race CPU) leaves B's fault of page
 * X to itself, then sleeps on its own fault of page Y, which the daemon
 * holds back. Another process, pinned to the same CPU, posts meanwhile:
 * its post_send must return, and it must not have faulted X in.
 */
static void test_doorbell_hold(const struct dp_case *c)
{
	struct db_thread_arg t = { 0 };
	struct dbq *q = shm_alloc(sizeof(*q));
	uint64_t t0, wait_ms = VERB_MS;
	int cpu = cpu_race(), rx, ry, qdone;
	const unsigned char *x, *y;
	struct dbw w;
	pthread_t th;
	struct fz z;
	pid_t qpid;
	long deferred0;

	fz_start(&z, cpu_other());
	qpid = fork_child();
	if (!qpid) {
		db_other(q, c->fam, cpu);
		_exit(0);
	}
	db_setup(&w, &z, 3, c->fam);
	x = w.x + DB_XOFF;
	y = w.y + DB_YOFF;
	t.w = &w;
	t.cpu = cpu;
	CHECK(!pthread_create(&th, NULL, db_thread, &t), "pthread_create");
	t0 = dp_now_ms();
	while (!atomic_load(&q->ready) || !atomic_load(&t.tid)) {
		CHECK(!child_ended(qpid, "the other process"), "it ended early");
		CHECK(dp_now_ms() - t0 < (uint64_t)VERB_MS, "set-up took too long");
		usleep(1000);
	}
	NOTE("doorbell thread %d and the other process %d on CPU %d",
	     atomic_load(&t.tid), qpid, cpu);
	deferred0 = (long)dp_counter(&w.d[1], "odp_fault_deferred");

	/* Nothing below may need this process's mmap_lock for writing. */
	atomic_store(&z.log->hold, 1);
	atomic_store(&t.go, 1);
	t0 = dp_now_ms();
	while (!(ry = fz_reader(&z, y)) && dp_now_ms() - t0 < wait_ms)
		usleep(2000);
	if (!ry || atomic_load(&t.done)) {
		atomic_store(&z.log->hold, 0);
		FAIL("the doorbell did not sleep on its fault of A's page (read "
		     "by %d, post_send %s): the race was not set up", ry,
		     atomic_load(&t.done) ? "returned" : "still in it");
	}
	CHECK(ry == atomic_load(&t.tid), "A's page was read by task %d, not by "
	      "the doorbell thread %d", ry, atomic_load(&t.tid));
	rx = fz_reader(&z, x);
	NOTE("doorbell asleep on A's page (daemon holds the read); B's page %s",
	     rx ? "read already" : "not read yet");

	atomic_store(&q->go, 1);
	t0 = dp_now_ms();
	while (atomic_load(&q->rounds) < 20 && dp_now_ms() - t0 < wait_ms &&
	       fz_reader(&z, x) != qpid)
		usleep(2000);
	qdone = atomic_load(&q->rounds);
	rx = fz_reader(&z, x);
	/* Let everything go on before judging, so that nothing stays stuck. */
	atomic_store(&z.log->hold, 0);
	t0 = dp_now_ms();
	while (!atomic_load(&t.done) && dp_now_ms() - t0 < (uint64_t)DP_TIMEOUT_MS)
		usleep(2000);
	CHECK(atomic_load(&t.done), "the doorbell did not return after the "
	      "daemon answered");
	pthread_join(th, NULL);
	child_wait(qpid, DP_TIMEOUT_MS, "the other process");
	CHECK(rx != qpid, "B's page of this process was faulted in by the other "
	      "process's post_send (it took over this doorbell's fault and "
	      "slept on this process's memory; %d of its 20 WRITEs done)", qdone);
	CHECK(qdone == 20, "the other process's post_send waited on this "
	      "process's held fault (%d of 20 WRITEs done in %llu ms)", qdone,
	      (unsigned long long)wait_ms);
	/*
	 * B's fault was left before the doorbell slept (were the first
	 * WRITE still in a transmit batch then, it would be met after).
	 */
	CHECK(atomic_load(&q->deferred) > deferred0, "B's fault was not met "
	      "before the doorbell slept on its own: the race was not set up");
	db_check(&w, &z, 9, 0);
	rx = fz_reader(&z, x);
	NOTE("the other process's 20 WRITEs done while the fault was held; "
	     "B's page read by %s (%d)", rx == atomic_load(&t.tid) ?
	     "the doorbell thread" : "another task (a work item)", rx);
	db_teardown(&w);
	fz_stop(&z);
}

struct db_shared {
	atomic_int go;
	atomic_uint rounds[DB_WORKERS];
};

static void db_worker(struct db_shared *sh, const struct fz *z, int i,
		      int fam, uint64_t ms)
{
	uint64_t t0;
	unsigned int r;
	struct dbw w;

	db_setup(&w, z, i, fam);
	while (!atomic_load(&sh->go))
		usleep(1000);
	t0 = dp_now_ms();
	for (r = 0; r < DB_ROUNDS && dp_now_ms() - t0 < ms; r++) {
		db_post(&w, i, r);
		db_check(&w, z, i, r);
		atomic_store(&sh->rounds[i], r + 1);
	}
	db_teardown(&w);
}

/*
 * DB_WORKERS processes pinned to one CPU, each WRITEs to and from fresh
 * ODP pages in every doorbell: B's faults are left to the doorbell, which
 * sleeps on A's while the others run theirs. Data checked; no page of a
 * process faulted in by another test process.
 */
static void test_doorbell_odp(const struct dp_case *c)
{
	struct db_shared *sh = shm_alloc(sizeof(*sh));
	uint64_t ms = race_ms(20, 20);
	unsigned long own = 0, other = 0, total = 0;
	pid_t pid[DB_WORKERS];
	long f0, f1;
	struct dp_dev d;
	unsigned int pg;
	struct fz z;
	int i, j, rd;

	fz_start(&z, cpu_other());
	pin(cpu_race());
	for (i = 0; i < DB_WORKERS; i++) {
		pid[i] = fork_child();
		if (!pid[i]) {
			db_worker(sh, &z, i, c->fam, ms);
			_exit(0);
		}
	}
	pin(cpu_other());
	dp_open(&d, 1, c->fam);
	f0 = err_counter(&d, "odp_fault_in_doorbell");
	atomic_store(&sh->go, 1);
	NOTE("%d processes on CPU %d for %llu s", DB_WORKERS, cpu_race(),
	     (unsigned long long)ms / 1000);
	for (i = 0; i < DB_WORKERS; i++)
		child_wait(pid[i], ms + 2 * (uint64_t)DP_TIMEOUT_MS, "a doorbell process");
	f1 = err_counter(&d, "odp_fault_in_doorbell");
	for (i = 0; i < DB_WORKERS; i++) {
		for (pg = 0; pg < DB_REGION / PG; pg++) {
			rd = atomic_load(&z.log->reader[i * DB_REGION / PG + pg]);
			if (!rd)
				continue;
			total++;
			if (rd == pid[i]) {
				own++;
				continue;
			}
			for (j = 0; j < DB_WORKERS; j++)
				CHECK(rd != pid[j], "page %u of process %d's memory "
				      "was faulted in by process %d's post_send", pg,
				      pid[i], pid[j]);
			other++;
		}
		NOTE("process %d: %u rounds", pid[i], atomic_load(&sh->rounds[i]));
		CHECK(atomic_load(&sh->rounds[i]) >= 10, "process %d did only %u "
		      "rounds", pid[i], atomic_load(&sh->rounds[i]));
	}
	NOTE("%lu pages faulted in: %lu by their process, %lu by work items; "
	     "%ld faults left to a doorbell", total, own, other, f1 - f0);
	CHECK(f1 > f0, "no fault was left to a doorbell caller (the race was "
	      "not set up)");
	dp_close(&d);
	fz_stop(&z);
}

/* ---- mcast ------------------------------------------------------------ */

#define MC_SLOTS	4	/* slot 0 stays attached; the others come and go */
#define MC_R		16
#define MC_VICTIMS	4
#define MC_GROUP	1	/* dp_mgid(): 239.1.2.4 or ff0e::5:6:8 */

struct mc_shared {
	atomic_int go, ready, stop, victim_ready;
	atomic_uint sender_qpn, qkey;
	atomic_uint posting;	/* highest seq posted, or about to be */
	atomic_ulong stable_rx, churn_rx, flushed, incarnations, detaches,
		     victims, max_verb_ms;
};

struct mc_slot {
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	unsigned int gen, outstanding, nattach;
	int64_t last_seq;	/* -1: none yet */
	int64_t bound;		/* after the last detach: no seq above; -1: none */
	uint64_t t_attach;
	unsigned int life_ms;
};

static void mc_timed(struct mc_shared *sh, uint64_t t0, const char *what)
{
	uint64_t ms = dp_now_ms() - t0;

	CHECK(ms < (uint64_t)VERB_MS, "%s took %llu ms", what,
	      (unsigned long long)ms);
	if (ms > atomic_load(&sh->max_verb_ms))
		atomic_store(&sh->max_verb_ms, ms);
}

static void mc_attach(struct mc_shared *sh, struct mc_slot *s,
		      const union ibv_gid *g)
{
	uint64_t t0 = dp_now_ms();

	/* Under another MLID each time: uverbs folds a repeated one. */
	CHECK(!ibv_attach_mcast(s->qp, g, s->nattach), "attach_mcast: %s",
	      strerror(errno));
	mc_timed(sh, t0, "attach_mcast");
	/* A member again: what is posted from now on may come. */
	if (!s->nattach++)
		s->bound = -1;
}

static void mc_detach(struct mc_shared *sh, struct mc_slot *s,
		      const union ibv_gid *g)
{
	uint64_t t0 = dp_now_ms();

	CHECK(!ibv_detach_mcast(s->qp, g, s->nattach - 1), "detach_mcast: %s",
	      strerror(errno));
	mc_timed(sh, t0, "detach_mcast");
	if (--s->nattach)
		return;
	/* Whatever is posted from now on is not for this QP. */
	s->bound = atomic_load(&sh->posting);
	atomic_fetch_add(&sh->detaches, 1);
}

static unsigned char *mc_rbuf(unsigned char *rbuf, int k, unsigned int i)
{
	return rbuf + ((size_t)k * MC_R + i) * RSZ;
}

/* One completion of slot @k: data, source, order, the detach bound. */
static void mc_wc(struct mc_shared *sh, struct mc_slot *s, int k,
		  unsigned char *rbuf, struct ibv_mr *mr, const struct ibv_wc *wc)
{
	unsigned int i = wc->wr_id & 0xff;
	uint32_t seq;

	CHECK(wc->wr_id >> 8 == s->gen && i < MC_R, "slot %d: completion of "
	      "wr_id 0x%llx, want generation %u", k,
	      (unsigned long long)wc->wr_id, s->gen);
	CHECK(s->outstanding > 0, "slot %d: more completions than receives", k);
	s->outstanding--;
	if (wc->status == IBV_WC_WR_FLUSH_ERR) {
		atomic_fetch_add(&sh->flushed, 1);
		return;
	}
	CHECK(wc->status == IBV_WC_SUCCESS, "slot %d: receive status %s", k,
	      ibv_wc_status_str(wc->status));
	CHECK_EQ(wc->opcode, IBV_WC_RECV, "receive opcode");
	CHECK_EQ(wc->qp_num, s->qp->qp_num, "receive qp_num");
	CHECK_EQ(wc->src_qp, atomic_load(&sh->sender_qpn), "receive src_qp");
	CHECK_EQ(wc->byte_len, DP_GRH + MSG, "receive byte_len");
	seq = msg_check(mc_rbuf(rbuf, k, i) + DP_GRH, "multicast receive");
	CHECK((int64_t)seq > s->last_seq, "slot %d: message %u after %lld "
	      "(duplicated or out of order)", k, seq, (long long)s->last_seq);
	CHECK(s->bound < 0 || (int64_t)seq <= s->bound, "slot %d: message %u "
	      "posted after the QP's last detach returned (%lld was posted "
	      "then)", k, seq, (long long)s->bound);
	s->last_seq = seq;
	atomic_fetch_add(k ? &sh->churn_rx : &sh->stable_rx, 1);
	if (!k) {	/* the stable member keeps its queue full */
		post_rbuf(s->qp, mr, mc_rbuf(rbuf, k, i), wc->wr_id);
		s->outstanding++;
	}
}

static void mc_poll(struct mc_shared *sh, struct mc_slot *s, int k,
		    unsigned char *rbuf, struct ibv_mr *mr, int wait_all)
{
	uint64_t t0 = dp_now_ms();
	struct ibv_wc wc[16];
	int n, j;

	do {
		n = ibv_poll_cq(s->cq, 16, wc);
		CHECK(n >= 0, "poll_cq: %d", n);
		for (j = 0; j < n; j++)
			mc_wc(sh, s, k, rbuf, mr, &wc[j]);
		CHECK(dp_now_ms() - t0 < (uint64_t)DP_TIMEOUT_MS, "slot %d: %u "
		      "receives of a QP in ERR never completed", k, s->outstanding);
	} while (wait_all && s->outstanding);
}

static void mc_create(struct mc_shared *sh, struct dp_dev *d, struct mc_slot *s,
		      int k, unsigned char *rbuf, struct ibv_mr *mr)
{
	unsigned int i;

	s->qp = ud_qp(d, s->cq, MC_R, atomic_load(&sh->qkey));
	s->gen++;
	for (i = 0; i < MC_R; i++)
		post_rbuf(s->qp, mr, mc_rbuf(rbuf, k, i), (uint64_t)s->gen << 8 | i);
	s->outstanding = MC_R;
	s->last_seq = -1;
	s->bound = -1;
	s->nattach = 0;
	atomic_fetch_add(&sh->incarnations, 1);
}

static void mc_destroy(struct mc_shared *sh, struct mc_slot *s, int k,
		       unsigned char *rbuf, struct ibv_mr *mr)
{
	uint64_t t0;

	to_err(s->qp);
	mc_poll(sh, s, k, rbuf, mr, 1);
	t0 = dp_now_ms();
	CHECK(!ibv_destroy_qp(s->qp), "destroy_qp: %s", strerror(errno));
	mc_timed(sh, t0, "destroy_qp");
	s->qp = NULL;
}

/* A process whose two QPs are attached when it is killed. */
static void mc_victim(struct mc_shared *sh, int fam, const union ibv_gid *g)
{
	struct ibv_qp *qp[2];
	struct ibv_cq *cq;
	struct dp_dev d;
	int i;

	dp_open(&d, 1, fam);
	cq = ibv_create_cq(d.ctx, 64, NULL, NULL, 0);
	CHECK(cq, "create_cq: %s", strerror(errno));
	/* The first QP under two MLIDs: two attachments for exit to undo. */
	for (i = 0; i < 3; i++) {
		if (i < 2)
			qp[i] = ud_qp(&d, cq, 16, atomic_load(&sh->qkey));
		CHECK(!ibv_attach_mcast(qp[i & 1], g, i >> 1), "attach_mcast: %s",
		      strerror(errno));
	}
	atomic_store(&sh->victim_ready, 1);
	for (;;)
		pause();
}

/* The process of B's QPs: attach, detach, destroy, kill, in a loop. */
static void mc_churn(struct mc_shared *sh, int fam)
{
	size_t len = MC_SLOTS * MC_R * RSZ;
	struct mc_slot s[MC_SLOTS] = { 0 };
	uint64_t t_victim, t0;
	unsigned int round = 0;
	unsigned char *rbuf;
	pid_t victim = 0;
	struct ibv_mr *mr;
	struct dp_dev d;
	union ibv_gid g;
	int k;

	dp_mgid(fam, MC_GROUP, &g);
	dp_open(&d, 1, fam);
	CHECK(!posix_memalign((void **)&rbuf, PG, len), "memalign");
	mr = ibv_reg_mr(d.pd, rbuf, len, IBV_ACCESS_LOCAL_WRITE);
	CHECK(mr, "reg_mr: %s", strerror(errno));
	for (k = 0; k < MC_SLOTS; k++) {
		s[k].cq = ibv_create_cq(d.ctx, 2 * MC_R, NULL, NULL, 0);
		CHECK(s[k].cq, "create_cq: %s", strerror(errno));
	}
	while (!atomic_load(&sh->go))
		usleep(1000);
	mc_create(sh, &d, &s[0], 0, rbuf, mr);
	mc_attach(sh, &s[0], &g);
	/* The first attach joins the IP group: its report is asynchronous. */
	usleep(200 * 1000);
	atomic_store(&sh->ready, 1);
	t_victim = dp_now_ms();
	while (!atomic_load(&sh->stop)) {
		round++;
		mc_poll(sh, &s[0], 0, rbuf, mr, 0);
		for (k = 1; k < MC_SLOTS; k++) {
			struct mc_slot *c = &s[k];

			mc_poll(sh, c, k, rbuf, mr, 0);
			if (!c->qp) {
				mc_create(sh, &d, c, k, rbuf, mr);
				c->life_ms = (round * 7 + k * 3) % 20;
			}
			if (!c->nattach) {
				/* Twice every third time: two detaches to leave. */
				mc_attach(sh, c, &g);
				if (!((round + k) % 3))
					mc_attach(sh, c, &g);
				c->t_attach = dp_now_ms();
				continue;
			}
			if (dp_now_ms() - c->t_attach < c->life_ms)
				continue;
			mc_detach(sh, c, &g);
			if (c->nattach)
				continue;	/* once more next round */
			/* Every other QP that left comes back later; the rest go. */
			if ((round + k) & 1)
				mc_destroy(sh, c, k, rbuf, mr);
		}
		/* Now and then a process with attached QPs is killed. */
		if (!victim && atomic_load(&sh->victims) < MC_VICTIMS &&
		    dp_now_ms() - t_victim > 2000) {
			atomic_store(&sh->victim_ready, 0);
			victim = fork_child();
			if (!victim) {
				mc_victim(sh, fam, &g);
				_exit(0);
			}
			t_victim = dp_now_ms();
		} else if (victim && atomic_load(&sh->victim_ready) &&
			   dp_now_ms() - t_victim > 100) {
			t0 = dp_now_ms();
			kill(victim, SIGKILL);
			CHECK(waitpid(victim, NULL, 0) == victim, "waitpid");
			mc_timed(sh, t0, "exit of a process with attached QPs");
			atomic_fetch_add(&sh->victims, 1);
			victim = 0;
			t_victim = dp_now_ms();
		} else if (victim) {
			CHECK(dp_now_ms() - t_victim < (uint64_t)VERB_MS + 5000,
			      "the victim process did not come up");
		}
	}
	if (victim) {
		kill(victim, SIGKILL);
		waitpid(victim, NULL, 0);
	}
	for (k = 0; k < MC_SLOTS; k++) {
		if (s[k].qp) {
			while (s[k].nattach)
				mc_detach(sh, &s[k], &g);
			mc_destroy(sh, &s[k], k, rbuf, mr);
		}
		CHECK(!ibv_destroy_cq(s[k].cq), "destroy_cq");
	}
	CHECK(!ibv_dereg_mr(mr), "dereg_mr");
	dp_close(&d);
}

static void test_mcast(const struct dp_case *c)
{
	struct dp_cfg cfg = { .type = IBV_QPT_UD, .max_inline = MSG };
	struct mc_shared *sh = shm_alloc(sizeof(*sh));
	uint64_t ms = race_ms(25, 30), t0, nb = 0;
	uint32_t seq = 0;
	struct ibv_ah_attr at = { .is_global = 1, .port_num = 1 };
	struct ibv_ah *ah;
	struct dp_dev d[2];
	struct dp_pair p;
	pid_t pid;

	pin(cpu_race());
	pid = fork_child();
	if (!pid) {
		mc_churn(sh, c->fam);
		_exit(0);
	}
	pin(cpu_other());
	dp_setup(&p, d, c->fam, &cfg);
	dp_mgid(c->fam, MC_GROUP, &at.grh.dgid);
	at.grh.sgid_index = p.a.dev->gid_index;
	at.grh.hop_limit = 8;
	ah = ibv_create_ah(p.a.dev->pd, &at);
	CHECK(ah, "create_ah to the group: %s", strerror(errno));
	atomic_store(&sh->sender_qpn, p.a.qp->qp_num);
	atomic_store(&sh->qkey, p.qkey);
	atomic_store(&sh->go, 1);
	t0 = dp_now_ms();
	while (!atomic_load(&sh->ready)) {
		CHECK(!child_ended(pid, "the group churn"), "it ended early");
		CHECK(dp_now_ms() - t0 < (uint64_t)VERB_MS, "the group churn did not start");
		usleep(1000);
	}
	NOTE("multicast flood from QP 0x%x for %llu s", p.a.qp->qp_num,
	     (unsigned long long)ms / 1000);
	t0 = dp_now_ms();
	while (dp_now_ms() - t0 < ms) {
		atomic_store(&sh->posting, seq + 15);
		flood_batch(&p, ah, 0xffffff, p.qkey, seq, 16);
		seq += 16;
		if (!(++nb & 15))
			CHECK(!child_ended(pid, "the group churn"), "it ended early");
	}
	atomic_store(&sh->stop, 1);
	child_wait(pid, 2 * (uint64_t)DP_TIMEOUT_MS, "the group churn");
	NOTE("%u messages sent; stable member got %lu; %lu QPs attached and "
	     "left (%lu last detaches, %lu processes killed attached) and got "
	     "%lu, %lu receives flushed; slowest verb %lu ms", seq,
	     atomic_load(&sh->stable_rx), atomic_load(&sh->incarnations) - 1,
	     atomic_load(&sh->detaches), atomic_load(&sh->victims),
	     atomic_load(&sh->churn_rx), atomic_load(&sh->flushed),
	     atomic_load(&sh->max_verb_ms));
	CHECK(atomic_load(&sh->stable_rx) >= 20, "the member attached all along "
	      "got only %lu messages", atomic_load(&sh->stable_rx));
	CHECK(atomic_load(&sh->churn_rx) >= 20, "the QPs that came and went got "
	      "only %lu messages", atomic_load(&sh->churn_rx));
	CHECK(atomic_load(&sh->detaches) >= 10, "only %lu detaches",
	      atomic_load(&sh->detaches));
	CHECK(atomic_load(&sh->victims) >= 1, "no process was killed attached");
	CHECK(!ibv_destroy_ah(ah), "destroy_ah");
	dp_teardown(&p, d);
}

static const struct dp_case cases[] = {
	{ "qp_lookup", test_qp_lookup, IBV_QPT_UD, 4, 0, 0 },
	/* IPv6: each packet leaves at once (no GSO batch), so B's fault of
	 * the first WRITE is met before the doorbell faults on the second. */
	{ "doorbell_hold", test_doorbell_hold, IBV_QPT_RC, 6, 0, 0 },
	{ "doorbell_odp", test_doorbell_odp, IBV_QPT_RC, 6, 0, 0 },
	{ "mcast", test_mcast, IBV_QPT_UD, 4, 0, 0 },
};

int main(int argc, char **argv)
{
	return dp_main(argc, argv, cases, ARRAY_SIZE(cases));
}
