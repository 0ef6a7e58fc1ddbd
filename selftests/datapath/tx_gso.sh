#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# A QP's consecutive IPv4 packets leave as one UDP GSO skb (module
# parameter tx_gso, kernel/sroce_xmit.c struct sroce_txbatch); every
# receiver must still get the same valid RoCEv2 packets as one by one.
# ibv_rc_pingpong with 64 KiB messages (64 packets each) and the received
# buffer checked (-c), then for each direction: the receiver's rx_pkts grew
# by exactly the sender's tx_pkts (every segment arrived and passed the
# UDP length and ICRC checks, none was dropped as malformed) and
# rx_drop_icrc stayed 0.
#   1. tx_gso on: tx_gso_skbs grows; the veth passes the GSO skbs whole
#      (tcpdump on the receiving veth sees UDP datagrams longer than the
#      MTU) and the receiving UDP layer splits them.
#   2. The sending veth without GSO fraglist (ethtool tx-gso-list off):
#      the netdev layer splits them before the wire; no datagram longer
#      than the MTU on the receiving veth.
#   3. IPv6 GID, and 4. tx_gso=0: tx_gso_skbs stays where it was.
. "$(dirname "$0")/dp_lib.sh"

PARAM=/sys/module/sroce/parameters/tx_gso
cleanup() {
	[ -n "$tpid" ] && kill "$tpid" 2>/dev/null
	wait 2>/dev/null
	echo 1 >"$PARAM" 2>/dev/null
	dp_down
}
bad() { cleanup; fail "$@"; }
tpid=

# snap: the counters the checks compare, as "dev.name=value" words.
snap() {
	local d c
	for d in "$DEV_A" "$DEV_B"; do
		for c in tx_pkts rx_pkts rx_drop_icrc rx_drop_malformed tx_gso_skbs; do
			printf '%s.%s=%s ' "$d" "$c" "$(hw_counter "$d" "$c")"
		done
	done
}
# delta BEFORE AFTER DEV COUNTER
delta() {
	local k="$3.$4" b a
	b=$(tr ' ' '\n' <<<"$1" | sed -n "s/^$k=//p")
	a=$(tr ' ' '\n' <<<"$2" | sed -n "s/^$k=//p")
	echo $((a - b))
}

# run CASE FAM PORT: the ping-pong and the conservation checks; sets GSO
# to the number of GSO skbs the two ends sent.
run() {
	local name=$1 fam=$2 port=$3 s0 s1 x y
	s0=$(snap)
	dp_pair_tool "$fam" -g "$port" ibv_rc_pingpong -s 65536 -n 100 -c >/dev/null ||
		bad "$name: ibv_rc_pingpong -s 65536 -c failed"
	sleep 1		# the last ACKs
	s1=$(snap)
	for x in "$DEV_A $DEV_B" "$DEV_B $DEV_A"; do
		set -- $x
		y=$(delta "$s0" "$s1" "$1" tx_pkts)
		[ "$y" -ge 6400 ] || bad "$name: $1 sent only $y packets"
		[ "$(delta "$s0" "$s1" "$2" rx_pkts)" = "$y" ] ||
			bad "$name: $1 sent $y packets, $2 received $(delta "$s0" "$s1" "$2" rx_pkts)"
		[ "$(delta "$s0" "$s1" "$2" rx_drop_icrc)" = 0 ] &&
			[ "$(delta "$s0" "$s1" "$2" rx_drop_malformed)" = 0 ] ||
			bad "$name: $2 dropped packets as malformed or for their ICRC"
	done
	GSO=$(($(delta "$s0" "$s1" "$DEV_A" tx_gso_skbs) + $(delta "$s0" "$s1" "$DEV_B" tx_gso_skbs)))
	info "$name: packets conserved both ways, $GSO GSO skbs"
}

# longest: the longest UDP 4791 datagram tcpdump saw on veth_a (end A's
# side), from its capture in $1.
longest() {
	tcpdump -nr "$1" 2>/dev/null | sed -n 's/.*UDP, length \([0-9]*\).*/\1/p' |
		sort -n | tail -1
}
capture() {	# capture FILE: start tcpdump on veth_a
	$NS_EXEC_A tcpdump -i veth_a -s 96 -w "$1" udp port 4791 2>/dev/null &
	tpid=$!
	sleep 2
}
capture_end() { sleep 1; kill "$tpid"; wait "$tpid" 2>/dev/null; tpid=; }

dmesg_mark
dp_up
[ -w "$PARAM" ] || bad "no module parameter tx_gso"
mtu=$(ip -n "$NS_A" -o link show veth_a | sed -n 's/.* mtu \([0-9]*\).*/\1/p')
pcap=$(mktemp)

echo 1 >"$PARAM"
capture "$pcap"
run "tx_gso on" 4 18800
capture_end
[ "$GSO" -gt 0 ] || bad "tx_gso on: no GSO skb was sent"
len=$(longest "$pcap")
[ -n "$len" ] && [ "$len" -gt "$mtu" ] ||
	bad "tx_gso on: longest datagram on veth_a ${len:-none}, expected GSO skbs above the MTU $mtu"
info "tx_gso on: longest UDP datagram on veth_a $len bytes (MTU $mtu)"

ip netns exec "$NS_B" ethtool -K veth_b tx-gso-list off >/dev/null 2>&1 ||
	bad "ethtool -K veth_b tx-gso-list off"
capture "$pcap"
run "segmented by the sending veth" 4 18801
capture_end
ip netns exec "$NS_B" ethtool -K veth_b tx-gso-list on >/dev/null 2>&1
[ "$GSO" -gt 0 ] || bad "tx-gso-list off: no GSO skb was sent"
len=$(tcpdump -nr "$pcap" 2>/dev/null | grep -c "> $A4.4791: UDP")
[ "$len" -ge 6400 ] || bad "tx-gso-list off: only $len datagrams from B on veth_a"
len=$(tcpdump -nr "$pcap" 2>/dev/null | grep "> $A4.4791: UDP" |
	sed -n 's/.*UDP, length \([0-9]*\).*/\1/p' | sort -n | tail -1)
[ "$len" -le "$mtu" ] || bad "tx-gso-list off: a datagram of $len bytes from B reached veth_a"
info "tx-gso-list off: B's datagrams on veth_a at most $len bytes"

run "IPv6" 6 18802
[ "$GSO" = 0 ] || bad "IPv6: $GSO GSO skbs (only IPv4 is batched)"

echo 0 >"$PARAM"
run "tx_gso off" 4 18803
[ "$GSO" = 0 ] || bad "tx_gso=0: $GSO GSO skbs"

rm -f "$pcap"
cleanup
check_dmesg
exit 0
