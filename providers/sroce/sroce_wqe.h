/* SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause */
/*
 * Send and receive WQE building for libsroce: the one place that writes
 * struct sroce_send_wqe / struct sroce_recv_wqe (include/uapi/rdma/
 * sroce-abi.h) into a ring slot. Used by ibv_post_send, ibv_post_recv and
 * the ibv_qp_ex builders alike.
 *
 * Pure code: no libibverbs, no locks, no system calls, so that it is
 * unit-tested on the host (selftests/provider/). Opcodes and QP types are
 * the uverbs values (IB_UVERBS_WR_*, IB_UVERBS_QPT_*), which equal the
 * IBV_* ones. The uapi has no enum for send flags: SROCE_SEND_* below are
 * the values of IBV_SEND_* and of the kernel's IB_SEND_*.
 */
#ifndef SROCE_WQE_H
#define SROCE_WQE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <rdma/ib_user_ioctl_verbs.h>
#include <rdma/ib_user_verbs.h>
#include <rdma/sroce-abi.h>

/* What the SQ of one QP accepts; set at create from the kernel's answer. */
struct sroce_sq_caps {
	uint32_t qp_type;	/* IB_UVERBS_QPT_RC, _UC or _UD */
	uint32_t max_sge;
	uint32_t max_inline;
};

/* One piece of inline data: the layout of struct ibv_data_buf. */
struct sroce_inline_buf {
	void *addr;
	size_t length;
};

/* sroce_send_wqe.send_flags: IBV_SEND_* = IB_SEND_* (kernel) values. */
#define SROCE_SEND_FENCE	(1U << 0)
#define SROCE_SEND_SIGNALED	(1U << 1)
#define SROCE_SEND_SOLICITED	(1U << 2)
#define SROCE_SEND_INLINE	(1U << 3)

/* Send flags a WQE carries; the rest of IBV_SEND_* means nothing here. */
#define SROCE_WQE_SEND_FLAGS						\
	(SROCE_SEND_FENCE | SROCE_SEND_SIGNALED | SROCE_SEND_SOLICITED |	\
	 SROCE_SEND_INLINE)

/* Bytes one slot needs for a WQE with these caps (the minimum stride). */
size_t sroce_send_wqe_size(uint32_t max_sge, uint32_t max_inline);
size_t sroce_recv_wqe_size(uint32_t max_sge);

/*
 * sroce_wqe_opcode_ok - may a QP of @qp_type post @opcode? Mirrors the
 * kernel's kernel/core/opcode.c sroce_wr_kind_table (seed-rules R1.2; the
 * host test checks the two agree). REG_MR has no user-space opcode.
 */
bool sroce_wqe_opcode_ok(uint32_t qp_type, uint32_t opcode);
/* Does @opcode carry an outgoing payload (so may it be INLINE)? */
bool sroce_wqe_has_payload(uint32_t opcode);

/* Sum of the SGE lengths, in 64 bits (no overflow for any num_sge). */
uint64_t sroce_sge_total(const struct sroce_sge *sg, uint32_t num_sge);

/*
 * The immediate checks of one send WR, done before any byte of it is
 * written (seed-rules R3.1, R3.8). Returns 0 or the errno ibv_post_send
 * returns:
 *   EINVAL  opcode unknown or not allowed on the QP type, num_sge above
 *           max_send_sge, INLINE on an opcode without a payload;
 *   ENOMEM  inline payload above max_inline_data (as mlx5).
 * @sg holds the SGEs; only read when SROCE_SEND_INLINE is set.
 */
int sroce_send_wr_check(const struct sroce_sq_caps *caps, uint32_t opcode,
			uint32_t send_flags, uint32_t num_sge,
			const struct sroce_sge *sg);
int sroce_check_sge_count(const struct sroce_sq_caps *caps,
			  uint64_t num_sge);
int sroce_check_inline(const struct sroce_sq_caps *caps, uint32_t opcode,
		       uint64_t length);

/*
 * Builders. sroce_wqe_init() clears the header and starts a WQE with no
 * data; the setters fill the opcode-specific part and then the data:
 * either SGEs or inline bytes, each replacing the other. The caller has
 * checked the WR and that the slot is big enough (stride).
 */
void sroce_wqe_init(struct sroce_send_wqe *wqe, uint64_t wr_id,
		    uint32_t opcode, uint32_t send_flags);
void sroce_wqe_set_imm(struct sroce_send_wqe *wqe, uint32_t imm_or_rkey);
void sroce_wqe_set_rdma(struct sroce_send_wqe *wqe, uint64_t remote_addr,
			uint32_t rkey);
void sroce_wqe_set_atomic(struct sroce_send_wqe *wqe, uint64_t remote_addr,
			  uint32_t rkey, uint64_t compare_add, uint64_t swap);
void sroce_wqe_set_ud(struct sroce_send_wqe *wqe, uint32_t ah_index,
		      uint32_t remote_qpn, uint32_t remote_qkey);
void sroce_wqe_set_bind_mw(struct sroce_send_wqe *wqe, uint32_t mw_rkey,
			   uint32_t new_rkey, uint32_t mr_lkey, uint64_t addr,
			   uint64_t length, uint32_t access);
void sroce_wqe_set_sges(struct sroce_send_wqe *wqe,
			const struct sroce_sge *sg, uint32_t num_sge);
/* Inline from an SGE list whose addr fields are pointers (ibv_post_send). */
void sroce_wqe_set_inline_sges(struct sroce_send_wqe *wqe,
			       const struct sroce_sge *sg, uint32_t num_sge);
void sroce_wqe_set_inline_bufs(struct sroce_send_wqe *wqe,
			       const struct sroce_inline_buf *buf, size_t num);

static inline struct sroce_sge *sroce_wqe_sges(struct sroce_send_wqe *wqe)
{
	return (struct sroce_sge *)(wqe + 1);
}

static inline uint8_t *sroce_wqe_inline(struct sroce_send_wqe *wqe)
{
	return (uint8_t *)(wqe + 1);
}

void sroce_rwqe_build(struct sroce_recv_wqe *wqe, uint64_t wr_id,
		      const struct sroce_sge *sg, uint32_t num_sge);

static inline struct sroce_sge *sroce_rwqe_sges(struct sroce_recv_wqe *wqe)
{
	return (struct sroce_sge *)(wqe + 1);
}

#endif /* SROCE_WQE_H */
