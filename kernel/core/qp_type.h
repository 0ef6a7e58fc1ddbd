/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * qp_type.h - the QP service types sroce offers (seed-rules R1.1).
 *
 * RD is not offered to users; these values are sroce's own and are mapped
 * from/to IB_QPT_* by the kernel glue. XRC (IBA annex A14) is two types:
 * the initiator sends like an RC requester; the target answers like an RC
 * responder, taking receive WQEs from the XRC SRQ each request names.
 */
#ifndef SROCE_CORE_QP_TYPE_H
#define SROCE_CORE_QP_TYPE_H

#include "core_types.h"

enum sroce_qp_type {
	SROCE_QPT_RC,
	SROCE_QPT_UC,
	SROCE_QPT_UD,
	SROCE_QPT_XRC_INI,
	SROCE_QPT_XRC_TGT,
	SROCE_QPT_COUNT
};

#define SROCE_QPT_BIT(t)	BIT(t)
#define SROCE_QPT_ALL		GENMASK(SROCE_QPT_COUNT - 1, 0)

#endif /* SROCE_CORE_QP_TYPE_H */
