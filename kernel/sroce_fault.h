/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * sroce_fault.h - test-only packet drop rules in debugfs
 * (/sys/kernel/debug/sroce/<ibdev>/{tx,rx}_drop; Documentation/
 * fault-injection.md). Off by default: a device with no rule armed pays
 * one READ_ONCE per packet.
 */
#ifndef SROCE_FAULT_H
#define SROCE_FAULT_H

#include <linux/types.h>

#include "sroce.h"

void sroce_fault_module_init(void);
void sroce_fault_module_exit(void);
/* Before the device can see packets: nothing armed. */
void sroce_fault_dev_init(struct sroce_dev *sdev);
/* After registration (the directory takes the device's name). */
void sroce_fault_dev_debugfs(struct sroce_dev *sdev);
void sroce_fault_dev_fini(struct sroce_dev *sdev);

/*
 * __sroce_fault_drop - should the packet whose BTH is at @bth (@len bytes
 * readable) be dropped? Counts the drop. Any context. Callers test
 * sroce_fault_armed() first.
 */
bool __sroce_fault_drop(struct sroce_dev *sdev, enum sroce_fault_dir dir,
			const u8 *bth, u32 len);

#endif /* SROCE_FAULT_H */
