/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * bth.h - Base Transport Header wire layout and accessors (IBA 9.2).
 *
 *  byte 0      OpCode
 *  byte 1      SE(7) M(6) PadCnt(5:4) TVer(3:0)
 *  bytes 2-3   P_Key
 *  byte 4      FECN(7) BECN(6) resv6(5:0)   (RoCEv2 keeps FECN/BECN here)
 *  bytes 5-7   DestQP
 *  byte 8      AckReq(7) resv7(6:0)
 *  bytes 9-11  PSN
 *
 * The accessors work on a raw pointer to the first BTH byte.  The caller
 * guarantees SROCE_BTH_LEN readable (or writable) bytes; nothing here
 * checks lengths (that is parse.c's job).  Setters leave the other fields
 * of a shared byte untouched and silently truncate to the field width.
 */
#ifndef SROCE_CORE_BTH_H
#define SROCE_CORE_BTH_H

#include "core_types.h"

#define SROCE_BTH_LEN		12

/* Byte offsets inside the BTH. */
#define SROCE_BTH_OPCODE_OFF	0
#define SROCE_BTH_FLAGS_OFF	1
#define SROCE_BTH_PKEY_OFF	2
#define SROCE_BTH_QPN_OFF	4	/* 32-bit word: FECN|BECN|resv6|QPN */
#define SROCE_BTH_APSN_OFF	8	/* 32-bit word: AckReq|resv7|PSN */
#define SROCE_BTH_RESV8A_OFF	4	/* byte masked to 1s for the ICRC */

/* Byte 1. */
#define SROCE_BTH_SE		BIT(7)
#define SROCE_BTH_MIG		BIT(6)
#define SROCE_BTH_PAD		GENMASK(5, 4)
#define SROCE_BTH_TVER		GENMASK(3, 0)

/* Word at byte 4. */
#define SROCE_BTH_FECN		BIT(31)
#define SROCE_BTH_BECN		BIT(30)
#define SROCE_BTH_RESV6A	GENMASK(29, 24)
#define SROCE_BTH_QPN		GENMASK(23, 0)

/* Word at byte 8. */
#define SROCE_BTH_ACKREQ	BIT(31)
#define SROCE_BTH_RESV7		GENMASK(30, 24)
#define SROCE_BTH_PSN		GENMASK(23, 0)

#define SROCE_BTH_TVER_IBA	0	/* the only transport version */
#define SROCE_QPN_MASK		GENMASK(23, 0)
#define SROCE_QPN_MULTICAST	0xffffff	/* seed-rules R1.4 */

/* sroce_pad_for - pad bytes needed after @payload_len bytes (0..3) */
static inline u8 sroce_pad_for(u32 payload_len)
{
	return (u8)(-payload_len & 3);
}

static inline u8 sroce_bth_opcode(const u8 *bth)
{
	return bth[SROCE_BTH_OPCODE_OFF];
}

static inline void sroce_bth_set_opcode(u8 *bth, u8 opcode)
{
	bth[SROCE_BTH_OPCODE_OFF] = opcode;
}

static inline bool sroce_bth_se(const u8 *bth)
{
	return bth[SROCE_BTH_FLAGS_OFF] & SROCE_BTH_SE;
}

static inline bool sroce_bth_mig(const u8 *bth)
{
	return bth[SROCE_BTH_FLAGS_OFF] & SROCE_BTH_MIG;
}

static inline u8 sroce_bth_pad(const u8 *bth)
{
	return FIELD_GET(SROCE_BTH_PAD, bth[SROCE_BTH_FLAGS_OFF]);
}

static inline u8 sroce_bth_tver(const u8 *bth)
{
	return FIELD_GET(SROCE_BTH_TVER, bth[SROCE_BTH_FLAGS_OFF]);
}

static inline void sroce_bth_set_flag(u8 *bth, unsigned long flag, bool on)
{
	if (on)
		bth[SROCE_BTH_FLAGS_OFF] |= flag;
	else
		bth[SROCE_BTH_FLAGS_OFF] &= ~flag;
}

static inline void sroce_bth_set_se(u8 *bth, bool se)
{
	sroce_bth_set_flag(bth, SROCE_BTH_SE, se);
}

static inline void sroce_bth_set_mig(u8 *bth, bool mig)
{
	sroce_bth_set_flag(bth, SROCE_BTH_MIG, mig);
}

static inline void sroce_bth_set_pad(u8 *bth, u8 pad)
{
	bth[SROCE_BTH_FLAGS_OFF] = (bth[SROCE_BTH_FLAGS_OFF] & ~SROCE_BTH_PAD) |
				   FIELD_PREP(SROCE_BTH_PAD, pad);
}

static inline void sroce_bth_set_tver(u8 *bth, u8 tver)
{
	bth[SROCE_BTH_FLAGS_OFF] = (bth[SROCE_BTH_FLAGS_OFF] & ~SROCE_BTH_TVER) |
				   FIELD_PREP(SROCE_BTH_TVER, tver);
}

static inline u16 sroce_bth_pkey(const u8 *bth)
{
	return get_unaligned_be16(bth + SROCE_BTH_PKEY_OFF);
}

static inline void sroce_bth_set_pkey(u8 *bth, u16 pkey)
{
	put_unaligned_be16(pkey, bth + SROCE_BTH_PKEY_OFF);
}

/*
 * P_Key matching (IBA 10.9.3): the low 15 bits (the partition) are equal
 * and not 0, and at least one of the two keys is a full member (bit 15).
 * @pkt is the BTH P_Key, @tbl the P_Key table entry of the receiving QP.
 */
#define SROCE_PKEY_FULL		0x8000
#define SROCE_PKEY_PARTITION	0x7FFF

static inline bool sroce_pkey_match(u16 pkt, u16 tbl)
{
	u16 part = pkt & SROCE_PKEY_PARTITION;

	return part && part == (tbl & SROCE_PKEY_PARTITION) &&
	       ((pkt | tbl) & SROCE_PKEY_FULL);
}

static inline u32 sroce_bth_qpn_word(const u8 *bth)
{
	return get_unaligned_be32(bth + SROCE_BTH_QPN_OFF);
}

static inline void sroce_bth_set_qpn_word(u8 *bth, u32 mask, u32 val)
{
	u32 w = sroce_bth_qpn_word(bth);

	put_unaligned_be32((w & ~mask) | (val & mask), bth + SROCE_BTH_QPN_OFF);
}

static inline bool sroce_bth_fecn(const u8 *bth)
{
	return sroce_bth_qpn_word(bth) & SROCE_BTH_FECN;
}

static inline bool sroce_bth_becn(const u8 *bth)
{
	return sroce_bth_qpn_word(bth) & SROCE_BTH_BECN;
}

static inline u32 sroce_bth_qpn(const u8 *bth)
{
	return FIELD_GET(SROCE_BTH_QPN, sroce_bth_qpn_word(bth));
}

static inline void sroce_bth_set_fecn(u8 *bth, bool on)
{
	sroce_bth_set_qpn_word(bth, SROCE_BTH_FECN, on ? SROCE_BTH_FECN : 0);
}

static inline void sroce_bth_set_becn(u8 *bth, bool on)
{
	sroce_bth_set_qpn_word(bth, SROCE_BTH_BECN, on ? SROCE_BTH_BECN : 0);
}

static inline void sroce_bth_set_qpn(u8 *bth, u32 qpn)
{
	sroce_bth_set_qpn_word(bth, SROCE_BTH_QPN, qpn);
}

static inline u32 sroce_bth_apsn_word(const u8 *bth)
{
	return get_unaligned_be32(bth + SROCE_BTH_APSN_OFF);
}

static inline bool sroce_bth_ackreq(const u8 *bth)
{
	return sroce_bth_apsn_word(bth) & SROCE_BTH_ACKREQ;
}

static inline u32 sroce_bth_psn(const u8 *bth)
{
	return FIELD_GET(SROCE_BTH_PSN, sroce_bth_apsn_word(bth));
}

static inline void sroce_bth_set_apsn_word(u8 *bth, u32 mask, u32 val)
{
	u32 w = sroce_bth_apsn_word(bth);

	put_unaligned_be32((w & ~mask) | (val & mask), bth + SROCE_BTH_APSN_OFF);
}

static inline void sroce_bth_set_ackreq(u8 *bth, bool on)
{
	sroce_bth_set_apsn_word(bth, SROCE_BTH_ACKREQ,
				on ? SROCE_BTH_ACKREQ : 0);
}

static inline void sroce_bth_set_psn(u8 *bth, u32 psn)
{
	sroce_bth_set_apsn_word(bth, SROCE_BTH_PSN, psn);
}

#endif /* SROCE_CORE_BTH_H */
