/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * err.h: helpers of the error selftests (selftests/errors/), on top of the
 * data-path harness (datapath/dp.h): async events, QP states, bad keys and
 * raw packet injection.
 */
#ifndef SROCE_ERR_H
#define SROCE_ERR_H

#include "../datapath/dp.h"

/*
 * Wait up to ms for the next async event of ctx; it must be @type and
 * concern @elem (a QP, CQ or SRQ; NULL for a port/device event).
 */
void err_expect_event(struct ibv_context *ctx, enum ibv_event_type type,
		      const void *elem, int ms, const char *what);
/* No async event on ctx for ms milliseconds. */
void err_expect_no_event(struct ibv_context *ctx, int ms, const char *what);
/* ibv_query_qp's state must be @want (waits up to 2 s for it). */
void err_expect_state(struct ibv_qp *qp, enum ibv_qp_state want,
		      const char *what);
const char *err_qp_state_str(enum ibv_qp_state s);
/* Poll one completion and check its status, wr_id and qp_num. */
void err_expect_wc(struct ibv_cq *cq, enum ibv_wc_status st, uint64_t wr_id,
		   struct ibv_qp *qp, const char *what);
/* A key no MR has any more: registered, then deregistered. */
uint32_t err_dead_key(struct ibv_pd *pd, void *addr, size_t len, int rkey);
/* A counter of `rdma statistic show link <dev>/1` (fails if missing). */
long err_counter(const struct dp_dev *d, const char *name);
/*
 * The guest's CPUs stay nearly idle for @ms while this process sleeps:
 * no kernel worker left spinning (fails at a quarter of all CPU time).
 */
void err_expect_cpus_idle(int ms, const char *what);
/* B's UD receive @wr_id completed, with the GRH and @len bytes. */
void err_expect_ud_recv(struct dp_pair *p, uint64_t wr_id, uint32_t len);
/* Move a QP to ERROR through modify_qp. */
void err_modify_to_err(struct ibv_qp *qp);

/*
 * Inject one RoCEv2 request to B's QP from end A's address with
 * selftests/net/roce_pkt.py (netns $NS_A), and return the AETH syndrome of
 * the acknowledge B sends back to A (-1 if none came within 3 s).
 * @args are roce_pkt.py's "req" options (opcode, va, rkey, ...).
 */
int err_inject(const struct dp_pair *p, uint32_t psn, const char *args);
/* The same to A's QP from B's address (@to_b 0), or to B (@to_b 1). */
int err_inject_to(const struct dp_pair *p, int to_b, uint32_t psn, const char *args);
/*
 * @count UD SEND ONLY of @len bytes to B's QP @qpn from A's address, with
 * P_Key @pkey and Q_Key @qkey (roce_pkt.py "valid"; no reply is awaited).
 */
void err_inject_ud(const struct dp_pair *p, uint32_t qpn, uint32_t pkey,
		   uint32_t qkey, unsigned int len, unsigned int count);

/* The wr_ids of the local work requests below. */
#define ERR_WRID_BIND2		12
#define ERR_WRID_LOCAL_INV	13
/*
 * The completion of @e's local WR @wr_id (a bind or an invalidation):
 * wr_id, qp_num and, when it succeeded, opcode @op checked; its status.
 */
enum ibv_wc_status err_local_wc(struct dp_end *e, uint64_t wr_id,
				enum ibv_wc_opcode op, const char *what);
/*
 * A BIND_MW work request on @e's QP: type 2 window @mw over [addr, addr +
 * len) of @mr with @access and the next R_Key variant (mw->rkey becomes
 * it if the bind succeeds). Returns the completion's status.
 */
enum ibv_wc_status err_bind_mw2(struct dp_end *e, struct ibv_mw *mw,
				struct ibv_mr *mr, uint64_t addr, uint64_t len,
				unsigned int access);
/* A LOCAL_INV of @rkey on @e's QP; returns the completion's status. */
enum ibv_wc_status err_local_inv(struct dp_end *e, uint32_t rkey);

#endif
