/* SPDX-License-Identifier: ((GPL-2.0-only WITH Linux-syscall-note) OR BSD-3-Clause) */
/*
 * sroce user/kernel ABI: the only header shared by sroce.ko and libsroce.
 * Fixed-width types only; every command and response carries comp_mask or
 * reserved space so it can grow. Bump SROCE_ABI_VERSION on any change that
 * breaks an older provider and note it in Documentation/abi.md.
 *
 * Queues (SQ, RQ, SRQ, CQ) are rings in kernel memory that user space
 * mmaps. Each ring is one mapping: a struct sroce_ring_hdr (256 bytes) then
 * 2^log2_size slots of 'stride' bytes. Indices are free-running u32; slot i
 * lives at i & (size - 1). The producer writes a slot, then releases its
 * index (store-release); the consumer acquires the index, reads, then
 * releases its own index. The kernel treats every index and every slot
 * that user space can write as hostile.
 */
#ifndef SROCE_ABI_USER_H
#define SROCE_ABI_USER_H

#include <linux/types.h>

/*
 * Also the uverbs ABI version of the device. It starts at 16 so that no
 * other provider's ABI range can claim a sroce device: librxe matches any
 * device whose name begins with "rxe" but only accepts ABI 1..2.
 */
#define SROCE_ABI_VERSION 17

/*
 * sysfs attribute (/sys/class/infiniband/<dev>/sroce_abi_version) by which
 * libsroce recognises a sroce device whatever its name: an out-of-tree
 * driver has no rdma_driver_id of its own to match on.
 */
#define SROCE_SYSFS_ABI_ATTR "sroce_abi_version"

/*
 * The header's size: the slots follow it in the same pages, so a small
 * queue costs one page, not two. A multiple of the cache line.
 */
#define SROCE_RING_HDR_SIZE 256

/* Start of every ring mapping. Each word sits on its own cache line. */
struct sroce_ring_hdr {
	__u32 prod;		/* written by the producer only */
	__u32 reserved0[15];
	__u32 cons;		/* written by the consumer only */
	__u32 reserved1[15];
	/*
	 * Written by the kernel only. CQ: SROCE_CQ_OVERFLOW when a completion
	 * found the ring full (the CQ is then in error, seed-rules R3.9).
	 * SQ/RQ: SROCE_RING_FLUSH while the QP is in ERROR (or SQE for the
	 * SQ): WQEs posted then must be followed by a doorbell system call
	 * (post_send / post_recv with no WRs) so that the kernel flushes them
	 * with IBV_WC_WR_FLUSH_ERR (seed-rules R3.3).
	 */
	__u32 flags;
	__u32 reserved2[15];
	/*
	 * SQ only, written by the kernel only: non-zero while the kernel runs
	 * the QP's engines and will read prod again before it stops (it
	 * clears this word, issues a full barrier, then re-reads prod). A
	 * producer that publishes prod, issues a full barrier and then reads
	 * this word as non-zero needs no doorbell system call for what it
	 * published (unless SROCE_RING_FLUSH is set). A kernel that does not
	 * know this word leaves it 0: the producer then always rings.
	 */
	__u32 engines_active;
	__u32 reserved3[15];
};

#define SROCE_CQ_OVERFLOW (1U << 0)
#define SROCE_RING_FLUSH (1U << 1)

struct sroce_sge {
	__aligned_u64 addr;
	__u32 length;
	__u32 lkey;
};

/* Send WQE opcodes: the values of enum ib_uverbs_wr_opcode (IBV_WR_*). */
/* Send WQE flags: the values of IBV_SEND_* (FENCE, SIGNALED, SOLICITED, INLINE). */

struct sroce_send_wqe {
	__aligned_u64 wr_id;
	__u32 opcode;		/* IB_UVERBS_WR_* */
	__u32 send_flags;	/* IB_UVERBS_SEND_* */
	__u32 num_sge;		/* SGEs that follow (0 with INLINE) */
	__u32 inline_len;	/* bytes of inline data that follow (INLINE) */
	__u32 imm_data;		/* big endian immediate, or invalidate R_Key */
	__u32 xrc_remote_srqn;	/* XRC initiator: the target's XRC SRQ */
	union {
		struct {
			__aligned_u64 remote_addr;
			__u32 rkey;
			__u32 reserved;
		} rdma;
		struct {
			__aligned_u64 remote_addr;
			__aligned_u64 compare_add;
			__aligned_u64 swap;
			__u32 rkey;
			__u32 reserved;
		} atomic;
		/* ATOMIC_WRITE: the 8 bytes, as the poster gave them. */
		struct {
			__aligned_u64 remote_addr;
			__u32 rkey;
			__u32 reserved;
			__u8 value[8];
		} atomic_write;
		/*
		 * FLUSH: type is IB_FLUSH_GLOBAL and/or IB_FLUSH_PERSISTENT,
		 * level IB_FLUSH_RANGE (remote_addr, length) or
		 * IB_FLUSH_MR (the whole MR of rkey, length 0)
		 * (values of <rdma/ib_user_verbs.h>).
		 */
		struct {
			__aligned_u64 remote_addr;
			__u32 rkey;
			__u32 length;
			__u8 type;
			__u8 level;
			__u8 reserved[6];
		} flush;
		struct {
			__u32 ah_index;	/* from sroce_create_ah_resp */
			__u32 remote_qpn;
			__u32 remote_qkey;
			__u32 reserved;
		} ud;
		struct {
			__aligned_u64 addr;
			__aligned_u64 length;
			__u32 mw_rkey;	/* the window's current R_Key */
			__u32 mr_lkey;
			__u32 new_rkey;
			__u32 access;	/* IB_UVERBS_ACCESS_* */
		} bind_mw;
		__u8 raw[32];
	} wr;
	/* then num_sge struct sroce_sge, or inline_len bytes */
};

struct sroce_recv_wqe {
	__aligned_u64 wr_id;
	__u32 num_sge;
	__u32 reserved;
	/* then num_sge struct sroce_sge */
};

/*
 * One completion. status and opcode use the IB_UVERBS_WC_* values;
 * wc_flags the libibverbs ones below (not the kernel's IB_WC_* bits).
 */
#define SROCE_WC_GRH		(1U << 0)
#define SROCE_WC_WITH_IMM	(1U << 1)
#define SROCE_WC_IP_CSUM_OK	(1U << 2)
#define SROCE_WC_WITH_INV	(1U << 3)

struct sroce_cqe {
	__aligned_u64 wr_id;
	__u32 status;
	__u32 opcode;
	__u32 vendor_err;
	__u32 byte_len;
	__u32 ex;		/* immediate (big endian) or invalidated R_Key */
	__u32 qp_num;
	__u32 src_qp;
	__u32 wc_flags;		/* SROCE_WC_* */
	__u16 pkey_index;
	__u8 sl;
	__u8 network_hdr_type;	/* UD receives: enum rdma_network_type (2 IPv4, 3 IPv6) */
	__u8 smac[6];
	__u16 reserved;
	__u32 reserved1[3];
};

struct sroce_alloc_ucontext_resp {
	__u32 comp_mask;
	__u32 abi_version;
	__aligned_u64 reserved[2];
};

/* A ring as the kernel hands it out: mmap(cmd_fd, offset, size). */
struct sroce_ring_info {
	__aligned_u64 mmap_offset;
	__aligned_u64 mmap_size;
	__u32 log2_size;	/* slots = 1 << log2_size */
	__u32 stride;		/* bytes per slot */
};

struct sroce_create_cq_resp {
	__u32 comp_mask;
	__u32 reserved;
	struct sroce_ring_info ring;
};

struct sroce_resize_cq_resp {
	__u32 comp_mask;
	__u32 reserved;
	struct sroce_ring_info ring;
};

struct sroce_create_qp_resp {
	__u32 comp_mask;
	__u32 max_inline;
	struct sroce_ring_info sq;
	struct sroce_ring_info rq;	/* mmap_size 0 when the QP uses an SRQ */
};

struct sroce_create_srq_resp {
	__u32 comp_mask;
	__u32 srq_num;
	struct sroce_ring_info ring;
};

struct sroce_create_ah_resp {
	__u32 comp_mask;
	__u32 ah_index;		/* put in sroce_send_wqe.wr.ud.ah_index */
};

#endif /* SROCE_ABI_USER_H */
