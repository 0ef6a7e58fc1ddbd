/* SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause */
/*
 * Send and receive WQEs for libsroce: the one place that checks a work
 * request and writes struct sroce_send_wqe / struct sroce_recv_wqe
 * (include/uapi/rdma/sroce-abi.h) into a ring slot, and the post loops
 * that fill a ring and publish its producer index. Used by ibv_post_send,
 * ibv_post_recv and the ibv_qp_ex builders (sroce_qp.c) alike.
 *
 * No locks, no system calls and nothing of libibverbs but the public
 * <infiniband/verbs.h> types, so that it is unit-tested on the host
 * (selftests/provider/, with a stand-in verbs.h). The caller holds the
 * queue's lock around every function that takes a ring.
 *
 * Values: opcodes IBV_WR_* (= IB_UVERBS_WR_*), flags IBV_SEND_* (= the
 * kernel's IB_SEND_*), QP types IBV_QPT_* (= IB_UVERBS_QPT_*).
 */
#ifndef SROCE_WQE_H
#define SROCE_WQE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <infiniband/verbs.h>
#include <rdma/sroce-abi.h>

#include "sroce_ring.h"

/* What the SQ of one QP accepts; set at create from the kernel's answer. */
struct sroce_sq_caps {
	uint32_t qp_type;	/* IBV_QPT_RC, _UC, _UD or _XRC_SEND */
	uint32_t max_sge;
	uint32_t max_inline;
};

/* Send flags a WQE carries; the rest of IBV_SEND_* means nothing here. */
#define SROCE_WQE_SEND_FLAGS						\
	(IBV_SEND_FENCE | IBV_SEND_SIGNALED | IBV_SEND_SOLICITED |	\
	 IBV_SEND_INLINE)

/*
 * The AH's index for wr.ud.ah_index (sroce_create_ah_resp.ah_index).
 * Defined by sroce_ah.c, which knows struct sroce_ah; by the host test
 * otherwise.
 */
uint32_t sroce_ah_index(struct ibv_ah *ah);

/* Bytes one slot needs for a WQE at these caps (the minimum stride). */
size_t sroce_send_wqe_size(uint32_t max_sge, uint32_t max_inline);
size_t sroce_recv_wqe_size(uint32_t max_sge);

/*
 * sroce_wqe_opcode_ok - may a QP of @qp_type post @opcode? Mirrors
 * kernel/core/opcode.c's sroce_wr_kind_table (seed-rules R1.2; the host
 * test checks that the two agree).
 */
bool sroce_wqe_opcode_ok(uint32_t qp_type, uint32_t opcode);
/* Does @opcode carry an outgoing payload (so may it be INLINE)? */
bool sroce_wqe_has_payload(uint32_t opcode);
/* Does @opcode move no local data at all (LOCAL_INV, BIND_MW)? */
bool sroce_wqe_is_local(uint32_t opcode);
/*
 * Does @opcode's WQE carry no SGEs and no inline data (the local ones,
 * FLUSH, ATOMIC_WRITE)? num_sge and inline_len stay 0 in its WQE.
 */
bool sroce_wqe_no_sges(uint32_t opcode);

/* The bytes an ATOMIC WRITE puts at the remote address (IBA 1.5). */
#define SROCE_ATOMIC_WRITE_LEN 8

/*
 * Immediate errors (seed-rules R3.1), checked before any byte of a WR is
 * written. Each returns 0 or the errno the verb returns:
 *   EINVAL  opcode unknown or not allowed on the QP type; num_sge above
 *           the QP's max; INLINE on an opcode without a payload; a UD WR
 *           without an AH; BIND_MW without a window, or with a length
 *           but no MR; FLUSH through ibv_post_send (ibv_send_wr has no
 *           type or level); ATOMIC_WRITE whose SGEs (or inline pieces)
 *           do not total exactly 8 bytes; sroce_check_flush(): a
 *           level IBV_FLUSH_RANGE flush over 2^32 - 1 bytes;
 *   ENOMEM  inline payload above max_inline_data (as mlx5).
 */
int sroce_check_flush(uint64_t length, uint8_t level);
int sroce_check_sge_count(const struct sroce_sq_caps *caps,
			  uint64_t num_sge);
int sroce_check_inline(const struct sroce_sq_caps *caps, uint32_t opcode,
		       uint64_t length);
int sroce_send_wr_check(const struct sroce_sq_caps *caps,
			const struct ibv_send_wr *wr);

/*
 * Builders. sroce_wqe_init() clears the header and starts a WQE without
 * data; the setters fill the opcode-specific part, then the data: SGEs or
 * inline bytes, each replacing the other. The WR was checked and the slot
 * holds sroce_send_wqe_size() bytes at the QP's caps.
 */
void sroce_wqe_init(struct sroce_send_wqe *wqe, uint64_t wr_id,
		    uint32_t opcode, uint32_t send_flags);
void sroce_wqe_set_xrc_srqn(struct sroce_send_wqe *wqe, uint32_t remote_srqn);
void sroce_wqe_set_imm(struct sroce_send_wqe *wqe, uint32_t imm_or_rkey);
void sroce_wqe_set_rdma(struct sroce_send_wqe *wqe, uint64_t remote_addr,
			uint32_t rkey);
void sroce_wqe_set_atomic(struct sroce_send_wqe *wqe, uint64_t remote_addr,
			  uint32_t rkey, uint64_t compare_add, uint64_t swap);
/* ATOMIC WRITE: the 8 bytes at @value go into the WQE as they are. */
void sroce_wqe_set_atomic_write(struct sroce_send_wqe *wqe,
				uint64_t remote_addr, uint32_t rkey,
				const void *value);
/*
 * FLUSH: @type and @level as given (the responder judges them); a level
 * IBV_FLUSH_MR WQE has length 0. @length passed sroce_check_flush().
 */
void sroce_wqe_set_flush(struct sroce_send_wqe *wqe, uint64_t remote_addr,
			 uint32_t rkey, uint64_t length, uint8_t type,
			 uint8_t level);
void sroce_wqe_set_ud(struct sroce_send_wqe *wqe, uint32_t ah_index,
		      uint32_t remote_qpn, uint32_t remote_qkey);
void sroce_wqe_set_bind_mw(struct sroce_send_wqe *wqe, struct ibv_mw *mw,
			   uint32_t new_rkey,
			   const struct ibv_mw_bind_info *bind_info);
void sroce_wqe_set_sges(struct sroce_send_wqe *wqe,
			const struct ibv_sge *sg, uint32_t num_sge);
/* Inline from an SGE list whose addr fields are pointers (ibv_post_send). */
void sroce_wqe_set_inline_sges(struct sroce_send_wqe *wqe,
			       const struct ibv_sge *sg, uint32_t num_sge);
void sroce_wqe_set_inline_bufs(struct sroce_send_wqe *wqe,
			       const struct ibv_data_buf *buf, size_t num);
/* The whole WQE of a checked ibv_send_wr. */
void sroce_wqe_from_wr(const struct sroce_sq_caps *caps,
		       struct sroce_send_wqe *wqe,
		       const struct ibv_send_wr *wr);

static inline struct sroce_sge *sroce_wqe_sges(struct sroce_send_wqe *wqe)
{
	return (struct sroce_sge *)(wqe + 1);
}

static inline uint8_t *sroce_wqe_inline(struct sroce_send_wqe *wqe)
{
	return (uint8_t *)(wqe + 1);
}

static inline struct sroce_sge *sroce_rwqe_sges(struct sroce_recv_wqe *wqe)
{
	return (struct sroce_sge *)(wqe + 1);
}

/*
 * sroce_sq_post - check and write @wr and the WRs after it into @sq from
 * sq->prod on, stopping at the first that fails (*bad_wr = it), then
 * publish the new producer index with one store-release if anything was
 * written. Returns the first error or 0, and the number of WQEs posted in
 * *posted (the caller rings the doorbell when it is not 0).
 */
int sroce_sq_post(struct sroce_uring *sq, const struct sroce_sq_caps *caps,
		  struct ibv_send_wr *wr, struct ibv_send_wr **bad_wr,
		  uint32_t *posted);

/*
 * sroce_rq_post - the same for receive WRs (num_sge above @max_sge:
 * EINVAL; ring full: ENOMEM). *need_flush tells whether the kernel asked
 * for a flush doorbell (SROCE_RING_FLUSH) after this publication.
 */
int sroce_rq_post(struct sroce_uring *rq, uint32_t max_sge,
		  struct ibv_recv_wr *wr, struct ibv_recv_wr **bad_wr,
		  bool *need_flush);

#endif /* SROCE_WQE_H */
