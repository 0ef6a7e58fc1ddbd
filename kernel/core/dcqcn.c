// SPDX-License-Identifier: GPL-2.0-only
/*
 * dcqcn.c - DCQCN's reaction point and the transmit pacer (dcqcn.h).
 *
 * A cut: Rt = Rc, Rc = Rc * (1 - alpha / 2). Each increase event after it
 * (a timer period passed, or byte_reset bytes sent) moves Rc halfway to
 * Rt; after F events of either kind Rt also grows: by ai_rate (additive
 * increase), or by (min(T, BC) - F) * hai_rate once both kinds passed F
 * (hyper increase). Every alpha period, alpha = (1 - g) * alpha, plus g
 * if a CNP arrived in it. Back at line rate, the QP is unlimited again
 * and its next cut starts from alpha_init.
 */
#include "dcqcn.h"

/* Rates above 1 Tbit/s or periods under 1 us are no RoCE link's. */
#define DCQCN_RATE_MAX		1000000U
#define DCQCN_PERIOD_MIN	1000ULL
/* One packet carries at most one byte-counter event. */
#define DCQCN_BYTE_RESET_MIN	4096ULL
/*
 * Increase events run one by one up to this many per tick; the rest of a
 * long idle time's events are taken at once as additive increases.
 */
#define DCQCN_EVENTS_MAX	1024

int sroce_dcqcn_params_check(const struct sroce_dcqcn_params *p)
{
	if (!p->min_rate || p->min_rate > p->max_rate ||
	    p->max_rate > DCQCN_RATE_MAX || p->ai_rate > DCQCN_RATE_MAX ||
	    p->hai_rate > DCQCN_RATE_MAX || !p->threshold)
		return -EINVAL;
	if (p->timer_ns < DCQCN_PERIOD_MIN || p->alpha_ns < DCQCN_PERIOD_MIN ||
	    p->byte_reset < DCQCN_BYTE_RESET_MIN)
		return -EINVAL;
	if (!p->alpha_g || p->alpha_g > SROCE_DCQCN_ONE ||
	    p->alpha_init > SROCE_DCQCN_ONE)
		return -EINVAL;
	return 0;
}

void sroce_dcqcn_init(struct sroce_dcqcn *s, const struct sroce_dcqcn_params *p)
{
	memset(s, 0, sizeof(*s));
	s->rate = p->max_rate;
	s->target = p->max_rate;
	s->alpha = p->alpha_init;
}

static void dcqcn_unlimit(struct sroce_dcqcn *s, const struct sroce_dcqcn_params *p)
{
	s->rate = p->max_rate;
	s->target = p->max_rate;
	s->limited = false;
	s->bytes = 0;
}

/* One increase event (timer_ev or byte_ev just counted). */
static void dcqcn_increase(struct sroce_dcqcn *s, const struct sroce_dcqcn_params *p)
{
	u32 hi = max(s->timer_ev, s->byte_ev);
	u32 lo = min(s->timer_ev, s->byte_ev);
	u64 target = s->target;

	if (lo > p->threshold)
		target += (u64)(lo - p->threshold) * p->hai_rate;
	else if (hi >= p->threshold)
		target += p->ai_rate;
	/* below F: fast recovery, Rt stays */
	s->target = min_t(u64, target, p->max_rate);
	/* rounded up, so that Rc reaches Rt */
	s->rate = ((u64)s->rate + s->target + 1) / 2;
	if (s->rate >= p->max_rate)
		dcqcn_unlimit(s, p);
}

bool sroce_dcqcn_cnp(struct sroce_dcqcn *s, const struct sroce_dcqcn_params *p,
		     u64 now)
{
	u64 rate;

	if (!s->limited) {
		/* the first cut of a new episode */
		s->limited = true;
		s->alpha = p->alpha_init;
		s->next_alpha = now + p->alpha_ns;
	} else if ((s64)(now - s->last_cut) < (s64)p->cut_gap_ns) {
		s->cnp_seen = true;
		return false;
	}
	s->cnp_seen = true;
	s->target = s->rate;
	rate = div_u64((u64)s->rate * (2 * SROCE_DCQCN_ONE - s->alpha),
		       2 * SROCE_DCQCN_ONE);
	s->rate = max_t(u64, rate, p->min_rate);
	s->timer_ev = 0;
	s->byte_ev = 0;
	s->bytes = 0;
	s->last_cut = now;
	s->next_timer = now + p->timer_ns;
	return true;
}

/* alpha after one period: (1 - g) * alpha (+ g if a CNP came). */
static u32 dcqcn_alpha(u32 alpha, u32 g, bool cnp)
{
	u32 a = ((u64)alpha * (SROCE_DCQCN_ONE - g)) / SROCE_DCQCN_ONE;

	return cnp ? a + g : a;
}

/* Periods of @period ended by @until, the first ending at *@next (moved on). */
static u64 dcqcn_periods(u64 *next, u64 period, u64 until)
{
	u64 n;

	if ((s64)(until - *next) < 0)
		return 0;
	n = div64_u64(until - *next, period) + 1;
	*next += n * period;
	return n;
}

static void dcqcn_alpha_tick(struct sroce_dcqcn *s, const struct sroce_dcqcn_params *p,
			     u64 now)
{
	u64 n = dcqcn_periods(&s->next_alpha, p->alpha_ns, now);

	if (!n)
		return;
	s->alpha = dcqcn_alpha(s->alpha, p->alpha_g, s->cnp_seen);
	s->cnp_seen = false;
	/* the quiet periods: each takes at least 1 off a non-zero alpha */
	while (--n && s->alpha)
		s->alpha = dcqcn_alpha(s->alpha, p->alpha_g, false);
}

bool sroce_dcqcn_tick(struct sroce_dcqcn *s, const struct sroce_dcqcn_params *p,
		      u64 now)
{
	u32 rate = s->rate;
	u64 n, rest, target;

	if (!s->limited)
		return false;
	dcqcn_alpha_tick(s, p, now);
	n = dcqcn_periods(&s->next_timer, p->timer_ns, now);
	if (!n)
		return false;
	rest = n > DCQCN_EVENTS_MAX ? n - DCQCN_EVENTS_MAX : 0;
	n -= rest;
	while (n-- && s->limited) {
		s->timer_ev++;
		dcqcn_increase(s, p);
	}
	if (rest && s->limited) {
		/* hundreds of events of pure additive increase: Rc is at Rt */
		target = s->target + rest * p->ai_rate;
		s->timer_ev += min_t(u64, rest, U32_MAX - s->timer_ev);
		if (target >= p->max_rate) {
			dcqcn_unlimit(s, p);
		} else {
			s->target = target;
			s->rate = target;
		}
	}
	return s->rate != rate;
}

/* alpha through the periods that end by @until, a CNP in each. */
static void dcqcn_alpha_busy(struct sroce_dcqcn *s, const struct sroce_dcqcn_params *p,
			     u64 until)
{
	u64 n = dcqcn_periods(&s->next_alpha, p->alpha_ns, until);

	if (!n)
		return;
	/* alpha converges on 1 (a few below, with the rounding down) */
	n = min_t(u64, n, DCQCN_EVENTS_MAX);
	while (n--)
		s->alpha = dcqcn_alpha(s->alpha, p->alpha_g, true);
	s->cnp_seen = false;
}

bool sroce_dcqcn_cnps(struct sroce_dcqcn *s, const struct sroce_dcqcn_params *p,
		      u64 first, u64 last, u64 now)
{
	/* what happened before the first: increase events, quiet periods */
	sroce_dcqcn_tick(s, p, first);
	if (s->limited) {
		s->cnp_seen = true;
		dcqcn_alpha_busy(s, p, last);
	}
	return sroce_dcqcn_cnp(s, p, now);
}

bool sroce_dcqcn_sent(struct sroce_dcqcn *s, const struct sroce_dcqcn_params *p,
		      u32 bytes)
{
	u32 rate = s->rate;

	if (!s->limited)
		return false;
	s->bytes += bytes;
	while (s->limited && s->bytes >= p->byte_reset) {
		s->bytes -= p->byte_reset;
		s->byte_ev++;
		dcqcn_increase(s, p);
	}
	return s->rate != rate;
}

u64 sroce_dcqcn_next_due(const struct sroce_dcqcn *s)
{
	return (s64)(s->next_timer - s->next_alpha) < 0 ? s->next_timer : s->next_alpha;
}

u64 sroce_pace_cost(u32 bytes, u32 rate)
{
	/* bits / (Mbit/s) = us; times 1000 for ns */
	return div_u64((u64)bytes * 8000, max_t(u32, rate, 1));
}

u64 sroce_pace_next(u64 *next, u64 now, u64 cost, u64 burst)
{
	s64 early = (s64)(*next - now);

	if (early > 0)
		return early;
	/* behind schedule by more than @burst: the lag is forgotten */
	if ((u64)-early > burst)
		*next = now - burst;
	*next += cost;
	return 0;
}
