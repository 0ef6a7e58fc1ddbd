#!/bin/bash
# A name already in use, and a netdev that already has a sroce device, are
# refused with EEXIST ("File exists") and leave nothing behind.
. "$(dirname "$0")/../lib.sh"
sroce_load || fail "load"
topo_up || fail "topology"
link_add $NS_A sroce_a veth_a || fail "link add"
before=$(ls /sys/class/infiniband | sort)

out=$(link_add $NS_B sroce_a veth_b 2>&1) && fail "second sroce_a created"
echo "$out" | grep -q "File exists" || fail "unclear error for name in use: $out"
info "name in use: $out"
out=$(link_add $NS_A other0 veth_a 2>&1) && fail "second device on veth_a created"
echo "$out" | grep -q "File exists" || fail "unclear error for netdev in use: $out"
info "netdev in use: $out"

[ "$(ls /sys/class/infiniband | sort)" = "$before" ] || fail "devices left behind"
[ "$(link_netdev $NS_A sroce_a)" = "netdev veth_a" ] || fail "sroce_a damaged"
ibv_devinfo -d sroce_a >/dev/null || fail "sroce_a no longer opens"
# veth_b is still free for a device of its own.
link_add $NS_B sroce_b veth_b || fail "veth_b refused after the failed attempt"
exit 0
