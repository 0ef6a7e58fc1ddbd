/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * dcqcn.h - the reaction point of DCQCN congestion control (Zhu et al.,
 * SIGCOMM 2015; the algorithm RoCE NICs run): a requester QP's send rate,
 * cut when a CNP arrives and recovered by timer and byte-counter events.
 *
 * All of it is arithmetic on a per-QP state with the time passed in (ns,
 * monotonic): the caller holds the QP's send lock and owns the timers.
 * Rates are in Mbit/s; alpha is a fraction in 1/1024ths.
 */
#ifndef SROCE_CORE_DCQCN_H
#define SROCE_CORE_DCQCN_H

#include "core_types.h"

#define SROCE_DCQCN_ONE		1024	/* alpha 1.0 */

/**
 * struct sroce_dcqcn_params - the reaction point's tunables
 * @max_rate:      line rate, Mbit/s: an unlimited QP sends at it
 * @min_rate:      no cut goes below this, Mbit/s (at least 1)
 * @ai_rate:       additive increase of the target rate, Mbit/s
 * @hai_rate:      hyper increase step, Mbit/s
 * @threshold:     F: increase events before additive, then hyper increase
 * @timer_ns:      a timer increase event every this long since the cut
 * @byte_reset:    a byte-counter increase event every this many bytes sent
 * @alpha_ns:      alpha decays every this long without a CNP
 * @alpha_g:       alpha's gain g, in 1/1024ths (1 to 1024)
 * @alpha_init:    alpha at the first cut, in 1/1024ths (at most 1024)
 * @cut_gap_ns:    least time between two cuts: CNPs within it only raise
 *                 alpha
 */
struct sroce_dcqcn_params {
	u32 max_rate;
	u32 min_rate;
	u32 ai_rate;
	u32 hai_rate;
	u32 threshold;
	u64 timer_ns;
	u64 byte_reset;
	u64 alpha_ns;
	u32 alpha_g;
	u32 alpha_init;
	u64 cut_gap_ns;
};

/**
 * struct sroce_dcqcn - one requester QP's reaction point
 * @rate:       the current rate (Rc), Mbit/s
 * @target:     the target rate (Rt) it recovers towards, Mbit/s
 * @alpha:      the congestion estimate, 1/1024ths
 * @timer_ev:   timer increase events since the last cut (T)
 * @byte_ev:    byte-counter increase events since the last cut (BC)
 * @bytes:      bytes sent since the last byte-counter event
 * @last_cut:   when the rate was last cut (ns)
 * @next_timer: when the next timer increase event is due (ns)
 * @next_alpha: when alpha is next decayed (ns)
 * @cnp_seen:   a CNP arrived in the current alpha period
 * @limited:    the rate is below @max_rate: pacing is on
 */
struct sroce_dcqcn {
	u32 rate;
	u32 target;
	u32 alpha;
	u32 timer_ev;
	u32 byte_ev;
	u64 bytes;
	u64 last_cut;
	u64 next_timer;
	u64 next_alpha;
	bool cnp_seen;
	bool limited;
};

/**
 * sroce_dcqcn_params_check() - are @p usable?
 * @p: the tunables
 *
 * Return: 0, or -EINVAL if a rate, period or gain is out of range (a zero
 * period or min_rate above max_rate).
 */
int sroce_dcqcn_params_check(const struct sroce_dcqcn_params *p);

/**
 * sroce_dcqcn_init() - an unlimited QP: at line rate, nothing to recover
 * @s: the state
 * @p: valid tunables
 */
void sroce_dcqcn_init(struct sroce_dcqcn *s, const struct sroce_dcqcn_params *p);

/**
 * sroce_dcqcn_cnp() - a CNP arrived for this QP
 * @s:   the state
 * @p:   the tunables
 * @now: the time now (ns)
 *
 * Raises alpha, and cuts the rate (Rt = Rc, Rc *= 1 - alpha/2) unless the
 * last cut was less than @p->cut_gap_ns ago.
 *
 * Return: true if the rate was cut.
 */
bool sroce_dcqcn_cnp(struct sroce_dcqcn *s, const struct sroce_dcqcn_params *p,
		     u64 now);

/**
 * sroce_dcqcn_cnps() - CNPs that arrived from @first to @last, taken at @now
 * @s:     the state
 * @p:     the tunables
 * @first: when the first of them arrived (ns)
 * @last:  when the last of them arrived (ns), @first <= @last <= @now
 * @now:   the time now (ns)
 *
 * A requester takes the CNPs that arrived since its last run at once.
 * Up to @first, time passes as sroce_dcqcn_tick() has it; each alpha
 * period from @first to @last counts as one with a CNP, as if they had
 * been taken one by one; then the rate is cut as sroce_dcqcn_cnp() does.
 *
 * Return: true if the rate was cut.
 */
bool sroce_dcqcn_cnps(struct sroce_dcqcn *s, const struct sroce_dcqcn_params *p,
		      u64 first, u64 last, u64 now);

/**
 * sroce_dcqcn_tick() - the timers: alpha decay and timer increase events
 * @s:   the state
 * @p:   the tunables
 * @now: the time now (ns)
 *
 * Runs every alpha period and timer event due by @now, however late
 * (after a long idle time the QP is back at line rate).
 *
 * Return: true if the rate changed.
 */
bool sroce_dcqcn_tick(struct sroce_dcqcn *s, const struct sroce_dcqcn_params *p,
		      u64 now);

/**
 * sroce_dcqcn_sent() - count bytes the QP sent while limited
 * @s:     the state
 * @p:     the tunables
 * @bytes: bytes just sent
 *
 * Return: true if a byte-counter event changed the rate.
 */
bool sroce_dcqcn_sent(struct sroce_dcqcn *s, const struct sroce_dcqcn_params *p,
		      u32 bytes);

/**
 * sroce_dcqcn_next_due() - when the next timer or alpha event is due
 * @s: the state, limited
 *
 * Return: the earlier of the two (ns); the caller arms its timer for it.
 */
u64 sroce_dcqcn_next_due(const struct sroce_dcqcn *s);

/**
 * sroce_pace_cost() - wire time of @bytes at @rate
 * @bytes: packet bytes
 * @rate:  Mbit/s, at least 1
 *
 * Return: ns.
 */
u64 sroce_pace_cost(u32 bytes, u32 rate);

/**
 * sroce_pace_next() - the pacer: may a packet go now, and when the next
 * @next:  in: when the next packet may go (ns); out: updated if it went
 * @now:   the time now (ns)
 * @cost:  this packet's wire time (sroce_pace_cost())
 * @burst: how far behind schedule the pacer may fall before it forgets
 *         the lag (ns): a burst of about @burst's worth of packets may go
 *         back to back after an idle time, no more
 *
 * Return: 0 if the packet goes now (and @next moved on by @cost), else the
 * ns to wait.
 */
u64 sroce_pace_next(u64 *next, u64 now, u64 cost, u64 burst);

#endif /* SROCE_CORE_DCQCN_H */
