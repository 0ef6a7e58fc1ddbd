// SPDX-License-Identifier: GPL-2.0-only
/*
 * sroce fault injection: deterministic packet loss for tests of the RC
 * reliability machinery (seed-rules R2). Each device has the debugfs
 * directory /sys/kernel/debug/sroce/<ibdev>/ with two files, tx_drop and
 * rx_drop, each holding one rule:
 *
 *   opcode=<n|any> psn=<n|any> aeth=<any|ack|rnr|nak> skip=<K> drop=<N>
 *
 * Writing a rule arms it (fields left out take "any" / 0, drop defaults to
 * 1); writing "off" disarms it. Reading shows the rule with what is left
 * of skip and drop. A dropped packet is counted in fault_tx_drops or
 * fault_rx_drops ("rdma statistic"). tx rules drop a packet just before
 * it would be routed (as if lost on the wire); rx rules drop a packet that
 * passed every receive check, just before its QP sees it.
 */
#include <linux/debugfs.h>
#include <linux/fs.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>

#include "sroce.h"
#include "sroce_fault.h"

static struct dentry *sroce_fault_root;

static const char *const sroce_fault_aeth_names[] = {
	[SROCE_FAULT_AETH_ANY] = "any",
	[SROCE_FAULT_AETH_ACK] = "ack",
	[SROCE_FAULT_AETH_RNR] = "rnr",
	[SROCE_FAULT_AETH_NAK] = "nak",
};

bool __sroce_fault_drop(struct sroce_dev *sdev, enum sroce_fault_dir dir,
			const u8 *bth, u32 len)
{
	struct sroce_fault *f = &sdev->fault;
	unsigned long flags;
	bool drop;

	spin_lock_irqsave(&f->lock, flags);
	drop = f->armed[dir] && sroce_fault_match(&f->rule[dir], bth, len);
	if (f->armed[dir] && !f->rule[dir].drop)
		WRITE_ONCE(f->armed[dir], false);	/* spent */
	spin_unlock_irqrestore(&f->lock, flags);
	if (drop)
		sroce_count(sdev, dir == SROCE_FAULT_TX ? SROCE_CNT_FAULT_TX_DROP :
				  SROCE_CNT_FAULT_RX_DROP);
	return drop;
}

/* "any" or a number (0x.. accepted) into @out. */
static int sroce_fault_parse_num(const char *val, s32 max, s32 *out)
{
	u32 n;

	if (!strcmp(val, "any")) {
		*out = SROCE_FAULT_ANY;
		return 0;
	}
	if (kstrtou32(val, 0, &n) || n > (u32)max)
		return -EINVAL;
	*out = n;
	return 0;
}

static int sroce_fault_parse(char *buf, struct sroce_fault_rule *r, bool *arm)
{
	char *tok, *val;
	s32 n;
	int i;

	memset(r, 0, sizeof(*r));
	r->opcode = SROCE_FAULT_ANY;
	r->psn = SROCE_FAULT_ANY;
	r->drop = 1;
	*arm = true;
	while ((tok = strsep(&buf, " \t\n"))) {
		if (!*tok)
			continue;
		if (!strcmp(tok, "off")) {
			*arm = false;
			continue;
		}
		val = strchr(tok, '=');
		if (!val)
			return -EINVAL;
		*val++ = '\0';
		if (!strcmp(tok, "opcode")) {
			if (sroce_fault_parse_num(val, 0xff, &r->opcode))
				return -EINVAL;
		} else if (!strcmp(tok, "psn")) {
			if (sroce_fault_parse_num(val, 0xffffff, &r->psn))
				return -EINVAL;
		} else if (!strcmp(tok, "aeth")) {
			i = match_string(sroce_fault_aeth_names,
					 ARRAY_SIZE(sroce_fault_aeth_names), val);
			if (i < 0)
				return -EINVAL;
			r->aeth = i;
		} else if (!strcmp(tok, "skip")) {
			if (sroce_fault_parse_num(val, S32_MAX, &n) || n < 0)
				return -EINVAL;
			r->skip = n;
		} else if (!strcmp(tok, "drop")) {
			if (sroce_fault_parse_num(val, S32_MAX, &n) || n < 0)
				return -EINVAL;
			r->drop = n;
		} else {
			return -EINVAL;
		}
	}
	return 0;
}

static ssize_t sroce_fault_write(struct file *file, const char __user *ubuf,
				 size_t count, loff_t *ppos)
{
	struct sroce_dev *sdev = file_inode(file)->i_private;
	enum sroce_fault_dir dir = (uintptr_t)file->private_data;
	struct sroce_fault *f = &sdev->fault;
	struct sroce_fault_rule r;
	bool arm;
	char *buf;
	int err;

	if (count > 256)
		return -EINVAL;
	buf = memdup_user_nul(ubuf, count);
	if (IS_ERR(buf))
		return PTR_ERR(buf);
	err = sroce_fault_parse(buf, &r, &arm);
	kfree(buf);
	if (err)
		return err;
	spin_lock_bh(&f->lock);
	f->rule[dir] = r;
	WRITE_ONCE(f->armed[dir], arm && r.drop);
	spin_unlock_bh(&f->lock);
	return count;
}

static ssize_t sroce_fault_read(struct file *file, char __user *ubuf,
				size_t count, loff_t *ppos)
{
	struct sroce_dev *sdev = file_inode(file)->i_private;
	enum sroce_fault_dir dir = (uintptr_t)file->private_data;
	struct sroce_fault *f = &sdev->fault;
	struct sroce_fault_rule r;
	char buf[128], op[8], psn[12];
	bool armed;
	int len;

	spin_lock_bh(&f->lock);
	r = f->rule[dir];
	armed = f->armed[dir];
	spin_unlock_bh(&f->lock);
	if (!armed) {
		len = scnprintf(buf, sizeof(buf), "off\n");
	} else {
		if (r.opcode == SROCE_FAULT_ANY)
			strscpy(op, "any", sizeof(op));
		else
			scnprintf(op, sizeof(op), "0x%02x", r.opcode);
		if (r.psn == SROCE_FAULT_ANY)
			strscpy(psn, "any", sizeof(psn));
		else
			scnprintf(psn, sizeof(psn), "0x%06x", r.psn);
		len = scnprintf(buf, sizeof(buf),
				"opcode=%s psn=%s aeth=%s skip=%u drop=%u\n", op,
				psn, sroce_fault_aeth_names[r.aeth], r.skip, r.drop);
	}
	return simple_read_from_buffer(ubuf, count, ppos, buf, len);
}

static int sroce_fault_open_tx(struct inode *inode, struct file *file)
{
	file->private_data = (void *)(uintptr_t)SROCE_FAULT_TX;
	return nonseekable_open(inode, file);
}

static int sroce_fault_open_rx(struct inode *inode, struct file *file)
{
	file->private_data = (void *)(uintptr_t)SROCE_FAULT_RX;
	return nonseekable_open(inode, file);
}

static const struct file_operations sroce_fault_tx_fops = {
	.owner = THIS_MODULE,
	.open = sroce_fault_open_tx,
	.read = sroce_fault_read,
	.write = sroce_fault_write,
};

static const struct file_operations sroce_fault_rx_fops = {
	.owner = THIS_MODULE,
	.open = sroce_fault_open_rx,
	.read = sroce_fault_read,
	.write = sroce_fault_write,
};

void sroce_fault_dev_init(struct sroce_dev *sdev)
{
	struct sroce_fault *f = &sdev->fault;

	spin_lock_init(&f->lock);
	f->armed[SROCE_FAULT_TX] = false;
	f->armed[SROCE_FAULT_RX] = false;
	f->dir = NULL;
}

void sroce_fault_dev_debugfs(struct sroce_dev *sdev)
{
	struct sroce_fault *f = &sdev->fault;

	if (!sroce_fault_root)
		return;
	/* debugfs failures are not errors: the files are for tests only. */
	f->dir = debugfs_create_dir(dev_name(&sdev->ibdev.dev), sroce_fault_root);
	debugfs_create_file("tx_drop", 0600, f->dir, sdev, &sroce_fault_tx_fops);
	debugfs_create_file("rx_drop", 0600, f->dir, sdev, &sroce_fault_rx_fops);
	/*
	 * The QPN the next QP tries first (xa_alloc_cyclic's cursor): a test
	 * writes a freed QPN to get it back at once rather than after 2^24
	 * creations. An unlocked store racing a create only picks the QPN.
	 */
	debugfs_create_u32("qp_next", 0600, f->dir, &sdev->qp_next);
}

void sroce_fault_dev_fini(struct sroce_dev *sdev)
{
	debugfs_remove_recursive(sdev->fault.dir);
	sdev->fault.dir = NULL;
}

void sroce_fault_module_init(void)
{
	sroce_fault_root = debugfs_create_dir(DRV_NAME, NULL);
}

void sroce_fault_module_exit(void)
{
	debugfs_remove_recursive(sroce_fault_root);
	sroce_fault_root = NULL;
}
