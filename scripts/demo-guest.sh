#!/bin/bash
# Runs inside the guest for make demo.
set -u
cd "$(dirname "$0")/.."
. selftests/lib.sh
install -m 644 "$BUILD"/provider/libsroce-rdmav*.so /usr/lib/x86_64-linux-gnu/libibverbs/
install -m 644 "$BUILD/provider/sroce.driver" /etc/libibverbs.d/sroce.driver

step() { printf '\n=== %s\n' "$*"; }
step "insmod sroce.ko (after ib_core, ib_uverbs, udp_tunnel)"
sroce_load || { echo "insmod failed"; exit 1; }
lsmod | grep -E "^(sroce|ib_uverbs|ib_core) "
step "two namespaces joined by a veth pair"
topo_up || { echo "topology failed"; exit 1; }
ip -n $NS_A -br addr show veth_a
ip -n $NS_B -br addr show veth_b
step "rdma link add sroce_a type sroce netdev veth_a (in $NS_A), sroce_b on veth_b (in $NS_B)"
devs_up || { echo "rdma link add failed"; exit 1; }
rdma link show
step "ibv_devices"
ibv_devices
step "ibv_devinfo -v -d sroce_a"
sleep 1
ibv_devinfo -v -d sroce_a
step "ibv_devinfo -d sroce_b"
ibv_devinfo -d sroce_b
step "rdma link del, rmmod sroce"
devs_down
rmmod sroce
echo "demo done"
