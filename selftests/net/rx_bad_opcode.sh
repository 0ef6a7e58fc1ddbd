#!/bin/bash
# Packets with a correct ICRC but a reserved or unsupported opcode (RC/UC/
# UD reserved values, the RD range seed-rules R1.1), or a transport
# version other than 0, are counted in rx_drop_malformed; a CNP in
# rx_drop_cnp; a packet to the multicast QPN 0xFFFFFF (R1.4, not supported
# yet) in rx_drop_mcast. The correct ICRC proves the opcode check, not the
# ICRC check, dropped them.
. "$(dirname "$0")/net_lib.sh"
net_setup
declare -A before
snap_counters sroce_b before
send_pkts badop $IP4_B --count 13; a=$SENT
send_pkts badop $IP6_B --count 13; b=$SENT
send_pkts tver $IP4_B --count 15; c=$SENT
expect_delta before sroce_b rx_drop_malformed $((a + b + c))
send_pkts cnp $IP4_B --count 2; d=$SENT
send_pkts cnp $IP6_B --count 1; e=$SENT
expect_delta before sroce_b rx_drop_cnp $((d + e))
send_pkts mcastqp $IP4_B --count 3; f=$SENT
expect_delta before sroce_b rx_drop_mcast "$f"
expect_only before sroce_b rx_drop_malformed rx_drop_cnp rx_drop_mcast
check_dmesg
exit 0
