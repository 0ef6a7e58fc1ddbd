// SPDX-License-Identifier: GPL-2.0-only
/*
 * sroce verbs: the device, port, context and PD verbs and the attributes
 * query_device reports. Argument checks live here; the objects' work lives
 * in their files, the device's life cycle in sroce_device.c.
 */
#include <linux/hrtimer.h>
#include <net/addrconf.h>
#include <rdma/ib_verbs.h>
#include <rdma/ib_mad.h>
#include <rdma/uverbs_ioctl.h>
#include <rdma/sroce-abi.h>

#include "sroce.h"
#include "sroce_param.h"
#include "timers.h"

/*
 * Fewer QPs, CQs, SRQs or MRs per device than sroce can hold, as
 * mlx4_core's log_num_qp and friends: a host can bound what one device
 * takes, and a test reaches the limit in seconds instead of filling the
 * memory of a small guest. Read when a device is added; 0 (the default)
 * is sroce's maximum, and a value under SROCE_MIN_OBJS is raised to it
 * (room for the core's own objects: ib_mad's QP1, CQ, PD and its MR).
 */
#define SROCE_MIN_OBJS 16
static unsigned int max_qp, max_cq, max_srq, max_mr;
module_param(max_qp, uint, 0644);
MODULE_PARM_DESC(max_qp, "QPs per device added later (0: the maximum, 65536)");
module_param(max_cq, uint, 0644);
MODULE_PARM_DESC(max_cq, "CQs per device added later (0: the maximum, 65536)");
module_param(max_srq, uint, 0644);
MODULE_PARM_DESC(max_srq, "SRQs per device added later (0: the maximum, 65536)");
module_param(max_mr, uint, 0644);
MODULE_PARM_DESC(max_mr, "MRs per device added later (0: the maximum, 262144)");

static u32 sroce_obj_limit(unsigned int param, u32 max)
{
	return param ? clamp_t(u32, param, SROCE_MIN_OBJS, max) : max;
}

void sroce_init_device_attrs(struct sroce_dev *sdev)
{
	struct ib_device_attr *a = &sdev->attr;
	struct ib_device *ibdev = &sdev->ibdev;

	a->vendor_id = SROCE_VENDOR_ID;
	a->max_mr_size = SROCE_MAX_MR_SIZE;
	a->page_size_cap = SROCE_PAGE_SIZE_CAP;
	a->max_qp = sroce_obj_limit(READ_ONCE(max_qp), SROCE_MAX_QP);
	a->max_qp_wr = SROCE_MAX_QP_WR;
	a->device_cap_flags = IB_DEVICE_PORT_ACTIVE_EVENT |
			      IB_DEVICE_SYS_IMAGE_GUID |
			      IB_DEVICE_RC_RNR_NAK_GEN;
	a->device_cap_flags |= IB_DEVICE_MEM_MGT_EXTENSIONS;
	a->device_cap_flags |= IB_DEVICE_MEM_WINDOW;
	a->device_cap_flags |= IB_DEVICE_MEM_WINDOW_TYPE_2B;
	a->device_cap_flags |= IB_DEVICE_XRC;
	/*
	 * IBA 1.5: ATOMIC WRITE, and FLUSH for global visibility. Not
	 * FLUSH for persistence: sroce knows no persistent memory, so an MR
	 * cannot ask for it (ib_check_mr_access) and such a FLUSH meets a
	 * remote access error.
	 */
	a->device_cap_flags |= SROCE_DEVICE_FLUSH_CAPS;
	a->kernel_cap_flags = IBK_ALLOW_USER_UNREG;
	/*
	 * On-demand paging (sroce_odp.c): memory is reached only through
	 * sroce_mr_copy/sroce_mr_atomic, which resolve faults for every
	 * operation and transport alike. UD has no WRITE/READ/ATOMIC; XRC
	 * has what RC has.
	 */
	a->kernel_cap_flags |= IBK_ON_DEMAND_PAGING;
	a->odp_caps.general_caps = IB_ODP_SUPPORT | IB_ODP_SUPPORT_IMPLICIT;
	a->odp_caps.per_transport_caps.rc_odp_caps =
		IB_ODP_SUPPORT_SEND | IB_ODP_SUPPORT_RECV |
		IB_ODP_SUPPORT_WRITE | IB_ODP_SUPPORT_READ |
		IB_ODP_SUPPORT_ATOMIC | IB_ODP_SUPPORT_SRQ_RECV;
	a->odp_caps.per_transport_caps.uc_odp_caps =
		IB_ODP_SUPPORT_SEND | IB_ODP_SUPPORT_RECV |
		IB_ODP_SUPPORT_WRITE | IB_ODP_SUPPORT_SRQ_RECV;
	a->odp_caps.per_transport_caps.ud_odp_caps =
		IB_ODP_SUPPORT_SEND | IB_ODP_SUPPORT_RECV |
		IB_ODP_SUPPORT_SRQ_RECV;
	a->odp_caps.per_transport_caps.xrc_odp_caps =
		a->odp_caps.per_transport_caps.rc_odp_caps;
	a->max_send_sge = SROCE_MAX_SGE;
	a->max_recv_sge = SROCE_MAX_SGE;
	a->max_sge_rd = SROCE_MAX_SGE_RD;
	a->max_cq = sroce_obj_limit(READ_ONCE(max_cq), SROCE_MAX_CQ);
	a->max_cqe = SROCE_MAX_CQE;
	a->max_mr = sroce_obj_limit(READ_ONCE(max_mr), SROCE_MAX_MR);
	a->max_mw = SROCE_MAX_MW;
	a->max_pd = SROCE_MAX_PD;
	a->max_qp_rd_atom = SROCE_MAX_QP_RD_ATOM;
	a->max_qp_init_rd_atom = SROCE_MAX_QP_RD_ATOM;
	a->max_res_rd_atom = SROCE_MAX_RES_RD_ATOM;
	/* Real CPU atomics on the target word (sroce_resp.c). */
	a->atomic_cap = IB_ATOMIC_HCA;
	a->max_ah = SROCE_MAX_AH;
	a->max_srq = sroce_obj_limit(READ_ONCE(max_srq), SROCE_MAX_SRQ);
	a->max_mcast_grp = SROCE_MAX_MCAST_GRP;
	a->max_mcast_qp_attach = SROCE_MAX_MCAST_QP_ATTACH;
	a->max_total_mcast_qp_attach = SROCE_MAX_MCAST_TOTAL_ATTACH;
	a->max_srq_wr = SROCE_MAX_SRQ_WR;
	a->max_srq_sge = SROCE_MAX_SRQ_SGE;
	a->max_fast_reg_page_list_len = SROCE_MAX_FAST_REG_PAGES;
	a->max_pkeys = SROCE_PKEY_TBL_LEN;
	/* The ACK timer is an hrtimer: its resolution is ours (R2.3). */
	a->local_ca_ack_delay = sroce_ack_delay_code(hrtimer_resolution);
	addrconf_addr_eui48((u8 *)&a->sys_image_guid, sdev->ndev->dev_addr);

	ibdev->node_type = RDMA_NODE_IB_CA;
	ibdev->phys_port_cnt = 1;
	ibdev->num_comp_vectors = num_possible_cpus();
	ibdev->local_dma_lkey = 0;
	ibdev->uverbs_cmd_mask |= BIT_ULL(IB_USER_VERBS_CMD_REQ_NOTIFY_CQ);
	addrconf_addr_eui48((u8 *)&ibdev->node_guid, sdev->ndev->dev_addr);
	strscpy(ibdev->node_desc, "sroce", sizeof(ibdev->node_desc));
}

static int sroce_query_device(struct ib_device *ibdev,
			      struct ib_device_attr *attr,
			      struct ib_udata *udata)
{
	/* The core's own query (registration) passes no udata from 7.x on. */
	if (udata && (udata->inlen || udata->outlen))
		return -EINVAL;
	/* Not ibdev->attrs: the core clears that before calling us. */
	*attr = to_sroce_dev(ibdev)->attr;
	return 0;
}

static int sroce_query_port(struct ib_device *ibdev, u32 port_num,
			    struct ib_port_attr *attr)
{
	struct sroce_dev *sdev = to_sroce_dev(ibdev);

	/* The core has zeroed *attr and checked port_num. */
	attr->state = sroce_port_state(sdev);
	if (attr->state == IB_PORT_ACTIVE)
		attr->phys_state = IB_PORT_PHYS_STATE_LINK_UP;
	else if (netif_running(sdev->ndev))
		attr->phys_state = IB_PORT_PHYS_STATE_POLLING;
	else
		attr->phys_state = IB_PORT_PHYS_STATE_DISABLED;
	attr->max_mtu = IB_MTU_4096;
	attr->active_mtu = sroce_active_mtu(sdev);
	attr->gid_tbl_len = SROCE_GID_TBL_LEN;
	attr->pkey_tbl_len = SROCE_PKEY_TBL_LEN;
	attr->port_cap_flags = IB_PORT_CM_SUP;
	attr->max_msg_sz = SROCE_MAX_MSG_SZ;
	attr->max_vl_num = 1;
	attr->lid = 0;
	attr->sm_lid = 0;
	return ib_get_eth_speed(ibdev, port_num, &attr->active_speed,
				&attr->active_width);
}

static int sroce_get_port_immutable(struct ib_device *ibdev, u32 port_num,
				    struct ib_port_immutable *immutable)
{
	struct ib_port_attr attr;
	int err;

	err = ib_query_port(ibdev, port_num, &attr);
	if (err)
		return err;
	immutable->pkey_tbl_len = attr.pkey_tbl_len;
	immutable->gid_tbl_len = attr.gid_tbl_len;
	/* RoCE v2 only: every GID is a RoCE v2 (UDP encapsulated) GID. */
	immutable->core_cap_flags = RDMA_CORE_PORT_IBA_ROCE_UDP_ENCAP;
	immutable->max_mad_size = IB_MGMT_MAD_SIZE;
	return 0;
}

static enum rdma_link_layer sroce_get_link_layer(struct ib_device *ibdev,
						 u32 port_num)
{
	return IB_LINK_LAYER_ETHERNET;
}

static int sroce_query_pkey(struct ib_device *ibdev, u32 port_num, u16 index,
			    u16 *pkey)
{
	if (index >= SROCE_PKEY_TBL_LEN)
		return -EINVAL;
	*pkey = IB_DEFAULT_PKEY_FULL;
	return 0;
}

static void sroce_get_dev_fw_str(struct ib_device *ibdev, char *str)
{
	/* No firmware: name the driver and its ABI instead. */
	snprintf(str, IB_FW_VERSION_NAME_MAX, "sroce-%u", SROCE_ABI_VERSION);
}

static int sroce_alloc_ucontext(struct ib_ucontext *ibuc, struct ib_udata *udata)
{
	struct sroce_alloc_ucontext_resp resp = {
		.abi_version = SROCE_ABI_VERSION,
	};

	if (udata->outlen)
		return ib_copy_to_udata(udata, &resp,
					min(sizeof(resp), udata->outlen));
	return 0;
}

static void sroce_dealloc_ucontext(struct ib_ucontext *ibuc)
{
}

/*
 * Called when the device goes away under live user contexts: the core
 * unmaps the contexts' mappings and reports IB_EVENT_DEVICE_FATAL.
 */
static void sroce_disassociate_ucontext(struct ib_ucontext *ibuc)
{
}

static int sroce_alloc_pd(struct ib_pd *ibpd, struct ib_udata *udata)
{
	return sroce_obj_get(to_sroce_dev(ibpd->device), SROCE_OBJ_PD);
}

static int sroce_dealloc_pd(struct ib_pd *ibpd, struct ib_udata *udata)
{
	sroce_obj_put(to_sroce_dev(ibpd->device), SROCE_OBJ_PD);
	return 0;
}

/*
 * XRC domains hold nothing of sroce's: the core tracks their target QPs
 * (shared between processes) and references; an XRC SRQ or target QP
 * compares its domain by pointer, which the core keeps alive for them.
 */
static int sroce_alloc_xrcd(struct ib_xrcd *ibxrcd, struct ib_udata *udata)
{
	return 0;
}

static int sroce_dealloc_xrcd(struct ib_xrcd *ibxrcd, struct ib_udata *udata)
{
	return 0;
}

const struct ib_device_ops sroce_verbs_ops = {
	.alloc_pd = sroce_alloc_pd,
	.alloc_ucontext = sroce_alloc_ucontext,
	.alloc_xrcd = sroce_alloc_xrcd,
	.dealloc_pd = sroce_dealloc_pd,
	.dealloc_ucontext = sroce_dealloc_ucontext,
	.dealloc_xrcd = sroce_dealloc_xrcd,
	.disassociate_ucontext = sroce_disassociate_ucontext,
	.get_dev_fw_str = sroce_get_dev_fw_str,
	.get_link_layer = sroce_get_link_layer,
	.get_port_immutable = sroce_get_port_immutable,
	.query_device = sroce_query_device,
	.query_pkey = sroce_query_pkey,
	.query_port = sroce_query_port,

	INIT_RDMA_OBJ_SIZE(ib_pd, sroce_pd, ibpd),
	INIT_RDMA_OBJ_SIZE(ib_ucontext, sroce_ucontext, ibuc),
	INIT_RDMA_OBJ_SIZE(ib_xrcd, sroce_xrcd, ibxrcd),
};
