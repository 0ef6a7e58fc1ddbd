// SPDX-License-Identifier: GPL-2.0-only
/*
 * sroce congestion control: DCQCN's reaction point in the requester
 * (sroce_cc.h). The algorithm is core/dcqcn.c; this file holds its
 * module parameters, the CNP hand-over from the receive path and the
 * pacer's timer.
 */
#include <linux/ethtool.h>
#include <linux/hrtimer.h>
#include <linux/ktime.h>
#include <linux/rtnetlink.h>
#include <linux/moduleparam.h>
#include <linux/slab.h>
#include <rdma/ib_verbs.h>

#include "sroce_cc.h"
#include "sroce_qp.h"
#include "sroce_trace.h"
#include "sroce_work.h"
#include "dcqcn.h"
#include "timers.h"

/*
 * The defaults are those of the DCQCN paper and of RoCE NICs
 * (mlx5's rpg_* and dce_tcp_* settings); read when a QP enters RTS.
 */
static bool dcqcn = true;
module_param(dcqcn, bool, 0644);
MODULE_PARM_DESC(dcqcn,
		 "Lower a QP's send rate when CNPs arrive for it (DCQCN; default on)");

static uint dcqcn_ai_mbps = 5;
module_param(dcqcn_ai_mbps, uint, 0644);
MODULE_PARM_DESC(dcqcn_ai_mbps, "DCQCN additive increase, Mbit/s (default 5)");

static uint dcqcn_hai_mbps = 50;
module_param(dcqcn_hai_mbps, uint, 0644);
MODULE_PARM_DESC(dcqcn_hai_mbps, "DCQCN hyper increase, Mbit/s (default 50)");

static uint dcqcn_min_mbps = 10;
module_param(dcqcn_min_mbps, uint, 0644);
MODULE_PARM_DESC(dcqcn_min_mbps, "DCQCN lowest rate, Mbit/s (default 10)");

static uint dcqcn_threshold = 5;
module_param(dcqcn_threshold, uint, 0644);
MODULE_PARM_DESC(dcqcn_threshold,
		 "DCQCN increase events before additive increase (F, default 5)");

static uint dcqcn_timer_us = 300;
module_param(dcqcn_timer_us, uint, 0644);
MODULE_PARM_DESC(dcqcn_timer_us, "DCQCN rate increase timer, us (default 300)");

static uint dcqcn_byte_kb = 2048;
module_param(dcqcn_byte_kb, uint, 0644);
MODULE_PARM_DESC(dcqcn_byte_kb,
		 "DCQCN rate increase every this many KiB sent (default 2048)");

static uint dcqcn_alpha_us = 55;
module_param(dcqcn_alpha_us, uint, 0644);
MODULE_PARM_DESC(dcqcn_alpha_us, "DCQCN alpha update period, us (default 55)");

static uint dcqcn_g = 4;
module_param(dcqcn_g, uint, 0644);
MODULE_PARM_DESC(dcqcn_g, "DCQCN alpha gain g, in 1/1024ths (default 4)");

static uint dcqcn_cut_gap_us = 4;
module_param(dcqcn_cut_gap_us, uint, 0644);
MODULE_PARM_DESC(dcqcn_cut_gap_us,
		 "DCQCN least time between two rate cuts, us (default 4)");

/*
 * How far the pacer may fall behind before it forgets the lag: after an
 * idle time at most this much wire time goes back to back.
 */
#define SROCE_PACE_BURST_NS	(50 * NSEC_PER_USEC)

/* A link that reports no speed (virtio-net, tun) is taken as 10 Gbit/s. */
#define SROCE_CC_DEFAULT_MBPS	10000

u32 sroce_cc_line_mbps(struct sroce_dev *sdev)
{
	/* held for the device's life (ib_device_set_netdev(), sroce.h) */
	struct net_device *ndev = sdev->ndev;
	struct ethtool_link_ksettings ks = {};
	int err;

	rtnl_lock();
	err = __ethtool_get_link_ksettings(ndev, &ks);
	rtnl_unlock();
	if (err || !ks.base.speed || ks.base.speed == (u32)SPEED_UNKNOWN)
		return SROCE_CC_DEFAULT_MBPS;
	return ks.base.speed;
}

static enum hrtimer_restart sroce_cc_pace_timer(struct hrtimer *t)
{
	struct sroce_qp *qp = container_of(t, struct sroce_rp, pace_timer)->qp;

	trace_sroce_timer_expire(qp, SROCE_TIMER_PACE, 0);
	sroce_qp_schedule(qp);
	return HRTIMER_NORESTART;
}

int sroce_cc_init(struct sroce_qp *qp)
{
	struct sroce_rp *rp;

	qp->rp = NULL;
	/* UD has no one connection to pace; an XRC target sends no requests. */
	if (qp->type == SROCE_QPT_UD || qp->type == SROCE_QPT_XRC_TGT)
		return 0;
	rp = kzalloc(sizeof(*rp), GFP_KERNEL);
	if (!rp)
		return -ENOMEM;
	rp->qp = qp;
	hrtimer_setup(&rp->pace_timer, sroce_cc_pace_timer, CLOCK_MONOTONIC,
		      HRTIMER_MODE_REL_SOFT);
	qp->rp = rp;
	return 0;
}

void sroce_cc_free(struct sroce_qp *qp)
{
	if (!qp->rp)
		return;
	hrtimer_cancel(&qp->rp->pace_timer);
	kfree(qp->rp);
	qp->rp = NULL;
}

void sroce_cc_start(struct sroce_qp *qp, u32 line_mbps)
{
	struct sroce_rp *rp = qp->rp;
	struct sroce_dcqcn_params *p;

	if (!rp)
		return;
	p = &rp->p;
	atomic_set(&rp->cnp_pending, 0);
	rp->on = false;
	rp->pace_next = 0;
	rp->ackreq_ns = 0;
	/* A link of unknown speed has no rate to pace at. */
	if (!READ_ONCE(dcqcn) || !line_mbps)
		return;
	*p = (struct sroce_dcqcn_params) {
		.max_rate = line_mbps,
		.min_rate = READ_ONCE(dcqcn_min_mbps),
		.ai_rate = READ_ONCE(dcqcn_ai_mbps),
		.hai_rate = READ_ONCE(dcqcn_hai_mbps),
		.threshold = READ_ONCE(dcqcn_threshold),
		.timer_ns = (u64)READ_ONCE(dcqcn_timer_us) * NSEC_PER_USEC,
		.byte_reset = (u64)READ_ONCE(dcqcn_byte_kb) * 1024,
		.alpha_ns = (u64)READ_ONCE(dcqcn_alpha_us) * NSEC_PER_USEC,
		.alpha_g = READ_ONCE(dcqcn_g),
		.alpha_init = SROCE_DCQCN_ONE,
		.cut_gap_ns = (u64)READ_ONCE(dcqcn_cut_gap_us) * NSEC_PER_USEC,
	};
	if (sroce_dcqcn_params_check(p)) {
		ibdev_warn_ratelimited(&qp->sdev->ibdev,
				       "qp#%u: DCQCN parameters out of range (min rate above %u Mbit/s line rate, a zero period or gain?): no rate control\n",
				       qp->qpn, line_mbps);
		return;
	}
	sroce_dcqcn_init(&rp->cc, p);
	rp->on = true;
}

void sroce_cc_stop(struct sroce_qp *qp)
{
	if (qp->rp)
		hrtimer_cancel(&qp->rp->pace_timer);
}

void sroce_cc_rates(const struct sroce_qp *qp, u32 *rate, u32 *target)
{
	const struct sroce_rp *rp = qp->rp;

	if (rp && rp->on) {
		*rate = rp->cc.rate;
		*target = rp->cc.target;
	}
}

void sroce_cc_cnp(struct sroce_qp *qp)
{
	struct sroce_rp *rp = qp->rp;
	u64 now;

	if (!rp || !READ_ONCE(dcqcn))
		return;
	now = ktime_get_ns();
	if (!atomic_read(&rp->cnp_pending))
		WRITE_ONCE(rp->cnp_first_ns, now);
	WRITE_ONCE(rp->cnp_last_ns, now);
	/* the times before the flag: pairs with the owner's atomic_xchg() */
	smp_mb__before_atomic();
	atomic_set(&rp->cnp_pending, 1);
	sroce_qp_schedule(qp);
}

void sroce_cc_take_cnps(struct sroce_qp *qp)
{
	struct sroce_rp *rp = qp->rp;
	u64 first, last, now;

	if (!rp || !atomic_read(&rp->cnp_pending) ||
	    !atomic_xchg(&rp->cnp_pending, 0))
		return;
	if (!rp->on)
		return;
	now = ktime_get_ns();
	last = min(READ_ONCE(rp->cnp_last_ns), now);
	first = min(READ_ONCE(rp->cnp_first_ns), last);
	if (sroce_dcqcn_cnps(&rp->cc, &rp->p, first, last, now)) {
		sroce_count(qp->sdev, SROCE_CNT_RP_RATE_CUT);
		trace_sroce_cc_rate(qp, rp->cc.rate, rp->cc.target,
				    rp->cc.alpha, true);
	}
}

/* Paced: the rate is below the line rate. */
static bool sroce_cc_paced(const struct sroce_qp *qp)
{
	return qp->rp && qp->rp->on && qp->rp->cc.limited;
}

bool sroce_cc_must_wait(struct sroce_qp *qp, u32 bytes)
{
	struct sroce_rp *rp = qp->rp;
	struct sroce_dcqcn *s;
	u64 now, wait;

	if (!sroce_cc_paced(qp))
		return false;
	s = &rp->cc;
	now = ktime_get_ns();
	if (sroce_dcqcn_tick(s, &rp->p, now))
		trace_sroce_cc_rate(qp, s->rate, s->target, s->alpha, false);
	if (!s->limited)
		return false;
	wait = sroce_pace_next(&rp->pace_next, now,
			       sroce_pace_cost(bytes, s->rate),
			       SROCE_PACE_BURST_NS);
	if (!wait) {
		if (sroce_dcqcn_sent(s, &rp->p, bytes))
			trace_sroce_cc_rate(qp, s->rate, s->target, s->alpha, false);
		return false;
	}
	sroce_count(qp->sdev, SROCE_CNT_RP_PACED);
	if (!hrtimer_is_queued(&rp->pace_timer)) {
		trace_sroce_timer_arm(qp, SROCE_TIMER_PACE, wait);
		hrtimer_start(&rp->pace_timer, ns_to_ktime(wait),
			      HRTIMER_MODE_REL_SOFT);
	}
	return true;
}

/*
 * Paced, a QP can need longer than its local ACK timeout to send the
 * packets between two AckReqs (up to 64, or the rest of a message): the
 * timer would fire with nothing lost and go back for nothing. Ask for an
 * ACK once a quarter of the timeout has passed since the last request.
 */
bool sroce_cc_ack_due(struct sroce_qp *qp)
{
	u64 timeout_ns;

	if (!sroce_cc_paced(qp))
		return false;
	timeout_ns = sroce_ack_timeout_ns(qp->attr.timeout);
	return timeout_ns != SROCE_TIMEOUT_INFINITE &&
	       ktime_get_ns() - qp->rp->ackreq_ns >= timeout_ns / 4;
}

/*
 * Only a paced QP reads the time: unlimited, it would cost a clock read
 * per message. The first paced packet then finds the AckReq due.
 */
void sroce_cc_ackreq_sent(struct sroce_qp *qp)
{
	if (sroce_cc_paced(qp))
		qp->rp->ackreq_ns = ktime_get_ns();
}
