// SPDX-License-Identifier: GPL-2.0-only
/*
 * sroce_frmr_test - fast-registration MRs of a sroce device, through the
 * kernel verbs API (only a kernel ULP can reach them: libibverbs has no
 * REG_MR). Used by selftests/errors/frmr.sh.
 *
 *   insmod sroce_frmr_test.ko ibdev=sroce_a gid_index=N
 *
 * At load it creates a PD, two RC QPs A and B on the device, each with its
 * own CQ, connected to each other through the device's RoCE v2 GID @gid_index
 * (the device delivers to itself), and a fast-registration MR on B over
 * FT_PAGES separate pages. A is the requester, B holds the MR and posts
 * REG_MR and LOCAL_INV. Every case starts from freshly connected QPs and
 * checks the completions and QP states of both sides. One KTAP line per
 * case goes to the kernel log; init returns 0 only if every case passed,
 * else -EINVAL, and frees everything either way (nothing is left to do at
 * rmmod). Completions and events are awaited with a timeout, never forever.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/delay.h>
#include <linux/jiffies.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/scatterlist.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <rdma/ib_cache.h>
#include <rdma/ib_verbs.h>

#include "sroce_compat.h"

static char *ibdev;
module_param(ibdev, charp, 0444);
MODULE_PARM_DESC(ibdev, "sroce device to test (required)");

static int gid_index = -1;
module_param(gid_index, int, 0444);
MODULE_PARM_DESC(gid_index, "its RoCE v2 GID index to connect through (required)");

#define FT_PAGES	4
#define FT_LEN		(FT_PAGES * PAGE_SIZE)
#define FT_TIMEOUT_MS	10000
#define FT_WR_DEPTH	16
/* The bytes case 1 writes: from MR byte FT_OFF over three page boundaries. */
#define FT_OFF		100
#define FT_WLEN		(FT_LEN - 2 * FT_OFF)
#define FT_SEND_LEN	32

/* One end: a QP, its CQ (sends and receives) and the events it got. */
struct ft_end {
	const char *name;
	struct ib_cq *cq;
	struct ib_qp *qp;
	unsigned long events;	/* bit per enum ib_event_type, set_bit() */
};

struct ft_ctx {
	struct ib_device *dev;
	struct ib_pd *pd;
	struct ft_end a, b;
	union ib_gid gid;
	u64 wr_id;		/* last wr_id used */

	/* A's local buffer: [0, FT_LEN) source, [FT_LEN, 2 * FT_LEN) READ target. */
	u8 *abuf;
	u64 abuf_dma;
	/* B's receive buffer (SEND_WITH_INV). */
	u8 *bbuf;
	u64 bbuf_dma;

	/* The fast-registration MR on B and its pages (non-contiguous). */
	struct page *pages[FT_PAGES];
	struct scatterlist sg[FT_PAGES];
	int sg_nents;		/* after ib_dma_map_sg, 0 if unmapped */
	struct ib_mr *mr;
	bool mr_valid;		/* what the cases left it in */
	u32 mr_key;		/* its key while valid */
};

static void ft_qp_event(struct ib_event *ev, void *context)
{
	struct ft_end *e = context;

	if (ev->event < BITS_PER_LONG)
		set_bit(ev->event, &e->events);
}

/* Next completion of @wr_id on @e's CQ. Skips flushes of earlier WRs. */
static int ft_wait_wc(struct ft_end *e, u64 wr_id, struct ib_wc *wc)
{
	unsigned long end = jiffies + msecs_to_jiffies(FT_TIMEOUT_MS);
	int n;

	for (;;) {
		n = ib_poll_cq(e->cq, 1, wc);
		if (n < 0)
			return n;
		if (n == 1 && wc->wr_id == wr_id)
			return 0;
		if (n == 1 && wc->status != IB_WC_WR_FLUSH_ERR) {
			pr_info("# %s: unexpected completion of wr_id %llu: %s\n",
				e->name, wc->wr_id, ib_wc_status_msg(wc->status));
			return -EPROTO;
		}
		if (n == 0 && time_after(jiffies, end)) {
			pr_info("# %s: no completion of wr_id %llu in %d ms\n",
				e->name, wr_id, FT_TIMEOUT_MS);
			return -ETIMEDOUT;
		}
		if (n == 0)
			usleep_range(200, 1000);
	}
}

/* Await @wr_id and check its status (and opcode when it succeeded). */
static int ft_expect_wc(struct ft_end *e, u64 wr_id, enum ib_wc_status status,
			enum ib_wc_opcode opcode, struct ib_wc *wc)
{
	int err = ft_wait_wc(e, wr_id, wc);

	if (err)
		return err;
	if (wc->status != status) {
		pr_info("# %s: wr_id %llu status %s, want %s\n", e->name, wr_id,
			ib_wc_status_msg(wc->status), ib_wc_status_msg(status));
		return -EPROTO;
	}
	if (status == IB_WC_SUCCESS && wc->opcode != opcode) {
		pr_info("# %s: wr_id %llu opcode %d, want %d\n", e->name, wr_id,
			wc->opcode, opcode);
		return -EPROTO;
	}
	return 0;
}

/* Wait until @e got async event @type. */
static int ft_expect_event(struct ft_end *e, enum ib_event_type type)
{
	unsigned long end = jiffies + msecs_to_jiffies(FT_TIMEOUT_MS);

	while (!test_bit(type, &e->events)) {
		if (time_after(jiffies, end)) {
			pr_info("# %s: no %s event in %d ms\n", e->name,
				ib_event_msg(type), FT_TIMEOUT_MS);
			return -ETIMEDOUT;
		}
		usleep_range(200, 1000);
	}
	return 0;
}

static int ft_expect_state(struct ft_end *e, enum ib_qp_state want)
{
	struct ib_qp_init_attr init;
	struct ib_qp_attr attr;
	int err;

	err = ib_query_qp(e->qp, &attr, IB_QP_STATE, &init);
	if (err) {
		pr_info("# %s: ib_query_qp: %d\n", e->name, err);
		return err;
	}
	if (attr.qp_state != want) {
		pr_info("# %s: QP state %d, want %d\n", e->name, attr.qp_state,
			want);
		return -EPROTO;
	}
	return 0;
}

/* RESET -> INIT -> RTR -> RTS towards @peer_qpn through the device's GID. */
static int ft_connect_one(struct ft_ctx *c, struct ft_end *e, u32 peer_qpn)
{
	struct ib_qp_attr attr;
	int err;

	memset(&attr, 0, sizeof(attr));
	attr.qp_state = IB_QPS_RESET;
	err = ib_modify_qp(e->qp, &attr, IB_QP_STATE);
	if (err)
		return err;

	attr.qp_state = IB_QPS_INIT;
	attr.pkey_index = 0;
	attr.port_num = 1;
	attr.qp_access_flags = IB_ACCESS_REMOTE_WRITE | IB_ACCESS_REMOTE_READ |
				IB_ACCESS_REMOTE_ATOMIC;
	err = ib_modify_qp(e->qp, &attr, IB_QP_STATE | IB_QP_PKEY_INDEX |
			   IB_QP_PORT | IB_QP_ACCESS_FLAGS);
	if (err)
		return err;

	memset(&attr, 0, sizeof(attr));
	attr.qp_state = IB_QPS_RTR;
	attr.path_mtu = IB_MTU_1024;
	attr.dest_qp_num = peer_qpn;
	attr.rq_psn = 0;
	attr.max_dest_rd_atomic = 1;
	attr.min_rnr_timer = 12;
	attr.ah_attr.type = RDMA_AH_ATTR_TYPE_ROCE;
	rdma_ah_set_port_num(&attr.ah_attr, 1);
	rdma_ah_set_grh(&attr.ah_attr, &c->gid, 0, gid_index, 64, 0);
	err = ib_modify_qp(e->qp, &attr, IB_QP_STATE | IB_QP_AV |
			   IB_QP_PATH_MTU | IB_QP_DEST_QPN | IB_QP_RQ_PSN |
			   IB_QP_MAX_DEST_RD_ATOMIC | IB_QP_MIN_RNR_TIMER);
	if (err)
		return err;

	memset(&attr, 0, sizeof(attr));
	attr.qp_state = IB_QPS_RTS;
	attr.sq_psn = 0;
	attr.timeout = 14;
	attr.retry_cnt = 7;
	attr.rnr_retry = 7;
	attr.max_rd_atomic = 1;
	return ib_modify_qp(e->qp, &attr, IB_QP_STATE | IB_QP_SQ_PSN |
			    IB_QP_TIMEOUT | IB_QP_RETRY_CNT |
			    IB_QP_RNR_RETRY | IB_QP_MAX_QP_RD_ATOMIC);
}

static void ft_drain(struct ft_end *e)
{
	struct ib_wc wc;

	while (ib_poll_cq(e->cq, 1, &wc) > 0)
		;
	e->events = 0;
}

/* Both QPs from whatever state to RTS, connected to each other. */
static int ft_connect(struct ft_ctx *c)
{
	int err;

	err = ft_connect_one(c, &c->a, c->b.qp->qp_num);
	if (!err)
		err = ft_connect_one(c, &c->b, c->a.qp->qp_num);
	if (err) {
		pr_info("# connecting the QPs: %d\n", err);
		return err;
	}
	ft_drain(&c->a);
	ft_drain(&c->b);
	return 0;
}

static int ft_post_send(struct ft_end *e, struct ib_send_wr *wr)
{
	const struct ib_send_wr *bad;
	int err;

	wr->send_flags |= IB_SEND_SIGNALED;
	err = ib_post_send(e->qp, wr, &bad);
	if (err)
		pr_info("# %s: ib_post_send opcode %d: %d\n", e->name,
			wr->opcode, err);
	return err;
}

#define FT_ACCESS (IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_WRITE | \
		   IB_ACCESS_REMOTE_READ)

/* B: REG_MR of @mr with @key and @access; *@id is its wr_id. */
static int ft_post_reg(struct ft_ctx *c, struct ib_mr *mr, u32 key,
		       int access, u64 *id)
{
	struct ib_reg_wr wr = {
		.wr.opcode = IB_WR_REG_MR,
		.mr = mr,
		.key = key,
		.access = access,
	};

	wr.wr.wr_id = ++c->wr_id;
	*id = wr.wr.wr_id;
	return ft_post_send(&c->b, &wr.wr);
}

/* B: LOCAL_INV of @key. */
static int ft_post_local_inv(struct ft_ctx *c, u32 key, u64 *id)
{
	struct ib_send_wr wr = {
		.opcode = IB_WR_LOCAL_INV,
		.ex.invalidate_rkey = key,
	};

	wr.wr_id = ++c->wr_id;
	*id = wr.wr_id;
	return ft_post_send(&c->b, &wr);
}

/*
 * A: RDMA WRITE (from abuf + @off) or READ (into abuf + FT_LEN + @off) of
 * @len bytes at MR byte @off, through @rkey. Every MR here is mapped from
 * c->sg, so its iova is the first page's DMA address.
 */
static int ft_post_rdma(struct ft_ctx *c, enum ib_wr_opcode op, u32 rkey,
			u32 off, u32 len, u64 *id)
{
	struct ib_sge sge = {
		.addr = c->abuf_dma + off + (op == IB_WR_RDMA_READ ? FT_LEN : 0),
		.length = len,
		.lkey = c->pd->local_dma_lkey,
	};
	struct ib_rdma_wr wr = {
		.wr.opcode = op,
		.wr.sg_list = &sge,
		.wr.num_sge = 1,
		.remote_addr = sg_dma_address(&c->sg[0]) + off,
		.rkey = rkey,
	};

	wr.wr.wr_id = ++c->wr_id;
	*id = wr.wr.wr_id;
	return ft_post_send(&c->a, &wr.wr);
}

/* Map the MR over all FT_PAGES pages; 0 if every page was mapped. */
static int ft_map(struct ft_ctx *c, struct ib_mr *mr, int want)
{
	int n = ib_map_mr_sg(mr, c->sg, c->sg_nents, NULL, PAGE_SIZE);

	if (n != want) {
		pr_info("# ib_map_mr_sg: %d, want %d\n", n, want);
		return n < 0 ? n : -EPROTO;
	}
	return 0;
}

/*
 * Register c->mr with a new key (the ULP's usual ib_inc_rkey step) and
 * @access.
 */
static int ft_register_access(struct ft_ctx *c, int access)
{
	struct ib_wc wc;
	u64 id;
	int err;

	ib_update_fast_reg_key(c->mr, ib_inc_rkey(c->mr->rkey));
	err = ft_map(c, c->mr, FT_PAGES);
	if (!err)
		err = ft_post_reg(c, c->mr, c->mr->rkey, access, &id);
	if (!err)
		err = ft_expect_wc(&c->b, id, IB_WC_SUCCESS, IB_WC_REG_MR, &wc);
	if (err)
		return err;
	c->mr_valid = true;
	c->mr_key = c->mr->rkey;
	return 0;
}

static int ft_register(struct ft_ctx *c)
{
	return ft_register_access(c, FT_ACCESS);
}

static int ft_invalidate(struct ft_ctx *c, u32 key)
{
	struct ib_wc wc;
	u64 id;
	int err;

	err = ft_post_local_inv(c, key, &id);
	if (!err)
		err = ft_expect_wc(&c->b, id, IB_WC_SUCCESS, IB_WC_LOCAL_INV, &wc);
	if (!err)
		c->mr_valid = false;
	return err;
}

/* Fresh QPs and an invalid MR: where every case starts. */
static int ft_start(struct ft_ctx *c)
{
	int err = ft_connect(c);

	if (!err && c->mr_valid)
		err = ft_invalidate(c, c->mr_key);
	return err;
}

/* MR byte @off (page list order, not the pages' addresses). */
static u8 *ft_mr_byte(struct ft_ctx *c, u32 off)
{
	return (u8 *)page_address(c->pages[off / PAGE_SIZE]) + off % PAGE_SIZE;
}

static void ft_fill(struct ft_ctx *c, u8 seed)
{
	u32 i;

	for (i = 0; i < FT_LEN; i++) {
		c->abuf[i] = (u8)(i * 7 + seed);
		*ft_mr_byte(c, i) = 0;
	}
	memset(c->abuf + FT_LEN, 0, FT_LEN);
}

/* MR bytes [0, FT_LEN): the pattern of @seed in [@off, @off + @len), else 0. */
static int ft_check_mr(struct ft_ctx *c, u8 seed, u32 off, u32 len)
{
	u32 i;
	u8 want;

	for (i = 0; i < FT_LEN; i++) {
		want = i >= off && i < off + len ? (u8)(i * 7 + seed) : 0;
		if (*ft_mr_byte(c, i) != want) {
			pr_info("# MR byte %u: got 0x%02x, want 0x%02x\n", i,
				*ft_mr_byte(c, i), want);
			return -EPROTO;
		}
	}
	return 0;
}

/* A WRITE (or READ) through @rkey succeeds on both sides. */
static int ft_rdma_ok(struct ft_ctx *c, enum ib_wr_opcode op, u32 rkey,
		      u32 off, u32 len)
{
	struct ib_wc wc;
	u64 id;
	int err;

	err = ft_post_rdma(c, op, rkey, off, len, &id);
	if (!err)
		err = ft_expect_wc(&c->a, id, IB_WC_SUCCESS,
				   op == IB_WR_RDMA_READ ? IB_WC_RDMA_READ :
				   IB_WC_RDMA_WRITE, &wc);
	if (!err)
		err = ft_expect_state(&c->b, IB_QPS_RTS);
	return err;
}

/*
 * A's request @id failed at B: @status at A, IB_EVENT_QP_ACCESS_ERR at B,
 * both QPs in ERROR.
 */
static int ft_refused(struct ft_ctx *c, u64 id, enum ib_wc_status status)
{
	struct ib_wc wc;
	int err;

	err = ft_expect_wc(&c->a, id, status, 0, &wc);
	if (!err)
		err = ft_expect_event(&c->b, IB_EVENT_QP_ACCESS_ERR);
	if (!err)
		err = ft_expect_state(&c->b, IB_QPS_ERR);
	if (!err)
		err = ft_expect_state(&c->a, IB_QPS_ERR);
	return err;
}

/*
 * A WRITE or READ through a dead or out-of-range R_Key: IB_WC_REM_ACCESS_ERR
 * at A, IB_EVENT_QP_ACCESS_ERR at B, both QPs in ERROR, MR untouched
 * (seed-rules R3.4 rows "WRITE: bad R_Key/range/access" and "READ/ATOMIC:
 * bad R_Key", R3.5 on R_Keys, R3.2).
 */
static int ft_rdma_refused(struct ft_ctx *c, enum ib_wr_opcode op, u32 rkey,
			   u32 off, u32 len)
{
	u64 id;
	int err;

	err = ft_post_rdma(c, op, rkey, off, len, &id);
	return err ?: ft_refused(c, id, IB_WC_REM_ACCESS_ERR);
}

/* 1: REG_MR, then a WRITE lands byte for byte and a READ reads it back. */
static int ft_case_reg_write_read(struct ft_ctx *c)
{
	int err;

	ft_fill(c, 1);
	err = ft_start(c);
	if (!err)
		err = ft_register(c);
	if (!err)
		err = ft_rdma_ok(c, IB_WR_RDMA_WRITE, c->mr_key, FT_OFF, FT_WLEN);
	if (!err)
		err = ft_check_mr(c, 1, FT_OFF, FT_WLEN);
	if (!err)
		err = ft_rdma_ok(c, IB_WR_RDMA_READ, c->mr_key, FT_OFF, FT_WLEN);
	if (!err && memcmp(c->abuf + FT_LEN + FT_OFF, c->abuf + FT_OFF, FT_WLEN)) {
		pr_info("# READ returned other bytes than the WRITE wrote\n");
		err = -EPROTO;
	}
	return err;
}

/* 2: LOCAL_INV, then a WRITE through the key is refused (R3.4, R3.5). */
static int ft_case_local_inv(struct ft_ctx *c)
{
	u32 key;
	int err;

	ft_fill(c, 2);
	err = ft_start(c);
	if (!err)
		err = ft_register(c);
	key = c->mr_key;
	if (!err)
		err = ft_invalidate(c, key);
	if (!err)
		err = ft_rdma_refused(c, IB_WR_RDMA_WRITE, key, 0, 16);
	if (!err)
		err = ft_check_mr(c, 2, 0, 0);
	return err;
}

/* 3: re-registration with the next key works; the old key is dead. */
static int ft_case_rereg_new_key(struct ft_ctx *c)
{
	u32 old;
	int err;

	ft_fill(c, 3);
	err = ft_start(c);
	if (!err)
		err = ft_register(c);
	old = c->mr_key;
	if (!err)
		err = ft_invalidate(c, old);
	if (!err)
		err = ft_register(c);
	if (!err && c->mr_key == old) {
		pr_info("# new key 0x%x is the old one\n", old);
		err = -EPROTO;
	}
	if (!err)
		err = ft_rdma_ok(c, IB_WR_RDMA_WRITE, c->mr_key, 0, FT_LEN);
	if (!err)
		err = ft_check_mr(c, 3, 0, FT_LEN);
	/* seed-rules R3.4 "READ/ATOMIC: bad R_Key" */
	if (!err)
		err = ft_rdma_refused(c, IB_WR_RDMA_READ, old, 0, 16);
	return err;
}

/*
 * 4: SEND_WITH_INV carrying the MR's R_Key invalidates it at B: the
 * receive completion has IB_WC_WITH_INVALIDATE and the key; a WRITE with
 * it is then refused (R3.4).
 */
static int ft_case_send_with_inv(struct ft_ctx *c)
{
	struct ib_sge rsge = {
		.addr = c->bbuf_dma,
		.length = PAGE_SIZE,
		.lkey = c->pd->local_dma_lkey,
	};
	struct ib_recv_wr rwr = { .sg_list = &rsge, .num_sge = 1 };
	struct ib_sge ssge = {
		.addr = c->abuf_dma,
		.length = FT_SEND_LEN,
		.lkey = c->pd->local_dma_lkey,
	};
	struct ib_send_wr swr = {
		.opcode = IB_WR_SEND_WITH_INV,
		.sg_list = &ssge,
		.num_sge = 1,
	};
	const struct ib_recv_wr *bad;
	struct ib_wc wc;
	u64 rid, sid;
	u32 key;
	int err;

	ft_fill(c, 4);
	memset(c->bbuf, 0, PAGE_SIZE);
	err = ft_start(c);
	if (!err)
		err = ft_register(c);
	if (err)
		return err;
	key = c->mr_key;
	rid = ++c->wr_id;
	rwr.wr_id = rid;
	err = ib_post_recv(c->b.qp, &rwr, &bad);
	if (err) {
		pr_info("# B: ib_post_recv: %d\n", err);
		return err;
	}
	swr.ex.invalidate_rkey = key;
	sid = ++c->wr_id;
	swr.wr_id = sid;
	err = ft_post_send(&c->a, &swr);
	if (!err)
		err = ft_expect_wc(&c->a, sid, IB_WC_SUCCESS, IB_WC_SEND, &wc);
	if (!err)
		err = ft_expect_wc(&c->b, rid, IB_WC_SUCCESS, IB_WC_RECV, &wc);
	if (err)
		return err;
	c->mr_valid = false;
	if (!(wc.wc_flags & IB_WC_WITH_INVALIDATE) ||
	    wc.ex.invalidate_rkey != key || wc.byte_len != FT_SEND_LEN) {
		pr_info("# B: receive wc_flags 0x%x invalidate_rkey 0x%x byte_len %u, want IB_WC_WITH_INVALIDATE, 0x%x, %u\n",
			wc.wc_flags, wc.ex.invalidate_rkey, wc.byte_len, key,
			FT_SEND_LEN);
		return -EPROTO;
	}
	if (memcmp(c->bbuf, c->abuf, FT_SEND_LEN)) {
		pr_info("# B: received bytes differ from the sent ones\n");
		return -EPROTO;
	}
	return ft_rdma_refused(c, IB_WR_RDMA_WRITE, key, 0, 16);
}

/*
 * 5: REG_MR of a valid MR fails. IBA's memory management extensions
 * fast-register only an MR in the Free state (never registered or
 * invalidated); rxe refuses it too, with LOC_QP_OP_ERR; mlx5 does not
 * check. sroce completes it with IB_WC_LOC_PROT_ERR, as it does a failed
 * LOCAL_INV (Documentation/testing.md), and the QP goes to ERROR
 * (seed-rules R3.2). The registration in place is kept.
 */
static int ft_case_reg_valid_mr(struct ft_ctx *c)
{
	struct ib_wc wc;
	u64 id;
	u32 key;
	int err;

	ft_fill(c, 5);
	err = ft_start(c);
	if (!err)
		err = ft_register(c);
	if (err)
		return err;
	key = c->mr_key;
	ib_update_fast_reg_key(c->mr, ib_inc_rkey(c->mr->rkey));
	err = ft_map(c, c->mr, FT_PAGES);
	if (!err)
		err = ft_post_reg(c, c->mr, c->mr->rkey, FT_ACCESS, &id);
	if (!err)
		err = ft_expect_wc(&c->b, id, IB_WC_LOC_PROT_ERR, 0, &wc);
	if (!err)
		err = ft_expect_state(&c->b, IB_QPS_ERR);
	/* The old registration still works, the refused key does not exist. */
	if (!err)
		err = ft_connect(c);
	if (!err)
		err = ft_rdma_ok(c, IB_WR_RDMA_WRITE, key, 0, 64);
	if (!err)
		err = ft_check_mr(c, 5, 0, 64);
	if (!err)
		err = ft_rdma_refused(c, IB_WR_RDMA_WRITE, c->mr->rkey, 0, 64);
	/* ft_start() invalidates it with the key it really has. */
	return err;
}

/*
 * 6: more pages than max_num_sg. ib_alloc_mr over the device's
 * max_fast_reg_page_list_len is refused; ib_map_mr_sg of FT_PAGES pages
 * into an MR of 2 maps 2, a REG_MR then registers those 2 pages only, and
 * a WRITE past them is refused (R3.5 range on an R_Key, R3.4).
 */
static int ft_case_over_max_num_sg(struct ft_ctx *c)
{
	struct ib_mr *small, *big;
	struct ib_wc wc;
	u32 max = c->dev->attrs.max_fast_reg_page_list_len;
	u64 id;
	int err;

	big = ib_alloc_mr(c->pd, IB_MR_TYPE_MEM_REG, max + 1);
	if (!IS_ERR(big)) {
		pr_info("# ib_alloc_mr of %u pages (max %u) succeeded\n",
			max + 1, max);
		ib_dereg_mr(big);
		return -EPROTO;
	}
	if (PTR_ERR(big) != -EINVAL) {
		pr_info("# ib_alloc_mr over the max: %ld, want %d\n",
			PTR_ERR(big), -EINVAL);
		return -EPROTO;
	}

	ft_fill(c, 6);
	err = ft_start(c);
	if (err)
		return err;
	small = ib_alloc_mr(c->pd, IB_MR_TYPE_MEM_REG, 2);
	if (IS_ERR(small)) {
		pr_info("# ib_alloc_mr of 2 pages: %ld\n", PTR_ERR(small));
		return PTR_ERR(small);
	}
	err = ft_map(c, small, 2);
	if (!err && small->length != 2 * PAGE_SIZE) {
		pr_info("# mapped length %llu, want %lu\n", small->length,
			2 * PAGE_SIZE);
		err = -EPROTO;
	}
	if (!err)
		err = ft_post_reg(c, small, small->rkey, FT_ACCESS, &id);
	if (!err)
		err = ft_expect_wc(&c->b, id, IB_WC_SUCCESS, IB_WC_REG_MR, &wc);
	if (!err)
		err = ft_rdma_ok(c, IB_WR_RDMA_WRITE, small->rkey, 0,
				 2 * PAGE_SIZE);
	if (!err)
		err = ft_check_mr(c, 6, 0, 2 * PAGE_SIZE);
	if (!err)
		err = ft_rdma_refused(c, IB_WR_RDMA_WRITE, small->rkey,
				      2 * PAGE_SIZE - 8, 16);
	if (!err)
		err = ft_check_mr(c, 6, 0, 2 * PAGE_SIZE);
	ib_dereg_mr(small);
	return err;
}

/*
 * 7: LOCAL_INV of the MR's key with another key byte fails (the key must
 * match, as for any R_Key: R3.5): IB_WC_LOC_PROT_ERR at B, B in ERROR
 * (R3.2), and the MR stays valid.
 */
static int ft_case_local_inv_wrong_key(struct ft_ctx *c)
{
	struct ib_wc wc;
	u64 id;
	u32 bad;
	int err;

	ft_fill(c, 7);
	err = ft_start(c);
	if (!err)
		err = ft_register(c);
	if (err)
		return err;
	bad = (c->mr_key & ~0xffU) | ((c->mr_key + 1) & 0xff);
	err = ft_post_local_inv(c, bad, &id);
	if (!err)
		err = ft_expect_wc(&c->b, id, IB_WC_LOC_PROT_ERR, 0, &wc);
	if (!err)
		err = ft_expect_state(&c->b, IB_QPS_ERR);
	if (!err)
		err = ft_connect(c);
	if (!err)
		err = ft_rdma_ok(c, IB_WR_RDMA_WRITE, c->mr_key, 0, 64);
	if (!err)
		err = ft_check_mr(c, 7, 0, 64);
	if (!err)
		err = ft_invalidate(c, c->mr_key);
	return err;
}

/*
 * 8: REG_MR with remote write but without local write is refused (IBA
 * o10-36.2.2, as for any registration): IB_WC_LOC_PROT_ERR at B, B in
 * ERROR (R3.2), and the MR stays invalid: its key gives REM_ACCESS_ERR.
 */
static int ft_case_reg_mr_bad_access(struct ft_ctx *c)
{
	struct ib_wc wc;
	u64 id;
	int err;

	ft_fill(c, 8);
	err = ft_start(c);
	if (err)
		return err;
	ib_update_fast_reg_key(c->mr, ib_inc_rkey(c->mr->rkey));
	err = ft_map(c, c->mr, FT_PAGES);
	if (!err)
		err = ft_post_reg(c, c->mr, c->mr->rkey, IB_ACCESS_REMOTE_WRITE,
				  &id);
	if (!err)
		err = ft_expect_wc(&c->b, id, IB_WC_LOC_PROT_ERR, 0, &wc);
	if (!err)
		err = ft_expect_state(&c->b, IB_QPS_ERR);
	if (!err)
		err = ft_connect(c);
	if (!err)
		err = ft_rdma_refused(c, IB_WR_RDMA_WRITE, c->mr->rkey, 0, 16);
	if (!err)
		err = ft_check_mr(c, 8, 0, 0);
	return err;
}

/*
 * 9: a DMA MR covers all kernel memory: no remote rights on one. A PD
 * asking for IB_PD_UNSAFE_GLOBAL_RKEY (a DMA MR with remote read and
 * write) is refused with -EINVAL.
 */
static int ft_case_dma_mr_remote_refused(struct ft_ctx *c)
{
	struct ib_pd *pd = ib_alloc_pd(c->dev, IB_PD_UNSAFE_GLOBAL_RKEY);

	if (PTR_ERR_OR_ZERO(pd) == -EINVAL)
		return 0;
	if (!IS_ERR(pd)) {
		pr_info("# a PD with a global R_Key over kernel memory: 0x%x\n",
			pd->unsafe_global_rkey);
		ib_dealloc_pd(pd);
		return -EPROTO;
	}
	pr_info("# ib_alloc_pd(IB_PD_UNSAFE_GLOBAL_RKEY): %ld, want %d\n",
		PTR_ERR(pd), -EINVAL);
	return -EPROTO;
}

/*
 * 10: the key of the PD's local DMA MR is no R_Key: a WRITE through it
 * gives REM_ACCESS_ERR / QP_ACCESS_ERR (seed-rules R3.4, R3.5).
 */
static int ft_case_dma_lkey_as_rkey(struct ft_ctx *c)
{
	int err;

	ft_fill(c, 10);
	err = ft_start(c);
	if (!err)
		err = ft_rdma_refused(c, IB_WR_RDMA_WRITE,
				      c->pd->local_dma_lkey, 0, 16);
	if (!err)
		err = ft_check_mr(c, 10, 0, 0);
	return err;
}

/* A: an ATOMIC (FETCH_ADD, else CMP_SWAP of 0) at @raddr through @rkey. */
static int ft_post_atomic(struct ft_ctx *c, bool fetch_add, u64 raddr,
			  u32 rkey, u64 value, u64 *id)
{
	struct ib_sge sge = {
		.addr = c->abuf_dma,
		.length = sizeof(u64),
		.lkey = c->pd->local_dma_lkey,
	};
	struct ib_atomic_wr wr = {
		.wr.opcode = fetch_add ? IB_WR_ATOMIC_FETCH_AND_ADD :
					 IB_WR_ATOMIC_CMP_AND_SWP,
		.wr.sg_list = &sge,
		.wr.num_sge = 1,
		.remote_addr = raddr,
		.rkey = rkey,
		.compare_add = fetch_add ? value : 0,
		.swap = value,
	};

	wr.wr.wr_id = ++c->wr_id;
	*id = wr.wr.wr_id;
	return ft_post_send(&c->a, &wr.wr);
}

static int ft_zero(const u8 *p, size_t len, const char *what)
{
	size_t i;

	for (i = 0; i < len; i++) {
		if (p[i]) {
			pr_info("# %s byte %zu: 0x%02x, want 0\n", what, i, p[i]);
			return -EPROTO;
		}
	}
	return 0;
}

#define FT_ATOMIC_VAL	0x0101010101010101ULL
#define FT_ATOMIC_IOVA	0x100000ULL	/* 8-byte aligned, chosen by the ULP */

/*
 * 11, 12: an ATOMIC whose iova is 8-byte aligned but whose word is not
 * aligned in the memory behind it: an MR of 4-byte pages whose first page
 * is the last 4 bytes of a page (the next page is ours, to see a write
 * run past it), the rest on another page. The IBA wants the target of an
 * ATOMIC naturally aligned: refused as a misaligned ATOMIC (seed-rules
 * R3.4: IB_WC_REM_INV_REQ_ERR at A, IB_EVENT_QP_ACCESS_ERR at B, both in
 * ERROR), and no byte of either page changes.
 */
static int ft_atomic_misaligned(struct ft_ctx *c, bool fetch_add)
{
	struct scatterlist sg[2];
	struct page *two;
	struct ib_mr *mr;
	struct ib_wc wc;
	int n, err;
	u8 *p;
	u64 id;

	ft_fill(c, 11);
	err = ft_start(c);
	if (err)
		return err;
	two = alloc_pages(GFP_KERNEL | __GFP_ZERO, 1);
	if (!two)
		return -ENOMEM;
	p = page_address(two);
	sg_init_table(sg, 2);
	sg_set_page(&sg[0], two, 4, PAGE_SIZE - 4);
	sg_set_page(&sg[1], c->pages[1], 12, 0);
	err = -ENOMEM;
	if (ib_dma_map_sg(c->dev, sg, 2, DMA_BIDIRECTIONAL) != 2)
		goto out_free;
	mr = ib_alloc_mr(c->pd, IB_MR_TYPE_MEM_REG, 4);
	if (IS_ERR(mr)) {
		err = PTR_ERR(mr);
		pr_info("# ib_alloc_mr of 4 pages: %d\n", err);
		goto out_unmap;
	}
	n = ib_map_mr_sg(mr, sg, 2, NULL, 4);
	if (n != 2) {
		pr_info("# ib_map_mr_sg with 4-byte pages: %d, want 2\n", n);
		err = -EPROTO;
		goto out_dereg;
	}
	mr->iova = FT_ATOMIC_IOVA;
	err = ft_post_reg(c, mr, mr->rkey, FT_ACCESS | IB_ACCESS_REMOTE_ATOMIC,
			  &id);
	if (!err)
		err = ft_expect_wc(&c->b, id, IB_WC_SUCCESS, IB_WC_REG_MR, &wc);
	if (!err)
		err = ft_post_atomic(c, fetch_add, FT_ATOMIC_IOVA, mr->rkey,
				     FT_ATOMIC_VAL, &id);
	if (!err)
		err = ft_refused(c, id, IB_WC_REM_INV_REQ_ERR);
	if (!err)
		err = ft_zero(p, 2 * PAGE_SIZE, "first page and the one after it");
	if (!err)
		err = ft_zero(page_address(c->pages[1]), PAGE_SIZE, "second page");
out_dereg:
	ib_dereg_mr(mr);
out_unmap:
	ib_dma_unmap_sg(c->dev, sg, 2, DMA_BIDIRECTIONAL);
out_free:
	__free_pages(two, 1);
	return err;
}

static int ft_case_atomic_misaligned_fadd(struct ft_ctx *c)
{
	return ft_atomic_misaligned(c, true);
}

static int ft_case_atomic_misaligned_cswap(struct ft_ctx *c)
{
	return ft_atomic_misaligned(c, false);
}

/*
 * 13: ATOMICs through a fast-registration MR of whole pages: the last
 * word of the first page takes a FETCH_ADD and a CMP_SWAP, A gets the
 * original values, and no other byte changes.
 */
static int ft_case_atomic_ok(struct ft_ctx *c)
{
	u64 raddr = sg_dma_address(&c->sg[0]) + PAGE_SIZE - 8;
	u64 *word = (u64 *)ft_mr_byte(c, PAGE_SIZE - 8);
	u64 *orig = (u64 *)c->abuf;
	struct ib_wc wc;
	u64 id;
	int err;

	ft_fill(c, 13);
	err = ft_start(c);
	if (!err)
		err = ft_register_access(c, FT_ACCESS | IB_ACCESS_REMOTE_ATOMIC);
	if (err)
		return err;
	*word = 5;
	err = ft_post_atomic(c, true, raddr, c->mr_key, 3, &id);
	if (!err)
		err = ft_expect_wc(&c->a, id, IB_WC_SUCCESS, IB_WC_FETCH_ADD, &wc);
	if (!err && (*orig != 5 || *word != 8)) {
		pr_info("# FETCH_ADD: orig %llu word %llu, want 5 and 8\n",
			*orig, *word);
		err = -EPROTO;
	}
	if (!err)
		err = ft_post_atomic(c, false, raddr - 8, c->mr_key,
				     FT_ATOMIC_VAL, &id);
	if (!err)
		err = ft_expect_wc(&c->a, id, IB_WC_SUCCESS, IB_WC_COMP_SWAP, &wc);
	if (!err && (*orig != 0 || word[-1] != FT_ATOMIC_VAL)) {
		pr_info("# CMP_SWAP: orig %llu word 0x%llx\n", *orig, word[-1]);
		err = -EPROTO;
	}
	if (!err) {
		*word = 0;
		word[-1] = 0;
		err = ft_check_mr(c, 13, 0, 0);
	}
	if (!err)
		err = ft_expect_state(&c->b, IB_QPS_RTS);
	return err;
}

static const struct {
	const char *name;
	int (*run)(struct ft_ctx *c);
} ft_cases[] = {
	{ "reg_mr_write_read", ft_case_reg_write_read },
	{ "local_inv_then_write", ft_case_local_inv },
	{ "rereg_new_key_old_key_dead", ft_case_rereg_new_key },
	{ "send_with_inv", ft_case_send_with_inv },
	{ "reg_mr_of_valid_mr", ft_case_reg_valid_mr },
	{ "over_max_num_sg", ft_case_over_max_num_sg },
	{ "local_inv_wrong_key_byte", ft_case_local_inv_wrong_key },
	{ "reg_mr_remote_write_without_local_write", ft_case_reg_mr_bad_access },
	{ "dma_mr_remote_access_refused", ft_case_dma_mr_remote_refused },
	{ "dma_lkey_as_rkey_refused", ft_case_dma_lkey_as_rkey },
	{ "atomic_misaligned_memory_fetch_add", ft_case_atomic_misaligned_fadd },
	{ "atomic_misaligned_memory_cmp_swap", ft_case_atomic_misaligned_cswap },
	{ "atomic_frmr_ok", ft_case_atomic_ok },
};

static int ft_end_create(struct ft_ctx *c, struct ft_end *e, const char *name)
{
	struct ib_cq_init_attr cq_attr = { .cqe = 4 * FT_WR_DEPTH };
	struct ib_qp_init_attr init = {
		.event_handler = ft_qp_event,
		.qp_context = e,
		.cap = {
			.max_send_wr = FT_WR_DEPTH,
			.max_recv_wr = FT_WR_DEPTH,
			.max_send_sge = 1,
			.max_recv_sge = 1,
		},
		.sq_sig_type = IB_SIGNAL_REQ_WR,
		.qp_type = IB_QPT_RC,
	};

	e->name = name;
	e->cq = ib_create_cq(c->dev, NULL, NULL, e, &cq_attr);
	if (IS_ERR(e->cq)) {
		pr_info("# %s: ib_create_cq: %ld\n", name, PTR_ERR(e->cq));
		return PTR_ERR(e->cq);
	}
	init.send_cq = e->cq;
	init.recv_cq = e->cq;
	e->qp = ib_create_qp(c->pd, &init);
	if (IS_ERR(e->qp)) {
		pr_info("# %s: ib_create_qp: %ld\n", name, PTR_ERR(e->qp));
		ib_destroy_cq(e->cq);
		return PTR_ERR(e->qp);
	}
	return 0;
}

static void ft_end_destroy(struct ft_end *e)
{
	ib_destroy_qp(e->qp);
	ib_destroy_cq(e->cq);
}

static int ft_buffers(struct ft_ctx *c)
{
	int i;

	c->abuf = kzalloc(2 * FT_LEN, GFP_KERNEL);
	c->bbuf = kzalloc(PAGE_SIZE, GFP_KERNEL);
	if (!c->abuf || !c->bbuf)
		goto err_free;
	c->abuf_dma = ib_dma_map_single(c->dev, c->abuf, 2 * FT_LEN,
					DMA_BIDIRECTIONAL);
	if (ib_dma_mapping_error(c->dev, c->abuf_dma))
		goto err_free;
	c->bbuf_dma = ib_dma_map_single(c->dev, c->bbuf, PAGE_SIZE,
					DMA_BIDIRECTIONAL);
	if (ib_dma_mapping_error(c->dev, c->bbuf_dma))
		goto err_unmap_a;
	sg_init_table(c->sg, FT_PAGES);
	for (i = 0; i < FT_PAGES; i++) {
		c->pages[i] = alloc_page(GFP_KERNEL);
		if (!c->pages[i])
			goto err_pages;
		sg_set_page(&c->sg[i], c->pages[i], PAGE_SIZE, 0);
	}
	c->sg_nents = ib_dma_map_sg(c->dev, c->sg, FT_PAGES, DMA_BIDIRECTIONAL);
	if (c->sg_nents <= 0)
		goto err_pages;
	return 0;

err_pages:
	while (i--)
		__free_page(c->pages[i]);
	ib_dma_unmap_single(c->dev, c->bbuf_dma, PAGE_SIZE, DMA_BIDIRECTIONAL);
err_unmap_a:
	ib_dma_unmap_single(c->dev, c->abuf_dma, 2 * FT_LEN, DMA_BIDIRECTIONAL);
err_free:
	kfree(c->bbuf);
	kfree(c->abuf);
	return -ENOMEM;
}

static void ft_buffers_free(struct ft_ctx *c)
{
	int i;

	ib_dma_unmap_sg(c->dev, c->sg, FT_PAGES, DMA_BIDIRECTIONAL);
	for (i = 0; i < FT_PAGES; i++)
		__free_page(c->pages[i]);
	ib_dma_unmap_single(c->dev, c->bbuf_dma, PAGE_SIZE, DMA_BIDIRECTIONAL);
	ib_dma_unmap_single(c->dev, c->abuf_dma, 2 * FT_LEN, DMA_BIDIRECTIONAL);
	kfree(c->bbuf);
	kfree(c->abuf);
}

static int ft_run(struct ft_ctx *c)
{
	int i, err, failed = 0;

	pr_info("TAP version 13\n");
	pr_info("1..%zu\n", ARRAY_SIZE(ft_cases));
	for (i = 0; i < ARRAY_SIZE(ft_cases); i++) {
		err = ft_cases[i].run(c);
		if (err)
			failed++;
		pr_info("%s %d %s\n", err ? "not ok" : "ok", i + 1,
			ft_cases[i].name);
	}
	pr_info("# %zu passed, %d failed\n", ARRAY_SIZE(ft_cases) - failed,
		failed);
	return failed ? -EINVAL : 0;
}

static int __init ft_init(void)
{
	struct ft_ctx *c;
	int err;

	if (!ibdev || gid_index < 0) {
		pr_err("ibdev= and gid_index= are required\n");
		return -EINVAL;
	}
	c = kzalloc(sizeof(*c), GFP_KERNEL);
	if (!c)
		return -ENOMEM;
	/* sroce registers with RDMA_DRIVER_UNKNOWN: check the owner instead. */
	c->dev = sroce_ib_device_get_by_name(ibdev);
	if (!c->dev) {
		pr_err("no RDMA device %s\n", ibdev);
		err = -ENODEV;
		goto err_free;
	}
	if (!c->dev->ops.owner || strcmp(module_name(c->dev->ops.owner), "sroce")) {
		pr_err("%s is not a sroce device\n", ibdev);
		err = -ENODEV;
		goto err_put;
	}
	err = rdma_query_gid(c->dev, 1, gid_index, &c->gid);
	if (err) {
		pr_err("%s: no GID %d: %d\n", ibdev, gid_index, err);
		goto err_put;
	}
	c->pd = ib_alloc_pd(c->dev, 0);
	if (IS_ERR(c->pd)) {
		err = PTR_ERR(c->pd);
		pr_err("ib_alloc_pd: %d\n", err);
		goto err_put;
	}
	err = ft_end_create(c, &c->a, "A");
	if (err)
		goto err_pd;
	err = ft_end_create(c, &c->b, "B");
	if (err)
		goto err_a;
	err = ft_buffers(c);
	if (err)
		goto err_b;
	c->mr = ib_alloc_mr(c->pd, IB_MR_TYPE_MEM_REG, FT_PAGES);
	if (IS_ERR(c->mr)) {
		err = PTR_ERR(c->mr);
		pr_err("ib_alloc_mr: %d\n", err);
		goto err_buffers;
	}

	err = ft_run(c);

	ib_dereg_mr(c->mr);
err_buffers:
	ft_buffers_free(c);
err_b:
	ft_end_destroy(&c->b);
err_a:
	ft_end_destroy(&c->a);
err_pd:
	ib_dealloc_pd(c->pd);
err_put:
	ib_device_put(c->dev);
err_free:
	kfree(c);
	return err;
}

static void __exit ft_exit(void)
{
}

module_init(ft_init);
module_exit(ft_exit);
MODULE_DESCRIPTION("Kernel-side test of sroce's fast-registration MRs");
MODULE_LICENSE("GPL");
