#!/bin/bash
# The RoCEv2 UDP sockets (port 4791, IPv4 and IPv6) exist in a network
# namespace exactly while a sroce device's netdev lives there: one pair
# per namespace however many devices, gone with the last device, gone
# with "ip netns del" while a device still exists, and none left after
# rmmod.
. "$(dirname "$0")/net_lib.sh"
bound() {	# bound NS FAMILY(4|6): is UDP 4791 bound there?
	ip netns exec "$1" ss -H -uln -"$2" "sport = :4791" | grep -q 4791
}
count_bound() { ip netns exec "$1" ss -H -uln "sport = :4791" | grep -c 4791; }
dmesg_mark
sroce_load || fail "load"
topo_up || fail "topology"
bound $NS_A 4 && fail "4791 bound before any device"
link_add $NS_A sroce_a veth_a || fail "link add sroce_a"
bound $NS_A 4 || fail "no IPv4 socket in $NS_A"
bound $NS_A 6 || fail "no IPv6 socket in $NS_A"
bound $NS_B 4 && fail "socket in $NS_B without a device there"
ss -H -uln "sport = :4791" | grep -q 4791 && fail "socket in init_net without a device there"
# a second device in the same netns shares the pair
ip -n $NS_A link add veth_c type veth peer name veth_d || fail "veth_c"
ip -n $NS_A link set veth_c up
link_add $NS_A sroce_c veth_c || fail "link add sroce_c"
[ "$(count_bound $NS_A)" = 2 ] || fail "expected 2 sockets in $NS_A, got $(count_bound $NS_A)"
rdma link del sroce_a || fail "link del sroce_a"
wait_for 10 dev_gone sroce_a || fail "sroce_a still there"
bound $NS_A 4 || fail "socket gone while sroce_c remains"
rdma link del sroce_c || fail "link del sroce_c"
wait_for 10 dev_gone sroce_c || fail "sroce_c still there"
wait_for 5 sh -c "! ip netns exec $NS_A ss -H -uln 'sport = :4791' | grep -q 4791" ||
	fail "socket left in $NS_A after its last device"
# netns deletion with a live device
link_add $NS_B sroce_b veth_b || fail "link add sroce_b"
bound $NS_B 4 || fail "no socket in $NS_B"
ip netns del $NS_B || fail "netns del"
wait_for 20 dev_gone sroce_b || fail "sroce_b survived its netns"
# and again in a fresh namespace of the same name
ip netns add $NS_B && ip -n $NS_A link add veth_e type veth peer name veth_f netns $NS_B ||
	fail "new netns"
link_add $NS_B sroce_b veth_f || fail "link add in a new netns"
bound $NS_B 4 || fail "no socket in the new $NS_B"
rdma link del sroce_b || fail "link del"
wait_for 10 dev_gone sroce_b || fail "sroce_b still there"
sroce_unload || fail "rmmod"
check_dmesg
exit 0
