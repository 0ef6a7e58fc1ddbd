#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# perftest ib_read_bw over connection types RC between the two ends (IPv4 GID).
. "$(dirname "$0")/dp_lib.sh"
dp_perftest ib_read_bw RC -- -n 50
