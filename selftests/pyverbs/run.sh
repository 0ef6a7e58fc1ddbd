#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Guest side of scripts/pyverbs.sh: runs rdma-core's tests/ (staged by the
# host script in build/pyverbs/tests) against one device with Debian 13's
# python3-pyverbs, and prints the counts.
#   selftests/pyverbs/run.sh [rxe|sroce] [unittest args]
# The device is one rxe0 / sroce0 on a veth in the init namespace; the
# suite runs both of its ends on it. The device and the GID index of its
# IPv4 address go to tests/run_tests.py as --dev and --gid (tests/base.py
# otherwise takes the first device and the first GID with an address).
# Exit 0 if no test failed or errored.
. "$(dirname "$0")/../lib.sh"

target=${1:-rxe}
[ $# -gt 0 ] && shift
suite=$BUILD/pyverbs/tests
[ -e "$suite/run_tests.py" ] || fail "no $suite: run scripts/pyverbs.sh on the host"

case $target in
rxe)
	rxe_up || fail "rxe"
	dev=$RXE_DEV
	;;
sroce)
	install -m 644 "$BUILD"/provider/libsroce-rdmav*.so /usr/lib/x86_64-linux-gnu/libibverbs/
	install -m 644 "$BUILD/provider/sroce.driver" /etc/libibverbs.d/sroce.driver
	sroce_load || fail "load sroce.ko"
	# The same addresses as rxe's set-up; rxe is not loaded here.
	ip link add $RXE_NETDEV type veth peer name rxe_v1 || fail "veth"
	ip addr add $RXE_IP4/24 dev $RXE_NETDEV
	ip addr add $RXE_IP6/64 dev $RXE_NETDEV nodad
	ip link set rxe_v1 up
	ip link set $RXE_NETDEV up
	rdma link add sroce0 type sroce netdev $RXE_NETDEV || fail "rdma link add sroce0"
	dev=sroce0
	;;
*) fail "unknown target $target" ;;
esac
wait_for 10 gid_index $dev $RXE_IP4 >/dev/null || fail "no RoCE v2 GID for $RXE_IP4 on $dev"
gid=$(gid_index $dev $RXE_IP4)
info "rdma-core tests on $dev, GID index $gid ($RXE_IP4)"
log=$BUILD/pyverbs-$target.log
cd "$BUILD/pyverbs" || exit 1
export PYTHONDONTWRITEBYTECODE=1
start=$SECONDS
timeout -k 10 "${PYVERBS_GUEST_TIMEOUT:-2700}" \
	python3 tests/run_tests.py --dev "$dev" --gid "$gid" -v "$@" >"$log" 2>&1
rc=$?
info "exit $rc after $((SECONDS - start)) s; log: build/pyverbs-$target.log"
grep -E '(ERROR|FAIL):' "$log" | sed 's/^/# /' | head -100

# unittest's last lines: "Ran N tests in Ts" then "OK (skipped=S)" or
# "FAILED (failures=F, errors=E, skipped=S, expected failures=X)".
ran=$(sed -n 's/^Ran \([0-9]*\) tests\{0,1\} in.*/\1/p' "$log" | tail -1)
last=$(grep -E '^(OK|FAILED)' "$log" | tail -1)
num() { sed -n "s/.*[(, ]$1=\([0-9]*\).*/\1/p" <<<"$last"; }
f=$(num failures) e=$(num errors) s=$(num skipped) x=$(num "expected failures")
[ -n "$ran" ] || { tail -30 "$log" | sed 's/^/# /'; fail "the suite did not finish (rc $rc)"; }
f=${f:-0} e=${e:-0} s=${s:-0} x=${x:-0}
echo "pyverbs on $dev: $ran run, $((ran - f - e - s - x)) passed, $f failed, $e errors, $s skipped$([ "$x" = 0 ] || echo ", $x expected failures")"
[ "$target" = rxe ] && rxe_down
[ $((f + e)) = 0 ]
