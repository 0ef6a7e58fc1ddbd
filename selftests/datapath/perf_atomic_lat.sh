#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# perftest ib_atomic_lat over connection types RC between the two ends (IPv4 GID).
. "$(dirname "$0")/dp_lib.sh"
dp_perftest ib_atomic_lat RC -- -n 50
