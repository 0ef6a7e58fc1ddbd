// SPDX-License-Identifier: GPL-2.0-only
/*
 * sroce module entry: rdma link type "sroce" and the netdev notifier that
 * follows the devices' netdevs; the devices themselves are sroce_device.c's.
 */
#include <linux/module.h>
#include <linux/netdevice.h>
#include <rdma/rdma_netlink.h>

#include "sroce.h"
#include "sroce_fault.h"
#include "sroce_crc.h"
#include "sroce_net.h"
#include "sroce_odp.h"
#include "sroce_txpool.h"
#include "sroce_work.h"
#include "qp_fsm.h"

/* The core mirrors these kernel enums by value (kernel/core/qp_fsm.h). */
#define SROCE_SAME_STATE(x) ((int)SROCE_QPS_##x == (int)IB_QPS_##x)
static_assert(SROCE_SAME_STATE(RESET) && SROCE_SAME_STATE(INIT) &&
	      SROCE_SAME_STATE(RTR) && SROCE_SAME_STATE(RTS) &&
	      SROCE_SAME_STATE(SQD) && SROCE_SAME_STATE(SQE) &&
	      SROCE_SAME_STATE(ERR));
#define SROCE_SAME_ATTR(x) (SROCE_QPA_##x == (u32)IB_QP_##x)
static_assert(SROCE_SAME_ATTR(STATE) &&
	      SROCE_SAME_ATTR(CUR_STATE) &&
	      SROCE_SAME_ATTR(EN_SQD_ASYNC_NOTIFY) &&
	      SROCE_SAME_ATTR(ACCESS_FLAGS) &&
	      SROCE_SAME_ATTR(PKEY_INDEX) &&
	      SROCE_SAME_ATTR(PORT) &&
	      SROCE_SAME_ATTR(QKEY) &&
	      SROCE_SAME_ATTR(AV) &&
	      SROCE_SAME_ATTR(PATH_MTU) &&
	      SROCE_SAME_ATTR(TIMEOUT) &&
	      SROCE_SAME_ATTR(RETRY_CNT) &&
	      SROCE_SAME_ATTR(RNR_RETRY) &&
	      SROCE_SAME_ATTR(RQ_PSN) &&
	      SROCE_SAME_ATTR(MAX_QP_RD_ATOMIC) &&
	      SROCE_SAME_ATTR(ALT_PATH) &&
	      SROCE_SAME_ATTR(MIN_RNR_TIMER) &&
	      SROCE_SAME_ATTR(SQ_PSN) &&
	      SROCE_SAME_ATTR(MAX_DEST_RD_ATOMIC) &&
	      SROCE_SAME_ATTR(PATH_MIG_STATE) &&
	      SROCE_SAME_ATTR(CAP) &&
	      SROCE_SAME_ATTR(DEST_QPN));

static struct rdma_link_ops sroce_link_ops = {
	.type = "sroce",
	.newlink = sroce_newlink,
};

static int sroce_netdev_event(struct notifier_block *nb, unsigned long event,
			      void *arg)
{
	struct net_device *ndev = netdev_notifier_info_to_dev(arg);
	struct sroce_dev *sdev = sroce_dev_get_by_netdev(ndev);

	if (!sdev)
		return NOTIFY_DONE;

	switch (event) {
	case NETDEV_UNREGISTER:
		/* Also moving to another namespace: the device goes with it. */
		ib_unregister_device_queued(&sdev->ibdev);
		break;
	case NETDEV_UP:
	case NETDEV_DOWN:
	case NETDEV_CHANGE:
		sroce_port_update(sdev);
		break;
	default:
		break;
	}
	ib_device_put(&sdev->ibdev);
	return NOTIFY_OK;
}

static struct notifier_block sroce_netdev_nb = {
	.notifier_call = sroce_netdev_event,
};

static int __init sroce_init(void)
{
	int err;

	err = sroce_work_init();
	if (err)
		return err;
	sroce_fault_module_init();
	sroce_crc_module_init();
	err = sroce_odp_module_init();
	if (err)
		goto err_qp_exit;
	err = sroce_txpool_init();
	if (err)
		goto err_odp_exit;
	err = sroce_net_init();
	if (err)
		goto err_txpool_exit;
	err = register_netdevice_notifier(&sroce_netdev_nb);
	if (err)
		goto err_net_exit;
	rdma_link_register(&sroce_link_ops);
	pr_info(DRV_NAME ": loaded\n");
	return 0;

err_net_exit:
	sroce_net_exit();
err_txpool_exit:
	sroce_txpool_exit();
err_odp_exit:
	sroce_odp_module_exit();
err_qp_exit:
	sroce_crc_module_exit();
	sroce_fault_module_exit();
	sroce_work_exit();
	return err;
}

static void __exit sroce_exit(void)
{
	rdma_link_unregister(&sroce_link_ops);
	unregister_netdevice_notifier(&sroce_netdev_nb);
	sroce_dev_unregister_all();
	sroce_net_exit();
	sroce_txpool_exit();
	sroce_odp_module_exit();
	sroce_crc_module_exit();
	sroce_fault_module_exit();
	sroce_work_exit();
	pr_info(DRV_NAME ": unloaded\n");
}

module_init(sroce_init);
module_exit(sroce_exit);

MODULE_AUTHOR("sroce developers");
MODULE_DESCRIPTION("Software RoCEv2 RDMA device");
MODULE_LICENSE("GPL");
MODULE_VERSION(SROCE_VERSION);
MODULE_ALIAS_RDMA_LINK("sroce");
