#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Data-path test: UD multicast, build/selftests/dp_mcast (selftests/datapath/mcast.c).
# Run one case alone: mcast.sh -t <name>; list them: mcast.sh -l.
. "$(dirname "$0")/dp_lib.sh"
dp_prog mcast "$@"
