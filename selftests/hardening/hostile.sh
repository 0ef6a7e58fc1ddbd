#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# A hostile peer: hardening/hostile.py injects a seeded random mix of
# malformed, out-of-window, bad-key, oversize and flooding RoCEv2 packets
# (seed-rules R3.4, R3.5) at the QPs of build/selftests/hard_victim
# (hardening/hard_victim.c) while it runs data-checked traffic. Fails on:
# a violation the victim reports (wrong data on a checked QP, a stuck QP,
# a destroy/dereg/exit past 10 s), slab or vmalloc memory not back near
# its baseline, rdma_cm no longer connecting on either device, and any
# kernel report.
# HOSTILE_SEED=n (or a second argument) replays a run (the seed is
# printed); HOSTILE_SECS=n (or a first argument) sets how long the traffic
# and the injection run (default 60); HOSTILE_SKIP=kind,... (or a third
# argument, kinds joined by +) leaves kinds of packets out (hostile.py's
# k_<kind>), to narrow
# a finding down.
. "$(dirname "$0")/../errors/err_lib.sh"

SECS=${1:-${HOSTILE_SECS:-60}}
SEED=${2:-${HOSTILE_SEED:-$(date +%s)}}
SKIP=${3:-${HOSTILE_SKIP:-}}
VICTIM=$TOOLS/hard_victim
INJECTOR=$SELFTESTS_DIR/hardening/hostile.py
[ -x "$VICTIM" ] || fail "$VICTIM is not built (scripts/build-selftests.sh)"

rping_listening() {
	ip netns exec "$1" rdma resource show cm_id 2>/dev/null | grep -q "LISTEN.*:7174"
}

# rping over rdma_cm from the server's namespace to the client's.
rping_pair() {
	local sns=$1 sip=$2 cns=$3 spid rc
	ip netns exec "$sns" timeout -k 5 60 rping -s -a "$sip" -p 7174 -C 3 -v >/tmp/rping_s.$$ 2>&1 &
	spid=$!
	# The client is rejected (no such service) if it comes before the
	# server's listen: wait for the listening cm_id.
	wait_for 30 rping_listening "$sns" ||
		info "no listening cm_id on port 7174 after 30 s: $(ip netns exec "$sns" rdma resource show cm_id 2>&1 | head -3)"
	ip netns exec "$cns" timeout -k 5 60 rping -c -a "$sip" -p 7174 -C 3 -v >/tmp/rping_c.$$ 2>&1
	rc=$?
	wait "$spid" || rc=1
	sed "s/^/# rping server ($sns): /" /tmp/rping_s.$$ | head -5
	sed "s/^/# rping client ($cns): /" /tmp/rping_c.$$ | head -5
	rm -f /tmp/rping_s.$$ /tmp/rping_c.$$
	info "rping server $sns, client $cns: exit $rc"
	return $rc
}

# Where the victim's processes are, then whether they end at all.
victim_stuck() {
	local p n kids alive
	for p in $1 $(pgrep -P "$1"); do
		info "victim process $p: $(awk '/^State/ { print $2, $3 }' /proc/"$p"/status 2>/dev/null)"
		sed 's/^/#   /' /proc/"$p"/stack 2>/dev/null
	done
	for p in $(pgrep -P "$1"); do
		for n in /proc/"$p"/task/*; do
			[ "$n" = /proc/"$p"/task/"$p" ] && continue
			info "  thread ${n##*/}: $(awk '/^State/ { print $2, $3 }' "$n"/status 2>/dev/null)"
			sed 's/^/#     /' "$n"/stack 2>/dev/null
		done
	done
	kids=$(pgrep -P "$1")
	# shellcheck disable=SC2086
	kill -9 "$1" $kids 2>/dev/null
	for n in $(seq 1 150); do
		alive=
		for p in $kids; do [ -d /proc/"$p" ] && alive="$alive $p"; done
		[ -z "$alive" ] && break
		sleep 0.2
	done
	info "after SIGKILL: victim's case process${alive:+es}${alive:- gone after $((n / 5)) s}${alive:+$alive still there after 30 s (uninterruptible)}"
}

dmesg_mark
dp_up
# The injector's multicast burst leaves A's namespace by this route.
ip -n "$NS_A" route add 224.0.0.0/4 dev veth_a
ip netns exec "$NS_A" ping -q -c 1 -W 5 "$IP4_B" >/dev/null || fail "no IPv4 path A -> B"
ip netns exec "$NS_B" ping -q -c 1 -W 5 "$IP4_A" >/dev/null || fail "no IPv4 path B -> A"

settle_mem
mem_baseline
info "seed $SEED (replay: HOSTILE_SEED=$SEED), $SECS s"

target=$(mktemp -u /tmp/hostile-target.XXXXXX)
vlog=$(mktemp) ilog=$(mktemp)
t0=$SECONDS
HOSTILE_SECS=$SECS HOSTILE_SEED=$SEED HOSTILE_TARGET=$target "$VICTIM" >"$vlog" 2>&1 &
vpid=$!
python3 "$INJECTOR" --target "$target" --secs "$SECS" --seed "$SEED" --skip "$SKIP" >"$ilog" 2>&1 &
ipid=$!

# The victim: its traffic, its teardown; then its exit gets 10 s from
# the verdict line (the victim's own alarm covers the calls before).
deadline=$((SECONDS + SECS + 240)) verdict_at=
while kill -0 "$vpid" 2>/dev/null; do
	if [ -z "$verdict_at" ] && grep -q "VERDICT" "$vlog"; then
		verdict_at=$SECONDS
	fi
	if grep -q "did not return within 10 s" "$vlog"; then
		cat "$vlog"
		victim_stuck "$vpid"
		fail "a verbs call of the victim hung (replay: HOSTILE_SEED=$SEED)"
	fi
	if [ -n "$verdict_at" ] && [ $((SECONDS - verdict_at)) -gt 10 ]; then
		cat "$vlog"
		victim_stuck "$vpid"
		fail "the victim did not exit within 10 s of its verdict (exit path stuck)"
	fi
	if [ $SECONDS -gt $deadline ]; then
		cat "$vlog"
		victim_stuck "$vpid"
		fail "the victim did not finish within $((SECS + 240)) s"
	fi
	sleep 0.2
done
wait "$vpid"
vrc=$?
info "victim ended after $((SECONDS - t0)) s, exit $vrc"
wait "$ipid"
irc=$?
cat "$ilog"
cat "$vlog"
rm -f "$ilog" "$vlog" "$target" "$target.tmp"
[ $irc = 0 ] || fail "the injector failed (exit $irc)"
[ $vrc = 0 ] || fail "the victim saw a violation (exit $vrc); replay with HOSTILE_SEED=$SEED"

for d in $DEV_A $DEV_B; do
	rdma statistic show link "$d/1" 2>/dev/null | tr -s ' \t' '\n' |
		paste - - | awk -v d="$d" 'NR > 1 && $2 != 0 { printf "# %s %s %s\n", d, $1, $2 }'
done

# Memory back near its baseline. The tolerance covers what moves without
# sroce: partial slabs of per-CPU caches, the sockets and namespaces'
# bookkeeping of the processes that ran, page tables of vmalloc'd stacks.
# The injector sent thousands of packets and the victim made dozens of
# QPs, CQs and MRs: an object leaked per packet or per pair exceeds it.
settle_mem
mem_check "replay: HOSTILE_SEED=$SEED"

# rdma_cm still connects, each device as server once.
rping_pair "$NS_A" "$IP4_A" "$NS_B" || fail "rdma_cm: rping to sroce_a failed after the attack"
rping_pair "$NS_B" "$IP4_B" "$NS_A" || fail "rdma_cm: rping to sroce_b failed after the attack"
info "rdma_cm connects on both devices"

dp_down
check_dmesg
exit 0
