// SPDX-License-Identifier: GPL-2.0-only
/*
 * gen_corpus.c - write the seed corpora for the fuzzers.
 *
 *   gen_corpus <parse-dir> <icrc-dir>
 *
 * parse: one valid packet per supported opcode and payload size (built
 * with sroce_build_hdrs), plus a few malformed ones.  icrc: the ConnectX-4
 * Lx CNP vector and an IPv6 RC packet in fuzz_icrc's input layout.
 */
#include <stdio.h>
#include <stdlib.h>

#include "parse.h"
#include "bth.h"

static void put(const char *dir, const char *name, unsigned int n,
		const u8 *p, size_t len)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s_%u", dir, name, n);
	f = fopen(path, "wb");
	if (!f || fwrite(p, 1, len, f) != len) {
		perror(path);
		exit(1);
	}
	fclose(f);
}

static void gen_parse(const char *dir)
{
	static const u32 sizes[] = { 0, 5, 256 };
	static u8 buf[64 + 256 + 8];
	struct sroce_hdrs h;
	unsigned int op, i;

	for (op = 0; op < 256; op++) {
		const struct sroce_opcode_info *info = sroce_opcode_get(op);

		if (!info)
			continue;
		for (i = 0; i < 3; i++) {
			u32 pl = sizes[i];
			int hl;

			if (!(info->mask & SROCE_M_PAYLOAD) && pl)
				break;
			if (!(info->mask & SROCE_M_END) && (pl & 3))
				continue;
			memset(&h, 0, sizeof(h));
			h.opcode = op;
			h.pad = sroce_pad_for(pl);
			h.pkey = 0xffff;
			h.dqpn = 0x12;
			h.psn = 0xfffff0 + i;
			h.ackreq = i & 1;
			h.reth.len = pl;
			h.deth.qkey = 0x11111111;
			h.aeth.syn = 0x1f;
			hl = sroce_build_hdrs(buf, sizeof(buf), &h);
			if (hl < 0)
				exit(1);
			memset(buf + hl, 0x5a, pl + h.pad + SROCE_ICRC_LEN);
			put(dir, info->name, i, buf,
			    hl + pl + h.pad + SROCE_ICRC_LEN);
		}
	}
	memset(buf, 0, 40);
	buf[0] = 0x4c;
	put(dir, "RD", 0, buf, 40);
	buf[0] = SROCE_OP_CNP;
	put(dir, "CNP", 0, buf, 32);
	buf[0] = SROCE_OP_RC_SEND_FIRST;
	buf[1] = 0x31;		/* pad 3, tver 1 */
	put(dir, "BAD", 0, buf, 24);
}

static void gen_icrc(const char *dir)
{
	static const u8 cnp[3 + 20 + 8 + 28] = {
		0x00, 0x05, 0x03,
		0x45, 0xc2, 0x00, 0x3c, 0x71, 0x8c, 0x40, 0x00, 0x40, 0x11,
		0x91, 0x61, 0x0a, 0x00, 0x11, 0x01, 0x0a, 0x00, 0x12, 0x01,
		0x00, 0x00, 0x12, 0xb7, 0x00, 0x28, 0x00, 0x00,
		0x81, 0x00, 0xff, 0xff, 0x40, 0x00, 0x01, 0x18, 0, 0, 0, 0,
	};
	u8 v6[3 + 40 + 8 + 12 + 64];
	size_t i;

	put(dir, "cnp_cx4lx", 0, cnp, sizeof(cnp));
	memset(v6, 0, sizeof(v6));
	v6[0] = 1;
	v6[1] = 7;
	v6[2] = 9;
	v6[3] = 0x60;
	v6[3 + 6] = 0x11;
	v6[3 + 7] = 0x40;
	v6[3 + 40 + 2] = 0x12;
	v6[3 + 40 + 3] = 0xb7;
	v6[3 + 48] = SROCE_OP_RC_SEND_ONLY;
	for (i = 3 + 48 + 12; i < sizeof(v6); i++)
		v6[i] = (u8)i;
	put(dir, "ipv6_rc", 0, v6, sizeof(v6));
}

int main(int argc, char **argv)
{
	if (argc != 3) {
		fprintf(stderr, "usage: %s <parse-dir> <icrc-dir>\n", argv[0]);
		return 2;
	}
	gen_parse(argv[1]);
	gen_icrc(argv[2]);
	return 0;
}
