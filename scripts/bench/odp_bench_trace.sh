#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# The packet damming benchmark (odp_bench.sh -t damming) under ftrace, to
# find what a slow run waited for: scheduler, interrupt, softirq, work
# queue, syscall, page fault and sroce events, every run bracketed by
# trace_marker lines (ODP_BENCH_TRACE=1). The trace goes to
# build/bench/odp-damming-trace.txt; scripts/bench/odp-trace-slow cuts
# the slow runs out of it. Not a test: a diagnostic (Documentation/odp.md).
#   odp_bench_trace.sh [-c CPU]   -c: run the benchmark on that CPU only
. "$(dirname "$0")/../../selftests/lib.sh"
T=/sys/kernel/tracing
# sroce's events exist once it is loaded (odp_bench.sh loads it too).
sroce_load || exit 1
mountpoint -q $T || mount -t tracefs nodev $T || exit 1
out=$(cd "$(dirname "$0")/../.." && pwd)/build/bench
mkdir -p "$out"
echo 0 >$T/tracing_on
echo >$T/trace
echo mono >$T/trace_clock
echo "${ODP_TRACE_KB:-32768}" >$T/buffer_size_kb
for e in sched/sched_switch sched/sched_wakeup sched/sched_waking \
	sched/sched_migrate_task irq/softirq_entry irq/softirq_exit \
	irq/irq_handler_entry irq/irq_handler_exit irq_vectors \
	workqueue/workqueue_queue_work workqueue/workqueue_execute_start \
	workqueue/workqueue_execute_end raw_syscalls exceptions tlb \
	timer/hrtimer_expire_entry sroce; do
	[ -e $T/events/$e/enable ] && echo 1 >$T/events/$e/enable
done
echo 1 >$T/tracing_on
ODP_BENCH_TRACE=1 bash "$(dirname "$0")/odp_bench.sh" "$@" -t damming
rc=$?
echo 0 >$T/tracing_on
cat $T/trace >"$out/odp-damming-trace.txt"
grep -c . "$out/odp-damming-trace.txt"
exit $rc
