// SPDX-License-Identifier: GPL-2.0-only
/*
 * odp: on-demand paging MRs (seed-rules R5.3), explicit and implicit, on
 * both ends of RC and UD connections, with the shared data-path harness
 * (selftests/datapath/dp.h): end A is the requester, end B the responder.
 *
 * Every ODP buffer is fresh anonymous memory (mmap), never touched by the
 * CPU before the operation unless the case says so, so each operation
 * faults on the side that reaches it: A gathering (SEND, WRITE) or
 * scattering (READ response, ATOMIC result), B scattering (receive, WRITE)
 * or reading (READ, ATOMIC). Every byte is checked.
 *
 * Invalidation cases change the mapping under a hot MR (munmap and a new
 * mmap at the same address, MADV_DONTNEED, fork + copy-on-write, mprotect)
 * and check that no byte goes to or comes from the old page.
 *
 * Counters (odp_faults, odp_pages_faulted, odp_invalidations,
 * odp_prefetch, odp_fault_deferred) are read from sysfs hw_counters.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "../datapath/dp.h"
#include "../reliability/rel.h"

#define PG 4096UL
#define ODP_ACCESS (IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | \
		    IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC | \
		    IBV_ACCESS_ON_DEMAND)
/* A length over several pages and MTUs, not page aligned. */
#define XLEN (3 * PG + 123)
#define XOFF 100

static unsigned char *fresh(size_t len)
{
	void *p = mmap(NULL, len, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	CHECK(p != MAP_FAILED, "mmap %zu: %s", len, strerror(errno));
	return p;
}

static struct ibv_mr *odp_mr(struct dp_dev *d, void *p, size_t len, int access)
{
	struct ibv_mr *mr = ibv_reg_mr(d->pd, p, len, access | IBV_ACCESS_ON_DEMAND);

	CHECK(mr, "reg_mr ODP %zu bytes on %s: %s", len, d->name, strerror(errno));
	return mr;
}

static struct ibv_mr *implicit_mr(struct dp_dev *d)
{
	struct ibv_mr *mr = ibv_reg_mr(d->pd, NULL, SIZE_MAX, ODP_ACCESS);

	CHECK(mr, "reg_mr implicit ODP on %s: %s", d->name, strerror(errno));
	return mr;
}

static void fill(unsigned char *p, size_t len, uint32_t seed)
{
	size_t i;

	for (i = 0; i < len; i++)
		p[i] = dp_pat(i, seed);
}

static void rdma(struct dp_pair *p, enum ibv_wr_opcode op, uint64_t wr_id,
		 void *local, uint32_t lkey, size_t len, void *remote,
		 uint32_t rkey, enum ibv_wc_status want)
{
	struct ibv_sge sge = { (uintptr_t)local, len, lkey };
	struct ibv_send_wr wr = {
		.wr_id = wr_id, .sg_list = &sge, .num_sge = 1, .opcode = op,
		.send_flags = IBV_SEND_SIGNALED,
	};
	struct ibv_wc wc;

	wr.wr.rdma.remote_addr = (uintptr_t)remote;
	wr.wr.rdma.rkey = rkey;
	dp_post_send(&p->a, &wr);
	dp_poll(p->a.scq, &wc, DP_TIMEOUT_MS, op == IBV_WR_RDMA_READ ? "READ" : "WRITE");
	dp_check_wc(&wc, want, op == IBV_WR_RDMA_READ ? IBV_WC_RDMA_READ :
		    IBV_WC_RDMA_WRITE, wr_id, p->a.qp->qp_num,
		    op == IBV_WR_RDMA_READ ? "READ" : "WRITE");
}

static uint64_t atomic_op(struct dp_pair *p, enum ibv_wr_opcode op,
			  uint64_t *result, uint32_t lkey, uint64_t *remote,
			  uint32_t rkey, uint64_t cmp_add, uint64_t swap)
{
	struct ibv_sge sge = { (uintptr_t)result, 8, lkey };
	struct ibv_send_wr wr = {
		.wr_id = 7, .sg_list = &sge, .num_sge = 1, .opcode = op,
		.send_flags = IBV_SEND_SIGNALED,
	};
	struct ibv_wc wc;

	wr.wr.atomic.remote_addr = (uintptr_t)remote;
	wr.wr.atomic.rkey = rkey;
	wr.wr.atomic.compare_add = cmp_add;
	wr.wr.atomic.swap = swap;
	dp_post_send(&p->a, &wr);
	dp_poll(p->a.scq, &wc, DP_TIMEOUT_MS, "ATOMIC");
	dp_check_wc(&wc, IBV_WC_SUCCESS, op == IBV_WR_ATOMIC_CMP_AND_SWP ?
		    IBV_WC_COMP_SWAP : IBV_WC_FETCH_ADD, 7, p->a.qp->qp_num, "ATOMIC");
	return *result;
}

/* A's and B's ODP buffers for one case: explicit MRs or implicit ones. */
struct odp_bufs {
	unsigned char *a, *b;
	size_t len;
	struct ibv_mr *amr, *bmr;
};

static void bufs_make(struct odp_bufs *o, struct dp_pair *p, size_t len,
		      int implicit)
{
	o->len = len;
	o->a = fresh(len);
	o->b = fresh(len);
	if (implicit) {
		o->amr = implicit_mr(p->a.dev);
		o->bmr = implicit_mr(p->b.dev);
	} else {
		o->amr = odp_mr(p->a.dev, o->a, len, ODP_ACCESS);
		o->bmr = odp_mr(p->b.dev, o->b, len, ODP_ACCESS);
	}
}

static void bufs_free(struct odp_bufs *o)
{
	CHECK(!ibv_dereg_mr(o->amr), "dereg A");
	CHECK(!ibv_dereg_mr(o->bmr), "dereg B");
	munmap(o->a, o->len);
	munmap(o->b, o->len);
}

/* seed-rules R5.3: odp_caps say what is implemented, per transport. */
static void test_caps(const struct dp_case *c)
{
	const uint32_t rc = IBV_ODP_SUPPORT_SEND | IBV_ODP_SUPPORT_RECV |
			    IBV_ODP_SUPPORT_WRITE | IBV_ODP_SUPPORT_READ |
			    IBV_ODP_SUPPORT_ATOMIC | IBV_ODP_SUPPORT_SRQ_RECV;
	const uint32_t ud = IBV_ODP_SUPPORT_SEND | IBV_ODP_SUPPORT_RECV |
			    IBV_ODP_SUPPORT_SRQ_RECV;
	struct dp_dev d;

	dp_open(&d, 0, 4);
	CHECK_EQ(d.attr.odp_caps.general_caps,
		 IBV_ODP_SUPPORT | IBV_ODP_SUPPORT_IMPLICIT, "odp general_caps");
	CHECK_EQ(d.attr.odp_caps.per_transport_caps.rc_odp_caps, rc, "rc_odp_caps");
	CHECK_EQ(d.attr.odp_caps.per_transport_caps.ud_odp_caps, ud, "ud_odp_caps");
	CHECK_EQ(d.attr.odp_caps.per_transport_caps.uc_odp_caps,
		 rc & ~(IBV_ODP_SUPPORT_READ | IBV_ODP_SUPPORT_ATOMIC), "uc_odp_caps");
	/* XRC: every operation RC has (rdma-core's test_odp_xrc_traffic) */
	CHECK_EQ(d.attr.xrc_odp_caps, rc, "xrc_odp_caps");
	dp_close(&d);
}

/*
 * seed-rules R5.2: SEND/RECV, WRITE, READ, CMP_AND_SWP and FETCH_AND_ADD
 * with ODP memory on both ends, every access a first touch (a fault).
 */
static void test_ops(const struct dp_case *c)
{
	struct dp_cfg cfg = { .type = IBV_QPT_RC };
	uint64_t fa0, fb0, pa0, pb0, ub0, *word, *res;
	struct dp_dev d[2];
	struct odp_bufs o;
	struct dp_pair p;
	struct ibv_sge sge;
	struct ibv_wc wc;

	dp_setup(&p, d, 4, &cfg);
	fa0 = dp_counter(&d[0], "odp_faults");
	fb0 = dp_counter(&d[1], "odp_faults");
	pa0 = dp_counter(&d[0], "odp_pages_faulted");
	pb0 = dp_counter(&d[1], "odp_pages_faulted");
	ub0 = dp_counter(&d[1], "resp_unsplits");
	bufs_make(&o, &p, 16 * PG, c->arg);

	/*
	 * SEND: A's source is written by the CPU (so its pages exist) but not
	 * yet mapped for the device; B's receive buffer is untouched.
	 */
	fill(o.a + XOFF, XLEN, 1);
	sge = (struct ibv_sge){ (uintptr_t)o.b + XOFF, XLEN, o.bmr->lkey };
	dp_post_recv(&p.b, 11, &sge, 1);
	sge = (struct ibv_sge){ (uintptr_t)o.a + XOFF, XLEN, o.amr->lkey };
	{
		struct ibv_send_wr wr = {
			.wr_id = 12, .sg_list = &sge, .num_sge = 1,
			.opcode = IBV_WR_SEND, .send_flags = IBV_SEND_SIGNALED,
		};
		dp_post_send(&p.a, &wr);
	}
	dp_poll(p.a.scq, &wc, DP_TIMEOUT_MS, "SEND");
	dp_check_wc(&wc, IBV_WC_SUCCESS, IBV_WC_SEND, 12, p.a.qp->qp_num, "SEND");
	dp_poll(p.b.rcq, &wc, DP_TIMEOUT_MS, "RECV");
	dp_check_wc(&wc, IBV_WC_SUCCESS, IBV_WC_RECV, 11, p.b.qp->qp_num, "RECV");
	CHECK_EQ(wc.byte_len, XLEN, "RECV byte_len");
	dp_check_range(o.b + XOFF, XLEN, 1, "SEND into B's ODP receive buffer");

	/* WRITE from A's page 4.. into B's untouched pages 4.. */
	fill(o.a + 4 * PG + XOFF, XLEN, 2);
	rdma(&p, IBV_WR_RDMA_WRITE, 13, o.a + 4 * PG + XOFF, o.amr->lkey, XLEN,
	     o.b + 4 * PG + XOFF, o.bmr->rkey, IBV_WC_SUCCESS);
	dp_check_range(o.b + 4 * PG + XOFF, XLEN, 2, "WRITE into B's ODP MR");

	/* READ B's pages 8.. (written by B's CPU) into A's untouched pages 8.. */
	fill(o.b + 8 * PG + XOFF, XLEN, 3);
	rdma(&p, IBV_WR_RDMA_READ, 14, o.a + 8 * PG + XOFF, o.amr->lkey, XLEN,
	     o.b + 8 * PG + XOFF, o.bmr->rkey, IBV_WC_SUCCESS);
	dp_check_range(o.a + 8 * PG + XOFF, XLEN, 3, "READ into A's ODP MR");

	/* ATOMICs on B's untouched page 12, results into A's untouched page 13. */
	word = (uint64_t *)(o.b + 12 * PG + 64);
	res = (uint64_t *)(o.a + 13 * PG + 8);
	CHECK_EQ(atomic_op(&p, IBV_WR_ATOMIC_FETCH_AND_ADD, res, o.amr->lkey, word,
			   o.bmr->rkey, 5, 0), 0, "FETCH_AND_ADD on a fresh page");
	CHECK_EQ(*word, 5, "word after FETCH_AND_ADD");
	res = (uint64_t *)(o.a + 14 * PG + 16);
	CHECK_EQ(atomic_op(&p, IBV_WR_ATOMIC_CMP_AND_SWP, res, o.amr->lkey, word,
			   o.bmr->rkey, 5, 0x1122334455667788ULL), 5, "CMP_AND_SWP");
	CHECK_EQ(*word, 0x1122334455667788ULL, "word after CMP_AND_SWP");

	/* Both sides faulted, and counted it (seed-rules R5.3). */
	CHECK(dp_counter(&d[0], "odp_faults") > fa0, "A's odp_faults did not move");
	CHECK(dp_counter(&d[1], "odp_faults") > fb0, "B's odp_faults did not move");
	CHECK(dp_counter(&d[0], "odp_pages_faulted") >= pa0 + 4 + 4 + 2,
	      "A's odp_pages_faulted moved by less than the pages touched");
	CHECK(dp_counter(&d[1], "odp_pages_faulted") >= pb0 + 4 + 4 + 4 + 1,
	      "B's odp_pages_faulted moved by less than the pages touched");
	/*
	 * B's responder met its first fault on the SEND: from then on its
	 * QP's engines have one owner, whose fault hand-back served the rest
	 * (Documentation/design.md, "The responder has an owner of its own").
	 */
	CHECK_EQ(dp_counter(&d[1], "resp_unsplits") - ub0, 1,
		 "B's QP joined its responder to its send side once");
	NOTE("A faults %llu pages %llu, B faults %llu pages %llu",
	     (unsigned long long)(dp_counter(&d[0], "odp_faults") - fa0),
	     (unsigned long long)(dp_counter(&d[0], "odp_pages_faulted") - pa0),
	     (unsigned long long)(dp_counter(&d[1], "odp_faults") - fb0),
	     (unsigned long long)(dp_counter(&d[1], "odp_pages_faulted") - pb0));
	bufs_free(&o);
	dp_teardown(&p, d);
}

/* seed-rules R5.2: UD SEND/RECV with ODP buffers on both ends. */
static void test_ud(const struct dp_case *c)
{
	struct dp_cfg cfg = { .type = IBV_QPT_UD };
	struct dp_dev d[2];
	struct odp_bufs o;
	struct dp_pair p;
	struct ibv_sge sge;
	struct ibv_wc wc;
	size_t len;

	dp_setup(&p, d, 4, &cfg);
	len = p.mtu - 100;
	bufs_make(&o, &p, 4 * PG, c->arg);
	fill(o.a + PG - 50, len, 4);	/* across a page boundary */
	sge = (struct ibv_sge){ (uintptr_t)o.b + 2 * PG - 20, DP_GRH + len, o.bmr->lkey };
	dp_post_recv(&p.b, 21, &sge, 1);
	{
		struct ibv_sge s = { (uintptr_t)o.a + PG - 50, len, o.amr->lkey };
		struct dp_sgl sl = { .n = 1, .len = len };

		sl.sge[0] = s;
		dp_send_wr(&p, IBV_WR_SEND, 22, &sl, IBV_SEND_SIGNALED, 0, 0, 0);
	}
	dp_poll(p.a.scq, &wc, DP_TIMEOUT_MS, "UD SEND");
	dp_check_wc(&wc, IBV_WC_SUCCESS, IBV_WC_SEND, 22, p.a.qp->qp_num, "UD SEND");
	dp_poll(p.b.rcq, &wc, DP_TIMEOUT_MS, "UD RECV");
	dp_check_wc(&wc, IBV_WC_SUCCESS, IBV_WC_RECV, 21, p.b.qp->qp_num, "UD RECV");
	CHECK_EQ(wc.byte_len, DP_GRH + len, "UD RECV byte_len");
	dp_check_range(o.b + 2 * PG - 20 + DP_GRH, len, 4, "UD SEND into an ODP buffer");

	/*
	 * Again with the GRH in page 2, now mapped, and the payload in the
	 * untouched page 3: a fault in the receive softirq after the GRH is
	 * placed must not shift the payload when the work item scatters the
	 * datagram again.
	 */
	fill(o.a + PG - 50, len, 5);
	sge = (struct ibv_sge){ (uintptr_t)o.b + 3 * PG - DP_GRH - 8, DP_GRH + len,
				o.bmr->lkey };
	dp_post_recv(&p.b, 23, &sge, 1);
	{
		struct ibv_sge s = { (uintptr_t)o.a + PG - 50, len, o.amr->lkey };
		struct dp_sgl sl = { .n = 1, .len = len };

		sl.sge[0] = s;
		dp_send_wr(&p, IBV_WR_SEND, 24, &sl, IBV_SEND_SIGNALED, 0, 0, 0);
	}
	dp_poll(p.a.scq, &wc, DP_TIMEOUT_MS, "UD SEND");
	dp_check_wc(&wc, IBV_WC_SUCCESS, IBV_WC_SEND, 24, p.a.qp->qp_num, "UD SEND");
	dp_poll(p.b.rcq, &wc, DP_TIMEOUT_MS, "UD RECV");
	dp_check_wc(&wc, IBV_WC_SUCCESS, IBV_WC_RECV, 23, p.b.qp->qp_num, "UD RECV");
	CHECK_EQ(wc.byte_len, DP_GRH + len, "UD RECV byte_len");
	dp_check_range(o.b + 3 * PG - 8, len, 5, "UD payload into a fresh page");
	bufs_free(&o);
	dp_teardown(&p, d);
}

/* An RC pair with explicit ODP MRs on fresh buffers (invalidation cases). */
static void inv_setup(struct dp_pair *p, struct dp_dev d[2], struct odp_bufs *o,
		      size_t len)
{
	struct dp_cfg cfg = { .type = IBV_QPT_RC };

	dp_setup(p, d, 4, &cfg);
	bufs_make(o, p, len, 0);
}

/*
 * seed-rules R5.3: munmap the hot region and map new memory at the same
 * address: READ returns the new bytes, WRITE lands in the new pages.
 */
static void test_munmap(const struct dp_case *c)
{
	const size_t len = 4 * PG;
	uint64_t inv0;
	struct dp_dev d[2];
	struct odp_bufs o;
	struct dp_pair p;
	int i;

	inv_setup(&p, d, &o, len);
	inv0 = dp_counter(&d[1], "odp_invalidations");
	for (i = 0; i < 8; i++) {
		void *q;

		fill(o.b, len, 100 + i);
		memset(o.a, 0, len);
		rdma(&p, IBV_WR_RDMA_READ, i, o.a, o.amr->lkey, len, o.b,
		     o.bmr->rkey, IBV_WC_SUCCESS);
		dp_check_range(o.a, len, 100 + i, "READ after munmap + mmap");
		fill(o.a, len, 200 + i);
		rdma(&p, IBV_WR_RDMA_WRITE, i, o.a, o.amr->lkey, len, o.b,
		     o.bmr->rkey, IBV_WC_SUCCESS);
		dp_check_range(o.b, len, 200 + i, "WRITE after munmap + mmap");
		CHECK(!munmap(o.b, len), "munmap");
		q = mmap(o.b, len, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
		CHECK(q == o.b, "mmap at the same address: %s", strerror(errno));
	}
	CHECK(dp_counter(&d[1], "odp_invalidations") >= inv0 + 8,
	      "odp_invalidations moved by less than the 8 munmaps");
	bufs_free(&o);
	dp_teardown(&p, d);
}

/* seed-rules R5.3: MADV_DONTNEED drops the pages: READ sees zeros. */
static void test_dontneed(const struct dp_case *c)
{
	const size_t len = 4 * PG;
	struct dp_dev d[2];
	struct odp_bufs o;
	struct dp_pair p;
	int i;

	inv_setup(&p, d, &o, len);
	for (i = 0; i < 8; i++) {
		fill(o.b, len, 300 + i);
		rdma(&p, IBV_WR_RDMA_READ, i, o.a, o.amr->lkey, len, o.b,
		     o.bmr->rkey, IBV_WC_SUCCESS);
		dp_check_range(o.a, len, 300 + i, "READ before MADV_DONTNEED");
		CHECK(!madvise(o.b, len, MADV_DONTNEED), "madvise");
		memset(o.a, 0xee, len);
		rdma(&p, IBV_WR_RDMA_READ, i, o.a, o.amr->lkey, len, o.b,
		     o.bmr->rkey, IBV_WC_SUCCESS);
		dp_check_fill(o.a, len, 0, "READ after MADV_DONTNEED (zero pages)");
		/* And A's pages: drop them, then READ into them. */
		CHECK(!madvise(o.a, len, MADV_DONTNEED), "madvise A");
		fill(o.b, len, 400 + i);
		rdma(&p, IBV_WR_RDMA_READ, i, o.a, o.amr->lkey, len, o.b,
		     o.bmr->rkey, IBV_WC_SUCCESS);
		dp_check_range(o.a, len, 400 + i, "READ into pages dropped by MADV_DONTNEED");
	}
	bufs_free(&o);
	dp_teardown(&p, d);
}

/*
 * seed-rules R5.3: fork makes B's pages copy-on-write. The parent's CPU
 * writes break COW; the device must then read the parent's new page, and
 * a remote WRITE must land in the parent's page, never in the child's.
 */
static void test_fork(const struct dp_case *c)
{
	const size_t len = 4 * PG;
	int go[2], st;
	struct dp_dev d[2];
	struct odp_bufs o;
	struct dp_pair p;
	pid_t pid;
	char x;

	inv_setup(&p, d, &o, len);
	fill(o.b, len, 500);
	rdma(&p, IBV_WR_RDMA_READ, 1, o.a, o.amr->lkey, len, o.b, o.bmr->rkey,
	     IBV_WC_SUCCESS);
	dp_check_range(o.a, len, 500, "READ before fork");
	CHECK(!pipe(go), "pipe");
	pid = fork();
	CHECK(pid >= 0, "fork");
	if (pid == 0) {
		/* The child's copy must keep the bytes of the fork. */
		close(go[1]);
		if (read(go[0], &x, 1) != 1)
			_exit(2);
		for (size_t i = 0; i < len; i++)
			if (o.b[i] != dp_pat(i, 500))
				_exit(1);
		_exit(0);
	}
	close(go[0]);
	/* Parent writes the first half: COW gives it new pages. */
	fill(o.b, 2 * PG, 501);
	rdma(&p, IBV_WR_RDMA_READ, 2, o.a, o.amr->lkey, 2 * PG, o.b, o.bmr->rkey,
	     IBV_WC_SUCCESS);
	dp_check_range(o.a, 2 * PG, 501, "READ after the parent's COW write");
	/* Remote WRITE into the second half, still shared with the child. */
	fill(o.a + 2 * PG, 2 * PG, 502);
	rdma(&p, IBV_WR_RDMA_WRITE, 3, o.a + 2 * PG, o.amr->lkey, 2 * PG,
	     o.b + 2 * PG, o.bmr->rkey, IBV_WC_SUCCESS);
	dp_check_range(o.b + 2 * PG, 2 * PG, 502,
		       "parent's memory after a remote WRITE after fork");
	CHECK(write(go[1], "x", 1) == 1, "pipe write");
	CHECK(waitpid(pid, &st, 0) == pid, "waitpid");
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0,
	      "the child's copy changed (a device write went to a shared page)");
	bufs_free(&o);
	dp_teardown(&p, d);
}

/*
 * seed-rules R5.3: mprotect(PROT_READ) on B's region: READ still works, a
 * remote WRITE fails with a remote access error and changes nothing.
 */
static void test_mprotect(const struct dp_case *c)
{
	const size_t len = 4 * PG;
	struct dp_dev d[2];
	struct odp_bufs o;
	struct dp_pair p;

	inv_setup(&p, d, &o, len);
	fill(o.b, len, 600);
	fill(o.a, len, 601);
	rdma(&p, IBV_WR_RDMA_WRITE, 1, o.a, o.amr->lkey, PG, o.b, o.bmr->rkey,
	     IBV_WC_SUCCESS);	/* B's page 0 is now mapped writable */
	CHECK(!mprotect(o.b, len, PROT_READ), "mprotect");
	rdma(&p, IBV_WR_RDMA_READ, 2, o.a + PG, o.amr->lkey, PG, o.b + PG,
	     o.bmr->rkey, IBV_WC_SUCCESS);
	CHECK(!memcmp(o.a + PG, o.b + PG, PG), "READ of read-only memory");
	rdma(&p, IBV_WR_RDMA_WRITE, 3, o.a + 2 * PG, o.amr->lkey, 64, o.b,
	     o.bmr->rkey, IBV_WC_REM_ACCESS_ERR);
	/* Still the first WRITE's bytes: the failed one changed nothing. */
	CHECK(!memcmp(o.b, o.a, PG), "read-only page 0 changed by a failed WRITE");
	CHECK(!mprotect(o.b, len, PROT_READ | PROT_WRITE), "mprotect back");
	bufs_free(&o);
	dp_teardown(&p, d);
}

/*
 * seed-rules R5.3: an access to a hole in an ODP MR (unmapped after
 * registration) fails at once with an access error, on either side, not
 * with lost packets and a transport timeout.
 */
static void test_hole(const struct dp_case *c)
{
	static const enum ibv_wr_opcode ops[] = {
		IBV_WR_RDMA_READ, IBV_WR_RDMA_WRITE, IBV_WR_SEND,
	};
	const size_t len = 4 * PG;
	struct dp_cfg cfg = { .type = IBV_QPT_RC };
	uint64_t t0, tmo0;
	struct dp_dev d[2];
	struct odp_bufs o;
	struct dp_pair p;
	unsigned int i;

	dp_setup(&p, d, 4, &cfg);
	bufs_make(&o, &p, len, c->arg);
	fill(o.a, len, 1000);
	CHECK(!munmap(o.b + 2 * PG, PG), "munmap B's page 2");
	tmo0 = dp_counter(&d[0], "ack_timer_expired");
	for (i = 0; i < ARRAY_SIZE(ops); i++) {
		enum ibv_wc_status want = IBV_WC_REM_ACCESS_ERR;
		struct ibv_sge sge = { (uintptr_t)o.a, len, o.amr->lkey };
		struct ibv_send_wr wr = {
			.wr_id = i, .sg_list = &sge, .num_sge = 1, .opcode = ops[i],
			.send_flags = IBV_SEND_SIGNALED,
		};
		struct ibv_wc wc;

		if (i)
			dp_pair_create(&p, &d[0], &d[1], &cfg);
		if (ops[i] == IBV_WR_SEND) {
			/* A gathers from its own hole: a local protection error. */
			CHECK(!munmap(o.a + PG, PG), "munmap A's page 1");
			want = IBV_WC_LOC_PROT_ERR;
		}
		wr.wr.rdma.remote_addr = (uintptr_t)o.b;
		wr.wr.rdma.rkey = o.bmr->rkey;
		t0 = dp_now_ms();
		dp_post_send(&p.a, &wr);
		dp_poll(p.a.scq, &wc, DP_TIMEOUT_MS, "access to a hole");
		CHECK_EQ(wc.status, want, "status of an access to a hole");
		NOTE("opcode %d into a hole: %s after %llu ms", ops[i],
		     ibv_wc_status_str(wc.status),
		     (unsigned long long)(dp_now_ms() - t0));
		dp_pair_destroy(&p);
	}
	CHECK_EQ(dp_counter(&d[0], "ack_timer_expired"), tmo0,
		 "A's ACK timer expiries (a fault must not become a timeout)");
	CHECK(!ibv_dereg_mr(o.amr) && !ibv_dereg_mr(o.bmr), "dereg");
	dp_close(&d[1]);
	dp_close(&d[0]);
}

/* Invalidations racing with traffic: MADV_DONTNEED from another thread. */
static atomic_int race_stop;
static struct odp_bufs *race_o;

static void *race_thread(void *arg)
{
	while (!atomic_load(&race_stop)) {
		madvise(race_o->b, race_o->len, MADV_DONTNEED);
		usleep(200);
	}
	return NULL;
}

/*
 * seed-rules R5.3: while pages are dropped under it, each READ returns for
 * every byte either what the last WRITE put there or zero (a dropped
 * page), never an older WRITE's byte from a stale page.
 */
static void test_race(const struct dp_case *c)
{
	const size_t len = 8 * PG;
	unsigned char *got;
	struct dp_dev d[2];
	struct odp_bufs o;
	struct dp_pair p;
	pthread_t t;
	size_t i, zero = 0;
	int k;

	inv_setup(&p, d, &o, len);
	got = fresh(len);
	race_o = &o;
	CHECK(!pthread_create(&t, NULL, race_thread, NULL), "pthread_create");
	for (k = 0; k < 40; k++) {
		fill(o.a, len, 700 + k);
		rdma(&p, IBV_WR_RDMA_WRITE, k, o.a, o.amr->lkey, len, o.b,
		     o.bmr->rkey, IBV_WC_SUCCESS);
		memset(o.a, 0xee, len);
		rdma(&p, IBV_WR_RDMA_READ, k, o.a, o.amr->lkey, len, o.b,
		     o.bmr->rkey, IBV_WC_SUCCESS);
		memcpy(got, o.a, len);
		for (i = 0; i < len; i++) {
			if (got[i] == dp_pat(i, 700 + k))
				continue;
			CHECK(got[i] == 0, "round %d byte %zu: 0x%02x, neither the "
			      "last WRITE's 0x%02x nor 0 (stale page)", k, i,
			      got[i], dp_pat(i, 700 + k));
			zero++;
		}
	}
	atomic_store(&race_stop, 1);
	pthread_join(t, NULL);
	NOTE("40 WRITE+READ rounds of %zu bytes, %zu bytes seen dropped", len, zero);
	bufs_free(&o);
	dp_teardown(&p, d);
}

/*
 * seed-rules R5.3: the fault state lives with the MR: once one QP has
 * faulted a page in, another QP reading it causes no fault.
 */
static void test_shared(const struct dp_case *c)
{
	struct dp_cfg cfg = { .type = IBV_QPT_RC };
	struct dp_pair p2;
	struct dp_dev d[2];
	struct odp_bufs o;
	struct dp_pair p;
	unsigned char *dst;
	struct ibv_mr *dmr;
	uint64_t f0;

	dp_setup(&p, d, 4, &cfg);
	dp_pair_create(&p2, &d[0], &d[1], &cfg);
	bufs_make(&o, &p, 4 * PG, 0);
	fill(o.b, 4 * PG, 800);
	rdma(&p, IBV_WR_RDMA_READ, 1, o.a, o.amr->lkey, 4 * PG, o.b, o.bmr->rkey,
	     IBV_WC_SUCCESS);
	f0 = dp_counter(&d[1], "odp_faults");
	/* Into a pinned MR on A: only B's side could fault. */
	dst = p2.a.buf.p;
	dmr = p2.a.buf.mr;
	rdma(&p2, IBV_WR_RDMA_READ, 2, dst, dmr->lkey, 4 * PG, o.b, o.bmr->rkey,
	     IBV_WC_SUCCESS);
	dp_check_range(dst, 4 * PG, 800, "READ by the second QP");
	CHECK_EQ(dp_counter(&d[1], "odp_faults"), f0,
		 "B's faults when a second QP read pages the first faulted in");
	bufs_free(&o);
	dp_pair_destroy(&p2);
	dp_teardown(&p, d);
}

/*
 * One round of the deferred-fault case: WRITE, SEND and two ATOMICs into
 * B's untouched pages (page 4 * round on), checked byte by byte. Returns
 * how far B's odp_fault_deferred moved.
 */
static uint64_t deferred_round(struct dp_pair *p, struct dp_dev d[2],
			       struct odp_bufs *o, int round)
{
	size_t base = (size_t)round * 4 * PG;
	uint64_t b0 = dp_counter(&d[1], "odp_fault_deferred");
	uint64_t *word = (uint64_t *)(o->b + base + 3 * PG + 64);
	uint64_t *res = (uint64_t *)(p->a.buf.p);
	struct ibv_sge sge;
	struct ibv_wc wc;

	/* A's side is pinned (the harness buffer): only B can fault. */
	fill(p->a.buf.p, 2 * PG, 900 + round);
	rdma(p, IBV_WR_RDMA_WRITE, 1, p->a.buf.p, p->a.buf.mr->lkey, 2 * PG,
	     o->b + base, o->bmr->rkey, IBV_WC_SUCCESS);
	dp_check_range(o->b + base, 2 * PG, 900 + round, "deferred WRITE");

	sge = (struct ibv_sge){ (uintptr_t)o->b + base + 2 * PG, PG, o->bmr->lkey };
	dp_post_recv(&p->b, 2, &sge, 1);
	fill(p->a.buf.p, PG, 910 + round);
	sge = (struct ibv_sge){ (uintptr_t)p->a.buf.p, PG, p->a.buf.mr->lkey };
	{
		struct ibv_send_wr wr = {
			.wr_id = 3, .sg_list = &sge, .num_sge = 1,
			.opcode = IBV_WR_SEND, .send_flags = IBV_SEND_SIGNALED,
		};
		dp_post_send(&p->a, &wr);
	}
	dp_poll(p->a.scq, &wc, DP_TIMEOUT_MS, "SEND");
	dp_check_wc(&wc, IBV_WC_SUCCESS, IBV_WC_SEND, 3, p->a.qp->qp_num, "SEND");
	dp_poll(p->b.rcq, &wc, DP_TIMEOUT_MS, "RECV");
	dp_check_wc(&wc, IBV_WC_SUCCESS, IBV_WC_RECV, 2, p->b.qp->qp_num, "RECV");
	dp_check_range(o->b + base + 2 * PG, PG, 910 + round, "deferred RECV");

	/* Executed exactly once each, though the first one was deferred. */
	CHECK_EQ(atomic_op(p, IBV_WR_ATOMIC_FETCH_AND_ADD, res, p->a.buf.mr->lkey,
			   word, o->bmr->rkey, 5, 0), 0, "deferred FETCH_AND_ADD");
	CHECK_EQ(atomic_op(p, IBV_WR_ATOMIC_FETCH_AND_ADD, res, p->a.buf.mr->lkey,
			   word, o->bmr->rkey, 7, 0), 5, "FETCH_AND_ADD after it");
	CHECK_EQ(*word, 12, "word after two FETCH_AND_ADDs");
	return dp_counter(&d[1], "odp_fault_deferred") - b0;
}

/*
 * seed-rules R5.3: the engines use mapped ODP pages in the receive softirq;
 * a fault there (a WRITE, RECV or ATOMIC into B's untouched pages) is
 * deferred to process context, which faults and finishes the operation
 * with every byte right and each ATOMIC executed once: the doorbell caller
 * whose system call ran that softirq (B's odp_fault_in_doorbell) or the
 * QP's work item. With inline_engines=0 the engines never run in softirq:
 * nothing is deferred.
 */
static void test_deferred(const struct dp_case *c)
{
	struct dp_cfg cfg = { .type = IBV_QPT_RC };
	uint64_t on, off, db0, db_on;
	struct dp_dev d[2];
	struct odp_bufs o;
	struct dp_pair p;

	dp_setup(&p, d, 4, &cfg);
	bufs_make(&o, &p, 8 * PG, c->arg);
	db0 = dp_counter(&d[1], "odp_fault_in_doorbell");
	on = deferred_round(&p, d, &o, 0);
	db_on = dp_counter(&d[1], "odp_fault_in_doorbell") - db0;
	dp_param_set("inline_engines", "N");
	off = deferred_round(&p, d, &o, 1);
	dp_param_set("inline_engines", "Y");
	NOTE("B deferred %llu faults from softirq (%llu resolved by A's doorbell), "
	     "%llu with inline_engines=0", (unsigned long long)on,
	     (unsigned long long)db_on, (unsigned long long)off);
	CHECK(on >= 3, "B deferred %llu faults, expected one per operation "
	      "(WRITE, RECV, ATOMIC)", (unsigned long long)on);
	CHECK(db_on >= 1, "no deferred fault was resolved by the doorbell caller");
	CHECK_EQ(off, 0, "faults deferred with the engines in the work item only");
	bufs_free(&o);
	dp_teardown(&p, d);
}

/* A UD SEND of @len bytes (pattern @seed) from A to QP @qpn on B's device. */
static void ud_send_to(struct dp_pair *p, uint32_t qpn, size_t len, int seed)
{
	struct ibv_sge s = { (uintptr_t)p->a.buf.p, len, p->a.buf.mr->lkey };
	struct ibv_send_wr wr = {
		.wr_id = seed, .sg_list = &s, .num_sge = 1,
		.opcode = IBV_WR_SEND, .send_flags = IBV_SEND_SIGNALED,
	};
	struct ibv_wc wc;

	fill(p->a.buf.p, len, seed);
	wr.wr.ud.ah = p->a.ah;
	wr.wr.ud.remote_qpn = qpn;
	wr.wr.ud.remote_qkey = p->qkey;
	dp_post_send(&p->a, &wr);
	dp_poll(p->a.scq, &wc, DP_TIMEOUT_MS, "UD SEND");
	dp_check_wc(&wc, IBV_WC_SUCCESS, IBV_WC_SEND, seed, p->a.qp->qp_num,
		    "UD SEND");
}

/*
 * seed-rules R5.3: a doorbell resolves only its own process's deferred
 * faults. A child process owns a UD QP on B and posts a receive into an
 * untouched page of its ODP MR; this process sends to it from A, so B's
 * responder runs in the softirq of this process's post_send and meets the
 * child's fault. The fault goes to the QP's work item (B's
 * odp_fault_deferred moves, odp_fault_in_doorbell does not) and the
 * datagram arrives whole. The same into this process's own QP on B is
 * resolved by the doorbell.
 */
static void test_foreign_fault(const struct dp_case *c)
{
	struct dp_cfg cfg = { .type = IBV_QPT_UD };
	const size_t len = 256;
	uint64_t def0, db0, def, db;
	int qpn_pipe[2], st;
	struct dp_dev d[2];
	struct ibv_sge sge;
	struct ibv_mr *mr;
	struct dp_pair p;
	struct ibv_wc wc;
	unsigned char *b;
	uint32_t qpn;
	pid_t pid;

	CHECK(!pipe(qpn_pipe), "pipe");
	pid = fork();
	CHECK(pid >= 0, "fork");
	if (pid == 0) {
		struct dp_dev cd[2];
		struct dp_pair cp;

		close(qpn_pipe[0]);
		dp_setup(&cp, cd, 4, &cfg);
		b = fresh(2 * PG);
		mr = odp_mr(cp.b.dev, b, 2 * PG, ODP_ACCESS);
		sge = (struct ibv_sge){ (uintptr_t)b, DP_GRH + len, mr->lkey };
		dp_post_recv(&cp.b, 41, &sge, 1);
		qpn = cp.b.qp->qp_num;
		CHECK(write(qpn_pipe[1], &qpn, sizeof(qpn)) == sizeof(qpn),
		      "pipe write");
		dp_poll(cp.b.rcq, &wc, DP_TIMEOUT_MS, "the child's UD RECV");
		dp_check_wc(&wc, IBV_WC_SUCCESS, IBV_WC_RECV, 41, qpn,
			    "the child's UD RECV");
		dp_check_range(b + DP_GRH, len, 41, "the child's ODP page");
		CHECK(!ibv_dereg_mr(mr), "dereg");
		dp_teardown(&cp, cd);
		_exit(0);
	}
	close(qpn_pipe[1]);
	dp_setup(&p, d, 4, &cfg);
	CHECK(read(qpn_pipe[0], &qpn, sizeof(qpn)) == sizeof(qpn),
	      "the child's QP number (the child failed)");
	def0 = dp_counter(&d[1], "odp_fault_deferred");
	db0 = dp_counter(&d[1], "odp_fault_in_doorbell");
	ud_send_to(&p, qpn, len, 41);
	CHECK(waitpid(pid, &st, 0) == pid, "waitpid");
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0,
	      "the child's receive into its ODP page failed (status %#x)", st);
	def = dp_counter(&d[1], "odp_fault_deferred") - def0;
	db = dp_counter(&d[1], "odp_fault_in_doorbell") - db0;
	NOTE("another process's fault: %llu deferred, %llu by this doorbell",
	     (unsigned long long)def, (unsigned long long)db);
	CHECK(def >= 1, "the child's receive met no fault in the softirq");
	CHECK_EQ(db, 0, "faults of another process resolved by this doorbell");

	/* The same into this process's own QP on B: the doorbell resolves it. */
	b = fresh(2 * PG);
	mr = odp_mr(p.b.dev, b, 2 * PG, ODP_ACCESS);
	sge = (struct ibv_sge){ (uintptr_t)b, DP_GRH + len, mr->lkey };
	dp_post_recv(&p.b, 43, &sge, 1);
	ud_send_to(&p, p.b.qp->qp_num, len, 43);
	dp_poll(p.b.rcq, &wc, DP_TIMEOUT_MS, "own UD RECV");
	dp_check_wc(&wc, IBV_WC_SUCCESS, IBV_WC_RECV, 43, p.b.qp->qp_num,
		    "own UD RECV");
	dp_check_range(b + DP_GRH, len, 43, "own ODP page");
	db = dp_counter(&d[1], "odp_fault_in_doorbell") - db0;
	NOTE("own process's fault: %llu by this doorbell", (unsigned long long)db);
	CHECK(db >= 1, "this process's own fault was not resolved by its doorbell");
	CHECK(!ibv_dereg_mr(mr), "dereg");
	munmap(b, 2 * PG);
	dp_teardown(&p, d);
}

/*
 * seed-rules R2.6 with R5.3: B's READ response is lost (a drop rule) and
 * B's page is dropped (MADV_DONTNEED on a shared mapping: the bytes stay,
 * the device mapping goes) before A's retry. The duplicate READ meets the
 * fault in the receive softirq, is deferred to the work item and served
 * from there: A gets the bytes, and B counts one duplicate request, not
 * one per attempt to handle it.
 */
static void test_dup_read_deferred(const struct dp_case *c)
{
	struct dp_cfg cfg = {
		.type = IBV_QPT_RC, .rc_timers = 1,
		.timeout = 17, .retry_cnt = 7, .rnr_retry = 7, .min_rnr_timer = 12,
	};
	uint64_t dup0, def0, drop0, t0;
	struct ibv_mr *amr, *bmr;
	struct ibv_sge sge;
	struct ibv_send_wr wr = {
		.wr_id = 5, .sg_list = &sge, .num_sge = 1,
		.opcode = IBV_WR_RDMA_READ, .send_flags = IBV_SEND_SIGNALED,
	};
	unsigned char *a, *b;
	struct dp_dev d[2];
	struct dp_pair p;
	struct ibv_wc wc;

	dp_setup(&p, d, 4, &cfg);
	a = fresh(PG);
	b = mmap(NULL, PG, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	CHECK(b != MAP_FAILED, "mmap shared: %s", strerror(errno));
	fill(b, 200, 61);
	amr = odp_mr(p.a.dev, a, PG, ODP_ACCESS);
	bmr = odp_mr(p.b.dev, b, PG, ODP_ACCESS);
	dup0 = dp_counter(&d[1], "duplicate_request");
	def0 = dp_counter(&d[1], "odp_fault_deferred");
	drop0 = dp_counter(&d[1], "fault_tx_drops");
	rel_fault(&p.b, "tx", "opcode=%d", OP_READ_RESP_ONLY);
	sge = (struct ibv_sge){ (uintptr_t)a, 200, amr->lkey };
	wr.wr.rdma.remote_addr = (uintptr_t)b;
	wr.wr.rdma.rkey = bmr->rkey;
	dp_post_send(&p.a, &wr);
	/* A retries after its ACK timeout (timeout 17: about 0.5 s). */
	t0 = dp_now_ms();
	while (dp_counter(&d[1], "fault_tx_drops") == drop0)
		CHECK(dp_now_ms() - t0 < 5000, "B's READ response was never dropped");
	CHECK(!madvise(b, PG, MADV_DONTNEED), "madvise: %s", strerror(errno));
	dp_poll(p.a.scq, &wc, DP_TIMEOUT_MS, "READ after a lost response");
	dp_check_wc(&wc, IBV_WC_SUCCESS, IBV_WC_RDMA_READ, 5, p.a.qp->qp_num,
		    "READ after a lost response");
	dp_check_range(a, 200, 61, "READ served again after MADV_DONTNEED");
	NOTE("B: %llu duplicate requests, %llu faults deferred",
	     (unsigned long long)(dp_counter(&d[1], "duplicate_request") - dup0),
	     (unsigned long long)(dp_counter(&d[1], "odp_fault_deferred") - def0));
	CHECK(dp_counter(&d[1], "odp_fault_deferred") - def0 >= 1,
	      "B deferred no fault: the duplicate did not meet the dropped page");
	CHECK_EQ(dp_counter(&d[1], "duplicate_request") - dup0, 1,
		 "B's duplicate_request for one duplicate READ");
	rel_fault_off(&p.b);
	CHECK(!ibv_dereg_mr(amr), "dereg A");
	CHECK(!ibv_dereg_mr(bmr), "dereg B");
	munmap(a, PG);
	munmap(b, PG);
	dp_teardown(&p, d);
}

static int advise(struct dp_dev *d, enum ibv_advise_mr_advice adv, uint32_t flags,
		  struct ibv_mr *mr, void *addr, size_t len)
{
	struct ibv_sge sge = { (uintptr_t)addr, len, mr->lkey };

	return ibv_advise_mr(d->pd, adv, flags, &sge, 1);
}

/* ibv_advise_mr: PREFETCH, PREFETCH_WRITE, PREFETCH_NO_FAULT; sync and async. */
static void test_advise(const struct dp_case *c)
{
	const size_t len = 16 * PG;
	uint64_t pf0, pg0, f0;
	struct dp_dev d[2];
	struct odp_bufs o;
	struct dp_pair p;
	struct ibv_mr *ro, *pinned;
	int i, err;

	inv_setup(&p, d, &o, len);
	if (c->arg)	/* implicit MR on B instead */
		CHECK(!ibv_dereg_mr(o.bmr) && (o.bmr = implicit_mr(&d[1])), "implicit");

	/* Synchronous PREFETCH_WRITE maps 4 pages; a WRITE there then does not fault. */
	pf0 = dp_counter(&d[1], "odp_prefetch");
	pg0 = dp_counter(&d[1], "odp_pages_faulted");
	err = advise(&d[1], IBV_ADVISE_MR_ADVICE_PREFETCH_WRITE,
		     IBV_ADVISE_MR_FLAG_FLUSH, o.bmr, o.b, 4 * PG);
	CHECK(!err, "sync PREFETCH_WRITE: %s", strerror(err));
	CHECK_EQ(dp_counter(&d[1], "odp_prefetch"), pf0 + 1, "odp_prefetch after one");
	CHECK_EQ(dp_counter(&d[1], "odp_pages_faulted"), pg0 + 4,
		 "pages faulted by a 4-page PREFETCH_WRITE");
	f0 = dp_counter(&d[1], "odp_faults");
	fill(o.a, 4 * PG, 900);
	rdma(&p, IBV_WR_RDMA_WRITE, 1, o.a, o.amr->lkey, 4 * PG, o.b, o.bmr->rkey,
	     IBV_WC_SUCCESS);
	dp_check_range(o.b, 4 * PG, 900, "WRITE into prefetched pages");
	CHECK_EQ(dp_counter(&d[1], "odp_faults"), f0, "faults of a WRITE into prefetched pages");

	/* Synchronous PREFETCH (read) of pages the CPU wrote. */
	fill(o.b + 4 * PG, 4 * PG, 901);
	err = advise(&d[1], IBV_ADVISE_MR_ADVICE_PREFETCH, IBV_ADVISE_MR_FLAG_FLUSH,
		     o.bmr, o.b + 4 * PG, 4 * PG);
	CHECK(!err, "sync PREFETCH: %s", strerror(err));
	f0 = dp_counter(&d[1], "odp_faults");
	rdma(&p, IBV_WR_RDMA_READ, 2, o.a + 4 * PG, o.amr->lkey, 4 * PG,
	     o.b + 4 * PG, o.bmr->rkey, IBV_WC_SUCCESS);
	dp_check_range(o.a + 4 * PG, 4 * PG, 901, "READ of prefetched pages");
	CHECK_EQ(dp_counter(&d[1], "odp_faults"), f0, "faults of a READ of prefetched pages");

	/* PREFETCH_NO_FAULT maps only what is present: untouched pages stay out. */
	pg0 = dp_counter(&d[1], "odp_pages_faulted");
	err = advise(&d[1], IBV_ADVISE_MR_ADVICE_PREFETCH_NO_FAULT,
		     IBV_ADVISE_MR_FLAG_FLUSH, o.bmr, o.b + 8 * PG, 4 * PG);
	CHECK(!err, "sync PREFETCH_NO_FAULT: %s", strerror(err));
	CHECK_EQ(dp_counter(&d[1], "odp_pages_faulted"), pg0,
		 "pages faulted by PREFETCH_NO_FAULT of untouched pages");
	f0 = dp_counter(&d[1], "odp_faults");
	rdma(&p, IBV_WR_RDMA_READ, 3, o.a + 8 * PG, o.amr->lkey, 4 * PG,
	     o.b + 8 * PG, o.bmr->rkey, IBV_WC_SUCCESS);
	dp_check_fill(o.a + 8 * PG, 4 * PG, 0, "READ of untouched pages");
	CHECK(dp_counter(&d[1], "odp_faults") > f0, "no fault after PREFETCH_NO_FAULT");

	/* Asynchronous PREFETCH_WRITE: done some time after the call returns. */
	pg0 = dp_counter(&d[1], "odp_pages_faulted");
	pf0 = dp_counter(&d[1], "odp_prefetch");
	err = advise(&d[1], IBV_ADVISE_MR_ADVICE_PREFETCH_WRITE, 0, o.bmr,
		     o.b + 12 * PG, 4 * PG);
	CHECK(!err, "async PREFETCH_WRITE: %s", strerror(err));
	for (i = 0; i < 100 && dp_counter(&d[1], "odp_pages_faulted") < pg0 + 4; i++)
		;
	CHECK_EQ(dp_counter(&d[1], "odp_pages_faulted"), pg0 + 4,
		 "pages faulted by an async 4-page PREFETCH_WRITE (3 s)");
	CHECK_EQ(dp_counter(&d[1], "odp_prefetch"), pf0 + 1, "odp_prefetch after async");

	/* Errors: bad key, pinned MR, PREFETCH_WRITE without local write. */
	{
		struct ibv_sge sge = { (uintptr_t)o.b, 64, o.bmr->lkey ^ 0x100 };

		CHECK_EQ(ibv_advise_mr(d[1].pd, IBV_ADVISE_MR_ADVICE_PREFETCH,
				       IBV_ADVISE_MR_FLAG_FLUSH, &sge, 1), EINVAL,
			 "advise_mr with a bad L_Key");
	}
	pinned = p.b.buf.mr;
	CHECK_EQ(advise(&d[1], IBV_ADVISE_MR_ADVICE_PREFETCH, IBV_ADVISE_MR_FLAG_FLUSH,
			pinned, p.b.buf.p, 64), EINVAL, "advise_mr on a pinned MR");
	ro = odp_mr(&d[1], o.b, len, IBV_ACCESS_REMOTE_READ);
	CHECK_EQ(advise(&d[1], IBV_ADVISE_MR_ADVICE_PREFETCH_WRITE,
			IBV_ADVISE_MR_FLAG_FLUSH, ro, o.b, 64), EPERM,
		 "PREFETCH_WRITE on an MR without local write");
	CHECK(!ibv_dereg_mr(ro), "dereg ro");
	bufs_free(&o);
	dp_teardown(&p, d);
}

static const struct dp_case cases[] = {
	{ "odp_caps", test_caps, IBV_QPT_RC, 4 },
	{ "RC_explicit_send_write_read_atomic", test_ops, IBV_QPT_RC, 4, 0, 0 },
	{ "RC_implicit_send_write_read_atomic", test_ops, IBV_QPT_RC, 4, 0, 1 },
	{ "UD_explicit_send_recv", test_ud, IBV_QPT_UD, 4, 0, 0 },
	{ "UD_implicit_send_recv", test_ud, IBV_QPT_UD, 4, 0, 1 },
	{ "invalidate_munmap_mmap", test_munmap, IBV_QPT_RC, 4 },
	{ "invalidate_madv_dontneed", test_dontneed, IBV_QPT_RC, 4 },
	{ "invalidate_fork_cow", test_fork, IBV_QPT_RC, 4 },
	{ "invalidate_mprotect", test_mprotect, IBV_QPT_RC, 4 },
	{ "hole_explicit", test_hole, IBV_QPT_RC, 4, 0, 0 },
	{ "hole_implicit", test_hole, IBV_QPT_RC, 4, 0, 1 },
	{ "invalidate_while_traffic_runs", test_race, IBV_QPT_RC, 4 },
	{ "fault_state_shared_by_qps", test_shared, IBV_QPT_RC, 4 },
	{ "fault_in_softirq_deferred_explicit", test_deferred, IBV_QPT_RC, 4, 0, 0 },
	{ "fault_in_softirq_deferred_implicit", test_deferred, IBV_QPT_RC, 4, 0, 1 },
	{ "duplicate_read_deferred_counted_once", test_dup_read_deferred, IBV_QPT_RC, 4 },
	{ "fault_of_another_process_not_in_doorbell", test_foreign_fault, IBV_QPT_UD, 4 },
	{ "advise_mr_explicit", test_advise, IBV_QPT_RC, 4, 0, 0 },
	{ "advise_mr_implicit", test_advise, IBV_QPT_RC, 4, 0, 1 },
};

int main(int argc, char **argv)
{
	return dp_main(argc, argv, cases, ARRAY_SIZE(cases));
}
