// SPDX-License-Identifier: GPL-2.0-only
/*
 * fuzz_parse.c - libFuzzer harness for sroce_parse_hdrs().
 *
 * Checks, for every input: no out-of-bounds read (libFuzzer hands us an
 * exactly-sized heap buffer, ASan watches it), no UB, no core WARN, a
 * result code in range, and for accepted packets:
 *  - the decoded lengths add up to the input length;
 *  - build(parse(x)) reproduces x's header bytes with reserved bits
 *    cleared;
 *  - parse(build(parse(x))) == parse(x).
 */
#include <stdlib.h>

#include "parse.h"
#include "bth.h"
#include "ext_hdrs.h"

/* Reserved wire bits the builder writes as zero. */
static void clear_reserved(u8 *hdr, const struct sroce_opcode_info *info)
{
	hdr[SROCE_BTH_QPN_OFF] &= 0xc0;		/* keep FECN, BECN */
	hdr[SROCE_BTH_APSN_OFF] &= 0x80;	/* keep AckReq */
	if (info->mask & SROCE_M_DETH)
		hdr[info->offset[SROCE_EXT_DETH] + SROCE_DETH_SQP_OFF] = 0;
	if (info->mask & SROCE_M_XRCETH)	/* reserved(31:24) */
		hdr[info->offset[SROCE_EXT_XRCETH]] = 0;
	if (info->mask & SROCE_M_FETH) {
		u8 *feth = hdr + info->offset[SROCE_EXT_FETH];

		/* only the placement type and selectivity level: bits 5:0 */
		feth[0] = feth[1] = feth[2] = 0;
		feth[3] &= 0x3f;
	}
}

int LLVMFuzzerTestOneInput(const u8 *data, size_t size)
{
	const struct sroce_opcode_info *info;
	struct sroce_hdrs a, b;
	u8 *buf, *want;
	int ret, hl;

	ret = sroce_parse_hdrs(data, size, &a);
	if (ret > 0 || ret <= -SROCE_PARSE_ERR_COUNT)
		__builtin_trap();
	if (ret)
		goto out;

	info = sroce_opcode_get(a.opcode);
	if (!info || a.pkt_len != size || a.hdr_len != info->length ||
	    a.payload_off != a.hdr_len || a.payload_len > SROCE_MAX_PAYLOAD ||
	    (size_t)a.hdr_len + a.payload_len + a.pad + SROCE_ICRC_LEN != size)
		__builtin_trap();

	buf = malloc(size);
	want = malloc(size);
	if (!buf || !want)
		abort();
	hl = sroce_build_hdrs(buf, size, &a);
	if (hl != (int)a.hdr_len)
		__builtin_trap();
	memcpy(want, data, hl);
	clear_reserved(want, info);
	if (memcmp(buf, want, hl))
		__builtin_trap();
	memcpy(buf + hl, data + hl, size - hl);
	if (sroce_parse_hdrs(buf, size, &b) || memcmp(&a, &b, sizeof(a)))
		__builtin_trap();
	free(want);
	free(buf);
out:
	if (host_warn_count)
		__builtin_trap();
	return 0;
}
