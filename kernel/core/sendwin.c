// SPDX-License-Identifier: GPL-2.0-only
/* sendwin.c - the RC requester's adaptive send window (see sendwin.h). */
#include "sendwin.h"
#include "psn.h"

void sroce_sendwin_init(struct sroce_sendwin *w)
{
	w->cwnd = SROCE_WIN_INIT;
	w->ssthresh = SROCE_WIN_MAX;
	w->acc = 0;
	w->recover = 0;
	w->recovering = false;
}

void sroce_sendwin_acked(struct sroce_sendwin *w, u32 una, u32 next)
{
	s32 d = psn_diff(next, una);
	u32 npsn = d > 0 ? d : 0;

	/* Within an episode @recover is less than a window ahead: no wrap. */
	if (w->recovering && !psn_before(next, w->recover))
		w->recovering = false;
	if (!npsn || w->cwnd >= SROCE_WIN_MAX)
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

/* A new loss episode starts: everything before @head belongs to it. */
static void sroce_sendwin_episode(struct sroce_sendwin *w, u32 head)
{
	w->recover = psn_mask(head);
	w->recovering = true;
	w->acc = 0;
}

bool sroce_sendwin_nak(struct sroce_sendwin *w, u32 psn, u32 head)
{
	if (w->recovering && psn_before(psn, w->recover))
		return false;
	w->cwnd = w->cwnd / 2 > SROCE_WIN_MIN ? w->cwnd / 2 : SROCE_WIN_MIN;
	w->ssthresh = w->cwnd;
	sroce_sendwin_episode(w, head);
	return true;
}

void sroce_sendwin_timeout(struct sroce_sendwin *w, u32 head)
{
	w->ssthresh = w->cwnd / 2 > SROCE_WIN_MIN ? w->cwnd / 2 : SROCE_WIN_MIN;
	w->cwnd = SROCE_WIN_MIN;
	sroce_sendwin_episode(w, head);
}

u32 sroce_sendwin_ackreq_every(const struct sroce_sendwin *w, u32 cap)
{
	u32 n = w->cwnd / 2 ? w->cwnd / 2 : 1;

	return n < cap ? n : cap;
}
