// SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause
/* libsroce address handles: the kernel keeps the AH, we keep its index. */
#include <stdlib.h>
#include <errno.h>

#include <infiniband/driver.h>

#include "sroce.h"
#include "sroce_wqe.h"

static struct ibv_ah *sroce_create_ah(struct ibv_pd *pd, struct ibv_ah_attr *attr)
{
	struct {
		struct ib_uverbs_create_ah_resp ibv_resp;
		struct sroce_create_ah_resp drv;
	} resp = {};
	struct sroce_ah *ah;
	int ret;

	ah = calloc(1, sizeof(*ah));
	if (!ah)
		return NULL;
	ret = ibv_cmd_create_ah(pd, &ah->ibv_ah, attr, &resp.ibv_resp,
				sizeof(resp));
	if (ret) {
		free(ah);
		errno = ret;
		return NULL;
	}
	ah->ah_index = resp.drv.ah_index;
	return &ah->ibv_ah;
}

static int sroce_destroy_ah(struct ibv_ah *ibah)
{
	int ret = ibv_cmd_destroy_ah(ibah);

	if (ret)
		return ret;
	free(to_sah(ibah));
	return 0;
}

const struct verbs_context_ops sroce_ah_ctx_ops = {
	.create_ah = sroce_create_ah,
	.destroy_ah = sroce_destroy_ah,
};

uint32_t sroce_ah_index(struct ibv_ah *ah)
{
	return to_sah(ah)->ah_index;
}
