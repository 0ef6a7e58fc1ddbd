#!/bin/bash
# rmmod sroce with two devices present, open in three processes waiting for
# async events (two on sroce_a, one on sroce_b): the module unloads, the
# devices go, every process is told IBV_EVENT_DEVICE_FATAL (seed-rules R3.9;
# an unaffiliated event reaches every context, R3.1) and the kernel stays
# sane.
. "$(dirname "$0")/../lib.sh"
dmesg_mark
sroce_load || fail "load"
topo_up || fail "topology"
devs_up || fail "link add"
pids=() outs=() devs=(sroce_a sroce_a sroce_b)
for i in 0 1 2; do
	outs[i]=$(mktemp)
	"$TOOLS/sroce_async" -d "${devs[i]}" -w "local catastrophic error" -t 60000 >"${outs[i]}" 2>&1 &
	pids[i]=$!
	wait_for 20 grep -q READY "${outs[i]}" || fail "waiter $i not ready"
done
timeout 60 rmmod sroce || fail "rmmod failed or hung"
sroce_loaded && fail "module still loaded"
dev_exists sroce_a && fail "sroce_a survived rmmod"
dev_exists sroce_b && fail "sroce_b survived rmmod"
for i in 0 1 2; do
	wait "${pids[i]}" || { cat "${outs[i]}"; fail "waiter $i (${devs[i]}) got no event"; }
	grep -q "^EVENT local catastrophic error port=" "${outs[i]}" ||
		{ cat "${outs[i]}"; fail "waiter $i (${devs[i]}): no DEVICE_FATAL"; }
done
rm -f "${outs[@]}"
check_dmesg
sroce_load || fail "reload after rmmod"
exit 0
