// SPDX-License-Identifier: GPL-2.0-only
/* sendwin.c - the RC requester's adaptive send window (see sendwin.h). */
#include "sendwin.h"

void sroce_sendwin_init(struct sroce_sendwin *w)
{
	w->cwnd = SROCE_WIN_MAX;
	w->ssthresh = SROCE_WIN_MAX;
	w->acc = 0;
}

void sroce_sendwin_acked(struct sroce_sendwin *w, u32 npsn)
{
	if (w->cwnd >= SROCE_WIN_MAX)
		return;
	if (w->cwnd < w->ssthresh) {
		/* Slow start: one more PSN per PSN acknowledged. */
		w->cwnd += npsn < w->ssthresh - w->cwnd ? npsn :
			   w->ssthresh - w->cwnd;
		return;
	}
	/* Congestion avoidance: one more PSN per window acknowledged. */
	w->acc += npsn;
	while (w->acc >= w->cwnd && w->cwnd < SROCE_WIN_MAX) {
		w->acc -= w->cwnd;
		w->cwnd++;
	}
	if (w->cwnd >= SROCE_WIN_MAX)
		w->acc = 0;
}

void sroce_sendwin_nak(struct sroce_sendwin *w)
{
	w->cwnd = w->cwnd / 2 > SROCE_WIN_MIN ? w->cwnd / 2 : SROCE_WIN_MIN;
	w->ssthresh = w->cwnd;
	w->acc = 0;
}

void sroce_sendwin_timeout(struct sroce_sendwin *w)
{
	w->ssthresh = w->cwnd / 2 > SROCE_WIN_MIN ? w->cwnd / 2 : SROCE_WIN_MIN;
	w->cwnd = SROCE_WIN_MIN;
	w->acc = 0;
}

u32 sroce_sendwin_ackreq_every(const struct sroce_sendwin *w, u32 cap)
{
	u32 n = w->cwnd / 2 ? w->cwnd / 2 : 1;

	return n < cap ? n : cap;
}
