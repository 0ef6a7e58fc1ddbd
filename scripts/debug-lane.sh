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
#   scripts/debug-lane.sh [-t timeout_s]
# Results: build/debug/guest.ktap and build/debug/kmemleak.ktap (a failed
# build or a crashed guest is written there as a failure too); the exit
# status is 0 only if everything passed.
set -uo pipefail
. "$(dirname "$0")/lib/common.sh"

timeout_s=3600
while getopts "t:" o; do
	case $o in
	t) timeout_s=$OPTARG ;;
	*) die "usage: $0 [-t timeout_s]" ;;
	esac
done
out=$SROCE_BUILD/debug
mkdir -p "$out"
rm -f "$out/guest.ktap" "$out/kmemleak.ktap"
fail_ktap() {	# fail_ktap NAME REASON: one failed result in each file
	local f
	for f in guest kmemleak; do
		[ -s "$out/$f.ktap" ] ||
			printf 'TAP version 13\n1..1\nnot ok 1 debug lane: %s # %s\n' "$1" "$2" >"$out/$f.ktap"
	done
}

t0=$SECONDS
if ! "$SROCE_TOP/scripts/vm/mkdebugkernel.sh"; then
	fail_ktap "debug kernel build" "see ~/.cache/sroce/debug-kernel/work-*/make.log"
	exit 1
fi
tk=$SECONDS
if ! "$SROCE_TOP/scripts/build-debug-modules.sh"; then
	fail_ktap "module build against the debug kernel" "see the log above"
	exit 1
fi
tm=$SECONDS
"$SROCE_TOP/scripts/vm/run-qemu.sh" -k debug -t "$timeout_s" selftests/debug/lane.sh
grc=$?
log "debug lane: kernel $((tk - t0)) s, modules $((tm - tk)) s, guest $((SECONDS - tm)) s (status $grc)"
case $grc in
0) ;;
124) fail_ktap "guest" "timed out after ${timeout_s}s" ;;
126) fail_ktap "guest" "kernel report on the console" ;;
*) fail_ktap "guest" "ended with status $grc (crash? see build/guest-console.log)" ;;
esac
# A report on the console after every test passed (126) is a failure too.
if [ $grc = 126 ] && ! grep -q '^not ok' "$out/guest.ktap"; then
	printf 'not ok 999 console: kernel report outside any test\n' >>"$out/guest.ktap"
fi
! grep -q '^not ok' "$out/guest.ktap" "$out/kmemleak.ktap"
