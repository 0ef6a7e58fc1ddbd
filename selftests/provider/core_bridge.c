// SPDX-License-Identifier: GPL-2.0-only
/* See core_bridge.h. Built against selftests/host/shim like the core. */
#include "opcode.h"
#include "core_bridge.h"

int core_wr_allowed(int qpt, const char *kind)
{
	int k;

	BUILD_BUG_ON(SROCE_QPT_RC != CORE_QPT_RC || SROCE_QPT_UC != CORE_QPT_UC ||
		     SROCE_QPT_UD != CORE_QPT_UD ||
		     SROCE_QPT_XRC_INI != CORE_QPT_XRC_INI);
	for (k = 0; k < SROCE_WR_KIND_COUNT; k++)
		if (!strcmp(sroce_wr_kind_name(k), kind))
			return sroce_wr_kind_allowed(qpt, k);
	return -1;
}
