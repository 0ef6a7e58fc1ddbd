#!/bin/bash
# rdma link add with bad input fails with a clear error and leaves nothing
# behind: no netdev given, a netdev that does not exist.
. "$(dirname "$0")/../lib.sh"
sroce_load || fail "load"
topo_up || fail "topology"
before=$(ls /sys/class/infiniband 2>/dev/null | sort)

# iproute2's rdma tool answers a missing netdev with its usage text (and,
# being iproute2, exit status 0); no request reaches the kernel.
out=$(ip netns exec $NS_A rdma link add bad0 type sroce 2>&1)
echo "$out" | grep -q "Usage: rdma link add NAME type TYPE netdev NETDEV" ||
	fail "no usage message for a missing netdev: $out"
dev_exists bad0 && fail "device created without a netdev"
info "no netdev: $(echo "$out" | grep 'link add')"
out=$(ip netns exec $NS_A rdma link add bad0 type sroce netdev nosuchdev0 2>&1) &&
	fail "add on a missing netdev succeeded"
echo "$out" | grep -qi "no such device" || fail "unclear error for missing netdev: $out"
info "missing netdev: $out"

[ "$(ls /sys/class/infiniband 2>/dev/null | sort)" = "$before" ] || fail "devices left behind"
[ "$(cat /sys/module/sroce/refcnt)" = 0 ] || fail "module reference left behind"
exit 0
