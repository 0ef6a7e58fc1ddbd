// SPDX-License-Identifier: GPL-2.0-only
/*
 * sroce address handles: create/destroy/query, and the user-AH index
 * table the engine resolves UD send WQEs with.
 */
#include <rdma/ib_cache.h>
#include <rdma/ib_verbs.h>
#include <rdma/sroce-abi.h>

#include "sroce.h"
#include "sroce_ah.h"
#include "sroce_param.h"
#include "sroce_ref.h"

static int sroce_ah_check(const struct rdma_ah_attr *attr)
{
	const struct ib_gid_attr *sgid_attr = attr->grh.sgid_attr;

	if (attr->type != RDMA_AH_ATTR_TYPE_ROCE ||
	    !(rdma_ah_get_ah_flags(attr) & IB_AH_GRH) || !sgid_attr)
		return -EINVAL;
	/* RoCE v2 only: every sroce GID is UDP encapsulated. */
	if (sgid_attr->gid_type != IB_GID_TYPE_ROCE_UDP_ENCAP)
		return -EINVAL;
	return 0;
}

static int sroce_create_ah(struct ib_ah *ibah, struct rdma_ah_init_attr *init,
			   struct ib_udata *udata)
{
	struct sroce_dev *sdev = to_sroce_dev(ibah->device);
	struct sroce_ah *ah = to_sroce_ah(ibah);
	struct sroce_create_ah_resp resp = {};
	gfp_t gfp = init->flags & RDMA_CREATE_AH_SLEEPABLE ? GFP_KERNEL :
							     GFP_ATOMIC;
	int err;

	err = sroce_ah_check(init->ah_attr);
	if (err)
		return err;
	if (udata && udata->outlen < sizeof(resp))
		return -EINVAL;
	err = sroce_obj_get(sdev, SROCE_OBJ_AH);
	if (err)
		return err;
	ah->index = 0;
	refcount_set(&ah->ref, 1);
	if (udata) {
		/* Reserved now, visible to the engine once set up below. */
		err = xa_alloc_cyclic_irq(&sdev->ah_xa, &ah->index, NULL,
					  XA_LIMIT(1, SROCE_MAX_AH),
					  &sdev->ah_next, gfp);
		if (err < 0) {
			err = -ENOMEM;
			goto err_put;
		}
	}
	rdma_copy_ah_attr(&ah->attr, init->ah_attr);
	err = sroce_av_from_ah_attr(sdev, &ah->attr, &ah->av);
	if (err)
		goto err_destroy_attr;
	if (!udata)
		return 0;

	resp.ah_index = ah->index;
	err = ib_copy_to_udata(udata, &resp, sizeof(resp));
	if (err)
		goto err_destroy_attr;
	xa_store_irq(&sdev->ah_xa, ah->index, ah, gfp);
	return 0;

err_destroy_attr:
	rdma_destroy_ah_attr(&ah->attr);
	if (udata)
		xa_erase_irq(&sdev->ah_xa, ah->index);
err_put:
	sroce_obj_put(sdev, SROCE_OBJ_AH);
	return err;
}

static int sroce_destroy_ah(struct ib_ah *ibah, u32 flags)
{
	struct sroce_dev *sdev = to_sroce_dev(ibah->device);
	struct sroce_ah *ah = to_sroce_ah(ibah);

	if (ah->index) {
		/*
		 * User AHs are destroyed from process context (sleepable):
		 * wait for the sends in flight that resolved the index.
		 */
		xa_erase_irq(&sdev->ah_xa, ah->index);
		sroce_ah_put(ah);
		if (flags & RDMA_DESTROY_AH_SLEEPABLE)
			sroce_ref_wait_zero(&ah->ref);
		else
			WARN_ON_ONCE(refcount_read(&ah->ref));
	}
	rdma_destroy_ah_attr(&ah->attr);
	sroce_obj_put(sdev, SROCE_OBJ_AH);
	return 0;
}

static int sroce_query_ah(struct ib_ah *ibah, struct rdma_ah_attr *attr)
{
	struct sroce_ah *ah = to_sroce_ah(ibah);

	*attr = ah->attr;
	/* The caller takes no reference: do not hand ours out. */
	attr->grh.sgid_attr = NULL;
	return 0;
}

/**
 * sroce_ah_get_by_index - the user AH a UD send WQE names
 * @sdev: the device
 * @index: sroce_send_wqe.wr.ud.ah_index (hostile)
 * @pd: the PD of the sending QP: the AH must be in it
 *
 * Any context. Returns the AH with a reference (sroce_ah_put() it when the
 * packet is built) or NULL if there is no such AH in @pd.
 */
struct sroce_ah *sroce_ah_get_by_index(struct sroce_dev *sdev, u32 index,
				       struct sroce_pd *pd)
{
	struct sroce_ah *ah;
	unsigned long flags;

	xa_lock_irqsave(&sdev->ah_xa, flags);
	ah = xa_load(&sdev->ah_xa, index);
	if (ah && (ah->ibah.pd != &pd->ibpd || !refcount_inc_not_zero(&ah->ref)))
		ah = NULL;
	xa_unlock_irqrestore(&sdev->ah_xa, flags);
	return ah;
}

void sroce_ah_put(struct sroce_ah *ah)
{
	sroce_ref_put(&ah->ref);
}

const struct ib_device_ops sroce_ah_ops = {
	.create_ah = sroce_create_ah,
	.create_user_ah = sroce_create_ah,
	.destroy_ah = sroce_destroy_ah,
	.query_ah = sroce_query_ah,

	INIT_RDMA_OBJ_SIZE(ib_ah, sroce_ah, ibah),
};
