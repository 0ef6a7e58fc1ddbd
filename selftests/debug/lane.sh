#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Guest entry point of the debug-kernel lane (scripts/debug-lane.sh boots
# scripts/vm/mkdebugkernel.sh's kernel with run-qemu.sh -k debug): the
# tests of selftests/tests.list tagged "debug" (and with "full", "debug-only"
# and "debug-full"), in that order, through
# run_guest.sh (a KASAN, KFENCE,
# lockdep, UBSAN or hung-task report fails the test that ran), then a
# kmemleak scan. Results: build/debug/guest-I.ktap, build/debug/kmemleak-I.ktap.
#   lane.sh [I/N [full]]   guest I of N taking tests from build/debug/queue,
#                          default 1/1: the tests tagged debug; "full": those
#                          tagged debug-only and debug-full too
cd "$(dirname "$0")/.." || exit 1
. ./lib.sh

shard=${1:-1/1}
out=$BUILD/debug/kmemleak-${shard%/*}.ktap
gout=$BUILD/debug/guest-${shard%/*}.ktap
KML=/sys/kernel/debug/kmemleak
mkdir -p "$BUILD/debug"
rm -f "$out" "$gout"
[ "${SROCE_KERNEL:-}" = debug ] || { echo "# not the debug kernel (run-qemu.sh -k debug)"; exit 1; }
[ -w $KML ] || { printf 'TAP version 13\n1..1\nnot ok 1 kmemleak # no %s\n' $KML | tee "$out"; exit 1; }
# What boot left unreferenced is not the lane's to report.
echo clear >$KML

# Twice the stock timeout per test, four times every wait_for: KASAN and
# lockdep slow everything.
export SROCE_TIME_SCALE=4
# The guests share one queue of the tests (scripts/debug-lane.sh empties it).
sel=(debug)
[ "${2:-}" = full ] && sel+=(debug-only debug-full)
KTAP_OUT=$gout TEST_TIMEOUT=1200 bash ./run_guest.sh --shard "$shard" --queue debug/queue "${sel[@]}"

# Unreferenced objects whose allocation went through sroce: by name while
# the module is loaded, as a bare module address (0xffffffffa... or c...,
# nothing else is a module in this kernel) once the instance that
# allocated it is gone. Scanned with sroce loaded, then again after rmmod
# (what its exit left behind). An object is reported only once it is 5 s
# old and unreferenced, hence the second scan after a pause.
kml_scan() {
	{ echo scan >$KML && sleep 6 && echo scan >$KML; } 2>/dev/null || {
		echo "kmemleak cannot scan (disabled: $(dmesg | grep -m1 'kmemleak:.*disabl'))"
		return 1
	}
	awk '
		/^unreferenced object/ { if (hit) print rep; rep = $0; hit = 0; next }
		{ rep = rep "\n" $0 }
		/\[sroce\]|sroce_|\] 0xffffffff[a-f][0-9a-f]+$/ { hit = 1 }
		END { if (hit) print rep }' $KML
}
{
	echo "TAP version 13"
	echo "1..1"
	sroce_load >/dev/null 2>&1
	# Objects once reported stay listed: the scan after rmmod shows those
	# of the first again, by address only, so the first's names are kept.
	ok=0
	if leaks=$(kml_scan); then
		sroce_unload 2>/dev/null
		if [ -n "$leaks" ]; then ok=1; elif leaks=$(kml_scan); then ok=1; fi
	fi
	total=$(grep -c '^unreferenced object' $KML)
	if [ $ok = 0 ]; then
		echo "# $leaks"
		echo "not ok 1 kmemleak: no scan"
	elif [ -n "$leaks" ]; then
		echo "$leaks" | head -200 | sed 's/^/# /'
		echo "not ok 1 kmemleak: sroce leaked $(echo "$leaks" | grep -c '^unreferenced object') object(s)"
	else
		echo "# kmemleak: $total unreferenced object(s), none allocated through sroce"
		[ "$total" = 0 ] || grep -A12 '^unreferenced object' $KML | head -60 | sed 's/^/#   /'
		echo "ok 1 kmemleak: nothing sroce allocated is leaked"
	fi
} | tee "$out"
exit 0
