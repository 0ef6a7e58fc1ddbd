#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Seed 004's ODP experiments (seed-rules R5.3) in the guest:
# build/selftests/dp_odp_bench (selftests/odp/odp_bench.c).
#   odp_bench.sh -t damming | -t flood
# Not in tests.list: a benchmark (scripts/bench/odp-damming, odp-flood).
. "$(dirname "$0")/../datapath/dp_lib.sh"
dp_prog odp_bench "$@"
