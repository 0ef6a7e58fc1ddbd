// SPDX-License-Identifier: GPL-2.0-only
/*
 * trace: sroce's tracepoints (kernel/sroce_trace.h, events/sroce/ in
 * tracefs) against what a loss run does and what the counters say. Each
 * case enables the sroce events, runs one RC recovery or error path of
 * loss.c's kind between end A (requester) and end B (responder), reads the
 * trace back and checks:
 * - sroce_pkt_send / sroce_pkt_recv carry the BTH destination QPN, opcode
 *   and PSN of the message's packets (A's first PSN 0xfffff0: they cross
 *   the 24-bit wrap); a packet a tx_drop rule took was traced as sent and
 *   never as received;
 * - there is one sroce_retransmit event per retransmission the counters
 *   of `rdma statistic show link DEV/1` count, by cause: timeout =
 *   retrans_timeout (seed-rules R2.2), seq_nak = retrans_seq_nak (R2.5),
 *   rnr = retrans_rnr (R2.4), implied_nak = retrans_implied_nak (R2.5);
 * - ACK/NAK and timer events of the recovery appear;
 * - a QP moved to ERR (by modify_qp or by an error) has a sroce_qp_state
 *   event to ERR, and a flushed or failed WR a sroce_cqe_err event with
 *   its wr_id and status (R3.3).
 * The shell (trace.sh) mounts tracefs; the events are global, so every
 * check names the device and the QPN of this case's QPs.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <unistd.h>
#include "rel.h"

#define TRACEFS "/sys/kernel/tracing"
#define MSG_PKTS 4			/* FIRST, MIDDLE, MIDDLE, LAST */
#define PSN_MASK 0xffffffu

struct trctx {
	struct dp_pair p;
	struct dp_dev d[2];
	const char *dev_a, *dev_b;
	uint32_t qpn_a, qpn_b, psn0;
	size_t len;
	char *trace;			/* the trace text of the case */
};

static void tr_write(const char *file, const char *text)
{
	char path[256];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), TRACEFS "/%s", file);
	fd = open(path, O_WRONLY | O_TRUNC);
	CHECK(fd >= 0, "open %s: %s", path, strerror(errno));
	n = write(fd, text, strlen(text));
	CHECK(n == (ssize_t)strlen(text), "write '%s' to %s: %s", text, path,
	      strerror(errno));
	close(fd);
}

static char *tr_read(void)
{
	size_t cap = 1 << 20, len = 0;
	char *buf = malloc(cap);
	ssize_t n;
	int fd;

	CHECK(buf, "out of memory");
	fd = open(TRACEFS "/trace", O_RDONLY);
	CHECK(fd >= 0, "open " TRACEFS "/trace: %s", strerror(errno));
	while ((n = read(fd, buf + len, cap - len - 1)) > 0) {
		len += n;
		if (cap - len < 4096) {
			cap *= 2;
			buf = realloc(buf, cap);
			CHECK(buf, "out of memory");
		}
	}
	CHECK(n == 0, "read " TRACEFS "/trace: %s", strerror(errno));
	close(fd);
	buf[len] = 0;
	return buf;
}

/* Clear the buffer and trace the sroce events only. */
static void tr_start(void)
{
	CHECK(!access(TRACEFS "/events/sroce/enable", W_OK),
	      "no " TRACEFS "/events/sroce (module without tracepoints?)");
	tr_write("tracing_on", "0");
	tr_write("events/enable", "0");
	tr_write("buffer_size_kb", "4096");
	tr_write("trace", "");
	tr_write("events/sroce/enable", "1");
	tr_write("tracing_on", "1");
}

static void tr_stop(struct trctx *x)
{
	unsigned long long in = 0, written = 0;
	const char *h;

	tr_write("tracing_on", "0");
	tr_write("events/sroce/enable", "0");
	x->trace = tr_read();
	/* "# entries-in-buffer/entries-written: N/M": nothing overwritten */
	h = strstr(x->trace, "entries-in-buffer/entries-written:");
	CHECK(h && sscanf(h, "entries-in-buffer/entries-written: %llu/%llu",
			  &in, &written) == 2, "no entry count in the trace");
	CHECK_EQ(in, written, "trace entries kept (the buffer overflowed)");
	NOTE("%llu trace events", in);
}

/*
 * Events @name whose arguments hold every "key=value" token of the
 * NULL-terminated list (whole tokens), counted in the case's trace.
 */
static unsigned int tr_count(const struct trctx *x, const char *name, ...)
{
	char pat[64], tok[64];
	const char *line = x->trace, *t;
	unsigned int n = 0;
	va_list ap;

	snprintf(pat, sizeof(pat), " %s: ", name);
	while (line && *line) {
		const char *end = strchr(line, '\n'), *args;
		size_t len = end ? (size_t)(end - line) : strlen(line);
		char l[512];
		int ok = 1;

		if (line[0] != '#' && len < sizeof(l)) {
			memcpy(l, line, len);
			l[len] = 0;
			args = strstr(l, pat);
			if (args) {
				args += strlen(pat) - 1;	/* at the space */
				va_start(ap, name);
				while (ok && (t = va_arg(ap, const char *))) {
					const char *p;
					size_t tl;

					snprintf(tok, sizeof(tok), " %s", t);
					tl = strlen(tok);
					p = strstr(args, tok);
					while (p && p[tl] && p[tl] != ' ')
						p = strstr(p + 1, tok);
					ok = p != NULL;
				}
				va_end(ap);
				n += ok;
			}
		}
		line = end ? end + 1 : NULL;
	}
	return n;
}

/* "key=0x%x" etc. into one of a few rotating buffers, for tr_count(). */
static const char *kv(const char *key, const char *fmt, unsigned long long v)
{
	static char bufs[8][64];
	static int i;
	char *b = bufs[i++ & 7];
	int n = snprintf(b, 64, "%s=", key);

	snprintf(b + n, 64 - n, fmt, v);
	return b;
}

#define QPN(q)		kv("qpn", "0x%llx", q)
#define DQPN(q)		kv("dqpn", "0x%llx", q)
#define OPC(o)		kv("opcode", "0x%02llx", o)
#define PSN(p)		kv("psn", "0x%06llx", (p) & PSN_MASK)

static const char *dev_tok(const char *dev)
{
	static char bufs[4][64];
	static int i;
	char *b = bufs[i++ & 3];

	snprintf(b, 64, "dev=%s", dev);
	return b;
}

/* A counter as `rdma statistic show link DEV/1` prints it. */
static unsigned long long rdma_stat(const char *dev, const char *name)
{
	char cmd[128], tok[128], prev[128] = "";
	unsigned long long v = 0;
	int found = 0;
	FILE *f;

	snprintf(cmd, sizeof(cmd), "rdma statistic show link %s/1", dev);
	f = popen(cmd, "r");
	CHECK(f, "popen %s", cmd);
	while (fscanf(f, "%127s", tok) == 1) {
		if (!strcmp(prev, name)) {
			v = strtoull(tok, NULL, 0);
			found = 1;
		}
		snprintf(prev, sizeof(prev), "%s", tok);
	}
	pclose(f);
	CHECK(found, "no counter %s in '%s'", name, cmd);
	return v;
}

static const char *const retrans_ctr[] = { "retrans_timeout", "retrans_seq_nak",
					   "retrans_rnr", "retrans_implied_nak" };
static const char *const retrans_cause[] = { "cause=timeout", "cause=seq_nak",
					     "cause=rnr", "cause=implied_nak" };
#define N_CAUSES ARRAY_SIZE(retrans_ctr)

struct stats {
	unsigned long long retrans[N_CAUSES], drops;
};

static void stats_take(struct stats *s, const char *dev)
{
	int i;

	for (i = 0; i < (int)N_CAUSES; i++)
		s->retrans[i] = rdma_stat(dev, retrans_ctr[i]);
	s->drops = rdma_stat(dev, "fault_tx_drops");
}

static void ctx_up(struct trctx *x)
{
	struct dp_cfg cfg = { .type = IBV_QPT_RC };

	memset(x, 0, sizeof(*x));
	dp_setup(&x->p, x->d, 4, &cfg);
	rel_fault_off(&x->p.a);
	rel_fault_off(&x->p.b);
	x->dev_a = x->p.a.dev->name;
	x->dev_b = x->p.b.dev->name;
	x->qpn_a = x->p.a.qp->qp_num;
	x->qpn_b = x->p.b.qp->qp_num;
	x->psn0 = x->p.cfg.psn_a;
	x->len = (MSG_PKTS - 1) * x->p.mtu + x->p.mtu / 2;
	NOTE("A %s qpn 0x%x, B %s qpn 0x%x, first PSN 0x%06x", x->dev_a,
	     x->qpn_a, x->dev_b, x->qpn_b, x->psn0);
}

static void ctx_down(struct trctx *x)
{
	rel_fault_off(&x->p.a);
	rel_fault_off(&x->p.b);
	dp_teardown(&x->p, x->d);
	free(x->trace);
}

/* A SEND of x->len bytes from A into a fresh WQE of B, checked. */
static void send_msg(struct trctx *x, uint32_t seed)
{
	rel_send_msg(&x->p, x->len, seed);
}

/* Every retransmit event of A's QP matches A's counters, cause by cause. */
static void check_retrans(const struct trctx *x, const struct stats *before,
			  const struct stats *after)
{
	int i;

	for (i = 0; i < (int)N_CAUSES; i++) {
		unsigned int ev = tr_count(x, "sroce_retransmit", dev_tok(x->dev_a),
					   QPN(x->qpn_a), retrans_cause[i], NULL);

		NOTE("%s: %u events, counter +%llu", retrans_cause[i], ev,
		     after->retrans[i] - before->retrans[i]);
		CHECK_EQ(ev, after->retrans[i] - before->retrans[i],
			 "retransmit events vs the counter");
	}
}

/*
 * The packets of the SEND, FIRST MIDDLE MIDDLE LAST from psn0, each traced
 * as sent by A to B's QPN at least once, and as received by B as often as
 * it was sent less what the drop rule took (@lost: the dropped packet).
 */
static void check_pkts(const struct trctx *x, int lost, unsigned long long drops)
{
	static const int ops[MSG_PKTS] = { OP_SEND_FIRST, OP_SEND_MIDDLE,
					   OP_SEND_MIDDLE, OP_SEND_LAST };
	int i;

	for (i = 0; i < MSG_PKTS; i++) {
		uint32_t psn = (x->psn0 + i) & PSN_MASK;
		unsigned int sent, rcvd;

		sent = tr_count(x, "sroce_pkt_send", dev_tok(x->dev_a),
				DQPN(x->qpn_b), OPC(ops[i]), PSN(psn), NULL);
		rcvd = tr_count(x, "sroce_pkt_recv", dev_tok(x->dev_b),
				DQPN(x->qpn_b), OPC(ops[i]), PSN(psn), NULL);
		NOTE("packet %d (opcode 0x%02x psn 0x%06x): sent %u, received %u",
		     i, ops[i], psn, sent, rcvd);
		CHECK(sent >= 1, "packet %d not traced as sent", i);
		CHECK_EQ(rcvd, sent - (i == lost ? drops : 0),
			 "receive events (sent less dropped)");
	}
}

/*
 * seed-rules R2.2: the LAST packet lost, nothing behind it: the local ACK
 * timer expires and the requester goes back (cause=timeout).
 */
static void test_timeout(const struct dp_case *c)
{
	struct stats a0, a1;
	struct trctx x;

	(void)c;
	ctx_up(&x);
	rel_fault(&x.p.a, "tx", "opcode=%d drop=1", OP_SEND_LAST);
	stats_take(&a0, x.dev_a);
	tr_start();
	send_msg(&x, 31);
	rel_sleep_ms(200);	/* a late resend reaches B before the trace stops */
	tr_stop(&x);
	stats_take(&a1, x.dev_a);
	CHECK_EQ(a1.drops - a0.drops, 1, "packets dropped by the rule");
	CHECK(a1.retrans[0] > a0.retrans[0], "no timeout retransmission counted");
	check_retrans(&x, &a0, &a1);
	check_pkts(&x, MSG_PKTS - 1, a1.drops - a0.drops);
	CHECK(tr_count(&x, "sroce_timer_arm", dev_tok(x.dev_a), QPN(x.qpn_a),
		       "timer=ack", NULL) >= 1, "no ACK timer armed");
	CHECK(tr_count(&x, "sroce_timer_expire", dev_tok(x.dev_a), QPN(x.qpn_a),
		       "timer=ack", NULL) >= a1.retrans[0] - a0.retrans[0],
	      "fewer ACK timer expiries than timeout retransmissions");
	CHECK(tr_count(&x, "sroce_ack_send", dev_tok(x.dev_b), QPN(x.qpn_b),
		       "type=ack", NULL) >= 1, "no ACK sent by B");
	CHECK(tr_count(&x, "sroce_ack_recv", dev_tok(x.dev_a), QPN(x.qpn_a),
		       "type=ack", NULL) >= 1, "no ACK received by A");
	ctx_down(&x);
}

/*
 * seed-rules R2.5: the second MIDDLE lost, the LAST behind it makes B NAK
 * the gap (PSN sequence error, NAK code 0) and A go back (cause=seq_nak).
 */
static void test_seq_nak(const struct dp_case *c)
{
	uint32_t gap;
	struct stats a0, a1;
	struct trctx x;

	(void)c;
	ctx_up(&x);
	gap = (x.psn0 + 2) & PSN_MASK;
	rel_fault(&x.p.a, "tx", "opcode=%d skip=1 drop=1", OP_SEND_MIDDLE);
	stats_take(&a0, x.dev_a);
	tr_start();
	send_msg(&x, 32);
	rel_sleep_ms(200);
	tr_stop(&x);
	stats_take(&a1, x.dev_a);
	CHECK_EQ(a1.drops - a0.drops, 1, "packets dropped by the rule");
	CHECK(a1.retrans[1] > a0.retrans[1], "no sequence NAK retransmission counted");
	check_retrans(&x, &a0, &a1);
	check_pkts(&x, 2, a1.drops - a0.drops);
	CHECK(tr_count(&x, "sroce_ack_send", dev_tok(x.dev_b), QPN(x.qpn_b),
		       PSN(gap), "type=nak", "value=0", NULL) >= 1,
	      "no sequence NAK of PSN 0x%06x sent by B", gap);
	CHECK(tr_count(&x, "sroce_ack_recv", dev_tok(x.dev_a), QPN(x.qpn_a),
		       PSN(gap), "type=nak", "value=0", NULL) >= 1,
	      "no sequence NAK of PSN 0x%06x received by A", gap);
	CHECK(tr_count(&x, "sroce_retransmit", dev_tok(x.dev_a), QPN(x.qpn_a),
		       "cause=seq_nak", PSN(gap), NULL) >= 1,
	      "no go-back to PSN 0x%06x", gap);
	ctx_down(&x);
}

/*
 * R3.3: modify_qp to ERR flushes a posted receive WQE: a QP state event
 * RTS -> ERR and an error completion event with its wr_id, WR_FLUSH_ERR.
 */
static void test_flush(const struct dp_case *c)
{
	struct ibv_qp_attr qa = { .qp_state = IBV_QPS_ERR };
	struct ibv_wc wc;
	struct trctx x;

	(void)c;
	ctx_up(&x);
	tr_start();
	dp_post_recv(&x.p.b, 0x7701, NULL, 0);
	CHECK(!ibv_modify_qp(x.p.b.qp, &qa, IBV_QP_STATE), "modify_qp to ERR");
	dp_poll(x.p.b.rcq, &wc, DP_TIMEOUT_MS, "flushed receive");
	dp_check_wc(&wc, IBV_WC_WR_FLUSH_ERR, IBV_WC_RECV, 0x7701, x.qpn_b,
		    "flushed receive");
	tr_stop(&x);
	CHECK_EQ(tr_count(&x, "sroce_qp_state", dev_tok(x.dev_b), QPN(x.qpn_b),
			  "from=RTS", "to=ERR", NULL), 1, "QP state events RTS -> ERR");
	CHECK_EQ(tr_count(&x, "sroce_cqe_err", dev_tok(x.dev_b), QPN(x.qpn_b),
			  "wr_id=0x7701", "status=WR_FLUSH_ERR", NULL), 1,
		 "error completion events of the flushed WR");
	ctx_down(&x);
}

/*
 * R3.4, R3.2: a WRITE with a bad R_Key: B NAKs it (remote access error)
 * and goes to ERR itself, A completes the WRITE with REM_ACCESS_ERR and
 * goes to ERR: both error transitions (sroce_qp_error) are traced, and the
 * failed WR, and the one posted behind it flushed.
 */
static void test_remote_error(const struct dp_case *c)
{
	struct dp_sgl s;
	struct ibv_wc wc;
	struct trctx x;

	(void)c;
	ctx_up(&x);
	tr_start();
	dp_sgl_make(&s, &x.p.a.buf, 0, 64, 1, 0);
	dp_send_wr(&x.p, IBV_WR_RDMA_WRITE, 0x7702, &s, IBV_SEND_SIGNALED, 0,
		   (uintptr_t)x.p.b.buf.p, x.p.b.buf.mr->rkey ^ 0x80);
	dp_send_wr(&x.p, IBV_WR_RDMA_WRITE, 0x7703, &s, IBV_SEND_SIGNALED, 0,
		   (uintptr_t)x.p.b.buf.p, x.p.b.buf.mr->rkey);
	dp_poll(x.p.a.scq, &wc, DP_TIMEOUT_MS, "WRITE completion");
	dp_check_wc(&wc, IBV_WC_REM_ACCESS_ERR, IBV_WC_RDMA_WRITE, 0x7702,
		    x.qpn_a, "WRITE with a bad R_Key");
	dp_poll(x.p.a.scq, &wc, DP_TIMEOUT_MS, "second WRITE completion");
	CHECK_EQ(wc.status, IBV_WC_WR_FLUSH_ERR, "second WRITE (flushed)");
	CHECK_EQ(wc.wr_id, 0x7703, "second WRITE wr_id");
	tr_stop(&x);
	CHECK(tr_count(&x, "sroce_ack_send", dev_tok(x.dev_b), QPN(x.qpn_b),
		       "type=nak", "value=2", NULL) >= 1,
	      "no remote access NAK sent by B");
	CHECK(tr_count(&x, "sroce_qp_state", dev_tok(x.dev_b), QPN(x.qpn_b),
		       "to=ERR", NULL) >= 1, "B's QP: no state event to ERR");
	CHECK(tr_count(&x, "sroce_qp_state", dev_tok(x.dev_a), QPN(x.qpn_a),
		       "from=RTS", "to=ERR", NULL) >= 1,
	      "A's QP: no state event RTS -> ERR");
	CHECK_EQ(tr_count(&x, "sroce_cqe_err", dev_tok(x.dev_a), QPN(x.qpn_a),
			  "wr_id=0x7702", "status=REM_ACCESS_ERR",
			  "opcode=RDMA_WRITE", NULL), 1,
		 "error completion events of the failed WRITE");
	CHECK_EQ(tr_count(&x, "sroce_cqe_err", dev_tok(x.dev_a), QPN(x.qpn_a),
			  "wr_id=0x7703", "status=WR_FLUSH_ERR", NULL), 1,
		 "error completion events of the flushed WRITE");
	ctx_down(&x);
}

#define RC(n, f) { n, f, IBV_QPT_RC, 4, 0, 0 }
static const struct dp_case cases[] = {
	RC("retransmit_timeout", test_timeout),
	RC("retransmit_seq_nak", test_seq_nak),
	RC("flush_to_err", test_flush),
	RC("remote_access_error", test_remote_error),
};

int main(int argc, char **argv)
{
	return dp_main(argc, argv, cases, ARRAY_SIZE(cases));
}
