// SPDX-License-Identifier: GPL-2.0-only
/*
 * MR and MW verbs on sroce: access-flag rules, bad addresses, large MRs,
 * keys, memory windows of type 1 and 2, and the capabilities advertised.
 */
#include <stdint.h>
#include <sys/mman.h>
#include "harness.h"

#define LW IBV_ACCESS_LOCAL_WRITE
#define RW IBV_ACCESS_REMOTE_WRITE
#define RR IBV_ACCESS_REMOTE_READ
#define RA IBV_ACCESS_REMOTE_ATOMIC
#define MB IBV_ACCESS_MW_BIND

TEST(mr_caps)
{
	struct hctx c;
	uint64_t f;

	HCTX_SETUP(&c);
	f = c.attr.orig_attr.device_cap_flags;
	ASSERT_TRUE(f & IBV_DEVICE_MEM_MGT_EXTENSIONS);
	ASSERT_TRUE(f & IBV_DEVICE_MEM_WINDOW);
	ASSERT_TRUE(f & IBV_DEVICE_MEM_WINDOW_TYPE_2B);
	ASSERT_FALSE(f & IBV_DEVICE_SRQ_RESIZE);	/* not implemented */
	ASSERT_GE(c.attr.orig_attr.max_mr, 1);
	ASSERT_GE(c.attr.orig_attr.max_mw, 1);
	hctx_teardown(&c);
}

/* IBA o10-36.2.2: remote write or atomic needs local write. */
TEST(mr_access_flags)
{
	static const struct { int access, err; } cases[] = {
		{ 0, 0 }, { LW, 0 }, { RR, 0 }, { LW | RR, 0 }, { LW | RW, 0 },
		{ LW | RA, 0 }, { LW | RW | RR | RA | MB, 0 }, { MB, 0 },
		{ RW, EINVAL }, { RA, EINVAL }, { RW | RR, EINVAL },
		{ RA | RR | MB, EINVAL },
		/* On-demand paging (seed-rules R5.2), with the same rule. */
		{ LW | IBV_ACCESS_ON_DEMAND, 0 },
		{ LW | RW | RR | RA | IBV_ACCESS_ON_DEMAND, 0 },
		{ RW | IBV_ACCESS_ON_DEMAND, EINVAL },
	};
	static char buf[8192];
	struct ibv_mr *mr;
	struct hctx c;
	unsigned int i;

	HCTX_SETUP(&c);
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		errno = 0;
		mr = ibv_reg_mr(c.pd, buf, sizeof(buf), cases[i].access);
		if (cases[i].err) {
			if (mr)
				TH_FAIL("access %#x registered, expected errno %d",
					cases[i].access, cases[i].err);
			if (errno != cases[i].err)
				TH_FAIL("access %#x: errno %d, expected %d",
					cases[i].access, errno, cases[i].err);
			continue;
		}
		if (!mr)
			TH_FAIL("access %#x: errno %d", cases[i].access, errno);
		ASSERT_EQ(mr->addr, buf);
		ASSERT_EQ(mr->length, sizeof(buf));
		ASSERT_OK(ibv_dereg_mr(mr));
	}
	hctx_teardown(&c);
}

/* seed-rules R5.1: keys carry a table index; each MR has its own. */
TEST(mr_keys)
{
	static char buf[16][4096];
	struct ibv_mr *mr[16];
	struct hctx c;
	int i, j;

	HCTX_SETUP(&c);
	for (i = 0; i < 16; i++) {
		mr[i] = ASSERT_PTR(ibv_reg_mr(c.pd, buf[i], 4096, LW | RW | RR));
		ASSERT_NE(mr[i]->lkey >> 8, 0);
		for (j = 0; j < i; j++) {
			ASSERT_NE(mr[i]->lkey >> 8, mr[j]->lkey >> 8);
			ASSERT_NE(mr[i]->rkey >> 8, mr[j]->rkey >> 8);
		}
	}
	for (i = 0; i < 16; i++)
		ASSERT_OK(ibv_dereg_mr(mr[i]));
	hctx_teardown(&c);
}

TEST(mr_bad_address)
{
	size_t len = 4 * 4096;
	struct hctx c;
	void *p;

	HCTX_SETUP(&c);
	p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_TRUE(p != MAP_FAILED);
	ASSERT_OK(munmap(p, len));
	ASSERT_NULL_ERRNO(ibv_reg_mr(c.pd, p, len, LW), EFAULT);
	/* Read-only memory cannot be registered for (local) write. */
	p = mmap(NULL, len, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_TRUE(p != MAP_FAILED);
	ASSERT_NULL_ERRNO(ibv_reg_mr(c.pd, p, len, LW), EFAULT);
	ASSERT_OK(munmap(p, len));
	hctx_teardown(&c);
}

TEST(mr_unaligned_and_iova)
{
	static char buf[3 * 4096];
	struct ibv_mr *mr;
	struct hctx c;
	uint64_t iova;

	HCTX_SETUP(&c);
	mr = ASSERT_PTR(ibv_reg_mr(c.pd, buf + 100, 5000, LW));
	ASSERT_OK(ibv_dereg_mr(mr));
	iova = 0x1000000 + ((uintptr_t)(buf + 7) & 4095);
	mr = ASSERT_PTR(ibv_reg_mr_iova(c.pd, buf + 7, 4096, iova, LW | RR));
	ASSERT_EQ(mr->addr, buf + 7);
	ASSERT_OK(ibv_dereg_mr(mr));
	/* The core wants the iova at the same offset in a page as the address. */
	ASSERT_NULL_ERRNO(ibv_reg_mr_iova(c.pd, buf + 7, 4096, iova + 1, LW), EINVAL);
	hctx_teardown(&c);
}

TEST(mr_large)
{
	size_t len = 128UL << 20;
	struct ibv_mr *mr;
	struct hctx c;
	void *p;

	HCTX_SETUP(&c);
	p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_TRUE(p != MAP_FAILED);
	mr = ASSERT_PTR(ibv_reg_mr(c.pd, p, len, LW | RW | RR));
	ASSERT_EQ(mr->length, len);
	ASSERT_OK(ibv_dereg_mr(mr));
	ASSERT_OK(munmap(p, len));
	hctx_teardown(&c);
}

/* The MR belongs to its PD: deallocating the PD first is refused. */
TEST(mr_pd_busy)
{
	static char buf[4096];
	struct ibv_mr *mr;
	struct hctx c;

	HCTX_SETUP(&c);
	mr = ASSERT_PTR(ibv_reg_mr(c.pd, buf, sizeof(buf), LW));
	ASSERT_RET(ibv_dealloc_pd(c.pd), EBUSY);
	ASSERT_OK(ibv_dereg_mr(mr));
	hctx_teardown(&c);
}

TEST(mw_alloc_types)
{
	struct ibv_mw *mw1, *mw2, *mw[32];
	struct hctx c;
	int i;

	HCTX_SETUP(&c);
	mw1 = ASSERT_PTR(ibv_alloc_mw(c.pd, IBV_MW_TYPE_1));
	mw2 = ASSERT_PTR(ibv_alloc_mw(c.pd, IBV_MW_TYPE_2));
	ASSERT_EQ(mw1->type, IBV_MW_TYPE_1);
	ASSERT_EQ(mw2->type, IBV_MW_TYPE_2);
	ASSERT_NE(mw1->rkey >> 8, 0);
	ASSERT_NE(mw1->rkey >> 8, mw2->rkey >> 8);
	/* ibv_bind_mw is for type 1 only (type 2 is bound by post_send). */
	ASSERT_RET(ibv_bind_mw(NULL, mw2, &(struct ibv_mw_bind){}), EINVAL);
	ASSERT_OK(ibv_dealloc_mw(mw1));
	ASSERT_OK(ibv_dealloc_mw(mw2));
	for (i = 0; i < 32; i++)
		mw[i] = ASSERT_PTR(ibv_alloc_mw(c.pd, i & 1 ? IBV_MW_TYPE_2 :
							   IBV_MW_TYPE_1));
	for (i = 0; i < 32; i++)
		ASSERT_OK(ibv_dealloc_mw(mw[i]));
	ASSERT_NULL_ERRNO(ibv_alloc_mw(c.pd, (enum ibv_mw_type)7), EINVAL);
	hctx_teardown(&c);
}

/* Windows and MRs share one key space: no index is used twice. */
TEST(mw_mr_key_space)
{
	static char buf[4096];
	struct ibv_mw *mw;
	struct ibv_mr *mr;
	struct hctx c;

	HCTX_SETUP(&c);
	mr = ASSERT_PTR(ibv_reg_mr(c.pd, buf, sizeof(buf), LW | MB));
	mw = ASSERT_PTR(ibv_alloc_mw(c.pd, IBV_MW_TYPE_2));
	ASSERT_NE(mr->rkey >> 8, mw->rkey >> 8);
	ASSERT_OK(ibv_dealloc_mw(mw));
	ASSERT_OK(ibv_dereg_mr(mr));
	hctx_teardown(&c);
}

HARNESS_MAIN
