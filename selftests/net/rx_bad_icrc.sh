#!/bin/bash
# A RoCEv2 packet whose ICRC is wrong (one bit flipped; everything else
# valid) is dropped and counted in rx_drop_icrc, over IPv4 and IPv6, and
# nothing else moves.
. "$(dirname "$0")/net_lib.sh"
net_setup
declare -A before
snap_counters sroce_b before
send_pkts badicrc $IP4_B --count 10; n4=$SENT
send_pkts badicrc $IP6_B --count 7 --opcode 0x04; n6=$SENT
expect_delta before sroce_b rx_drop_icrc $((n4 + n6))
expect_only before sroce_b rx_drop_icrc
check_dmesg
exit 0
