#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# ECN notification point and CNP reception (issue 21 section 3;
# Documentation/observability.md, "ECN and CNPs").
#
# A tc rule on veth_a's egress plays the congested router: every RoCEv2
# packet A sends that is ECN-capable (ECT, tos & 3 == 1 or 2) leaves marked
# CE (pedit; the ICRC does not cover the ECN bits). The data-checked SEND
# cases of dp_send_recv (RC, UC, UD; their QPs' and AHs' GRH traffic
# class DP_TCLASS) run between sroce_a and sroce_b:
#  a. traffic class 0x6a (DSCP 26, ECT(0)), cnp_interval_us=0: every
#     packet A sent reached B marked (np_ecn_marked_roce_packets = A's
#     tx_pkts), B answered each with a CNP (np_cnp_sent), A took them
#     (rp_cnp_handled, the late ones of a destroyed QP rx_drop_cnp); each
#     CNP on the wire has opcode 0x81, BECN, DSCP 26 and no ECT (tcpdump);
#     then cnp_interval_us=1000000: at most one CNP per QP per second,
#     far fewer than the marked packets.
#  b. traffic class 0: no ECT on the wire (the rule's match count stays),
#     nothing marked, no CNP.
#  c. ecn=0: packets marked, no CNP.
#  d. hostile CNPs (seed-rules R1.4: the multicast QPN): to a QPN with no
#     QP, to 0xFFFFFF, truncated, too long: rx_drop_cnp and nothing else;
#     a valid one to QP 1 (always live): rp_cnp_handled, rx_pkts, rx_bytes
#     and nothing else.
#  e. ECT on the wire when asked (a) and not when not (b): the tc rule's
#     own match count.
#  a to e run with dcqcn=0: no QP cuts its rate (rp_rate_cuts) or waits
#     for its pace (rp_paced).
#  f. dcqcn=1 (the default), every marked packet answered, ib_write_bw
#     from A: A's QP takes B's CNPs and cuts its rate (rp_rate_cuts, at
#     most one per CNP), and paces its packets (rp_paced); the tracepoint
#     sroce_cc_rate shows the cuts, never below dcqcn_min_mbps nor above
#     the line rate.
#     B, which took no CNP, cut nothing.
#  g. dcqcn=1 with a floor of 2 Mbit/s: a paced QP asks for ACKs often
#     enough that its local ACK timer never fires (no retrans_timeout,
#     no retransmission) although a message takes longer than the timeout.
# tx_gso=0 throughout: a GSO skb crosses tc as one packet.
. "$(dirname "$0")/../datapath/dp_lib.sh"
. "$(dirname "$0")/net_lib.sh"

P=/sys/module/sroce/parameters
T=/sys/kernel/tracing
TCLASS=0x6a
tcpid=
cleanup() {
	[ -n "$tcpid" ] && kill "$tcpid" 2>/dev/null
	wait 2>/dev/null
	echo 1 >$P/ecn 2>/dev/null
	echo 4 >$P/cnp_interval_us 2>/dev/null
	echo 1 >$P/dcqcn 2>/dev/null
	dcqcn_defaults
	echo 0 >$T/events/sroce/sroce_cc_rate/enable 2>/dev/null
	echo 1 >$P/tx_gso 2>/dev/null
	dp_down
}
dcqcn_defaults() {
	echo 10 >$P/dcqcn_min_mbps 2>/dev/null
	echo 300 >$P/dcqcn_timer_us 2>/dev/null
	echo 2048 >$P/dcqcn_byte_kb 2>/dev/null
	echo 55 >$P/dcqcn_alpha_us 2>/dev/null
}
bad() { cleanup; fail "$@"; }
hw() { hw_counter "$@"; }

dmesg_mark
dp_up
for f in ecn cnp_interval_us tx_gso dcqcn dcqcn_min_mbps; do
	[ -w $P/$f ] || bad "no module parameter $f"
done
[ "$(cat $P/ecn)" = Y ] || bad "ecn is not on by default"
[ "$(cat $P/cnp_interval_us)" = 4 ] || bad "cnp_interval_us is not 4 by default"
[ "$(cat $P/dcqcn)" = Y ] || bad "dcqcn is not on by default"
echo 0 >$P/tx_gso
echo 0 >$P/dcqcn
mountpoint -q $T || mount -t tracefs nodev $T || bad "no tracefs at $T"

# The router: ECT -> CE on A's egress, IPv4 (header checksum redone) and
# IPv6. pref 1 and 2 count the ECT packets they saw.
ip netns exec $NS_A tc qdisc add dev veth_a clsact || bad "tc clsact"
ip netns exec $NS_A tc filter add dev veth_a egress pref 1 protocol ip \
	flower ip_proto udp dst_port 4791 ip_tos 0x02/0x03 \
	action pedit ex munge ip dsfield set 3 retain 3 pipe action csum ip ||
	bad "tc pedit rule (IPv4)"
CASES=_SEND_v
ip netns exec $NS_A tc filter add dev veth_a egress pref 2 protocol ipv6 \
	flower ip_proto udp dst_port 4791 ip_tos 0x02/0x03 \
	action pedit ex munge ip6 traffic_class set 3 retain 3 || {
	info "this tc cannot rewrite the IPv6 traffic class: IPv4 only"
	CASES=_SEND_v4
}

# ect_seen: ECT packets the rule saw on A's egress.
ect_seen() {
	ip netns exec $NS_A tc -s -j filter show dev veth_a egress | python3 -c '
import json, sys
n = 0
for f in json.load(sys.stdin):
    for a in f.get("options", {}).get("actions", [])[:1]:
        n += a.get("stats", {}).get("packets", 0)
print(n)'
}

declare -A a0 b0
snap() { snap_counters "$DEV_A" a0; snap_counters "$DEV_B" b0; E0=$(ect_seen); }
da() { echo $(( $(hw "$DEV_A" "$1") - ${a0[$1]} )); }
db() { echo $(( $(hw "$DEV_B" "$1") - ${b0[$1]} )); }
traffic() {	# traffic TCLASS [CASES]
	local cases=${2:-$CASES}
	DP_TCLASS=$1 "$TOOLS/dp_send_recv" -t "$cases" >/tmp/ecn_dp.out 2>&1 || {
		cat /tmp/ecn_dp.out; bad "dp_send_recv -t $cases (tclass $1) failed"
	}
	grep -q '^ok [0-9]* [A-Z]*_SEND_v4$' /tmp/ecn_dp.out || {
		cat /tmp/ecn_dp.out; bad "no case ran"
	}
	sleep 1		# the last ACKs and CNPs
}
counts() {
	info "$1: A tx_pkts +$(da tx_pkts), ECT on the wire +$(( $(ect_seen) - E0 )), B np_ecn_marked_roce_packets +$(db np_ecn_marked_roce_packets) np_cnp_sent +$(db np_cnp_sent), A rp_cnp_handled +$(da rp_cnp_handled) rx_drop_cnp +$(da rx_drop_cnp), A np_ecn_marked_roce_packets +$(da np_ecn_marked_roce_packets) np_cnp_sent +$(da np_cnp_sent)"
}

# a. ECT(0), a CNP per marked packet; CNPs captured on B's side.
echo 0 >$P/cnp_interval_us
ip netns exec $NS_B tcpdump -i veth_b -nn -v -l -c 200 \
	'ip and udp dst port 4791 and udp[8] = 0x81' >/tmp/ecn_cnp.txt 2>/dev/null &
tcpid=$!
sleep 2
snap
traffic $TCLASS
counts "a (interval 0)"
kill "$tcpid" 2>/dev/null; wait "$tcpid" 2>/dev/null; tcpid=
tx=$(da tx_pkts) marked=$(db np_ecn_marked_roce_packets) cnps=$(db np_cnp_sent)
[ "$tx" -ge 100 ] || bad "A sent only $tx packets"
[ $(( $(ect_seen) - E0 )) -ge "$tx" ] || bad "fewer ECT packets on the wire than A sent"
# what reached no QP (a case's last ACK after its QP went) is not marked
late() { echo $(( $(db rx_drop_no_qp) + $(db rx_drop_qp_state) )); }
[ $(( marked + $(late) )) -eq "$tx" ] ||
	bad "B counted $marked marked packets (+$(late) late), A sent $tx"
[ "$cnps" -eq "$marked" ] || bad "interval 0: $cnps CNPs for $marked marked packets"
[ "$(db rp_cnp_handled)" -eq 0 ] || bad "B took CNPs"
[ "$(da np_ecn_marked_roce_packets)" -eq 0 ] || bad "A saw marks: B's packets are not marked"
[ $(( $(da rp_cnp_handled) + $(da rx_drop_cnp) )) -eq "$cnps" ] ||
	bad "A took $(da rp_cnp_handled) + dropped $(da rx_drop_cnp) CNPs, B sent $cnps"
[ "$(da rp_cnp_handled)" -gt 0 ] || bad "A handled no CNP"
[ "$(da rp_rate_cuts)" -eq 0 ] && [ "$(da rp_paced)" -eq 0 ] ||
	bad "dcqcn=0: A cut its rate $(da rp_rate_cuts) times, paced $(da rp_paced)"
[ "$(da rx_drop_malformed)" -eq 0 ] && [ "$(db rx_drop_malformed)" -eq 0 ] &&
	[ "$(da rx_drop_icrc)" -eq 0 ] || bad "a CNP was malformed or had a bad ICRC"
ncap=$(grep -c 'tos 0x' /tmp/ecn_cnp.txt)
[ "$ncap" -gt 0 ] || { cat /tmp/ecn_cnp.txt; bad "tcpdump saw no CNP"; }
# DSCP 26 kept, ECN bits 0: every captured CNP has tos 0x68
grep 'tos 0x' /tmp/ecn_cnp.txt | grep -v 'tos 0x68,' && bad "a CNP without tos 0x68"
info "tcpdump: $ncap CNPs, all tos 0x68"

# a, rate limited: one CNP per QP per second at most.
echo 1000000 >$P/cnp_interval_us
snap
t0=$(date +%s)
traffic $TCLASS
secs=$(( $(date +%s) - t0 ))
counts "a (interval 1 s, ${secs}s)"
marked=$(db np_ecn_marked_roce_packets) cnps=$(db np_cnp_sent)
[ $(( marked + $(late) )) -eq "$(da tx_pkts)" ] ||
	bad "B counted $marked marked packets (+$(late) late), A sent $(da tx_pkts)"
[ "$cnps" -ge 1 ] || bad "no CNP at all"
[ $(( cnps * 10 )) -lt "$marked" ] || bad "$cnps CNPs for $marked marked packets: not rate limited"
# one per QP at once, then one a second: the six cases' B QPs in $secs s
[ "$cnps" -le $(( secs + 7 )) ] || bad "$cnps CNPs in $secs s from 6 QPs: more than one a second"
echo 4 >$P/cnp_interval_us

# b and e: traffic class 0: nothing ECT on the wire, nothing marked.
snap
traffic 0
counts "b (traffic class 0)"
[ "$(( $(ect_seen) - E0 ))" -eq 0 ] || bad "ECT packets on the wire with traffic class 0"
[ "$(da tx_pkts)" -ge 100 ] || bad "A sent only $(da tx_pkts) packets"
for c in np_ecn_marked_roce_packets np_cnp_sent rp_cnp_handled rx_drop_cnp; do
	[ "$(da $c)" -eq 0 ] && [ "$(db $c)" -eq 0 ] || bad "traffic class 0: $c moved"
done

# c. ecn=0: marked, not answered.
echo 0 >$P/ecn
snap
traffic $TCLASS
counts "c (ecn=0)"
[ $(( $(db np_ecn_marked_roce_packets) + $(late) )) -eq "$(da tx_pkts)" ] ||
	bad "ecn=0: marks not counted"
[ "$(db np_cnp_sent)" -eq 0 ] || bad "ecn=0: B sent CNPs"
[ "$(da rp_cnp_handled)" -eq 0 ] || bad "ecn=0: A took CNPs"
echo 1 >$P/ecn

# f. DCQCN: A's QP cuts its rate on B's CNPs and paces its packets.
# One long-lived RC QP that keeps the pipe full (ib_write_bw from A, 64
# KiB WRITEs, A's packets marked by the rule): dp_send_recv's short-lived
# QPs wait for each answer and send slower than any floor under TCG.
# Cuts only, no recovery (a timer event a second, a byte event a GiB),
# down to a floor of 10 Mbit/s, 0.9 ms a packet, and alpha held near 1
# (an alpha period of a second): under TCG the requester sends its
# bursts some 10 ms apart, far below its rate, and with the default 55 us
# period alpha decays between them and the cuts fade out, as DCQCN has it
# for a flow that sends below its rate.
echo 1 >$P/dcqcn
echo 10 >$P/dcqcn_min_mbps
echo 1000000 >$P/dcqcn_timer_us
echo 1048576 >$P/dcqcn_byte_kb
echo 1000000 >$P/dcqcn_alpha_us
echo 0 >$P/cnp_interval_us
echo >$T/trace
echo 1 >$T/events/sroce/sroce_cc_rate/enable
snap
bulk() {	# ib_write_bw from A to B, traffic class $TCLASS [SIZE [ITERS [ARG...]]]
	local ga gb port=18650 spid rc size=${1:-65536} iters=${2:-100}
	shift 2 2>/dev/null
	ga=$(gid_index "$DEV_A" "$A4") gb=$(gid_index "$DEV_B" "$B4")
	$NS_EXEC_B ib_write_bw -d "$DEV_B" -x "$gb" -p $port -F --tclass=$((TCLASS)) \
		-s "$size" -n "$iters" "$@" >/tmp/ecn_bw_s.out 2>&1 &
	spid=$!
	wait_for 20 dp_listening "$NS_EXEC_B" $port || bad "ib_write_bw server did not listen"
	timeout -k 5 300 $NS_EXEC_A ib_write_bw -d "$DEV_A" -x "$ga" -p $port -F \
		--tclass=$((TCLASS)) -s "$size" -n "$iters" "$@" "$B4" >/tmp/ecn_bw_c.out 2>&1
	rc=$?
	wait "$spid"
	# TCG's clock can defeat perftest's report, not the traffic
	[ $rc = 0 ] || grep -q "produce a report" /tmp/ecn_bw_c.out || {
		cat /tmp/ecn_bw_s.out /tmp/ecn_bw_c.out; bad "ib_write_bw failed ($rc)"
	}
	sleep 1
}
bulk
echo 0 >$T/events/sroce/sroce_cc_rate/enable
counts "f (dcqcn=1)"
cuts=$(da rp_rate_cuts) paced=$(da rp_paced)
info "f: A cut its rates $cuts times, paced $paced packets"
[ "$cuts" -gt 0 ] || bad "dcqcn=1: A took $(da rp_cnp_handled) CNPs and cut no rate"
[ "$cuts" -le "$(da rp_cnp_handled)" ] || bad "more cuts ($cuts) than CNPs"
info "f: sroce_cc_rate: $(grep -c ' cut rate=' $T/trace) cuts, lowest rate $(grep -o ' rate=[0-9]*' $T/trace | cut -d= -f2 | sort -n | head -1) Mbit/s"
[ "$paced" -gt 0 ] || {
	grep sroce_cc_rate $T/trace | head -20
	bad "dcqcn=1: A's rates were cut, no packet waited"
}
[ "$(db rp_rate_cuts)" -eq 0 ] || bad "B took no CNP and cut its rate"
grep -c ' cut rate=' $T/trace | grep -qx "$cuts" ||
	bad "$(grep -c ' cut rate=' $T/trace) sroce_cc_rate cut events for $cuts cuts"
# rate >= the floor, target <= the veth's 10 Gbit/s, the first cut halves
awk '/sroce_cc_rate:/ {
	for (i = 1; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
	if (v["rate"] < 10 || v["target"] > 10000 || v["rate"] > v["target"]) { print; bad = 1 }
} END { exit bad }' $T/trace || bad "a rate out of [10, 10000] Mbit/s or above its target"
grep -q ' cut rate=5000 target=10000 ' $T/trace || {
	grep sroce_cc_rate $T/trace | head -5; bad "no first cut from 10000 to 5000 Mbit/s"
}

# g. Paced slowly, the requester still asks for ACKs in time: at a floor
# of 2 Mbit/s (4 ms a packet) the 64 packets between two AckReqs take
# 270 ms, twice the local ACK timeout (-u 15: 134 ms), and the timer
# would fire with nothing lost; an AckReq every quarter timeout (34 ms)
# leaves the ACKs 100 ms for a vCPU the host holds up. Nothing is lost
# on this path: no local ACK timeout, no retransmission. 5 WRITEs of 256
# KiB, 1280 packets: the first window (512) leaves before any CNP is
# back, and the cuts (one per run of the requester) reach the floor soon
# after.
echo 2 >$P/dcqcn_min_mbps
echo >$T/trace
echo 1 >$T/events/sroce/sroce_cc_rate/enable
snap
bulk 262144 5 -u 15
echo 0 >$T/events/sroce/sroce_cc_rate/enable
counts "g (dcqcn=1, 2 Mbit/s floor)"
low=$(grep -o ' rate=[0-9]*' $T/trace | cut -d= -f2 | sort -n | head -1)
info "g: A paced $(da rp_paced) packets, lowest rate ${low:-none} Mbit/s, $(da retrans_timeout) local ACK timeouts, $(da retrans_pkts) packets resent"
[ "${low:-0}" = 2 ] && [ "$(da rp_paced)" -gt 0 ] ||
	bad "g: A's rate did not reach its 2 Mbit/s floor (lowest ${low:-none}) or nothing was paced"
[ "$(da retrans_timeout)" -eq 0 ] && [ "$(da retrans_pkts)" -eq 0 ] ||
	bad "g: paced, A timed out $(da retrans_timeout) times and resent $(da retrans_pkts) packets with nothing lost"
dcqcn_defaults
echo 4 >$P/cnp_interval_us

# d. hostile CNPs at B (from A's namespace, raw sockets, correct ICRC).
declare -A before
snap_counters sroce_b before
send_pkts cnp $IP4_B --qpn 0xABCDE --count 3; n=$SENT
send_pkts cnp $IP6_B --qpn 0xABCDE --count 2; n=$((n + SENT))
send_pkts cnp $IP4_B --qpn 0xFFFFFF --count 2; n=$((n + SENT))
send_pkts cnpshort $IP4_B --qpn 1 --count 15; n=$((n + SENT))
send_pkts cnplong $IP6_B --qpn 1 --count 16; n=$((n + SENT))
expect_delta before sroce_b rx_drop_cnp $n
expect_only before sroce_b rx_drop_cnp
send_pkts cnp $IP4_B --qpn 1 --count 4; v=$SENT vb=$SENT_BYTES
send_pkts cnp $IP6_B --qpn 1 --count 3; v=$((v + SENT)) vb=$((vb + SENT_BYTES))
[ "$vb" -eq $((v * 32)) ] || bad "a CNP is not 32 bytes BTH .. ICRC"
expect_delta before sroce_b rp_cnp_handled $v
expect_delta before sroce_b rx_pkts $v
expect_delta before sroce_b rx_bytes "$vb"
expect_only before sroce_b rx_drop_cnp rp_cnp_handled rx_pkts rx_bytes
info "d: $n hostile CNPs dropped, $v valid ones to QP 1 handled"

cleanup
check_dmesg
exit 0
