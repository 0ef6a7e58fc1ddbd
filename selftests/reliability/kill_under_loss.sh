#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# A requester killed mid-transfer under 20% loss: the responder's process
# (ib_write_bw server) must exit, destroying its QP and deregistering its
# MR, even though its QP was in the middle of a WRITE message when the
# client vanished (it held that message's MR). Nothing may stay in D state.
# seed-rules R2.5 (the responder waits mid-message for a lost packet).
# shellcheck disable=SC1091
. "$(dirname "$0")/rel_lib.sh"

command -v ib_write_bw >/dev/null || skip "no ib_write_bw (perftest)"
rel_need
dmesg_mark
dp_up
for ns_dev in "$NS_A veth_a" "$NS_B veth_b"; do
	set -- $ns_dev
	ip netns exec "$1" tc qdisc add dev "$2" root netem loss 20% ||
		{ dp_down; skip "no sch_netem"; }
done
ga=$(gid_index "$DEV_A" "$A4") gb=$(gid_index "$DEV_B" "$B4")
# A round counts only if the client is still transferring when it is
# killed: under 20% loss it can also end by itself first (its output then
# says why), and the server, still waiting in accept() for a client that
# never connected, is not the case under test. Such a round is run again.
clog=$(mktemp)
killed=0
for round in 1 2 3; do
	$NS_EXEC_A ib_write_bw -d "$DEV_A" -x "$ga" -p 18790 -s 65536 -n 100000 >/dev/null 2>&1 &
	spid=$!
	wait_for 20 dp_listening "$NS_EXEC_A" 18790 || { kill "$spid"; dp_down; fail "server did not listen"; }
	$NS_EXEC_B ib_write_bw -d "$DEV_B" -x "$gb" -p 18790 -s 65536 -n 100000 "$A4" >"$clog" 2>&1 &
	cpid=$!
	sleep 8
	if kill -9 "$cpid" 2>/dev/null; then
		wait "$cpid" 2>/dev/null
		killed=1
		break
	fi
	wait "$cpid"
	info "round $round: the client ended by itself (exit $?) before it was killed:"
	tail -5 "$clog" | sed 's/^/#   /'
	kill -9 "$spid" 2>/dev/null
	wait "$spid" 2>/dev/null
done
rm -f "$clog"
[ $killed = 1 ] || { dp_down; fail "no round had a client to kill mid-transfer"; }
# The server notices on its TCP socket and tears its verbs objects down.
n=0
while kill -0 "$spid" 2>/dev/null && [ $n -lt 150 ]; do
	sleep 0.2
	n=$((n + 1))
done
rc=0
if kill -0 "$spid" 2>/dev/null; then
	info "server still there after 30 s: state $(awk '{ print $3 }' "/proc/$spid/stat" 2>/dev/null)"
	sed 's/^/#   /' "/proc/$spid/stack" 2>/dev/null
	for t in /proc/"$spid"/task/*; do sed 's/^/#   /' "$t/stack" 2>/dev/null; done
	kill -9 "$spid" 2>/dev/null
	rc=1
fi
for ns_dev in "$NS_A veth_a" "$NS_B veth_b"; do
	set -- $ns_dev
	ip netns exec "$1" tc qdisc del dev "$2" root 2>/dev/null
done
[ $rc = 0 ] || fail "the server hung after its client was killed (destroy/dereg waiting)"
info "server exited $((n / 5)) s after its client was killed"
dp_down
check_dmesg
exit 0
