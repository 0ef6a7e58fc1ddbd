#!/bin/bash
# ip addr add on the netdev delivers IBV_EVENT_GID_CHANGE and a new RoCE v2
# GID; ip addr del takes it away again (seed-rules R3.9). GID_CHANGE is
# unaffiliated: every context of the device gets it, here two processes
# (seed-rules R3.1).
. "$(dirname "$0")/../lib.sh"
sroce_load || fail "load"
topo_up || fail "topology"
link_add $NS_A sroce_a veth_a || fail "link add"
has_gid() { ibv_devinfo -v -d sroce_a | grep -E "GID\[" | grep -q "$1, RoCE v2"; }
wait_for 10 has_gid "::ffff:$IP4_A" || fail "initial GID missing"

pids=() outs=()
for i in 1 2; do
	outs[i]=$(mktemp)
	"$TOOLS/sroce_async" -d sroce_a -w "GID table change" -t 20000 >"${outs[i]}" 2>&1 &
	pids[i]=$!
	wait_for 20 grep -q READY "${outs[i]}" || fail "waiter $i not ready"
done
ip -n $NS_A addr add 198.51.100.7/24 dev veth_a
for i in 1 2; do
	wait "${pids[i]}" || { cat "${outs[i]}"; fail "waiter $i: no event after ip addr add"; }
	grep -q "^EVENT GID table change port=1$" "${outs[i]}" ||
		{ cat "${outs[i]}"; fail "waiter $i: not GID_CHANGE"; }
done
wait_for 10 has_gid "::ffff:198.51.100.7" || fail "new GID not in the table"

ip -n $NS_A addr add 2001:db8:1::7/64 dev veth_a nodad
wait_for 10 has_gid "2001:db8:1::7" || fail "new IPv6 GID not in the table"
ip -n $NS_A addr del 198.51.100.7/24 dev veth_a
wait_for 10 sh -c "! ibv_devinfo -v -d sroce_a | grep -q '::ffff:198.51.100.7'" ||
	fail "GID stays after ip addr del"
rm -f "${outs[@]}"
exit 0
