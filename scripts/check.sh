#!/bin/bash
# make check: every test. Host unit tests of the protocol core, fuzz smoke,
# static checks (sparse, W=1, checkpatch), then the selftests in QEMU
# guests (Debian 13 kernel; GUESTS=2 side by side, each a shard of the
# tests) against the freshly built sroce.ko and libsroce, the two-VM
# test's short form (scripts/vm/two-vms.sh; SROCE_TWOVM=0 leaves it out),
# the kernel matrix: the core subset on Debian 12's kernel and on the
# newest Debian kernel (scripts/matrix/matrix.sh; SROCE_MATRIX=0 leaves it
# out), then the debug-kernel lane: the tests tagged "debug" on a kernel
# with KASAN, lockdep, kmemleak... (the "debug-only" and "debug-full" ones
# run in make debug-lane)
# (scripts/debug-lane.sh; SROCE_DEBUG_LANE=0 leaves it out). Ends with one
# line "N passed, N failed". T="FILTER..." runs only those guest
# selftests, TARGET=rxe runs them against rdma_rxe (selftests/run_guest.sh).
set -uo pipefail
. "$(dirname "$0")/lib/common.sh"

"$SROCE_TOP/scripts/host-deps.sh" || die "host dependencies"
res=$SROCE_BUILD/results
rm -rf "$res" && mkdir -p "$res"
t0=$SECONDS

# The debug kernel takes longest to build (cached afterwards): it starts
# first, in the background and below everything else in priority, once the
# root and the guest image exist (its own packages go into the root after
# the image is made, so the image never sees them half installed).
# It runs unless SROCE_DEBUG_LANE=0, or a subset of the guest tests or
# another target was asked for (T=, TARGET=; SROCE_DEBUG_LANE=1 adds it).
lane=0
[ -z "${T:-}${TARGET:-}" ] && lane=1
lane=${SROCE_DEBUG_LANE:-$lane}
dk_pid=""
if [ "$lane" = 1 ]; then
	"$SROCE_TOP/scripts/vm/mkimage.sh" >"$res/image.log" 2>&1 || tail -20 "$res/image.log"
	# A process group of its own, so that it can be stopped as a whole.
	setsid nice -n 10 "$SROCE_TOP/scripts/vm/mkdebugkernel.sh" >"$res/debug-kernel.log" 2>&1 &
	dk_pid=$!
fi
# The kernel matrix's roots and builds (scripts/matrix/matrix.sh -b) run
# beside the rest too, mostly downloads the first time; its guests run
# after the stock ones. The same rule as the lane's decides whether it runs.
matrix=0
[ -z "${T:-}${TARGET:-}" ] && matrix=1
matrix=${SROCE_MATRIX:-$matrix}
mx_pid=""
if [ "$matrix" = 1 ]; then
	"$SROCE_TOP/scripts/vm/mkimage.sh" >"$res/image.log" 2>&1 || tail -20 "$res/image.log"
	setsid nice -n 10 "$SROCE_TOP/scripts/matrix/matrix.sh" -b >"$res/matrix-build.log" 2>&1 &
	mx_pid=$!
fi

log "host unit tests"
make -s -C "$SROCE_TOP/selftests/host" run >"$res/host.log" 2>&1
sed -n '/^TAP version/,$p' "$res/host.log" | tee "$res/host.ktap" | grep -E "^(not )?ok|^# " | tail -5

log "provider host tests (WQE building, rings)"
make -s -C "$SROCE_TOP/selftests/provider" run >"$res/provider.log" 2>&1
sed -n '/^TAP version/,$p' "$res/provider.log" | tee "$res/provider.ktap" | grep -E "^not ok|^# .*(passed|failed)" | tail -3

log "fuzz smoke"
make -s -C "$SROCE_TOP/selftests/fuzz" smoke >"$res/fuzz.log" 2>&1
frc=$?
{
	echo "TAP version 13"; echo "1..1"
	if [ $frc = 0 ]; then echo "ok 1 fuzz smoke"; else tail -20 "$res/fuzz.log" | sed 's/^/# /'; echo "not ok 1 fuzz smoke"; fi
} | tee "$res/fuzz.ktap" | tail -1

log "seed-rules map (every rule has a test)"
"$SROCE_TOP/scripts/spec-map.sh" >"$res/specmap.ktap" 2>&1
grep -E "^(not )?ok|^# (no test|pending|Doc)" "$res/specmap.ktap"

log "syntax of the benchmark scripts (bash -n; make bench itself is not run)"
{
	echo "TAP version 13"
	set -- "$SROCE_TOP"/scripts/bench/*.sh "$SROCE_TOP/scripts/build-siw.sh" "$SROCE_TOP/scripts/root-extras.sh"
	echo "1..$#"
	n=0
	for f in "$@"; do
		n=$((n + 1))
		if bash -n "$f" 2>"$res/syntax.err"; then echo "ok $n ${f#"$SROCE_TOP"/}"
		else sed 's/^/# /' "$res/syntax.err"; echo "not ok $n ${f#"$SROCE_TOP"/}"; fi
	done
} >"$res/scripts.ktap"
grep -E "^not ok|^# " "$res/scripts.ktap" || echo "$(grep -c '^ok' "$res/scripts.ktap") scripts parse"

log "static checks: sparse, W=1, checkpatch --strict (sroce's files only)"
"$SROCE_TOP/scripts/static-checks.sh" >"$res/static.ktap" 2>"$res/static.log"
[ -s "$res/static.ktap" ] || tail -5 "$res/static.log"
grep -E "^(not )?ok|^# " "$res/static.ktap"

log "building sroce.ko, libsroce, the selftests and the Debian packages"
build_ok=1
for s in build-module build-provider build-selftests; do
	"$SROCE_TOP/scripts/$s.sh" >"$res/$s.log" 2>&1 || { build_ok=0; tail -30 "$res/$s.log"; }
done
# The packages, and what device/install.sh's offline apt install needs
# beside them. A failure here fails that test only.
for s in mkdeb offline-deps; do
	"$SROCE_TOP/scripts/pkg/$s.sh" >"$res/$s.log" 2>&1 || { tail -30 "$res/$s.log"; break; }
done
log "the packages installed with apt and DKMS on an overlay of the guest's system"
"$SROCE_TOP/scripts/pkg/install-test.sh" >"$res/install.log" 2>&1
cp "$SROCE_BUILD/install/install.ktap" "$res/install.ktap" 2>/dev/null ||
	printf 'TAP version 13\n1..1\nnot ok 1 install test: no result\n' >"$res/install.ktap"
grep -E "^not ok|^# " "$res/install.ktap" || echo "$(grep -c '^ok' "$res/install.ktap") passed"

# Guests run their vCPUs on one host thread (scripts/vm/run-qemu.sh), so
# GUESTS of them side by side (default 2, one a host core) take the
# selected tests from one queue (run_guest.sh --queue), each the next
# test no other has taken. With the debug-kernel lane on, the tests tagged
# "debug" run there only.
guests=${GUESTS:-2}
guest_ktaps=()
if [ $build_ok = 1 ]; then
	log "guest selftests (QEMU, TCG): $guests guests side by side"
	"$SROCE_TOP/scripts/vm/mkimage.sh" >"$res/image.log" 2>&1 || tail -20 "$res/image.log"
	guest_args=()
	[ -n "${TARGET:-}" ] && guest_args+=(--target "$TARGET")
	[ "$lane" = 1 ] && guest_args+=(--skip-tag debug)
	queue=queue-stock	# under build/, shared with the guests
	rm -rf "${SROCE_BUILD:?}/$queue"
	read -r -a filter <<<"${T:-}"
	pids=()
	for i in $(seq "$guests"); do
		rm -f "$SROCE_BUILD/selftests-guest-$i.ktap"
		"$SROCE_TOP/scripts/vm/run-qemu.sh" -t 4800 selftests/run_guest.sh --shard "$i/$guests" --queue "$queue" \
			"${guest_args[@]}" "${filter[@]}" >"$res/guest-console-$i.log" 2>&1 &
		pids+=($!)
	done
	for i in $(seq "$guests"); do
		wait "${pids[$((i - 1))]}"
		grc=$?
		cp "$SROCE_BUILD/selftests-guest-$i.ktap" "$res/guest-$i.ktap" 2>/dev/null || : >"$res/guest-$i.ktap"
		grep -E "^(not )?ok |^# (FAIL|SKIP)" "$res/guest-$i.ktap"
		if [ $grc != 0 ]; then
			log "guest $i ended badly (status $grc); console:"
			tail -40 "$res/guest-console-$i.log"
			printf 'not ok 999 guest %s ended with status %s\n' "$i" "$grc" >>"$res/guest-$i.ktap"
		fi
		guest_ktaps+=("$res/guest-$i.ktap")
	done
	# A test a guest took and never finished (the guest crashed or timed
	# out), or none took: a failure.
	"$SROCE_TOP/scripts/queue-unfinished.sh" "$SROCE_BUILD/$queue" >"$res/guest-queue.ktap"
	grep '^not ok' "$res/guest-queue.ktap"
	guest_ktaps+=("$res/guest-queue.ktap")
else
	log "build failed: the guest selftests cannot run"
	printf 'TAP version 13\n1..1\nnot ok 1 build\n' >"$res/guest.ktap"
	guest_ktaps=("$res/guest.ktap")
fi

# Two guests, each its own kernel, joined by a virtual link: the
# pingpong and rping between two sroce, a pingpong between rdma_rxe and
# sroce (scripts/vm/two-vms.sh short, about 2 min once the shards are
# done; SROCE_TWOVM=0 leaves it out, and so do T= and TARGET= unless
# SROCE_TWOVM=1). It runs after the shards: on a host loaded with more
# guests the RTT between the two passed the pingpong's 67 ms ACK timeout.
twovm_ktaps=()
twovm=0
[ -z "${T:-}${TARGET:-}" ] && twovm=1
if [ "${SROCE_TWOVM:-$twovm}" = 1 ]; then
	log "two guests joined by a virtual link (short)"
	if [ $build_ok = 1 ]; then
		"$SROCE_TOP/scripts/vm/two-vms.sh" short >"$res/twovm.log" 2>&1
		trc=$?
		cp "$SROCE_BUILD/twovm/client.ktap" "$res/twovm.ktap" 2>/dev/null || : >"$res/twovm.ktap"
		grep -E "^(not )?ok " "$res/twovm.ktap"
		if [ $trc != 0 ]; then
			tail -20 "$res/twovm.log"
			printf 'not ok 999 two guests ended with status %s\n' "$trc" >>"$res/twovm.ktap"
		fi
	else
		printf 'TAP version 13\n1..1\nnot ok 1 build\n' >"$res/twovm.ktap"
	fi
	twovm_ktaps=("$res/twovm.ktap")
fi

matrix_ktaps=()
if [ "$matrix" = 1 ]; then
	log "kernel matrix (Debian 12's 6.1, the newest Debian kernel: the core subset)"
	wait "$mx_pid"	# a cell that failed to build is a failure in its ktap
	grep '^\[sroce\] matrix' "$res/matrix-build.log"
	if [ $build_ok = 1 ]; then
		"$SROCE_TOP/scripts/matrix/matrix.sh" -r -j "$guests" >"$res/matrix.log" 2>&1
		grep '^\[sroce\] matrix' "$res/matrix.log"
	fi
	. "$SROCE_TOP/scripts/lib/matrix.sh"
	for c in $MATRIX_CELLS; do
		f=$SROCE_BUILD/matrix/$c/guest.ktap
		mkdir -p "${f%/*}"
		[ $build_ok = 1 ] && [ -s "$f" ] ||
			printf 'TAP version 13\n1..1\nnot ok 1 matrix %s: no result\n' "$c" >"$f"
		cp "$f" "$res/matrix-$c.ktap"
		grep -hE "^not ok |^# (FAIL|kernel report|console)" "$f"
		matrix_ktaps+=("$res/matrix-$c.ktap")
	done
fi

debug_ktaps=()
if [ "$lane" = 1 ]; then
	log "debug-kernel lane (KASAN, lockdep, kmemleak...: the tests tagged debug; make debug-lane runs debug-only and debug-full too)"
	if [ $build_ok = 1 ]; then
		wait "$dk_pid"	# its failure shows again in debug-lane.sh
		"$SROCE_TOP/scripts/debug-lane.sh" -j "$guests" >"$res/debug-lane.log" 2>&1
		grep '^\[sroce\] debug' "$res/debug-lane.log"
		for f in "$SROCE_BUILD"/debug/guest-*.ktap "$SROCE_BUILD"/debug/kmemleak-*.ktap; do
			[ -e "$f" ] || continue
			cp "$f" "$res/debug-$(basename "$f")"
			grep -hE "^(not )?ok |^# (FAIL|SKIP|kernel report)" "$f"
			debug_ktaps+=("$res/debug-$(basename "$f")")
		done
		[ ${#debug_ktaps[@]} -gt 0 ] || {
			printf 'TAP version 13\n1..1\nnot ok 1 debug lane: no result\n' >"$res/debug-guest.ktap"
			debug_ktaps=("$res/debug-guest.ktap"); }
	else
		# Nothing to run on it: stop its build (a partial one is not cached).
		kill -- -"$dk_pid" 2>/dev/null
		wait "$dk_pid"
		printf 'TAP version 13\n1..1\nnot ok 1 build\n' >"$res/debug-guest.ktap"
		debug_ktaps=("$res/debug-guest.ktap")
	fi
fi

log "make check took $((SECONDS - t0)) s"
"$SROCE_TOP/scripts/ktap-summary.sh" "$res/host.ktap" "$res/provider.ktap" "$res/fuzz.ktap" \
	"$res/specmap.ktap" "$res/scripts.ktap" "$res/static.ktap" "$res/install.ktap" "${guest_ktaps[@]}" "${twovm_ktaps[@]}" "${matrix_ktaps[@]}" \
	"${debug_ktaps[@]}"
