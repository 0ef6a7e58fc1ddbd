#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Reliability benchmarks (seed-rules R2): run in the guest,
#   scripts/vm/run-qemu.sh -t 3000 scripts/bench/reliability.sh   (make bench-reliability)
# Prints measured against expected, never pass/fail on a time:
#  - build/selftests/rel_timing: tail-loss recovery against T, RNR retry
#    spacing against the R2.4 table, time to IBV_WC_RETRY_EXC_ERR with 100%
#    loss against (retry_cnt + 1) * T;
#  - ib_write_bw, 64 KiB messages, RC, with netem random loss of 0%, 5% and
#    20% on UDP port 4791 only (both directions; perftest's TCP exchange is
#    left alone). BW_ITERS (default 200) and BW_LOSSES ("0 1 5 20") override;
#    REL_TIMING=0 skips rel_timing. The guest gets no environment: pass
#    them as arguments, losses separated by ':', e.g.
#      scripts/vm/run-qemu.sh -t 1200 scripts/bench/reliability.sh BW_LOSSES=0:5 REL_TIMING=0
#  TX_GSO (default 0) sets sroce's tx_gso for the ib_write_bw runs: netem
#  sees whatever skb reaches the veth, so with GSO on one "packet" it drops
#  is a whole batch of up to 64 (burst loss); 0 keeps the loss per packet,
#  as on a wire.
#  The counters printed after each run are that run's (deltas), both ends.
#  A loss listed twice runs twice; the ratios use the last run of each.
# shellcheck disable=SC1091
. "$(dirname "$0")/../../selftests/reliability/rel_lib.sh"

for a in "$@"; do
	case "$a" in
	BW_ITERS=* | REL_TIMING=* | TX_GSO=*) export "${a?}" ;;
	BW_LOSSES=*) export BW_LOSSES="${a#BW_LOSSES=}"; BW_LOSSES=${BW_LOSSES//:/ } ;;
	*) echo "usage: $0 [BW_ITERS=n] [BW_LOSSES=l1:l2:..] [REL_TIMING=0|1] [TX_GSO=0|1]" >&2; exit 2 ;;
	esac
done

BW_ITERS=${BW_ITERS:-200}
BW_LOSSES=${BW_LOSSES:-0 1 5 20}
REL_TIMING=${REL_TIMING:-1}
TX_GSO=${TX_GSO:-0}

# netem_roce NS DEV LOSS: LOSS% random loss on UDP dport 4791 leaving DEV.
netem_roce() {
	local ns=$1 dev=$2 loss=$3
	ip netns exec "$ns" tc qdisc del dev "$dev" root 2>/dev/null
	[ "$loss" = 0 ] && return 0
	ip netns exec "$ns" tc qdisc add dev "$dev" root handle 1: prio &&
	ip netns exec "$ns" tc qdisc add dev "$dev" parent 1:3 handle 30: netem loss "$loss%" &&
	ip netns exec "$ns" tc filter add dev "$dev" parent 1: protocol ip u32 \
		match ip protocol 17 0xff match ip dport 4791 0xffff flowid 1:3
}

rel_need
dp_up
if [ "$REL_TIMING" != 0 ]; then
	info "== recovery timing (rel_timing)"
	"$TOOLS/rel_timing" | grep -E "BENCH|not ok|FAIL"
fi

echo "$TX_GSO" >/sys/module/sroce/parameters/tx_gso || { dp_down; fail "tx_gso"; }
info "tx_gso=$TX_GSO"
port=18700
declare -A bw ctrs_before
for loss in $BW_LOSSES; do
	netem_roce "$NS_A" veth_a "$loss" && netem_roce "$NS_B" veth_b "$loss" ||
		{ dp_down; fail "netem on UDP 4791 (sch_netem, cls_u32, sch_prio)"; }
	port=$((port + 1))
	for d in $DEV_A $DEV_B; do
		ctrs_before[$d]=$(rdma statistic show link "$d/1" | tr -s ' \t' '\n' | paste - -)
	done
	t0=$(date +%s.%N)
	if dp_pair_tool 4 -x $port ib_write_bw -c RC -s 65536 -n "$BW_ITERS" -F >/dev/null; then
		bw[$loss]=$(awk '$1 == 65536 && NF >= 4 { v = $4 } END { print v }' <<<"$DP_LOG")
	else
		bw[$loss]="failed"
		grep -iE "error|status|fail" <<<"$DP_LOG" | head -5 | sed 's/^/#   /'
	fi
	t1=$(date +%s.%N)
	info "BENCH ib_write_bw RC 64 KiB x $BW_ITERS, ${loss}% loss on UDP 4791: ${bw[$loss]:-no report} MB/s ($(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }') s wall)"
	for d in $DEV_A $DEV_B; do
		rdma statistic show link "$d/1" | tr -s ' \t' '\n' | paste - - |
			awk -v d="$d" 'NR == FNR { old[$1] = $2; next }
				$1 ~ /retrans|nak|timer|duplicate|out_of_seq|retry|copies/ && $2 - old[$1] != 0 {
					printf "#   %s %s %d\n", d, $1, $2 - old[$1] }' \
				<(printf '%s\n' "${ctrs_before[$d]}") -
	done
done
netem_roce "$NS_A" veth_a 0
netem_roce "$NS_B" veth_b 0
base=${bw[0]:-}
declare -A said
for loss in $BW_LOSSES; do
	[ "$loss" = 0 ] || [ -n "${said[$loss]:-}" ] && continue
	said[$loss]=1
	v=${bw[$loss]:-}
	if [[ $base =~ ^[0-9.]+$ && $v =~ ^[0-9.]+$ ]]; then
		info "BENCH ib_write_bw at ${loss}% loss keeps $(awk -v a="$v" -v b="$base" 'BEGIN { printf "%.1f", 100 * a / b }')% of lossless ($v / $base MB/s; target at 5%: >= 25%)"
	fi
done
dp_down
exit 0
