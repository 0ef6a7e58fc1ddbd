#!/bin/bash
# Deleting the netdev under a device removes the device (and its peer's,
# since deleting one veth end deletes the pair); the module is left with no
# references and can unload.
. "$(dirname "$0")/../lib.sh"
dmesg_mark
sroce_load || fail "load"
topo_up || fail "topology"
devs_up || fail "link add"
ibv_devinfo -d sroce_a >/dev/null || fail "devinfo"
ip -n $NS_A link del veth_a || fail "ip link del"
wait_for 20 dev_gone sroce_a || fail "sroce_a still present"
wait_for 20 dev_gone sroce_b || fail "sroce_b still present"
[ "$(cat /sys/module/sroce/refcnt)" = 0 ] || fail "module refcount not 0"
sroce_unload || fail "rmmod after netdev delete"
check_dmesg
exit 0
