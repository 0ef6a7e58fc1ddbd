#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# The per-QP receive queue is bounded: a flood to an RC QP whose engines
# cannot run is dropped and counted past 2048 packets, the memory comes
# back, and the QP carries traffic again (seed-rules R2.5):
# build/selftests/hard_rxq (hardening/hard_rxq.c). Run one case alone:
# rxq.sh -t <name>; list: rxq.sh -l.
. "$(dirname "$0")/../errors/err_lib.sh"
# The flood (net/roce_flood.py) turns RT throttling off for its run and
# back on after it; this puts it back should the flood be killed.
rt_runtime=$(cat /proc/sys/kernel/sched_rt_runtime_us)
trap 'echo "$rt_runtime" > /proc/sys/kernel/sched_rt_runtime_us' EXIT
dp_prog hard_rxq "$@"
