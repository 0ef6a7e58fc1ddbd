// SPDX-License-Identifier: GPL-2.0-only
/*
 * AH verbs on sroce: address handles on the device's RoCE v2 GIDs (IPv4
 * and IPv6 peers), a missing GRH, a bad sgid_index. Needs the device on
 * veth_a of selftests/lib.sh's topology (peer 192.0.2.2 / 2001:db8::2).
 */
#include <arpa/inet.h>
#include "harness.h"

/* Index of the RoCE v2 GID equal to @ip (an IPv4 or IPv6 literal). */
static int find_gid(struct hctx *c, const char *ip)
{
	struct ibv_port_attr pa;
	struct ibv_gid_entry e;
	union ibv_gid want = {};
	struct in_addr v4;
	int i;

	if (inet_pton(AF_INET, ip, &v4) == 1) {
		want.raw[10] = want.raw[11] = 0xff;
		memcpy(&want.raw[12], &v4, 4);
	} else if (inet_pton(AF_INET6, ip, want.raw) != 1) {
		TH_FAIL("bad address %s", ip);
	}
	ASSERT_OK(ibv_query_port(c->ctx, 1, &pa));
	for (i = 0; i < pa.gid_tbl_len; i++) {
		if (ibv_query_gid_ex(c->ctx, 1, i, &e, 0))
			continue;
		if (e.gid_type == IBV_GID_TYPE_ROCE_V2 &&
		    !memcmp(e.gid.raw, want.raw, 16))
			return i;
	}
	return -1;
}

static struct ibv_ah *mk_ah(struct hctx *c, const char *peer, int sgid_index)
{
	struct ibv_ah_attr a = {
		.is_global = 1,
		.port_num = 1,
		.grh = { .sgid_index = sgid_index, .hop_limit = 64 },
	};
	struct in_addr v4;

	if (inet_pton(AF_INET, peer, &v4) == 1) {
		a.grh.dgid.raw[10] = a.grh.dgid.raw[11] = 0xff;
		memcpy(&a.grh.dgid.raw[12], &v4, 4);
	} else {
		inet_pton(AF_INET6, peer, a.grh.dgid.raw);
	}
	return ibv_create_ah(c->pd, &a);
}

TEST(ah_ipv4)
{
	struct ibv_ah *ah;
	struct hctx c;
	int idx;

	HCTX_SETUP(&c);
	idx = find_gid(&c, "192.0.2.1");
	if (idx < 0)
		TH_FAIL("no RoCE v2 GID for 192.0.2.1 (is the device on veth_a?)");
	ah = ASSERT_PTR(mk_ah(&c, "192.0.2.2", idx));
	ASSERT_OK(ibv_destroy_ah(ah));
	hctx_teardown(&c);
}

TEST(ah_ipv6)
{
	struct ibv_ah *ah;
	struct hctx c;
	int idx;

	HCTX_SETUP(&c);
	idx = find_gid(&c, "2001:db8::1");
	if (idx < 0)
		TH_FAIL("no RoCE v2 GID for 2001:db8::1");
	ah = ASSERT_PTR(mk_ah(&c, "2001:db8::2", idx));
	ASSERT_OK(ibv_destroy_ah(ah));
	hctx_teardown(&c);
}

TEST(ah_bad_sgid_index)
{
	struct ibv_port_attr pa;
	struct ibv_gid_entry e;
	struct hctx c;
	int idx;

	HCTX_SETUP(&c);
	ASSERT_OK(ibv_query_port(c.ctx, 1, &pa));
	/* The last table entry is empty on a device with a few addresses. */
	idx = pa.gid_tbl_len - 1;
	ASSERT_NE(ibv_query_gid_ex(c.ctx, 1, idx, &e, 0), 0);
	errno = 0;
	ASSERT_TRUE(mk_ah(&c, "192.0.2.2", idx) == NULL);
	ASSERT_NE(errno, 0);
	TH_INFO("sgid_index %d: errno %d (%s)", idx, errno, strerror(errno));
	ASSERT_TRUE(mk_ah(&c, "192.0.2.2", pa.gid_tbl_len + 5) == NULL);
	hctx_teardown(&c);
}

/* RoCE needs a GRH (the address is in it). */
TEST(ah_no_grh)
{
	struct ibv_ah_attr a = { .port_num = 1, .dlid = 1 };
	struct hctx c;

	HCTX_SETUP(&c);
	ASSERT_NULL_ERRNO(ibv_create_ah(c.pd, &a), EINVAL);
	hctx_teardown(&c);
}

TEST(ah_many)
{
	struct ibv_ah *ah[64];
	struct hctx c;
	int i, i4, i6;

	HCTX_SETUP(&c);
	i4 = find_gid(&c, "192.0.2.1");
	i6 = find_gid(&c, "2001:db8::1");
	ASSERT_TRUE(i4 >= 0 && i6 >= 0);
	for (i = 0; i < 64; i++)
		ah[i] = ASSERT_PTR(i & 1 ? mk_ah(&c, "2001:db8::2", i6) :
					   mk_ah(&c, "192.0.2.2", i4));
	for (i = 0; i < 64; i++)
		ASSERT_OK(ibv_destroy_ah(ah[i]));
	hctx_teardown(&c);
}

HARNESS_MAIN
