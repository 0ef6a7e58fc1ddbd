#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# The ODP benchmarks (packet damming, packet flood; seed-rules R5.3) in the guest:
# build/selftests/dp_odp_bench (scripts/bench/odp_bench.c, built by
# scripts/build-selftests.sh).
#   odp_bench.sh [-c CPU] -t damming | -t flood
# -c: run the program on that CPU only (taskset), e.g. one the guest kernel
# isolated (scripts/bench/odp-bench-run, ODP_BENCH_ISOLATED=1).
# A benchmark, run by scripts/bench/odp-damming and odp-flood.
. "$(dirname "$0")/../../selftests/datapath/dp_lib.sh"
if [ "${1:-}" = -c ]; then
	# shellcheck disable=SC2034 # read by dp_prog
	DP_PREFIX_CMD="taskset -c $2"
	shift 2
fi
dp_prog odp_bench "$@"
