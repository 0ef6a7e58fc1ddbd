#!/bin/bash
# Link down and up deliver IBV_EVENT_PORT_ERR and IBV_EVENT_PORT_ACTIVE to a
# process waiting in ibv_get_async_event (seed-rules R3.9).
. "$(dirname "$0")/../lib.sh"
sroce_load || fail "load"
topo_up || fail "topology"
link_add $NS_A sroce_a veth_a || fail "link add"

expect_event() { # <event> <command...>: run command while a waiter listens
	local want=$1; shift
	local out; out=$(mktemp)
	"$TOOLS/sroce_async" -d sroce_a -w "$want" -t 20000 >"$out" 2>&1 &
	local pid=$!
	wait_for 20 grep -q READY "$out" || { kill $pid; fail "waiter not ready"; }
	"$@"
	wait $pid || { cat "$out"; fail "no event after: $*"; }
	grep -q "^EVENT $want port=1$" "$out" || { cat "$out"; fail "wanted $want"; }
	info "$* -> $(grep EVENT "$out" | tr '\n' ' ')"
	rm -f "$out"
}
expect_event "port error" ip -n $NS_A link set veth_a down
expect_event "port active" ip -n $NS_A link set veth_a up
# The peer's carrier follows: taking veth_b down makes veth_a's port go down.
expect_event "port error" ip -n $NS_B link set veth_b down
expect_event "port active" ip -n $NS_B link set veth_b up
exit 0
