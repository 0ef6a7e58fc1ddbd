#!/bin/bash
# A RoCEv2 packet whose ICRC is wrong (one bit flipped; everything else
# valid) is dropped and counted in rx_drop_icrc, over IPv4 and IPv6, and
# nothing else moves: also for the MIDDLE and LAST packets of SENDs,
# WRITEs and READ responses (here they would reach no QP).
. "$(dirname "$0")/net_lib.sh"
net_setup
declare -A before
snap_counters sroce_b before
send_pkts badicrc $IP4_B --count 10; n4=$SENT
send_pkts badicrc $IP6_B --count 7 --opcode 0x04; n6=$SENT
nl=0
for op in 0x01 0x02 0x07 0x08 0x0e 0x0f; do
	send_pkts badicrc $IP4_B --count 2 --opcode $op; nl=$((nl + SENT))
	send_pkts badicrc $IP6_B --count 1 --opcode $op; nl=$((nl + SENT))
done
expect_delta before sroce_b rx_drop_icrc $((n4 + n6 + nl))
expect_only before sroce_b rx_drop_icrc
check_dmesg
exit 0
