/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * cnp.h - RoCEv2 Congestion Notification Packets (IBA annex A17.9.2):
 * BTH with opcode 0x81 and BECN set, 16 reserved bytes of zero, ICRC.
 * The notification point sends one to the QP whose packet arrived marked
 * ECN-CE, at most one per QP per interval; the reaction point takes it.
 */
#ifndef SROCE_CORE_CNP_H
#define SROCE_CORE_CNP_H

#include "core_types.h"
#include "bth.h"
#include "ext_hdrs.h"

#define SROCE_CNP_RSVD_LEN	16
/* BTH .. ICRC of a CNP: there is no other valid length. */
#define SROCE_CNP_LEN		(SROCE_BTH_LEN + SROCE_CNP_RSVD_LEN + SROCE_ICRC_LEN)

/**
 * sroce_cnp_build() - write a CNP's BTH and reserved bytes
 * @buf:  where the BTH goes
 * @room: writable bytes at @buf (SROCE_CNP_LEN - SROCE_ICRC_LEN at least)
 * @pkey: the P_Key of the packet that was marked
 * @dqpn: the QP that sent it (24 bits)
 *
 * Return: bytes written (BTH + reserved; the ICRC is the transmit path's),
 * -EINVAL if @dqpn is wider than 24 bits or the multicast QPN, -ENOSPC if
 * @room is short.
 */
int sroce_cnp_build(u8 *buf, size_t room, u16 pkey, u32 dqpn);

/**
 * sroce_cnp_parse() - validate a received CNP
 * @buf:  first BTH byte, opcode SROCE_OP_CNP
 * @len:  bytes from the BTH to the end of the ICRC inclusive
 * @dqpn: set to the BTH DestQP on success
 *
 * Return: 0, or -SROCE_PARSE_ERR_* (parse.h): not a CNP opcode
 * (OPCODE_UNKNOWN), transport version not 0 (TVER), shorter than
 * SROCE_CNP_LEN (HDR_TRUNC) or longer (UNEXPECTED_PAYLOAD).
 */
int sroce_cnp_parse(const u8 *buf, size_t len, u32 *dqpn);

/**
 * sroce_cnp_due() - may the notification point send a CNP now?
 * @now:      the time now (ns, monotonic)
 * @last:     when the QP's last CNP was sent (ns), 0 for never
 * @interval: least time between two CNPs of a QP (ns), 0 for no limit
 *
 * A @last later than @now (another CPU sent one meanwhile) is not due.
 */
bool sroce_cnp_due(u64 now, u64 last, u64 interval);

#endif /* SROCE_CORE_CNP_H */
