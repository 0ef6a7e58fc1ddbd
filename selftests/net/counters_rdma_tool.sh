#!/bin/bash
# Every sroce counter (SROCE_COUNTER_LIST) is listed by
# "rdma statistic show link DEV/1" and in sysfs hw_counters, and a drop
# shows up there.
. "$(dirname "$0")/net_lib.sh"
net_setup
out=$(rdma statistic show link sroce_b/1) || fail "rdma statistic show link sroce_b/1"
info "$out"
names=$(counter_names)
[ "$(echo "$names" | wc -l)" -ge 10 ] || fail "could not read the counter list"
for n in $names; do
	echo "$out" | grep -qw "$n" || fail "rdma statistic does not list $n"
	[ -r "/sys/class/infiniband/sroce_b/ports/1/hw_counters/$n" ] ||
		fail "no hw_counters/$n"
done
v0=$(rdma statistic show link sroce_b/1 | grep -o "rx_drop_icrc [0-9]*" | awk '{print $2}')
send_pkts badicrc $IP4_B --count 3
wait_for 5 sh -c "rdma statistic show link sroce_b/1 | grep -qw 'rx_drop_icrc $((v0 + 3))'" ||
	fail "rx_drop_icrc did not go from $v0 to $((v0 + 3)) in rdma statistic"
check_dmesg
exit 0
