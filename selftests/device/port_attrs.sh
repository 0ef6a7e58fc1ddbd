#!/bin/bash
# ibv_devinfo -v tells the truth: port ACTIVE while the netdev is up and DOWN
# when it is not, RoCE v2 GIDs from the netdev's IPv4 and IPv6 addresses,
# active MTU from the netdev MTU, local_ca_ack_delay from the real timer
# resolution (seed-rules R2.3).
. "$(dirname "$0")/../lib.sh"
sroce_load || fail "load"
topo_up || fail "topology"
link_add $NS_A sroce_a veth_a || fail "link add"

v=$(ibv_devinfo -v -d sroce_a) || fail "ibv_devinfo"
echo "$v" | grep -q "state:.*PORT_ACTIVE" || fail "port not ACTIVE with veth_a up"
echo "$v" | grep -q "phys_state:.*LINK_UP" || fail "phys_state not LINK_UP"

# GIDs: IPv4-mapped, global IPv6 and link-local, all RoCE v2; no RoCE v1.
has_gid() { ibv_devinfo -v -d sroce_a | grep -E "GID\[ *[0-9]+\]:" | grep -qE "[[:space:]]$1, RoCE v2"; }
wait_for 10 has_gid "::ffff:$IP4_A" || fail "no RoCE v2 GID for $IP4_A"
wait_for 10 has_gid "$IP6_A" || fail "no RoCE v2 GID for $IP6_A"
wait_for 10 has_gid "fe80::[0-9a-f:]+" || fail "no link-local RoCE v2 GID"
ibv_devinfo -v -d sroce_a | grep -E "GID\[" | grep -q "RoCE v1" && fail "RoCE v1 GID present"

# Active MTU: the largest IB MTU that fits the netdev MTU after 84 bytes of
# headers (IPv6 + UDP + BTH + RETH + ImmDt + ICRC).
for pair in 1500:1024 9000:4096 4180:4096 4179:2048 1108:1024 1107:512 600:512 340:256; do
	mtu=${pair%:*} want=${pair#*:}
	ip -n $NS_A link set veth_a mtu "$mtu" || fail "set mtu $mtu"
	got=$(devinfo_field sroce_a active_mtu)
	[ "${got%% *}" = "$want" ] || fail "netdev mtu $mtu: active_mtu '$got', want $want"
done
[ "$(devinfo_field sroce_a max_mtu | cut -d' ' -f1)" = 4096 ] || fail "max_mtu not 4096"
ip -n $NS_A link set veth_a mtu 1500

# local_ca_ack_delay is the smallest e with 4.096 us * 2^e >= hrtimer resolution.
res=$(awk '/\.resolution:/ { print $2; exit }' /proc/timer_list)
[ -n "$res" ] || fail "no hrtimer resolution in /proc/timer_list"
e=0; while [ $((4096 << e)) -lt "$res" ]; do e=$((e + 1)); done
got=$(devinfo_field sroce_a local_ca_ack_delay)
[ "$got" = "$e" ] || fail "local_ca_ack_delay $got, want $e (resolution ${res} ns)"

ip -n $NS_A link set veth_a down
st=$(devinfo_field sroce_a state)
case "$st" in *PORT_DOWN*) ;; *) fail "state '$st' with veth_a down" ;; esac
devinfo_field sroce_a phys_state | grep -q DISABLED || fail "phys_state not DISABLED when down"
ip -n $NS_A link set veth_a up
wait_for 10 sh -c "ibv_devinfo -d sroce_a | grep -q PORT_ACTIVE" || fail "not ACTIVE again after up"
exit 0
