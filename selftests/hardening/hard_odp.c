// SPDX-License-Identifier: GPL-2.0-only
/*
 * hard_odp: teardown races on on-demand paging memory under traffic
 * (seed-rules R5.2, R5.3, R3.4, R3.5).
 *
 * End A (pinned memory) runs RC traffic at end B's ODP region, an explicit
 * ODP MR or an implicit one (the whole address space): per slot of the
 * region an RDMA WRITE, an RDMA READ of the same bytes back, a
 * FETCH_AND_ADD on the slot's counter and a SEND into a receive buffer in
 * the region. Meanwhile the process changes the region under it: munmap
 * of half of it, MADV_DONTNEED, fork with the child writing its copy,
 * mprotect(PROT_READ), ibv_dereg_mr, ibv_destroy_qp of either end, exit.
 *
 * Every completion is checked: the first error of a round (the QPs are
 * then replaced) must be one the change explains, and every operation that
 * succeeded is checked byte for byte where the mapping is intact (after
 * MADV_DONTNEED a byte may also read as 0, never as an older value).
 *
 * munmap: an ib_umem_odp tracks a range of the address space, not the
 * VMAs in it, and faults pages in with hmm_range_fault. So an access to
 * the hole faults on no VMA and fails (the peer sees IBV_WC_REM_ACCESS_ERR),
 * and once new memory is mapped at the same address, accesses go to the
 * new pages; a real ODP RNIC (mlx5, same ib_umem_odp) does both. The
 * munmap cases check both.
 *
 * Also: an access whose fault keeps being invalidated (MADV_DONTNEED in a
 * loop) still succeeds; the children of an implicit MR are freed when
 * their memory is unmapped (kernel memory returns after munmap of a big
 * region); a fault on memory registered with userfaultfd, with no
 * thread answering, neither hangs the QP nor destroy_qp / dereg_mr; and
 * one on a file of a stopped FUSE daemon holds neither query_qp,
 * modify_qp nor destroy_qp, and dereg_mr only until the daemon goes on;
 * a WRITE into such a page outlives its requester's ACK timeouts (the
 * responder answers its copies with RNR NAKs).
 *
 * hardening/odp.sh runs this, then checks that no task is left in D state,
 * that slab and vmalloc use are back near the baseline and the kernel log.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/userfaultfd.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "../errors/err.h"
#include "fuse_file.h"

#define PG		4096UL
#define NSLOT		16
#define STRIDE		(256 * KiB)		/* slots 256 KiB apart */
#define REGION		(NSLOT * STRIDE)	/* 4 MiB, 2 MiB aligned */
#define WLEN		(8 * KiB)		/* WRITE / READ bytes, slot + 0 */
#define ROFF		(8 * KiB)		/* receive buffer in the slot */
#define SLEN		(2 * KiB)		/* SEND bytes */
#define AOFF		(12 * KiB)		/* FETCH_AND_ADD counter */
#define RN		4			/* slots per round */
#define NOPS		4
#define VERB_MS		3000			/* a destroy/dereg must return */
#define EXIT_MS		10000			/* a process must be gone */

/* A's pinned buffer: WRITE sources, READ targets, SEND sources, results. */
#define A_SRC(s)	((s) * WLEN)
#define A_DST(s)	(NSLOT * WLEN + (s) * WLEN)
#define A_SSRC(s)	(2 * NSLOT * WLEN + (s) * SLEN)
#define A_RES(s)	(2 * NSLOT * WLEN + NSLOT * SLEN + (s) * 8)
#define A_LEN		(A_RES(NSLOT) + PG)

#define ODP_ACCESS	(IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | \
			 IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC | \
			 IBV_ACCESS_ON_DEMAND)

enum { OP_WRITE, OP_READ, OP_FADD, OP_SEND };
static const char *const op_name[] = { "WRITE", "READ", "FETCH_ADD", "SEND" };

enum kind {
	K_MUNMAP, K_DONTNEED, K_FORK, K_MPROTECT, K_DEREG, K_DESTROY_B,
	K_DESTROY_A, K_EXIT, K_SLOW_FAULT,
};

struct ho {
	enum kind kind;
	int implicit;
	struct dp_cfg cfg;
	struct dp_dev d[2];
	struct dp_pair p;
	unsigned char *reg;		/* B's ODP region */
	struct ibv_mr *bmr;
	int zero_ok;			/* bytes may read back 0 (MADV_DONTNEED) */
	int poll_b;			/* B's receives complete (B's QP exists) */
	int no_cpu;			/* the CPU must not touch reg (userfaultfd) */
	/* The CPU's reads of reg against the thread that changes it. */
	pthread_mutex_t lock;
	atomic_int gone;		/* upper half of reg unmapped */
	atomic_int ro;			/* reg read-only */
	atomic_int dereged;		/* bmr being deregistered */
	atomic_int destroyed;		/* a QP being destroyed */
	atomic_int stop;
	atomic_int forks, fork_bad;
	atomic_ulong change_us;		/* how long the munmap / mprotect took */
	unsigned long errors_at_change;	/* h->errors when it was done */
	uint64_t cnt[NSLOT];		/* each slot's counter, as it must be */
	atomic_int *go;			/* set once a round's receives are posted */
	unsigned int s0, n;		/* the round in flight */
	uint32_t seed;
	unsigned long rounds, errors, ops_ok;
};

static unsigned char *slot(struct ho *h, unsigned int s)
{
	return h->reg + s * STRIDE;
}

static unsigned int rslot(unsigned int s)
{
	return s % (NSLOT / 2);		/* receives stay in the lower half */
}

static int upper(unsigned int s)
{
	return s >= NSLOT / 2;
}

static void fill(unsigned char *p, size_t len, uint32_t seed)
{
	size_t i;

	for (i = 0; i < len; i++)
		p[i] = dp_pat(i, seed);
}

/* Every byte is the pattern (or 0 where pages may have been dropped). */
static void check_data(const unsigned char *p, size_t len, uint32_t seed,
		       int zero_ok, const char *what, unsigned int s)
{
	size_t i;

	for (i = 0; i < len; i++) {
		if (p[i] == dp_pat(i, seed) || (zero_ok && !p[i]))
			continue;
		FAIL("%s, slot %u, byte %zu: 0x%02x, want 0x%02x%s", what, s, i,
		     p[i], dp_pat(i, seed), zero_ok ? " or 0" : "");
	}
}

/* 2 MiB aligned anonymous memory, no huge pages, untouched. */
static unsigned char *region_map(size_t len)
{
	size_t align = 2 * MiB;
	unsigned char *p = mmap(NULL, len + align, PROT_READ | PROT_WRITE,
				MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	unsigned char *q;

	CHECK(p != MAP_FAILED, "mmap %zu: %s", len, strerror(errno));
	q = (unsigned char *)(((uintptr_t)p + align - 1) & ~(align - 1));
	if (q > p)
		munmap(p, q - p);
	munmap(q + len, p + align - q);
	madvise(q, len, MADV_NOHUGEPAGE);
	return q;
}

static struct ibv_mr *reg_b(struct ho *h)
{
	struct ibv_mr *mr;

	if (h->implicit)
		mr = ibv_reg_mr(h->d[1].pd, NULL, SIZE_MAX, ODP_ACCESS);
	else
		mr = ibv_reg_mr(h->d[1].pd, h->reg, REGION, ODP_ACCESS);
	CHECK(mr, "reg_mr %s ODP on %s: %s", h->implicit ? "implicit" :
	      "explicit", h->d[1].name, strerror(errno));
	return mr;
}

static void pair_make(struct ho *h)
{
	dp_pair_create(&h->p, &h->d[0], &h->d[1], &h->cfg);
	h->poll_b = 1;
}

/* Each counter as B's memory holds it, the pair gone (nothing in flight). */
static void resync(struct ho *h)
{
	unsigned int s;

	if (h->no_cpu)
		return;
	pthread_mutex_lock(&h->lock);
	for (s = 0; s < NSLOT; s++)
		h->cnt[s] = upper(s) && atomic_load(&h->gone) ? 0 :
			    *(volatile uint64_t *)(slot(h, s) + AOFF);
	pthread_mutex_unlock(&h->lock);
}

static void pair_renew(struct ho *h)
{
	dp_pair_destroy(&h->p);
	resync(h);
	pair_make(h);
}

static void ho_setup(struct ho *h, enum kind kind, int implicit)
{
	memset(h, 0, sizeof(*h));
	h->kind = kind;
	h->implicit = implicit;
	/*
	 * ACK timeout 0.5 s, 7 retries: a TCG guest on a loaded host can stall
	 * for a second; no case here means to test the transport's timers.
	 */
	h->cfg = (struct dp_cfg){ .type = IBV_QPT_RC, .buf_len = A_LEN,
				  .rc_timers = 1, .timeout = 17, .retry_cnt = 7,
				  .rnr_retry = 7, .min_rnr_timer = 12 };
	if (kind == K_DESTROY_B) {
		/*
		 * A gives up on the destroyed peer quickly: after 2 x 16.8 ms,
		 * or 2 x 268 ms where everything is slower (SROCE_TIME_SCALE:
		 * the debug kernel), lest a stall of B give up on it alive.
		 */
		h->cfg.rc_timers = 1;
		h->cfg.timeout = dp_time_scale > 1 ? 16 : 12;
		h->cfg.retry_cnt = 1;
		h->cfg.rnr_retry = 1;
		h->cfg.min_rnr_timer = 1;
	}
	if (kind == K_SLOW_FAULT) {
		/*
		 * A's retries run out after 3 ACK timeouts of 67 ms (268 ms
		 * on the debug kernel), T..4T each: far less than the fault.
		 * B's min_rnr_timer is the shortest, 0.01 ms.
		 */
		h->cfg.timeout = dp_time_scale > 1 ? 16 : 14;
		h->cfg.retry_cnt = 2;
		h->cfg.min_rnr_timer = 1;
	}
	pthread_mutex_init(&h->lock, NULL);
	dp_open(&h->d[0], 0, 4);
	dp_open(&h->d[1], 1, 4);
	h->reg = region_map(REGION);
	h->bmr = reg_b(h);
	pair_make(h);
}

/* Tear down; the device must let go within EXIT_MS. */
static void ho_teardown(struct ho *h)
{
	uint64_t t0 = dp_now_ms();

	dp_pair_destroy(&h->p);
	if (h->bmr)
		CHECK(!ibv_dereg_mr(h->bmr), "dereg B's MR: %s", strerror(errno));
	dp_close(&h->d[1]);
	dp_close(&h->d[0]);
	CHECK(dp_now_ms() - t0 < EXIT_MS, "teardown took %llu ms",
	      (unsigned long long)(dp_now_ms() - t0));
	NOTE("%lu rounds, %lu operations checked, %lu rounds ended in an error; "
	     "teardown %llu ms", h->rounds, h->ops_ok, h->errors,
	     (unsigned long long)(dp_now_ms() - t0));
	if (h->reg)
		munmap(h->reg, REGION);
}

/* Post one round: slots [s0, s0 + n), WRITE, READ, FETCH_ADD, SEND each. */
static void round_post(struct ho *h, unsigned int s0, unsigned int n,
		       uint32_t seed)
{
	struct ibv_send_wr wr[RN * NOPS], *bad = NULL;
	struct ibv_sge sge[RN * NOPS];
	unsigned char *a = h->p.a.buf.p;
	uint32_t alk = h->p.a.buf.mr->lkey;
	uint32_t rkey = h->bmr->rkey;
	unsigned int i, k, s;
	int ret;

	h->s0 = s0;
	h->n = n;
	h->seed = seed;
	memset(wr, 0, sizeof(wr));
	for (i = 0; i < n; i++) {
		s = s0 + i;
		fill(a + A_SRC(s), WLEN, seed + s);
		fill(a + A_SSRC(s), SLEN, seed + s + 1000);
		memset(a + A_DST(s), 0xee, WLEN);
		*(uint64_t *)(a + A_RES(s)) = ~0ULL;
		if (h->poll_b) {
			struct ibv_sge r = {
				(uintptr_t)slot(h, rslot(s)) + ROFF, SLEN, h->bmr->lkey,
			};

			dp_post_recv(&h->p.b, s, &r, 1);
		}
		for (k = 0; k < NOPS; k++) {
			struct ibv_send_wr *w = &wr[i * NOPS + k];
			struct ibv_sge *g = &sge[i * NOPS + k];

			w->wr_id = s * NOPS + k;
			w->sg_list = g;
			w->num_sge = 1;
			w->send_flags = IBV_SEND_SIGNALED;
			w->next = i * NOPS + k + 1 < n * NOPS ? w + 1 : NULL;
			g->lkey = alk;
			switch (k) {
			case OP_WRITE:
				*g = (struct ibv_sge){ (uintptr_t)a + A_SRC(s), WLEN, alk };
				w->opcode = IBV_WR_RDMA_WRITE;
				w->wr.rdma.remote_addr = (uintptr_t)slot(h, s);
				w->wr.rdma.rkey = rkey;
				break;
			case OP_READ:
				*g = (struct ibv_sge){ (uintptr_t)a + A_DST(s), WLEN, alk };
				w->opcode = IBV_WR_RDMA_READ;
				w->wr.rdma.remote_addr = (uintptr_t)slot(h, s);
				w->wr.rdma.rkey = rkey;
				break;
			case OP_FADD:
				*g = (struct ibv_sge){ (uintptr_t)a + A_RES(s), 8, alk };
				w->opcode = IBV_WR_ATOMIC_FETCH_AND_ADD;
				w->wr.atomic.remote_addr = (uintptr_t)slot(h, s) + AOFF;
				w->wr.atomic.rkey = rkey;
				w->wr.atomic.compare_add = 1;
				break;
			case OP_SEND:
				*g = (struct ibv_sge){ (uintptr_t)a + A_SSRC(s), SLEN, alk };
				w->opcode = IBV_WR_SEND;
				break;
			}
		}
	}
	/* B's QP and MR are not touched from here on: a racer may go. */
	if (h->go)
		atomic_store(h->go, 1);
	ret = ibv_post_send(h->p.a.qp, wr, &bad);
	CHECK(!ret, "post_send of a round: %s", strerror(ret));
}

/* May the first error of a round be @st, on @op into slot @s? */
static int error_allowed(struct ho *h, int op, unsigned int s,
			 enum ibv_wc_status st)
{
	switch (h->kind) {
	case K_MUNMAP:
		/* The SEND's receive buffer is in the lower half. */
		return atomic_load(&h->gone) && upper(s) && op != OP_SEND &&
		       st == IBV_WC_REM_ACCESS_ERR;
	case K_MPROTECT:
		if (!atomic_load(&h->ro) || op == OP_READ)
			return 0;
		/* A receive buffer it may not write: NAK remote op. error. */
		return st == IBV_WC_REM_ACCESS_ERR ||
		       (op == OP_SEND && st == IBV_WC_REM_OP_ERR);
	case K_DEREG:
		return atomic_load(&h->dereged) &&
		       (st == IBV_WC_REM_ACCESS_ERR ||
			(op == OP_SEND && st == IBV_WC_REM_OP_ERR));
	case K_DESTROY_B:
		return atomic_load(&h->destroyed) && st == IBV_WC_RETRY_EXC_ERR;
	default:
		return 0;
	}
}

/*
 * Complete the round posted: every completion, the first error explained,
 * every success checked. Returns 1 if the round ended in an error (the QPs
 * are then in the error state).
 */
static int round_finish(struct ho *h)
{
	enum ibv_wc_status st[RN * NOPS], rst[RN];
	unsigned char *a = h->p.a.buf.p;
	unsigned int i, k, s, n = h->n * NOPS;
	uint32_t rlen[RN];
	int err = -1, idx;
	struct ibv_wc wc;

	for (i = 0; i < h->n; i++)
		rst[i] = IBV_WC_GENERAL_ERR;
	for (i = 0; i < n; i++) {
		dp_poll(h->p.a.scq, &wc, DP_TIMEOUT_MS, "A's completion of a round");
		idx = (int)wc.wr_id - (int)(h->s0 * NOPS);
		CHECK(idx >= 0 && idx < (int)n, "completion of wr_id %llu, not of "
		      "this round", (unsigned long long)wc.wr_id);
		CHECK(idx == (int)i, "RC completion %u is of WR %d (out of order)",
		      i, idx);
		st[idx] = wc.status;
		if (wc.status == IBV_WC_SUCCESS) {
			CHECK(err < 0, "%s slot %u succeeded after the round's error",
			      op_name[idx % NOPS], h->s0 + idx / NOPS);
			continue;
		}
		if (err >= 0) {
			CHECK(wc.status == IBV_WC_WR_FLUSH_ERR, "%s slot %u after "
			      "the round's error: %s, want a flush",
			      op_name[idx % NOPS], h->s0 + idx / NOPS,
			      ibv_wc_status_str(wc.status));
			continue;
		}
		err = idx;
		CHECK(error_allowed(h, idx % NOPS, h->s0 + idx / NOPS, wc.status),
		      "%s into slot %u failed with %s, which nothing explains",
		      op_name[idx % NOPS], h->s0 + idx / NOPS,
		      ibv_wc_status_str(wc.status));
	}
	for (i = 0; h->poll_b && i < h->n; i++) {
		dp_poll(h->p.b.rcq, &wc, DP_TIMEOUT_MS, "B's receive of a round");
		k = wc.wr_id - h->s0;
		CHECK(k < h->n, "B's receive wr_id %llu not of this round",
		      (unsigned long long)wc.wr_id);
		rst[k] = wc.status;
		rlen[k] = wc.byte_len;
		if (wc.status != IBV_WC_SUCCESS)
			CHECK(err >= 0, "B's receive for slot %u: %s with no error "
			      "at A", h->s0 + k, ibv_wc_status_str(wc.status));
	}

	/* Every success, byte for byte where B's mapping is intact. */
	pthread_mutex_lock(&h->lock);
	for (i = 0; i < h->n; i++) {
		int ok[NOPS], intact;
		uint64_t res, word;

		s = h->s0 + i;
		for (k = 0; k < NOPS; k++) {
			ok[k] = st[i * NOPS + k] == IBV_WC_SUCCESS;
			h->ops_ok += ok[k];
		}
		intact = !(upper(s) && atomic_load(&h->gone));
		if (ok[OP_WRITE] && ok[OP_READ])
			check_data(a + A_DST(s), WLEN, h->seed + s, h->zero_ok,
				   "READ after WRITE", s);
		if (ok[OP_WRITE] && intact)
			check_data(slot(h, s), WLEN, h->seed + s, h->zero_ok,
				   "B's memory after WRITE", s);
		if (ok[OP_FADD]) {
			res = *(uint64_t *)(a + A_RES(s));
			if (!(h->zero_ok && !res))
				CHECK(res == h->cnt[s], "FETCH_ADD slot %u returned "
				      "%llu, want %llu", s, (unsigned long long)res,
				      (unsigned long long)h->cnt[s]);
			h->cnt[s] = res + 1;
			word = intact ? *(volatile uint64_t *)(slot(h, s) + AOFF) : 0;
			if (intact && !(h->zero_ok && !word))
				CHECK(word == h->cnt[s], "B's counter of slot %u: "
				      "%llu, want %llu", s, (unsigned long long)word,
				      (unsigned long long)h->cnt[s]);
		}
		if (ok[OP_SEND] && h->poll_b) {
			CHECK(rst[i] == IBV_WC_SUCCESS, "SEND slot %u succeeded, "
			      "its receive: %s", s, ibv_wc_status_str(rst[i]));
			CHECK_EQ(rlen[i], SLEN, "received bytes");
			check_data(slot(h, rslot(s)) + ROFF, SLEN, h->seed + s + 1000,
				   h->zero_ok, "SEND into B's memory", s);
		}
	}
	pthread_mutex_unlock(&h->lock);
	h->rounds++;
	if (err >= 0)
		h->errors++;
	return err >= 0;
}

/* Rounds for at least @min rounds and @ms; after an error, new QPs. */
static void traffic(struct ho *h, unsigned int min, unsigned int ms,
		    unsigned int nslots)
{
	uint64_t t0 = dp_now_ms();
	unsigned int r;

	for (r = 0; r < min || dp_now_ms() - t0 < ms; r++) {
		round_post(h, (r * RN) % nslots, RN, 0x1000 * (r + 1));
		if (round_finish(h))
			pair_renew(h);
	}
}

/* One operation on a fresh pair, expecting @want. */
static void one_op(struct ho *h, int op, unsigned int s,
		   enum ibv_wc_status want)
{
	unsigned char *a = h->p.a.buf.p;
	struct ibv_sge g = { (uintptr_t)a + A_DST(s), WLEN, h->p.a.buf.mr->lkey };
	struct ibv_send_wr w = {
		.wr_id = 99, .sg_list = &g, .num_sge = 1,
		.send_flags = IBV_SEND_SIGNALED,
		.opcode = op == OP_READ ? IBV_WR_RDMA_READ : IBV_WR_RDMA_WRITE,
	};
	struct ibv_wc wc;

	if (op == OP_WRITE)
		fill(a + A_DST(s), WLEN, 0xabc);
	w.wr.rdma.remote_addr = (uintptr_t)slot(h, s);
	w.wr.rdma.rkey = h->bmr->rkey;
	dp_post_send(&h->p.a, &w);
	dp_poll(h->p.a.scq, &wc, DP_TIMEOUT_MS, op_name[op]);
	CHECK(wc.status == want, "%s slot %u: %s, want %s", op_name[op], s,
	      ibv_wc_status_str(wc.status), ibv_wc_status_str(want));
	if (want != IBV_WC_SUCCESS)
		pair_renew(h);
}

static uint64_t now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

static void delay_us(unsigned int us)
{
	uint64_t t0 = now_us();

	/* Spin: the packets are to be in flight, not the thread asleep. */
	while (now_us() - t0 < us)
		;
}

static unsigned int rnd(unsigned int lo, unsigned int hi)
{
	return lo + (unsigned int)random() % (hi - lo + 1);
}

/* ---- the change under traffic, from another thread ----------------- */

static void *munmap_thread(void *v)
{
	struct ho *h = v;

	uint64_t t0;

	usleep(rnd(5000, 60000));
	pthread_mutex_lock(&h->lock);
	atomic_store(&h->gone, 1);
	t0 = now_us();
	if (munmap(h->reg + REGION / 2, REGION / 2))
		abort();
	atomic_store(&h->change_us, now_us() - t0);
	h->errors_at_change = h->errors;
	pthread_mutex_unlock(&h->lock);
	return NULL;
}

static void *dontneed_thread(void *v)
{
	struct ho *h = v;

	while (!atomic_load(&h->stop)) {
		madvise(h->reg, REGION, MADV_DONTNEED);
		usleep(rnd(100, 2000));
	}
	return NULL;
}

/*
 * fork; the child writes its copy of every slot (copy-on-write), checks
 * that it keeps its bytes while the parent's traffic goes on (a device
 * write that reached a page the child now owns would show), and exits.
 */
static void *fork_thread(void *v)
{
	struct ho *h = v;
	unsigned int s;
	size_t i;
	int st;

	while (!atomic_load(&h->stop) && atomic_load(&h->forks) < 6) {
		pid_t pid;

		usleep(rnd(2000, 30000));
		pid = fork();
		if (pid < 0) {
			atomic_store(&h->fork_bad, 1000);
			return NULL;
		}
		if (!pid) {
			for (s = 0; s < NSLOT; s++)
				memset(slot(h, s), 0xcc, AOFF + 8);
			usleep(30000);
			for (s = 0; s < NSLOT; s++)
				for (i = 0; i < AOFF + 8; i++)
					if (slot(h, s)[i] != 0xcc)
						_exit(1);
			_exit(0);
		}
		atomic_fetch_add(&h->forks, 1);
		if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st) ||
		    WEXITSTATUS(st))
			atomic_fetch_add(&h->fork_bad, 1);
	}
	return NULL;
}

static void *mprotect_thread(void *v)
{
	struct ho *h = v;

	uint64_t t0;

	usleep(rnd(5000, 60000));
	atomic_store(&h->ro, 1);
	t0 = now_us();
	if (mprotect(h->reg, REGION, PROT_READ))
		abort();
	atomic_store(&h->change_us, now_us() - t0);
	return NULL;
}

/*
 * seed-rules R5.3: the region changes under RC traffic from another thread
 * of the process; each case's checks are in error_allowed() and the
 * epilogue below.
 */
static void test_threaded(const struct dp_case *c)
{
	static void *(*const fn[])(void *) = {
		[K_MUNMAP] = munmap_thread, [K_DONTNEED] = dontneed_thread,
		[K_FORK] = fork_thread, [K_MPROTECT] = mprotect_thread,
	};
	unsigned char *save;
	unsigned long e0;
	struct ho h;
	pthread_t t;
	unsigned int s;
	void *q;

	srandom(getpid());
	ho_setup(&h, c->op, c->arg);
	h.zero_ok = c->op == K_DONTNEED;
	/* Slots touched once before: the change meets mapped pages. */
	traffic(&h, NSLOT / RN, 0, NSLOT);
	CHECK(!pthread_create(&t, NULL, fn[c->op], &h), "pthread_create");
	traffic(&h, 16, 1500, NSLOT);
	atomic_store(&h.stop, 1);
	pthread_join(t, NULL);

	switch (h.kind) {
	case K_MUNMAP:
		CHECK(atomic_load(&h.gone), "the munmap did not happen");
		e0 = h.errors_at_change;
		NOTE("munmap took %lu us; %lu rounds failed after it",
		     atomic_load(&h.change_us), h.errors - e0);
		CHECK(h.errors > e0, "no round met the hole");
		/* The hole: the peer's access is a remote access error. */
		one_op(&h, OP_WRITE, NSLOT - 1, IBV_WC_REM_ACCESS_ERR);
		one_op(&h, OP_READ, NSLOT / 2, IBV_WC_REM_ACCESS_ERR);
		NOTE("munmap: accesses to the hole fail with REM_ACCESS_ERR");
		/* The intact half still works, byte for byte. */
		traffic(&h, 4, 0, NSLOT / 2);
		/* New memory at the same address: accesses go there. */
		pthread_mutex_lock(&h.lock);
		q = mmap(h.reg + REGION / 2, REGION / 2, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
		CHECK(q == h.reg + REGION / 2, "mmap at the hole: %s", strerror(errno));
		madvise(q, REGION / 2, MADV_NOHUGEPAGE);
		atomic_store(&h.gone, 0);
		for (s = NSLOT / 2; s < NSLOT; s++)
			h.cnt[s] = 0;
		pthread_mutex_unlock(&h.lock);
		traffic(&h, 2 * NSLOT / RN, 0, NSLOT);
		NOTE("munmap + new mmap: the data goes to the new pages");
		break;
	case K_DONTNEED:
		/* Settled: every byte exact again. */
		h.zero_ok = 0;
		pair_renew(&h);
		traffic(&h, NSLOT / RN, 0, NSLOT);
		break;
	case K_FORK:
		CHECK(atomic_load(&h.forks) > 0, "no fork happened");
		CHECK(!atomic_load(&h.fork_bad), "%d of %d children saw their copy "
		      "change (a device write reached a page the parent no longer "
		      "maps) or failed", atomic_load(&h.fork_bad),
		      atomic_load(&h.forks));
		NOTE("%d forks, every child's copy kept", atomic_load(&h.forks));
		break;
	case K_MPROTECT:
		CHECK(atomic_load(&h.ro), "the mprotect did not happen");
		NOTE("mprotect took %lu us; %lu rounds failed", atomic_load(&h.change_us),
		     h.errors);
		CHECK(h.errors, "no round met the read-only memory");
		pair_renew(&h);
		save = malloc(WLEN);
		CHECK(save, "malloc");
		memcpy(save, slot(&h, 0), WLEN);
		one_op(&h, OP_WRITE, 0, IBV_WC_REM_ACCESS_ERR);
		CHECK(!memcmp(save, slot(&h, 0), WLEN),
		      "a WRITE that failed changed read-only memory");
		free(save);
		one_op(&h, OP_READ, 1, IBV_WC_SUCCESS);
		CHECK(!memcmp(h.p.a.buf.p + A_DST(1), slot(&h, 1), WLEN),
		      "READ of read-only memory");
		CHECK(!mprotect(h.reg, REGION, PROT_READ | PROT_WRITE), "mprotect");
		atomic_store(&h.ro, 0);
		traffic(&h, NSLOT / RN, 0, NSLOT);
		break;
	default:
		break;
	}
	ho_teardown(&h);
}

/* ---- dereg_mr / destroy_qp racing with packets in flight ------------- */

/* Another thread's verb on B, started as A posts a round. */
struct racer {
	struct ho *h;
	atomic_int go;
	unsigned int delay;
	int ret;
	uint64_t us;
};

static void *racer_thread(void *v)
{
	struct racer *r = v;
	struct ho *h = r->h;
	uint64_t t0;

	while (!atomic_load(&r->go))
		;
	delay_us(r->delay);
	t0 = now_us();
	if (h->kind == K_DEREG) {
		atomic_store(&h->dereged, 1);
		r->ret = ibv_dereg_mr(h->bmr);
	} else {
		atomic_store(&h->destroyed, 1);
		r->ret = ibv_destroy_qp(h->p.b.qp);
	}
	if (r->ret)
		r->ret = errno ? errno : r->ret;
	r->us = now_us() - t0;
	return NULL;
}

/*
 * seed-rules R3.4, R3.5, R5.3: ibv_dereg_mr of B's ODP MR or
 * ibv_destroy_qp of B's QP from another thread, a varying time after A
 * starts posting a round (its packets and B's faults in flight); or
 * ibv_destroy_qp of A's QP right after the post. The call returns at once,
 * the operations before it succeed (checked), those after fail as the
 * peer of an RNIC sees it, and the device carries on with new QPs and MRs.
 */
static void test_inline(const struct dp_case *c)
{
	unsigned long hit = 0, e0;
	uint64_t worst = 0, t0;
	struct ibv_wc wc;
	unsigned int it;
	struct racer r;
	struct ho h;
	pthread_t t;

	srandom(getpid());
	ho_setup(&h, c->op, c->arg);
	traffic(&h, NSLOT / RN, 0, NSLOT);
	for (it = 0; it < 32; it++) {
		unsigned int s0 = (it * RN) % NSLOT;

		e0 = h.errors;
		if (h.kind == K_DESTROY_A) {
			round_post(&h, s0, RN, 0x10000 + it);
			delay_us(it % 8 * 100);
			t0 = now_us();
			CHECK(!ibv_destroy_qp(h.p.a.qp), "destroy_qp of A: %s",
			      strerror(errno));
			r.us = now_us() - t0;
			h.p.a.qp = NULL;
			/* What completed before is still in A's CQ: fine. */
			while (ibv_poll_cq(h.p.a.scq, 1, &wc) > 0)
				CHECK(wc.status == IBV_WC_SUCCESS ||
				      wc.status == IBV_WC_WR_FLUSH_ERR,
				      "A's completion after its destroy: %s",
				      ibv_wc_status_str(wc.status));
			pair_renew(&h);
		} else {
			memset(&r, 0, sizeof(r));
			r.h = &h;
			r.delay = it % 8 * 200;
			CHECK(!pthread_create(&t, NULL, racer_thread, &r),
			      "pthread_create");
			h.go = &r.go;
			round_post(&h, s0, RN, 0x10000 + it);
			h.go = NULL;
			pthread_join(t, NULL);
			CHECK(!r.ret, "%s: %s", h.kind == K_DEREG ? "dereg_mr" :
			      "destroy_qp of B", strerror(r.ret));
			if (h.kind == K_DESTROY_B) {
				h.p.b.qp = NULL;
				h.poll_b = 0;
			}
			round_finish(&h);
			if (h.kind == K_DEREG) {
				/* The next round's MR is a new one. */
				h.bmr = reg_b(&h);
				atomic_store(&h.dereged, 0);
			}
			atomic_store(&h.destroyed, 0);
			pair_renew(&h);
			hit += h.errors > e0;
		}
		CHECK(r.us < VERB_MS * 1000ULL, "the verb took %llu us",
		      (unsigned long long)r.us);
		if (r.us > worst)
			worst = r.us;
		/* The device goes on: a full round, every byte checked. */
		traffic(&h, 1, 0, NSLOT);
	}
	NOTE("32 races, the verb returned within %llu us; %lu rounds cut short "
	     "by it", (unsigned long long)worst, hit);
	ho_teardown(&h);
}

/*
 * The process exits with traffic in flight on ODP memory (no verbs call
 * undoes anything): it must be gone within EXIT_MS, its device objects
 * destroyed by the kernel, and the device still usable after.
 */
static void test_exit(const struct dp_case *c)
{
	unsigned int it;
	struct ho h;

	for (it = 0; it < 4; it++) {
		uint64_t t0;
		pid_t pid;
		int st = 0;

		fflush(stdout);
		pid = fork();
		CHECK(pid >= 0, "fork");
		if (!pid) {
			ho_setup(&h, K_EXIT, c->arg);
			traffic(&h, 1, 0, NSLOT);
			round_post(&h, 0, RN, 1);
			round_post(&h, RN, RN, 2);
			if (it & 1)
				madvise(h.reg, REGION, MADV_DONTNEED);
			delay_us(it * 300);
			_exit(0);
		}
		t0 = dp_now_ms();
		while (waitpid(pid, &st, WNOHANG) == 0) {
			if (dp_now_ms() - t0 > EXIT_MS) {
				kill(pid, SIGKILL);
				FAIL("a process with ODP traffic in flight did not "
				     "exit within %d ms", EXIT_MS);
			}
			usleep(10000);
		}
		CHECK(WIFEXITED(st) && !WEXITSTATUS(st), "the process failed "
		      "before its exit (status 0x%x)", st);
		NOTE("exit %u with traffic in flight: gone after %llu ms", it,
		     (unsigned long long)(dp_now_ms() - t0));
	}
	ho_setup(&h, K_EXIT, c->arg);
	traffic(&h, NSLOT / RN, 0, NSLOT);
	ho_teardown(&h);
}

/* ---- a fault that keeps being invalidated -------------------------- */

struct storm {
	unsigned char *p;
	size_t len;
	unsigned int ms;
	atomic_int started;
	unsigned long n;
};

static void *storm_thread(void *v)
{
	struct storm *st = v;
	uint64_t t0 = dp_now_ms();

	atomic_store(&st->started, 1);
	while (dp_now_ms() - t0 < st->ms) {
		madvise(st->p, st->len, MADV_DONTNEED);
		st->n++;
	}
	return NULL;
}

/* One RDMA op of @len bytes between A's buffer at @aoff and B's slot 0. */
static enum ibv_wc_status storm_op(struct ho *h, enum ibv_wr_opcode op,
				   size_t aoff, size_t len, const char *what)
{
	unsigned char *a = h->p.a.buf.p;
	struct ibv_sge g = { (uintptr_t)a + aoff, len, h->p.a.buf.mr->lkey };
	struct ibv_send_wr w = {
		.wr_id = 1, .sg_list = &g, .num_sge = 1, .opcode = op,
		.send_flags = IBV_SEND_SIGNALED,
	};
	struct ibv_wc wc;
	uint64_t t0 = dp_now_ms();

	w.wr.rdma.remote_addr = (uintptr_t)slot(h, 0);
	w.wr.rdma.rkey = h->bmr->rkey;
	dp_post_send(&h->p.a, &w);
	dp_poll(h->p.a.scq, &wc, DP_TIMEOUT_MS, what);
	NOTE("%s during the MADV_DONTNEED storm: %s after %llu ms", what,
	     ibv_wc_status_str(wc.status), (unsigned long long)(dp_now_ms() - t0));
	return wc.status;
}

/*
 * seed-rules R5.3: MADV_DONTNEED of 128 KiB of B's region in a loop for
 * 2.5 s, as fast as a thread can, while A WRITEs there and READs it back.
 * The READ's fault of the 32 pages cannot finish while every page walk is
 * invalidated, and hmm_range_fault gives up with -EBUSY after a second;
 * the memory is mapped all along, so that is no access error: both must
 * complete successfully, with every byte the WRITE's or 0 (dropped).
 */
static void test_storm(const struct dp_case *c)
{
	const size_t len = 128 * KiB;
	struct storm st = { .len = len, .ms = 2500 };
	enum ibv_wc_status ws, rs;
	unsigned char *a;
	struct ho h;
	pthread_t t;

	ho_setup(&h, K_DONTNEED, c->arg);
	traffic(&h, NSLOT / RN, 0, NSLOT);
	st.p = slot(&h, 0);
	a = h.p.a.buf.p;
	fill(a + A_SRC(0), len, 77);
	memset(a + A_DST(0), 0xee, len);
	CHECK(!pthread_create(&t, NULL, storm_thread, &st), "pthread_create");
	while (!atomic_load(&st.started))
		;
	usleep(50000);
	ws = storm_op(&h, IBV_WR_RDMA_WRITE, A_SRC(0), len, "WRITE of 128 KiB");
	rs = IBV_WC_GENERAL_ERR;
	if (ws == IBV_WC_SUCCESS)
		rs = storm_op(&h, IBV_WR_RDMA_READ, A_DST(0), len, "READ of 128 KiB");
	pthread_join(t, NULL);
	NOTE("%lu MADV_DONTNEED calls", st.n);
	CHECK(ws == IBV_WC_SUCCESS && rs == IBV_WC_SUCCESS, "an access to "
	      "mapped memory failed (WRITE %s, READ %s) because its fault kept "
	      "being invalidated", ibv_wc_status_str(ws), ibv_wc_status_str(rs));
	check_data(a + A_DST(0), len, 77, 1, "READ during the storm", 0);
	pair_renew(&h);
	traffic(&h, NSLOT / RN, 0, NSLOT);
	ho_teardown(&h);
}

/* ---- implicit ODP children freed when their memory is unmapped ------- */

static long meminfo_kb(const char *key)
{
	char line[256];
	size_t kl = strlen(key);
	long v = -1;
	FILE *f = fopen("/proc/meminfo", "r");

	CHECK(f, "/proc/meminfo: %s", strerror(errno));
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, key, kl) && line[kl] == ':')
			v = atol(line + kl + 1);
	fclose(f);
	CHECK(v >= 0, "no %s in /proc/meminfo", key);
	return v;
}

/*
 * Give back what freed slab objects still hold: a KASAN kernel keeps them
 * in its quarantine (a 32nd of RAM, first in first out) until later frees
 * push them out, and SLUB keeps empty slabs on its partial lists, so that
 * right after a free SUnreclaim is off by megabytes, by how much depending
 * on what earlier tests freed. Shrinking a cache
 * (/sys/kernel/slab/NAME/shrink) takes its objects out of the quarantine
 * and frees its empty slabs. Each cache once: the other names of a merged
 * cache are symlinks. A kernel without that directory has nothing to do.
 */
static void slab_shrink(void)
{
	char path[PATH_MAX];
	struct dirent *de;
	struct stat st;
	DIR *d = opendir("/sys/kernel/slab");
	int fd;

	if (!d)
		return;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/sys/kernel/slab/%s", de->d_name);
		if (lstat(path, &st) || !S_ISDIR(st.st_mode))
			continue;
		strncat(path, "/shrink", sizeof(path) - strlen(path) - 1);
		fd = open(path, O_WRONLY);
		if (fd < 0)
			continue;
		CHECK(write(fd, "1", 1) == 1, "%s: %s", path, strerror(errno));
		close(fd);
	}
	closedir(d);
}

/* SUnreclaim, in kB, of the objects in use (slab_shrink()). */
static long unreclaimable_kb(void)
{
	slab_shrink();
	return meminfo_kb("SUnreclaim");
}

#define NCHILD		1024		/* 2 MiB slices touched: 2 GiB */
#define CHILD_SZ	(2 * MiB)

/*
 * An implicit MR gets one child (page arrays, an MMU notifier) per 2 MiB
 * slice it touches. A WRITE into each of 1024 slices makes 1024 children;
 * after munmap of the whole region they must be freed (kernel memory in
 * use, slab_shrink(), back to within a quarter of the growth) without
 * waiting for the MR's deregistration, and the MR still works on new
 * memory.
 */
static void test_children(const struct dp_case *c)
{
	struct ho h;
	long s0, s1, s2 = 0, raw = 0;
	unsigned char *big, *a;
	unsigned int i, j;
	uint64_t t0;
	struct ibv_wc wc;

	ho_setup(&h, K_MUNMAP, 1);
	a = h.p.a.buf.p;
	big = region_map(NCHILD * CHILD_SZ);
	usleep(200000);
	s0 = unreclaimable_kb();
	for (i = 0; i < NCHILD; i += 32) {
		for (j = i; j < i + 32; j++) {
			struct ibv_sge g = { (uintptr_t)a + (j % 32) * 64, 64,
					     h.p.a.buf.mr->lkey };
			struct ibv_send_wr w = {
				.wr_id = j, .sg_list = &g, .num_sge = 1,
				.opcode = IBV_WR_RDMA_WRITE,
				.send_flags = IBV_SEND_SIGNALED,
			};

			fill(a + (j % 32) * 64, 64, j);
			w.wr.rdma.remote_addr = (uintptr_t)big + (size_t)j * CHILD_SZ;
			w.wr.rdma.rkey = h.bmr->rkey;
			dp_post_send(&h.p.a, &w);
		}
		for (j = i; j < i + 32; j++) {
			dp_poll(h.p.a.scq, &wc, DP_TIMEOUT_MS, "WRITE into a slice");
			dp_check_wc(&wc, IBV_WC_SUCCESS, IBV_WC_RDMA_WRITE, j,
				    h.p.a.qp->qp_num, "WRITE into a slice");
		}
	}
	for (j = 0; j < NCHILD; j++)
		check_data(big + (size_t)j * CHILD_SZ, 64, j, 0, "WRITE into a slice", j);
	t0 = dp_now_ms();
	s1 = unreclaimable_kb();
	NOTE("shrinking the slab caches took %llu ms",
	     (unsigned long long)(dp_now_ms() - t0));
	NOTE("SUnreclaim %ld kB before, %ld kB with %d children", s0, s1, NCHILD);
	CHECK(s1 - s0 >= 4096, "SUnreclaim grew by only %ld kB with %d children: "
	      "this measure cannot see them", s1 - s0, NCHILD);
	CHECK(!munmap(big, NCHILD * CHILD_SZ), "munmap");
	t0 = dp_now_ms();
	while (dp_now_ms() - t0 < 10000) {
		raw = meminfo_kb("SUnreclaim");
		s2 = unreclaimable_kb();
		if ((s2 - s0) * 4 <= s1 - s0)
			break;
		usleep(100000);
	}
	NOTE("SUnreclaim %ld kB %llu ms after munmap (%ld kB before the "
	     "caches were shrunk)", s2, (unsigned long long)(dp_now_ms() - t0),
	     raw);
	CHECK((s2 - s0) * 4 <= s1 - s0, "kernel memory of the children not "
	      "freed after munmap: still %ld of %ld kB", s2 - s0, s1 - s0);
	/* The MR still works (on the case's other region). */
	traffic(&h, NSLOT / RN, 0, NSLOT);
	ho_teardown(&h);
}

/*
 * munmap and a new mmap of the upper 2 MiB of the region (one implicit
 * child) in a loop: each munmap has the child freed while the traffic
 * below looks it up, faults in it or copies under it. The windows grow
 * with SROCE_TIME_SCALE, so that a round still fits in one on a slow
 * (debug) kernel.
 */
static void *churn_thread(void *v)
{
	struct ho *h = v;
	unsigned char *up = h->reg + REGION / 2;

	while (!atomic_load(&h->stop)) {
		pthread_mutex_lock(&h->lock);
		atomic_store(&h->gone, 1);
		if (munmap(up, REGION / 2))
			abort();
		pthread_mutex_unlock(&h->lock);
		usleep(rnd(0, 1000 * dp_time_scale));
		pthread_mutex_lock(&h->lock);
		if (mmap(up, REGION / 2, PROT_READ | PROT_WRITE, MAP_PRIVATE |
			 MAP_ANONYMOUS | MAP_FIXED, -1, 0) != up)
			abort();
		madvise(up, REGION / 2, MADV_NOHUGEPAGE);
		atomic_store(&h->gone, 0);
		pthread_mutex_unlock(&h->lock);
		atomic_fetch_add(&h->forks, 1);
		usleep(rnd(0, 2000 * dp_time_scale));
	}
	return NULL;
}

/*
 * seed-rules R5.3: WRITE then READ of 8 KiB slots in the upper 2 MiB of
 * the region while it is unmapped and mapped again in a loop for 3 s
 * times SROCE_TIME_SCALE (implicit MR: one child freed per munmap, while in use). Each access
 * succeeds (the bytes read are the WRITE's, or 0 where a new mapping came
 * between them) or fails with REM_ACCESS_ERR (the hole); never anything
 * else, never a kernel report (slub_debug poisons a freed child).
 */
static void test_churn(const struct dp_case *c)
{
	struct ibv_wc wc;
	unsigned long ok = 0, holes = 0, zeros = 0;
	unsigned char *a;
	uint64_t t0;
	struct ho h;
	pthread_t t;
	unsigned int r, s, k;

	srandom(getpid());
	ho_setup(&h, K_MUNMAP, c->arg);
	CHECK(!pthread_create(&t, NULL, churn_thread, &h), "pthread_create");
	t0 = dp_now_ms();
	for (r = 0; dp_now_ms() - t0 < 3000 * (uint64_t)dp_time_scale; r++) {
		enum ibv_wc_status st[2];

		s = NSLOT / 2 + r % (NSLOT / 2);
		a = h.p.a.buf.p;
		fill(a + A_SRC(s), WLEN, 900 + r);
		memset(a + A_DST(s), 0xee, WLEN);
		for (k = 0; k < 2; k++) {
			struct ibv_sge g = { (uintptr_t)a + (k ? A_DST(s) : A_SRC(s)),
					     WLEN, h.p.a.buf.mr->lkey };
			struct ibv_send_wr w = {
				.wr_id = k, .sg_list = &g, .num_sge = 1,
				.opcode = k ? IBV_WR_RDMA_READ : IBV_WR_RDMA_WRITE,
				.send_flags = IBV_SEND_SIGNALED,
			};

			w.wr.rdma.remote_addr = (uintptr_t)slot(&h, s);
			w.wr.rdma.rkey = h.bmr->rkey;
			dp_post_send(&h.p.a, &w);
		}
		for (k = 0; k < 2; k++) {
			dp_poll(h.p.a.scq, &wc, DP_TIMEOUT_MS, "churn round");
			CHECK_EQ(wc.wr_id, k, "completion order");
			st[k] = wc.status;
		}
		if (st[0] == IBV_WC_SUCCESS && st[1] == IBV_WC_SUCCESS) {
			size_t i;

			for (i = 0; i < WLEN; i++)
				zeros += !a[A_DST(s) + i];
			check_data(a + A_DST(s), WLEN, 900 + r, 1,
				   "READ after WRITE under munmap/mmap", s);
			ok++;
			continue;
		}
		CHECK(st[0] == IBV_WC_REM_ACCESS_ERR ||
		      (st[0] == IBV_WC_SUCCESS && st[1] == IBV_WC_REM_ACCESS_ERR),
		      "WRITE %s, READ %s: only a hole explains an error",
		      ibv_wc_status_str(st[0]), ibv_wc_status_str(st[1]));
		CHECK(st[0] != IBV_WC_REM_ACCESS_ERR || st[1] == IBV_WC_WR_FLUSH_ERR,
		      "READ after the failed WRITE: %s", ibv_wc_status_str(st[1]));
		holes++;
		dp_pair_destroy(&h.p);
		pair_make(&h);
	}
	atomic_store(&h.stop, 1);
	pthread_join(t, NULL);
	NOTE("%u rounds over %d munmap+mmap cycles: %lu succeeded (%lu bytes "
	     "read as 0), %lu met the hole", r, atomic_load(&h.forks), ok,
	     zeros, holes);
	CHECK(ok && atomic_load(&h.forks) > 10, "the churn did not overlap "
	      "the traffic");
	ho_teardown(&h);
}

/* ---- a fault that userfaultfd would block ---------------------------- */

struct verb_arg {
	int (*fn)(void *obj);
	void *obj;
	int ret;
	atomic_int done;
};

static void *verb_thread(void *v)
{
	struct verb_arg *a = v;

	a->ret = a->fn(a->obj);
	atomic_store(&a->done, 1);
	return NULL;
}

static int do_err(void *qp)
{
	struct ibv_qp_attr at = { .qp_state = IBV_QPS_ERR };

	return ibv_modify_qp(qp, &at, IBV_QP_STATE);
}

static int do_destroy_qp(void *qp) { return ibv_destroy_qp(qp); }
static int do_dereg(void *mr) { return ibv_dereg_mr(mr); }

/* @fn(@obj) must return within EXIT_MS; a hang is reported, not waited. */
static void verb_bounded(int (*fn)(void *), void *obj, const char *what)
{
	struct verb_arg a = { .fn = fn, .obj = obj };
	uint64_t t0 = dp_now_ms();
	pthread_t t;

	CHECK(!pthread_create(&t, NULL, verb_thread, &a), "pthread_create");
	while (!atomic_load(&a.done) && dp_now_ms() - t0 < EXIT_MS)
		usleep(10000);
	CHECK(atomic_load(&a.done), "%s did not return within %d ms (blocked "
	      "behind a fault userfaultfd holds)", what, EXIT_MS);
	pthread_join(t, NULL);
	CHECK(!a.ret, "%s: %s", what, strerror(a.ret));
	NOTE("%s returned in %llu ms", what, (unsigned long long)(dp_now_ms() - t0));
}

/*
 * B's region is registered with userfaultfd (missing pages) and nothing
 * answers. hmm_range_fault faults without FAULT_FLAG_ALLOW_RETRY, for
 * which userfaultfd gives SIGBUS instead of waiting: the peer's WRITE and
 * READ into untouched pages fail with a remote access error at once, and
 * modify_qp to ERR, destroy_qp and dereg_mr return. A fault that waited
 * for ever instead would hang all three: they are timed in threads.
 */
static void test_uffd(const struct dp_case *c)
{
	struct uffdio_api api = { .api = UFFD_API };
	struct uffdio_register ur = { 0 };
	uint64_t t0;
	struct ho h;
	int fd;

	ho_setup(&h, K_MUNMAP, c->arg);
	h.no_cpu = 1;
	fd = syscall(SYS_userfaultfd, O_CLOEXEC | O_NONBLOCK);
	if (fd < 0 && errno == ENOSYS)
		dp_skip("this kernel has no userfaultfd (CONFIG_USERFAULTFD)");
	CHECK(fd >= 0, "userfaultfd: %s", strerror(errno));
	CHECK(!ioctl(fd, UFFDIO_API, &api), "UFFDIO_API: %s", strerror(errno));
	ur.range.start = (uintptr_t)h.reg;
	ur.range.len = REGION;
	ur.mode = UFFDIO_REGISTER_MODE_MISSING;
	CHECK(!ioctl(fd, UFFDIO_REGISTER, &ur), "UFFDIO_REGISTER: %s",
	      strerror(errno));
	t0 = dp_now_ms();
	one_op(&h, OP_WRITE, 3, IBV_WC_REM_ACCESS_ERR);
	one_op(&h, OP_READ, 5, IBV_WC_REM_ACCESS_ERR);
	NOTE("WRITE and READ into userfaultfd pages: REM_ACCESS_ERR in %llu ms",
	     (unsigned long long)(dp_now_ms() - t0));
	/* A fault in flight when the QPs go: READs of many untouched pages. */
	round_post(&h, 8, RN, 5);
	verb_bounded(do_err, h.p.b.qp, "modify_qp of B to ERR");
	verb_bounded(do_destroy_qp, h.p.b.qp, "destroy_qp of B");
	h.p.b.qp = NULL;
	verb_bounded(do_dereg, h.bmr, "dereg_mr of B's MR");
	h.bmr = NULL;
	close(fd);
	ho_teardown(&h);
}

/* ---- a fault that a stopped FUSE daemon holds ---------------------- */

#define FUSE_FILE_LEN	(1 * MiB)

static unsigned char fuse_byte(uint64_t off)
{
	return (unsigned char)(off * 7 + 3);
}

/* A verb in a thread created beforehand, run when go is set. */
struct gated {
	int (*fn)(void *obj);
	void *obj;
	atomic_int go, done;
	int ret;
	uint64_t ms;
	pid_t tid;
};

static void *gated_thread(void *v)
{
	struct gated *g = v;
	uint64_t t0;

	g->tid = syscall(SYS_gettid);
	while (!atomic_load(&g->go))
		usleep(1000);
	if (atomic_load(&g->go) < 0)
		return NULL;
	t0 = dp_now_ms();
	g->ret = g->fn(g->obj);
	if (g->ret && errno)
		g->ret = errno;
	g->ms = dp_now_ms() - t0;
	atomic_store(&g->done, 1);
	return NULL;
}

/* Start @g; returns whether it was done within @ms. */
static int gated_run(struct gated *g, unsigned int ms)
{
	uint64_t t0 = dp_now_ms();

	atomic_store(&g->go, 1);
	while (!atomic_load(&g->done) && dp_now_ms() - t0 < ms)
		usleep(10000);
	return atomic_load(&g->done);
}

/*
 * The system call thread @tid is in (/proc/self/task/TID/syscall), or -1
 * if it is in none. Allocates nothing: while a fault holds the process's
 * mmap_lock, an allocation that needs mmap or brk would wait too.
 */
static long thread_syscall(pid_t tid)
{
	char path[64], buf[64];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/self/task/%d/syscall", (int)tid);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0 || buf[0] < '0' || buf[0] > '9')
		return -1;
	buf[n] = 0;
	return strtol(buf, NULL, 10);
}

static int do_query_qp(void *qp)
{
	struct ibv_qp_init_attr init;
	struct ibv_qp_attr at;

	return ibv_query_qp(qp, &at, IBV_QP_STATE, &init);
}

static int do_mmap(void *unused)
{
	void *p = mmap(NULL, PG, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		return errno;
	return munmap(p, PG);
}

/* test_fuse()'s verbs, in this order. */
enum { FV_QUERY, FV_ERR, FV_DESTROY, FV_DEREG, FV_MMAP, FV_N };

/*
 * B's ODP MR over a file of a FUSE daemon, which is then stopped
 * (SIGSTOP) while a READ from A makes B fault on a page the daemon has not
 * served: the fault (B's QP work item meets it: inline_engines=0) waits
 * in FUSE's request, in hmm_range_fault, which holds the process's
 * mmap_lock for reading meanwhile. Each verb below is given 2 s, in a
 * thread made beforehand (making one needs mmap). Required while the
 * daemon is stopped (finding 8): query_qp and modify_qp to ERR of B
 * return, and destroy_qp of B gets out of the kernel's destroy (its
 * provider then munmaps B's rings, which waits for mmap_lock, as every
 * mmap of the process does: reported, as is dereg_mr of the MR, which
 * waits for the fault, as on mlx5). Required once the daemon goes on
 * (SIGCONT): all of them return within 10 s, and nothing is left in D
 * state.
 */
static void test_fuse(const struct dp_case *c)
{
	struct fuse_file ff = {
		.name = "sroce_fuse", .len = FUSE_FILE_LEN, .byte = fuse_byte,
		.max_readahead = 128 * KiB,
	};
	static const char *const what[FV_N] = {
		"query_qp of B", "modify_qp of B to ERR", "destroy_qp of B",
		"dereg_mr of B's MR", "mmap+munmap of the process",
	};
	struct gated g[FV_N];
	unsigned char *fp, *a;
	int i, done[FV_N];
	long destroy_sc = -1;
	struct ibv_mr *mr;
	struct ibv_wc wc;
	pthread_t t[FV_N];
	uint64_t t0;
	size_t k;
	struct ho h;

	ho_setup(&h, K_MUNMAP, c->arg);
	fuse_file_start(&ff);
	fp = ff.map;
	if (c->arg)
		mr = h.bmr;
	else
		CHECK(mr = ibv_reg_mr(h.d[1].pd, fp, FUSE_FILE_LEN, ODP_ACCESS),
		      "reg_mr ODP over the FUSE file: %s", strerror(errno));
	a = h.p.a.buf.p;
	memset(g, 0, sizeof(g));
	g[FV_QUERY].fn = do_query_qp;
	g[FV_QUERY].obj = h.p.b.qp;
	g[FV_ERR].fn = do_err;
	g[FV_ERR].obj = h.p.b.qp;
	g[FV_DESTROY].fn = do_destroy_qp;
	g[FV_DESTROY].obj = h.p.b.qp;
	g[FV_DEREG].fn = do_dereg;
	g[FV_DEREG].obj = mr;
	g[FV_MMAP].fn = do_mmap;
	for (i = 0; i < FV_N; i++)
		CHECK(!pthread_create(&t[i], NULL, gated_thread, &g[i]),
		      "pthread_create");

	/* The daemon answering: a READ of the file's first page. */
	{
		struct ibv_sge sg = { (uintptr_t)a + A_DST(0), PG,
				      h.p.a.buf.mr->lkey };
		struct ibv_send_wr w = {
			.wr_id = 1, .sg_list = &sg, .num_sge = 1,
			.opcode = IBV_WR_RDMA_READ, .send_flags = IBV_SEND_SIGNALED,
		};

		w.wr.rdma.remote_addr = (uintptr_t)fp;
		w.wr.rdma.rkey = mr->rkey;
		dp_post_send(&h.p.a, &w);
		dp_poll(h.p.a.scq, &wc, DP_TIMEOUT_MS, "READ of the FUSE file");
		dp_check_wc(&wc, IBV_WC_SUCCESS, IBV_WC_RDMA_READ, 1,
			    h.p.a.qp->qp_num, "READ of the FUSE file");
		for (k = 0; k < PG; k++)
			CHECK(a[A_DST(0) + k] == fuse_byte(k), "FUSE byte %zu", k);

		/* Stopped: the READ of a page not yet served waits. */
		/*
		 * In the work item, not in this thread's post_send (which
		 * would resolve the fault of its own process's QP itself).
		 */
		dp_param_set("inline_engines", "N");
		CHECK(!kill(ff.daemon, SIGSTOP), "SIGSTOP");
		usleep(100000);
		w.wr_id = 2;
		w.wr.rdma.remote_addr = (uintptr_t)fp + FUSE_FILE_LEN / 2;
		sg.addr = (uintptr_t)a + A_DST(1);
		dp_post_send(&h.p.a, &w);
	}
	dp_expect_none(h.p.a.scq, 1000, "READ whose fault the stopped daemon holds");
	NOTE("READ of a page the stopped daemon holds: no completion after 1 s");

	/*
	 * Each gets 2 s. One that waits is left waiting, and the QP verbs
	 * after it are not tried (destroy_qp would get EBUSY while another
	 * verb is in the QP); the mmap is tried in any case.
	 */
	for (i = 0; i < FV_N; i++) {
		if (i != FV_MMAP && i && !done[i - 1]) {
			done[i] = 0;
			NOTE("daemon stopped: %s not tried (the one before waits)",
			     what[i]);
			continue;
		}
		done[i] = gated_run(&g[i], 2000);
		if (i == FV_DESTROY && !done[i])
			destroy_sc = thread_syscall(g[i].tid);
		NOTE("daemon stopped: %s %s", what[i], done[i] ? "returned" :
		     i == FV_DESTROY && destroy_sc == SYS_munmap ?
		     "got out of the kernel's destroy; munmap of its rings waits for mmap_lock" :
		     "still waiting after 2 s");
	}

	/* Go on before any check fails: the process's exit would wait too. */
	CHECK(!kill(ff.daemon, SIGCONT), "SIGCONT");
	CHECK(done[FV_QUERY], "query_qp of B waited for a fault on memory the process controls");
	CHECK(done[FV_ERR], "modify_qp of B waited for a fault on memory the process controls");
	CHECK(done[FV_DESTROY] || destroy_sc == SYS_munmap,
	      "destroy_qp of B waited in the kernel (system call %ld) for a fault on memory the process controls",
	      destroy_sc);
	t0 = dp_now_ms();
	for (i = 0; i < FV_N; i++) {
		atomic_store(&g[i].go, 1);
		while (!atomic_load(&g[i].done) && dp_now_ms() - t0 < EXIT_MS)
			usleep(10000);
		CHECK(atomic_load(&g[i].done), "%s did not return within %d ms "
		      "of the daemon going on", what[i], EXIT_MS);
		pthread_join(t[i], NULL);
		CHECK(!g[i].ret, "%s: %s", what[i], strerror(g[i].ret));
	}
	NOTE("daemon going on: all returned within %llu ms",
	     (unsigned long long)(dp_now_ms() - t0));
	h.p.b.qp = NULL;
	if (c->arg)
		h.bmr = NULL;
	dp_poll(h.p.a.scq, &wc, DP_TIMEOUT_MS, "A's READ after B went");
	NOTE("A's READ: %s", ibv_wc_status_str(wc.status));
	fuse_file_stop(&ff);
	ho_teardown(&h);
}

/*
 * A WRITE from A into B's ODP page of a FUSE file whose daemon is stopped
 * for far longer than A's ACK timeouts allow (K_SLOW_FAULT). A sends the
 * WRITE again when its timer runs out; B, still waiting on the fault,
 * answers that copy with an RNR NAK (odp_fault_rnr_nak), and A waits on
 * its rnr_retry (7: for ever), not on retry_cnt. Once the daemon goes on,
 * the WRITE completes and its bytes are in the page (R5.2, R2.2, R2.4),
 * as on mlx5, whose responder answers a page fault with an RNR NAK.
 */
static void test_fuse_slow(const struct dp_case *c)
{
	struct fuse_file ff = {
		.name = "sroce_fuse", .len = FUSE_FILE_LEN, .byte = fuse_byte,
		.max_readahead = 128 * KiB,
	};
	const size_t off = FUSE_FILE_LEN / 2, len = 256;
	uint64_t naks, rnr0, exc0, t0, stop_ms = 2000 * dp_time_scale;
	unsigned char *fp, *a;
	int n;
	struct ibv_mr *mr;
	struct ibv_wc wc;
	size_t k;
	struct ho h;

	ho_setup(&h, K_SLOW_FAULT, 0);
	fuse_file_start(&ff);
	fp = ff.map;
	CHECK(mr = ibv_reg_mr(h.d[1].pd, fp, FUSE_FILE_LEN, ODP_ACCESS),
	      "reg_mr ODP over the FUSE file: %s", strerror(errno));
	a = h.p.a.buf.p + A_DST(0);
	for (k = 0; k < len; k++)
		a[k] = dp_pat(k, 77);
	/* B's work item meets the fault: no post_send sleeps on it. */
	dp_param_set("inline_engines", "N");
	rnr0 = dp_counter(&h.d[1], "odp_fault_rnr_nak");
	exc0 = dp_counter(&h.d[0], "retry_exceeded");
	CHECK(!kill(ff.daemon, SIGSTOP), "SIGSTOP");
	usleep(100000);
	{
		struct ibv_sge sg = { (uintptr_t)a, len, h.p.a.buf.mr->lkey };
		struct ibv_send_wr w = {
			.wr_id = 1, .sg_list = &sg, .num_sge = 1,
			.opcode = IBV_WR_RDMA_WRITE, .send_flags = IBV_SEND_SIGNALED,
		};

		w.wr.rdma.remote_addr = (uintptr_t)fp + off;
		w.wr.rdma.rkey = mr->rkey;
		dp_post_send(&h.p.a, &w);
	}
	/* Nothing may fail before the daemon goes on: exit would wait too. */
	t0 = dp_now_ms();
	while (!(n = ibv_poll_cq(h.p.a.scq, 1, &wc)) && dp_now_ms() - t0 < stop_ms)
		usleep(1000);
	naks = dp_counter(&h.d[1], "odp_fault_rnr_nak") - rnr0;
	CHECK(!kill(ff.daemon, SIGCONT), "SIGCONT");
	CHECK(n == 0, "A's WRITE completed (%s) while the daemon was stopped, "
	      "after %llu ms; B sent %llu RNR NAKs", n > 0 ?
	      ibv_wc_status_str(wc.status) : "poll_cq failed",
	      (unsigned long long)(dp_now_ms() - t0), (unsigned long long)naks);
	NOTE("daemon stopped %llu ms: no completion; B sent %llu RNR NAKs for the held WRITE",
	     (unsigned long long)stop_ms, (unsigned long long)naks);
	CHECK(naks >= 1, "B sent no RNR NAK while A's WRITE waited on its fault");
	dp_poll(h.p.a.scq, &wc, DP_TIMEOUT_MS, "WRITE after the daemon went on");
	dp_check_wc(&wc, IBV_WC_SUCCESS, IBV_WC_RDMA_WRITE, 1,
		    h.p.a.qp->qp_num, "WRITE held by a slow fault");
	CHECK(dp_counter(&h.d[0], "retry_exceeded") == exc0,
	      "A's transport retries ran out");
	for (k = 0; k < len; k++)
		CHECK(fp[off + k] == dp_pat(k, 77), "byte %zu of the WRITE", k);
	CHECK(!ibv_dereg_mr(mr), "dereg the FUSE file's MR: %s", strerror(errno));
	fuse_file_stop(&ff);
	ho_teardown(&h);
}

static const struct dp_case cases[] = {
	{ "munmap_explicit", test_threaded, IBV_QPT_RC, 4, K_MUNMAP, 0 },
	{ "munmap_implicit", test_threaded, IBV_QPT_RC, 4, K_MUNMAP, 1 },
	{ "dontneed_explicit", test_threaded, IBV_QPT_RC, 4, K_DONTNEED, 0 },
	{ "dontneed_implicit", test_threaded, IBV_QPT_RC, 4, K_DONTNEED, 1 },
	{ "dontneed_storm_explicit", test_storm, IBV_QPT_RC, 4, 0, 0 },
	{ "dontneed_storm_implicit", test_storm, IBV_QPT_RC, 4, 0, 1 },
	{ "fork_cow_explicit", test_threaded, IBV_QPT_RC, 4, K_FORK, 0 },
	{ "fork_cow_implicit", test_threaded, IBV_QPT_RC, 4, K_FORK, 1 },
	{ "mprotect_explicit", test_threaded, IBV_QPT_RC, 4, K_MPROTECT, 0 },
	{ "mprotect_implicit", test_threaded, IBV_QPT_RC, 4, K_MPROTECT, 1 },
	{ "dereg_explicit", test_inline, IBV_QPT_RC, 4, K_DEREG, 0 },
	{ "dereg_implicit", test_inline, IBV_QPT_RC, 4, K_DEREG, 1 },
	{ "destroy_qp_b_explicit", test_inline, IBV_QPT_RC, 4, K_DESTROY_B, 0 },
	{ "destroy_qp_b_implicit", test_inline, IBV_QPT_RC, 4, K_DESTROY_B, 1 },
	{ "destroy_qp_a_explicit", test_inline, IBV_QPT_RC, 4, K_DESTROY_A, 0 },
	{ "destroy_qp_a_implicit", test_inline, IBV_QPT_RC, 4, K_DESTROY_A, 1 },
	{ "exit_explicit", test_exit, IBV_QPT_RC, 4, K_EXIT, 0 },
	{ "exit_implicit", test_exit, IBV_QPT_RC, 4, K_EXIT, 1 },
	{ "munmap_churn_explicit", test_churn, IBV_QPT_RC, 4, 0, 0 },
	{ "munmap_churn_implicit", test_churn, IBV_QPT_RC, 4, 0, 1 },
	{ "implicit_children_freed", test_children, IBV_QPT_RC, 4, 0, 1 },
	{ "uffd_explicit", test_uffd, IBV_QPT_RC, 4, 0, 0 },
	{ "uffd_implicit", test_uffd, IBV_QPT_RC, 4, 0, 1 },
	{ "fuse_stopped_explicit", test_fuse, IBV_QPT_RC, 4, 0, 0 },
	{ "fuse_stopped_implicit", test_fuse, IBV_QPT_RC, 4, 0, 1 },
	{ "fuse_slow_write_explicit", test_fuse_slow, IBV_QPT_RC, 4, 0, 0 },
};

int main(int argc, char **argv)
{
	return dp_main(argc, argv, cases, ARRAY_SIZE(cases));
}
