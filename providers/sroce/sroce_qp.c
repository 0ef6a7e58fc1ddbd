// SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause
/*
 * libsroce queue pairs.
 *
 * A QP's SQ and RQ are rings in kernel memory, mmapped at create (see
 * include/uapi/rdma/sroce-abi.h and Documentation/provider.md). Posting
 * writes WQEs into the ring (sroce_wqe.c builds them), publishes the
 * producer index with one store-release, then:
 *   - send: one doorbell system call per ibv_post_send / wr_complete, a
 *     POST_SEND write() with no WRs, which makes the kernel run the QP;
 *     none while the SQ header says the kernel runs the QP's engines
 *     (engines_active: it reads prod again before it stops);
 *   - recv: no system call, unless the kernel has set SROCE_RING_FLUSH in
 *     the RQ header (QP in ERROR): then a POST_RECV write() with no WRs so
 *     that the kernel flushes what was just posted.
 *
 * Locks: sq_lock and rq_lock (one per queue, as every provider) protect
 * the local producer index and, for the SQ, the ibv_qp_ex batch.
 */
#include <assert.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>

#include "sroce-abi.h"
#include "sroce_qp.h"
#include "sroce_compat.h"

/* libibverbs' values are the uverbs ABI's, which the kernel reads. */
static_assert((int)IBV_WR_SEND_WITH_INV == IB_UVERBS_WR_SEND_WITH_INV &&
	      (int)IBV_WR_BIND_MW == IB_UVERBS_WR_BIND_MW &&
	      (int)IBV_WR_RDMA_READ == IB_UVERBS_WR_RDMA_READ, "wr opcodes");
static_assert((int)IBV_QPT_RC == IB_UVERBS_QPT_RC &&
	      (int)IBV_QPT_UC == IB_UVERBS_QPT_UC &&
	      (int)IBV_QPT_UD == IB_UVERBS_QPT_UD &&
	      (int)IBV_QPT_XRC_SEND == IB_UVERBS_QPT_XRC_INI &&
	      (int)IBV_QPT_XRC_RECV == IB_UVERBS_QPT_XRC_TGT, "qp types");
/*
 * IBV_QP_EX_WITH_<op> is 1 << IBV_WR_<op> for the first ten sroce offers;
 * not for FLUSH (14, bit 11) and ATOMIC_WRITE (15, bit 12), which
 * supported_send_ops() maps by name.
 */
static_assert(IBV_QP_EX_WITH_SEND_WITH_INV == 1 << IBV_WR_SEND_WITH_INV &&
	      IBV_QP_EX_WITH_BIND_MW == 1 << IBV_WR_BIND_MW &&
	      IBV_QP_EX_WITH_RDMA_WRITE == 1 << IBV_WR_RDMA_WRITE, "ops");
static_assert((int)IBV_WR_FLUSH == IB_UVERBS_WR_FLUSH &&
	      (int)IBV_WR_ATOMIC_WRITE == IB_UVERBS_WR_ATOMIC_WRITE &&
	      (int)IBV_FLUSH_GLOBAL == IB_FLUSH_GLOBAL &&
	      (int)IBV_FLUSH_PERSISTENT == IB_FLUSH_PERSISTENT &&
	      (int)IBV_FLUSH_RANGE == IB_FLUSH_RANGE &&
	      (int)IBV_FLUSH_MR == IB_FLUSH_MR, "flush, atomic write");

#define SROCE_NUM_WR_OPCODES (IBV_WR_SEND_WITH_INV + 1)

/* ---------------------------------------------------------------- */
/* Doorbells                                                        */
/* ---------------------------------------------------------------- */

/* POST_SEND with no WRs: the kernel runs the QP's SQ (or flushes it). */
static int sroce_send_doorbell(struct ibv_qp *ibqp)
{
	struct ib_uverbs_post_send_resp resp;
	struct ibv_post_send cmd = {};
	ssize_t n;

	cmd.hdr.command = IB_USER_VERBS_CMD_POST_SEND;
	cmd.hdr.in_words = sizeof(cmd) / 4;
	cmd.hdr.out_words = sizeof(resp) / 4;
	cmd.response = (uintptr_t)&resp;
	cmd.qp_handle = ibqp->handle;
	cmd.wqe_size = sizeof(struct ib_uverbs_send_wr);
	n = write(ibqp->context->cmd_fd, &cmd, sizeof(cmd));
	if (n < 0)
		return errno;
	return n == sizeof(cmd) ? 0 : EIO;
}

/* POST_RECV with no WRs: the kernel flushes the RQ of a QP in ERROR. */
static int sroce_recv_doorbell(struct ibv_qp *ibqp)
{
	struct ib_uverbs_post_recv_resp resp;
	struct ibv_post_recv cmd = {};
	ssize_t n;

	cmd.hdr.command = IB_USER_VERBS_CMD_POST_RECV;
	cmd.hdr.in_words = sizeof(cmd) / 4;
	cmd.hdr.out_words = sizeof(resp) / 4;
	cmd.response = (uintptr_t)&resp;
	cmd.qp_handle = ibqp->handle;
	cmd.wqe_size = sizeof(struct ib_uverbs_recv_wr);
	n = write(ibqp->context->cmd_fd, &cmd, sizeof(cmd));
	if (n < 0)
		return errno;
	return n == sizeof(cmd) ? 0 : EIO;
}

/* ---------------------------------------------------------------- */
/* Send WQEs                                                        */
/* ---------------------------------------------------------------- */

/* May WRs be posted to the SQ in this state? (seed-rules R3.8, R3.3) */
static bool sq_state_ok(enum ibv_qp_state state)
{
	return state == IBV_QPS_RTS || state == IBV_QPS_SQD ||
	       state == IBV_QPS_SQE || state == IBV_QPS_ERR;
}

static int sroce_post_send(struct ibv_qp *ibqp, struct ibv_send_wr *wr,
			   struct ibv_send_wr **bad_wr)
{
	struct sroce_qp *qp = to_sqp(ibqp);
	uint32_t posted;
	int err;
	int dberr;

	/* An XRC target (XRC_RECV) has no send queue. */
	if (!sq_state_ok(ibqp->state) || !qp->sq.hdr) {
		*bad_wr = wr;
		return EINVAL;
	}
	pthread_spin_lock(&qp->sq_lock);
	if (qp->in_reset) {
		*bad_wr = wr;
		posted = 0;
		err = EINVAL;
	} else {
		err = sroce_sq_post(&qp->sq, &qp->caps, wr, bad_wr, &posted);
	}
	pthread_spin_unlock(&qp->sq_lock);

	/*
	 * One doorbell for the whole list; also when a later WR failed, as
	 * the ones before it are posted; none while the kernel's engines run
	 * (they see the WQEs). In ERROR/SQE the doorbell makes the kernel
	 * flush them.
	 */
	if (posted && sroce_uring_need_doorbell(&qp->sq)) {
		dberr = sroce_send_doorbell(ibqp);
		if (!err)
			err = dberr;
	}
	return err;
}

/* ---------------------------------------------------------------- */
/* Receive WQEs                                                     */
/* ---------------------------------------------------------------- */

static int sroce_post_recv(struct ibv_qp *ibqp, struct ibv_recv_wr *wr,
			   struct ibv_recv_wr **bad_wr)
{
	struct sroce_qp *qp = to_sqp(ibqp);
	bool flush;
	int err;
	int dberr;

	/* seed-rules R3.8: RESET refuses; a QP on an SRQ has no RQ (rxe). */
	if (ibqp->state == IBV_QPS_RESET || !qp->rq.hdr) {
		*bad_wr = wr;
		return EINVAL;
	}
	pthread_spin_lock(&qp->rq_lock);
	if (qp->in_reset) {
		*bad_wr = wr;
		flush = false;
		err = EINVAL;
	} else {
		err = sroce_rq_post(&qp->rq, qp->rq_max_sge, wr, bad_wr, &flush);
	}
	pthread_spin_unlock(&qp->rq_lock);

	/* QP in ERROR: the kernel flushes what we posted when told to. */
	if (flush) {
		dberr = sroce_recv_doorbell(ibqp);
		if (!err)
			err = dberr;
	}
	return err;
}

/* ---------------------------------------------------------------- */
/* ibv_qp_ex                                                        */
/* ---------------------------------------------------------------- */

static void sroce_wr_start(struct ibv_qp_ex *ibqpx)
{
	struct sroce_qp *qp = ex_to_sqp(ibqpx);

	pthread_spin_lock(&qp->sq_lock);
	qp->ex_prod = qp->sq.prod;
	qp->ex_wqe = NULL;
	qp->ex_err = sq_state_ok(qp->vqp.qp.state) && !qp->in_reset &&
		     qp->sq.hdr ? 0 : EINVAL;
}

static int sroce_wr_complete(struct ibv_qp_ex *ibqpx)
{
	struct sroce_qp *qp = ex_to_sqp(ibqpx);
	int err = qp->ex_err;
	bool posted;

	/* As mlx5 and rxe: a batch with an error posts nothing of it. */
	posted = !err && qp->ex_prod != qp->sq.prod;
	if (posted)
		sroce_uring_publish(&qp->sq, qp->ex_prod);
	qp->ex_wqe = NULL;
	pthread_spin_unlock(&qp->sq_lock);
	if (posted && sroce_uring_need_doorbell(&qp->sq))
		err = sroce_send_doorbell(&qp->vqp.qp);
	return err;
}

static void sroce_wr_abort(struct ibv_qp_ex *ibqpx)
{
	struct sroce_qp *qp = ex_to_sqp(ibqpx);

	qp->ex_wqe = NULL;
	pthread_spin_unlock(&qp->sq_lock);
}

static void ex_fail(struct sroce_qp *qp, int err)
{
	if (!qp->ex_err)
		qp->ex_err = err;
	qp->ex_wqe = NULL;
}

/*
 * Start the next WQE of the batch: the same checks and the same builder
 * as ibv_post_send. NULL after any error in the batch (setters then do
 * nothing; wr_complete returns the first error).
 */
static struct sroce_send_wqe *ex_begin(struct ibv_qp_ex *ibqpx,
				       uint32_t opcode)
{
	struct sroce_qp *qp = ex_to_sqp(ibqpx);
	struct sroce_send_wqe *wqe;

	qp->ex_wqe = NULL;
	if (qp->ex_err)
		return NULL;
	if (!sroce_wqe_opcode_ok(qp->caps.qp_type, opcode)) {
		ex_fail(qp, EINVAL);
		return NULL;
	}
	if (sroce_uring_full(&qp->sq, qp->ex_prod)) {
		ex_fail(qp, ENOMEM);
		return NULL;
	}
	wqe = sroce_uring_slot(&qp->sq, qp->ex_prod++);
	sroce_wqe_init(wqe, ibqpx->wr_id, opcode, ibqpx->wr_flags);
	qp->ex_wqe = wqe;
	return wqe;
}

static void sroce_wr_send(struct ibv_qp_ex *ibqpx)
{
	ex_begin(ibqpx, IBV_WR_SEND);
}

static void sroce_wr_send_imm(struct ibv_qp_ex *ibqpx, __be32 imm_data)
{
	struct sroce_send_wqe *wqe = ex_begin(ibqpx, IBV_WR_SEND_WITH_IMM);

	if (wqe)
		sroce_wqe_set_imm(wqe, (uint32_t)imm_data);
}

static void sroce_wr_send_inv(struct ibv_qp_ex *ibqpx, uint32_t rkey)
{
	struct sroce_send_wqe *wqe = ex_begin(ibqpx, IBV_WR_SEND_WITH_INV);

	if (wqe)
		sroce_wqe_set_imm(wqe, rkey);
}

static void sroce_wr_rdma_write(struct ibv_qp_ex *ibqpx, uint32_t rkey,
				uint64_t remote_addr)
{
	struct sroce_send_wqe *wqe = ex_begin(ibqpx, IBV_WR_RDMA_WRITE);

	if (wqe)
		sroce_wqe_set_rdma(wqe, remote_addr, rkey);
}

static void sroce_wr_rdma_write_imm(struct ibv_qp_ex *ibqpx, uint32_t rkey,
				    uint64_t remote_addr, __be32 imm_data)
{
	struct sroce_send_wqe *wqe;

	wqe = ex_begin(ibqpx, IBV_WR_RDMA_WRITE_WITH_IMM);
	if (!wqe)
		return;
	sroce_wqe_set_rdma(wqe, remote_addr, rkey);
	sroce_wqe_set_imm(wqe, (uint32_t)imm_data);
}

static void sroce_wr_rdma_read(struct ibv_qp_ex *ibqpx, uint32_t rkey,
			       uint64_t remote_addr)
{
	struct sroce_send_wqe *wqe = ex_begin(ibqpx, IBV_WR_RDMA_READ);

	if (wqe)
		sroce_wqe_set_rdma(wqe, remote_addr, rkey);
}

static void sroce_wr_atomic_cmp_swp(struct ibv_qp_ex *ibqpx, uint32_t rkey,
				    uint64_t remote_addr, uint64_t compare,
				    uint64_t swap)
{
	struct sroce_send_wqe *wqe;

	wqe = ex_begin(ibqpx, IBV_WR_ATOMIC_CMP_AND_SWP);
	if (wqe)
		sroce_wqe_set_atomic(wqe, remote_addr, rkey, compare, swap);
}

static void sroce_wr_atomic_fetch_add(struct ibv_qp_ex *ibqpx, uint32_t rkey,
				      uint64_t remote_addr, uint64_t add)
{
	struct sroce_send_wqe *wqe;

	wqe = ex_begin(ibqpx, IBV_WR_ATOMIC_FETCH_AND_ADD);
	if (wqe)
		sroce_wqe_set_atomic(wqe, remote_addr, rkey, add, 0);
}

static void sroce_wr_local_inv(struct ibv_qp_ex *ibqpx, uint32_t rkey)
{
	struct sroce_send_wqe *wqe = ex_begin(ibqpx, IBV_WR_LOCAL_INV);

	if (wqe)
		sroce_wqe_set_imm(wqe, rkey);
}

static void sroce_wr_bind_mw(struct ibv_qp_ex *ibqpx, struct ibv_mw *mw,
			     uint32_t rkey,
			     const struct ibv_mw_bind_info *bi)
{
	struct sroce_qp *qp = ex_to_sqp(ibqpx);
	struct sroce_send_wqe *wqe = ex_begin(ibqpx, IBV_WR_BIND_MW);

	if (!wqe)
		return;
	if (!mw || !bi || (!bi->mr && bi->length)) {
		ex_fail(qp, EINVAL);
		return;
	}
	sroce_wqe_set_bind_mw(wqe, mw, rkey, bi);
}

static void sroce_wr_atomic_write(struct ibv_qp_ex *ibqpx, uint32_t rkey,
				  uint64_t remote_addr, const void *atomic_wr)
{
	struct sroce_send_wqe *wqe = ex_begin(ibqpx, IBV_WR_ATOMIC_WRITE);

	if (wqe)
		sroce_wqe_set_atomic_write(wqe, remote_addr, rkey, atomic_wr);
}

/* type and level go as given: the responder NAKs what it cannot do. */
static void sroce_wr_flush(struct ibv_qp_ex *ibqpx, uint32_t rkey,
			   uint64_t remote_addr, size_t len, uint8_t type,
			   uint8_t level)
{
	struct sroce_qp *qp = ex_to_sqp(ibqpx);
	struct sroce_send_wqe *wqe = ex_begin(ibqpx, IBV_WR_FLUSH);
	int err;

	if (!wqe)
		return;
	err = sroce_check_flush(len, level);
	if (err) {
		ex_fail(qp, err);
		return;
	}
	sroce_wqe_set_flush(wqe, remote_addr, rkey, len, type, level);
}

/*
 * The WQE the data setters may fill, or NULL (error recorded): none for
 * the opcodes whose WQE has no SGEs (local ones, FLUSH, ATOMIC_WRITE).
 */
static struct sroce_send_wqe *ex_data_wqe(struct sroce_qp *qp)
{
	if (qp->ex_wqe && sroce_wqe_no_sges(qp->ex_wqe->opcode)) {
		ex_fail(qp, EINVAL);
		return NULL;
	}
	return qp->ex_wqe;
}

static void sroce_wr_set_sge(struct ibv_qp_ex *ibqpx, uint32_t lkey,
			     uint64_t addr, uint32_t length)
{
	struct sroce_qp *qp = ex_to_sqp(ibqpx);
	struct sroce_send_wqe *wqe = ex_data_wqe(qp);
	struct ibv_sge sge = { .addr = addr, .length = length, .lkey = lkey };
	int err;

	if (!wqe)
		return;
	err = sroce_check_sge_count(&qp->caps, 1);
	if (err)
		ex_fail(qp, err);
	else
		sroce_wqe_set_sges(wqe, &sge, 1);
}

static void sroce_wr_set_sge_list(struct ibv_qp_ex *ibqpx, size_t num_sge,
				  const struct ibv_sge *sg_list)
{
	struct sroce_qp *qp = ex_to_sqp(ibqpx);
	struct sroce_send_wqe *wqe = ex_data_wqe(qp);
	int err;

	if (!wqe)
		return;
	err = sroce_check_sge_count(&qp->caps, num_sge);
	if (err)
		ex_fail(qp, err);
	else
		sroce_wqe_set_sges(wqe, sg_list, num_sge);
}

static void set_inline_bufs(struct sroce_qp *qp,
			    const struct ibv_data_buf *buf, size_t num)
{
	struct sroce_send_wqe *wqe = ex_data_wqe(qp);
	uint64_t total = 0;
	size_t i;
	int err;

	if (!wqe)
		return;
	/* Saturate: no sum of size_t lengths may wrap below max_inline. */
	for (i = 0; i < num && total <= UINT32_MAX; i++)
		total += buf[i].length > UINT32_MAX ? (uint64_t)UINT32_MAX + 1 :
						      buf[i].length;
	err = sroce_check_inline(&qp->caps, wqe->opcode, total);
	if (err)
		ex_fail(qp, err);
	else
		sroce_wqe_set_inline_bufs(wqe, buf, num);
}

static void sroce_wr_set_inline_data(struct ibv_qp_ex *ibqpx, void *addr,
				     size_t length)
{
	struct ibv_data_buf buf = { .addr = addr, .length = length };

	set_inline_bufs(ex_to_sqp(ibqpx), &buf, 1);
}

static void sroce_wr_set_inline_data_list(struct ibv_qp_ex *ibqpx,
					  size_t num_buf,
					  const struct ibv_data_buf *buf_list)
{
	set_inline_bufs(ex_to_sqp(ibqpx), buf_list, num_buf);
}

static void sroce_wr_set_xrc_srqn(struct ibv_qp_ex *ibqpx, uint32_t remote_srqn)
{
	struct sroce_qp *qp = ex_to_sqp(ibqpx);

	if (!qp->ex_wqe)
		return;
	if (qp->caps.qp_type != IBV_QPT_XRC_SEND) {
		ex_fail(qp, EINVAL);
		return;
	}
	sroce_wqe_set_xrc_srqn(qp->ex_wqe, remote_srqn);
}

static void sroce_wr_set_ud_addr(struct ibv_qp_ex *ibqpx, struct ibv_ah *ah,
				 uint32_t remote_qpn, uint32_t remote_qkey)
{
	struct sroce_qp *qp = ex_to_sqp(ibqpx);

	if (!qp->ex_wqe)
		return;
	if (qp->caps.qp_type != IBV_QPT_UD || !ah) {
		ex_fail(qp, EINVAL);
		return;
	}
	sroce_wqe_set_ud(qp->ex_wqe, sroce_ah_index(ah), remote_qpn,
			 remote_qkey);
}

/* IBV_QP_EX_WITH_* a QP of @qp_type may ask for: from the opcode table. */
static uint64_t supported_send_ops(uint32_t qp_type)
{
	uint64_t ops = 0;
	uint32_t op;

	for (op = 0; op < SROCE_NUM_WR_OPCODES; op++)
		if (sroce_wqe_opcode_ok(qp_type, op))
			ops |= 1ULL << op;
	if (sroce_wqe_opcode_ok(qp_type, IBV_WR_FLUSH))
		ops |= IBV_QP_EX_WITH_FLUSH;
	if (sroce_wqe_opcode_ok(qp_type, IBV_WR_ATOMIC_WRITE))
		ops |= IBV_QP_EX_WITH_ATOMIC_WRITE;
	return ops;
}

static void set_send_ops(struct ibv_qp_ex *x, uint64_t flags)
{
	if (flags & IBV_QP_EX_WITH_SEND)
		x->wr_send = sroce_wr_send;
	if (flags & IBV_QP_EX_WITH_SEND_WITH_IMM)
		x->wr_send_imm = sroce_wr_send_imm;
	if (flags & IBV_QP_EX_WITH_SEND_WITH_INV)
		x->wr_send_inv = sroce_wr_send_inv;
	if (flags & IBV_QP_EX_WITH_RDMA_WRITE)
		x->wr_rdma_write = sroce_wr_rdma_write;
	if (flags & IBV_QP_EX_WITH_RDMA_WRITE_WITH_IMM)
		x->wr_rdma_write_imm = sroce_wr_rdma_write_imm;
	if (flags & IBV_QP_EX_WITH_RDMA_READ)
		x->wr_rdma_read = sroce_wr_rdma_read;
	if (flags & IBV_QP_EX_WITH_ATOMIC_CMP_AND_SWP)
		x->wr_atomic_cmp_swp = sroce_wr_atomic_cmp_swp;
	if (flags & IBV_QP_EX_WITH_ATOMIC_FETCH_AND_ADD)
		x->wr_atomic_fetch_add = sroce_wr_atomic_fetch_add;
	if (flags & IBV_QP_EX_WITH_LOCAL_INV)
		x->wr_local_inv = sroce_wr_local_inv;
	if (flags & IBV_QP_EX_WITH_BIND_MW)
		x->wr_bind_mw = sroce_wr_bind_mw;
	if (flags & IBV_QP_EX_WITH_ATOMIC_WRITE)
		x->wr_atomic_write = sroce_wr_atomic_write;
	if (flags & IBV_QP_EX_WITH_FLUSH)
		x->wr_flush = sroce_wr_flush;
	x->wr_set_sge = sroce_wr_set_sge;
	x->wr_set_sge_list = sroce_wr_set_sge_list;
	x->wr_set_inline_data = sroce_wr_set_inline_data;
	x->wr_set_inline_data_list = sroce_wr_set_inline_data_list;
	x->wr_set_ud_addr = sroce_wr_set_ud_addr;
	x->wr_set_xrc_srqn = sroce_wr_set_xrc_srqn;
	x->wr_start = sroce_wr_start;
	x->wr_complete = sroce_wr_complete;
	x->wr_abort = sroce_wr_abort;
}

/* ---------------------------------------------------------------- */
/* Create, modify, query, destroy                                   */
/* ---------------------------------------------------------------- */

/*
 * What sroce refuses before asking the kernel (errno: EOPNOTSUPP). An
 * XRC target (XRC_RECV) has an XRC domain and nothing else; every other
 * type a PD.
 */
static int check_init_attr(const struct ibv_qp_init_attr_ex *attr)
{
	const uint64_t comp_mask = IBV_QP_INIT_ATTR_PD |
				   IBV_QP_INIT_ATTR_XRCD |
				   IBV_QP_INIT_ATTR_CREATE_FLAGS |
				   IBV_QP_INIT_ATTR_SEND_OPS_FLAGS;

	switch (attr->qp_type) {
	case IBV_QPT_RC:
	case IBV_QPT_UC:
	case IBV_QPT_UD:
	case IBV_QPT_XRC_SEND:
	case IBV_QPT_XRC_RECV:
		break;
	default:	/* RAW_PACKET, DRIVER */
		return EOPNOTSUPP;
	}
	if (attr->comp_mask & ~comp_mask)
		return EOPNOTSUPP;
	if (attr->qp_type == IBV_QPT_XRC_RECV) {
		if (!(attr->comp_mask & IBV_QP_INIT_ATTR_XRCD) || !attr->xrcd)
			return EINVAL;
	} else if (!(attr->comp_mask & IBV_QP_INIT_ATTR_PD) || !attr->pd) {
		return EINVAL;
	}
	if ((attr->comp_mask & IBV_QP_INIT_ATTR_CREATE_FLAGS) &&
	    attr->create_flags)
		return EOPNOTSUPP;
	if ((attr->comp_mask & IBV_QP_INIT_ATTR_SEND_OPS_FLAGS) &&
	    (attr->send_ops_flags & ~supported_send_ops(attr->qp_type)))
		return EOPNOTSUPP;
	return 0;
}

/* Map the rings the kernel made for the caps now in @attr->cap. */
static int map_rings(struct sroce_qp *qp, int fd,
		     const struct ibv_qp_init_attr_ex *attr,
		     const struct sroce_create_qp_resp *resp)
{
	const struct ibv_qp_cap *cap = &attr->cap;
	int err;

	qp->caps.qp_type = attr->qp_type;
	/* The kernel made an XRC target with no queue to map. */
	if (attr->qp_type == IBV_QPT_XRC_RECV)
		return 0;
	qp->caps.max_sge = cap->max_send_sge;
	qp->caps.max_inline = resp->max_inline;
	err = sroce_uring_map(&qp->sq, fd, &resp->sq,
		       sroce_send_wqe_size(cap->max_send_sge, resp->max_inline),
		       cap->max_send_wr);
	if (err)
		return err;
	if (attr->srq || attr->qp_type == IBV_QPT_XRC_SEND)
		return 0;
	qp->rq_max_sge = cap->max_recv_sge;
	err = sroce_uring_map(&qp->rq, fd, &resp->rq,
		       sroce_recv_wqe_size(cap->max_recv_sge),
		       cap->max_recv_wr);
	if (err)
		sroce_uring_unmap(&qp->sq);
	return err;
}

static struct ibv_qp *create_qp(struct ibv_context *ctx,
				struct ibv_qp_init_attr_ex *attr)
{
	struct usroce_create_qp_ex_resp resp = {};
	struct usroce_create_qp_ex cmd = {};
	struct sroce_qp *qp;
	int err;

	err = check_init_attr(attr);
	if (err)
		goto err_out;
	qp = calloc(1, sizeof(*qp));
	if (!qp) {
		err = ENOMEM;
		goto err_out;
	}
	pthread_spin_init(&qp->sq_lock, PTHREAD_PROCESS_PRIVATE);
	pthread_spin_init(&qp->rq_lock, PTHREAD_PROCESS_PRIVATE);
	qp->in_reset = true;		/* a new QP is in RESET */
	if (attr->comp_mask & IBV_QP_INIT_ATTR_SEND_OPS_FLAGS)
		set_send_ops(&qp->vqp.qp_ex, attr->send_ops_flags);

	err = sroce_cmd_create_qp_ex2(ctx, &qp->vqp, attr, &cmd.ibv_cmd,
				      sizeof(cmd), &resp.ibv_resp, sizeof(resp));
	if (err)
		goto err_free;
	if (attr->comp_mask & IBV_QP_INIT_ATTR_SEND_OPS_FLAGS)
		qp->vqp.comp_mask |= VERBS_QP_EX;
	/*
	 * libibverbs copied the CQs and SRQ of @attr into the QP; an XRC
	 * QP ignores what it has no use for (the kernel took none of it),
	 * and the caller may destroy those objects while the QP lives.
	 */
	if (attr->qp_type == IBV_QPT_XRC_SEND || attr->qp_type == IBV_QPT_XRC_RECV) {
		qp->vqp.qp.recv_cq = NULL;
		qp->vqp.qp.srq = NULL;
	}
	if (attr->qp_type == IBV_QPT_XRC_RECV)
		qp->vqp.qp.send_cq = NULL;
	/* The driver's word on inline; the WR counts are the kernel's too. */
	attr->cap.max_inline_data = resp.drv_payload.max_inline;
	err = map_rings(qp, ctx->cmd_fd, attr, &resp.drv_payload);
	if (err)
		goto err_destroy;
	return &qp->vqp.qp;

err_destroy:
	ibv_cmd_destroy_qp(&qp->vqp.qp);
err_free:
	pthread_spin_destroy(&qp->rq_lock);
	pthread_spin_destroy(&qp->sq_lock);
	free(qp);
err_out:
	errno = err;
	return NULL;
}

static struct ibv_qp *sroce_create_qp_ex(struct ibv_context *ctx,
					 struct ibv_qp_init_attr_ex *attr)
{
	return create_qp(ctx, attr);
}

/*
 * Another handle on an XRC target QP of an XRC domain (ibv_open_qp): the
 * kernel's object, shared; nothing here to map or post to.
 */
static struct ibv_qp *sroce_open_qp(struct ibv_context *ctx,
				    struct ibv_qp_open_attr *attr)
{
	struct ib_uverbs_create_qp_resp resp = {};
	struct ibv_open_qp cmd = {};
	struct sroce_qp *qp;
	int err;

	qp = calloc(1, sizeof(*qp));
	if (!qp)
		return NULL;
	pthread_spin_init(&qp->sq_lock, PTHREAD_PROCESS_PRIVATE);
	pthread_spin_init(&qp->rq_lock, PTHREAD_PROCESS_PRIVATE);
	qp->caps.qp_type = IBV_QPT_XRC_RECV;
	err = ibv_cmd_open_qp(ctx, &qp->vqp, sizeof(qp->vqp), attr, &cmd,
			      sizeof(cmd), &resp, sizeof(resp));
	if (err) {
		pthread_spin_destroy(&qp->rq_lock);
		pthread_spin_destroy(&qp->sq_lock);
		free(qp);
		errno = err;
		return NULL;
	}
	return &qp->vqp.qp;
}

static struct ibv_qp *sroce_create_qp(struct ibv_pd *pd,
				      struct ibv_qp_init_attr *attr)
{
	struct ibv_qp_init_attr_ex ex = {
		.qp_context = attr->qp_context,
		.send_cq = attr->send_cq,
		.recv_cq = attr->recv_cq,
		.srq = attr->srq,
		.cap = attr->cap,
		.qp_type = attr->qp_type,
		.sq_sig_all = attr->sq_sig_all,
		.comp_mask = IBV_QP_INIT_ATTR_PD,
		.pd = pd,
	};
	struct ibv_qp *qp = create_qp(pd->context, &ex);

	if (qp)
		attr->cap = ex.cap;
	return qp;
}

/*
 * Set in_reset, both queues' locks held; on @reload (the kernel has just
 * zeroed both rings' indices) follow the kernel's indices too.
 */
static void sroce_qp_set_in_reset(struct sroce_qp *qp, bool in_reset,
				  bool reload)
{
	pthread_spin_lock(&qp->sq_lock);
	pthread_spin_lock(&qp->rq_lock);
	qp->in_reset = in_reset;
	if (reload) {
		sroce_uring_reload(&qp->sq);
		sroce_uring_reload(&qp->rq);
	}
	pthread_spin_unlock(&qp->rq_lock);
	pthread_spin_unlock(&qp->sq_lock);
}

static int sroce_modify_qp(struct ibv_qp *ibqp, struct ibv_qp_attr *attr,
			   int attr_mask)
{
	struct sroce_qp *qp = to_sqp(ibqp);
	bool to_state = attr_mask & IBV_QP_STATE;
	bool to_reset = to_state && attr->qp_state == IBV_QPS_RESET;
	struct ibv_modify_qp cmd = {};
	bool was_reset;
	int err;

	/* No post between here and the kernel's RESET (sroce_qp.h). */
	pthread_spin_lock(&qp->sq_lock);
	was_reset = qp->in_reset;
	pthread_spin_unlock(&qp->sq_lock);
	if (to_reset)
		sroce_qp_set_in_reset(qp, true, false);
	err = ibv_cmd_modify_qp(ibqp, attr, attr_mask, &cmd, sizeof(cmd));
	if (err) {
		if (to_reset)
			sroce_qp_set_in_reset(qp, was_reset, false);
		return err;
	}
	if (to_state)
		sroce_qp_set_in_reset(qp, to_reset, to_reset);
	if (to_reset) {
		/* Nothing of the old life of the QP stays in its CQs. */
		if (ibqp->recv_cq)
			sroce_cq_clean(ibqp->recv_cq, ibqp->qp_num);
		if (ibqp->send_cq && ibqp->send_cq != ibqp->recv_cq)
			sroce_cq_clean(ibqp->send_cq, ibqp->qp_num);
	}
	return 0;
}

static int sroce_query_qp(struct ibv_qp *ibqp, struct ibv_qp_attr *attr,
			  int attr_mask, struct ibv_qp_init_attr *init_attr)
{
	struct ibv_query_qp cmd = {};

	return ibv_cmd_query_qp(ibqp, attr, attr_mask, init_attr, &cmd,
				sizeof(cmd));
}

static int sroce_destroy_qp(struct ibv_qp *ibqp)
{
	struct sroce_qp *qp = to_sqp(ibqp);
	int err;

	err = ibv_cmd_destroy_qp(ibqp);
	if (err)
		return err;
	sroce_uring_unmap(&qp->rq);
	sroce_uring_unmap(&qp->sq);
	pthread_spin_destroy(&qp->rq_lock);
	pthread_spin_destroy(&qp->sq_lock);
	free(qp);
	return 0;
}

const struct verbs_context_ops sroce_qp_ops = {
	.create_qp = sroce_create_qp,
	.create_qp_ex = sroce_create_qp_ex,
	.open_qp = sroce_open_qp,
	.modify_qp = sroce_modify_qp,
	.query_qp = sroce_query_qp,
	.destroy_qp = sroce_destroy_qp,
	.post_send = sroce_post_send,
	.post_recv = sroce_post_recv,
	/* Multicast membership lives in the kernel: a plain command each. */
	.attach_mcast = ibv_cmd_attach_mcast,
	.detach_mcast = ibv_cmd_detach_mcast,
};
