// SPDX-License-Identifier: GPL-2.0-only
/*
 * sroce driver attributes of "rdma resource show qp|cq|mr|srq": the
 * fill_res_*_entry hooks of the RDMA core's resource tracking. The core
 * calls one per object while it dumps them (nldev), in process context,
 * holding a restrack reference: destroying the object waits for it
 * (rdma_restrack_begin_del() before destroy_qp, destroy_cq and
 * destroy_srq, rdma_restrack_del() before dereg_mr), so the object and
 * everything it owns outlive the call. iproute2 prints the attributes
 * with "-dd" and in "-j" output. Each is a snapshot: the queues go on
 * moving while the dump runs. Names and meaning:
 * Documentation/observability.md.
 */
#include <rdma/ib_umem_odp.h>
#include <rdma/ib_verbs.h>
#include <rdma/restrack.h>
#include <uapi/rdma/rdma_netlink.h>

#include "sroce.h"
#include "sroce_cc.h"
#include "sroce_cq.h"
#include "sroce_exec.h"
#include "sroce_mr.h"
#include "sroce_qp.h"
#include "sroce_restrack.h"
#include "sroce_srq.h"

/* One driver attribute: a string if @str is set, else the u32 @value. */
struct sroce_attr {
	const char *name;
	const char *str;
	u32 value;
};

#define SROCE_ATTR_MAX	16

struct sroce_attrs {
	unsigned int n;
	struct sroce_attr a[SROCE_ATTR_MAX];
};

static void sroce_attr_u32(struct sroce_attrs *t, const char *name, u32 value)
{
	if (!WARN_ON_ONCE(t->n >= SROCE_ATTR_MAX))
		t->a[t->n++] = (struct sroce_attr){ .name = name, .value = value };
}

static void sroce_attr_str(struct sroce_attrs *t, const char *name,
			   const char *str)
{
	if (!WARN_ON_ONCE(t->n >= SROCE_ATTR_MAX))
		t->a[t->n++] = (struct sroce_attr){ .name = name, .str = str };
}

/* The attributes as the object's RDMA_NLDEV_ATTR_DRIVER table. */
static int sroce_attrs_put(struct sk_buff *msg, const struct sroce_attrs *t)
{
	struct nlattr *table;
	unsigned int i;
	int err = 0;

	table = nla_nest_start(msg, RDMA_NLDEV_ATTR_DRIVER);
	if (!table)
		return -EMSGSIZE;
	for (i = 0; i < t->n && !err; i++) {
		const struct sroce_attr *a = &t->a[i];

		err = a->str ? rdma_nl_put_driver_string(msg, a->name, a->str) :
			       rdma_nl_put_driver_u32(msg, a->name, a->value);
	}
	if (err) {
		nla_nest_cancel(msg, table);
		return -EMSGSIZE;
	}
	nla_nest_end(msg, table);
	return 0;
}

/*
 * Entries between a consumer and a producer index, one of them written by
 * user space: an impossible difference (a broken or hostile producer,
 * which the engines fail on) is shown as full.
 */
static u32 sroce_ring_fill(u32 prod, u32 cons, u32 slots)
{
	return min(prod - cons, slots);
}

/*
 * The QP's engine state is written by the engines' owner with plain
 * stores (sroce_exec.c); it is read here with the engines held, as
 * query_qp reads it. That is safe in this context: the core's dump has
 * just called ib_query_qp() for this QP, which takes them the same way
 * (process context, no lock held; the owner never sleeps while it holds
 * them, so the wait is short). The QP cannot be destroyed meanwhile (the
 * dump's restrack reference), and nothing it owns is freed by a state
 * change: RESET resets the rings' indices and the engines, it frees
 * neither.
 */
static int sroce_fill_res_qp_entry(struct sk_buff *msg, struct ib_qp *ibqp)
{
	struct sroce_qp *qp = to_sroce_qp(ibqp);
	u32 sq_slots = sroce_ring_slots(&qp->sq);
	struct sroce_attrs t = {};
	u32 sq_fill, send_psn, una_psn, epsn;
	u8 retry_left, rnr_left;
	u32 cc_rate = 0, cc_target = 0;
	bool rnr_wait;

	sroce_engine_lock(qp);
	/* Posted (published by the producer), not yet completed. */
	sq_fill = sroce_ring_fill(READ_ONCE(qp->sq.hdr->prod), qp->comp.tail,
				  sq_slots);
	send_psn = qp->req.psn;
	una_psn = qp->comp.psn;
	epsn = qp->resp.epsn;
	retry_left = qp->comp.retry_left;
	rnr_left = qp->comp.rnr_left;
	rnr_wait = qp->req.rnr_wait;
	sroce_cc_rates(qp, &cc_rate, &cc_target);
	sroce_engine_unlock(qp);

	sroce_attr_u32(&t, "sq_depth", sq_slots);
	sroce_attr_u32(&t, "sq_fill", sq_fill);
	if (qp->has_rq) {
		sroce_attr_u32(&t, "rq_depth", sroce_ring_slots(&qp->rq.ring));
		sroce_attr_u32(&t, "rq_fill", sroce_rq_count(&qp->rq));
	}
	sroce_attr_u32(&t, "send_psn", send_psn);
	if (sroce_qp_reliable(qp))
		sroce_attr_u32(&t, "unacked_psn", una_psn);
	if (qp->type != SROCE_QPT_UD)
		sroce_attr_u32(&t, "expected_psn", epsn);
	if (sroce_qp_reliable(qp)) {
		sroce_attr_u32(&t, "retry_left", retry_left);
		sroce_attr_u32(&t, "rnr_retry_left", rnr_left);
		sroce_attr_u32(&t, "rnr_wait", rnr_wait);
	}
	/* DCQCN (sroce_cc.c): the send rate now and the one it recovers to */
	if (cc_rate) {
		sroce_attr_u32(&t, "cc_rate_mbps", cc_rate);
		sroce_attr_u32(&t, "cc_target_mbps", cc_target);
	}
	return sroce_attrs_put(msg, &t);
}

static int sroce_fill_res_cq_entry(struct sk_buff *msg, struct ib_cq *ibcq)
{
	struct sroce_cq *cq = to_sroce_cq(ibcq);
	struct sroce_attrs t = {};
	u32 slots, fill;
	unsigned long flags;
	bool error;

	/* cq->lock: a resize swaps the ring. */
	spin_lock_irqsave(&cq->lock, flags);
	slots = sroce_ring_slots(&cq->ring);
	fill = sroce_ring_fill(cq->ring.prod,
			       cq->user ? READ_ONCE(cq->ring.hdr->cons) :
					  cq->ring.cons, slots);
	error = cq->error;
	spin_unlock_irqrestore(&cq->lock, flags);

	sroce_attr_u32(&t, "cq_depth", slots);
	sroce_attr_u32(&t, "cq_fill", fill);
	sroce_attr_u32(&t, "overflow", error);
	return sroce_attrs_put(msg, &t);
}

static int __maybe_unused sroce_fill_res_srq_entry(struct sk_buff *msg,
						   struct ib_srq *ibsrq)
{
	struct sroce_rq *rq = &to_sroce_srq(ibsrq)->rq;
	struct sroce_attrs t = {};
	unsigned long flags;
	u32 limit;

	spin_lock_irqsave(&rq->lock, flags);
	limit = rq->limit;
	spin_unlock_irqrestore(&rq->lock, flags);

	sroce_attr_u32(&t, "srq_depth", sroce_ring_slots(&rq->ring));
	sroce_attr_u32(&t, "srq_fill", sroce_rq_count(rq));
	sroce_attr_u32(&t, "srq_limit", limit);
	return sroce_attrs_put(msg, &t);
}

static const char *const sroce_mr_type_names[] = {
	[SROCE_MR_USER] = "pinned",
	[SROCE_MR_DMA] = "dma",
	[SROCE_MR_FAST] = "fast",
	[SROCE_MR_ODP] = "odp",
};

static int sroce_fill_res_mr_entry(struct sk_buff *msg, struct ib_mr *ibmr)
{
	struct sroce_mr *mr = to_sroce_mr(ibmr);
	struct sroce_attrs t = {};
	bool implicit;
	u32 n;

	if (mr->type >= ARRAY_SIZE(sroce_mr_type_names))
		return 0;
	sroce_attr_str(&t, "mr_type", sroce_mr_type_names[mr->type]);
	if (mr->type == SROCE_MR_ODP) {
		/* mr->odp is constant after registration. */
		implicit = mr->odp->is_implicit_odp;
		sroce_attr_str(&t, "odp", implicit ? "implicit" : "explicit");
		if (implicit) {
			mutex_lock(&mr->odp_child_lock);
			n = mr->odp_nchildren;
			mutex_unlock(&mr->odp_child_lock);
			sroce_attr_u32(&t, "odp_children", n);
		}
	}
	n = max(atomic_read(&mr->num_mw), 0);
	sroce_attr_u32(&t, "bound_mws", n);
	return sroce_attrs_put(msg, &t);
}

const struct ib_device_ops sroce_restrack_ops = {
	.fill_res_cq_entry = sroce_fill_res_cq_entry,
	.fill_res_mr_entry = sroce_fill_res_mr_entry,
	.fill_res_qp_entry = sroce_fill_res_qp_entry,
	SROCE_OP_FILL_RES_SRQ_ENTRY(sroce_fill_res_srq_entry)
};
