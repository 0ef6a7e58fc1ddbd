// SPDX-License-Identifier: GPL-2.0-only
/*
 * hard_limits: the object limits sroce advertises are enforced, and the
 * memory of user objects is charged to the caller's memory cgroup.
 *
 * Object limits. Every create counts against query_device's limit through
 * one helper (sroce_obj_get/put, kernel/sroce.h) and fails with ENOMEM
 * past it, as mlx5 does when its firmware runs out of a resource and as
 * sroce's own full key and QPN tables do (rdma_rxe's pools say EINVAL
 * instead; an RNIC out of a resource is not an invalid argument). Each
 * <OBJ>_limit case creates objects of one type until the device holds
 * exactly max_pd, max_mw, max_ah, max_cq, max_srq, max_qp or max_mr of
 * them (counting those that existed already: ib_mad's PD, CQ and QP1,
 * the harness's PD, the internal DMA MR the core gives every kernel PD,
 * the case's own helper CQ and SRQ), all of which must succeed; one more
 * must fail with ENOMEM; one freed lets exactly one more be made. The
 * objects are the smallest of their kind (a 1-entry CQ, an RC QP with one
 * send WQE on an SRQ, an MR of one page, an AH to a multicast GID, whose
 * MAC needs no neighbour resolution), so that 64K of them (256K MRs)
 * fit. But 64K QPs still take about 1.4 GiB of the guest's 2 GiB (a QP
 * is a 4 KiB object, 12 KiB with slub_debug, and a ring), and 64K CQs
 * took 100 s to create and destroy under TCG: limits.sh lowers the
 * limits of CQs, SRQs and QPs to 4096 and of MRs to 16384 with sroce's
 * module parameters (max_cq, max_srq, max_qp, max_mr), which set what
 * query_device advertises and what sroce_obj_get enforces alike; the
 * case checks that query_device reports the parameter. PDs, MWs and AHs
 * are driven to their real limits. limits.sh also checks that slab and
 * vmalloc use are back at their baseline after the cases.
 *
 * Queue depths. A CQ of max_cqe entries, a QP of max_qp_wr send or receive
 * WQEs or max_sge SGEs, and an SRQ of max_srq_wr WQEs or max_srq_sge SGEs
 * are made; one more of any fails with EINVAL (mlx5 and rxe say the same
 * of a depth over the device's).
 *
 * Accounting. In a child memory cgroup (cgroup v2) with a small
 * memory.max, big CQs, SRQs, QPs and MRs are created until one fails: the
 * verb must fail with ENOMEM, the OOM killer must not have run
 * (memory.events), as many as before fit again (the failed creates gave
 * everything back), and after everything is destroyed memory.current is
 * back near its start. The MRs pin memory faulted in before the process
 * joined the cgroup (charged elsewhere): what fills the cgroup is sroce's
 * own page array of each MR.
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
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>
#include <infiniband/verbs.h>

#include "../errors/err.h"

#define SROCE_MAX_MR_SIZE (1ULL << 36)	/* kernel/sroce_param.h */
#define ODP_CHILD_SHIFT 21		/* kernel/sroce_odp.h */

enum obj_kind { OBJ_PD, OBJ_MW, OBJ_AH, OBJ_CQ, OBJ_SRQ, OBJ_QP, OBJ_MR };
static const char *const obj_name[] = { "PD", "MW", "AH", "CQ", "SRQ", "QP", "MR" };

/* What the objects of a run are made with and of. */
struct objset {
	struct dp_dev *d;
	int big;		/* cgroup case: objects with big rings */
	struct ibv_cq *cq;	/* the QPs' CQ */
	struct ibv_srq *srq;	/* the small QPs' SRQ */
	unsigned char *buf;	/* MR memory, faulted in */
	size_t buf_len;
	unsigned int n;		/* objects made so far (spreads small MRs) */
	struct ibv_ah_attr ah;
};

#define SMALL_MR_PAGES 64	/* small MRs spread over these pages */
#define BIG_MR_LEN (128 * MiB)	/* a 256 KiB page array each */

static void *make_obj(struct objset *s, enum obj_kind kind)
{
	struct ibv_srq_init_attr sa = {
		.attr = { .max_wr = s->big ? 16384 : 1, .max_sge = s->big ? 16 : 1 },
	};
	struct ibv_qp_init_attr qa = {
		.send_cq = s->cq, .recv_cq = s->cq, .qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = 1, .max_send_sge = 1 },
	};
	struct dp_dev *d = s->d;
	size_t off;

	if (s->big)
		qa.cap = (struct ibv_qp_cap){ .max_send_wr = 8192, .max_recv_wr = 8192,
					      .max_send_sge = 16, .max_recv_sge = 16 };
	else
		qa.srq = s->srq;
	s->n++;
	switch (kind) {
	case OBJ_PD:
		return ibv_alloc_pd(d->ctx);
	case OBJ_MW:
		return ibv_alloc_mw(d->pd, IBV_MW_TYPE_1);
	case OBJ_AH:
		return ibv_create_ah(d->pd, &s->ah);
	case OBJ_CQ:
		return ibv_create_cq(d->ctx, s->big ? 32767 : 1, NULL, NULL, 0);
	case OBJ_SRQ:
		return ibv_create_srq(d->pd, &sa);
	case OBJ_QP:
		return ibv_create_qp(d->pd, &qa);
	case OBJ_MR:
		if (s->big)
			return ibv_reg_mr(d->pd, s->buf, s->buf_len, IBV_ACCESS_LOCAL_WRITE);
		off = (s->n % SMALL_MR_PAGES) * 4096;
		return ibv_reg_mr(d->pd, s->buf + off, 4096, IBV_ACCESS_LOCAL_WRITE);
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
		case OBJ_AH:
			ret = ibv_destroy_ah(objs[i]);
			break;
		case OBJ_CQ:
			ret = ibv_destroy_cq(objs[i]);
			break;
		case OBJ_SRQ:
			ret = ibv_destroy_srq(objs[i]);
			break;
		case OBJ_QP:
			ret = ibv_destroy_qp(objs[i]);
			break;
		case OBJ_MR:
			ret = ibv_dereg_mr(objs[i]);
			break;
		}
		CHECK(!ret, "destroy %s %d: %s", obj_name[kind], i, strerror(ret));
	}
}

/* Objects of @kind until one fails or @cap are made: how many; *@err errno. */
static int fill_objs(struct objset *s, enum obj_kind kind, void **objs, int cap,
		     int *err)
{
	int n;

	errno = 0;
	for (n = 0; n < cap; n++) {
		objs[n] = make_obj(s, kind);
		if (!objs[n])
			break;
	}
	*err = errno;
	return n;
}

/* The helpers the objects of @kind need, made on @s->d. */
static void objset_init(struct objset *s, struct dp_dev *d, enum obj_kind kind, int big)
{
	struct ibv_srq_init_attr sa = { .attr = { .max_wr = 1, .max_sge = 1 } };

	memset(s, 0, sizeof(*s));
	s->d = d;
	s->big = big;
	if (kind == OBJ_QP) {
		s->cq = ibv_create_cq(d->ctx, 16, NULL, NULL, 0);
		CHECK(s->cq, "create_cq: %s", strerror(errno));
		if (!big) {
			s->srq = ibv_create_srq(d->pd, &sa);
			CHECK(s->srq, "create_srq: %s", strerror(errno));
		}
	}
	if (kind == OBJ_MR) {
		s->buf_len = big ? BIG_MR_LEN : SMALL_MR_PAGES * 4096;
		s->buf = mmap(NULL, s->buf_len, PROT_READ | PROT_WRITE,
			      MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
		CHECK(s->buf != MAP_FAILED, "mmap: %s", strerror(errno));
		memset(s->buf, 0x5a, s->buf_len);
	}
	if (kind == OBJ_AH) {
		/* A multicast destination: its MAC is computed, not resolved. */
		s->ah.is_global = 1;
		s->ah.port_num = 1;
		s->ah.grh.sgid_index = d->gid_index;
		s->ah.grh.hop_limit = 1;
		dp_mgid(d->family, 0, &s->ah.grh.dgid);
	}
}

static void objset_fini(struct objset *s)
{
	if (s->srq)
		CHECK(!ibv_destroy_srq(s->srq), "destroy_srq");
	if (s->cq)
		CHECK(!ibv_destroy_cq(s->cq), "destroy_cq");
	if (s->buf)
		munmap(s->buf, s->buf_len);
}

/* query_device's limit for @kind. */
static int obj_max(const struct dp_dev *d, enum obj_kind kind)
{
	const struct ibv_device_attr *a = &d->attr.orig_attr;

	switch (kind) {
	case OBJ_PD:
		return a->max_pd;
	case OBJ_MW:
		return a->max_mw;
	case OBJ_AH:
		return a->max_ah;
	case OBJ_CQ:
		return a->max_cq;
	case OBJ_SRQ:
		return a->max_srq;
	case OBJ_QP:
		return a->max_qp;
	case OBJ_MR:
		return a->max_mr;
	}
	return 0;
}

/*
 * Lines of `rdma resource show <what> link <dev>` (@what "pd": only those
 * of kernel PDs, whose comm is printed in brackets), or with @what NULL
 * the count of @key in the device's summary (`rdma resource show <dev>`).
 */
static int rdma_res_count(const struct dp_dev *d, const char *what, const char *key)
{
	char cmd[256], line[1024], *p;
	int n = what ? 0 : -1;
	FILE *f;

	if (what)
		snprintf(cmd, sizeof(cmd), "rdma resource show %s dev %s", what, d->name);
	else
		snprintf(cmd, sizeof(cmd), "rdma resource show %s", d->name);
	f = popen(cmd, "r");
	CHECK(f, "popen %s: %s", cmd, strerror(errno));
	while (fgets(line, sizeof(line), f)) {
		if (what) {
			n += !!strstr(line, " comm [");
			continue;
		}
		for (p = strtok(line, " \n"); p; p = strtok(NULL, " \n")) {
			if (strcmp(p, key))
				continue;
			p = strtok(NULL, " \n");
			if (p)
				n = atoi(p);
			break;
		}
	}
	CHECK(pclose(f) == 0, "%s failed", cmd);
	CHECK(n >= 0, "no \"%s\" in `%s`", key, cmd);
	return n;
}

/*
 * Objects of @kind the device holds now, as sroce counts them. The core
 * tracks PDs, CQs, SRQs, QPs and MRs (`rdma resource`), kernel and user;
 * it does not track the DMA MR it makes for every kernel PD (sroce has no
 * local_dma_lkey), which sroce counts as an MR. Neither the kernel nor
 * the harness holds an MW or an AH.
 */
static int obj_existing(const struct dp_dev *d, enum obj_kind kind)
{
	switch (kind) {
	case OBJ_PD:
		return rdma_res_count(d, NULL, "pd");
	case OBJ_CQ:
		return rdma_res_count(d, NULL, "cq");
	case OBJ_SRQ:
		return rdma_res_count(d, NULL, "srq");
	case OBJ_QP:
		return rdma_res_count(d, NULL, "qp");
	case OBJ_MR:
		return rdma_res_count(d, NULL, "mr") + rdma_res_count(d, "pd", NULL);
	default:
		return 0;
	}
}

/*
 * The module parameter that lowers the device's limit of @kind (read when
 * the device was added), or NULL for a kind that has none.
 */
static const char *obj_param(enum obj_kind kind)
{
	switch (kind) {
	case OBJ_CQ:
		return "max_cq";
	case OBJ_SRQ:
		return "max_srq";
	case OBJ_QP:
		return "max_qp";
	case OBJ_MR:
		return "max_mr";
	default:
		return NULL;
	}
}

static int sroce_param(const char *name)
{
	char path[128];
	FILE *f;
	int v;

	snprintf(path, sizeof(path), "/sys/module/sroce/parameters/%s", name);
	f = fopen(path, "r");
	CHECK(f, "open %s: %s", path, strerror(errno));
	CHECK(fscanf(f, "%d", &v) == 1, "read %s", path);
	fclose(f);
	return v;
}

/*
 * The device is filled with objects of c->op up to exactly its advertised
 * limit: every create up to it succeeds, the one past it fails with
 * ENOMEM, one freed lets exactly one more be made. Frees everything.
 */
static void test_limit(const struct dp_case *c)
{
	enum obj_kind kind = (enum obj_kind)c->op;
	const char *what = obj_name[kind], *param = obj_param(kind);
	int max, pre, want, n, e, pv = 0;
	struct objset s;
	struct dp_dev d;
	uint64_t t0;
	void **objs;

	dp_open(&d, 0, 4);
	objset_init(&s, &d, kind, 0);
	max = obj_max(&d, kind);
	if (param) {
		/* What query_device says is what the parameter asked for. */
		pv = sroce_param(param);
		if (pv)
			CHECK_EQ(max, pv, param);
	}
	pre = obj_existing(&d, kind);
	want = max - pre;
	CHECK(want > 0, "%s: %d exist, limit %d", what, pre, max);
	objs = calloc((size_t)want + 1, sizeof(*objs));
	CHECK(objs, "calloc");
	t0 = dp_now_ms();
	n = fill_objs(&s, kind, objs, want + 1, &e);
	NOTE("%s: %d existed, %d created (limit %d%s%s) in %llu ms", what, pre, n,
	     max, pv ? ", module parameter " : "", pv ? param : "",
	     (unsigned long long)(dp_now_ms() - t0));
	CHECK(n >= want, "%s: create %d (the device's %dth) failed with %s, under "
	      "the advertised limit %d", what, n, pre + n + 1,
	      e ? strerror(e) : "no errno", max);
	CHECK(n == want, "%s: %d created, over the advertised limit %d", what,
	      pre + n, max);
	CHECK(e == ENOMEM, "%s: create past the limit failed with %s, want ENOMEM",
	      what, strerror(e));
	if (kind != OBJ_MW && kind != OBJ_AH)	/* counted by the core too */
		CHECK_EQ(obj_existing(&d, kind), max, "objects on the device at the limit");
	drop_objs(&objs[n - 1], 1, kind);
	objs[n - 1] = make_obj(&s, kind);
	CHECK(objs[n - 1], "%s: none again after one freed: %s", what, strerror(errno));
	errno = 0;
	CHECK(!make_obj(&s, kind) && errno == ENOMEM,
	      "%s: one more after the refill (errno %s)", what, strerror(errno));
	t0 = dp_now_ms();
	drop_objs(objs, n, kind);
	NOTE("%s: %d destroyed in %llu ms", what, n,
	     (unsigned long long)(dp_now_ms() - t0));
	free(objs);
	objset_fini(&s);
	dp_close(&d);
}

/* A create with one depth at @v must succeed (@ok) or fail with EINVAL. */
static void depth_try(struct dp_dev *d, const char *what, unsigned int v, int ok)
{
	struct ibv_qp_init_attr qa = {
		.qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = 1, .max_recv_wr = 1, .max_send_sge = 1,
			 .max_recv_sge = 1 },
	};
	struct ibv_srq_init_attr sa = { .attr = { .max_wr = 1, .max_sge = 1 } };
	struct ibv_srq *srq = NULL;
	struct ibv_cq *cq = NULL;
	struct ibv_qp *qp = NULL;
	void *obj;

	errno = 0;
	if (!strcmp(what, "max_cqe")) {
		obj = cq = ibv_create_cq(d->ctx, (int)v, NULL, NULL, 0);
	} else if (!strncmp(what, "max_srq", 7)) {
		if (!strcmp(what, "max_srq_wr"))
			sa.attr.max_wr = v;
		else
			sa.attr.max_sge = v;
		obj = srq = ibv_create_srq(d->pd, &sa);
	} else {
		qa.send_cq = qa.recv_cq = cq = ibv_create_cq(d->ctx, 16, NULL, NULL, 0);
		CHECK(cq, "create_cq: %s", strerror(errno));
		if (!strcmp(what, "max_send_wr"))
			qa.cap.max_send_wr = v;
		else if (!strcmp(what, "max_recv_wr"))
			qa.cap.max_recv_wr = v;
		else if (!strcmp(what, "max_send_sge"))
			qa.cap.max_send_sge = v;
		else
			qa.cap.max_recv_sge = v;
		obj = qp = ibv_create_qp(d->pd, &qa);
	}
	if (ok)
		CHECK(obj, "%s %u (the device's): %s", what, v, strerror(errno));
	else
		CHECK(!obj && errno == EINVAL, "%s %u (one past the device's): %s, "
		      "want EINVAL", what, v, obj ? "created" : strerror(errno));
	if (qp)
		CHECK(!ibv_destroy_qp(qp), "destroy_qp");
	if (srq)
		CHECK(!ibv_destroy_srq(srq), "destroy_srq");
	if (cq)
		CHECK(!ibv_destroy_cq(cq), "destroy_cq");
}

static void test_depths(const struct dp_case *c)
{
	struct dp_dev d;
	const struct ibv_device_attr *a = &d.attr.orig_attr;

	dp_open(&d, 0, 4);
	const struct { const char *what; unsigned int max; } depth[] = {
		{ "max_cqe", a->max_cqe },
		{ "max_send_wr", a->max_qp_wr },
		{ "max_recv_wr", a->max_qp_wr },
		{ "max_send_sge", a->max_sge },
		{ "max_recv_sge", a->max_sge },
		{ "max_srq_wr", a->max_srq_wr },
		{ "max_srq_sge", a->max_srq_sge },
	};
	for (size_t i = 0; i < ARRAY_SIZE(depth); i++) {
		depth_try(&d, depth[i].what, depth[i].max, 1);
		depth_try(&d, depth[i].what, depth[i].max + 1, 0);
		NOTE("%s: %u made, %u refused (EINVAL)", depth[i].what,
		     depth[i].max, depth[i].max + 1);
	}
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

#define CG_OBJS 256	/* far more than CG_MAX holds of any kind below */

/* Big CQs (2 MiB), SRQs (4 MiB), QPs (10 MiB) and MRs (a 256 KiB array). */
static const enum obj_kind cg_kinds[] = { OBJ_CQ, OBJ_SRQ, OBJ_QP, OBJ_MR };

static void test_cgroup(const struct dp_case *c)
{
	static void *objs[CG_OBJS];
	struct objset sets[ARRAY_SIZE(cg_kinds)];
	long long start, peak, end;
	struct dp_dev d;
	size_t k;
	int n, n2, e;

	dp_open(&d, 0, 4);
	/* Helpers and the MRs' memory first: charged outside the cgroup. */
	for (k = 0; k < ARRAY_SIZE(cg_kinds); k++)
		objset_init(&sets[k], &d, cg_kinds[k], 1);
	cg_enter();
	start = cg_read("memory.current", NULL);
	for (k = 0; k < ARRAY_SIZE(cg_kinds); k++) {
		enum obj_kind kind = cg_kinds[k];
		const char *what = obj_name[kind];

		n = fill_objs(&sets[k], kind, objs, CG_OBJS, &e);
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
		n2 = fill_objs(&sets[k], kind, objs, CG_OBJS, &e);
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
	for (k = 0; k < ARRAY_SIZE(cg_kinds); k++)
		objset_fini(&sets[k]);
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
	{ "AH_limit", test_limit, 0, 0, OBJ_AH },
	{ "CQ_limit", test_limit, 0, 0, OBJ_CQ },
	{ "SRQ_limit", test_limit, 0, 0, OBJ_SRQ },
	{ "QP_limit", test_limit, 0, 0, OBJ_QP },
	{ "MR_limit", test_limit, 0, 0, OBJ_MR },
	{ "queue_depths", test_depths },
	{ "cgroup_CQ_SRQ_QP_MR_ENOMEM", test_cgroup },
	{ "ODP_explicit_max_mr_size", test_odp_size },
	{ "ODP_implicit_children", test_odp_children },
};

int main(int argc, char **argv)
{
	return dp_main(argc, argv, cases, ARRAY_SIZE(cases));
}
