// SPDX-License-Identifier: GPL-2.0-only
/*
 * err.c: helpers of the error selftests (see err.h).
 */
#include <errno.h>
#include <poll.h>
#include <stdarg.h>
#include <unistd.h>
#include "err.h"

const char *err_qp_state_str(enum ibv_qp_state s)
{
	static const char *const n[] = { "RESET", "INIT", "RTR", "RTS", "SQD",
					 "SQE", "ERR" };

	return (unsigned int)s < ARRAY_SIZE(n) ? n[s] : "?";
}

static const void *event_elem(const struct ibv_async_event *ev)
{
	switch (ev->event_type) {
	case IBV_EVENT_CQ_ERR:
		return ev->element.cq;
	case IBV_EVENT_SRQ_ERR:
	case IBV_EVENT_SRQ_LIMIT_REACHED:
		return ev->element.srq;
	case IBV_EVENT_QP_FATAL:
	case IBV_EVENT_QP_REQ_ERR:
	case IBV_EVENT_QP_ACCESS_ERR:
	case IBV_EVENT_COMM_EST:
	case IBV_EVENT_SQ_DRAINED:
	case IBV_EVENT_PATH_MIG:
	case IBV_EVENT_PATH_MIG_ERR:
	case IBV_EVENT_QP_LAST_WQE_REACHED:
		return ev->element.qp;
	default:
		return NULL;
	}
}

/*
 * The next event within ms: 1 and *ev filled (acked), or 0. GID_CHANGE is
 * passed over: GID tables follow link and address changes on their own
 * schedule (device/gid_change.sh checks that event).
 */
static int next_event(struct ibv_context *ctx, int ms, struct ibv_async_event *ev)
{
	struct pollfd pfd = { .fd = ctx->async_fd, .events = POLLIN };
	uint64_t end = dp_now_ms() + ms;
	int n;

	for (;;) {
		n = poll(&pfd, 1, (int)(end > dp_now_ms() ? end - dp_now_ms() : 0));
		CHECK(n >= 0, "poll on the async fd: %m");
		if (!n)
			return 0;
		CHECK(!ibv_get_async_event(ctx, ev), "ibv_get_async_event: %m");
		ibv_ack_async_event(ev);
		if (ev->event_type != IBV_EVENT_GID_CHANGE)
			return 1;
	}
}

void err_expect_event(struct ibv_context *ctx, enum ibv_event_type type,
		      const void *elem, int ms, const char *what)
{
	struct ibv_async_event ev;

	CHECK(next_event(ctx, ms, &ev), "%s: no %s event within %d ms", what,
	      ibv_event_type_str(type), ms);
	CHECK(ev.event_type == type, "%s: event %s, want %s", what,
	      ibv_event_type_str(ev.event_type), ibv_event_type_str(type));
	if (elem)
		CHECK(event_elem(&ev) == elem, "%s: %s event for %p, want %p",
		      what, ibv_event_type_str(type), event_elem(&ev), elem);
}

void err_expect_no_event(struct ibv_context *ctx, int ms, const char *what)
{
	struct ibv_async_event ev;

	CHECK(!next_event(ctx, ms, &ev), "%s: unexpected async event %s", what,
	      ibv_event_type_str(ev.event_type));
}

void err_expect_state(struct ibv_qp *qp, enum ibv_qp_state want, const char *what)
{
	struct ibv_qp_init_attr ia;
	struct ibv_qp_attr at;
	uint64_t t0 = dp_now_ms();

	for (;;) {
		CHECK(!ibv_query_qp(qp, &at, IBV_QP_STATE, &ia), "%s: query_qp: %m",
		      what);
		if (at.qp_state == want)
			return;
		CHECK(dp_now_ms() - t0 < 2000, "%s: QP 0x%x state %s, want %s", what,
		      qp->qp_num, err_qp_state_str(at.qp_state),
		      err_qp_state_str(want));
		usleep(10000);
	}
}

void err_expect_wc(struct ibv_cq *cq, enum ibv_wc_status st, uint64_t wr_id,
		   struct ibv_qp *qp, const char *what)
{
	struct ibv_wc wc;

	dp_poll(cq, &wc, 10000, what);
	/* The opcode is checked by the data-path tests, not here. */
	dp_check_wc(&wc, st, wc.opcode, wr_id, qp->qp_num, what);
}

uint32_t err_dead_key(struct ibv_pd *pd, void *addr, size_t len, int rkey)
{
	struct ibv_mr *mr = ibv_reg_mr(pd, addr, len, IBV_ACCESS_LOCAL_WRITE |
				       IBV_ACCESS_REMOTE_WRITE |
				       IBV_ACCESS_REMOTE_READ |
				       IBV_ACCESS_REMOTE_ATOMIC);
	uint32_t key;

	CHECK(mr, "reg_mr: %m");
	key = rkey ? mr->rkey : mr->lkey;
	CHECK(!ibv_dereg_mr(mr), "dereg_mr");
	return key;
}

void err_modify_to_err(struct ibv_qp *qp)
{
	struct ibv_qp_attr at = { .qp_state = IBV_QPS_ERR };

	CHECK(!ibv_modify_qp(qp, &at, IBV_QP_STATE), "modify_qp to ERR: %m");
}

int err_inject(const struct dp_pair *p, uint32_t psn, const char *args)
{
	return err_inject_to(p, 1, psn, args);
}

/*
 * The command that runs roce_pkt.py @verb in netns @ns towards @dst's IPv4
 * address, after a ping that resolves the neighbour (a raw packet may wait
 * for ARP); @fmt adds the verb's options.
 */
static void inject_cmd(char *cmd, size_t size, const char *ns,
		       const struct dp_dev *dst, const char *verb,
		       const char *fmt, ...)
{
	const char *pkt = getenv("ROCE_PKT");
	char ip[64], opts[512];
	va_list ap;

	if (!pkt || !ns)
		dp_skip("packet injection needs ROCE_PKT and NS_A/NS_B (sroce target)");
	CHECK(dst->family == 4, "injection is over IPv4");
	snprintf(ip, sizeof(ip), "%u.%u.%u.%u", dst->ip[0], dst->ip[1],
		 dst->ip[2], dst->ip[3]);
	va_start(ap, fmt);
	vsnprintf(opts, sizeof(opts), fmt, ap);
	va_end(ap);
	snprintf(cmd, size, "ip netns exec %s ping -q -c 1 -W 5 %s >/dev/null && "
		 "ip netns exec %s python3 %s %s %s %s", ns, ip, ns, pkt, verb,
		 ip, opts);
	NOTE("%s", cmd);
}

int err_inject_to(const struct dp_pair *p, int to_b, uint32_t psn, const char *args)
{
	const char *ns = getenv(to_b ? "NS_A" : "NS_B");
	const char *ifname = getenv(to_b ? "SNIFF_IF" : "SNIFF_IF_B");
	const struct dp_end *dst = to_b ? &p->b : &p->a, *src = to_b ? &p->a : &p->b;
	char cmd[1024], line[256];
	int syn = -1;
	FILE *f;

	if (!ifname)
		dp_skip("packet injection needs SNIFF_IF(_B) (sroce target)");
	inject_cmd(cmd, sizeof(cmd), ns, dst->dev, "req", "--qpn 0x%x --psn 0x%x "
		   "--sniff %s --reply-qpn 0x%x %s", dst->qp->qp_num, psn, ifname,
		   src->qp->qp_num, args);
	f = popen(cmd, "r");
	CHECK(f, "popen: %m");
	while (fgets(line, sizeof(line), f)) {
		unsigned int v;

		printf("# %s", line);
		if (sscanf(line, "reply syndrome 0x%x", &v) == 1)
			syn = (int)v;
	}
	CHECK(pclose(f) == 0, "roce_pkt.py failed");
	return syn;
}

void err_inject_ud(const struct dp_pair *p, uint32_t qpn, uint32_t pkey,
		   uint32_t qkey, unsigned int len, unsigned int count)
{
	char cmd[1024];

	inject_cmd(cmd, sizeof(cmd), getenv("NS_A"), p->b.dev, "valid",
		   "--opcode 0x64 --qpn 0x%x --pkey 0x%x --qkey 0x%x "
		   "--payload %u --count %u >/dev/null", qpn, pkey, qkey, len,
		   count);
	CHECK(system(cmd) == 0, "roce_pkt.py failed");
}

enum ibv_wc_status err_local_wc(struct dp_end *e, uint64_t wr_id,
				enum ibv_wc_opcode op, const char *what)
{
	struct ibv_wc wc;

	dp_poll(e->scq, &wc, 5000, what);
	CHECK_EQ(wc.wr_id, wr_id, "wr_id");
	CHECK_EQ(wc.qp_num, e->qp->qp_num, "qp_num");
	if (wc.status == IBV_WC_SUCCESS)
		CHECK_EQ(wc.opcode, op, "opcode of the completion");
	return wc.status;
}

enum ibv_wc_status err_bind_mw2(struct dp_end *e, struct ibv_mw *mw,
				struct ibv_mr *mr, uint64_t addr, uint64_t len,
				unsigned int access)
{
	struct ibv_send_wr wr = {
		.wr_id = ERR_WRID_BIND2, .opcode = IBV_WR_BIND_MW,
		.send_flags = IBV_SEND_SIGNALED,
	}, *bad;
	enum ibv_wc_status st;

	wr.bind_mw.mw = mw;
	wr.bind_mw.rkey = ibv_inc_rkey(mw->rkey);
	wr.bind_mw.bind_info = (struct ibv_mw_bind_info){
		.mr = mr, .addr = addr, .length = len, .mw_access_flags = access,
	};
	CHECK(!ibv_post_send(e->qp, &wr, &bad), "post BIND_MW: %m");
	st = err_local_wc(e, ERR_WRID_BIND2, IBV_WC_BIND_MW, "bind type 2");
	if (st == IBV_WC_SUCCESS)
		mw->rkey = wr.bind_mw.rkey;	/* the application tracks it */
	return st;
}

enum ibv_wc_status err_local_inv(struct dp_end *e, uint32_t rkey)
{
	struct ibv_send_wr wr = {
		.wr_id = ERR_WRID_LOCAL_INV, .opcode = IBV_WR_LOCAL_INV,
		.send_flags = IBV_SEND_SIGNALED, .invalidate_rkey = rkey,
	}, *bad;

	CHECK(!ibv_post_send(e->qp, &wr, &bad), "post LOCAL_INV: %m");
	return err_local_wc(e, ERR_WRID_LOCAL_INV, IBV_WC_LOCAL_INV, "LOCAL_INV");
}

/* A counter of `rdma statistic show link <dev>/1`. */
long err_counter(const struct dp_dev *d, const char *name)
{
	char cmd[256], tok[128], prev[128] = "";
	long v = -1;
	FILE *f;

	snprintf(cmd, sizeof(cmd), "rdma statistic show link %s/1", d->name);
	f = popen(cmd, "r");
	CHECK(f, "popen: %m");
	while (fscanf(f, "%127s", tok) == 1) {
		if (!strcmp(prev, name))
			v = strtol(tok, NULL, 0);
		snprintf(prev, sizeof(prev), "%s", tok);
	}
	CHECK(pclose(f) == 0, "%s failed", cmd);
	CHECK(v >= 0, "no counter %s on %s", name, d->name);
	return v;
}

/* Busy and total jiffies of all CPUs, from the "cpu" line of /proc/stat. */
static void cpu_jiffies(unsigned long long *busy, unsigned long long *total)
{
	unsigned long long v[8] = { 0 };
	FILE *f = fopen("/proc/stat", "r");

	CHECK(f, "/proc/stat: %m");
	CHECK(fscanf(f, "cpu %llu %llu %llu %llu %llu %llu %llu %llu", &v[0],
		     &v[1], &v[2], &v[3], &v[4], &v[5], &v[6], &v[7]) == 8,
	      "/proc/stat: no cpu line");
	fclose(f);
	/* user nice system idle iowait irq softirq steal */
	*busy = v[0] + v[1] + v[2] + v[5] + v[6];
	*total = *busy + v[3] + v[4] + v[7];
}

void err_expect_cpus_idle(int ms, const char *what)
{
	unsigned long long b0, t0, b1, t1;

	cpu_jiffies(&b0, &t0);
	usleep(ms * 1000);
	cpu_jiffies(&b1, &t1);
	/* One CPU of the guest's two spinning is 50%; the idle guest is ~0. */
	CHECK((b1 - b0) * 4 < t1 - t0 + 4,
	      "%s: the CPUs were busy %llu of %llu jiffies while nothing ran (a kernel worker spinning?)",
	      what, b1 - b0, t1 - t0);
}

void err_expect_ud_recv(struct dp_pair *p, uint64_t wr_id, uint32_t len)
{
	struct ibv_wc wc;

	dp_poll(p->b.rcq, &wc, 5000, "B's receive");
	dp_check_wc(&wc, IBV_WC_SUCCESS, IBV_WC_RECV, wr_id, p->b.qp->qp_num,
		    "B's receive");
	CHECK_EQ(wc.byte_len, DP_GRH + len, "byte_len");
}
