// SPDX-License-Identifier: GPL-2.0-only
/*
 * doorbell: no posted WR is ever stranded in the SQ. libsroce skips the
 * post_send system call while the kernel's engines run the QP
 * (engines_active in the SQ ring header, Documentation/abi.md); a race
 * lost between user space publishing a WQE and the kernel going idle
 * would leave that WQE unsent until some later doorbell: a hang. Here
 * several threads post bursts to ONE QP at once, staggered, so that some
 * posts land while another thread's doorbell runs the engines; then every
 * thread waits until all WRs of the round completed before anyone posts
 * again, so a stranded WQE is rescued by no later doorbell and shows as a
 * stall. Every WR must complete, in order per thread, within seconds.
 * The race window (a post between the requester's last read of prod and
 * the kernel clearing engines_active) is short: this test did not catch a
 * kernel with the re-check removed in two runs under TCG; it is a stress
 * test of the handshake, not a proof of it (see Documentation/abi.md). seed-rules R3.2 (every signalled WR completes).
 */
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <unistd.h>
#include "dp.h"

#define DB_THREADS	4
#define DB_BURSTS	150	/* per thread */
#define DB_MAX_BURST	4
#define DB_STALL_MS	10000	/* a thread's WRs not all done by then: lost */
#define DB_WORD_OFF	4096	/* FAA: the remote word in B's buffer */

struct db_thread {
	struct dp_pair *p;
	int id;
	int op;			/* IBV_WR_RDMA_WRITE or IBV_WR_ATOMIC_FETCH_AND_ADD */
	unsigned int seed;
	unsigned int posted;
	atomic_uint done;	/* completions seen by the poller */
	atomic_uint next_seq;	/* the seq the next completion must carry */
	char err[160];
};

static atomic_int db_stop;
static atomic_int db_failed;
static pthread_barrier_t db_round;	/* all posted; all completed */

static int db_post(struct db_thread *t, unsigned int seq, int signaled)
{
	struct dp_pair *p = t->p;
	uint64_t *res = (uint64_t *)p->a.buf.p + t->id * 2048 + seq % 2048;
	uint64_t val = ((uint64_t)t->id << 32) | seq;
	struct ibv_sge sge;
	struct ibv_send_wr wr = {
		.wr_id = val, .sg_list = &sge, .num_sge = 1, .opcode = t->op,
		.send_flags = signaled ? IBV_SEND_SIGNALED : 0,
	}, *bad;

	if (t->op == IBV_WR_RDMA_WRITE) {
		/* Inline 8 B: the thread's last seq lands in its remote word. */
		sge = (struct ibv_sge){ (uintptr_t)&val, 8, 0 };
		wr.send_flags |= IBV_SEND_INLINE;
		wr.wr.rdma.remote_addr = (uintptr_t)p->b.buf.p + 8 * t->id;
		wr.wr.rdma.rkey = p->b.buf.mr->rkey;
	} else {
		sge = (struct ibv_sge){ (uintptr_t)res, 8, p->a.buf.mr->lkey };
		wr.wr.atomic.remote_addr = (uintptr_t)p->b.buf.p + DB_WORD_OFF;
		wr.wr.atomic.rkey = p->b.buf.mr->rkey;
		wr.wr.atomic.compare_add = 1;
	}
	return ibv_post_send(p->a.qp, &wr, &bad);
}

static void *db_poster(void *arg)
{
	struct db_thread *t = arg;
	unsigned int b, i, n;

	for (b = 0; b < DB_BURSTS; b++) {
		uint64_t t0;

		/* Nobody posts until every WR of the last round completed. */
		pthread_barrier_wait(&db_round);
		if (atomic_load(&db_failed))
			continue;	/* keep the barrier count, post nothing */
		/* Stagger the threads so posts land at any point of a run. */
		if (rand_r(&t->seed) % 2)
			usleep(rand_r(&t->seed) % 100);
		n = 1 + rand_r(&t->seed) % DB_MAX_BURST;
		for (i = 0; i < n; i++) {
			if (db_post(t, t->posted, 1)) {
				snprintf(t->err, sizeof(t->err), "post_send %u failed",
					 t->posted);
				atomic_store(&db_failed, 1);
				break;
			}
			t->posted++;
		}
		/*
		 * Wait for the whole burst. Nobody posts again before the next
		 * round, so nothing rescues a stranded WQE: it shows as a stall.
		 */
		t0 = dp_now_ms();
		while (atomic_load(&t->done) != t->posted &&
		       !atomic_load(&db_failed)) {
			if (dp_now_ms() - t0 > DB_STALL_MS) {
				snprintf(t->err, sizeof(t->err),
					 "burst %u: %u of %u WRs completed after %d ms (lost doorbell?)",
					 b, atomic_load(&t->done), t->posted, DB_STALL_MS);
				atomic_store(&db_failed, 1);
				break;
			}
			sched_yield();
		}
	}
	return NULL;
}

/* The only CQ poller: hands each completion to its thread, in order. */
struct db_poller {
	struct dp_pair *p;
	struct db_thread *th;
	char err[160];
};

static void *db_poll(void *arg)
{
	struct db_poller *pl = arg;
	struct db_thread *th = pl->th;
	struct ibv_wc wc[16];
	int n, k;

	while (!atomic_load(&db_stop)) {
		n = ibv_poll_cq(pl->p->a.scq, 16, wc);
		if (n < 0) {
			snprintf(pl->err, sizeof(pl->err), "poll_cq failed");
			atomic_store(&db_failed, 1);
			return NULL;
		}
		for (k = 0; k < n; k++) {
			unsigned int id = wc[k].wr_id >> 32, seq = (uint32_t)wc[k].wr_id;

			if (wc[k].status != IBV_WC_SUCCESS || id >= DB_THREADS ||
			    seq != atomic_load(&th[id].next_seq)) {
				snprintf(pl->err, sizeof(pl->err),
					 "completion wr_id 0x%llx status %s (thread %u expects seq %u)",
					 (unsigned long long)wc[k].wr_id,
					 ibv_wc_status_str(wc[k].status), id,
					 id < DB_THREADS ? atomic_load(&th[id].next_seq) : 0);
				atomic_store(&db_failed, 1);
				return NULL;
			}
			atomic_store(&th[id].next_seq, seq + 1);
			atomic_fetch_add(&th[id].done, 1);
		}
		if (!n)
			sched_yield();
	}
	return NULL;
}

static void test_threads(const struct dp_case *c)
{
	struct dp_cfg cfg = {
		.type = IBV_QPT_RC, .buf_len = 128 * KiB, .max_inline = 8,
		.max_send_wr = DB_THREADS * DB_MAX_BURST,
	};
	static struct db_thread th[DB_THREADS];
	struct db_poller pl;
	pthread_t tid[DB_THREADS], ptid;
	struct dp_dev d[2];
	struct dp_pair p;
	uint64_t total = 0, *remote;
	int i;

	dp_setup(&p, d, c->fam, &cfg);
	if (c->op == IBV_WR_ATOMIC_FETCH_AND_ADD &&
	    d[0].attr.orig_attr.atomic_cap == IBV_ATOMIC_NONE)
		dp_skip("device reports atomic_cap NONE");
	remote = (uint64_t *)p.b.buf.p;
	memset(remote, 0, DB_WORD_OFF + 8);
	atomic_store(&db_stop, 0);
	atomic_store(&db_failed, 0);
	pl = (struct db_poller){ .p = &p, .th = th };
	for (i = 0; i < DB_THREADS; i++)
		th[i] = (struct db_thread){ .p = &p, .id = i, .op = c->op,
					    .seed = 7919u * (i + 1) };
	CHECK(!pthread_barrier_init(&db_round, NULL, DB_THREADS), "pthread_barrier_init");
	CHECK(!pthread_create(&ptid, NULL, db_poll, &pl), "pthread_create");
	for (i = 0; i < DB_THREADS; i++)
		CHECK(!pthread_create(&tid[i], NULL, db_poster, &th[i]), "pthread_create");
	for (i = 0; i < DB_THREADS; i++)
		pthread_join(tid[i], NULL);
	atomic_store(&db_stop, 1);
	pthread_join(ptid, NULL);
	pthread_barrier_destroy(&db_round);
	CHECK(!pl.err[0], "%s", pl.err);
	for (i = 0; i < DB_THREADS; i++) {
		CHECK(!th[i].err[0], "thread %d: %s", i, th[i].err);
		CHECK_EQ(atomic_load(&th[i].done), th[i].posted, "completions of a thread");
		total += th[i].posted;
		if (c->op == IBV_WR_RDMA_WRITE)
			CHECK_EQ(remote[i], ((uint64_t)i << 32) | (th[i].posted - 1),
				 "a thread's remote word after its last WRITE");
	}
	if (c->op == IBV_WR_ATOMIC_FETCH_AND_ADD)
		CHECK_EQ(remote[DB_WORD_OFF / 8], total, "the word all FETCH_AND_ADDs hit");
	NOTE("%d threads, one QP: %llu WRs posted in bursts of 1-%d, all completed",
	     DB_THREADS, (unsigned long long)total, DB_MAX_BURST);
	dp_teardown(&p, d);
}

/*
 * Receive handoff: a process that posts again right after each doorbell returns,
 * without taking a completion in between (here bursts of unsignalled 8 B
 * WRITEs, the last signalled), streams; the receive work its system calls
 * would do for B is handed to a worker (B's rx_handoffs). A READ
 * ping-pong takes each completion before it posts again: nothing is
 * handed off. Every WRITE lands
 * (B's word holds the last value), every READ reads.
 */
#define HO_ROUNDS	40
#define HO_BURST	16

static void test_rx_handoff(const struct dp_case *c)
{
	struct dp_cfg cfg = {
		.type = IBV_QPT_RC, .max_inline = 8, .max_send_wr = HO_BURST,
	};
	uint64_t *word, val, h0[2], h[2];
	struct ibv_send_wr wr;
	struct ibv_sge sge;
	struct dp_dev d[2];
	struct dp_pair p;
	struct ibv_wc wc;
	int r, i;

	dp_setup(&p, d, 4, &cfg);
	word = (uint64_t *)p.b.buf.p;
	*word = 0;
	h0[0] = dp_counter(&d[0], "rx_handoffs");
	h0[1] = dp_counter(&d[1], "rx_handoffs");
	for (r = 0; r < HO_ROUNDS; r++) {
		for (i = 0; i < HO_BURST; i++) {
			val = (uint64_t)r * HO_BURST + i + 1;
			wr = (struct ibv_send_wr){ .wr_id = val, .sg_list = &sge,
						   .num_sge = 1 };
			if (c->op == IBV_WR_RDMA_READ) {
				*word = val;
				sge = (struct ibv_sge){ (uintptr_t)p.a.buf.p, 8,
							p.a.buf.mr->lkey };
				wr.opcode = IBV_WR_RDMA_READ;
				wr.send_flags = IBV_SEND_SIGNALED;
			} else {
				sge = (struct ibv_sge){ (uintptr_t)&val, 8, 0 };
				wr.opcode = IBV_WR_RDMA_WRITE;
				wr.send_flags = IBV_SEND_INLINE |
					(i == HO_BURST - 1 ? IBV_SEND_SIGNALED : 0);
			}
			wr.wr.rdma.remote_addr = (uintptr_t)p.b.buf.p;
			wr.wr.rdma.rkey = p.b.buf.mr->rkey;
			dp_post_send(&p.a, &wr);
			if (c->op != IBV_WR_RDMA_READ)
				continue;
			dp_poll(p.a.scq, &wc, DP_TIMEOUT_MS, "READ");
			dp_check_wc(&wc, IBV_WC_SUCCESS, IBV_WC_RDMA_READ, val,
				    p.a.qp->qp_num, "READ");
			CHECK_EQ(*(uint64_t *)p.a.buf.p, val, "the word READ");
		}
		if (c->op == IBV_WR_RDMA_READ)
			continue;
		dp_poll(p.a.scq, &wc, DP_TIMEOUT_MS, "a burst's last WRITE");
		dp_check_wc(&wc, IBV_WC_SUCCESS, IBV_WC_RDMA_WRITE, val,
			    p.a.qp->qp_num, "WRITE");
		CHECK_EQ(*(volatile uint64_t *)word, val, "B's word after a burst");
	}
	h[0] = dp_counter(&d[0], "rx_handoffs") - h0[0];
	h[1] = dp_counter(&d[1], "rx_handoffs") - h0[1];
	NOTE("%s: rx_handoffs A %llu, B %llu", c->op ==
	     IBV_WR_RDMA_READ ? "READ ping-pong" : "bursts of WRITEs",
	     (unsigned long long)h[0], (unsigned long long)h[1]);
	if (c->arg == 1)
		CHECK(h[1] > 0, "a streaming poster's receive work was never handed off");
	else
		CHECK_EQ(h[0] + h[1], 0, "receive work handed off");
	dp_teardown(&p, d);
}

static const struct dp_case cases[] = {
	{ "RC_WRITE_threads_one_qp_v4", test_threads, IBV_QPT_RC, 4, IBV_WR_RDMA_WRITE },
	{ "RC_FETCH_AND_ADD_threads_one_qp_v4", test_threads, IBV_QPT_RC, 4,
	  IBV_WR_ATOMIC_FETCH_AND_ADD },
	{ "RC_WRITE_stream_rx_handoff_v4", test_rx_handoff, IBV_QPT_RC, 4,
	  IBV_WR_RDMA_WRITE, 1 },
	{ "RC_READ_pingpong_no_rx_handoff_v4", test_rx_handoff, IBV_QPT_RC, 4,
	  IBV_WR_RDMA_READ, 0 },
};

int main(int argc, char **argv)
{
	return dp_main(argc, argv, cases, ARRAY_SIZE(cases));
}
