/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The kernel core's work-request table (kernel/core/opcode.c) seen from a
 * test that cannot include the core's headers next to libibverbs' ones.
 */
#ifndef SROCE_TEST_CORE_BRIDGE_H
#define SROCE_TEST_CORE_BRIDGE_H

/* Core QP type indices (enum sroce_qp_type). */
#define CORE_QPT_RC 0
#define CORE_QPT_UC 1
#define CORE_QPT_UD 2
#define CORE_QPT_XRC_INI 3

/* 1/0: may @qpt post the kind named @kind ("SEND", "READ", ...); -1: unknown */
int core_wr_allowed(int qpt, const char *kind);

#endif
