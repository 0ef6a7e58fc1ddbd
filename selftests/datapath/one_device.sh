#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Both ends of every QP on one sroce device (DP_TARGET=lo, dp_lib.sh): the
# data-path programs' cases with every packet through sroce's local
# delivery, the loopback FIFO, instead of the veth. A stream of posts has
# that FIFO drained on the other CPU while the poster goes on, a ping-pong
# and a READ request in the sender's own context (Documentation/design.md,
# "Packet order"); the cases check every byte and completion either way,
# and the device's loop_other_cpu counter shows that the other CPU did
# receive some of them.
#   one_device.sh [-t FILTER] [PROG...]
# PROG default: send_recv rdma_rw atomic. One KTAP result per program.
. "$(dirname "$0")/dp_lib.sh"

filter=()
[ "${1:-}" = -t ] && { filter=(-t "${2:?-t takes a case filter}"); shift 2; }
progs=("$@")
[ ${#progs[@]} -gt 0 ] || progs=(send_recv rdma_rw atomic)

log=$(mktemp)
echo "TAP version 13"
echo "1..${#progs[@]}"
n=0 failed=0
for p in "${progs[@]}"; do
	n=$((n + 1))
	SROCE_DP_STATS=1 dp_prog_ktap $n lo "$p" "${filter[@]}" | tee -a "$log"
	[ "${PIPESTATUS[0]}" = 0 ] || failed=$((failed + 1))
done
# The device's counters at the end of each program (dp_run): some of the
# packets must have been received on the other CPU, or the path under test
# never ran.
other=$(awk '$3 == "sroce_a" && $4 == "loop_other_cpu" { s += $5 } END { print s + 0 }' "$log")
rm -f "$log"
info "loop_other_cpu: $other"
[ $failed = 0 ] || fail "$failed of $n programs failed"
[ "$other" -gt 0 ] || fail "no packet was received on another CPU than its sender's"
exit 0
