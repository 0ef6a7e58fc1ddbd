/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * rel.h: helpers of the reliability tests (on top of the data-path harness
 * dp.h): sroce's fault rules in debugfs (Documentation/fault-injection.md),
 * device counters (the hw_counters that "rdma statistic" shows) and netem
 * on the veth of each namespace.
 */
#ifndef SROCE_REL_H
#define SROCE_REL_H

#include "../datapath/dp.h"

/* BTH opcodes (IBA 9.2, table 38), RC. */
enum {
	OP_SEND_FIRST = 0x00, OP_SEND_MIDDLE = 0x01, OP_SEND_LAST = 0x02,
	OP_SEND_ONLY = 0x04,
	OP_WRITE_FIRST = 0x06, OP_WRITE_MIDDLE = 0x07, OP_WRITE_LAST = 0x08,
	OP_WRITE_ONLY = 0x0a,
	OP_READ_REQ = 0x0c, OP_READ_RESP_FIRST = 0x0d, OP_READ_RESP_MIDDLE = 0x0e,
	OP_READ_RESP_LAST = 0x0f, OP_READ_RESP_ONLY = 0x10,
	OP_ACK = 0x11, OP_ATOMIC_ACK = 0x12,
	OP_CMP_SWAP = 0x13, OP_FETCH_ADD = 0x14,
};

/*
 * A SEND of @len bytes from A into a fresh receive WQE of B, checked:
 * both completions, byte_len, the data, and one receive completion only
 * (seed-rules R2.6: executed once).
 */
void rel_send_msg(struct dp_pair *p, size_t len, uint32_t seed);

/* Arm a drop rule: dir "tx" or "rx", rule as in fault-injection.md. */
void rel_fault(const struct dp_end *e, const char *dir, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* Disarm both rules of a device. */
void rel_fault_off(const struct dp_end *e);

/* A snapshot of every counter of a device. */
#define REL_MAX_CTRS 96
struct rel_ctrs {
	const char *dev;
	int n;
	char name[REL_MAX_CTRS][48];
	unsigned long long v[REL_MAX_CTRS];
};
void rel_ctrs_take(struct rel_ctrs *c, const struct dp_end *e);
/* How much counter @name grew since the snapshot (fails if unknown). */
unsigned long long rel_delta(const struct rel_ctrs *c, const char *name);
/* Print every counter that moved since the snapshot. */
void rel_ctrs_note(const struct rel_ctrs *c);

/* netem on the veth of end A's ("a") or B's ("b") namespace; NULL removes. */
void rel_netem(char end, const char *args);

void rel_sleep_ms(unsigned int ms);

/*
 * Send one crafted RC packet (selftests/net/roce_pkt.py "req" with @args:
 * opcode, payload, ...) with PSN @psn to A's QP from B's address, again
 * and again for @secs seconds; returns once the first one left.
 * rel_flood_end() waits for the last and returns how many were sent.
 */
FILE *rel_flood_a(const struct dp_pair *p, uint32_t psn, unsigned int secs,
		  const char *args);
unsigned long rel_flood_end(FILE *f);

#endif
