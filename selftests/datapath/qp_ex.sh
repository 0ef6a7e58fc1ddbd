#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Data-path acceptance test: build/selftests/dp_qp_ex (selftests/datapath/qp_ex.c).
# Run one case alone: qp_ex.sh -t <name>; list them: qp_ex.sh -l.
. "$(dirname "$0")/dp_lib.sh"
dp_prog qp_ex "$@"
