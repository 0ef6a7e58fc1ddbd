/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * parse.h - validate and decode transport headers (BTH .. ICRC), and the
 * inverse builder.  sroce_parse_hdrs() is the fuzz target: it never reads
 * outside [buf, buf + len) and never trusts a length from the wire.
 */
#ifndef SROCE_CORE_PARSE_H
#define SROCE_CORE_PARSE_H

#include "core_types.h"
#include "opcode.h"

/* Largest payload sroce accepts in one packet (path MTU 4096, R1.3). */
#define SROCE_MAX_PAYLOAD	4096

/*
 * Drop reasons, one per check, so the receive path can count drops by
 * reason.  X(name, description).
 */
#define SROCE_PARSE_ERR_LIST(X)						\
	X(TOO_SHORT, "shorter than a BTH")				\
	X(OPCODE_RD, "reliable datagram opcode (unsupported)")		\
	X(CNP, "RoCEv2 CNP, not a transport packet")			\
	X(OPCODE_UNKNOWN, "reserved or unsupported opcode")		\
	X(TVER, "transport header version is not 0")			\
	X(HDR_TRUNC, "extension headers truncated")			\
	X(NO_ICRC, "no room for the ICRC")				\
	X(UNALIGNED, "payload plus pad not a multiple of 4")		\
	X(PAD, "pad count larger than payload plus pad")		\
	X(PAD_NOT_LAST, "pad on a FIRST or MIDDLE packet")		\
	X(UNEXPECTED_PAYLOAD, "payload on an opcode without one")	\
	X(PAYLOAD_TOO_LONG, "payload longer than SROCE_MAX_PAYLOAD")

#define SROCE_PARSE_ERR_ENUM(name, desc)	SROCE_PARSE_ERR_##name,
enum sroce_parse_err {
	SROCE_PARSE_OK,
	SROCE_PARSE_ERR_LIST(SROCE_PARSE_ERR_ENUM)
	SROCE_PARSE_ERR_COUNT
};

#undef SROCE_PARSE_ERR_ENUM

/**
 * struct sroce_hdrs - decoded transport headers of one packet
 *
 * BTH fields are always valid.  Each extension-header member is valid only
 * when info->mask has the matching SROCE_M_* bit; otherwise it is zero.
 * Offsets are from the first BTH byte.  Reserved wire bits are not kept
 * (the builder writes them as zero).
 */
struct sroce_hdrs {
	/* BTH */
	u8 opcode;
	bool se;
	bool mig;
	u8 pad;
	u8 tver;
	u16 pkey;
	bool fecn;
	bool becn;
	u32 dqpn;
	bool ackreq;
	u32 psn;

	/* From the opcode table, filled by parse (ignored by build). */
	u32 mask;
	u32 hdr_len;		/* BTH + extension headers */
	u32 payload_off;	/* == hdr_len */
	u32 payload_len;	/* without pad */
	u32 pkt_len;		/* hdr_len + payload + pad + ICRC */

	struct {
		u8 plt;		/* placement type */
		u8 sel;		/* selectivity level */
	} feth;
	struct {
		u64 va;
		u32 rkey;
		u32 len;
	} reth;
	struct {
		u8 syn;
		u32 msn;
	} aeth;
	struct {
		u64 va;
		u32 rkey;
		u64 swap_add;
		u64 comp;
	} atmeth;
	u64 atmack_orig;
	struct {
		u32 qkey;
		u32 sqpn;
	} deth;
	u32 xrc_srqn;		/* XRCETH */
	__be32 imm;
	u32 ieth_rkey;
};

/**
 * sroce_parse_hdrs() - validate and decode one packet
 * @buf: first BTH byte
 * @len: bytes from the BTH to the end of the ICRC inclusive
 * @out: filled on success; zeroed first, contents unspecified on error
 *
 * Return: 0, or -SROCE_PARSE_ERR_* naming the first check that failed.
 */
int sroce_parse_hdrs(const u8 *buf, size_t len, struct sroce_hdrs *out);

/* sroce_parse_err_name - name for a (positive or negative) parse result */
const char *sroce_parse_err_name(int err);

/**
 * sroce_build_hdrs() - write BTH and the opcode's extension headers
 * @buf:  where the BTH goes
 * @room: writable bytes at @buf
 * @in:   field values; mask/lengths/offsets are ignored (taken from the
 *        opcode table), reserved bits are written as zero
 *
 * Does not write payload, pad bytes or ICRC.  A non-zero @in->tver is
 * written as given (tests use it to build malformed packets).
 *
 * Return: number of header bytes written, -EINVAL for an unsupported
 * opcode or a field wider than its wire field, -ENOSPC if @room is short.
 */
int sroce_build_hdrs(u8 *buf, size_t room, const struct sroce_hdrs *in);

#endif /* SROCE_CORE_PARSE_H */
