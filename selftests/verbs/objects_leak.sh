#!/bin/bash
# 100 create/destroy cycles of each object (CQ, SRQ, MR, MW type 1 and 2,
# AH) per window, three windows: no slab cache and no vmalloc use grows
# with the cycles (the windows idea of device/leak_cycles.sh).
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/lib_objects.sh"
objects_setup

"$TOOLS/obj_tool" -d sroce_a cycle 10 || fail "warm-up cycles"
slab_snapshot | sort >/tmp/oleak.0
for w in 1 2 3; do
	"$TOOLS/obj_tool" -d sroce_a cycle 100 || fail "window $w"
	slab_snapshot | sort >/tmp/oleak.$w
done
# A leak of one object per cycle grows a cache by 300; slab granularity
# can move a cache by a slab's worth in one window without a leak.
grown=$(join /tmp/oleak.0 /tmp/oleak.1 | join - /tmp/oleak.2 | join - /tmp/oleak.3 |
	awk '$3 > $2 && $4 > $3 && $5 > $4 && $5 - $2 >= 150 { print $1, $2, $3, $4, $5 }')
[ -z "$grown" ] || { echo "$grown" | sed 's/^/# grew: /'; fail "objects leaked over 300 cycles"; }
n=$(rdma resource show | awk '$2 == "sroce_a:"')
info "after: $n"
rdma link del sroce_a || fail "link del"
wait_for 10 dev_gone sroce_a || fail "device not gone"
check_dmesg
info "300 cycles: $(join /tmp/oleak.0 /tmp/oleak.3 | awk '$3 != $2' | wc -l) caches moved, none grew steadily"
exit 0
