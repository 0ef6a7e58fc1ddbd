#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# What iproute2's "rdma" shows of sroce's objects, checked against known
# traffic: dev_attrs holds one RC pair (A on sroce_a, B on sroce_b) and
# runs N ping-pongs of one-packet SENDs, then leaves RA and RB receives
# posted and K sends of A completed but not polled.
# - "rdma -j -dd resource show qp|cq|mr" (the driver attributes,
#   kernel/sroce_restrack.c): each QP's send PSN has moved from its start
#   PSN by exactly the packets it sent, the expected PSN by the packets the
#   peer sent, nothing is unacknowledged, the SQs are empty, the RQs and
#   CQs hold exactly the WQEs and CQEs left, the retry counts are whole;
#   ODP MRs say explicit or implicit, and an implicit one its two
#   children after a prefetch of two 2 MiB slices.
# - "rdma -j statistic qp show" (per-QP counters, kernel/sroce_stats.c): in
#   auto mode each QP is bound at INIT to its device's counter, which
#   counts exactly the traffic: requests sent, completions, no RNR NAK or
#   error, and what one QP counted sent (packets and bytes) the other
#   counted received; the port counters do not count it twice. In manual
#   mode ("rdma statistic qp bind") a counter counts only what its QP did
#   after it was bound, and goes away when its last QP is unbound.
# The a_*, b_*, ca_* ... variables come from rdma_json.py through eval;
# the functions are called indirectly.
# shellcheck disable=SC2154,SC2317
. "$(dirname "$0")/../datapath/dp_lib.sh"

N=50 K=4 RA=5 RB=3
M=$((0xffffff))
PROG=$TOOLS/dev_attrs
JSON="python3 $(dirname "$0")/rdma_json.py"
# A SEND ONLY of 64 bytes: BTH + payload + ICRC; an ACK: BTH + AETH + ICRC.
REQ_BYTES=80 ACK_BYTES=20

[ -x "$PROG" ] || fail "$PROG is not built (scripts/build-selftests.sh)"
dmesg_mark
dp_up
cleanup() {
	[ -n "${P_PID:-}" ] && kill "$P_PID" 2>/dev/null
	dp_down
}
trap cleanup EXIT

# dev_attrs's next answer into $REPLY.
reply() {
	while read -r -t $((120 * ${SROCE_TIME_SCALE:-1})) REPLY <&"${P[0]}"; do
		case $REPLY in
		OK*|READY*) return 0 ;;
		*FAIL*) fail "dev_attrs: $REPLY" ;;
		*) info "dev_attrs: $REPLY" ;;
		esac
	done
	fail "dev_attrs did not answer${1:+ \"$1\"}"
}

# One command to dev_attrs; its answer in $REPLY.
cmd() {
	echo "$1" >&"${P[1]}"
	reply "$1"
}

# get PREFIX FILTER... -- RDMA-ARGS: the one matching object into PREFIX*.
get() {
	local out
	out=$($JSON get "$@") || fail "no single object: $*"
	eval "$out"
}

for d in $DEV_A $DEV_B; do
	rdma statistic qp set link "$d/1" auto type on ||
		fail "rdma statistic qp set link $d/1 auto type on"
done
info "$(rdma statistic qp mode link "$DEV_A/1")"

coproc P { exec "$PROG" 2>&1; }
reply
read -r _ QA QB PSN_A PSN_B <<<"$REPLY"
info "QPs: A $QA (start PSN $PSN_A) on $DEV_A, B $QB (start PSN $PSN_B) on $DEV_B"
cmd "pp $N"
cmd "tail $RA $RB $K"
cmd "mrs"
read -r _ LKEY_EXP LKEY_IMP <<<"$REPLY"

# The K sends complete without anybody polling: their CQEs wait in A's
# send CQ and B's receive CQ; the other two CQs are empty.
cq_fills() {
	[ "$($JSON values drv_cq_fill comm=dev_attrs -- -dd resource show cq dev "$1")" = "0 $K" ]
}
for d in $DEV_A $DEV_B; do
	wait_for 30 cq_fills "$d" || fail "$d CQ fills: $($JSON values drv_cq_fill comm=dev_attrs -- -dd resource show cq dev "$d"), want 0 $K: $(rdma -j -dd resource show cq dev "$d")"
done
info "$(rdma -dd resource show qp link "$DEV_A" lqpn "$QA")"
info "$(rdma -dd resource show qp link "$DEV_B" lqpn "$QB")"
info "$(rdma -dd resource show cq dev "$DEV_A")"
info "$(rdma -dd resource show mr dev "$DEV_A")"
info "$(rdma statistic qp show)"

# ---- QPs -------------------------------------------------------------
get a_ lqpn="$QA" -- -dd resource show qp link "$DEV_A"
get b_ lqpn="$QB" -- -dd resource show qp link "$DEV_B"
# expect WHAT GOT WANT
expect() { [ "$2" = "$3" ] || fail "$1: got '$2', want '$3'"; }
{
expect "A sq_depth >= 64" "$((a_drv_sq_depth >= 64))" 1
expect "A sq_fill" "$a_drv_sq_fill" 0
expect "B sq_fill" "$b_drv_sq_fill" 0
expect "A rq_depth >= 64" "$((a_drv_rq_depth >= 64))" 1
expect "A rq_fill" "$a_drv_rq_fill" "$RA"
expect "B rq_fill" "$b_drv_rq_fill" "$RB"
expect "A sq-psn (the start PSN)" "$a_sq_psn" "$PSN_A"
expect "A send_psn" "$a_drv_send_psn" $(((PSN_A + N + K) & M))
expect "B send_psn" "$b_drv_send_psn" $(((PSN_B + N) & M))
expect "A unacked_psn" "$a_drv_unacked_psn" "$a_drv_send_psn"
expect "B unacked_psn" "$b_drv_unacked_psn" "$b_drv_send_psn"
expect "A expected_psn" "$a_drv_expected_psn" $(((PSN_B + N) & M))
expect "B expected_psn" "$b_drv_expected_psn" $(((PSN_A + N + K) & M))
for e in a b; do
	for f in retry_left rnr_retry_left; do
		v=${e}_drv_$f
		expect "$e $f" "${!v}" 7
	done
	v=${e}_drv_rnr_wait; expect "$e rnr_wait" "${!v}" 0
done
}

# ---- CQs and MRs -----------------------------------------------------
for d in $DEV_A $DEV_B; do
	v=$($JSON values drv_overflow comm=dev_attrs -- -dd resource show cq dev "$d")
	expect "$d CQ overflow" "$v" "0 0"
	for c in $($JSON values cqn comm=dev_attrs -- -dd resource show cq dev "$d"); do
		get c_ cqn="$c" -- -dd resource show cq dev "$d"
			[ "$c_drv_cq_depth" -ge "$c_cqe" ] || fail "$d CQ $c: cq_depth $c_drv_cq_depth < cqe $c_cqe"
	done
done
get m_ lkey="$LKEY_EXP" -- -dd resource show mr dev "$DEV_A"
{ expect "ODP MR mr_type" "$m_drv_mr_type" odp; expect "ODP MR odp" "$m_drv_odp" explicit; }
get i_ lkey="$LKEY_IMP" -- -dd resource show mr dev "$DEV_A"
{
expect "implicit MR mr_type" "$i_drv_mr_type" odp
expect "implicit MR odp" "$i_drv_odp" implicit
expect "implicit MR odp_children" "$i_drv_odp_children" 2
}
v=$($JSON values drv_mr_type comm=dev_attrs -- -dd resource show mr dev "$DEV_A")
expect "$DEV_A MR types" "$v" "odp odp pinned"

# ---- counters, auto mode ---------------------------------------------
get ca_ lqpn="$QA" -- statistic qp show link "$DEV_A/1"
get cb_ lqpn="$QB" -- statistic qp show link "$DEV_B/1"
{
expect "A counter qp-type" "$ca_qp_type" RC
expect "A qp_req_pkts_sent" "$ca_qp_req_pkts_sent" $((N + K))
expect "B qp_req_pkts_sent" "$cb_qp_req_pkts_sent" "$N"
# PSNs: one per request packet sent for the first time.
expect "A PSNs used = requests sent" $(((a_drv_send_psn - a_sq_psn) & M)) "$ca_qp_req_pkts_sent"
expect "B PSNs used = requests sent" $(((b_drv_send_psn - b_sq_psn) & M)) "$cb_qp_req_pkts_sent"
# A: N sends and N receives polled, K sends not; B: N sends, N + K receives.
expect "A qp_completions" "$ca_qp_completions" $((2 * N + K))
expect "B qp_completions" "$cb_qp_completions" $((2 * N + K))
expect "A qp_completion_errors" "$ca_qp_completion_errors" 0
expect "B qp_completion_errors" "$cb_qp_completion_errors" 0
expect "A qp_rnr_nak_rcvd" "$ca_qp_rnr_nak_rcvd" 0
expect "B qp_rnr_nak_rcvd" "$cb_qp_rnr_nak_rcvd" 0
# Every packet leaves and arrives (veth, no loss): what one sent the
# other took, and what is not a request is a 20-byte ACK.
expect "A tx = B rx packets" "$ca_qp_tx_pkts" "$cb_qp_rx_pkts"
expect "B tx = A rx packets" "$cb_qp_tx_pkts" "$ca_qp_rx_pkts"
expect "A tx = B rx bytes" "$ca_qp_tx_bytes" "$cb_qp_rx_bytes"
expect "B tx = A rx bytes" "$cb_qp_tx_bytes" "$ca_qp_rx_bytes"
for e in ca cb; do
	req=$((${e}_qp_req_pkts_sent + ${e}_qp_retrans_pkts))
	tx=${e}_qp_tx_pkts txb=${e}_qp_tx_bytes
	[ "${!tx}" -gt "$req" ] || fail "$e: qp_tx_pkts ${!tx}, not more than $req requests (no ACK?)"
	expect "$e qp_tx_bytes" "${!txb}" $((req * REQ_BYTES + (${!tx} - req) * ACK_BYTES))
done
}
info "retransmits: A $ca_qp_retrans_pkts B $cb_qp_retrans_pkts, ACK timeouts: A $ca_qp_ack_timer_expired B $cb_qp_ack_timer_expired"

# The port view is the device's own count, not the device's plus its
# counter objects' (they count the same packets); no qp_* at the port.
for d in $DEV_A $DEV_B; do
	get p_ -- statistic show link "$d/1"
	expect "$d tx_pkts: rdma statistic = sysfs" "$p_tx_pkts" \
		"$(hw_counter "$d" tx_pkts)"
	rdma statistic show link "$d/1" | grep -qE '(^|[[:space:]])qp_' && fail "per-QP counter names in the port view of $d"
	for f in "/sys/class/infiniband/$d/ports/1/hw_counters/"qp_*; do
		[ -e "$f" ] && fail "per-QP counter $f in sysfs"
	done
done

# ---- counters, manual mode -------------------------------------------
cmd drain
expect "completions left by tail" "$REPLY" "OK drain $((2 * K))"
rdma statistic qp set link "$DEV_A/1" auto off || fail "auto off"
rdma statistic qp unbind link "$DEV_A/1" cntn "$ca_cntn" lqpn "$QA" ||
	fail "unbind QP $QA from counter $ca_cntn"
n=$($JSON count -- statistic qp show link "$DEV_A/1")
expect "$DEV_A counters after its only QP was unbound" "$n" 0
rdma statistic qp bind link "$DEV_A/1" lqpn "$QA" || fail "bind QP $QA"
get ma_ lqpn="$QA" -- statistic qp show link "$DEV_A/1"
{
expect "new counter of A: qp_req_pkts_sent" "$ma_qp_req_pkts_sent" 0
cmd "pp 7"
get ma_ lqpn="$QA" -- statistic qp show link "$DEV_A/1"
get cb_ lqpn="$QB" -- statistic qp show link "$DEV_B/1"
info "$(rdma statistic qp show link "$DEV_A/1")"
expect "A's manual counter: qp_req_pkts_sent" "$ma_qp_req_pkts_sent" 7
expect "A's manual counter: qp_completions" "$ma_qp_completions" 14
expect "B's auto counter: qp_req_pkts_sent" "$cb_qp_req_pkts_sent" $((N + 7))
}
rdma statistic qp unbind link "$DEV_A/1" cntn "$ma_cntn" lqpn "$QA" ||
	fail "unbind QP $QA from counter $ma_cntn"
n=$($JSON count -- statistic qp show link "$DEV_A/1")
expect "$DEV_A counters after unbind" "$n" 0

# End of input: dev_attrs destroys everything; B's counter goes with B.
# shellcheck disable=SC1083,SC2093
exec {P[1]}>&-
reply
expect "dev_attrs at the end" "$REPLY" "OK done"
wait "$P_PID" || fail "dev_attrs failed"
P_PID=
n=$($JSON count -- statistic qp show)
expect "counters left" "$n" 0
trap - EXIT
dp_down
check_dmesg
exit 0
