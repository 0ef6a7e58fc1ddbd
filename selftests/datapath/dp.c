// SPDX-License-Identifier: GPL-2.0-only
/*
 * dp.c: harness and helpers of the data-path tests (see dp.h).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "dp.h"

const char *dp_case_name = "?";

static struct {
	const char *dev[2];
	const char *ip4[2];
	const char *ip6[2];
	const char *filter;
	/* DP_TCLASS: the GRH traffic class of every path and AH (ECN tests) */
	unsigned int tclass;
} conf;

void dp_fail(const char *file, int line, const char *fmt, ...)
{
	va_list ap;

	printf("# FAIL %s (%s:%d): ", dp_case_name, file, line);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
	_exit(1);
}

void dp_skip(const char *fmt, ...)
{
	va_list ap;

	printf("# SKIP %s: ", dp_case_name);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
	_exit(4);
}

uint64_t dp_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

uint64_t dp_counter(const struct dp_dev *d, const char *name)
{
	char path[256], buf[64];
	FILE *f;

	usleep(30000);	/* the core caches hw_stats for 10 ms */
	snprintf(path, sizeof(path), "/sys/class/infiniband/%s/ports/1/hw_counters/%s",
		 d->name, name);
	f = fopen(path, "r");
	CHECK(f, "open %s: %s", path, strerror(errno));
	CHECK(fgets(buf, sizeof(buf), f), "read %s", path);
	fclose(f);
	return strtoull(buf, NULL, 10);
}

#define DP_PARAMS "/sys/module/sroce/parameters/"

/*
 * The parameters a case changed with dp_param_set(), and their values
 * before: shared with the parent (dp_main()), which puts them back after
 * the case's process ended, however it ended (failure, timeout signal).
 */
struct dp_saved_params {
	int n;
	struct {
		char name[64];
		char old[64];
	} p[8];
};
static struct dp_saved_params *dp_saved;

int dp_time_scale = 1;

__attribute__((constructor)) static void dp_time_scale_init(void)
{
	const char *s = getenv("SROCE_TIME_SCALE");
	int v = s ? atoi(s) : 1;

	dp_time_scale = v >= 1 && v <= 100 ? v : 1;
}

static int dp_param_write(const char *name, const char *val)
{
	char path[128];
	FILE *f;
	int ok;

	snprintf(path, sizeof(path), DP_PARAMS "%s", name);
	f = fopen(path, "w");
	if (!f)
		return -1;
	ok = fputs(val, f) >= 0;
	return fclose(f) == 0 && ok ? 0 : -1;
}

static void dp_param_restore(void)
{
	while (dp_saved && dp_saved->n > 0) {
		dp_saved->n--;
		if (dp_param_write(dp_saved->p[dp_saved->n].name,
				   dp_saved->p[dp_saved->n].old))
			printf("# could not restore module parameter %s\n",
			       dp_saved->p[dp_saved->n].name);
	}
}

void dp_param_set(const char *name, const char *val)
{
	char path[128];
	FILE *f;
	int i;

	CHECK(dp_saved, "dp_param_set outside a case");
	i = dp_saved->n;
	CHECK(i < (int)ARRAY_SIZE(dp_saved->p), "too many parameters changed");
	snprintf(path, sizeof(path), DP_PARAMS "%s", name);
	f = fopen(path, "r");
	CHECK(f, "open %s: %s", path, strerror(errno));
	CHECK(fgets(dp_saved->p[i].old, sizeof(dp_saved->p[i].old), f), "read %s", path);
	fclose(f);
	dp_saved->p[i].old[strcspn(dp_saved->p[i].old, "\n")] = 0;
	snprintf(dp_saved->p[i].name, sizeof(dp_saved->p[i].name), "%s", name);
	dp_saved->n++;
	CHECK(!dp_param_write(name, val), "write %s to %s: %s", val, path,
	      strerror(errno));
}

void dp_debugfs_write(const struct dp_dev *d, const char *file, unsigned int val)
{
	char path[256];
	FILE *f;

	snprintf(path, sizeof(path), "/sys/kernel/debug/sroce/%s/%s", d->name, file);
	f = fopen(path, "w");
	if (!f && errno == ENOENT)
		dp_skip("no %s (debugfs not mounted?)", path);
	CHECK(f, "open %s: %s", path, strerror(errno));
	CHECK(fprintf(f, "%u\n", val) > 0 && fclose(f) == 0, "write %s: %s",
	      path, strerror(errno));
}

/* "x,y" -> {x, y}; "x" -> {x, x}. The strings are leaked on purpose. */
static void split2(const char *s, const char *out[2])
{
	char *c;

	if (!s || !*s)
		return;
	out[0] = strdup(s);
	c = strchr(out[0], ',');
	if (c) {
		*c = 0;
		out[1] = c + 1;
	} else {
		out[1] = out[0];
	}
}

/*
 * The reason DP_SKIP gives for case @name, or NULL. DP_SKIP is a list of
 * "NAME=reason" separated by '|', exact names (interop_rxe.sh: cases a
 * peer cannot do are skipped with their reason, never counted passed).
 */
static const char *skip_reason(const char *name)
{
	static char why[256];
	const char *s = getenv("DP_SKIP"), *e, *eq;
	size_t len = strlen(name);

	for (; s && *s; s = *e ? e + 1 : e) {
		e = strchr(s, '|');
		if (!e)
			e = s + strlen(s);
		eq = memchr(s, '=', e - s);
		if (!eq || (size_t)(eq - s) != len || strncmp(s, name, len))
			continue;
		snprintf(why, sizeof(why), "%.*s", (int)(e - eq - 1), eq + 1);
		return why;
	}
	return NULL;
}

/* -t FILTER: the cases whose name holds FILTER; "!FILTER": the others. */
static int selected(const char *name)
{
	const char *f = conf.filter;

	if (!f)
		return 1;
	if (*f == '!')
		return !strstr(name, f + 1);
	return !!strstr(name, f);
}

int dp_main(int argc, char **argv, const struct dp_case *cases, size_t n)
{
	int o, list = 0, failed = 0, skipped = 0;
	size_t i, k = 0;

	split2(getenv("DP_DEVS"), conf.dev);
	split2(getenv("DP_IP4"), conf.ip4);
	split2(getenv("DP_IP6"), conf.ip6);
	if (getenv("DP_TCLASS"))
		conf.tclass = strtoul(getenv("DP_TCLASS"), NULL, 0) & 0xff;
	while ((o = getopt(argc, argv, "d:4:6:t:l")) != -1) {
		switch (o) {
		case 'd': split2(optarg, conf.dev); break;
		case '4': split2(optarg, conf.ip4); break;
		case '6': split2(optarg, conf.ip6); break;
		case 't': conf.filter = optarg; break;
		case 'l': list = 1; break;
		default:
			fprintf(stderr, "usage: %s -d devA[,devB] -4 ipA[,ipB] "
				"[-6 ipA[,ipB]] [-t filter] [-l]\n", argv[0]);
			return 2;
		}
	}
	dp_saved = mmap(NULL, sizeof(*dp_saved), PROT_READ | PROT_WRITE,
			MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (dp_saved == MAP_FAILED) {
		perror("mmap");
		return 1;
	}
	for (i = 0; i < n; i++) {
		if (list)
			printf("%s\n", cases[i].name);
		else if (selected(cases[i].name))
			k++;
	}
	if (list)
		return 0;
	if (!conf.dev[0] || !conf.ip4[0]) {
		fprintf(stderr, "%s: give -d and -4 (or DP_DEVS, DP_IP4)\n", argv[0]);
		return 2;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	printf("TAP version 13\n1..%zu\n", k);
	k = 0;
	for (i = 0; i < n; i++) {
		const struct dp_case *c = &cases[i];
		uint64_t t0 = dp_now_ms();
		int st = 0;
		pid_t pid;

		if (!selected(c->name))
			continue;
		k++;
		if (c->fam == 6 && !conf.ip6[0]) {
			printf("ok %zu %s # SKIP no IPv6 addresses given\n", k, c->name);
			skipped++;
			continue;
		}
		if (skip_reason(c->name)) {
			printf("ok %zu %s # SKIP %s\n", k, c->name,
			       skip_reason(c->name));
			skipped++;
			continue;
		}
		fflush(stdout);
		pid = fork();
		if (pid < 0) {
			perror("fork");
			return 1;
		}
		if (pid == 0) {
			dp_case_name = c->name;
			alarm(180);
			c->fn(c);
			fflush(stdout);
			_exit(0);
		}
		waitpid(pid, &st, 0);
		dp_param_restore();
		printf("# %s: %llu ms\n", c->name, (unsigned long long)(dp_now_ms() - t0));
		if (WIFEXITED(st) && WEXITSTATUS(st) == 0) {
			printf("ok %zu %s\n", k, c->name);
		} else if (WIFEXITED(st) && WEXITSTATUS(st) == 4) {
			printf("ok %zu %s # SKIP\n", k, c->name);
			skipped++;
		} else {
			if (WIFSIGNALED(st))
				printf("# %s: killed by signal %d%s\n", c->name,
				       WTERMSIG(st), WTERMSIG(st) == SIGALRM ?
				       " (timeout)" : "");
			printf("not ok %zu %s\n", k, c->name);
			failed++;
		}
	}
	printf("# %zu cases: %zu passed, %d failed, %d skipped\n", k,
	       k - failed - skipped, failed, skipped);
	return failed ? 1 : 0;
}

/* ---- devices ---------------------------------------------------------- */

static int read_line(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "r");
	int ok;

	if (!f)
		return -1;
	ok = fgets(buf, len, f) != NULL;
	fclose(f);
	if (!ok)
		return -1;
	buf[strcspn(buf, "\n")] = 0;
	return 0;
}

/* The index of the RoCE v2 GID of want in the device's port 1, or -1. */
static int find_gid(const char *dev, const unsigned char want[16], int tbl_len)
{
	char path[256], line[128], type[64];
	unsigned char g[16];
	int i;

	for (i = 0; i < tbl_len; i++) {
		snprintf(path, sizeof(path),
			 "/sys/class/infiniband/%s/ports/1/gids/%d", dev, i);
		if (read_line(path, line, sizeof(line)) ||
		    inet_pton(AF_INET6, line, g) != 1 || memcmp(g, want, 16))
			continue;
		snprintf(path, sizeof(path),
			 "/sys/class/infiniband/%s/ports/1/gid_attrs/types/%d", dev, i);
		if (read_line(path, type, sizeof(type)) || strcmp(type, "RoCE v2"))
			continue;
		return i;
	}
	return -1;
}

unsigned int dp_mtu_bytes(enum ibv_mtu m)
{
	return 128u << m;
}

unsigned int dp_max_sge(const struct dp_dev *d)
{
	unsigned int m = d->attr.orig_attr.max_sge;

	return m > DP_MAX_SGE ? DP_MAX_SGE : m;
}

struct ibv_context *dp_open_ctx(const char *name)
{
	struct ibv_device **list = ibv_get_device_list(NULL);
	struct ibv_context *ctx = NULL;
	int i, e = ENODEV;

	if (!list)
		return NULL;
	for (i = 0; list[i] && !ctx; i++)
		if (!strcmp(ibv_get_device_name(list[i]), name)) {
			ctx = ibv_open_device(list[i]);
			e = errno;
		}
	ibv_free_device_list(list);
	if (!ctx)
		errno = e;
	return ctx;
}

void dp_open(struct dp_dev *d, int end, int fam)
{
	const char *ip = fam == 6 ? conf.ip6[end] : conf.ip4[end];
	unsigned char want[16];
	uint64_t t0;

	memset(d, 0, sizeof(*d));
	d->name = conf.dev[end];
	d->family = fam == 6 ? 6 : 4;
	CHECK(ip, "no IPv%d address for end %c", d->family, 'A' + end);
	memset(want, 0, sizeof(want));
	if (d->family == 4) {
		CHECK(inet_pton(AF_INET, ip, d->ip) == 1, "bad IPv4 %s", ip);
		want[10] = want[11] = 0xff;
		memcpy(want + 12, d->ip, 4);
	} else {
		CHECK(inet_pton(AF_INET6, ip, d->ip) == 1, "bad IPv6 %s", ip);
		memcpy(want, d->ip, 16);
	}
	d->ctx = dp_open_ctx(d->name);
	CHECK(d->ctx, "cannot open device %s: %s", d->name, strerror(errno));
	CHECK(!ibv_query_device_ex(d->ctx, NULL, &d->attr), "query_device %s", d->name);
	CHECK(!ibv_query_port(d->ctx, 1, &d->port), "query_port %s", d->name);
	CHECK(d->port.state == IBV_PORT_ACTIVE, "%s port 1 not ACTIVE (%d)",
	      d->name, d->port.state);
	/* GIDs follow address changes asynchronously: give them time. */
	t0 = dp_now_ms();
	while ((d->gid_index = find_gid(d->name, want, d->port.gid_tbl_len)) < 0 &&
	       dp_now_ms() - t0 < 10000)
		usleep(100000);
	CHECK(d->gid_index >= 0, "%s has no RoCE v2 GID for %s", d->name, ip);
	CHECK(!ibv_query_gid(d->ctx, 1, d->gid_index, &d->gid), "query_gid");
	CHECK(!memcmp(d->gid.raw, want, 16), "%s: ibv_query_gid(%d) disagrees with sysfs",
	      d->name, d->gid_index);
	d->pd = ibv_alloc_pd(d->ctx);
	CHECK(d->pd, "alloc_pd on %s: %s", d->name, strerror(errno));
}

void dp_close(struct dp_dev *d)
{
	if (d->pd)
		CHECK(!ibv_dealloc_pd(d->pd), "dealloc_pd %s", d->name);
	if (d->ctx)
		CHECK(!ibv_close_device(d->ctx), "close_device %s", d->name);
	memset(d, 0, sizeof(*d));
}

/* ---- QP pairs ------------------------------------------------------- */

static void buf_alloc(struct dp_dev *d, struct dp_buf *b, size_t len,
		      unsigned int extra)
{
	int access = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
		     IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC | extra;

	b->len = len;
	CHECK(!posix_memalign((void **)&b->p, 4096, len), "no memory for %zu bytes", len);
	memset(b->p, 0, len);
	b->mr = ibv_reg_mr(d->pd, b->p, len, access);
	CHECK(b->mr, "reg_mr %zu bytes on %s: %s", len, d->name, strerror(errno));
}

static struct ibv_cq *make_cq(struct dp_end *e, const struct dp_cfg *cfg,
			      struct ibv_cq_ex **cqx, int depth)
{
	struct ibv_cq *cq;

	if (cfg->qpex) {
		struct ibv_cq_init_attr_ex ca = {
			.cqe = depth,
			.channel = e->ch,
			.cq_context = e,
			.wc_flags = IBV_WC_EX_WITH_BYTE_LEN | IBV_WC_EX_WITH_IMM |
				    IBV_WC_EX_WITH_QP_NUM | IBV_WC_EX_WITH_SRC_QP,
		};
		*cqx = ibv_create_cq_ex(e->dev->ctx, &ca);
		CHECK(*cqx, "create_cq_ex on %s: %s", e->dev->name, strerror(errno));
		return ibv_cq_ex_to_cq(*cqx);
	}
	cq = ibv_create_cq(e->dev->ctx, depth, e, e->ch, 0);
	CHECK(cq, "create_cq on %s: %s", e->dev->name, strerror(errno));
	return cq;
}

static void make_end(struct dp_pair *p, struct dp_end *e, struct dp_dev *d, int is_b)
{
	const struct dp_cfg *cfg = &p->cfg;
	unsigned int ssge = cfg->max_send_sge, rsge = cfg->max_recv_sge;
	struct ibv_qp_init_attr_ex qa = {
		.qp_type = cfg->type,
		.sq_sig_all = cfg->sq_sig_all,
		.comp_mask = IBV_QP_INIT_ATTR_PD,
		.pd = d->pd,
	};

	e->dev = d;
	if (cfg->channel) {
		e->ch = ibv_create_comp_channel(d->ctx);
		CHECK(e->ch, "create_comp_channel: %s", strerror(errno));
	}
	e->scq = make_cq(e, cfg, &e->scq_ex, 2 * cfg->max_send_wr + 16);
	e->rcq = make_cq(e, cfg, &e->rcq_ex, 2 * cfg->max_recv_wr + 16);
	if (ssge == ~0U)
		ssge = dp_max_sge(d);
	if (rsge == ~0U)
		rsge = dp_max_sge(d);
	qa.send_cq = e->scq;
	qa.recv_cq = e->rcq;
	qa.cap.max_send_wr = cfg->max_send_wr;
	qa.cap.max_recv_wr = cfg->max_recv_wr;
	qa.cap.max_send_sge = ssge ? ssge : 1;
	/* UD receives default to 2 SGEs: the GRH and the data. */
	qa.cap.max_recv_sge = rsge ? rsge : cfg->type == IBV_QPT_UD ? 2 : 1;
	qa.cap.max_inline_data = cfg->max_inline;
	if (is_b && cfg->use_srq) {
		qa.srq = cfg->use_srq;
	} else if (is_b && cfg->srq) {
		struct ibv_srq_init_attr sa = {
			.attr = { .max_wr = cfg->max_recv_wr, .max_sge = 2 },
		};
		e->srq = ibv_create_srq(d->pd, &sa);
		CHECK(e->srq, "create_srq: %s", strerror(errno));
		qa.srq = e->srq;
	}
	if (qa.srq) {
		qa.cap.max_recv_wr = 0;
		qa.cap.max_recv_sge = 0;
	}
	if (cfg->qpex) {
		qa.comp_mask |= IBV_QP_INIT_ATTR_SEND_OPS_FLAGS;
		qa.send_ops_flags = IBV_QP_EX_WITH_SEND | IBV_QP_EX_WITH_SEND_WITH_IMM;
		if (cfg->type != IBV_QPT_UD)
			qa.send_ops_flags |= IBV_QP_EX_WITH_RDMA_WRITE |
					     IBV_QP_EX_WITH_RDMA_WRITE_WITH_IMM;
		if (cfg->type == IBV_QPT_RC)
			qa.send_ops_flags |= IBV_QP_EX_WITH_RDMA_READ |
					     IBV_QP_EX_WITH_ATOMIC_CMP_AND_SWP |
					     IBV_QP_EX_WITH_ATOMIC_FETCH_AND_ADD;
		qa.send_ops_flags |= cfg->send_ops_extra;
	}
	e->qp = ibv_create_qp_ex(d->ctx, &qa);
	CHECK(e->qp, "create_qp type %d on %s (send_wr %u sge %u/%u inline %u): %s",
	      cfg->type, d->name, qa.cap.max_send_wr, qa.cap.max_send_sge,
	      qa.cap.max_recv_sge, qa.cap.max_inline_data, strerror(errno));
	e->cap = qa.cap;
	/* seed-rules R1.4: 24-bit QPNs; 0, 1 (SMI/GSI), 0xFFFFFF are special. */
	CHECK(e->qp->qp_num > 1 && e->qp->qp_num < 0xffffff,
	      "QP number 0x%x is not an ordinary 24-bit QPN", e->qp->qp_num);
	if (cfg->qpex) {
		e->qpx = ibv_qp_to_qp_ex(e->qp);
		CHECK(e->qpx, "ibv_qp_to_qp_ex");
	}
	buf_alloc(d, &e->buf, cfg->buf_len, cfg->mr_access_extra);
}

static void to_init(struct dp_pair *p, struct dp_end *e)
{
	struct ibv_qp_attr at = {
		.qp_state = IBV_QPS_INIT,
		.pkey_index = 0,
		.port_num = 1,
	};
	int mask = IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT;

	if (p->cfg.type == IBV_QPT_UD) {
		at.qkey = p->qkey;
		mask |= IBV_QP_QKEY;
	} else {
		at.qp_access_flags = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE;
		if (p->cfg.type == IBV_QPT_RC)
			at.qp_access_flags |= IBV_ACCESS_REMOTE_READ |
					      IBV_ACCESS_REMOTE_ATOMIC;
		at.qp_access_flags |= p->cfg.qp_access_extra;
		mask |= IBV_QP_ACCESS_FLAGS;
	}
	CHECK(!ibv_modify_qp(e->qp, &at, mask), "modify_qp to INIT: %s", strerror(errno));
}

void dp_fill_ah(struct ibv_ah_attr *ah, const struct dp_dev *self,
		const struct dp_dev *peer)
{
	memset(ah, 0, sizeof(*ah));
	ah->is_global = 1;
	ah->port_num = 1;
	ah->grh.dgid = peer->gid;
	ah->grh.sgid_index = self->gid_index;
	ah->grh.hop_limit = 64;
	ah->grh.traffic_class = conf.tclass;
}

static void to_rtr_rts(struct dp_pair *p, struct dp_end *e, struct dp_end *peer,
		       uint32_t my_psn, uint32_t peer_psn)
{
	struct ibv_qp_attr at = { .qp_state = IBV_QPS_RTR };
	int mask = IBV_QP_STATE;
	unsigned int rd;

	if (p->cfg.type != IBV_QPT_UD) {
		at.path_mtu = e->dev->port.active_mtu < peer->dev->port.active_mtu ?
			      e->dev->port.active_mtu : peer->dev->port.active_mtu;
		at.dest_qp_num = peer->qp->qp_num;
		at.rq_psn = peer_psn;
		dp_fill_ah(&at.ah_attr, e->dev, peer->dev);
		mask |= IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN;
		if (p->cfg.type == IBV_QPT_RC) {
			rd = e->dev->attr.orig_attr.max_qp_rd_atom;
			at.max_dest_rd_atomic = p->cfg.max_dest_rd_atomic ?:
						rd > 16 ? 16 : rd;
			at.min_rnr_timer = p->cfg.rc_timers ? p->cfg.min_rnr_timer :
					   12;	/* 0.64 ms */
			mask |= IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER;
		}
	}
	CHECK(!ibv_modify_qp(e->qp, &at, mask), "modify_qp to RTR: %s", strerror(errno));

	memset(&at, 0, sizeof(at));
	at.qp_state = IBV_QPS_RTS;
	at.sq_psn = my_psn;
	mask = IBV_QP_STATE | IBV_QP_SQ_PSN;
	if (p->cfg.type == IBV_QPT_RC) {
		rd = e->dev->attr.orig_attr.max_qp_init_rd_atom;
		at.timeout = p->cfg.rc_timers ? p->cfg.timeout : 14;
		at.retry_cnt = p->cfg.rc_timers ? p->cfg.retry_cnt : 7;
		at.rnr_retry = p->cfg.rc_timers ? p->cfg.rnr_retry : 7;
		at.max_rd_atomic = p->cfg.max_rd_atomic ?: rd > 16 ? 16 : rd;
		mask |= IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
			IBV_QP_MAX_QP_RD_ATOMIC;
	}
	CHECK(!ibv_modify_qp(e->qp, &at, mask), "modify_qp to RTS: %s", strerror(errno));
	if (p->cfg.type == IBV_QPT_UD) {
		struct ibv_ah_attr ah;

		dp_fill_ah(&ah, e->dev, peer->dev);
		e->ah = ibv_create_ah(e->dev->pd, &ah);
		CHECK(e->ah, "create_ah: %s", strerror(errno));
	}
}

void dp_pair_create(struct dp_pair *p, struct dp_dev *a, struct dp_dev *b,
		    const struct dp_cfg *cfg)
{
	memset(p, 0, sizeof(*p));
	p->cfg = *cfg;
	if (!p->cfg.max_send_wr)
		p->cfg.max_send_wr = 64;
	if (!p->cfg.max_recv_wr)
		p->cfg.max_recv_wr = 64;
	if (!p->cfg.buf_len)
		p->cfg.buf_len = 64 * KiB;
	/* A's PSN starts near the 24-bit wrap (seed-rules R2.8). */
	if (!p->cfg.psn_a && !p->cfg.psn_b) {
		p->cfg.psn_a = 0xfffff0;
		p->cfg.psn_b = 0x123456;
	}
	p->qkey = 0x11111111;	/* not privileged (seed-rules R1.5) */
	make_end(p, &p->a, a, 0);
	make_end(p, &p->b, b, 1);
	to_init(p, &p->a);
	to_init(p, &p->b);
	to_rtr_rts(p, &p->a, &p->b, p->cfg.psn_a, p->cfg.psn_b);
	to_rtr_rts(p, &p->b, &p->a, p->cfg.psn_b, p->cfg.psn_a);
	p->mtu = dp_mtu_bytes(a->port.active_mtu < b->port.active_mtu ?
			      a->port.active_mtu : b->port.active_mtu);
}

void dp_pair_reconnect(struct dp_pair *p)
{
	struct ibv_qp_attr at = { .qp_state = IBV_QPS_RESET };
	struct dp_end *e[2] = { &p->a, &p->b };
	int i;

	for (i = 0; i < 2; i++) {
		CHECK(!ibv_modify_qp(e[i]->qp, &at, IBV_QP_STATE),
		      "modify_qp to RESET: %s", strerror(errno));
		if (e[i]->ah)
			CHECK(!ibv_destroy_ah(e[i]->ah), "destroy_ah");
		e[i]->ah = NULL;
	}
	to_init(p, &p->a);
	to_init(p, &p->b);
	to_rtr_rts(p, &p->a, &p->b, p->cfg.psn_a, p->cfg.psn_b);
	to_rtr_rts(p, &p->b, &p->a, p->cfg.psn_b, p->cfg.psn_a);
}

static void end_destroy(struct dp_end *e)
{
	if (e->ah)
		CHECK(!ibv_destroy_ah(e->ah), "destroy_ah");
	if (e->qp)
		CHECK(!ibv_destroy_qp(e->qp), "destroy_qp: %s", strerror(errno));
	if (e->srq)
		CHECK(!ibv_destroy_srq(e->srq), "destroy_srq");
	if (e->buf.mr)
		CHECK(!ibv_dereg_mr(e->buf.mr), "dereg_mr");
	free(e->buf.p);
	if (e->scq)
		CHECK(!ibv_destroy_cq(e->scq), "destroy_cq");
	if (e->rcq)
		CHECK(!ibv_destroy_cq(e->rcq), "destroy_cq");
	if (e->ch)
		CHECK(!ibv_destroy_comp_channel(e->ch), "destroy_comp_channel");
	memset(e, 0, sizeof(*e));
}

void dp_pair_destroy(struct dp_pair *p)
{
	end_destroy(&p->a);
	end_destroy(&p->b);
}

void dp_setup(struct dp_pair *p, struct dp_dev d[2], int fam,
	      const struct dp_cfg *cfg)
{
	dp_open(&d[0], 0, fam);
	dp_open(&d[1], 1, fam);
	dp_pair_create(p, &d[0], &d[1], cfg);
}

void dp_teardown(struct dp_pair *p, struct dp_dev d[2])
{
	dp_pair_destroy(p);
	dp_close(&d[1]);
	dp_close(&d[0]);
}

/* ---- data ---------------------------------------------------------- */

void dp_sgl_make(struct dp_sgl *s, const struct dp_buf *b, size_t off,
		 size_t len, int nsge, int grh)
{
	size_t pos = off, chunk;
	int i;

	memset(s, 0, sizeof(*s));
	s->len = len;
	s->grh = grh;
	if ((size_t)nsge > len)
		nsge = len;
	CHECK(nsge <= DP_MAX_SGE, "too many SGEs %d", nsge);
	if (grh) {
		s->sge[s->n++] = (struct ibv_sge){
			(uintptr_t)b->p + pos, DP_GRH, b->mr->lkey };
		pos += DP_GRH + DP_GAP;
	}
	chunk = nsge ? len / nsge : 0;
	for (i = 0; i < nsge; i++) {
		size_t l = i == nsge - 1 ? len - chunk * (nsge - 1) : chunk;

		s->sge[s->n++] = (struct ibv_sge){
			(uintptr_t)b->p + pos, (uint32_t)l, b->mr->lkey };
		pos += l + DP_GAP;
	}
	s->span = pos - off;
	CHECK(pos <= b->len, "buffer of %zu bytes too small for %zu + gaps",
	      b->len, len);
}

void dp_sgl_fill(const struct dp_sgl *s, uint32_t seed)
{
	size_t m = 0, j;
	int i;

	memset((void *)(uintptr_t)s->sge[0].addr, 0xc3, s->n ? s->span : 0);
	for (i = s->grh; i < s->n; i++) {
		unsigned char *p = (unsigned char *)(uintptr_t)s->sge[i].addr;

		for (j = 0; j < s->sge[i].length; j++)
			p[j] = dp_pat(m++, seed);
	}
}

void dp_sgl_clear(const struct dp_sgl *s, unsigned char sentinel)
{
	if (s->n)
		memset((void *)(uintptr_t)s->sge[0].addr, sentinel, s->span);
}

void dp_sgl_check(const struct dp_sgl *s, uint32_t seed, unsigned char sentinel,
		  const char *what)
{
	size_t m = 0, j, bad = 0, first = 0;
	int i, first_sge = -1;
	unsigned char got = 0, want = 0;

	for (i = s->grh; i < s->n; i++) {
		const unsigned char *p = (const unsigned char *)(uintptr_t)s->sge[i].addr;

		for (j = 0; j < s->sge[i].length; j++, m++) {
			if (p[j] == dp_pat(m, seed))
				continue;
			if (!bad++) {
				first = m;
				first_sge = i - s->grh;
				got = p[j];
				want = dp_pat(m, seed);
			}
		}
		for (j = 0; j < DP_GAP; j++)
			CHECK(p[s->sge[i].length + j] == sentinel,
			      "%s: guard byte %zu after SGE %d (of %d) overwritten: "
			      "0x%02x, want 0x%02x", what, j, i - s->grh,
			      s->n - s->grh, p[s->sge[i].length + j], sentinel);
	}
	CHECK(!bad, "%s: %zu of %zu bytes wrong; first: message byte %zu (SGE %d): "
	      "got 0x%02x, want 0x%02x", what, bad, s->len, first, first_sge, got, want);
}

void dp_check_range(const unsigned char *p, size_t len, uint32_t seed,
		    const char *what)
{
	size_t i, bad = 0, first = 0;

	for (i = 0; i < len; i++)
		if (p[i] != dp_pat(i, seed) && !bad++)
			first = i;
	CHECK(!bad, "%s: %zu of %zu bytes wrong; first at byte %zu: got 0x%02x, "
	      "want 0x%02x", what, bad, len, first, p[first], dp_pat(first, seed));
}

void dp_check_fill(const unsigned char *p, size_t len, unsigned char c,
		   const char *what)
{
	size_t i;

	for (i = 0; i < len; i++)
		CHECK(p[i] == c, "%s: byte %zu is 0x%02x, want untouched 0x%02x",
		      what, i, p[i], c);
}

/* ---- posting and polling ------------------------------------------- */

void dp_post_recv(struct dp_end *e, uint64_t wr_id, struct ibv_sge *sge, int n)
{
	struct ibv_recv_wr wr = { .wr_id = wr_id, .sg_list = sge, .num_sge = n }, *bad;
	int rc = ibv_post_recv(e->qp, &wr, &bad);

	CHECK(!rc, "post_recv (%d SGEs): %s", n, strerror(rc));
}

void dp_post_srq_recv(struct ibv_srq *srq, uint64_t wr_id, struct ibv_sge *sge,
		      int n)
{
	struct ibv_recv_wr wr = { .wr_id = wr_id, .sg_list = sge, .num_sge = n }, *bad;
	int rc = ibv_post_srq_recv(srq, &wr, &bad);

	CHECK(!rc, "post_srq_recv: %s", strerror(rc));
}

void dp_post_send(struct dp_end *e, struct ibv_send_wr *wr)
{
	struct ibv_send_wr *bad;
	int rc = ibv_post_send(e->qp, wr, &bad);

	CHECK(!rc, "post_send opcode %d (%d SGEs, flags 0x%x): %s", wr->opcode,
	      wr->num_sge, wr->send_flags, strerror(rc));
}

void dp_send_wr(struct dp_pair *p, enum ibv_wr_opcode op, uint64_t wr_id,
		const struct dp_sgl *s, unsigned int flags, uint32_t imm,
		uint64_t raddr, uint32_t rkey)
{
	struct ibv_send_wr wr = {
		.wr_id = wr_id,
		.sg_list = s ? (struct ibv_sge *)&s->sge[s->grh] : NULL,
		.num_sge = s ? s->n - s->grh : 0,
		.opcode = op,
		.send_flags = flags,
	};

	if (op == IBV_WR_SEND_WITH_INV)
		wr.invalidate_rkey = rkey;
	else
		wr.imm_data = htonl(imm);
	if (op == IBV_WR_RDMA_WRITE || op == IBV_WR_RDMA_WRITE_WITH_IMM ||
	    op == IBV_WR_RDMA_READ) {
		wr.wr.rdma.remote_addr = raddr;
		wr.wr.rdma.rkey = rkey;
	}
	if (p->cfg.type == IBV_QPT_UD) {
		wr.wr.ud.ah = p->a.ah;
		wr.wr.ud.remote_qpn = p->b.qp->qp_num;
		wr.wr.ud.remote_qkey = p->qkey;
	}
	dp_post_send(&p->a, &wr);
}

void dp_poll(struct ibv_cq *cq, struct ibv_wc *wc, int timeout_ms, const char *what)
{
	uint64_t t0 = dp_now_ms();
	unsigned int spins = 0;
	int n;

	for (;;) {
		n = ibv_poll_cq(cq, 1, wc);
		CHECK(n >= 0, "%s: poll_cq returned %d", what, n);
		if (n == 1)
			return;
		if (++spins > 64) {
			CHECK(dp_now_ms() - t0 < (uint64_t)timeout_ms,
			      "%s: no completion within %d ms", what, timeout_ms);
			usleep(200);
		}
	}
}

void dp_expect_none(struct ibv_cq *cq, int ms, const char *what)
{
	uint64_t t0 = dp_now_ms();
	struct ibv_wc wc;
	int n;

	do {
		n = ibv_poll_cq(cq, 1, &wc);
		CHECK(n >= 0, "%s: poll_cq returned %d", what, n);
		CHECK(n == 0, "%s: unexpected completion wr_id %llu status %s "
		      "opcode %d byte_len %u", what, (unsigned long long)wc.wr_id,
		      ibv_wc_status_str(wc.status), wc.opcode, wc.byte_len);
		usleep(1000);
	} while (dp_now_ms() - t0 < (uint64_t)ms);
}

static const char *wc_opcode_str(int op)
{
	switch (op) {
	case IBV_WC_SEND: return "SEND";
	case IBV_WC_RDMA_WRITE: return "RDMA_WRITE";
	case IBV_WC_RDMA_READ: return "RDMA_READ";
	case IBV_WC_COMP_SWAP: return "COMP_SWAP";
	case IBV_WC_FETCH_ADD: return "FETCH_ADD";
	case IBV_WC_BIND_MW: return "BIND_MW";
	case IBV_WC_LOCAL_INV: return "LOCAL_INV";
	case IBV_WC_RECV: return "RECV";
	case IBV_WC_RECV_RDMA_WITH_IMM: return "RECV_RDMA_WITH_IMM";
	case IBV_WC_FLUSH: return "FLUSH";
	case IBV_WC_ATOMIC_WRITE: return "ATOMIC_WRITE";
	}
	return "?";
}

void dp_check_wc(const struct ibv_wc *wc, enum ibv_wc_status st,
		 enum ibv_wc_opcode op, uint64_t wr_id, uint32_t qp_num,
		 const char *what)
{
	CHECK(wc->status == st, "%s: wc status %s (%d), want %s (vendor_err 0x%x, "
	      "wr_id %llu)", what, ibv_wc_status_str(wc->status), wc->status,
	      ibv_wc_status_str(st), wc->vendor_err, (unsigned long long)wc->wr_id);
	CHECK(wc->wr_id == wr_id, "%s: wc wr_id %llu, want %llu", what,
	      (unsigned long long)wc->wr_id, (unsigned long long)wr_id);
	CHECK(wc->qp_num == qp_num, "%s: wc qp_num 0x%x, want 0x%x", what,
	      wc->qp_num, qp_num);
	/* The opcode of an error completion is undefined (IBA 11.4.2.1). */
	if (st == IBV_WC_SUCCESS)
		CHECK(wc->opcode == op, "%s: wc opcode %s (%d), want %s (%d)", what,
		      wc_opcode_str(wc->opcode), wc->opcode, wc_opcode_str(op), op);
}

void dp_check_grh(const struct dp_pair *p, const unsigned char *g, const char *what)
{
	const struct dp_dev *a = p->a.dev, *b = p->b.dev;

	if (a->family == 4) {
		/* RoCEv2 over IPv4: the IPv4 header is in the last 20 bytes. */
		const unsigned char *ip = g + 20;

		CHECK(ip[0] == 0x45, "%s: GRH area byte 20 is 0x%02x, want 0x45 "
		      "(IPv4, IHL 5)", what, ip[0]);
		CHECK(ip[9] == 17, "%s: IPv4 protocol %u, want 17 (UDP)", what, ip[9]);
		CHECK(!memcmp(ip + 12, a->ip, 4), "%s: IPv4 source %u.%u.%u.%u is not "
		      "the sender's", what, ip[12], ip[13], ip[14], ip[15]);
		CHECK(!memcmp(ip + 16, b->ip, 4), "%s: IPv4 destination %u.%u.%u.%u "
		      "is not the receiver's", what, ip[16], ip[17], ip[18], ip[19]);
	} else {
		char s[INET6_ADDRSTRLEN];

		CHECK(g[0] >> 4 == 6, "%s: GRH IP version %u, want 6", what, g[0] >> 4);
		CHECK(g[6] == 17, "%s: GRH next header %u, want 17 (UDP)", what, g[6]);
		CHECK(!memcmp(g + 8, a->gid.raw, 16), "%s: GRH SGID %s is not the "
		      "sender's", what, inet_ntop(AF_INET6, g + 8, s, sizeof(s)));
		CHECK(!memcmp(g + 24, b->gid.raw, 16), "%s: GRH DGID %s is not the "
		      "receiver's", what, inet_ntop(AF_INET6, g + 24, s, sizeof(s)));
	}
}

void dp_mgid(int fam, unsigned int n, union ibv_gid *g)
{
	memset(g, 0, sizeof(*g));
	if (fam == 4) {
		g->raw[10] = 0xff;
		g->raw[11] = 0xff;
		g->raw[12] = 239;
		g->raw[13] = 1;
		g->raw[14] = 2;
		g->raw[15] = 3 + n;
	} else {
		g->raw[0] = 0xff;
		g->raw[1] = 0x0e;
		g->raw[11] = 5;
		g->raw[13] = 6;
		g->raw[15] = 7 + n;
	}
}
