#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Congestion benchmark (issue 21 section 3), in the guest:
#   scripts/vm/run-qemu.sh -t 1800 scripts/bench/congestion.sh [VAR=value...]
# FLOWS RC flows (ib_write_bw, 64 KiB WRITEs, traffic class 2: ECT(0))
# from sroce_b to sroce_a share one bottleneck: veth_b's egress, shaped
# to RATE Mbit/s (htb) with a RED queue that marks ECN-CE. Each run
# lasts SECS s, once with DCQCN (dcqcn=1) and once without (dcqcn=0), and
# prints per run: each flow's goodput (its completed WRITEs after the
# first WARM s, counted by a per-process QP counter), their sum, Jain's
# fairness index (sum x)^2 / (n sum x^2), perftest's own figures, the
# bottleneck queue (mean and largest
# backlog, sampled every 0.5 s), the packets RED dropped (in all and
# after the first WARM s) and marked, the receive backlogs' drops, the
# senders' retransmitted packets (in all and after WARM s) and what
# started them (local ACK timeouts, sequence NAKs), rate cuts and paced
# packets, the receivers' CNPs, the packets they saw out of sequence and
# dropped for a full QP queue. Numbers, never pass/fail. The samples go
# to build/bench/congestion-dcqcnN.dat (time s, backlog bytes, RED's
# drops, B's retransmitted packets, then COUNTER:COMPLETIONS per flow).
#   RATE (default 20) SECS (default 20) FLOWS (default 2) RUNS ("1 0")
#   WARM (default 2): seconds of start-up left out of the "after" counts
#   MIN (default 1): DCQCN's lowest rate for the runs (dcqcn_min_mbps),
#   Mbit/s, below the bottleneck's fair share
#   dcqcn_NAME=VALUE: any other DCQCN module parameter for the runs
#   (restored after), e.g. to scale its steps to a slow bottleneck
# The guest gets no environment: pass them as arguments, e.g.
#   scripts/vm/run-qemu.sh scripts/bench/congestion.sh RATE=10 SECS=30
# shellcheck disable=SC1091
. "$(dirname "$0")/../../selftests/datapath/dp_lib.sh"
. "$(dirname "$0")/../../selftests/net/net_lib.sh"

SETS=()
for a in "$@"; do
	case "$a" in
	RATE=* | SECS=* | FLOWS=* | RUNS=* | MIN=* | WARM=*) export "${a?}" ;;
	dcqcn_?*=*) SETS+=("$a") ;;
	*) echo "usage: $0 [RATE=mbit] [SECS=s] [FLOWS=n] [RUNS=1:0] [MIN=mbit] [WARM=s] [dcqcn_NAME=value...]" >&2; exit 2 ;;
	esac
done
RATE=${RATE:-20}
SECS=${SECS:-20}
FLOWS=${FLOWS:-2}
MIN=${MIN:-1}
WARM=${WARM:-2}
RUNS=${RUNS:-1 0}
RUNS=${RUNS//:/ }
P=/sys/module/sroce/parameters
OUT=$BUILD/bench
mkdir -p "$OUT"

SETS=("dcqcn_min_mbps=$MIN" "${SETS[@]}")
declare -A old
cleanup() {
	local n
	echo 1 >$P/dcqcn 2>/dev/null
	for n in "${!old[@]}"; do echo "${old[$n]}" >"$P/$n" 2>/dev/null; done
	echo 1 >$P/tx_gso 2>/dev/null
	rdma statistic qp set link "$DEV_B/1" auto off 2>/dev/null
	dp_down
}

# The bottleneck on B's egress: htb at RATE for RoCEv2 (UDP 4791), RED
# marking ECT packets CE between about 10 and 30 packets of average queue
# (dropping the rest). Everything else (perftest's TCP exchange, not
# ECT) goes by a class of its own: through RED it would be dropped while
# one flow keeps the queue long, and a flow that starts later would wait
# out TCP's retransmission backoff instead of sending.
bottleneck() {
	local b=$((RATE * 1000000 / 8))	# bytes/s
	local tcq=(ip netns exec "$NS_B" tc)
	"${tcq[@]}" qdisc del dev veth_b root 2>/dev/null
	"${tcq[@]}" qdisc add dev veth_b root handle 1: htb default 2 &&
	"${tcq[@]}" class add dev veth_b parent 1: classid 1:1 htb \
		rate "${RATE}mbit" burst 15k &&
	"${tcq[@]}" class add dev veth_b parent 1: classid 1:2 htb rate 1gbit &&
	"${tcq[@]}" qdisc add dev veth_b parent 1:1 handle 10: red \
		limit 400000 min 11000 max 33000 avpkt 1100 burst 20 \
		bandwidth "$b" probability 0.1 ecn &&
	"${tcq[@]}" filter add dev veth_b parent 1: protocol ip prio 1 u32 \
		match ip protocol 17 0xff match ip dport 4791 0xffff flowid 1:1 &&
	"${tcq[@]}" filter add dev veth_b parent 1: protocol ipv6 prio 2 u32 \
		match ip6 protocol 17 0xff match ip6 dport 4791 0xffff flowid 1:1
}
# red_field FIELD: a counter of veth_b's RED qdisc in tc's JSON: "drops"
# (the qdisc's), "marked" (RED's own)...
qdisc_json() { ip netns exec "$NS_B" tc -s -j qdisc show dev veth_b; }
red_field() {
	qdisc_json | python3 -c '
import json, sys
for q in json.load(sys.stdin):
    if q.get("kind") == "red":
        x = q.get(sys.argv[1])
        if x is None:
            x = q.get("options", {}).get(sys.argv[1], 0)
        print(x); break
else:
    print(0)' "$1"
}

# sum_jain X...: the sum of the figures and Jain's index
# (sum x)^2 / (n sum x^2) over them (0 when all are 0).
sum_jain() {
	printf '%s\n' "$@" | awk '{ s += $1; q += $1 * $1; n++ }
		END { printf "%.2f %.3f\n", s, (q > 0 ? s * s / (n * q) : 0) }'
}
# Packets the CPUs' receive backlogs dropped (netdev_max_backlog): a
# guest too slow for the bottleneck's rate loses them there.
backlog_drops() {
	local s=0 a b
	while read -r a b _; do s=$((s + 16#$b)); done </proc/net/softnet_stat
	echo "$s"
}
# In order, as on a NIC: veth hands a packet to the backlog of the CPU
# that sent it, and either CPU empties the bottleneck's queue, so one
# flow's packets could overtake each other and RoCE goes back for them.
# RPS on the receiving veths keeps each flow on one CPU, as RSS does.
rps_all() {
	local mask
	mask=$(printf '%x' $(((1 << $(nproc)) - 1)))
	# the netns's own sysfs (ip netns exec mounts it) has its veth
	ip netns exec "$1" sh -c 'for q in /sys/class/net/$1/queues/rx-*/rps_cpus; do
		echo $2 >$q || exit 1; done' sh "$2" "$mask"
}

dmesg_mark
dp_up
rps_all "$NS_A" veth_a && rps_all "$NS_B" veth_b || { cleanup; fail "RPS on the veths"; }
echo 0 >$P/tx_gso	# a GSO skb would cross the queue as one packet
for s in "${SETS[@]}"; do
	[ -e "$P/${s%%=*}" ] || { cleanup; fail "no module parameter ${s%%=*}"; }
	old[${s%%=*}]=$(cat "$P/${s%%=*}")
	echo "${s#*=}" >"$P/${s%%=*}" || { cleanup; fail "$s"; }
done
bottleneck || { cleanup; fail "tc htb + red ecn on veth_b"; }
wait_for 30 gid_index "$DEV_A" "$A4" >/dev/null && wait_for 30 gid_index "$DEV_B" "$B4" >/dev/null ||
	{ cleanup; fail "no RoCE v2 GID"; }
info "bottleneck: veth_b egress, htb ${RATE} Mbit/s, RED ecn; $FLOWS flows of ib_write_bw --tclass=2, ${SECS} s each run; DCQCN ${SETS[*]}"

for cc in $RUNS; do
	echo "$cc" >$P/dcqcn || { cleanup; fail "dcqcn parameter"; }
	bottleneck
	declare -A a0 b0
	snap_counters "$DEV_A" a0
	snap_counters "$DEV_B" b0
	m0=$(red_field marked) d0=$(red_field drops) k0=$(backlog_drops)
	pids=() spids=() logs=()
	# a counter object per client process, so each flow's completions
	# count apart (Documentation/observability.md, "Per-QP counters")
	rdma statistic qp set link "$DEV_B/1" auto pid on ||
		{ cleanup; fail "rdma statistic qp set auto pid on"; }
	ga=$(gid_index "$DEV_A" "$A4") gb=$(gid_index "$DEV_B" "$B4")
	for i in $(seq "$FLOWS"); do
		port=$((19000 + 10 * cc + i))
		$NS_EXEC_A ib_write_bw -d "$DEV_A" -x "$ga" --tclass=2 -s 65536 \
			-D "$SECS" -F -p "$port" >/dev/null 2>&1 &
		spids[i]=$!
		wait_for 20 dp_listening "$NS_EXEC_A" "$port" || info "flow $i: no server on $port"
	done
	t0=$(date +%s.%N)
	for i in $(seq "$FLOWS"); do
		port=$((19000 + 10 * cc + i))
		logs[i]=$(mktemp)
		timeout -k 5 $((SECS + 120)) $NS_EXEC_B ib_write_bw -d "$DEV_B" -x "$gb" \
			--tclass=2 -s 65536 -D "$SECS" -F -p "$port" --report_gbits "$A4" \
			>"${logs[i]}" 2>&1 &
		pids[i]=$!
	done
	dat=$OUT/congestion-dcqcn$cc.dat
	: >"$dat"
	# the backlog and drops of the RED qdisc (10:), one tc call a
	# sample, B's retransmitted packets so far, and each flow's
	# completed WRITEs as COUNTER:COMPLETIONS
	while kill -0 "${pids[1]}" 2>/dev/null; do
		printf '%s %s %s%s\n' "$(date +%s.%N)" "$(ip netns exec "$NS_B" tc -s qdisc show dev veth_b |
			awk '/^qdisc red/ { r = 1 } r && /dropped/ { d = $7; sub(",", "", d) }
			     r && /backlog/ { sub("b", "", $2); print $2, d; exit }')" \
			"$(hw_counter "$DEV_B" retrans_pkts)" \
			"$(rdma statistic qp show link "$DEV_B/1" | awk '
				{ for (i = 1; i < NF; i++) if ($i == "cntn") c = $(i + 1) }
				$1 == "qp_completions" { printf " %s:%s", c, $2 }')" >>"$dat"
		sleep 0.5
	done
	for i in $(seq "$FLOWS"); do wait "${pids[i]}"; done
	# a server whose client failed would wait for it forever
	sleep 2
	kill "${spids[@]}" 2>/dev/null
	wait
	awk -v t0="$t0" '{ printf "%.2f %d %d %d", $1 - t0, $2, $3, $4
		for (i = 5; i <= NF; i++) printf " %s", $i; print "" }' "$dat" >"$dat.tmp" && mv "$dat.tmp" "$dat"
	# Each flow's goodput from its completed 64 KiB WRITEs, from its
	# first sample WARM s in to its last: perftest's own figure rests on
	# the TSC, which TCG's clock defeats now and then (0.00).
	gput=$(awk -v w="$WARM" '$1 >= w { for (i = 5; i <= NF; i++) {
			split($i, kv, ":")
			if (!(kv[1] in t1)) { t1[kv[1]] = $1; v1[kv[1]] = kv[2] }
			t2[kv[1]] = $1; v2[kv[1]] = kv[2] } }
		END { for (c in t1) { d = t2[c] - t1[c]
			printf "%.2f ", (d > 0 ? (v2[c] - v1[c]) * 65536 * 8 / d / 1e6 : 0) } }' "$dat")
	read -ra garr <<<"$gput"
	read -r gsum gjain <<<"$(sum_jain "${garr[@]}")"
	rdma statistic qp set link "$DEV_B/1" auto off
	# RED's drops and B's retransmissions at the first sample WARM s in:
	# what the start (every QP at line rate, a full window) cost is not
	# what the steady state costs
	read -r dw rw <<<"$(awk -v w="$WARM" '$1 >= w { print $3, $4; f = 1; exit }
		END { if (!f) print "", "" }' "$dat")"
	bws=()
	for i in $(seq "$FLOWS"); do
		# --report_gbits: the average column is Gbit/s
		v=$(awk '$1 == 65536 && NF >= 4 { v = $4 } END { print v }' "${logs[i]}")
		if [[ $v =~ ^[0-9.]+$ ]]; then
			bws+=("$(awk -v g="$v" 'BEGIN { printf "%.2f", g * 1000 }')")
		else
			bws+=(0)
			tail -n 5 "${logs[i]}" | sed 's/^/#   flow '"$i"': /'
		fi
		rm -f "${logs[i]}"
	done
	read -r _ jain <<<"$(sum_jain "${bws[@]}")"
	read -r qmean qmax <<<"$(awk '{ s += $2; if ($2 > m) m = $2; n++ }
		END { printf "%d %d\n", (n ? s / n : 0), m }' "$dat")"
	db() { echo $(( $(hw_counter "$DEV_B" "$1") - ${b0[$1]} )); }
	da() { echo $(( $(hw_counter "$DEV_A" "$1") - ${a0[$1]} )); }
	info "BENCH congestion dcqcn=$cc: goodput ${gput}Mbit/s (completions after ${WARM} s), sum $gsum of $RATE, Jain $gjain; perftest's flows ${bws[*]} Mbit/s (Jain $jain); queue mean $qmean max $qmax bytes, RED marked $(( $(red_field marked) - m0 )) dropped $(( $(red_field drops) - d0 )) (after ${WARM} s: $(( $(red_field drops) - ${dw:-0} ))), backlog drops $(( $(backlog_drops) - k0 )), B retrans $(db retrans_pkts) (after ${WARM} s: $(( $(hw_counter "$DEV_B" retrans_pkts) - ${rw:-0} )); timeouts $(db retrans_timeout), seq NAKs $(db retrans_seq_nak)) rate_cuts $(db rp_rate_cuts) paced $(db rp_paced) cnp_handled $(db rp_cnp_handled), A ecn_marked $(da np_ecn_marked_roce_packets) cnp_sent $(da np_cnp_sent) out_of_seq $(da out_of_sequence) rxq_full_drops $(da rx_drop_queue_full)"
	sleep 2
done
cleanup
check_dmesg
exit 0
