// SPDX-License-Identifier: GPL-2.0-only
/*
 * parse.c - transport header validation, decoding and building.
 *
 * Order of checks (each failure has its own enum sroce_parse_err code):
 * BTH present, opcode transport and support, transport version, extension
 * headers present, ICRC present, payload+pad alignment, pad count, pad only
 * on the last packet, payload only where the opcode has one, payload size.
 * All length arithmetic is done on size_t values already proven to be
 * within @len, so nothing can wrap.
 */
#include "parse.h"
#include "bth.h"
#include "ext_hdrs.h"

#define PARSE_ERR_NAME(name, desc)	[SROCE_PARSE_ERR_##name] = #name,
static const char * const parse_err_names[SROCE_PARSE_ERR_COUNT] = {
	[SROCE_PARSE_OK] = "OK",
	SROCE_PARSE_ERR_LIST(PARSE_ERR_NAME)
};

const char *sroce_parse_err_name(int err)
{
	if (err < 0)
		err = -err;
	if (err >= SROCE_PARSE_ERR_COUNT)
		return "UNKNOWN";
	return parse_err_names[err];
}

static int check_opcode(u8 opcode, const struct sroce_opcode_info **info)
{
	switch (sroce_opcode_transport(opcode)) {
	case SROCE_TR_RD:
		return -SROCE_PARSE_ERR_OPCODE_RD;
	case SROCE_TR_CNP:
		if (opcode == SROCE_OP_CNP)
			return -SROCE_PARSE_ERR_CNP;
		break;
	default:
		break;
	}

	*info = sroce_opcode_get(opcode);
	if (!*info)
		return -SROCE_PARSE_ERR_OPCODE_UNKNOWN;
	return 0;
}

static void decode_bth(const u8 *bth, struct sroce_hdrs *h)
{
	h->opcode = sroce_bth_opcode(bth);
	h->se = sroce_bth_se(bth);
	h->mig = sroce_bth_mig(bth);
	h->pad = sroce_bth_pad(bth);
	h->tver = sroce_bth_tver(bth);
	h->pkey = sroce_bth_pkey(bth);
	h->fecn = sroce_bth_fecn(bth);
	h->becn = sroce_bth_becn(bth);
	h->dqpn = sroce_bth_qpn(bth);
	h->ackreq = sroce_bth_ackreq(bth);
	h->psn = sroce_bth_psn(bth);
}

/* Precondition: @buf holds info->length bytes. */
static void decode_ext(const u8 *buf, const struct sroce_opcode_info *info,
		       struct sroce_hdrs *h)
{
	const u8 *p;

	if (info->mask & SROCE_M_DETH) {
		p = buf + info->offset[SROCE_EXT_DETH];
		h->deth.qkey = sroce_deth_qkey(p);
		h->deth.sqpn = sroce_deth_sqpn(p);
	}
	if (info->mask & SROCE_M_XRCETH)
		h->xrc_srqn =
			sroce_xrceth_srqn(buf + info->offset[SROCE_EXT_XRCETH]);
	if (info->mask & SROCE_M_FETH) {
		p = buf + info->offset[SROCE_EXT_FETH];
		h->feth.plt = sroce_feth_plt(p);
		h->feth.sel = sroce_feth_sel(p);
	}
	if (info->mask & SROCE_M_RETH) {
		p = buf + info->offset[SROCE_EXT_RETH];
		h->reth.va = sroce_reth_va(p);
		h->reth.rkey = sroce_reth_rkey(p);
		h->reth.len = sroce_reth_len(p);
	}
	if (info->mask & SROCE_M_ATMETH) {
		p = buf + info->offset[SROCE_EXT_ATMETH];
		h->atmeth.va = sroce_atmeth_va(p);
		h->atmeth.rkey = sroce_atmeth_rkey(p);
		h->atmeth.swap_add = sroce_atmeth_swap_add(p);
		h->atmeth.comp = sroce_atmeth_comp(p);
	}
	if (info->mask & SROCE_M_AETH) {
		p = buf + info->offset[SROCE_EXT_AETH];
		h->aeth.syn = sroce_aeth_syn(p);
		h->aeth.msn = sroce_aeth_msn(p);
	}
	if (info->mask & SROCE_M_ATMACK)
		h->atmack_orig =
			sroce_atmack_orig(buf + info->offset[SROCE_EXT_ATMACK]);
	if (info->mask & SROCE_M_IMMDT)
		h->imm = sroce_immdt_imm(buf + info->offset[SROCE_EXT_IMMDT]);
	if (info->mask & SROCE_M_IETH)
		h->ieth_rkey = sroce_ieth_rkey(buf + info->offset[SROCE_EXT_IETH]);
}

/* Payload/pad rules; @body is payload + pad, already known to fit. */
static int check_payload(const struct sroce_opcode_info *info, size_t body,
			 u8 pad)
{
	if (body & 3)
		return -SROCE_PARSE_ERR_UNALIGNED;
	if (pad > body)
		return -SROCE_PARSE_ERR_PAD;
	if (pad && !(info->mask & SROCE_M_END))
		return -SROCE_PARSE_ERR_PAD_NOT_LAST;
	if (body && !(info->mask & SROCE_M_PAYLOAD))
		return -SROCE_PARSE_ERR_UNEXPECTED_PAYLOAD;
	if (body - pad > SROCE_MAX_PAYLOAD)
		return -SROCE_PARSE_ERR_PAYLOAD_TOO_LONG;
	return 0;
}

int sroce_parse_hdrs(const u8 *buf, size_t len, struct sroce_hdrs *out)
{
	const struct sroce_opcode_info *info = NULL;
	size_t body;
	int err;

	memset(out, 0, sizeof(*out));
	if (len < SROCE_BTH_LEN)
		return -SROCE_PARSE_ERR_TOO_SHORT;

	err = check_opcode(sroce_bth_opcode(buf), &info);
	if (err)
		return err;
	if (sroce_bth_tver(buf) != SROCE_BTH_TVER_IBA)
		return -SROCE_PARSE_ERR_TVER;
	if (len < info->length)
		return -SROCE_PARSE_ERR_HDR_TRUNC;
	if (len - info->length < SROCE_ICRC_LEN)
		return -SROCE_PARSE_ERR_NO_ICRC;

	body = len - info->length - SROCE_ICRC_LEN;
	err = check_payload(info, body, sroce_bth_pad(buf));
	if (err)
		return err;

	decode_bth(buf, out);
	decode_ext(buf, info, out);
	out->mask = info->mask;
	out->hdr_len = info->length;
	out->payload_off = info->offset[SROCE_EXT_PAYLOAD];
	out->payload_len = (u32)(body - out->pad);
	out->pkt_len = (u32)len;
	return 0;
}

/* Precondition: @info is the entry for in->opcode, @buf holds its length. */
static void build_ext(u8 *buf, const struct sroce_opcode_info *info,
		      const struct sroce_hdrs *in)
{
	const u8 *off = info->offset;

	if (info->mask & SROCE_M_DETH)
		sroce_deth_set(buf + off[SROCE_EXT_DETH], in->deth.qkey,
			       in->deth.sqpn);
	if (info->mask & SROCE_M_XRCETH)
		sroce_xrceth_set(buf + off[SROCE_EXT_XRCETH], in->xrc_srqn);
	if (info->mask & SROCE_M_FETH)
		sroce_feth_set(buf + off[SROCE_EXT_FETH], in->feth.plt,
			       in->feth.sel);
	if (info->mask & SROCE_M_RETH)
		sroce_reth_set(buf + off[SROCE_EXT_RETH], in->reth.va,
			       in->reth.rkey, in->reth.len);
	if (info->mask & SROCE_M_ATMETH)
		sroce_atmeth_set(buf + off[SROCE_EXT_ATMETH], in->atmeth.va,
				 in->atmeth.rkey, in->atmeth.swap_add,
				 in->atmeth.comp);
	if (info->mask & SROCE_M_AETH)
		sroce_aeth_set(buf + off[SROCE_EXT_AETH], in->aeth.syn,
			       in->aeth.msn);
	if (info->mask & SROCE_M_ATMACK)
		sroce_atmack_set(buf + off[SROCE_EXT_ATMACK], in->atmack_orig);
	if (info->mask & SROCE_M_IMMDT)
		sroce_immdt_set(buf + off[SROCE_EXT_IMMDT], in->imm);
	if (info->mask & SROCE_M_IETH)
		sroce_ieth_set(buf + off[SROCE_EXT_IETH], in->ieth_rkey);
}

static bool fields_fit(const struct sroce_hdrs *in)
{
	return in->pad <= FIELD_MAX(SROCE_BTH_PAD) &&
	       in->tver <= FIELD_MAX(SROCE_BTH_TVER) &&
	       in->dqpn <= FIELD_MAX(SROCE_BTH_QPN) &&
	       in->psn <= FIELD_MAX(SROCE_BTH_PSN) &&
	       in->aeth.msn <= FIELD_MAX(SROCE_AETH_MSN) &&
	       in->deth.sqpn <= FIELD_MAX(SROCE_DETH_SQPN) &&
	       in->xrc_srqn <= FIELD_MAX(SROCE_XRCETH_SRQN) &&
	       in->feth.plt <= FIELD_MAX(SROCE_FETH_PLT) &&
	       in->feth.sel <= FIELD_MAX(SROCE_FETH_SEL);
}

int sroce_build_hdrs(u8 *buf, size_t room, const struct sroce_hdrs *in)
{
	const struct sroce_opcode_info *info = sroce_opcode_get(in->opcode);

	if (!info || !fields_fit(in))
		return -EINVAL;
	if (room < info->length)
		return -ENOSPC;

	memset(buf, 0, info->length);
	sroce_bth_set_opcode(buf, in->opcode);
	sroce_bth_set_se(buf, in->se);
	sroce_bth_set_mig(buf, in->mig);
	sroce_bth_set_pad(buf, in->pad);
	sroce_bth_set_tver(buf, in->tver);
	sroce_bth_set_pkey(buf, in->pkey);
	sroce_bth_set_fecn(buf, in->fecn);
	sroce_bth_set_becn(buf, in->becn);
	sroce_bth_set_qpn(buf, in->dqpn);
	sroce_bth_set_ackreq(buf, in->ackreq);
	sroce_bth_set_psn(buf, in->psn);
	build_ext(buf, info, in);
	return info->length;
}
