#!/bin/bash
# The debug-kernel lane: the tests of selftests/tests.list tagged "debug"
# (why these: Documentation/testing.md) in a guest booted on
# scripts/vm/mkdebugkernel.sh's kernel (KASAN, KFENCE, lockdep, UBSAN,
# debug objects, kmemleak, hung tasks; built once and cached), against
# sroce.ko and the test modules built for it (build/debug/). A kernel
# report fails the test it happened in (run_guest.sh), one on the console
# fails the run (run-qemu.sh), and a kmemleak scan at the end fails on
# anything sroce leaked. Needs libsroce and the selftests built
# (scripts/build-provider.sh, scripts/build-selftests.sh).
#   scripts/debug-lane.sh [-f] [-t timeout_s] [-j guests]
# -f: the full lane, with the tests tagged "debug-only" and "debug-full"
# too (make debug-lane); make check runs it without them.
# -j: guests side by side, taking the tests from one queue (default 2: each
# guest's vCPUs run on one host thread, so two keep both cores busy).
# Results: build/debug/guest-I.ktap and build/debug/kmemleak-I.ktap for
# guest I (a failed build or a crashed guest is written there as a
# failure too), build/debug/guest-queue.ktap for a test no guest finished;
# the exit status is 0 only if everything passed.
set -uo pipefail
. "$(dirname "$0")/lib/common.sh"

timeout_s=3600 jobs=2 full=""
while getopts "t:j:f" o; do
	case $o in
	t) timeout_s=$OPTARG ;;
	j) jobs=$OPTARG ;;
	f) full=full ;;
	*) die "usage: $0 [-f] [-t timeout_s] [-j guests]" ;;
	esac
done
[[ $jobs =~ ^[1-9]$ ]] || die "-j takes 1 to 9 guests"
out=$SROCE_BUILD/debug
mkdir -p "$out"
rm -f "$out"/guest*.ktap "$out"/kmemleak*.ktap
fail_ktap() {	# fail_ktap I NAME REASON: one failed result in guest I's files
	local f
	for f in guest kmemleak; do
		[ -s "$out/$f-$1.ktap" ] ||
			printf 'TAP version 13\n1..1\nnot ok 1 debug lane: %s # %s\n' "$2" "$3" >"$out/$f-$1.ktap"
	done
}

t0=$SECONDS
if ! "$SROCE_TOP/scripts/vm/mkdebugkernel.sh"; then
	fail_ktap 1 "debug kernel build" "see ~/.cache/sroce/debug-kernel/work-*/make.log"
	exit 1
fi
tk=$SECONDS
if ! "$SROCE_TOP/scripts/build-debug-modules.sh"; then
	fail_ktap 1 "module build against the debug kernel" "see the log above"
	exit 1
fi
tm=$SECONDS
rm -rf "$out/queue"	# run_guest.sh --queue debug/queue
pids=()
for i in $(seq "$jobs"); do
	"$SROCE_TOP/scripts/vm/run-qemu.sh" -k debug -t "$timeout_s" selftests/debug/lane.sh "$i/$jobs" $full \
		>"$out/console-$i.log" 2>&1 &
	pids+=($!)
done
rc=0
for i in $(seq "$jobs"); do
	wait "${pids[$((i - 1))]}"
	grc=$?
	log "debug lane guest $i/$jobs: status $grc (console: build/debug/console-$i.log)"
	# CI keeps only this script's output, not the consoles.
	if [ $grc != 0 ]; then
		log "guest $i's console ends:"
		tr -d '\r' <"$out/console-$i.log" | tail -40
	fi
	case $grc in
	0) ;;
	124) fail_ktap "$i" "guest $i" "timed out after ${timeout_s}s" ;;
	126) fail_ktap "$i" "guest $i" "kernel report on the console" ;;
	*) fail_ktap "$i" "guest $i" "ended with status $grc (crash?), its console ends: $(tr -d '\r' <"$out/console-$i.log" | grep -v '^$' | tail -3 | tr '\n' '|')" ;;
	esac
	# A report on the console after every test passed (126) is a failure too.
	if [ $grc = 126 ] && ! grep -q '^not ok' "$out/guest-$i.ktap"; then
		printf 'not ok 999 console: kernel report outside any test\n' >>"$out/guest-$i.ktap"
	fi
	grep -q '^not ok' "$out/guest-$i.ktap" "$out/kmemleak-$i.ktap" && rc=1
done
"$SROCE_TOP/scripts/queue-unfinished.sh" "$out/queue" >"$out/guest-queue.ktap"
grep -q '^not ok' "$out/guest-queue.ktap" && rc=1
log "debug lane: kernel $((tk - t0)) s, modules $((tm - tk)) s, guests $((SECONDS - tm)) s"
exit $rc
