#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Data-path acceptance test: build/selftests/dp_atomic (selftests/datapath/atomic.c).
# Run one case alone: atomic.sh -t <name>; list them: atomic.sh -l.
. "$(dirname "$0")/dp_lib.sh"
dp_prog atomic "$@"
