// SPDX-License-Identifier: GPL-2.0-only
/*
 * hard_limits: the object limits sroce advertises are enforced, and the
 * memory of user objects is charged to the caller's memory cgroup.
 *
 * Limits. Every create counts against query_device's limit through one
 * helper (sroce_obj_get/put, kernel/sroce_verbs.c) and fails with ENOMEM
 * past it, as an RNIC out of a resource does. PDs and MWs are cheap: they
 * are created here up to the real limit (max_pd 64K in about 3 s, max_mw
 * 64K in about 1 s under TCG). AHs (32K) are not: each resolves its
 * destination's MAC, and 32K took over 180 s. QPs, CQs, SRQs and MRs are
 * too costly to create 64K (256K MRs) of (each has rings or pinned
 * pages). Those go through the same helper; the CQ and QP error paths
 * after it are exercised by the cgroup case, whose failing creates must
 * give everything back (the same number can be made again afterwards).
 *
 * Accounting. In a child memory cgroup (cgroup v2) with a small
 * memory.max, big CQs and QPs are created until one fails: the verb must
 * fail with ENOMEM, the OOM killer must not have run (memory.events), and
 * after everything is destroyed memory.current is back near its start.
 *
 * ODP. An explicit ODP MR longer than max_mr_size is refused (EINVAL); an
 * implicit ODP MR gets at most max_mr_size / 2 MiB children (one per 2 MiB
 * slice touched): a prefetch into one more slice fails (EFAULT).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>
#include <infiniband/verbs.h>

#include "../errors/err.h"

#define SROCE_MAX_MR_SIZE (1ULL << 36)	/* kernel/sroce_param.h */
#define ODP_CHILD_SHIFT 21		/* kernel/sroce_odp.h */
/*
 * Objects of each type the kernel and the harness may hold on the device
 * already (ib_mad's PD, CQ and QP1; dp_open's PD).
 */
#define PREEXISTING 4

enum obj_kind { OBJ_PD, OBJ_MW, OBJ_CQ, OBJ_QP };
static const char *const obj_name[] = { "PD", "MW", "CQ", "QP" };

/* One object of @kind on @d (CQs big, QPs big on the CQ @small). */
static void *make_obj(struct dp_dev *d, enum obj_kind kind, struct ibv_cq *small)
{
	struct ibv_qp_init_attr qa = {
		.send_cq = small, .recv_cq = small, .qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = 8192, .max_recv_wr = 8192,
			 .max_send_sge = 16, .max_recv_sge = 16 },
	};

	switch (kind) {
	case OBJ_PD:
		return ibv_alloc_pd(d->ctx);
	case OBJ_MW:
		return ibv_alloc_mw(d->pd, IBV_MW_TYPE_1);
	case OBJ_CQ:
		return ibv_create_cq(d->ctx, 32767, NULL, NULL, 0);
	case OBJ_QP:
		return ibv_create_qp(d->pd, &qa);
	}
	return NULL;
}

static void drop_objs(void **objs, int n, enum obj_kind kind)
{
	int i, ret = 0;

	for (i = 0; i < n; i++) {
		switch (kind) {
		case OBJ_PD:
			ret = ibv_dealloc_pd(objs[i]);
			break;
		case OBJ_MW:
			ret = ibv_dealloc_mw(objs[i]);
			break;
		case OBJ_CQ:
			ret = ibv_destroy_cq(objs[i]);
			break;
		case OBJ_QP:
			ret = ibv_destroy_qp(objs[i]);
			break;
		}
		CHECK(!ret, "destroy %s %d", obj_name[kind], i);
	}
}

/* Objects of @kind until one fails or @cap are made: how many; *@err errno. */
static int fill_objs(struct dp_dev *d, enum obj_kind kind, struct ibv_cq *small,
		     void **objs, int cap, int *err)
{
	int n;

	for (n = 0; n < cap; n++) {
		objs[n] = make_obj(d, kind, small);
		if (!objs[n])
			break;
	}
	*err = errno;
	return n;
}

/*
 * Create PDs or MWs (c->op) until it fails (at most the advertised limit
 * + 1 tries): it must fail with ENOMEM within PREEXISTING of the limit;
 * then one freed lets exactly one more be made. Frees everything.
 */
static void test_limit(const struct dp_case *c)
{
	enum obj_kind kind = (enum obj_kind)c->op;
	const char *what = obj_name[kind];
	uint64_t t0 = dp_now_ms();
	struct dp_dev d;
	int max, n, e;
	void **objs;

	dp_open(&d, 0, 4);
	max = kind == OBJ_MW ? d.attr.orig_attr.max_mw : d.attr.orig_attr.max_pd;
	objs = calloc((size_t)max + 1, sizeof(*objs));
	CHECK(objs, "calloc");
	n = fill_objs(&d, kind, NULL, objs, max + 1, &e);
	NOTE("%s: %d created (limit %d) in %llu ms", what, n, max,
	     (unsigned long long)(dp_now_ms() - t0));
	CHECK(n <= max, "%s: %d created, over the advertised limit %d", what, n, max);
	CHECK(e == ENOMEM, "%s: create %d failed with %s, want ENOMEM", what, n,
	      strerror(e));
	CHECK(n >= max - PREEXISTING, "%s: only %d of %d created", what, n, max);
	drop_objs(&objs[n - 1], 1, kind);
	objs[n - 1] = make_obj(&d, kind, NULL);
	CHECK(objs[n - 1], "%s: none again after one freed: %s", what, strerror(errno));
	CHECK(!make_obj(&d, kind, NULL) && errno == ENOMEM,
	      "%s: one more after the refill (errno %s)", what, strerror(errno));
	drop_objs(objs, n, kind);
	free(objs);
	dp_close(&d);
}

/* ---- memory cgroup ---------------------------------------------------- */

#define CG_ROOT "/sys/fs/cgroup"
#define CG_DIR CG_ROOT "/sroce_hard_limits"
#define CG_MAX (24 * MiB)

static void cg_write(const char *path, const char *val)
{
	int fd = open(path, O_WRONLY);

	CHECK(fd >= 0, "open %s: %s", path, strerror(errno));
	CHECK(write(fd, val, strlen(val)) == (ssize_t)strlen(val),
	      "write %s to %s: %s", val, path, strerror(errno));
	close(fd);
}

/* A number from a cgroup file, or the value of key @key in it. */
static long long cg_read(const char *file, const char *key)
{
	char path[256], line[256];
	long long v = -1;
	FILE *f;

	snprintf(path, sizeof(path), CG_DIR "/%s", file);
	f = fopen(path, "r");
	CHECK(f, "open %s: %s", path, strerror(errno));
	while (fgets(line, sizeof(line), f)) {
		if (!key) {
			v = atoll(line);
			break;
		}
		if (!strncmp(line, key, strlen(key)) && line[strlen(key)] == ' ') {
			v = atoll(line + strlen(key) + 1);
			break;
		}
	}
	fclose(f);
	CHECK(v >= 0, "no %s in %s", key ? key : "value", path);
	return v;
}

/* Put this process in a fresh child cgroup limited to CG_MAX bytes. */
static void cg_enter(void)
{
	struct statfs fs;
	char buf[32];

	if (statfs(CG_ROOT, &fs) || fs.f_type != 0x63677270 /* CGROUP2 */)
		CHECK(!mount("cgroup2", CG_ROOT, "cgroup2", 0, NULL),
		      "mount cgroup2: %s", strerror(errno));
	cg_write(CG_ROOT "/cgroup.subtree_control", "+memory");
	rmdir(CG_DIR);
	CHECK(!mkdir(CG_DIR, 0755), "mkdir " CG_DIR ": %s", strerror(errno));
	snprintf(buf, sizeof(buf), "%lu", CG_MAX);
	cg_write(CG_DIR "/memory.max", buf);
	/* No swap: a failed charge cannot be met by swapping out. */
	cg_write(CG_DIR "/memory.swap.max", "0");
	snprintf(buf, sizeof(buf), "%d", getpid());
	cg_write(CG_DIR "/cgroup.procs", buf);
}

static void cg_leave(void)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "%d", getpid());
	cg_write(CG_ROOT "/cgroup.procs", buf);
	CHECK(!rmdir(CG_DIR), "rmdir " CG_DIR ": %s", strerror(errno));
}

#define CG_OBJS 256	/* far more than CG_MAX holds: 2 MiB CQs, 10 MiB QPs */

static void test_cgroup(const struct dp_case *c)
{
	static void *objs[CG_OBJS];
	long long start, peak, end;
	struct ibv_cq *small;
	struct dp_dev d;
	enum obj_kind kind;
	int n, n2, e;

	dp_open(&d, 0, 4);
	small = ibv_create_cq(d.ctx, 16, NULL, NULL, 0);
	CHECK(small, "create_cq: %s", strerror(errno));
	cg_enter();
	start = cg_read("memory.current", NULL);
	for (kind = OBJ_CQ; kind <= OBJ_QP; kind++) {
		const char *what = obj_name[kind];

		n = fill_objs(&d, kind, small, objs, CG_OBJS, &e);
		peak = cg_read("memory.current", NULL);
		NOTE("%s: %d created, memory.current %lld -> %lld (max %lu)",
		     what, n, start, peak, CG_MAX);
		CHECK(n < CG_OBJS, "%s: %d created in a %lu MiB cgroup: not charged to it",
		      what, n, CG_MAX / MiB);
		CHECK(e == ENOMEM, "%s: create failed with %s, want ENOMEM", what,
		      strerror(e));
		CHECK(n > 0, "%s: not even one created", what);
		/* The failed creates gave everything back: as many fit again. */
		drop_objs(objs, n, kind);
		n2 = fill_objs(&d, kind, small, objs, CG_OBJS, &e);
		CHECK(n2 == n && e == ENOMEM, "%s: %d created the second time, %d the first (%s)",
		      what, n2, n, strerror(e));
		drop_objs(objs, n2, kind);
		end = cg_read("memory.current", NULL);
		NOTE("%s: all destroyed, memory.current %lld", what, end);
		CHECK(end < start + 1 * (long long)MiB,
		      "%s: memory.current %lld after destroying all, %lld at start",
		      what, end, start);
	}
	CHECK(cg_read("memory.events", "oom_kill") == 0, "the OOM killer ran in the cgroup");
	cg_leave();
	CHECK(!ibv_destroy_cq(small), "destroy_cq");
	dp_close(&d);
}

/* ---- ODP -------------------------------------------------------------- */

static void test_odp_size(const struct dp_case *c)
{
	int acc = IBV_ACCESS_ON_DEMAND | IBV_ACCESS_LOCAL_WRITE;
	struct ibv_mr *mr;
	struct dp_dev d;

	dp_open(&d, 0, 4);
	if (!(d.attr.odp_caps.general_caps & IBV_ODP_SUPPORT))
		FAIL("no ODP");
	CHECK_EQ(d.attr.orig_attr.max_mr_size, SROCE_MAX_MR_SIZE, "max_mr_size");
	/* Nothing is mapped there: an ODP MR pins nothing, the size decides. */
	mr = ibv_reg_mr(d.pd, (void *)(1ULL << 40),
			d.attr.orig_attr.max_mr_size + 4096, acc);
	CHECK(!mr && errno == EINVAL, "ODP MR over max_mr_size: %s",
	      mr ? "registered" : strerror(errno));
	mr = ibv_reg_mr(d.pd, (void *)(1ULL << 40), 1ULL << 30, acc);
	CHECK(mr, "1 GiB ODP MR: %s", strerror(errno));
	CHECK(!ibv_dereg_mr(mr), "dereg_mr");
	dp_close(&d);
}

static int prefetch(struct ibv_pd *pd, struct ibv_mr *mr, uint64_t va)
{
	struct ibv_sge sge = { .addr = va, .length = 4096, .lkey = mr->lkey };

	return ibv_advise_mr(pd, IBV_ADVISE_MR_ADVICE_PREFETCH_NO_FAULT,
			     IBV_ADVISE_MR_FLAG_FLUSH, &sge, 1);
}

static void test_odp_children(const struct dp_case *c)
{
	const uint64_t base = 1ULL << 40, slice = 1ULL << ODP_CHILD_SHIFT;
	uint64_t max, i, t0 = dp_now_ms();
	struct ibv_mr *mr;
	struct dp_dev d;
	int ret;

	dp_open(&d, 0, 4);
	/* The test's bound, not the device's: an unbounded one would OOM. */
	max = SROCE_MAX_MR_SIZE >> ODP_CHILD_SHIFT;
	mr = ibv_reg_mr(d.pd, NULL, SIZE_MAX, IBV_ACCESS_ON_DEMAND | IBV_ACCESS_LOCAL_WRITE);
	CHECK(mr, "implicit ODP MR: %s", strerror(errno));
	/* Unmapped addresses, no fault: each makes a child and maps nothing. */
	for (i = 0; i < max; i++) {
		ret = prefetch(d.pd, mr, base + i * slice);
		CHECK(!ret, "prefetch into slice %llu of %llu: %s",
		      (unsigned long long)i, (unsigned long long)max, strerror(ret));
	}
	NOTE("%llu slices in %llu ms", (unsigned long long)max,
	     (unsigned long long)(dp_now_ms() - t0));
	ret = prefetch(d.pd, mr, base + max * slice);
	CHECK(ret == EFAULT, "prefetch into slice %llu: %s, want EFAULT",
	      (unsigned long long)max, ret ? strerror(ret) : "done");
	CHECK(!prefetch(d.pd, mr, base), "a slice it has stopped working");
	CHECK(!ibv_dereg_mr(mr), "dereg_mr");
	dp_close(&d);
}

static const struct dp_case cases[] = {
	{ "PD_limit", test_limit, 0, 0, OBJ_PD },
	{ "MW_limit", test_limit, 0, 0, OBJ_MW },
	{ "cgroup_CQ_QP_ENOMEM", test_cgroup },
	{ "ODP_explicit_max_mr_size", test_odp_size },
	{ "ODP_implicit_children", test_odp_children },
};

int main(int argc, char **argv)
{
	return dp_main(argc, argv, cases, ARRAY_SIZE(cases));
}
