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
# rdma_rxe owns 4791 in init_net while it is loaded (another test loads it)
modprobe -r rdma_rxe 2>/dev/null
bound $NS_A 4 && fail "4791 bound before any device"
link_add $NS_A sroce_a veth_a || fail "link add sroce_a"
bound $NS_A 4 || fail "no IPv4 socket in $NS_A"
bound $NS_A 6 || fail "no IPv6 socket in $NS_A"
bound $NS_B 4 && fail "socket in $NS_B without a device there"
if [ -d /sys/module/rdma_rxe ]; then
	info "rdma_rxe still loaded: not checking init_net"
else
	ss -H -uln "sport = :4791" | grep -q 4791 && fail "socket in init_net without a device there"
fi
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
# Another owner of 4791 (rdma_rxe in init_net): rdma link add fails
# cleanly with EADDRINUSE (the newlink unwind) and leaves nothing.
if modprobe rdma_rxe 2>/dev/null; then
	ip link add veth_x type veth peer name veth_y || fail "veth_x"
	ip link set veth_x up
	out=$(rdma link add sroce_x type sroce netdev veth_x 2>&1) &&
		fail "sroce device created where rdma_rxe owns UDP 4791"
	info "with rdma_rxe: $out"
	echo "$out" | grep -qi "address already in use" || fail "unexpected error: $out"
	dev_gone sroce_x || fail "sroce_x left behind"
	ip link del veth_x
	modprobe -r rdma_rxe || fail "rmmod rdma_rxe"
fi
sroce_unload || fail "rmmod"
check_dmesg
exit 0
