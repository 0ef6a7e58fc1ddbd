/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Force-included in the test build of sroce_wqe.c and test_wqe.c: every
 * store-release of a ring index goes through test_store_release(), which
 * checks what the kernel would see at that instant, then stores.
 */
#ifndef SROCE_TEST_HOOKS_H
#define SROCE_TEST_HOOKS_H

#include <stdint.h>

void test_store_release(uint32_t *p, uint32_t v);
#define sroce_uring_store_release(p, v) test_store_release((p), (v))

#endif
