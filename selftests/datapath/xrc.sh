#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Data-path acceptance test: build/selftests/dp_xrc (selftests/datapath/xrc.c), issue 21 section 2.
# Run one case alone: xrc.sh -t <name>; list them: xrc.sh -l.
. "$(dirname "$0")/dp_lib.sh"
dp_prog xrc "$@"
