#!/bin/bash
# Deleting the network namespace that holds the netdev destroys the veth and
# with it the device.
. "$(dirname "$0")/../lib.sh"
dmesg_mark
sroce_load || fail "load"
topo_up || fail "topology"
devs_up || fail "link add"
ip netns del $NS_A || fail "netns del"
wait_for 30 dev_gone sroce_a || fail "sroce_a still present"
wait_for 30 dev_gone sroce_b || fail "sroce_b still present"
check_dmesg
exit 0
