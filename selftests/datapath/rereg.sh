#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Data-path test: ibv_rereg_mr and CQ cleaning on RESET, build/selftests/dp_rereg (selftests/datapath/rereg.c).
# Run one case alone: rereg.sh -t <name>; list them: rereg.sh -l.
. "$(dirname "$0")/dp_lib.sh"
dp_prog rereg "$@"
