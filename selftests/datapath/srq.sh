#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Data-path acceptance test: build/selftests/dp_srq (selftests/datapath/srq.c).
# Run one case alone: srq.sh -t <name>; list them: srq.sh -l.
. "$(dirname "$0")/dp_lib.sh"
dp_prog srq "$@"
