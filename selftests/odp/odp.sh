#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# On-demand paging (seed-rules R5.3): build/selftests/dp_odp (selftests/odp/odp.c).
# Run one case alone: odp.sh -t <name>; list them: odp.sh -l.
. "$(dirname "$0")/../datapath/dp_lib.sh"
dp_prog odp "$@"
