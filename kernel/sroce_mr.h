/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * sroce memory regions and the memory access helpers of the engines
 * (sroce_mr.c). The MR object is in sroce_mem.h; MR keys live in the key
 * table (sroce_key.h), which also finds the MR behind a key
 * (sroce_mr_lookup()).
 */
#ifndef SROCE_MR_H
#define SROCE_MR_H

#include <linux/types.h>
#include <rdma/ib_verbs.h>
#include <rdma/sroce-abi.h>

#include "sroce_key.h"
#include "sroce_mem.h"

struct ib_umem_odp;
struct sroce_dev;
struct sroce_odp_fault;
struct sroce_pd;

/* For the engines: see the comments in sroce_mr.c. */
int sroce_mr_copy(struct sroce_mr *mr, u64 iova, void *buf, u32 len,
		  enum sroce_copy_dir dir, u32 *crc);
int sroce_mr_prefault(struct sroce_mr *mr, u64 iova, u64 len, bool write);
int sroce_mr_atomic(struct sroce_mr *mr, u64 iova, enum sroce_atomic_op op,
		    u64 swap_add, u64 comp, u64 *orig);
int sroce_sgl_copy(struct sroce_dev *sdev, struct sroce_pd *pd,
		   const struct sroce_sge *sges, u32 nsge, u64 offset,
		   void *buf, u32 len, enum sroce_copy_dir dir, int access,
		   struct sroce_odp_fault *fault, u32 *crc);
void sroce_sgl_prefault(struct sroce_dev *sdev, struct sroce_pd *pd,
			const struct sroce_sge *sges, u32 nsge, u64 len,
			struct sroce_odp_fault *fault);
int sroce_odp_fault_note(struct sroce_odp_fault *f, struct sroce_mr *mr,
			 u64 iova, u64 len, bool write);
void sroce_odp_fault_ahead(struct sroce_odp_fault *f, struct sroce_mr *mr,
			   u64 iova, u64 ahead);
void sroce_odp_fault_map(struct sroce_odp_fault *f, struct ib_umem_odp **held);
void sroce_odp_fault_drop(struct sroce_odp_fault *f);
int sroce_mr_local_invalidate(struct sroce_dev *sdev, struct sroce_pd *pd,
			      u32 key);
int sroce_mr_fast_reg(struct sroce_dev *sdev, struct sroce_pd *pd,
		      struct sroce_mr *mr, u32 key, int access);

extern const struct ib_device_ops sroce_mr_ops;

#endif /* SROCE_MR_H */
