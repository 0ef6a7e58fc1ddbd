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
gid_a=$(gid_index sroce_a $IP4_A)
gid_b=$(gid_index sroce_b $IP4_B)

step "ibv_rc_pingpong between the namespaces (server in $NS_A, client in $NS_B)"
ip netns exec $NS_A timeout 120 ibv_rc_pingpong -d sroce_a -g "$gid_a" -n 200 &
spid=$!
sleep 2
ip netns exec $NS_B timeout 120 ibv_rc_pingpong -d sroce_b -g "$gid_b" -n 200 $IP4_A
crc=$?
wait $spid
echo "ibv_rc_pingpong: client exit $crc, server exit $?"

step "ib_write_bw 64 KiB between the namespaces"
ip netns exec $NS_A timeout 180 ib_write_bw -d sroce_a -x "$gid_a" -s 65536 -n 200 -F &
spid=$!
sleep 3
ip netns exec $NS_B timeout 180 ib_write_bw -d sroce_b -x "$gid_b" -s 65536 -n 200 -F $IP4_A
crc=$?
wait $spid
echo "ib_write_bw: client exit $crc, server exit $?"

step "sroce counters (rdma statistic show link sroce_a/1)"
rdma statistic show link sroce_a/1

step "rdma link del, rmmod sroce"
devs_down
rmmod sroce
echo "demo done"
