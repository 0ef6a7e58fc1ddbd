// SPDX-License-Identifier: GPL-2.0-only
/*
 * Host tests for kernel/core/sendwin.c: the requester's adaptive window
 * under go-back-N (seed-rules R2.5). The window only paces sending; the
 * tests pin its bounds and its reaction to NAKs, timeouts and ACKs.
 */
#include "harness.h"
#include "sendwin.h"

TEST(starts_at_the_cap)
{
	struct sroce_sendwin w;

	sroce_sendwin_init(&w);
	ASSERT_EQ(w.cwnd, SROCE_WIN_MAX);
	sroce_sendwin_acked(&w, 1000);
	ASSERT_EQ(w.cwnd, SROCE_WIN_MAX);	/* never above the cap */
}

/* seed-rules R2.5: each sequence NAK halves, down to the floor */
TEST(nak_halves_to_the_floor)
{
	struct sroce_sendwin w;
	int i;

	sroce_sendwin_init(&w);
	sroce_sendwin_nak(&w);
	ASSERT_EQ(w.cwnd, SROCE_WIN_MAX / 2);
	ASSERT_EQ(w.ssthresh, SROCE_WIN_MAX / 2);
	for (i = 0; i < 20; i++)
		sroce_sendwin_nak(&w);
	ASSERT_EQ(w.cwnd, SROCE_WIN_MIN);
	ASSERT_GE(w.cwnd, 1);
}

/* seed-rules R2.2: a timeout restarts from the floor */
TEST(timeout_restarts_small)
{
	struct sroce_sendwin w;

	sroce_sendwin_init(&w);
	sroce_sendwin_timeout(&w);
	ASSERT_EQ(w.cwnd, SROCE_WIN_MIN);
	ASSERT_EQ(w.ssthresh, SROCE_WIN_MAX / 2);
	/* slow start up to ssthresh, not beyond it */
	sroce_sendwin_acked(&w, 10);
	ASSERT_EQ(w.cwnd, SROCE_WIN_MIN + 10);
	sroce_sendwin_acked(&w, 10000);
	ASSERT_EQ(w.cwnd, SROCE_WIN_MAX / 2);
}

/* Above ssthresh: one PSN more per window's worth acknowledged. */
TEST(additive_increase)
{
	struct sroce_sendwin w;
	u32 c;

	sroce_sendwin_init(&w);
	sroce_sendwin_nak(&w);
	c = w.cwnd;
	sroce_sendwin_acked(&w, c - 1);
	ASSERT_EQ(w.cwnd, c);
	sroce_sendwin_acked(&w, 1);
	ASSERT_EQ(w.cwnd, c + 1);
	/* a large cumulative ACK grows by several, never past the cap */
	sroce_sendwin_acked(&w, 100000000);
	ASSERT_EQ(w.cwnd, SROCE_WIN_MAX);
	ASSERT_EQ(w.acc, 0);
}

/* AckReq at half the window, so ACKs come back before it closes. */
TEST(ackreq_spacing)
{
	struct sroce_sendwin w;

	sroce_sendwin_init(&w);
	ASSERT_EQ(sroce_sendwin_ackreq_every(&w, 64), 64);
	sroce_sendwin_timeout(&w);
	ASSERT_EQ(sroce_sendwin_ackreq_every(&w, 64), SROCE_WIN_MIN / 2);
	w.cwnd = 1;
	ASSERT_EQ(sroce_sendwin_ackreq_every(&w, 64), 1);
}
