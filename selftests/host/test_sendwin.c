// SPDX-License-Identifier: GPL-2.0-only
/*
 * Host tests for kernel/core/sendwin.c: the requester's adaptive window
 * under go-back-N (seed-rules R2.5). The window only paces sending; the
 * tests pin its bounds and its reaction to NAKs, timeouts and ACKs.
 */
#include "harness.h"
#include "sendwin.h"

TEST(slow_start_to_the_cap)
{
	struct sroce_sendwin w;

	sroce_sendwin_init(&w);
	ASSERT_EQ(w.cwnd, SROCE_WIN_INIT);
	ASSERT_EQ(w.ssthresh, SROCE_WIN_MAX);
	ASSERT_TRUE(SROCE_WIN_INIT < SROCE_WIN_MAX);
	/* one more PSN per PSN acknowledged */
	sroce_sendwin_acked(&w, 0, SROCE_WIN_INIT);
	ASSERT_EQ(w.cwnd, 2 * SROCE_WIN_INIT);
	sroce_sendwin_acked(&w, SROCE_WIN_INIT, 100000);
	ASSERT_EQ(w.cwnd, SROCE_WIN_MAX);	/* never above the cap */
	sroce_sendwin_acked(&w, 100000, 200000);
	ASSERT_EQ(w.cwnd, SROCE_WIN_MAX);
}

/* seed-rules R2.5: each new loss episode halves, down to the floor */
TEST(nak_halves_to_the_floor)
{
	struct sroce_sendwin w;
	u32 psn = 100;
	int i;

	sroce_sendwin_init(&w);
	ASSERT_TRUE(sroce_sendwin_nak(&w, psn, psn + 10));
	ASSERT_EQ(w.cwnd, SROCE_WIN_INIT / 2);
	ASSERT_EQ(w.ssthresh, SROCE_WIN_INIT / 2);
	for (i = 0; i < 20; i++) {
		/* everything sent at the last reduction acknowledged */
		sroce_sendwin_acked(&w, psn, psn + 10);
		psn += 10;
		ASSERT_TRUE(sroce_sendwin_nak(&w, psn, psn + 10));
	}
	ASSERT_EQ(w.cwnd, SROCE_WIN_MIN);
	ASSERT_GE(w.cwnd, 1);
}

/*
 * seed-rules R2.5: go-back-N resends the window from the NAKed PSN; a NAK
 * of another packet of that window (a resent one lost again, or a later
 * gap already in flight) is the same loss episode: no second halving.
 */
TEST(one_reduction_per_episode)
{
	struct sroce_sendwin w;
	u32 c;

	sroce_sendwin_init(&w);
	ASSERT_TRUE(sroce_sendwin_nak(&w, 1000, 1200));	/* sent up to 1199 */
	c = w.cwnd;
	ASSERT_EQ(c, SROCE_WIN_INIT / 2);
	/* the same PSN again, a later PSN of the window, its last PSN */
	ASSERT_FALSE(sroce_sendwin_nak(&w, 1000, 1250));
	sroce_sendwin_acked(&w, 1000, 1050);
	ASSERT_FALSE(sroce_sendwin_nak(&w, 1050, 1260));
	sroce_sendwin_acked(&w, 1050, 1199);
	ASSERT_FALSE(sroce_sendwin_nak(&w, 1199, 1270));
	ASSERT_EQ(w.cwnd, c);				/* acks in recovery: CA */
	ASSERT_TRUE(w.recovering);
	/* the send head of the reduction acknowledged: the episode is over */
	sroce_sendwin_acked(&w, 1199, 1200);
	ASSERT_FALSE(w.recovering);
	ASSERT_TRUE(sroce_sendwin_nak(&w, 1230, 1300));
	ASSERT_EQ(w.cwnd, c / 2);
	/* a NAK at the recovery point itself starts a new episode */
	ASSERT_TRUE(sroce_sendwin_nak(&w, 1300, 1400));
	ASSERT_EQ(w.cwnd, c / 4);
}

/* The recovery point compares modulo 2^24 (seed-rules R2.8: PSNs wrap). */
TEST(episode_across_psn_wrap)
{
	struct sroce_sendwin w;

	sroce_sendwin_init(&w);
	ASSERT_TRUE(sroce_sendwin_nak(&w, 0xfffff0, 0x000010));
	ASSERT_FALSE(sroce_sendwin_nak(&w, 0x000008, 0x000020));
	ASSERT_EQ(w.cwnd, SROCE_WIN_INIT / 2);
	sroce_sendwin_acked(&w, 0x000008, 0x000010);
	ASSERT_FALSE(w.recovering);
	ASSERT_TRUE(sroce_sendwin_nak(&w, 0x000010, 0x000030));
	ASSERT_EQ(w.cwnd, SROCE_WIN_INIT / 4);
}

/* A timeout always reduces, and opens an episode for the NAKs after it. */
TEST(timeout_opens_an_episode)
{
	struct sroce_sendwin w;

	sroce_sendwin_init(&w);
	ASSERT_TRUE(sroce_sendwin_nak(&w, 10, 50));
	sroce_sendwin_timeout(&w, 60);			/* same episode: still */
	ASSERT_EQ(w.cwnd, SROCE_WIN_MIN);
	ASSERT_FALSE(sroce_sendwin_nak(&w, 20, 60));
	ASSERT_EQ(w.cwnd, SROCE_WIN_MIN);
	sroce_sendwin_timeout(&w, 60);
	ASSERT_EQ(w.cwnd, SROCE_WIN_MIN);
	ASSERT_GE(w.ssthresh, SROCE_WIN_MIN);
}

/* An ACK of nothing new neither grows nor ends an episode. */
TEST(no_progress_no_change)
{
	struct sroce_sendwin w;
	u32 c;

	sroce_sendwin_init(&w);
	ASSERT_TRUE(sroce_sendwin_nak(&w, 10, 50));
	c = w.cwnd;
	sroce_sendwin_acked(&w, 10, 10);
	sroce_sendwin_acked(&w, 10, 5);			/* stale: behind */
	ASSERT_EQ(w.cwnd, c);
	ASSERT_EQ(w.acc, 0);
	ASSERT_TRUE(w.recovering);
}

/* seed-rules R2.2: a timeout restarts from the floor */
TEST(timeout_restarts_small)
{
	struct sroce_sendwin w;

	sroce_sendwin_init(&w);
	sroce_sendwin_timeout(&w, 500);
	ASSERT_EQ(w.cwnd, SROCE_WIN_MIN);
	ASSERT_EQ(w.ssthresh, SROCE_WIN_INIT / 2);
	/* slow start up to ssthresh, not beyond it */
	sroce_sendwin_acked(&w, 0, 10);
	ASSERT_EQ(w.cwnd, SROCE_WIN_MIN + 10);
	sroce_sendwin_acked(&w, 10, 10010);
	ASSERT_EQ(w.cwnd, SROCE_WIN_INIT / 2);
}

/* Above ssthresh: one PSN more per window's worth acknowledged. */
TEST(additive_increase)
{
	struct sroce_sendwin w;
	u32 c;

	sroce_sendwin_init(&w);
	sroce_sendwin_nak(&w, 0, 1);
	c = w.cwnd;
	sroce_sendwin_acked(&w, 0, c - 1);
	ASSERT_EQ(w.cwnd, c);
	sroce_sendwin_acked(&w, c - 1, c);
	ASSERT_EQ(w.cwnd, c + 1);
	/* a large cumulative ACK grows by several, never past the cap */
	sroce_sendwin_acked(&w, c, c + 0x7fffff);
	ASSERT_EQ(w.cwnd, SROCE_WIN_MAX);
	ASSERT_EQ(w.acc, 0);
}

/* AckReq at half the window, so ACKs come back before it closes. */
TEST(ackreq_spacing)
{
	struct sroce_sendwin w;

	sroce_sendwin_init(&w);
	ASSERT_EQ(sroce_sendwin_ackreq_every(&w, 64), 64);
	sroce_sendwin_timeout(&w, 0);
	ASSERT_EQ(sroce_sendwin_ackreq_every(&w, 64), SROCE_WIN_MIN / 2);
	w.cwnd = 1;
	ASSERT_EQ(sroce_sendwin_ackreq_every(&w, 64), 1);
}
