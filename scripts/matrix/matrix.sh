#!/bin/bash
# The kernel and rdma-core matrix (README, "Supported kernels and
# rdma-core"): for every cell of scripts/lib/matrix.sh (or those named),
# build sroce.ko, the test modules and, where the cell's rdma-core is not
# Debian 13's, libsroce in it (scripts/matrix/build.sh; the roots are
# built when missing), then boot a guest on the cell's kernel and run the
# core subset, selftests/matrix/tests.list. The stock cell (Debian 13) is
# make check's guest selftests. Needs the stock libsroce and selftests
# built (the guests' userspace is the Debian 13 image).
#   scripts/matrix/matrix.sh [-b|-r] [-t timeout_s] [-j guests] [CELL...]
# -b: build only; -r: run only (the cells are built); -j: guests side by
# side (default 2, one a host core; a cell is one guest).
# Results: build/matrix/CELL/guest.ktap (a failed build or a crashed guest
# is written there as a failure too, and the provider's result of the cell
# is added: libsroce built in its rdma-core, or the ABI check of
# scripts/matrix/provider-abi.sh), build/matrix/CELL/console.log; the
# exit status is 0 only if everything passed.
set -uo pipefail
. "$(dirname "$0")/../lib/common.sh"
. "$SROCE_TOP/scripts/lib/matrix.sh"

build=1 run=1 timeout_s=1500 jobs=2
while getopts "brt:j:" o; do
	case $o in
	b) run=0 ;;
	r) build=0 ;;
	t) timeout_s=$OPTARG ;;
	j) jobs=$OPTARG ;;
	*) die "usage: $0 [-b|-r] [-t timeout_s] [-j guests] [CELL...]" ;;
	esac
done
shift $((OPTIND - 1))
cells=${*:-$MATRIX_CELLS}
[[ $jobs =~ ^[1-9]$ ]] || die "-j takes 1 to 9 guests"
for c in $cells; do (matrix_cell "$c") || exit 1; done

fail_ktap() {	# fail_ktap CELL REASON
	mkdir -p "$SROCE_BUILD/matrix/$1"
	printf 'TAP version 13\n1..1\nnot ok 1 matrix %s: %s\n' "$1" "$2" >"$SROCE_BUILD/matrix/$1/guest.ktap"
}

rc=0 built=""
for c in $cells; do
	if [ $build = 0 ]; then built="$built $c"; continue; fi
	t=$SECONDS
	mkdir -p "$SROCE_BUILD/matrix/$c"
	rm -f "$SROCE_BUILD/matrix/$c/guest.ktap"
	if "$SROCE_TOP/scripts/matrix/build.sh" "$c" >"$SROCE_BUILD/matrix/$c/build.log" 2>&1; then
		built="$built $c"
		log "matrix $c: built in $((SECONDS - t)) s"
	else
		tail -30 "$SROCE_BUILD/matrix/$c/build.log"
		fail_ktap "$c" "build (build/matrix/$c/build.log)"
		log "matrix $c: build failed after $((SECONDS - t)) s"
		rc=1
	fi
done
[ $run = 1 ] || exit $rc

# console_tail CONSOLE: for a guest that did not end well, the console's
# last lines as KTAP comments, so that make check's output (which prints
# a cell's "# console:" lines) shows where the guest stopped and why:
# the cell's console.log is not kept by a CI run.
console_tail() {
	tr -d '\r' <"$1" | grep -av '^\[sroce\]' | tail -60 | sed 's/^/# console: /'
}

# run_cell CELL: one guest; its result in the cell's guest.ktap.
run_cell() {
	local c=$1 t=$SECONDS grc out=$SROCE_BUILD/matrix/$1
	rm -f "$out/guest.ktap"
	"$SROCE_TOP/scripts/vm/run-qemu.sh" -k "$c" -t "$timeout_s" selftests/matrix/run.sh \
		>"$out/console.log" 2>&1
	grc=$?
	[ -s "$out/guest.ktap" ] || fail_ktap "$c" "no result"
	( matrix_cell "$c"
	case $CELL_PROVIDER in
	build)
		if ls "$out"/provider/libsroce-rdmav*.so >/dev/null 2>&1; then
			echo "ok 900 provider: libsroce built in rdma-core $CELL_RDMA_CORE"
		else
			echo "not ok 900 provider: libsroce not built in rdma-core $CELL_RDMA_CORE"
		fi ;;
	abi)
		if "$SROCE_TOP/scripts/matrix/provider-abi.sh" "$c" 2>"$out/provider-abi.log"; then
			echo "ok 900 provider: libsroce's ABI against rdma-core $CELL_RDMA_CORE's libibverbs"
		else
			sed 's/^/# /' "$out/provider-abi.log"
			echo "not ok 900 provider: libsroce's ABI against rdma-core $CELL_RDMA_CORE's libibverbs"
		fi ;;
	esac ) >>"$out/guest.ktap"
	case $grc in
	0) ;;
	124) printf 'not ok 999 guest timed out after %ss\n' "$timeout_s" >>"$out/guest.ktap" ;;
	126) printf 'not ok 999 kernel report on the console\n' >>"$out/guest.ktap" ;;
	*) printf 'not ok 999 guest ended with status %s (see build/matrix/%s/console.log)\n' \
		"$grc" "$c" >>"$out/guest.ktap" ;;
	esac
	[ "$grc" = 0 ] || console_tail "$out/console.log" >>"$out/guest.ktap"
	log "matrix $c ($(tr -d '\r' <"$out/console.log" |
		sed -n 's/^# \(kernel [^ ,]*\), cell .*/\1/p' | head -1)):" \
		"$(grep -c '^ok ' "$out/guest.ktap") passed, $(grep -c '^not ok ' "$out/guest.ktap")" \
		"failed, guest $((SECONDS - t)) s"
	! grep -q '^not ok' "$out/guest.ktap"
}

pids=() n=0
for c in $built; do
	run_cell "$c" &
	pids+=($!)
	n=$((n + 1))
	if [ $n -ge "$jobs" ]; then
		wait "${pids[0]}" || rc=1
		pids=("${pids[@]:1}")
		n=$((n - 1))
	fi
done
for p in "${pids[@]}"; do wait "$p" || rc=1; done
exit $rc
