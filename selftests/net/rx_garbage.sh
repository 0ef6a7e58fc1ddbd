#!/bin/bash
# Thousands of random datagrams to UDP 4791 (random bytes; and random
# headers with a correct ICRC, which reach the parser): no crash, a clean
# kernel log, and every packet is counted by exactly one drop reason.
. "$(dirname "$0")/net_lib.sh"
net_setup
declare -A before
snap_counters sroce_b before
total=0
send_pkts garbage $IP4_B --count 1500 --seed 7; n=$SENT
total=$((total + n))
send_pkts garbage $IP6_B --count 1000 --seed 8; n=$SENT
total=$((total + n))
send_pkts fuzz $IP4_B --count 1500 --seed 9; n=$SENT
total=$((total + n))
send_pkts fuzz $IP6_B --count 500 --seed 10; n=$SENT
total=$((total + n))
sum_drops() {
	local s=0 c
	for c in $(counter_names | grep '^rx_drop_'); do
		s=$((s + $(hw_counter sroce_b "$c") - ${before[$c]}))
	done
	echo $s
}
drops_reach() { [ "$(sum_drops)" -ge "$1" ]; }
wait_for 10 drops_reach $total
got=$(sum_drops)
for c in $(counter_names | grep '^rx_drop_'); do
	d=$(( $(hw_counter sroce_b "$c") - ${before[$c]} ))
	[ $d -ne 0 ] && info "$c +$d"
done
[ "$got" -eq $total ] || fail "sent $total, drop counters add up to $got"
# Everything that passed the network checks went to the QP layer.
passed=$(( $(hw_counter sroce_b rx_pkts) - ${before[rx_pkts]} ))
noqp=$(( $(hw_counter sroce_b rx_drop_no_qp) - ${before[rx_drop_no_qp]} ))
[ $passed -eq $noqp ] || fail "rx_pkts +$passed but rx_drop_no_qp +$noqp"
[ "$(( $(hw_counter sroce_b rx_drop_icrc) - ${before[rx_drop_icrc]} ))" -gt 0 ] ||
	fail "random bytes never failed the ICRC"
check_dmesg
rdma link del sroce_b && rdma link del sroce_a || fail "link del"
sroce_unload || fail "rmmod after the storm"
check_dmesg
exit 0
