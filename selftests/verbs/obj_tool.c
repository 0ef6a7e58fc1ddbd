// SPDX-License-Identifier: GPL-2.0-only
/*
 * obj_tool: create sroce objects for the shell tests.
 *
 *   obj_tool -d dev hold N    create N of each object (CQ, SRQ, MR, MW type
 *                             1 and 2, AH when a 192.0.2.1 GID exists),
 *                             print READY, wait for stdin to close, destroy
 *   obj_tool -d dev cycle N   N create/destroy cycles of each object
 *
 * Exits 0, or 1 with a message on the first failing verb.
 */
#include <arpa/inet.h>
#include "harness.h"

struct objs {
	struct ibv_cq *cq;
	struct ibv_srq *srq;
	struct ibv_mr *mr;
	struct ibv_mw *mw1, *mw2;
	struct ibv_ah *ah;
};

static char mrbuf[64 * 1024];

static int v4_gid_index(struct hctx *c)
{
	union ibv_gid want = { .raw = { [10] = 0xff, [11] = 0xff } };
	struct ibv_gid_entry e;
	struct ibv_port_attr pa;
	int i;

	inet_pton(AF_INET, "192.0.2.1", &want.raw[12]);
	if (ibv_query_port(c->ctx, 1, &pa))
		return -1;
	for (i = 0; i < pa.gid_tbl_len; i++)
		if (!ibv_query_gid_ex(c->ctx, 1, i, &e, 0) &&
		    e.gid_type == IBV_GID_TYPE_ROCE_V2 &&
		    !memcmp(e.gid.raw, want.raw, 16))
			return i;
	return -1;
}

static void create(struct hctx *c, struct objs *o, int gid)
{
	struct ibv_srq_init_attr sa = { .attr = { .max_wr = 32, .max_sge = 2 } };
	struct ibv_ah_attr aa = {
		.is_global = 1, .port_num = 1,
		.grh = { .sgid_index = gid, .hop_limit = 64,
			 .dgid.raw = { [10] = 0xff, [11] = 0xff, 192, 0, 2, 2 } },
	};

	o->cq = ASSERT_PTR(ibv_create_cq(c->ctx, 64, NULL, NULL, 0));
	o->srq = ASSERT_PTR(ibv_create_srq(c->pd, &sa));
	o->mr = ASSERT_PTR(ibv_reg_mr(c->pd, mrbuf, sizeof(mrbuf),
				      IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
				      IBV_ACCESS_MW_BIND));
	o->mw1 = ASSERT_PTR(ibv_alloc_mw(c->pd, IBV_MW_TYPE_1));
	o->mw2 = ASSERT_PTR(ibv_alloc_mw(c->pd, IBV_MW_TYPE_2));
	o->ah = gid >= 0 ? ASSERT_PTR(ibv_create_ah(c->pd, &aa)) : NULL;
}

static void destroy(struct objs *o)
{
	if (o->ah)
		ASSERT_OK(ibv_destroy_ah(o->ah));
	ASSERT_OK(ibv_dealloc_mw(o->mw2));
	ASSERT_OK(ibv_dealloc_mw(o->mw1));
	ASSERT_OK(ibv_dereg_mr(o->mr));
	ASSERT_OK(ibv_destroy_srq(o->srq));
	ASSERT_OK(ibv_destroy_cq(o->cq));
}

int main(int argc, char **argv)
{
	struct objs *o;
	struct hctx c;
	int opt, n, i, gid;
	char b;

	harness_dev = getenv("SROCE_DEV");
	while ((opt = getopt(argc, argv, "d:")) != -1)
		if (opt == 'd')
			harness_dev = optarg;
	if (!harness_dev || argc - optind != 2) {
		fprintf(stderr, "usage: %s -d dev hold|cycle N\n", argv[0]);
		return 1;
	}
	n = atoi(argv[optind + 1]);
	HCTX_SETUP(&c);
	gid = v4_gid_index(&c);
	o = calloc(n > 0 ? n : 1, sizeof(*o));
	ASSERT_TRUE(o);
	if (!strcmp(argv[optind], "hold")) {
		for (i = 0; i < n; i++)
			create(&c, &o[i], gid);
		printf("READY\n");
		fflush(stdout);
		while (read(0, &b, 1) > 0)
			;
		for (i = 0; i < n; i++)
			destroy(&o[i]);
	} else {
		for (i = 0; i < n; i++) {
			create(&c, o, gid);
			destroy(o);
		}
	}
	free(o);
	hctx_teardown(&c);
	return 0;
}
