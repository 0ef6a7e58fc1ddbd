#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# perftest ib_write_bw over connection types RC UC between the two ends (IPv4 GID).
. "$(dirname "$0")/dp_lib.sh"
dp_perftest ib_write_bw RC UC -- -n 50
