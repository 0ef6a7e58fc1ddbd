#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Guest entry point for the selftests: installs libsroce, then runs each
# test program and prints KTAP. Usage: run_guest.sh [test-list-file]
# The results also go to build/selftests-guest.ktap (or $KTAP_OUT); each
# test gets settings' timeout (or $TEST_TIMEOUT seconds).
cd "$(dirname "$0")" || exit 1
. ./lib.sh

list=${1:-selftests/tests.list}
[ -f "$TOP/$list" ] || { echo "no test list $list"; exit 1; }

# libsroce goes where Debian's libibverbs looks for providers.
install -m 644 "$BUILD"/provider/libsroce-rdmav*.so /usr/lib/x86_64-linux-gnu/libibverbs/
install -m 644 "$BUILD/provider/sroce.driver" /etc/libibverbs.d/sroce.driver

mapfile -t tests < <(grep -v -e '^#' -e '^$' "$TOP/$list")
out=${KTAP_OUT:-$BUILD/selftests-guest.ktap}
timeout_s=${TEST_TIMEOUT:-$(sed -n 's/^timeout=//p' settings 2>/dev/null)}
{
	echo "TAP version 13"
	echo "1..${#tests[@]}"
} | tee "$out"
n=0
for t in "${tests[@]}"; do
	n=$((n + 1))
	log=$(mktemp)
	read -r -a words <<<"$t"	# a test may carry arguments
	dmesg_mark
	timeout -k 5 "${timeout_s:-300}" bash "$TOP/selftests/${words[0]}" "${words[@]:1}" >"$log" 2>&1
	rc=$?
	# Any kernel report during a test fails it, whatever the test said.
	bugs=$(dmesg_bugs)
	if [ -n "$bugs" ]; then
		echo "$bugs" | sed 's/^/# kernel report: /' >>"$log"
		[ $rc = 0 ] || [ $rc = 4 ] && rc=3
	fi
	sed 's/^/# /; s/^# # /# /' "$log" | tee -a "$out"
	case $rc in
	0) echo "ok $n $t" ;;
	4) echo "ok $n $t # SKIP" ;;
	124) echo "not ok $n $t # TIMEOUT" ;;
	3) echo "not ok $n $t # kernel report" ;;
	*) echo "not ok $n $t # exit=$rc" ;;
	esac | tee -a "$out"
	rm -f "$log"
	# Each test starts from nothing.
	for d in $(sroce_devices); do rdma link del "$d" 2>/dev/null; done
	topo_down
done
exit 0
