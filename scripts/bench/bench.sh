#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# make bench: sroce against rdma_rxe and siw in one guest run (QEMU/TCG).
# Builds sroce.ko, libsroce, siw.ko and the obj_scale and wake_ping tools, boots the guest
# with scripts/bench/guest.sh, then prints the table of medians and ratios
# (scripts/bench/report.sh, build/bench/bench.tsv) and draws
# build/bench/bench.png (scripts/bench/chart.sh).
#   BENCH_REPEATS=3             repeats of each measurement (the median is kept)
#   BENCH_SECTIONS=verbs+udp+scale+objs, or "profile" for perf record of
#                               each of BENCH_DEVICES (write_bw 64 KiB and
#                               1 MiB, read_bw 1 MiB, atomic_bw, send_bw 64 B,
#                               send_lat, write_lat and read_lat 8 B:
#                               FILTER picks)
#   BENCH_FILTER=regex          only the tests whose name matches (e.g. write_bw)
#   BENCH_DEVICES=sroce+rxe+siw devices to run; "sroce_wq" is sroce with
#                               inline_engines=0 (work item only),
#                               "sroce_j"/"rxe_j" the veths at MTU 9000,
#                               "sroce_ngso" tx_gso=0, "sroce_lo" one device
#                               (scripts/bench/guest.sh)
#   BENCH_TIMEOUT=5400          seconds before the guest is killed
# Under TCG only ratios measured in the same run mean anything.
set -euo pipefail
. "$(dirname "$0")/../lib/common.sh"

repeats=${BENCH_REPEATS:-3}
sections=${BENCH_SECTIONS:-verbs+udp+scale+objs}
out=$SROCE_BUILD/bench

for s in build-module build-provider build-siw root-extras; do
	"$SROCE_TOP/scripts/$s.sh"
done
mkdir -p "$out"
in_root gcc -O2 -Wall -Wextra -Werror -o /src/build/bench/obj_scale \
	/src/scripts/bench/obj_scale.c -libverbs || die "obj_scale build failed"
in_root gcc -O2 -Wall -Wextra -Werror -pthread -o /src/build/bench/wake_ping \
	/src/scripts/bench/wake_ping.c || die "wake_ping build failed"

log "host load before the run: $(cut -d' ' -f1-3 /proc/loadavg), $(pgrep -c qemu-system || true) QEMU running"
rm -f "$out/raw.tsv"
rc=0
SROCE_GUEST_DEBUG=0 SROCE_TCG_THREAD=multi "$SROCE_TOP/scripts/vm/run-qemu.sh" -t "${BENCH_TIMEOUT:-5400}" scripts/bench/guest.sh \
	"$repeats" "$sections" "${BENCH_FILTER:-.}" "${BENCH_DEVICES:-sroce+rxe+siw}" >"$out/console.log" 2>&1 || rc=$?
grep -a '^\[bench\]' "$out/console.log" | grep -v 'result:' | tail -60 || true
log "host load after the run: $(cut -d' ' -f1-3 /proc/loadavg)"
[ "$rc" = 0 ] || log "guest run ended with status $rc (console: $out/console.log)"
[ "$sections" = profile ] && exit "$rc"
"$SROCE_TOP/scripts/bench/report.sh" "$out/raw.tsv" "$out/bench.tsv" | tee "$out/report.txt"
"$SROCE_TOP/scripts/bench/chart.sh" "$out/bench.tsv" "$out/bench.png"
exit "$rc"
