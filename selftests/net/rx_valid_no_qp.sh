#!/bin/bash
# Valid RoCEv2 packets, with an ICRC computed by an independent
# implementation (roce_pkt.py: zlib CRC-32 over the IBA A17.3.3 invariant
# fields), pass every network check and reach the QP layer, which counts
# them in rx_drop_no_qp because no QP has that number. Over IPv4 and IPv6,
# for several opcodes (extension headers of every length), and for a
# 4096-byte SEND that arrives in IPv4 fragments (non-linear skb: the ICRC
# is fed fragment by fragment). rx_pkts and rx_bytes (BTH .. ICRC) count
# them.
. "$(dirname "$0")/net_lib.sh"
net_setup
declare -A before
snap_counters sroce_b before
pkts=0 bytes=0
for dst in $IP4_B $IP6_B; do
	for op in 0x04 0x0A 0x0C 0x11 0x13 0x24 0x64 0x65; do
		send_pkts valid "$dst" --opcode $op --count 3 --payload 256; n=$SENT b=$SENT_BYTES
		pkts=$((pkts + n)) bytes=$((bytes + b))
	done
	send_pkts valid "$dst" --opcode 0x64 --count 2 --payload 1021; n=$SENT b=$SENT_BYTES
	pkts=$((pkts + n)) bytes=$((bytes + b))
done
send_pkts frag $IP4_B --payload 4096 --count 2; n=$SENT b=$SENT_BYTES
pkts=$((pkts + n)) bytes=$((bytes + b))
info "sent $pkts valid packets, $bytes IB bytes"
expect_delta before sroce_b rx_drop_no_qp $pkts
expect_delta before sroce_b rx_pkts $pkts
expect_delta before sroce_b rx_bytes $bytes
expect_only before sroce_b rx_drop_no_qp rx_pkts rx_bytes
check_dmesg
exit 0
