#!/bin/bash
# 150 cycles (three windows of 50) of rdma link add, open a context
# (ibv_devinfo), rdma link del: no slab cache and no vmalloc use grows with
# the cycles, and the module holds no references afterwards.
. "$(dirname "$0")/../lib.sh"
dmesg_mark
sroce_load || fail "load"
topo_up || fail "topology"

cycle() {
	link_add $NS_A sroce_a veth_a || return 1
	ibv_devinfo -d sroce_a >/dev/null || return 1
	rdma link del sroce_a || return 1
	wait_for 10 dev_gone sroce_a
}

# Slab counts move in whole slabs, so one window can jump by a slab's worth
# without a leak. A leak grows in every window: three windows of 50 cycles,
# and a cache that grows in all three by 75 objects in total (half an object
# per cycle) has leaked.
for i in 1 2 3 4 5; do cycle || fail "warm-up cycle $i"; done
slab_snapshot | sort >/tmp/leak.0
for w in 1 2 3; do
	for i in $(seq 50); do cycle || fail "window $w cycle $i"; done
	slab_snapshot | sort >/tmp/leak.$w
done
grown=$(join /tmp/leak.0 /tmp/leak.1 | join - /tmp/leak.2 | join - /tmp/leak.3 |
	awk '$3 > $2 && $4 > $3 && $5 > $4 && $5 - $2 >= 75 { print $1, $2, $3, $4, $5 }')
[ -z "$grown" ] || { echo "$grown" | sed 's/^/# grew: /'; fail "objects leaked over 150 cycles"; }
[ -z "$(sroce_devices)" ] || fail "devices left: $(sroce_devices)"
[ "$(cat /sys/module/sroce/refcnt)" = 0 ] || fail "module refcount $(cat /sys/module/sroce/refcnt)"
check_dmesg
info "150 cycles: $(join /tmp/leak.0 /tmp/leak.3 | awk '$3 != $2' | wc -l) caches moved, none grew steadily"
exit 0
