// SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause
/*
 * libsroce: device matching, context set-up and the control verbs.
 *
 * sroce is an out-of-tree driver without an rdma_driver_id of its own, so
 * neither the driver-id nor a device-name table can find it. Instead the
 * match_device hook, which libibverbs calls for every device, reads the
 * sroce_abi_version attribute the module puts in the device's sysfs
 * directory: only sroce devices have it, whatever name "rdma link add" gave.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>

#include <infiniband/driver.h>
#include <rdma/sroce-abi.h>
#include <ccan/array_size.h>

#include "sroce.h"
#include "sroce_compat.h"
#include "sroce_qp.h"

static bool sroce_match_device(struct verbs_sysfs_dev *sysfs_dev)
{
	char value[16];
	char *end;
	unsigned long v;

	if (ibv_read_ibdev_sysfs_file(value, sizeof(value), sysfs_dev,
				      SROCE_SYSFS_ABI_ATTR) <= 0)
		return false;
	v = strtoul(value, &end, 10);
	if (end == value)
		return false;
	if (v != SROCE_ABI_VERSION) {
		fprintf(stderr, "libsroce: %s has ABI %lu, libsroce speaks %u\n",
			sysfs_dev->ibdev_name, v, SROCE_ABI_VERSION);
		return false;
	}
	return true;
}

static int sroce_query_device(struct ibv_context *context,
			      const struct ibv_query_device_ex_input *input,
			      struct ibv_device_attr_ex *attr, size_t attr_size)
{
	struct ib_uverbs_ex_query_device_resp resp;
	size_t resp_size = sizeof(resp);
	struct verbs_device *vdev = verbs_get_device(context->device);
	int ret;

	ret = ibv_cmd_query_device_any(context, input, attr, attr_size, &resp,
				       &resp_size);
	if (ret)
		return ret;
	/* The kernel names the driver and ABI in sysfs fw_ver ("sroce-N"). */
	if (ibv_read_ibdev_sysfs_file(attr->orig_attr.fw_ver,
				      sizeof(attr->orig_attr.fw_ver),
				      vdev->sysfs, "fw_ver") <= 0)
		attr->orig_attr.fw_ver[0] = 0;
	return 0;
}

static int sroce_query_port(struct ibv_context *context, uint8_t port,
			    struct ibv_port_attr *attr)
{
	struct ibv_query_port cmd;

	return ibv_cmd_query_port(context, port, attr, &cmd, sizeof(cmd));
}

static struct ibv_pd *sroce_alloc_pd(struct ibv_context *context)
{
	struct ib_uverbs_alloc_pd_resp resp;
	struct ibv_alloc_pd cmd;
	struct ibv_pd *pd;

	pd = calloc(1, sizeof(*pd));
	if (!pd)
		return NULL;
	if (ibv_cmd_alloc_pd(context, pd, &cmd, sizeof(cmd), &resp,
			     sizeof(resp))) {
		free(pd);
		return NULL;
	}
	return pd;
}

static int sroce_dealloc_pd(struct ibv_pd *pd)
{
	int ret = ibv_cmd_dealloc_pd(pd);

	if (!ret)
		free(pd);
	return ret;
}

static void sroce_free_context(struct ibv_context *ibctx)
{
	struct sroce_context *ctx = to_sctx(ibctx);

	verbs_uninit_context(&ctx->ibv_ctx);
	free(ctx);
}

/*
 * XRC domains are the kernel's (shared between processes through the
 * file they are opened with): a plain command each.
 */
static struct ibv_xrcd *sroce_open_xrcd(struct ibv_context *ctx,
					struct ibv_xrcd_init_attr *attr)
{
	struct ib_uverbs_open_xrcd_resp resp = {};
	struct ibv_open_xrcd cmd = {};
	struct verbs_xrcd *xrcd;
	int err;

	xrcd = calloc(1, sizeof(*xrcd));
	if (!xrcd)
		return NULL;
	err = ibv_cmd_open_xrcd(ctx, xrcd, sizeof(*xrcd), attr, &cmd,
				sizeof(cmd), &resp, sizeof(resp));
	if (err) {
		free(xrcd);
		errno = err;
		return NULL;
	}
	return &xrcd->xrcd;
}

static int sroce_close_xrcd(struct ibv_xrcd *ibxrcd)
{
	struct verbs_xrcd *xrcd = container_of(ibxrcd, struct verbs_xrcd, xrcd);
	int err;

	err = ibv_cmd_close_xrcd(xrcd);
	if (!err)
		free(xrcd);
	return err;
}

static const struct verbs_context_ops sroce_ctx_ops = {
	.query_device_ex = sroce_query_device,
	.query_port = sroce_query_port,
	.alloc_pd = sroce_alloc_pd,
	.dealloc_pd = sroce_dealloc_pd,
	.open_xrcd = sroce_open_xrcd,
	.close_xrcd = sroce_close_xrcd,
	.free_context = sroce_free_context,
};

/* Each area (CQ, QP, MR, ...) contributes the verbs it implements. */
static const struct verbs_context_ops *const sroce_area_ops[] = {
	&sroce_ctx_ops,
	&sroce_cq_ctx_ops, &sroce_srq_ctx_ops, &sroce_mr_ctx_ops, &sroce_ah_ctx_ops,
	&sroce_qp_ops,
};

static struct verbs_context *sroce_alloc_context(struct ibv_device *ibdev,
						 int cmd_fd,
						 void *private_data)
{
	struct sroce_alloc_ucontext_resp uresp = {};
	struct sroce_context *ctx;
	unsigned int i;
	struct ibv_get_context cmd;
	struct {
		struct ib_uverbs_get_context_resp ibv_resp;
		struct sroce_alloc_ucontext_resp drv;
	} resp = {};

	ctx = verbs_init_and_alloc_context(ibdev, cmd_fd, ctx, ibv_ctx,
					   RDMA_DRIVER_UNKNOWN);
	if (!ctx)
		return NULL;
	if (sroce_cmd_get_context(&ctx->ibv_ctx, &cmd, sizeof(cmd),
				  &resp.ibv_resp, sizeof(resp)))
		goto err_free;
	uresp = resp.drv;
	if (uresp.abi_version != SROCE_ABI_VERSION) {
		verbs_err(&ctx->ibv_ctx, "sroce: kernel ABI %u, expected %u\n",
			  uresp.abi_version, SROCE_ABI_VERSION);
		errno = EPROTO;
		goto err_free;
	}
	for (i = 0; i < ARRAY_SIZE(sroce_area_ops); i++)
		verbs_set_ops(&ctx->ibv_ctx, sroce_area_ops[i]);
	return &ctx->ibv_ctx;

err_free:
	verbs_uninit_context(&ctx->ibv_ctx);
	free(ctx);
	return NULL;
}

static void sroce_uninit_device(struct verbs_device *verbs_device)
{
	free(to_sdev(&verbs_device->device));
}

static struct verbs_device *sroce_device_alloc(struct verbs_sysfs_dev *sysfs_dev)
{
	struct sroce_device *dev;

	dev = calloc(1, sizeof(*dev));
	if (!dev)
		return NULL;
	dev->abi_version = sysfs_dev->abi_ver;
	return &dev->ibv_dev;
}

/*
 * No entry matches (see the top of this file), but the table must exist:
 * libibverbs 56.1 walks every provider's match_table, unchecked, for a
 * device that has a driver id (siw, rxe, ...) and crashes on a NULL one.
 */
static const struct verbs_match_ent sroce_match_table[] = {
	{}
};

static const struct verbs_device_ops sroce_dev_ops = {
	.name = "sroce",
	.match_min_abi_version = SROCE_ABI_VERSION,
	.match_max_abi_version = SROCE_ABI_VERSION,
	.match_table = sroce_match_table,
	.match_device = sroce_match_device,
	.alloc_device = sroce_device_alloc,
	.uninit_device = sroce_uninit_device,
	.alloc_context = sroce_alloc_context,
};
PROVIDER_DRIVER(sroce, sroce_dev_ops);
