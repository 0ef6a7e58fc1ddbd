#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Data-path acceptance test: build/selftests/dp_send_recv (selftests/datapath/send_recv.c).
# Run one case alone: send_recv.sh -t <name>; list them: send_recv.sh -l.
. "$(dirname "$0")/dp_lib.sh"
dp_prog send_recv "$@"
