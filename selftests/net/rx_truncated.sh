#!/bin/bash
# UDP datagrams to port 4791 with 0..15 bytes (shorter than a BTH, or a
# BTH without room for the ICRC) are counted in rx_drop_malformed.
. "$(dirname "$0")/net_lib.sh"
net_setup
declare -A before
snap_counters sroce_b before
send_pkts short $IP4_B --count 16; n4=$SENT
send_pkts short $IP6_B --count 16; n6=$SENT
expect_delta before sroce_b rx_drop_malformed $((n4 + n6))
expect_only before sroce_b rx_drop_malformed
check_dmesg
exit 0
