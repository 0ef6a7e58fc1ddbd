#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Each QP keeps its output route between packets (kernel/sroce_xmit.c,
# struct sroce_route); a change of the routing table must reach it. While
# an RC ping-pong runs between A and B, a host route to A in B's netns
# through a gateway that does not exist (its neighbour never resolves)
# must stop every packet from B at once: A's rx_pkts stands still (a
# route kept past the change would go on delivering). Over the IPv4 and
# the IPv6 GID; once that route is gone, a new connection runs again.
# ("unreachable" routes cannot show it: with the output interface given,
# as sroce gives it, IPv4 then assumes the destination is on link.)
. "$(dirname "$0")/dp_lib.sh"

grew() { [ "$(hw_counter "$1" "$2")" -gt "$3" ]; }
cleanup() {
	kill $cpid $spid 2>/dev/null
	wait 2>/dev/null
	ip -n "$NS_B" -4 route del "$A4" via "$GW4" 2>/dev/null
	ip -n "$NS_B" -6 route del "$A6" via "$GW6" 2>/dev/null
	dp_down
}
bad() { cleanup; fail "$@"; }
cpid= spid=
GW4=192.0.2.99 GW6=2001:db8::99	# nobody

dmesg_mark
dp_up
port=18700
for fam in 4 6; do
	if [ $fam = 6 ]; then a=$A6 gw=$GW6 ga=$(gid_index "$DEV_A" "$A6") gb=$(gid_index "$DEV_B" "$B6")
	else a=$A4 gw=$GW4 ga=$(gid_index "$DEV_A" "$A4") gb=$(gid_index "$DEV_B" "$B4")
	fi
	$NS_EXEC_A timeout -k 5 120 ibv_rc_pingpong -d "$DEV_A" -g "$ga" -p $port \
		-n 1000000 >/dev/null 2>&1 &
	spid=$!
	wait_for 20 dp_listening "$NS_EXEC_A" $port || bad "server did not listen"
	$NS_EXEC_B timeout -k 5 120 ibv_rc_pingpong -d "$DEV_B" -g "$gb" -p $port \
		-n 1000000 "$A4" >/dev/null 2>&1 &
	cpid=$!
	t0=$(hw_counter "$DEV_B" tx_pkts)
	wait_for 30 grew "$DEV_B" tx_pkts $((t0 + 50)) || bad "IPv$fam: no traffic"
	ip -n "$NS_B" -$fam route add "$a" via $gw dev veth_b || bad "ip route add"
	sleep 1		# what left before the change arrives
	r0=$(hw_counter "$DEV_A" rx_pkts)
	sleep 2
	r1=$(hw_counter "$DEV_A" rx_pkts)
	ip -n "$NS_B" -$fam route del "$a" via $gw
	kill "$cpid" "$spid" 2>/dev/null
	wait "$cpid" "$spid" 2>/dev/null
	cpid= spid=
	[ "$r1" = "$r0" ] || bad "IPv$fam: A received $((r1 - r0)) packets after B's route to $a went to $gw"
	info "IPv$fam: A's rx_pkts stood at $r0 while B routed $a through $gw"
	port=$((port + 1))
	dp_pair_tool $fam -g $port ibv_rc_pingpong -n 20 >/dev/null ||
		bad "IPv$fam: no traffic after the route came back"
	port=$((port + 1))
done
cleanup
check_dmesg
exit 0
