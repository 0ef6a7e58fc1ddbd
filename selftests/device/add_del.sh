#!/bin/bash
# rdma link add creates a device that libibverbs lists and opens through
# libsroce; rdma link del removes it and nothing is left.
. "$(dirname "$0")/../lib.sh"
dmesg_mark
sroce_load || fail "load"
topo_up || fail "topology"
link_add $NS_A sroce0 veth_a || fail "rdma link add"
dev_exists sroce0 || fail "no /sys/class/infiniband/sroce0"
[ "$(link_netdev $NS_A sroce0)" = "netdev veth_a" ] || fail "rdma link does not show netdev veth_a"
ibv_devices | grep -qw sroce0 || fail "ibv_devices does not list sroce0"
out=$(ibv_devinfo -d sroce0 2>&1) || { echo "$out"; fail "ibv_devinfo cannot open sroce0"; }
echo "$out" | grep -q "transport:.*InfiniBand" || fail "transport not IB"
echo "$out" | grep -q "link_layer:.*Ethernet" || fail "link layer not Ethernet"
rdma link del sroce0 || fail "rdma link del"
wait_for 10 dev_gone sroce0 || fail "sroce0 still present"
ibv_devices | grep -qw sroce0 && fail "ibv_devices still lists sroce0"
[ "$(cat /sys/module/sroce/refcnt)" = 0 ] || fail "module refcount not back to 0"
check_dmesg
exit 0
