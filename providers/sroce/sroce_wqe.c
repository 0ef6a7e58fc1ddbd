// SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause
/*
 * Send and receive WQEs for libsroce (see sroce_wqe.h). Host-tested by
 * selftests/provider/test_wqe.c.
 */
#include <assert.h>
#include <errno.h>
#include <string.h>

#include "sroce_wqe.h"

/* SGEs and inline pieces are copied as they are: the layouts must match. */
static_assert(sizeof(struct ibv_sge) == sizeof(struct sroce_sge), "sge");
static_assert(offsetof(struct ibv_sge, addr) ==
	      offsetof(struct sroce_sge, addr), "sge.addr");
static_assert(offsetof(struct ibv_sge, length) ==
	      offsetof(struct sroce_sge, length), "sge.length");
static_assert(offsetof(struct ibv_sge, lkey) ==
	      offsetof(struct sroce_sge, lkey), "sge.lkey");
/* The ABI's slots hold 8-byte fields: every size here keeps that. */
static_assert(sizeof(struct sroce_send_wqe) % 8 == 0, "send wqe");
static_assert(sizeof(struct sroce_recv_wqe) % 8 == 0, "recv wqe");

#define QPT_BIT(t)	(1U << (t))
#define RC		QPT_BIT(IBV_QPT_RC)
#define UC		QPT_BIT(IBV_QPT_UC)
#define UD		QPT_BIT(IBV_QPT_UD)
#define XRC		QPT_BIT(IBV_QPT_XRC_SEND)

/*
 * Per send opcode: the QP types that allow it and whether it carries an
 * outgoing payload. Must agree with kernel/core/opcode.c (seed-rules
 * R1.2: SEND on all; WRITE on RC/UC; READ and ATOMIC on RC only. SEND
 * with invalidate has packet opcodes on RC only; the local operations are
 * RC and UC, as rxe; IBA 1.5's FLUSH and ATOMIC WRITE have RC opcodes
 * only; an XRC initiator, XRC_SEND, posts what RC posts but those two).
 * Zero entries (TSO, DRIVER1, anything unknown) are refused.
 * @payload: an outgoing payload from SGEs or inline data. @no_sges: the
 * WQE carries no SGEs at all (local operations; FLUSH, and ATOMIC WRITE
 * whose 8 bytes travel in the WQE itself).
 */
static const struct {
	uint16_t qpt_mask;
	bool payload;
	bool no_sges;
} wr_opcode_info[] = {
	[IBV_WR_RDMA_WRITE]		= { RC | UC | XRC, true },
	[IBV_WR_RDMA_WRITE_WITH_IMM]	= { RC | UC | XRC, true },
	[IBV_WR_SEND]			= { RC | UC | UD | XRC, true },
	[IBV_WR_SEND_WITH_IMM]		= { RC | UC | UD | XRC, true },
	[IBV_WR_RDMA_READ]		= { RC | XRC, false },
	[IBV_WR_ATOMIC_CMP_AND_SWP]	= { RC | XRC, false },
	[IBV_WR_ATOMIC_FETCH_AND_ADD]	= { RC | XRC, false },
	[IBV_WR_LOCAL_INV]		= { RC | UC | XRC, false, true },
	[IBV_WR_BIND_MW]		= { RC | UC | XRC, false, true },
	[IBV_WR_SEND_WITH_INV]		= { RC | XRC, true },
	[IBV_WR_FLUSH]			= { RC, false, true },
	[IBV_WR_ATOMIC_WRITE]		= { RC, false, true },
};

#define NUM_OPCODES (sizeof(wr_opcode_info) / sizeof(wr_opcode_info[0]))

size_t sroce_send_wqe_size(uint32_t max_sge, uint32_t max_inline)
{
	size_t sges = (size_t)max_sge * sizeof(struct sroce_sge);
	size_t data = sges > max_inline ? sges : max_inline;

	/* Round up so that every slot keeps the next one 8-byte aligned. */
	return (sizeof(struct sroce_send_wqe) + data + 7) & ~(size_t)7;
}

size_t sroce_recv_wqe_size(uint32_t max_sge)
{
	return sizeof(struct sroce_recv_wqe) +
	       (size_t)max_sge * sizeof(struct sroce_sge);
}

bool sroce_wqe_opcode_ok(uint32_t qp_type, uint32_t opcode)
{
	if (opcode >= NUM_OPCODES || qp_type >= 16)
		return false;
	return wr_opcode_info[opcode].qpt_mask & QPT_BIT(qp_type);
}

bool sroce_wqe_has_payload(uint32_t opcode)
{
	return opcode < NUM_OPCODES && wr_opcode_info[opcode].payload;
}

bool sroce_wqe_is_local(uint32_t opcode)
{
	return opcode == IBV_WR_LOCAL_INV || opcode == IBV_WR_BIND_MW;
}

bool sroce_wqe_no_sges(uint32_t opcode)
{
	return opcode < NUM_OPCODES && wr_opcode_info[opcode].no_sges;
}

/* Too many send SGEs: mlx5 answers ENOMEM (no room in the WQE), so do we. */
int sroce_check_sge_count(const struct sroce_sq_caps *caps, uint64_t num_sge)
{
	return num_sge > caps->max_sge ? ENOMEM : 0;
}

int sroce_check_inline(const struct sroce_sq_caps *caps, uint32_t opcode,
		       uint64_t length)
{
	if (!sroce_wqe_has_payload(opcode))
		return EINVAL;
	/* mlx5 answers ENOMEM (no room in the WQE), and so do we. */
	if (length > caps->max_inline)
		return ENOMEM;
	return 0;
}

int sroce_check_flush(uint64_t length, uint8_t level)
{
	/*
	 * The WQE's length is 32 bits, as the FETH's DMA length. A whole-MR
	 * flush ignores it (rdma-core's test passes any size), so only a
	 * range must fit. type and other levels are the responder's to judge.
	 */
	if (level == IBV_FLUSH_RANGE && length > UINT32_MAX)
		return EINVAL;
	return 0;
}

/* Sum of the SGE lengths, in 64 bits: no wrap for any num_sge. */
static uint64_t sge_total(const struct ibv_sge *sg, uint32_t num_sge)
{
	uint64_t total = 0;
	uint32_t i;

	for (i = 0; i < num_sge; i++)
		total += sg[i].length;
	return total;
}

int sroce_send_wr_check(const struct sroce_sq_caps *caps,
			const struct ibv_send_wr *wr)
{
	const struct ibv_mw_bind_info *bi = &wr->bind_mw.bind_info;
	int err;

	if (!sroce_wqe_opcode_ok(caps->qp_type, wr->opcode) || wr->num_sge < 0)
		return EINVAL;
	/*
	 * struct ibv_send_wr has no field for a FLUSH's type and level, so a
	 * FLUSH can only be posted through ibv_wr_flush() (rxe refuses it
	 * here too).
	 */
	if (wr->opcode == IBV_WR_FLUSH)
		return EINVAL;
	err = sroce_check_sge_count(caps, (uint32_t)wr->num_sge);
	if (err)
		return err;
	/*
	 * ATOMIC WRITE: the SGEs (or inline pieces) hold the 8 bytes, which
	 * the WQE carries itself, so max_inline does not apply.
	 */
	if (wr->opcode == IBV_WR_ATOMIC_WRITE) {
		if (sge_total(wr->sg_list, wr->num_sge) !=
		    SROCE_ATOMIC_WRITE_LEN)
			return EINVAL;
	} else if (wr->send_flags & IBV_SEND_INLINE) {
		err = sroce_check_inline(caps, wr->opcode,
					 sge_total(wr->sg_list, wr->num_sge));
		if (err)
			return err;
	}
	if (caps->qp_type == IBV_QPT_UD && !wr->wr.ud.ah)
		return EINVAL;
	if (wr->opcode == IBV_WR_BIND_MW &&
	    (!wr->bind_mw.mw || (!bi->mr && bi->length)))
		return EINVAL;
	return 0;
}

void sroce_wqe_init(struct sroce_send_wqe *wqe, uint64_t wr_id,
		    uint32_t opcode, uint32_t send_flags)
{
	memset(wqe, 0, sizeof(*wqe));
	wqe->wr_id = wr_id;
	wqe->opcode = opcode;
	/* INLINE is set by the inline setters, when there is inline data. */
	wqe->send_flags = send_flags & SROCE_WQE_SEND_FLAGS & ~IBV_SEND_INLINE;
}

void sroce_wqe_set_xrc_srqn(struct sroce_send_wqe *wqe, uint32_t remote_srqn)
{
	wqe->xrc_remote_srqn = remote_srqn;
}

void sroce_wqe_set_imm(struct sroce_send_wqe *wqe, uint32_t imm_or_rkey)
{
	wqe->imm_data = imm_or_rkey;
}

void sroce_wqe_set_rdma(struct sroce_send_wqe *wqe, uint64_t remote_addr,
			uint32_t rkey)
{
	wqe->wr.rdma.remote_addr = remote_addr;
	wqe->wr.rdma.rkey = rkey;
}

void sroce_wqe_set_atomic(struct sroce_send_wqe *wqe, uint64_t remote_addr,
			  uint32_t rkey, uint64_t compare_add, uint64_t swap)
{
	wqe->wr.atomic.remote_addr = remote_addr;
	wqe->wr.atomic.compare_add = compare_add;
	wqe->wr.atomic.swap = swap;
	wqe->wr.atomic.rkey = rkey;
}

void sroce_wqe_set_atomic_write(struct sroce_send_wqe *wqe,
				uint64_t remote_addr, uint32_t rkey,
				const void *value)
{
	wqe->wr.atomic_write.remote_addr = remote_addr;
	wqe->wr.atomic_write.rkey = rkey;
	memcpy(wqe->wr.atomic_write.value, value, SROCE_ATOMIC_WRITE_LEN);
}

void sroce_wqe_set_flush(struct sroce_send_wqe *wqe, uint64_t remote_addr,
			 uint32_t rkey, uint64_t length, uint8_t type,
			 uint8_t level)
{
	wqe->wr.flush.remote_addr = remote_addr;
	wqe->wr.flush.rkey = rkey;
	/* A whole-MR flush has no range: length 0, whatever was given. */
	wqe->wr.flush.length = level == IBV_FLUSH_MR ? 0 : (uint32_t)length;
	wqe->wr.flush.type = type;
	wqe->wr.flush.level = level;
}

/*
 * The 8 bytes of a classic ATOMIC WRITE, from its SGEs (checked to total
 * 8). Their addresses are this process's memory, inline or not, so they
 * are read here as inline data is; the L_Keys are not looked at.
 */
static void gather_atomic_write(uint8_t value[SROCE_ATOMIC_WRITE_LEN],
				const struct ibv_sge *sg, uint32_t num_sge)
{
	uint32_t i, n = 0;

	for (i = 0; i < num_sge; i++) {
		if (!sg[i].length)
			continue;
		memcpy(value + n, (const void *)(uintptr_t)sg[i].addr,
		       sg[i].length);
		n += sg[i].length;
	}
}

void sroce_wqe_set_ud(struct sroce_send_wqe *wqe, uint32_t ah_index,
		      uint32_t remote_qpn, uint32_t remote_qkey)
{
	wqe->wr.ud.ah_index = ah_index;
	wqe->wr.ud.remote_qpn = remote_qpn;
	wqe->wr.ud.remote_qkey = remote_qkey;
}

void sroce_wqe_set_bind_mw(struct sroce_send_wqe *wqe, struct ibv_mw *mw,
			   uint32_t new_rkey,
			   const struct ibv_mw_bind_info *bi)
{
	wqe->wr.bind_mw.addr = bi->addr;
	wqe->wr.bind_mw.length = bi->length;
	wqe->wr.bind_mw.mw_rkey = mw->rkey;
	wqe->wr.bind_mw.mr_lkey = bi->mr ? bi->mr->lkey : 0;
	wqe->wr.bind_mw.new_rkey = new_rkey;
	wqe->wr.bind_mw.access = bi->mw_access_flags;
}

void sroce_wqe_set_sges(struct sroce_send_wqe *wqe,
			const struct ibv_sge *sg, uint32_t num_sge)
{
	if (num_sge)
		memcpy(sroce_wqe_sges(wqe), sg, num_sge * sizeof(*sg));
	wqe->num_sge = num_sge;
	wqe->inline_len = 0;
	wqe->send_flags &= ~IBV_SEND_INLINE;
}

void sroce_wqe_set_inline_sges(struct sroce_send_wqe *wqe,
			       const struct ibv_sge *sg, uint32_t num_sge)
{
	uint8_t *dst = sroce_wqe_inline(wqe);
	uint32_t i;

	for (i = 0; i < num_sge; i++) {
		if (!sg[i].length)
			continue;
		memcpy(dst, (const void *)(uintptr_t)sg[i].addr, sg[i].length);
		dst += sg[i].length;
	}
	wqe->num_sge = 0;
	wqe->inline_len = (uint32_t)(dst - sroce_wqe_inline(wqe));
	wqe->send_flags |= IBV_SEND_INLINE;
}

void sroce_wqe_set_inline_bufs(struct sroce_send_wqe *wqe,
			       const struct ibv_data_buf *buf, size_t num)
{
	uint8_t *dst = sroce_wqe_inline(wqe);
	size_t i;

	for (i = 0; i < num; i++) {
		if (!buf[i].length)
			continue;
		memcpy(dst, buf[i].addr, buf[i].length);
		dst += buf[i].length;
	}
	wqe->num_sge = 0;
	wqe->inline_len = (uint32_t)(dst - sroce_wqe_inline(wqe));
	wqe->send_flags |= IBV_SEND_INLINE;
}

void sroce_wqe_from_wr(const struct sroce_sq_caps *caps,
		       struct sroce_send_wqe *wqe,
		       const struct ibv_send_wr *wr)
{
	uint8_t value[SROCE_ATOMIC_WRITE_LEN];

	sroce_wqe_init(wqe, wr->wr_id, wr->opcode, wr->send_flags);
	if (caps->qp_type == IBV_QPT_XRC_SEND)
		sroce_wqe_set_xrc_srqn(wqe, wr->qp_type.xrc.remote_srqn);
	switch (wr->opcode) {
	case IBV_WR_RDMA_WRITE_WITH_IMM:
		sroce_wqe_set_imm(wqe, (uint32_t)wr->imm_data);
		/* fallthrough */
	case IBV_WR_RDMA_WRITE:
	case IBV_WR_RDMA_READ:
		sroce_wqe_set_rdma(wqe, wr->wr.rdma.remote_addr,
				   wr->wr.rdma.rkey);
		break;
	case IBV_WR_SEND_WITH_IMM:
		/* Network byte order, as given: the kernel copies it as is. */
		sroce_wqe_set_imm(wqe, (uint32_t)wr->imm_data);
		break;
	case IBV_WR_SEND_WITH_INV:
	case IBV_WR_LOCAL_INV:
		/* The R_Key to invalidate, host order. */
		sroce_wqe_set_imm(wqe, wr->invalidate_rkey);
		break;
	case IBV_WR_ATOMIC_CMP_AND_SWP:
	case IBV_WR_ATOMIC_FETCH_AND_ADD:
		sroce_wqe_set_atomic(wqe, wr->wr.atomic.remote_addr,
				     wr->wr.atomic.rkey,
				     wr->wr.atomic.compare_add,
				     wr->wr.atomic.swap);
		break;
	case IBV_WR_BIND_MW:
		sroce_wqe_set_bind_mw(wqe, wr->bind_mw.mw, wr->bind_mw.rkey,
				      &wr->bind_mw.bind_info);
		break;
	case IBV_WR_ATOMIC_WRITE:
		gather_atomic_write(value, wr->sg_list, (uint32_t)wr->num_sge);
		sroce_wqe_set_atomic_write(wqe, wr->wr.rdma.remote_addr,
					   wr->wr.rdma.rkey, value);
		break;
	default:
		break;
	}
	if (caps->qp_type == IBV_QPT_UD)
		sroce_wqe_set_ud(wqe, sroce_ah_index(wr->wr.ud.ah),
				 wr->wr.ud.remote_qpn, wr->wr.ud.remote_qkey);
	if (sroce_wqe_no_sges(wr->opcode))
		return;
	if (wr->send_flags & IBV_SEND_INLINE)
		sroce_wqe_set_inline_sges(wqe, wr->sg_list, wr->num_sge);
	else
		sroce_wqe_set_sges(wqe, wr->sg_list, wr->num_sge);
}

int sroce_sq_post(struct sroce_uring *sq, const struct sroce_sq_caps *caps,
		  struct ibv_send_wr *wr, struct ibv_send_wr **bad_wr,
		  uint32_t *posted)
{
	uint32_t prod = sq->prod;
	int err = 0;

	for (; wr; wr = wr->next, prod++) {
		err = sroce_send_wr_check(caps, wr);
		if (!err && sroce_uring_full(sq, prod))
			err = ENOMEM;
		if (err) {
			*bad_wr = wr;
			break;
		}
		sroce_wqe_from_wr(caps, sroce_uring_slot(sq, prod), wr);
	}
	*posted = prod - sq->prod;
	if (*posted)
		sroce_uring_publish(sq, prod);
	return err;
}

int sroce_rq_post(struct sroce_uring *rq, uint32_t max_sge,
		  struct ibv_recv_wr *wr, struct ibv_recv_wr **bad_wr,
		  bool *need_flush)
{
	struct sroce_recv_wqe *wqe;
	uint32_t prod = rq->prod;
	int err = 0;

	*need_flush = false;
	for (; wr; wr = wr->next, prod++) {
		if (wr->num_sge < 0 || (uint32_t)wr->num_sge > max_sge)
			err = EINVAL;
		else if (sroce_uring_full(rq, prod))
			err = ENOMEM;
		if (err) {
			*bad_wr = wr;
			break;
		}
		wqe = sroce_uring_slot(rq, prod);
		wqe->wr_id = wr->wr_id;
		wqe->num_sge = wr->num_sge;
		wqe->reserved = 0;
		if (wr->num_sge)
			memcpy(sroce_rwqe_sges(wqe), wr->sg_list,
			       wr->num_sge * sizeof(struct sroce_sge));
	}
	if (prod != rq->prod) {
		sroce_uring_publish(rq, prod);
		*need_flush = sroce_uring_need_flush(rq);
	}
	return err;
}
