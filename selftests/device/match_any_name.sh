#!/bin/bash
# libsroce recognises sroce devices by the module's sroce_abi_version sysfs
# attribute, not by name: any name works, including one another provider
# (librxe) would claim by prefix, and a device of another driver is not taken.
. "$(dirname "$0")/../lib.sh"
sroce_load || fail "load"
topo_up || fail "topology"
for name in sroce0 foo rxe_imposter x_1; do
	link_add $NS_A "$name" veth_a || fail "rdma link add $name"
	[ "$(cat /sys/class/infiniband/$name/sroce_abi_version)" -gt 0 ] || fail "no abi attribute on $name"
	out=$(ibv_devinfo -d "$name" 2>&1) || { echo "$out"; fail "$name not opened by a provider"; }
	# Only libsroce's context reports our fw string.
	echo "$out" | grep -q "fw_ver:[[:space:]]*sroce-[0-9]" || { echo "$out"; fail "$name opened by the wrong provider"; }
	rdma link del "$name" || fail "del $name"
	wait_for 10 dev_gone "$name" || fail "$name not removed"
done
# A device of another driver on the same kind of netdev is left to its provider.
if modprobe rdma_rxe 2>/dev/null; then
	ip netns exec $NS_B rdma link add rxe9 type rxe netdev veth_b 2>/dev/null &&
	{
		[ -e /sys/class/infiniband/rxe9/sroce_abi_version ] && fail "rxe device has sroce attribute"
		ibv_devinfo -d rxe9 | grep -q "sroce-abi" && fail "libsroce took an rxe device"
		rdma link del rxe9
	}
fi
exit 0
