#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Data-path test (lost doorbells): build/selftests/dp_doorbell (selftests/datapath/doorbell.c).
# Run one case alone: doorbell.sh -t <name>; list them: doorbell.sh -l.
. "$(dirname "$0")/dp_lib.sh"
dp_prog doorbell "$@"
