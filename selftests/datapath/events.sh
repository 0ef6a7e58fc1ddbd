#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Data-path acceptance test: build/selftests/dp_events (selftests/datapath/events.c).
# Run one case alone: events.sh -t <name>; list them: events.sh -l.
. "$(dirname "$0")/dp_lib.sh"
dp_prog events "$@"
