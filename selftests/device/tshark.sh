#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# tshark decodes a capture of every opcode sroce sends as valid RoCEv2
# (seed-rules R1.2, R1.3, R1.4, R2.4, R2.5): build/selftests/hard_wire
# (hardening/hard_wire.c) runs RC, UC and UD traffic over IPv4 and IPv6
# between sroce_a and sroce_b while tcpdump captures veth_a; then
# tshark's InfiniBand dissector (UDP 4791 is its RoCEv2 port by default)
# decodes the capture with IP and UDP checksum checks on, and
# device/tshark_check.py asserts: no malformed packet, no error-level
# expert item (a bad IPv4 header or IPv6 UDP checksum is one), every
# ICRC right (computed from the captured bytes: tshark 4.4 only shows
# the field) and where tshark decodes it, every opcode of the list
# present (count printed), ACK, RNR NAK and sequence NAK among the
# ACKNOWLEDGEs, BTH destination QP and PSN (and DETH source QP) the
# test's. Then the check must fail a copy of the capture with one
# payload byte flipped (bad ICRC) and one ACK made a WRITE ONLY
# (malformed), for those two packets only. On a failure the capture is
# kept in build/tshark-wire.pcap.
. "$(dirname "$0")/../errors/err_lib.sh"

for t in tshark tcpdump ethtool; do
	command -v $t >/dev/null || fail "$t missing from the guest image (scripts/mkroot.sh)"
done
mountpoint -q /sys/kernel/debug ||
	mount -t debugfs none /sys/kernel/debug || skip "no debugfs"

W=$(mktemp -d)
tpid=
cleanup() {
	[ -n "$tpid" ] && kill "$tpid" 2>/dev/null
	wait 2>/dev/null
	dp_down
}
bad() {
	cleanup
	cp "$W/wire.pcap" "$BUILD/tshark-wire.pcap" 2>/dev/null &&
		info "capture kept in build/tshark-wire.pcap"
	fail "$@"
}

dmesg_mark
dp_up
# What a NIC would put on the wire: each packet on its own with its UDP
# checksum done (veth would pass UDP GSO skbs and partial checksums on).
for x in "$NS_A veth_a" "$NS_B veth_b"; do
	read -r ns dev <<<"$x"
	ip netns exec "$ns" ethtool -K "$dev" tx off tx-gso-list off >/dev/null 2>&1 ||
		bad "ethtool -K $dev tx off tx-gso-list off"
done
ip netns exec "$NS_A" tcpdump -Z root -i veth_a -U -s 0 -w "$W/wire.pcap" \
	udp port 4791 2>"$W/tcpdump.err" &
tpid=$!
wait_for 30 grep -q "listening on" "$W/tcpdump.err" || bad "tcpdump did not start"

t0=$SECONDS
"$TOOLS/hard_wire" | tee "$W/prog.out"
rc=${PIPESTATUS[0]}
info "traffic: $((SECONDS - t0)) s"
sleep 1			# the last ACKs
kill -INT "$tpid"
wait "$tpid"
tpid=
sed 's/^/# tcpdump: /' "$W/tcpdump.err"
[ "$rc" = 0 ] || bad "hard_wire failed"
grep -q "^0 packets dropped by kernel" "$W/tcpdump.err" || bad "tcpdump lost packets"
dp_down
check_dmesg

# decode PCAP TSV: tshark's fields of every packet, IP and UDP checksums
# checked (an error-level expert item when wrong).
decode() {
	local t0=$SECONDS
	HOME=$W tshark -n -r "$1" -o ip.check_checksum:TRUE \
		-o udp.check_checksum:TRUE -T fields -E header=y -E separator=/t \
		-E occurrence=a -E aggregator=, \
		-e frame.number -e udp.dstport -e infiniband.bth.opcode \
		-e infiniband.bth.destqp -e infiniband.bth.psn \
		-e infiniband.aeth.syndrome -e infiniband.deth.srcqp \
		-e infiniband.invariant.crc -e _ws.malformed \
		-e _ws.expert.severity -e _ws.expert.message \
		>"$2" 2>"$W/tshark.err" || { cat "$W/tshark.err"; bad "tshark failed"; }
	info "tshark: $((SECONDS - t0)) s, $(($(wc -l <"$2") - 1)) packets"
}
check() {
	python3 "$SELFTESTS_DIR/device/tshark_check.py" \
		--ip4 "$IP4_A,$IP4_B" --ip6 "$IP6_A,$IP6_B" "$@"
}

decode "$W/wire.pcap" "$W/fields.tsv"
check "$W/wire.pcap" "$W/fields.tsv" "$W/prog.out" ||
	bad "the capture is not valid RoCEv2"
# The check can fail: a copy with one ICRC and one opcode broken must
# fail it, for exactly those two packets.
frames=$(python3 "$SELFTESTS_DIR/device/tshark_check.py" --corrupt \
	"$W/wire.pcap" "$W/bad.pcap") || bad "cannot corrupt the capture"
decode "$W/bad.pcap" "$W/bad.tsv"
# shellcheck disable=SC2086 # two frame numbers
check --expect $frames "$W/bad.pcap" "$W/bad.tsv" "$W/prog.out" ||
	bad "self-check: the check missed a corrupted packet"
rm -rf "$W"
exit 0
