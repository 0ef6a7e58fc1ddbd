#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# The ODP benchmarks (packet damming, packet flood; seed-rules R5.3) in the guest:
# build/selftests/dp_odp_bench (selftests/odp/odp_bench.c).
#   odp_bench.sh [-c CPU] -t damming | -t flood
# -c: run the program on that CPU only (taskset), e.g. one the guest kernel
# isolated (scripts/bench/odp-bench-run, ODP_BENCH_ISOLATED=1).
# Not in tests.list: a benchmark (scripts/bench/odp-damming, odp-flood).
. "$(dirname "$0")/../datapath/dp_lib.sh"
if [ "${1:-}" = -c ]; then
	# shellcheck disable=SC2034 # read by dp_prog
	DP_PREFIX_CMD="taskset -c $2"
	shift 2
fi
dp_prog odp_bench "$@"
