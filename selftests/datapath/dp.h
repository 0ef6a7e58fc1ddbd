/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * dp.h: the self-contained harness of sroce's data-path acceptance tests.
 *
 * Every program drives both ends of a connection itself: end A on device A
 * (the requester) and end B on device B (the responder), each with its own
 * verbs context, so that one process checks both sides of every operation
 * byte for byte. The devices are either two sroce devices in two network
 * namespaces (the RDMA subsystem's default "shared" netns mode shows both to
 * the process) or one device (rxe) used for both ends.
 *
 * Each test case runs in a forked child (kselftest style) with an alarm;
 * a check that fails prints "# FAIL <case>: <what>" and ends the child, so
 * a test stops at the first wrong byte or field and says which.
 *
 * Devices and GIDs come from the command line (or the environment):
 *   -d devA[,devB]  (DP_DEVS)   -4 ipA[,ipB]  (DP_IP4)   -6 ipA[,ipB]  (DP_IP6)
 *   -t substring    run only the cases whose name contains it
 *   -l              list the cases
 * The GID index of each IP is looked up in sysfs (RoCE v2 entries only).
 */
#ifndef SROCE_DP_H
#define SROCE_DP_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <infiniband/verbs.h>

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define KiB 1024UL
#define MiB (1024UL * 1024UL)
#define DP_GRH 40	/* bytes a UD receive reserves for the GRH */
#define DP_GAP 64	/* guard bytes between scattered SGEs */
#define DP_MAX_SGE 64

extern const char *dp_case_name;

void dp_fail(const char *file, int line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4), noreturn));
void dp_skip(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
#define FAIL(...) dp_fail(__FILE__, __LINE__, __VA_ARGS__)
#define CHECK(cond, ...) do { if (!(cond)) FAIL(__VA_ARGS__); } while (0)
#define CHECK_EQ(got, want, what) do {						\
	unsigned long long _g = (unsigned long long)(got);			\
	unsigned long long _w = (unsigned long long)(want);			\
	if (_g != _w)								\
		FAIL("%s: got %llu (0x%llx), want %llu (0x%llx)", what,	\
		     _g, _g, _w, _w);						\
} while (0)
#define NOTE(...) do { printf("# %s: ", dp_case_name); printf(__VA_ARGS__);	\
	printf("\n"); fflush(stdout); } while (0)

/* One end's device: context, PD, attributes, the GID of the chosen IP. */
struct dp_dev {
	const char *name;
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_device_attr_ex attr;
	struct ibv_port_attr port;
	int gid_index;
	union ibv_gid gid;
	int family;		/* 4 or 6 */
	unsigned char ip[16];	/* the IP of the GID (4 or 16 bytes) */
};

/* A buffer with its MR. */
struct dp_buf {
	unsigned char *p;
	size_t len;
	struct ibv_mr *mr;
};

/* What a pair of QPs looks like. Zero means "the default". */
struct dp_cfg {
	enum ibv_qp_type type;
	unsigned int max_send_wr, max_recv_wr;
	unsigned int max_send_sge, max_recv_sge;	/* 0: 1; ~0U: device max */
	unsigned int max_inline;
	int sq_sig_all;
	int srq;		/* B's QP receives through B's SRQ (b->srq) */
	int channel;		/* CQs get a completion channel */
	int qpex;		/* ibv_create_qp_ex with all send ops, ibv_create_cq_ex */
	size_t buf_len;		/* bytes of each end's registered buffer */
	uint32_t psn_a, psn_b;	/* start PSNs (A sends with psn_a) */
	struct ibv_srq *use_srq;	/* B's QP uses this SRQ (shared by pairs) */
	/*
	 * RC: when rc_timers is set, both QPs get these instead of the
	 * defaults (timeout 14, retry_cnt 7, rnr_retry 7, min_rnr_timer 12).
	 */
	int rc_timers;
	uint8_t timeout, retry_cnt, rnr_retry, min_rnr_timer;
	uint8_t max_rd_atomic, max_dest_rd_atomic;	/* 0: min(device, 16) */
	/*
	 * Added to the defaults: both QPs' access flags at INIT, both
	 * buffers' MR access, and (qpex) the IBV_QP_EX_WITH_* send ops.
	 */
	unsigned int qp_access_extra, mr_access_extra;
	uint64_t send_ops_extra;
};

struct dp_end {
	struct dp_dev *dev;
	struct ibv_comp_channel *ch;
	struct ibv_cq *scq, *rcq;
	struct ibv_cq_ex *scq_ex, *rcq_ex;
	struct ibv_qp *qp;
	struct ibv_qp_ex *qpx;
	struct ibv_srq *srq;
	struct ibv_ah *ah;	/* UD: to the other end */
	struct dp_buf buf;
	struct ibv_qp_cap cap;	/* what the QP got */
};

struct dp_pair {
	struct dp_cfg cfg;
	struct dp_end a, b;
	unsigned int mtu;	/* path MTU in bytes */
	uint32_t qkey;
};

/* One test case; fam is 4 or 6 (0: family-independent, uses IPv4). */
struct dp_case {
	const char *name;
	void (*fn)(const struct dp_case *c);
	enum ibv_qp_type type;
	int fam;
	int op;
	long arg;
};

int dp_main(int argc, char **argv, const struct dp_case *cases, size_t n);

/* A context on the device called @name, or NULL with errno set. */
struct ibv_context *dp_open_ctx(const char *name);
/* The devices of this run for the family (end 0 = A, 1 = B). */
void dp_open(struct dp_dev *d, int end, int fam);
void dp_close(struct dp_dev *d);
void dp_pair_create(struct dp_pair *p, struct dp_dev *a, struct dp_dev *b,
		    const struct dp_cfg *cfg);
void dp_pair_destroy(struct dp_pair *p);
/*
 * Both QPs of the pair to RESET, then connected again as dp_pair_create
 * does (start PSNs p->cfg.psn_a and psn_b; UD: new AHs).
 */
void dp_pair_reconnect(struct dp_pair *p);
/* Open both devices of the family and make a pair (most tests). */
void dp_setup(struct dp_pair *p, struct dp_dev d[2], int fam,
	      const struct dp_cfg *cfg);
void dp_teardown(struct dp_pair *p, struct dp_dev d[2]);
unsigned int dp_max_sge(const struct dp_dev *d);
unsigned int dp_mtu_bytes(enum ibv_mtu m);

/* An address vector from @self to @peer over their GIDs (RoCE v2). */
void dp_fill_ah(struct ibv_ah_attr *ah, const struct dp_dev *self,
		const struct dp_dev *peer);
/* A device counter (hw_counters), read fresh (waits out the core's cache). */
uint64_t dp_counter(const struct dp_dev *d, const char *name);
/*
 * Set sroce's module parameter name to val for the rest of the case; the
 * old value comes back when the case's process exits, failed or not.
 */
void dp_param_set(const char *name, const char *val);
/*
 * Write @val to the device's debugfs file @file
 * (/sys/kernel/debug/sroce/<dev>/); skips the case without it.
 */
void dp_debugfs_write(const struct dp_dev *d, const char *file, unsigned int val);

/* Data pattern: byte i of the message made with seed. */
static inline unsigned char dp_pat(size_t i, uint32_t seed)
{
	uint32_t h = (uint32_t)i * 2654435761u ^ (uint32_t)(i >> 16) * 40503u;

	h ^= seed * 0x9E3779B1u;
	h ^= h >> 15;
	h *= 0x85EBCA77u;
	return (unsigned char)(h >> 24);
}

/*
 * A scatter list over a buffer: n SGEs of about len/n bytes each (none
 * empty), each followed by DP_GAP guard bytes. If grh, a first SGE of
 * DP_GRH bytes for a UD receive's GRH comes before the data SGEs.
 */
struct dp_sgl {
	struct ibv_sge sge[DP_MAX_SGE + 1];
	int n;
	size_t len;		/* data bytes (without the GRH SGE) */
	size_t span;		/* bytes of the buffer the list covers with gaps */
	int grh;
};
void dp_sgl_make(struct dp_sgl *s, const struct dp_buf *b, size_t off,
		 size_t len, int nsge, int grh);
/* Fill the list's data with the pattern and the gaps with guard bytes. */
void dp_sgl_fill(const struct dp_sgl *s, uint32_t seed);
/* Fill the list's data and gaps with the sentinel byte (receive side). */
void dp_sgl_clear(const struct dp_sgl *s, unsigned char sentinel);
/* Check the list's data is the pattern and the gaps still the sentinel. */
void dp_sgl_check(const struct dp_sgl *s, uint32_t seed, unsigned char sentinel,
		  const char *what);
/* Check a contiguous range, and guard bytes on either side. */
void dp_check_range(const unsigned char *p, size_t len, uint32_t seed,
		    const char *what);
void dp_check_fill(const unsigned char *p, size_t len, unsigned char c,
		   const char *what);

void dp_post_recv(struct dp_end *e, uint64_t wr_id, struct ibv_sge *sge, int n);
void dp_post_srq_recv(struct ibv_srq *srq, uint64_t wr_id, struct ibv_sge *sge,
		      int n);
void dp_post_send(struct dp_end *e, struct ibv_send_wr *wr);
/* Post one send WR of the given opcode over the list (UD: to the peer). */
void dp_send_wr(struct dp_pair *p, enum ibv_wr_opcode op, uint64_t wr_id,
		const struct dp_sgl *s, unsigned int flags, uint32_t imm,
		uint64_t raddr, uint32_t rkey);

/* Poll one completion within timeout_ms or fail. */
void dp_poll(struct ibv_cq *cq, struct ibv_wc *wc, int timeout_ms,
	     const char *what);
/* Fail if a completion arrives within ms. */
void dp_expect_none(struct ibv_cq *cq, int ms, const char *what);
/* Check status, opcode, wr_id (and qp_num) of a completion. */
void dp_check_wc(const struct ibv_wc *wc, enum ibv_wc_status st,
		 enum ibv_wc_opcode op, uint64_t wr_id, uint32_t qp_num,
		 const char *what);
/* Check the GRH area of a UD receive: IPv4 or IPv6 header from A to B. */
void dp_check_grh(const struct dp_pair *p, const unsigned char *grh,
		  const char *what);
/*
 * The GID of multicast group @n (0, 1, ...) of the tests for the family:
 * 239.1.2.<3 + n> (IPv4-mapped) or ff0e::5:6:<7 + n>.
 */
void dp_mgid(int fam, unsigned int n, union ibv_gid *g);

uint64_t dp_now_ms(void);
/*
 * Polls of big transfers get this much time: 30 s, times SROCE_TIME_SCALE
 * from the environment (the debug-kernel lane's slower kernel).
 */
extern int dp_time_scale;
#define DP_TIMEOUT_MS (30000 * dp_time_scale)

#endif
