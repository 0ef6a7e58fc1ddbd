/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * sendwin.h - the RC requester's adaptive send window.
 *
 * Go-back-N (seed-rules R2.5) throws away every packet sent after a lost
 * one, so the number of unacknowledged PSNs in flight is what one loss
 * costs. The window grows while ACKs bring progress and shrinks on a loss
 * (additive increase, multiplicative decrease): on a clean path it opens
 * to the fixed cap, on a lossy one a loss wastes a few packets instead of
 * a whole cap's worth. Only the sending pace changes; the protocol
 * (PSNs, NAKs, timers, retry counting) is untouched.
 *
 * A loss shrinks the window once per loss episode, as TCP NewReno does
 * once per window (RFC 6582 "recover"): after a reduction, further NAKs of
 * PSNs that were already sent at the reduction belong to the same episode
 * (the go-back-N resend of that window losing another packet) and leave
 * the window alone. The episode ends when the PSN that was the send head
 * at the reduction is acknowledged.
 *
 * Pure arithmetic: the requester owns the state and calls these from its
 * work item.
 */
#ifndef SROCE_CORE_SENDWIN_H
#define SROCE_CORE_SENDWIN_H

#include "core_types.h"

/*
 * Unacknowledged PSNs a requester may ever have outstanding. A READ takes
 * one PSN per response packet, so this also bounds the READ responses on
 * the way: 2048 fit the 128 READs of 64 KiB that max_qp_rd_atom allows at
 * path MTU 4096.
 */
#define SROCE_WIN_MAX		2048
/*
 * A new connection's window. It knows nothing of the path yet, and a loss
 * in the first window costs the whole window: slow start opens it to the
 * cap once a window's worth is acknowledged.
 */
#define SROCE_WIN_INIT		512
/* The window never closes below this (so ACKs keep coming). */
#define SROCE_WIN_MIN		8

struct sroce_sendwin {
	u32 cwnd;	/* PSNs that may be unacknowledged, MIN..MAX */
	u32 ssthresh;	/* below it the window doubles per window acked */
	u32 acc;	/* acknowledged PSNs not yet turned into growth */
	u32 recover;	/* first PSN not sent at the last reduction */
	bool recovering; /* acknowledgments have not reached @recover yet */
};

/* A new connection (or reset): SROCE_WIN_INIT, slow start to the cap. */
void sroce_sendwin_init(struct sroce_sendwin *w);

/*
 * The PSNs from @una up to (not including) @next were newly acknowledged:
 * grow; the loss episode ends once @next reaches its recovery point.
 */
void sroce_sendwin_acked(struct sroce_sendwin *w, u32 una, u32 next);

/*
 * A sequence-error NAK of @psn while @head was the first PSN never sent:
 * halve, unless @psn was already sent at the last reduction (same loss
 * episode). Returns true if the window was reduced.
 */
bool sroce_sendwin_nak(struct sroce_sendwin *w, u32 psn, u32 head);

/*
 * A local ACK timeout with @head the first PSN never sent: the path lost
 * a whole exchange; start small. Always reduces; NAKs of PSNs sent before
 * it are part of the same episode.
 */
void sroce_sendwin_timeout(struct sroce_sendwin *w, u32 head);

/*
 * sroce_sendwin_ackreq_every - how many packets apart AckReq is set, so
 * that ACKs arrive while the window is still open: half the window
 * (at least 1), never more than @cap.
 */
u32 sroce_sendwin_ackreq_every(const struct sroce_sendwin *w, u32 cap);

#endif /* SROCE_CORE_SENDWIN_H */
