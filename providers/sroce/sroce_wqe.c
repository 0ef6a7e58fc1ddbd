// SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause
/*
 * Send and receive WQE building for libsroce (see sroce_wqe.h). Pure code,
 * host-tested by selftests/provider/test_wqe.c.
 */
#include <errno.h>
#include <string.h>

#include "sroce_wqe.h"

#define QPT_BIT(t)	(1U << (t))
#define RC		QPT_BIT(IB_UVERBS_QPT_RC)
#define UC		QPT_BIT(IB_UVERBS_QPT_UC)
#define UD		QPT_BIT(IB_UVERBS_QPT_UD)

/*
 * Per send opcode: the QP types that allow it and whether it carries an
 * outgoing payload. Must agree with kernel/core/opcode.c (seed-rules
 * R1.2: SEND on all; WRITE on RC/UC; READ and ATOMIC on RC only; SEND
 * with invalidate has packet opcodes on RC only; the local operations on
 * RC and UC, as rxe). Zero entries (TSO, DRIVER1, FLUSH, ATOMIC_WRITE,
 * anything unknown) are refused.
 */
static const struct {
	uint8_t qpt_mask;
	bool payload;
} wr_opcode_info[] = {
	[IB_UVERBS_WR_RDMA_WRITE]		= { RC | UC, true },
	[IB_UVERBS_WR_RDMA_WRITE_WITH_IMM]	= { RC | UC, true },
	[IB_UVERBS_WR_SEND]			= { RC | UC | UD, true },
	[IB_UVERBS_WR_SEND_WITH_IMM]		= { RC | UC | UD, true },
	[IB_UVERBS_WR_RDMA_READ]		= { RC, false },
	[IB_UVERBS_WR_ATOMIC_CMP_AND_SWP]	= { RC, false },
	[IB_UVERBS_WR_ATOMIC_FETCH_AND_ADD]	= { RC, false },
	[IB_UVERBS_WR_LOCAL_INV]		= { RC | UC, false },
	[IB_UVERBS_WR_BIND_MW]			= { RC | UC, false },
	[IB_UVERBS_WR_SEND_WITH_INV]		= { RC, true },
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
	if (opcode >= NUM_OPCODES || qp_type >= 8)
		return false;
	return wr_opcode_info[opcode].qpt_mask & QPT_BIT(qp_type);
}

bool sroce_wqe_has_payload(uint32_t opcode)
{
	return opcode < NUM_OPCODES && wr_opcode_info[opcode].payload;
}

uint64_t sroce_sge_total(const struct sroce_sge *sg, uint32_t num_sge)
{
	uint64_t total = 0;
	uint32_t i;

	for (i = 0; i < num_sge; i++)
		total += sg[i].length;
	return total;
}

int sroce_check_sge_count(const struct sroce_sq_caps *caps, uint64_t num_sge)
{
	return num_sge > caps->max_sge ? EINVAL : 0;
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

int sroce_send_wr_check(const struct sroce_sq_caps *caps, uint32_t opcode,
			uint32_t send_flags, uint32_t num_sge,
			const struct sroce_sge *sg)
{
	int err;

	if (!sroce_wqe_opcode_ok(caps->qp_type, opcode))
		return EINVAL;
	err = sroce_check_sge_count(caps, num_sge);
	if (err)
		return err;
	if (send_flags & SROCE_SEND_INLINE)
		return sroce_check_inline(caps, opcode,
					  sroce_sge_total(sg, num_sge));
	return 0;
}

void sroce_wqe_init(struct sroce_send_wqe *wqe, uint64_t wr_id,
		    uint32_t opcode, uint32_t send_flags)
{
	memset(wqe, 0, sizeof(*wqe));
	wqe->wr_id = wr_id;
	wqe->opcode = opcode;
	/* INLINE is set by the inline setters, when there is inline data. */
	wqe->send_flags = send_flags & SROCE_WQE_SEND_FLAGS &
			  ~SROCE_SEND_INLINE;
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

void sroce_wqe_set_ud(struct sroce_send_wqe *wqe, uint32_t ah_index,
		      uint32_t remote_qpn, uint32_t remote_qkey)
{
	wqe->wr.ud.ah_index = ah_index;
	wqe->wr.ud.remote_qpn = remote_qpn;
	wqe->wr.ud.remote_qkey = remote_qkey;
}

void sroce_wqe_set_bind_mw(struct sroce_send_wqe *wqe, uint32_t mw_rkey,
			   uint32_t new_rkey, uint32_t mr_lkey, uint64_t addr,
			   uint64_t length, uint32_t access)
{
	wqe->wr.bind_mw.addr = addr;
	wqe->wr.bind_mw.length = length;
	wqe->wr.bind_mw.mw_rkey = mw_rkey;
	wqe->wr.bind_mw.mr_lkey = mr_lkey;
	wqe->wr.bind_mw.new_rkey = new_rkey;
	wqe->wr.bind_mw.access = access;
}

void sroce_wqe_set_sges(struct sroce_send_wqe *wqe,
			const struct sroce_sge *sg, uint32_t num_sge)
{
	if (num_sge)
		memcpy(sroce_wqe_sges(wqe), sg, num_sge * sizeof(*sg));
	wqe->num_sge = num_sge;
	wqe->inline_len = 0;
	wqe->send_flags &= ~SROCE_SEND_INLINE;
}

void sroce_wqe_set_inline_sges(struct sroce_send_wqe *wqe,
			       const struct sroce_sge *sg, uint32_t num_sge)
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
	wqe->send_flags |= SROCE_SEND_INLINE;
}

void sroce_wqe_set_inline_bufs(struct sroce_send_wqe *wqe,
			       const struct sroce_inline_buf *buf, size_t num)
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
	wqe->send_flags |= SROCE_SEND_INLINE;
}

void sroce_rwqe_build(struct sroce_recv_wqe *wqe, uint64_t wr_id,
		      const struct sroce_sge *sg, uint32_t num_sge)
{
	wqe->wr_id = wr_id;
	wqe->num_sge = num_sge;
	wqe->reserved = 0;
	if (num_sge)
		memcpy(sroce_rwqe_sges(wqe), sg, num_sge * sizeof(*sg));
}
