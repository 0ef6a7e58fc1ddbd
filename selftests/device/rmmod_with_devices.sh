#!/bin/bash
# rmmod sroce with two devices present, one of them open in a process
# waiting for async events: the module unloads, the devices go, the process
# is told IBV_EVENT_DEVICE_FATAL (seed-rules R3.9) and the kernel stays sane.
. "$(dirname "$0")/../lib.sh"
dmesg_mark
sroce_load || fail "load"
topo_up || fail "topology"
devs_up || fail "link add"
out=$(mktemp)
"$TOOLS/sroce_async" -d sroce_a -w DEVICE_FATAL -t 60000 >"$out" 2>&1 &
pid=$!
wait_for 20 grep -q READY "$out" || fail "waiter not ready"
timeout 60 rmmod sroce || fail "rmmod failed or hung"
sroce_loaded && fail "module still loaded"
dev_exists sroce_a && fail "sroce_a survived rmmod"
dev_exists sroce_b && fail "sroce_b survived rmmod"
wait $pid || { cat "$out"; fail "waiter got no event"; }
grep -q "^EVENT DEVICE_FATAL" "$out" || { cat "$out"; fail "no DEVICE_FATAL"; }
rm -f "$out"
check_dmesg
sroce_load || fail "reload after rmmod"
exit 0
