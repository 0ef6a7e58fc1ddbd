// SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause
/* libsroce memory regions and memory windows. */
#include <stdlib.h>
#include <string.h>
#include <errno.h>

#include <infiniband/driver.h>

#include "sroce.h"

static struct ibv_mr *sroce_reg_mr(struct ibv_pd *pd, void *addr,
				   size_t length, uint64_t hca_va, int access)
{
	struct ib_uverbs_reg_mr_resp resp;
	struct ibv_reg_mr cmd;
	struct verbs_mr *vmr;
	int ret;

	vmr = calloc(1, sizeof(*vmr));
	if (!vmr)
		return NULL;
	ret = ibv_cmd_reg_mr(pd, addr, length, hca_va, access, vmr, &cmd,
			     sizeof(cmd), &resp, sizeof(resp));
	if (ret) {
		free(vmr);
		errno = ret;
		return NULL;
	}
	return &vmr->ibv_mr;
}

/*
 * The kernel changes the MR in place (PD, access) or registers a new one
 * (translation, or write access on pages pinned read-only); either way
 * the keys come back in the answer.
 */
static int sroce_rereg_mr(struct verbs_mr *vmr, int flags, struct ibv_pd *pd,
			  void *addr, size_t length, int access)
{
	struct ib_uverbs_rereg_mr_resp resp;
	struct ibv_rereg_mr cmd;

	return ibv_cmd_rereg_mr(vmr, flags, addr, length, (uintptr_t)addr,
				access, pd, &cmd, sizeof(cmd), &resp,
				sizeof(resp));
}

/* Prefetch pages of ODP MRs; the kernel checks the keys and does the work. */
static int sroce_advise_mr(struct ibv_pd *pd, enum ibv_advise_mr_advice advice,
			   uint32_t flags, struct ibv_sge *sg_list,
			   uint32_t num_sge)
{
	return ibv_cmd_advise_mr(pd, advice, flags, sg_list, num_sge);
}

static int sroce_dereg_mr(struct verbs_mr *vmr)
{
	int ret = ibv_cmd_dereg_mr(vmr);

	if (ret)
		return ret;
	free(vmr);
	return 0;
}

static struct ibv_mw *sroce_alloc_mw(struct ibv_pd *pd, enum ibv_mw_type type)
{
	struct ib_uverbs_alloc_mw_resp resp;
	struct ibv_alloc_mw cmd;
	struct ibv_mw *mw;
	int ret;

	mw = calloc(1, sizeof(*mw));
	if (!mw)
		return NULL;
	ret = ibv_cmd_alloc_mw(pd, type, mw, &cmd, sizeof(cmd), &resp,
			       sizeof(resp));
	if (ret) {
		free(mw);
		errno = ret;
		return NULL;
	}
	return mw;
}

static int sroce_dealloc_mw(struct ibv_mw *mw)
{
	int ret = ibv_cmd_dealloc_mw(mw);

	if (ret)
		return ret;
	free(mw);
	return 0;
}

/*
 * Type 1 windows are bound by a BIND_MW work request on @qp, as for type
 * 2 (ibv_post_send with IBV_WR_BIND_MW); the window takes the next R_Key
 * variant when the request is posted.
 */
static int sroce_bind_mw(struct ibv_qp *qp, struct ibv_mw *mw,
			 struct ibv_mw_bind *mw_bind)
{
	struct ibv_mw_bind_info *info = &mw_bind->bind_info;
	struct ibv_send_wr wr = {}, *bad_wr;
	int ret;

	if (mw->type != IBV_MW_TYPE_1 || mw->pd != qp->pd)
		return EINVAL;
	if (info->length && (!info->mr || info->mr->pd != qp->pd ||
			     info->addr < (uintptr_t)info->mr->addr ||
			     info->addr + info->length >
			     (uintptr_t)info->mr->addr + info->mr->length))
		return EINVAL;
	wr.wr_id = mw_bind->wr_id;
	wr.opcode = IBV_WR_BIND_MW;
	wr.send_flags = mw_bind->send_flags;
	wr.bind_mw.mw = mw;
	wr.bind_mw.rkey = ibv_inc_rkey(mw->rkey);
	wr.bind_mw.bind_info = *info;
	ret = ibv_post_send(qp, &wr, &bad_wr);
	if (ret)
		return ret;
	mw->rkey = wr.bind_mw.rkey;
	return 0;
}

const struct verbs_context_ops sroce_mr_ctx_ops = {
	.advise_mr = sroce_advise_mr,
	.alloc_mw = sroce_alloc_mw,
	.bind_mw = sroce_bind_mw,
	.dealloc_mw = sroce_dealloc_mw,
	.dereg_mr = sroce_dereg_mr,
	.reg_mr = sroce_reg_mr,
	.rereg_mr = sroce_rereg_mr,
};
