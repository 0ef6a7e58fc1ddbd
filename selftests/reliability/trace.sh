#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# sroce's tracepoints against a loss run and the counters:
# build/selftests/rel_trace (selftests/reliability/trace.c). One case:
# trace.sh -t <name>; list: -l.
. "$(dirname "$0")/rel_lib.sh"
T=/sys/kernel/tracing
mountpoint -q $T || mount -t tracefs nodev $T || skip "no tracefs at $T"
rel_prog trace "$@"
