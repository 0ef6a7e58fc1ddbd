#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# perftest ib_send_bw over connection types RC UC UD between the two ends (IPv4 GID).
. "$(dirname "$0")/dp_lib.sh"
dp_perftest ib_send_bw RC UC UD -- -n 50 -s 512
