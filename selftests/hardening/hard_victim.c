// SPDX-License-Identifier: GPL-2.0-only
/*
 * hard_victim: the victim of the hostile-peer test (hardening/hostile.sh).
 *
 * QP pairs between sroce_a (end A, requester) and sroce_b (end B) run
 * traffic A -> B for HOSTILE_SECS seconds while hardening/hostile.py
 * injects hostile packets at them:
 *   CHECKED slots (RC x2, UC, UD): every payload is derived from a
 *     per-message seed and checked byte for byte. The injector sends them
 *     only packets a correct RNIC must drop or that may only fail the QP.
 *   SACRIFICIAL slots (RC, UC, UD): their MR's R_Key, Q_Key and PSNs are
 *     given to the injector, which sends them anything; their traffic
 *     must only end, never hang.
 * Checked and sacrificial QPs live in different PDs (one context each per
 * device), so no key the injector learns can reach a checked MR.
 *
 * Per slot the verdict is: data checks held; or the QP failed cleanly (an
 * error completion or async event, after which the pair is re-made with
 * new numbers, as a new "generation"); or a VIOLATION: wrong data on a
 * checked QP, a message out of order, a completion missing past its
 * deadline (a stuck QP). Then ibv_destroy_qp, ibv_dereg_mr and the
 * process exit (which has to release the sacrificial slots itself) each
 * have 10 s.
 *
 * Before traffic starts, and after every re-made pair, the target file
 * (HOSTILE_TARGET) is rewritten (atomically) with what the injector may
 * know: see write_target().
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <unistd.h>
#include "../errors/err.h"

#define NRECV		8
#define RECV_SLOT	2304		/* GRH + the largest SEND, rounded */
#define RECV_OFF	(32 * KiB)	/* B: receive buffers */
#define RD_OFF		(16 * KiB)	/* A: RDMA READ destination */
#define WR_REGION	(4 * KiB)	/* B: UC WRITE regions, 4 of them */
#define HANG_MS		30000		/* no completion this long: stuck */
#define LOSS_MS		3000		/* UC/UD receive: later means lost */
#define MAX_GENS	60
#define SENTINEL	0xee
#define SAC_QKEY	0x22222222

enum verdict { HELD, CLEAN, VIOLATION };

struct slot {
	const char *name;
	enum ibv_qp_type type;
	int checked;
	struct dp_pair p;
	int live;
	unsigned int gen;
	uint32_t seq;		/* last message sent */
	uint32_t rseq;		/* last message received (UC/UD) */
	unsigned long ops, checks, clean, losses, disturbed, violations;
	char first_clean[160], first_violation[200];
};

static struct slot slots[] = {
	{ "chk_rc0", IBV_QPT_RC, 1 }, { "chk_rc1", IBV_QPT_RC, 1 },
	{ "chk_uc", IBV_QPT_UC, 1 }, { "chk_ud", IBV_QPT_UD, 1 },
	{ "sac_rc", IBV_QPT_RC, 0 }, { "sac_uc", IBV_QPT_UC, 0 },
	{ "sac_ud", IBV_QPT_UD, 0 },
};

/* Contexts: [0] checked (A, B), [1] sacrificial (A, B). */
static struct dp_dev devs[2][2];
static uint32_t stale_rkey;
static union ibv_gid mgid;
static int mcast_attached;
static const char *target_path;
static uint32_t run_seed;
static unsigned int target_gen;

/* Numbers the injector has been told (sacrificial QPNs, key indexes). */
static uint32_t published[4096];
static int npublished;
/* Checked pairs that collided with those: kept alive, never used. */
static struct dp_pair *parked[64];
static int nparked;

static const char *volatile timing_what = "?";
static volatile uint64_t timing_start;	/* 0: no timed call running */

/*
 * A call blocked in the kernel uninterruptibly takes no signal: a thread
 * watches the timed calls instead, says which one hangs and ends the
 * process (as far as the blocked thread lets it).
 */
static void *watchdog(void *arg)
{
	(void)arg;
	for (;;) {
		uint64_t t = timing_start;

		sleep(1);
		if (t && t == timing_start && dp_now_ms() - t > 10000) {
			printf("# VIOLATION: %s did not return within 10 s\n",
			       timing_what);
			fflush(stdout);
			_exit(3);
		}
	}
	return NULL;
}

static void on_alarm(int sig)
{
	char msg[256];
	int n;

	(void)sig;
	n = snprintf(msg, sizeof(msg), "# VIOLATION: %s did not return within 10 s\n",
		     timing_what);
	if (write(1, msg, n) < 0)
		_exit(3);
	_exit(3);
}

/* Run fn(arg) with a 10 s alarm, print how long it took. */
#define TIMED(what, call) do {						\
	uint64_t _t = dp_now_ms();					\
	timing_what = (what);						\
	timing_start = _t;						\
	alarm(10);							\
	call;								\
	alarm(0);							\
	timing_start = 0;						\
	if (dp_now_ms() - _t > 1000)					\
		printf("# slow: %s took %llu ms\n", (what),		\
		       (unsigned long long)(dp_now_ms() - _t));	\
} while (0)

static uint32_t rnd_state;
static uint32_t rnd(void)
{
	rnd_state ^= rnd_state << 13;
	rnd_state ^= rnd_state >> 17;
	rnd_state ^= rnd_state << 5;
	return rnd_state;
}

static uint32_t msg_seed(const struct slot *s, uint32_t seq)
{
	return (uint32_t)(s - slots) << 24 ^ s->gen << 16 ^ seq * 2654435761u ^ run_seed;
}

static void violation(struct slot *s, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void violation(struct slot *s, const char *fmt, ...)
{
	char buf[200];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (!s->checked) {
		/* Anything may land in a sacrificial QP's memory. */
		s->disturbed++;
		return;
	}
	printf("# VIOLATION %s gen %u seq %u: %s\n", s->name, s->gen, s->seq, buf);
	if (!s->violations++)
		snprintf(s->first_violation, sizeof(s->first_violation), "%s", buf);
}

/* A stuck QP is a violation for every slot: nothing may wait forever. */
static void stuck(struct slot *s, const char *what)
{
	printf("# VIOLATION %s gen %u seq %u: %s: no completion within %d ms\n",
	       s->name, s->gen, s->seq, what, HANG_MS);
	if (!s->violations++)
		snprintf(s->first_violation, sizeof(s->first_violation),
			 "%s: no completion within %d ms", what, HANG_MS);
	s->live = 0;	/* do not wait on it again */
}

static void failed_cleanly(struct slot *s, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void failed_cleanly(struct slot *s, const char *fmt, ...)
{
	char buf[160];
	va_list ap;

	if (s->live != 1)
		return;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (!s->clean++)
		snprintf(s->first_clean, sizeof(s->first_clean), "%s", buf);
	s->live = -1;	/* re-made by the main loop */
}

/* ---- async events ---------------------------------------------------- */

static void drain_events(void)
{
	struct ibv_async_event ev;
	size_t i, k, j;

	for (k = 0; k < 2; k++)
		for (j = 0; j < 2; j++) {
			struct ibv_context *ctx = devs[k][j].ctx;
			struct pollfd pfd = { .fd = ctx->async_fd, .events = POLLIN };

			while (poll(&pfd, 1, 0) == 1 && !ibv_get_async_event(ctx, &ev)) {
				enum ibv_event_type t = ev.event_type;
				struct ibv_qp *qp = NULL;

				if (t == IBV_EVENT_QP_FATAL || t == IBV_EVENT_QP_REQ_ERR ||
				    t == IBV_EVENT_QP_ACCESS_ERR ||
				    t == IBV_EVENT_QP_LAST_WQE_REACHED ||
				    t == IBV_EVENT_COMM_EST || t == IBV_EVENT_SQ_DRAINED)
					qp = ev.element.qp;
				ibv_ack_async_event(&ev);
				if (t == IBV_EVENT_GID_CHANGE || t == IBV_EVENT_COMM_EST)
					continue;
				for (i = 0; i < ARRAY_SIZE(slots); i++) {
					struct slot *s = &slots[i];

					if (s->live && qp &&
					    (qp == s->p.a.qp || qp == s->p.b.qp)) {
						failed_cleanly(s, "async event %s on %s",
							       ibv_event_type_str(t),
							       qp == s->p.a.qp ? "A" : "B");
						qp = NULL;
					}
				}
				if (qp)
					printf("# event %s for a QP of no live slot\n",
					       ibv_event_type_str(t));
				else if (t != IBV_EVENT_QP_FATAL && t != IBV_EVENT_QP_REQ_ERR &&
					 t != IBV_EVENT_QP_ACCESS_ERR &&
					 t != IBV_EVENT_QP_LAST_WQE_REACHED &&
					 t != IBV_EVENT_SQ_DRAINED)
					printf("# device event %s\n", ibv_event_type_str(t));
			}
		}
}

/* ---- receives ------------------------------------------------------ */

static unsigned char *recv_buf(struct slot *s, uint64_t k)
{
	return s->p.b.buf.p + RECV_OFF + k * RECV_SLOT;
}

static void post_one_recv(struct slot *s, uint64_t k)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)recv_buf(s, k), .length = RECV_SLOT,
		.lkey = s->p.b.buf.mr->lkey,
	};
	struct ibv_recv_wr wr = { .wr_id = k, .sg_list = &sge, .num_sge = 1 }, *bad;

	memset(recv_buf(s, k), SENTINEL, RECV_SLOT);
	/* A QP in ERROR may refuse: the next poll says why. */
	if (ibv_post_recv(s->p.b.qp, &wr, &bad))
		failed_cleanly(s, "post_recv refused: QP in error");
}

/*
 * Wait for one completion on cq: 1 with *wc, 0 after ms (-1 after HANG_MS
 * when ms is 0: the slot is stuck). While waiting, a sacrificial slot's B
 * receives consumed by the injector are put back (else the requester's
 * RNR retries, infinite with rnr_retry 7, would wait on us).
 */
static int wait_wc(struct slot *s, struct ibv_cq *cq, struct ibv_wc *wc, int ms)
{
	uint64_t end = dp_now_ms() + (ms ? ms : HANG_MS);
	unsigned int spins = 0;
	int n;

	for (;;) {
		n = ibv_poll_cq(cq, 1, wc);
		if (n < 0) {
			violation(s, "poll_cq returned %d", n);
			return 0;
		}
		if (n == 1)
			return 1;
		if (!s->checked && cq != s->p.b.rcq) {
			struct ibv_wc rw;

			while (ibv_poll_cq(s->p.b.rcq, 1, &rw) == 1) {
				if (rw.status != IBV_WC_SUCCESS) {
					failed_cleanly(s, "B receive: %s",
						       ibv_wc_status_str(rw.status));
					return 0;
				}
				s->disturbed++;
				post_one_recv(s, rw.wr_id);
			}
		}
		if (++spins % 64 == 0) {
			drain_events();
			if (s->live != 1)
				return 0;
			if (dp_now_ms() > end)
				return ms ? 0 : -1;
			usleep(500);
		}
	}
}

/* A send-side completion of wr_id, success expected; 0 if the op ended. */
static int send_done(struct slot *s, uint64_t wr_id, const char *what)
{
	struct ibv_wc wc;
	int r = wait_wc(s, s->p.a.scq, &wc, 0);

	if (r < 0) {
		stuck(s, what);
		return 0;
	}
	if (!r)
		return 0;
	if (wc.status != IBV_WC_SUCCESS) {
		failed_cleanly(s, "%s: %s (vendor_err 0x%x)", what,
			       ibv_wc_status_str(wc.status), wc.vendor_err);
		return 0;
	}
	if (wc.wr_id != wr_id) {
		violation(s, "%s: completion of wr_id %llu, want %llu", what,
			  (unsigned long long)wc.wr_id, (unsigned long long)wr_id);
		return 0;
	}
	return 1;
}

static int post(struct slot *s, enum ibv_wr_opcode op, uint64_t wr_id,
		size_t off, size_t len, uint64_t raddr, uint32_t rkey)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)s->p.a.buf.p + off, .length = (uint32_t)len,
		.lkey = s->p.a.buf.mr->lkey,
	};
	struct ibv_send_wr wr = {
		.wr_id = wr_id, .sg_list = &sge, .num_sge = 1, .opcode = op,
		.send_flags = IBV_SEND_SIGNALED,
	}, *bad;

	if (op == IBV_WR_RDMA_WRITE || op == IBV_WR_RDMA_READ) {
		wr.wr.rdma.remote_addr = raddr;
		wr.wr.rdma.rkey = rkey;
	}
	if (s->type == IBV_QPT_UD) {
		wr.wr.ud.ah = s->p.a.ah;
		wr.wr.ud.remote_qpn = s->p.b.qp->qp_num;
		wr.wr.ud.remote_qkey = s->p.qkey;
	}
	if (ibv_post_send(s->p.a.qp, &wr, &bad)) {
		failed_cleanly(s, "post_send refused: QP in error");
		return 0;
	}
	return 1;
}

/* A message: 4 bytes of sequence number, then the pattern of its seed. */
static void fill_msg(struct slot *s, unsigned char *p, size_t len, uint32_t seq)
{
	uint32_t be = htonl(seq), seed = msg_seed(s, seq);
	size_t i;

	memcpy(p, &be, 4);
	for (i = 4; i < len; i++)
		p[i] = dp_pat(i, seed);
}

/* Check a received message; its sequence number is returned in *seq. */
static int check_msg(struct slot *s, const unsigned char *p, size_t len,
		     size_t want_len, uint32_t *seq, const char *what)
{
	uint32_t be, seed;
	size_t i;

	if (len != want_len) {
		violation(s, "%s: byte_len %zu, want %zu", what, len, want_len);
		return 0;
	}
	memcpy(&be, p, 4);
	*seq = ntohl(be);
	if (*seq == 0 || *seq > s->seq) {
		violation(s, "%s: sequence number %u never sent (last sent %u)",
			  what, *seq, s->seq);
		return 0;
	}
	seed = msg_seed(s, *seq);
	for (i = 4; i < len; i++)
		if (p[i] != dp_pat(i, seed)) {
			violation(s, "%s: byte %zu of message %u is 0x%02x, want 0x%02x",
				  what, i, *seq, p[i], dp_pat(i, seed));
			return 0;
		}
	s->checks++;
	return 1;
}

/*
 * The receive of a SEND on B: 1 checked, 0 ended or lost. RC must deliver
 * exactly the next message; UC and UD may lose messages, never reorder or
 * repeat them. Once the injector's requests landed on a sacrificial RC
 * slot (disturbed), B's expected PSN may be ahead of A's: a forged SEND
 * at the PSN B expected took it, and A's own SEND at that PSN is then a
 * duplicate, which B acknowledges without delivering it (R2.6), as an
 * RNIC does. So its receive wait is bounded like UC's, a miss counted as
 * a loss; A's send completions still must come (send_done()).
 */
static int recv_done(struct slot *s, size_t len, const char *what)
{
	int grh = s->type == IBV_QPT_UD;
	int ms = s->type == IBV_QPT_RC && (s->checked || !s->disturbed) ?
		 0 : LOSS_MS;
	struct ibv_wc wc;
	uint32_t seq;
	int r, ok;

	for (;;) {
		r = wait_wc(s, s->p.b.rcq, &wc, ms);
		if (r < 0) {
			stuck(s, what);
			return 0;
		}
		if (!r) {
			if (s->live == 1)
				s->losses++;
			return 0;
		}
		if (wc.status != IBV_WC_SUCCESS) {
			failed_cleanly(s, "%s: %s", what, ibv_wc_status_str(wc.status));
			return 0;
		}
		if (wc.wr_id >= NRECV) {
			violation(s, "%s: receive wr_id %llu never posted", what,
				  (unsigned long long)wc.wr_id);
			return 0;
		}
		if (grh && wc.src_qp != s->p.a.qp->qp_num)
			violation(s, "%s: UD source QPN 0x%x, want 0x%x", what,
				  wc.src_qp, s->p.a.qp->qp_num);
		ok = check_msg(s, recv_buf(s, wc.wr_id) + (grh ? DP_GRH : 0),
			       wc.byte_len - (grh ? DP_GRH : 0), len, &seq, what);
		post_one_recv(s, wc.wr_id);
		if (!ok)
			return 0;
		if (s->type == IBV_QPT_RC ? seq != s->seq : seq <= s->rseq) {
			violation(s, "%s: message %u after %u (sent up to %u)", what,
				  seq, s->rseq, s->seq);
			return 0;
		}
		s->rseq = seq;
		if (seq == s->seq)
			return 1;
		/* A late UC/UD message: the current one may follow. */
	}
}

/* ---- one operation per slot ------------------------------------------ */

static void step_rc(struct slot *s)
{
	struct dp_end *a = &s->p.a, *b = &s->p.b;
	size_t wlen = 2500 + rnd() % 3000, slen = 8 + rnd() % 2000;
	uint32_t seq = ++s->seq, seed = msg_seed(s, seq);
	size_t i;

	for (i = 0; i < wlen; i++)
		a->buf.p[i] = dp_pat(i, seed);
	memset(a->buf.p + RD_OFF, 0x5a, wlen);
	if (!post(s, IBV_WR_RDMA_WRITE, 1, 0, wlen, (uintptr_t)b->buf.p,
		  b->buf.mr->rkey) || !send_done(s, 1, "RC WRITE"))
		return;
	/* A successful WRITE is in B's memory, all of it. */
	for (i = 0; i < wlen; i++)
		if (b->buf.p[i] != dp_pat(i, seed)) {
			violation(s, "RC WRITE done but B's byte %zu is 0x%02x, want 0x%02x",
				  i, b->buf.p[i], dp_pat(i, seed));
			return;
		}
	s->checks++;
	if (!post(s, IBV_WR_RDMA_READ, 2, RD_OFF, wlen, (uintptr_t)b->buf.p,
		  b->buf.mr->rkey) || !send_done(s, 2, "RC READ"))
		return;
	for (i = 0; i < wlen; i++)
		if (a->buf.p[RD_OFF + i] != dp_pat(i, seed)) {
			violation(s, "RC READ back: byte %zu is 0x%02x, want 0x%02x",
				  i, a->buf.p[RD_OFF + i], dp_pat(i, seed));
			return;
		}
	s->checks++;
	fill_msg(s, a->buf.p, slen, seq);
	if (!post(s, IBV_WR_SEND, 3, 0, slen, 0, 0) || !send_done(s, 3, "RC SEND") ||
	    !recv_done(s, slen, "RC SEND receive"))
		return;
	s->ops++;
}

static void step_uc(struct slot *s)
{
	struct dp_end *a = &s->p.a, *b = &s->p.b;
	uint32_t seq = ++s->seq, seed = msg_seed(s, seq);
	size_t wlen = 1500 + rnd() % 2500, slen = 8 + rnd() % 2000, i, got = 0;
	unsigned char *reg = b->buf.p + (seq % 4) * WR_REGION;

	memset(reg, SENTINEL, WR_REGION);
	for (i = 0; i < wlen; i++)
		a->buf.p[i] = dp_pat(i, seed);
	if (!post(s, IBV_WR_RDMA_WRITE, 1, 0, wlen, (uintptr_t)reg,
		  b->buf.mr->rkey) || !send_done(s, 1, "UC WRITE"))
		return;
	fill_msg(s, a->buf.p, slen, seq);
	if (!post(s, IBV_WR_SEND, 3, 0, slen, 0, 0) || !send_done(s, 3, "UC SEND") ||
	    !recv_done(s, slen, "UC SEND receive"))
		return;
	/*
	 * The WRITE went before the SEND: its bytes are there, or (a lost
	 * packet, a PSN gap) some are still the sentinel; nothing else.
	 */
	for (i = 0; i < WR_REGION; i++) {
		if (i < wlen && reg[i] == dp_pat(i, seed)) {
			got++;
			continue;
		}
		if (reg[i] != SENTINEL) {
			violation(s, "UC WRITE region byte %zu is 0x%02x: neither the "
				  "message's 0x%02x nor the sentinel", i, reg[i],
				  i < wlen ? dp_pat(i, seed) : SENTINEL);
			return;
		}
	}
	if (got < wlen)
		s->losses++;
	s->checks++;
	s->ops++;
}

static void step_ud(struct slot *s)
{
	uint32_t seq = ++s->seq;
	size_t slen = 8 + rnd() % (s->p.mtu - 8);

	fill_msg(s, s->p.a.buf.p, slen, seq);
	if (!post(s, IBV_WR_SEND, 3, 0, slen, 0, 0) || !send_done(s, 3, "UD SEND") ||
	    !recv_done(s, slen, "UD SEND receive"))
		return;
	s->ops++;
}

/* ---- pairs and the target file ---------------------------------------- */

static int was_published(uint32_t v)
{
	int i;

	for (i = 0; i < npublished; i++)
		if (published[i] == v)
			return 1;
	return 0;
}

static void publish(uint32_t v)
{
	if (!was_published(v) && npublished < (int)ARRAY_SIZE(published))
		published[npublished++] = v;
}

#define QPN_TAG(q)	((q) | 0x80000000u)
#define IDX_TAG(k)	((k) >> 8)

static void make_pair(struct slot *s)
{
	struct dp_cfg cfg = {
		.type = s->type, .max_send_wr = 16, .max_recv_wr = NRECV,
		.buf_len = 64 * KiB, .rc_timers = 1, .timeout = 14,
		.retry_cnt = 7, .rnr_retry = 7, .min_rnr_timer = 12,
	};
	struct dp_dev *d = devs[s->checked ? 0 : 1];
	int tries;
	uint64_t k;

	for (tries = 0;; tries++) {
		cfg.psn_a = rnd() & 0xffffff;
		cfg.psn_b = rnd() & 0xffffff;
		if (tries % 3 == 1)
			cfg.psn_a = 0xffffff - rnd() % 64;	/* near the wrap */
		if (!cfg.psn_a && !cfg.psn_b)
			cfg.psn_b = 1;
		dp_pair_create(&s->p, &d[0], &d[1], &cfg);
		if (!s->checked)
			break;
		/* Nothing the injector was told may name a checked object. */
		if (!was_published(QPN_TAG(s->p.a.qp->qp_num)) &&
		    !was_published(QPN_TAG(s->p.b.qp->qp_num)) &&
		    !was_published(IDX_TAG(s->p.a.buf.mr->rkey)) &&
		    !was_published(IDX_TAG(s->p.b.buf.mr->rkey)) &&
		    IDX_TAG(s->p.b.buf.mr->rkey) < 0x800000)
			break;
		CHECK(tries < 10 && nparked < (int)ARRAY_SIZE(parked),
		      "cannot make a checked pair apart from published numbers");
		parked[nparked] = malloc(sizeof(struct dp_pair));
		CHECK(parked[nparked], "no memory");
		*parked[nparked++] = s->p;
		printf("# %s: new pair reuses a published number; parked\n", s->name);
	}
	if (s->type == IBV_QPT_UD && !s->checked) {
		struct ibv_qp_attr at = { .qkey = SAC_QKEY };

		s->p.qkey = SAC_QKEY;
		CHECK(!ibv_modify_qp(s->p.b.qp, &at, IBV_QP_QKEY), "modify Q_Key: %m");
		CHECK(!ibv_modify_qp(s->p.a.qp, &at, IBV_QP_QKEY), "modify Q_Key: %m");
		if (mcast_attached >= 0) {
			mcast_attached = !ibv_attach_mcast(s->p.b.qp, &mgid, 0);
			if (!mcast_attached)
				printf("# attach_mcast: %s\n", strerror(errno));
		}
	}
	if (!s->checked) {
		publish(QPN_TAG(s->p.a.qp->qp_num));
		publish(QPN_TAG(s->p.b.qp->qp_num));
		publish(IDX_TAG(s->p.a.buf.mr->rkey));
		publish(IDX_TAG(s->p.b.buf.mr->rkey));
	}
	for (k = 0; k < NRECV; k++)
		post_one_recv(s, k);
	s->live = 1;
	s->rseq = 0;
	s->seq = 0;
}

static void destroy_pair(struct dp_pair *p)
{
	struct dp_end *e[2] = { &p->a, &p->b };
	int i;

	for (i = 0; i < 2; i++) {
		if (e[i]->ah)
			TIMED("ibv_destroy_ah", CHECK(!ibv_destroy_ah(e[i]->ah), "destroy_ah"));
		TIMED("ibv_destroy_qp", CHECK(!ibv_destroy_qp(e[i]->qp),
					      "destroy_qp: %m"));
		TIMED("ibv_dereg_mr", CHECK(!ibv_dereg_mr(e[i]->buf.mr), "dereg_mr: %m"));
		free(e[i]->buf.p);
		CHECK(!ibv_destroy_cq(e[i]->scq), "destroy_cq: %m");
		CHECK(!ibv_destroy_cq(e[i]->rcq), "destroy_cq: %m");
	}
	memset(p, 0, sizeof(*p));
}

static const char *type_str(enum ibv_qp_type t)
{
	return t == IBV_QPT_RC ? "rc" : t == IBV_QPT_UC ? "uc" : "ud";
}

static void ip_str(const struct dp_dev *d, char *buf, size_t len)
{
	inet_ntop(AF_INET, d->ip, buf, len);
}

/*
 * key=value lines; one "qp" line per live slot. A checked slot's line
 * has no MR and no Q_Key: the injector must not know them.
 */
static void write_target(void)
{
	char tmp[512], ipa[32], ipb[32];
	size_t i;
	FILE *f;

	snprintf(tmp, sizeof(tmp), "%s.tmp", target_path);
	f = fopen(tmp, "w");
	CHECK(f, "open %s: %m", tmp);
	ip_str(&devs[0][0], ipa, sizeof(ipa));
	ip_str(&devs[0][1], ipb, sizeof(ipb));
	fprintf(f, "gen %u\ndev_a %s\ndev_b %s\nip_a %s\nip_b %s\nmtu %u\n",
		++target_gen, devs[0][0].name, devs[0][1].name, ipa, ipb,
		slots[0].p.mtu);
	fprintf(f, "stale_rkey 0x%x\ngsi_qpn 1\ngsi_qkey 0x80010000\n", stale_rkey);
	if (mcast_attached > 0)
		fprintf(f, "mcast_ip %u.%u.%u.%u\nmcast_qkey 0x%x\n", mgid.raw[12],
			mgid.raw[13], mgid.raw[14], mgid.raw[15], SAC_QKEY);
	for (i = 0; i < ARRAY_SIZE(slots); i++) {
		struct slot *s = &slots[i];

		if (s->live != 1)
			continue;
		fprintf(f, "qp %s type %s checked %d a_qpn 0x%x b_qpn 0x%x "
			"psn_a 0x%x psn_b 0x%x", s->name, type_str(s->type),
			s->checked, s->p.a.qp->qp_num, s->p.b.qp->qp_num,
			s->p.cfg.psn_a, s->p.cfg.psn_b);
		if (!s->checked)
			fprintf(f, " qkey 0x%x b_va 0x%llx b_len 0x%zx b_rkey 0x%x "
				"a_va 0x%llx a_len 0x%zx a_rkey 0x%x", s->p.qkey,
				(unsigned long long)(uintptr_t)s->p.b.buf.p,
				s->p.b.buf.len, s->p.b.buf.mr->rkey,
				(unsigned long long)(uintptr_t)s->p.a.buf.p,
				s->p.a.buf.len, s->p.a.buf.mr->rkey);
		fprintf(f, "\n");
	}
	CHECK(!fclose(f), "write %s: %m", tmp);
	CHECK(!rename(tmp, target_path), "rename %s: %m", tmp);
}

static void set_nonblock(int fd)
{
	CHECK(fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK) == 0, "fcntl: %m");
}

static void test_hostile(const struct dp_case *c)
{
	const char *e = getenv("HOSTILE_SECS"), *sd = getenv("HOSTILE_SEED");
	unsigned long secs = e ? strtoul(e, NULL, 0) : 30;
	uint64_t end, t0;
	unsigned long total_viol = 0, stuck_slots = 0;
	size_t i;
	int k, j, remade = 0;

	(void)c;
	signal(SIGALRM, on_alarm);
	{
		pthread_t th;

		CHECK(!pthread_create(&th, NULL, watchdog, NULL), "pthread_create");
	}
	alarm(0);
	target_path = getenv("HOSTILE_TARGET");
	CHECK(target_path, "HOSTILE_TARGET not set");
	run_seed = sd ? strtoul(sd, NULL, 0) : 1;
	rnd_state = run_seed | 1;
	for (k = 0; k < 2; k++)
		for (j = 0; j < 2; j++) {
			dp_open(&devs[k][j], j, 4);
			set_nonblock(devs[k][j].ctx->async_fd);
		}
	/* 239.1.2.3, IPv4-mapped (as datapath/mcast.c). */
	mgid.raw[10] = mgid.raw[11] = 0xff;
	mgid.raw[12] = 239, mgid.raw[13] = 1, mgid.raw[14] = 2, mgid.raw[15] = 3;
	/* Registered, then deregistered in the checked PD: a dead key. */
	{
		static unsigned char dead[4096];

		stale_rkey = err_dead_key(devs[0][1].pd, dead, sizeof(dead), 1);
		publish(IDX_TAG(stale_rkey));
	}
	for (i = 0; i < ARRAY_SIZE(slots); i++)
		make_pair(&slots[i]);
	write_target();
	printf("# target file %s written; traffic for %lu s\n", target_path, secs);
	t0 = dp_now_ms();
	end = t0 + secs * 1000;
	while (dp_now_ms() < end) {
		for (i = 0; i < ARRAY_SIZE(slots); i++) {
			struct slot *s = &slots[i];

			drain_events();
			if (s->live == -1 && s->gen < MAX_GENS) {
				/* Failed cleanly: a new pair takes its place. */
				destroy_pair(&s->p);
				s->gen++;
				make_pair(s);
				remade = 1;
			}
			if (s->live != 1)
				continue;
			if (s->type == IBV_QPT_RC)
				step_rc(s);
			else if (s->type == IBV_QPT_UC)
				step_uc(s);
			else
				step_ud(s);
		}
		if (remade) {
			write_target();
			remade = 0;
		}
	}
	printf("# traffic ran %llu ms\n", (unsigned long long)(dp_now_ms() - t0));
	drain_events();
	for (i = 0; i < ARRAY_SIZE(slots); i++) {
		struct slot *s = &slots[i];
		enum verdict v = s->violations ? VIOLATION : s->clean ? CLEAN : HELD;

		printf("# slot %s (%s, %s): %s; generations %u, messages %lu, data "
		       "checks %lu, clean failures %lu, losses %lu, disturbed %lu, "
		       "violations %lu\n", s->name, type_str(s->type),
		       s->checked ? "checked" : "sacrificial",
		       v == VIOLATION ? "VIOLATION" : v == CLEAN ? "failed cleanly"
		       : "data checks held", s->gen + 1, s->ops, s->checks, s->clean,
		       s->losses, s->disturbed, s->violations);
		if (s->clean)
			printf("#   first clean failure: %s\n", s->first_clean);
		if (s->violations)
			printf("#   first violation: %s\n", s->first_violation);
		total_viol += s->violations;
		if (!s->live && s->violations)
			stuck_slots++;
	}
	/*
	 * Teardown: the checked pairs through the verbs (each call timed);
	 * the sacrificial ones, still busy, are left to the process exit.
	 */
	for (i = 0; i < ARRAY_SIZE(slots); i++)
		if (slots[i].checked)
			destroy_pair(&slots[i].p);
	for (k = 0; k < nparked; k++)
		destroy_pair(parked[k]);
	printf("# teardown of the checked pairs done; exit releases the rest\n");
	printf("# VERDICT: %s (%lu violations, %lu stuck slots)\n",
	       total_viol ? "FAIL" : "PASS", total_viol, stuck_slots);
	fflush(stdout);
	if (total_viol)
		_exit(1);
	/* The exit path (uverbs releasing everything left) has 10 s too. */
	timing_what = "the exit path";
	alarm(10);
}

static const struct dp_case cases[] = {
	{ "hostile", test_hostile },
};

int main(int argc, char **argv)
{
	return dp_main(argc, argv, cases, ARRAY_SIZE(cases));
}
