// SPDX-License-Identifier: GPL-2.0-only
/*
 * Host tests for kernel/core/dcqcn.c: DCQCN's reaction point (rate cut on
 * a CNP, fast recovery, additive and hyper increase, alpha) and the
 * transmit pacer (issue 21 section 3).
 */
#include "harness.h"
#include "dcqcn.h"

#define US	1000ULL
#define MS	(1000 * US)

/* A 10 Gbit/s link with the usual RoCE NIC defaults. */
static const struct sroce_dcqcn_params p10g = {
	.max_rate = 10000,
	.min_rate = 10,
	.ai_rate = 5,
	.hai_rate = 50,
	.threshold = 5,
	.timer_ns = 300 * US,
	.byte_reset = 1 << 21,
	.alpha_ns = 55 * US,
	.alpha_g = 4,
	.alpha_init = SROCE_DCQCN_ONE,
	.cut_gap_ns = 4 * US,
};

/* @n CNPs 10 us apart from @t (each past the cut gap); the last one's time. */
static u64 cut_n(struct sroce_dcqcn *s, u64 t, int n)
{
	int i;

	for (i = 0; i < n; i++)
		sroce_dcqcn_cnp(s, &p10g, t + i * 10 * US);
	return t + (n - 1) * 10 * US;
}

TEST(params_valid)
{
	struct sroce_dcqcn_params p = p10g;

	ASSERT_EQ(sroce_dcqcn_params_check(&p), 0);
	p.min_rate = 0;
	ASSERT_EQ(sroce_dcqcn_params_check(&p), -EINVAL);
	p = p10g;
	p.min_rate = p.max_rate + 1;
	ASSERT_EQ(sroce_dcqcn_params_check(&p), -EINVAL);
	p = p10g;
	p.timer_ns = 0;
	ASSERT_EQ(sroce_dcqcn_params_check(&p), -EINVAL);
	p = p10g;
	p.alpha_ns = 999;
	ASSERT_EQ(sroce_dcqcn_params_check(&p), -EINVAL);
	p = p10g;
	p.byte_reset = 4095;
	ASSERT_EQ(sroce_dcqcn_params_check(&p), -EINVAL);
	p = p10g;
	p.alpha_g = 0;
	ASSERT_EQ(sroce_dcqcn_params_check(&p), -EINVAL);
	p.alpha_g = SROCE_DCQCN_ONE + 1;
	ASSERT_EQ(sroce_dcqcn_params_check(&p), -EINVAL);
	p = p10g;
	p.alpha_init = SROCE_DCQCN_ONE + 1;
	ASSERT_EQ(sroce_dcqcn_params_check(&p), -EINVAL);
	p = p10g;
	p.threshold = 0;
	ASSERT_EQ(sroce_dcqcn_params_check(&p), -EINVAL);
	p = p10g;
	p.max_rate = 1000001;
	ASSERT_EQ(sroce_dcqcn_params_check(&p), -EINVAL);
}

TEST(unlimited_until_a_cnp)
{
	struct sroce_dcqcn s;

	sroce_dcqcn_init(&s, &p10g);
	ASSERT_FALSE(s.limited);
	ASSERT_EQ(s.rate, 10000U);
	/* timers and traffic change nothing on an unlimited QP */
	ASSERT_FALSE(sroce_dcqcn_tick(&s, &p10g, 10 * MS));
	ASSERT_FALSE(sroce_dcqcn_sent(&s, &p10g, 4096));
	ASSERT_EQ(s.rate, 10000U);
	ASSERT_EQ(s.bytes, 0U);
}

TEST(first_cut_halves)
{
	struct sroce_dcqcn s;

	sroce_dcqcn_init(&s, &p10g);
	ASSERT_TRUE(sroce_dcqcn_cnp(&s, &p10g, 1 * MS));
	ASSERT_TRUE(s.limited);
	/* alpha 1: Rc * (1 - 1/2), Rt = the old Rc */
	ASSERT_EQ(s.rate, 5000U);
	ASSERT_EQ(s.target, 10000U);
	ASSERT_EQ(s.next_timer, 1 * MS + 300 * US);
	ASSERT_EQ(s.next_alpha, 1 * MS + 55 * US);
}

TEST(cnps_within_the_gap_do_not_cut)
{
	struct sroce_dcqcn s;

	sroce_dcqcn_init(&s, &p10g);
	ASSERT_TRUE(sroce_dcqcn_cnp(&s, &p10g, 1 * MS));
	ASSERT_FALSE(sroce_dcqcn_cnp(&s, &p10g, 1 * MS + 3 * US));
	ASSERT_EQ(s.rate, 5000U);
	ASSERT_TRUE(s.cnp_seen);
	/* at the gap: the second cut, Rt = 5000 */
	ASSERT_TRUE(sroce_dcqcn_cnp(&s, &p10g, 1 * MS + 4 * US));
	ASSERT_EQ(s.rate, 2500U);
	ASSERT_EQ(s.target, 5000U);
}

TEST(cut_stops_at_min_rate)
{
	struct sroce_dcqcn s;

	sroce_dcqcn_init(&s, &p10g);
	cut_n(&s, 1 * MS, 20);
	ASSERT_EQ(s.rate, p10g.min_rate);
	ASSERT_TRUE(s.limited);
}

TEST(alpha_rises_with_cnps_and_decays_without)
{
	struct sroce_dcqcn_params p = p10g;
	struct sroce_dcqcn s;
	u32 a;
	int i;

	p.alpha_init = 512;
	sroce_dcqcn_init(&s, &p);
	sroce_dcqcn_cnp(&s, &p, 0);
	ASSERT_EQ(s.alpha, 512U);
	/* a period with a CNP: (1 - g) * a + g */
	sroce_dcqcn_tick(&s, &p, 55 * US);
	ASSERT_EQ(s.alpha, 512U * 1020 / 1024 + 4);
	a = s.alpha;
	/* a quiet period: (1 - g) * a */
	sroce_dcqcn_tick(&s, &p, 110 * US);
	ASSERT_EQ(s.alpha, a * 1020 / 1024);
	/* ten quiet periods at once, as ten one by one */
	a = s.alpha;
	for (i = 0; i < 10; i++)
		a = a * 1020 / 1024;
	sroce_dcqcn_tick(&s, &p, 110 * US + 10 * 55 * US);
	ASSERT_EQ(s.alpha, a);
	ASSERT_EQ(s.next_alpha, 110 * US + 11 * 55 * US);
}

TEST(alpha_sets_the_cut)
{
	struct sroce_dcqcn_params p = p10g;
	struct sroce_dcqcn s;

	p.alpha_init = 256;	/* a quarter: Rc * (1 - 1/8) */
	sroce_dcqcn_init(&s, &p);
	sroce_dcqcn_cnp(&s, &p, 0);
	ASSERT_EQ(s.rate, 8750U);
}

TEST(fast_recovery_then_additive_increase)
{
	struct sroce_dcqcn s;
	u64 t0 = 1 * MS;
	u32 rate = 5000;
	int i;

	sroce_dcqcn_init(&s, &p10g);
	sroce_dcqcn_cnp(&s, &p10g, t0);
	/* F - 1 timer events: Rc halfway to Rt each, Rt stays */
	for (i = 1; i < 5; i++) {
		ASSERT_TRUE(sroce_dcqcn_tick(&s, &p10g, t0 + i * 300 * US));
		rate = (rate + 10000 + 1) / 2;
		ASSERT_EQ(s.rate, rate);
		ASSERT_EQ(s.target, 10000U);
		ASSERT_EQ(s.timer_ev, (u32)i);
	}
	/* F = 5 and on: Rt capped at the line rate, so Rc still halves its gap */
	sroce_dcqcn_tick(&s, &p10g, t0 + 5 * 300 * US);
	ASSERT_EQ(s.target, 10000U);
	ASSERT_EQ(s.rate, (rate + 10000 + 1) / 2);
}

TEST(additive_increase_raises_the_target)
{
	struct sroce_dcqcn s;
	u64 t0 = 1 * MS, t;
	int i;

	sroce_dcqcn_init(&s, &p10g);
	sroce_dcqcn_cnp(&s, &p10g, t0);
	/* a second cut lowers Rt to 5000 */
	sroce_dcqcn_cnp(&s, &p10g, t0 + 10 * US);
	t0 += 10 * US;
	ASSERT_EQ(s.target, 5000U);
	for (i = 1; i <= 4; i++)
		sroce_dcqcn_tick(&s, &p10g, t0 + i * 300 * US);
	ASSERT_EQ(s.target, 5000U);
	/* the 5th to 7th events: + ai each (BC is 0: no hyper increase) */
	for (i = 5, t = t0 + 5 * 300 * US; i <= 7; i++, t += 300 * US)
		sroce_dcqcn_tick(&s, &p10g, t);
	ASSERT_EQ(s.target, 5015U);
	ASSERT_EQ(s.timer_ev, 7U);
	ASSERT_EQ(s.byte_ev, 0U);
}

TEST(byte_counter_events)
{
	struct sroce_dcqcn s;
	u32 rate;

	sroce_dcqcn_init(&s, &p10g);
	sroce_dcqcn_cnp(&s, &p10g, 0);
	rate = s.rate;
	/* 2 MiB - 1: no event yet */
	ASSERT_FALSE(sroce_dcqcn_sent(&s, &p10g, (1 << 21) - 1));
	ASSERT_EQ(s.byte_ev, 0U);
	ASSERT_TRUE(sroce_dcqcn_sent(&s, &p10g, 1));
	ASSERT_EQ(s.byte_ev, 1U);
	ASSERT_EQ(s.bytes, 0U);
	ASSERT_EQ(s.rate, (rate + 10000 + 1) / 2);
}

TEST(hyper_increase_when_both_counters_pass_f)
{
	struct sroce_dcqcn s;
	u64 t0 = 0;
	int i;

	sroce_dcqcn_init(&s, &p10g);
	sroce_dcqcn_cnp(&s, &p10g, t0);
	sroce_dcqcn_cnp(&s, &p10g, t0 + 10 * US);	/* Rt 5000, Rc 2500 */
	t0 += 10 * US;
	for (i = 0; i < 6; i++)
		sroce_dcqcn_sent(&s, &p10g, 1 << 21);
	ASSERT_EQ(s.byte_ev, 6U);
	/* BC: 4 fast recovery events, then 5 and 6 additive */
	ASSERT_EQ(s.target, 5010U);
	for (i = 1; i <= 6; i++)
		sroce_dcqcn_tick(&s, &p10g, t0 + i * 300 * US);
	/*
	 * T 1..5: BC = 6 is past F, T is not: additive (+5 each);
	 * T = 6: min(T, BC) = 6 > F: hyper, + (6 - 5) * hai
	 */
	ASSERT_EQ(s.target, 5010U + 5 * 5 + 50);
}

TEST(recovers_to_line_rate_and_unlimits)
{
	struct sroce_dcqcn s;
	u64 t = 0;
	int i;

	sroce_dcqcn_init(&s, &p10g);
	sroce_dcqcn_cnp(&s, &p10g, t);
	for (i = 0; i < 200 && s.limited; i++) {
		t += 300 * US;
		sroce_dcqcn_tick(&s, &p10g, t);
	}
	ASSERT_FALSE(s.limited);
	ASSERT_EQ(s.rate, 10000U);
	ASSERT_EQ(s.target, 10000U);
	/* Rt was the line rate: Rc closes the gap in about log2(5000) events */
	ASSERT_LE(i, 16);
	/* a new episode starts from alpha_init again */
	s.alpha = 7;
	sroce_dcqcn_cnp(&s, &p10g, t + 1 * MS);
	ASSERT_EQ(s.alpha, p10g.alpha_init);
	ASSERT_EQ(s.rate, 5000U);
}

TEST(long_idle_catches_up_at_once)
{
	struct sroce_dcqcn s;
	u64 t0 = 1 * MS;

	sroce_dcqcn_init(&s, &p10g);
	cut_n(&s, t0, 12);	/* down to 10000 / 2^11: the floor */
	ASSERT_EQ(s.rate, p10g.min_rate);
	/*
	 * Rt is low (about 10): additive increase alone takes
	 * (10000 - 10) / 5 events to the line rate, ten minutes' worth
	 * of 300 us. An hour later one tick finds it all done.
	 */
	ASSERT_TRUE(sroce_dcqcn_tick(&s, &p10g, t0 + 3600ULL * 1000 * MS));
	ASSERT_FALSE(s.limited);
	ASSERT_EQ(s.rate, 10000U);
	/* an hour without a CNP: no congestion left in alpha */
	ASSERT_EQ(s.alpha, 0U);
}

TEST(partial_catch_up)
{
	struct sroce_dcqcn s;
	u64 t0;

	sroce_dcqcn_init(&s, &p10g);
	t0 = cut_n(&s, 0, 12);
	/* 1100 events in one tick: 1024 one by one, 76 at once */
	ASSERT_TRUE(sroce_dcqcn_tick(&s, &p10g, t0 + 1100 * 300 * US));
	ASSERT_TRUE(s.limited);
	ASSERT_EQ(s.timer_ev, 1100U);
	ASSERT_EQ(s.rate, s.target);
	/*
	 * Rt: the rate before the last cut (the floor, 10), + 5 for each of
	 * the 1096 events past F
	 */
	ASSERT_EQ(s.target, 10U + 1096 * 5);
}

TEST(next_due)
{
	struct sroce_dcqcn s;

	sroce_dcqcn_init(&s, &p10g);
	sroce_dcqcn_cnp(&s, &p10g, 1 * MS);
	ASSERT_EQ(sroce_dcqcn_next_due(&s), 1 * MS + 55 * US);
	sroce_dcqcn_tick(&s, &p10g, 1 * MS + 290 * US);
	ASSERT_EQ(sroce_dcqcn_next_due(&s), 1 * MS + 300 * US);
}

/*
 * CNPs taken in a batch, as a requester run does: the alpha periods they
 * spanned count as periods with a CNP, so alpha stays near 1 and each
 * batch halves the rate; taken as one CNP after the ticks of the span,
 * alpha would decay (to 0 over 18 ms) and the cuts fade out.
 */
TEST(cnps_taken_in_batches)
{
	/* no recovery in between, as in ecn_cnp.sh case f */
	struct sroce_dcqcn_params pnr = p10g;
	struct sroce_dcqcn s, one;
	u64 t = 1000 * MS;
	int i;

	pnr.timer_ns = 1000 * MS;
	pnr.byte_reset = 1ULL << 30;

	sroce_dcqcn_init(&s, &pnr);
	ASSERT_TRUE(sroce_dcqcn_cnps(&s, &pnr, t, t, t));
	ASSERT_EQ(s.rate, 5000U);
	one = s;
	/* 13 ms between runs, CNPs all along */
	ASSERT_TRUE(sroce_dcqcn_cnps(&s, &pnr, t + 20 * US, t + 13 * MS, t + 13 * MS));
	ASSERT_TRUE(s.alpha >= SROCE_DCQCN_ONE - 8);
	ASSERT_TRUE(s.rate <= 2510U);
	sroce_dcqcn_tick(&one, &pnr, t + 13 * MS);
	ASSERT_TRUE(sroce_dcqcn_cnp(&one, &pnr, t + 13 * MS));
	ASSERT_TRUE(one.alpha < SROCE_DCQCN_ONE / 2);
	ASSERT_TRUE(one.rate > 3500U);
	/* ten more such runs: at the floor */
	for (i = 2; i < 12; i++)
		sroce_dcqcn_cnps(&s, &pnr, t + (i - 1) * 13 * MS + 20 * US,
				 t + i * 13 * MS, t + i * 13 * MS);
	ASSERT_EQ(s.rate, 10U);
	/* a quiet span before the CNPs decays alpha as one CNP would */
	sroce_dcqcn_init(&s, &pnr);
	one = s;
	sroce_dcqcn_cnps(&s, &pnr, t, t, t);
	sroce_dcqcn_cnp(&one, &pnr, t);
	sroce_dcqcn_cnps(&s, &pnr, t + 13 * MS, t + 13 * MS, t + 13 * MS);
	sroce_dcqcn_tick(&one, &pnr, t + 13 * MS);
	sroce_dcqcn_cnp(&one, &pnr, t + 13 * MS);
	ASSERT_EQ(s.alpha, one.alpha);
	ASSERT_EQ(s.rate, one.rate);
}

TEST(pace_cost)
{
	/* 1500 bytes: 1.2 us at 10 Gbit/s, 12 us at 1 Gbit/s */
	ASSERT_EQ(sroce_pace_cost(1500, 10000), 1200U);
	ASSERT_EQ(sroce_pace_cost(1500, 1000), 12000U);
	ASSERT_EQ(sroce_pace_cost(4096 + 58, 1), 33232000U);
	ASSERT_EQ(sroce_pace_cost(100, 0), 800000U);	/* rate 0 taken as 1 */
}

TEST(pacer)
{
	u64 next = 0, t = 100 * US;
	const u64 cost = 10 * US, burst = 25 * US;
	int sent = 0;

	/* after an idle time: a burst of burst / cost + 1 packets, no more */
	while (!sroce_pace_next(&next, t, cost, burst))
		sent++;
	ASSERT_EQ(sent, 3);
	/* then one per cost */
	ASSERT_EQ(sroce_pace_next(&next, t, cost, burst), 5 * US);
	t += 5 * US;
	ASSERT_EQ(sroce_pace_next(&next, t, cost, burst), 0U);
	ASSERT_EQ(sroce_pace_next(&next, t, cost, burst), 10 * US);
	/* no burst allowed: strictly one per cost */
	next = 0;
	ASSERT_EQ(sroce_pace_next(&next, t, cost, 0), 0U);
	ASSERT_EQ(next, t + cost);
	ASSERT_EQ(sroce_pace_next(&next, t, cost, 0), cost);
}
