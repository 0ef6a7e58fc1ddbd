# SPDX-License-Identifier: GPL-2.0-only
# Helpers of the network-layer selftests (selftests/net/). Source it.
# shellcheck shell=bash
. "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"

ROCE_PKT=$SELFTESTS_DIR/net/roce_pkt.py

# Names of all sroce counters, from the one list in the driver.
counter_names() {
	sed -n 's/.*X([A-Z_0-9]*, "\([a-z_0-9]*\)").*/\1/p' "$TOP/kernel/sroce_counters.h"
}


# Snapshot all counters of DEV into the associative array named by $2.
snap_counters() {
	local -n _s=$2
	local n
	for n in $(counter_names); do _s[$n]=$(hw_counter "$1" "$n"); done
}

# Both namespaces, both devices, neighbours resolved (a packet sent while
# ARP/ND is pending may be dropped by the neighbour queue).
net_setup() {
	dmesg_mark
	sroce_load || fail "load sroce.ko"
	topo_up || fail "topology"
	devs_up || fail "rdma link add"
	ip netns exec $NS_A ping -q -c 1 -W 5 $IP4_B >/dev/null || fail "no IPv4 path"
	ip netns exec $NS_A ping -q -c 1 -W 5 $IP6_B >/dev/null || fail "no IPv6 path"
}

# send_pkts KIND DST [args]: run roce_pkt.py in $NS_A; sets SENT (packets)
# and SENT_BYTES (IB bytes, BTH .. ICRC).
send_pkts() {
	local out
	out=$(ip netns exec $NS_A python3 "$ROCE_PKT" "$@") || fail "roce_pkt.py $*"
	SENT=$(echo "$out" | awk '/^sent/ { print $2 }')
	SENT_BYTES=$(echo "$out" | awk '/^sent/ { print $4 }')
	[ -n "$SENT" ] && [ "$SENT" -gt 0 ] || fail "roce_pkt.py $* sent nothing"
}

# expect_delta BEFORE_ARRAY DEV NAME WANT: counter NAME of DEV grew by WANT.
expect_delta() {
	local -n _b=$1
	local now want=$4
	wait_for 5 counter_ge "$2" "$3" "$(( ${_b[$3]} + want ))"
	now=$(hw_counter "$2" "$3")
	[ "$(( now - ${_b[$3]} ))" -eq "$want" ] || {
		show_deltas "$1" "$2"
		fail "$2 $3 grew by $(( now - ${_b[$3]} )), expected $want"
	}
}

# show_deltas BEFORE_ARRAY DEV: log every counter that moved.
show_deltas() {
	local -n _d=$1
	local n v
	for n in $(counter_names); do
		v=$(hw_counter "$2" "$n")
		[ "$v" != "${_d[$n]}" ] && info "$n +$(( v - ${_d[$n]} ))"
	done
	return 0
}

# expect_only BEFORE_ARRAY DEV NAME...: no counter other than NAME... moved.
expect_only() {
	local -n _o=$1
	local dev=$2 n m keep
	shift 2
	for n in $(counter_names); do
		keep=0
		for m in "$@"; do [ "$n" = "$m" ] && keep=1; done
		[ $keep = 1 ] && continue
		[ "$(hw_counter "$dev" "$n")" = "${_o[$n]}" ] ||
			fail "$dev $n changed: ${_o[$n]} -> $(hw_counter "$dev" "$n")"
	done
}
