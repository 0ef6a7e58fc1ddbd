#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Debug kernel only: each verb with each of its kernel allocations failing
# once (/proc/self/task/<tid>/fail-nth; FAILSLAB and FAIL_PAGE_ALLOC set
# here to fail sleeping and order-0 allocations too) succeeds or fails
# with ENOMEM, a post_send's WR still completes, and afterwards slab and
# vmalloc use are back at the baseline, kmemleak finds nothing allocated
# through sroce or the RDMA core, and the kernel reported nothing:
# build/selftests/hard_failnth (hardening/hard_failnth.c). Run one case
# alone: failnth.sh -t <name>; list: -l.
. "$(dirname "$0")/../errors/err_lib.sh"

PROG=$TOOLS/hard_failnth
[ -x "$PROG" ] || fail "$PROG is not built (scripts/build-selftests.sh)"
for a in "$@"; do [ "$a" = -l ] && exec "$PROG" -l; done
DBG=/sys/kernel/debug
mountpoint -q $DBG || mount -t debugfs none $DBG || skip "no debugfs"
if [ ! -d $DBG/failslab ] || [ ! -d $DBG/fail_page_alloc ]; then
	skip "no FAILSLAB / FAIL_PAGE_ALLOC (the debug kernel has them)"
fi
KML=$DBG/kmemleak

# fault_attr knobs: fail-nth only ever fails the task that set it, but
# by default failslab and fail_page_alloc leave out allocations that may
# sleep, and fail_page_alloc those of order 0: nearly all a verb makes.
# No stack dump per injected failure (verbose 0).
FI_KNOBS="failslab/ignore-gfp-wait=N failslab/verbose=0
	fail_page_alloc/ignore-gfp-wait=N fail_page_alloc/min-order=0
	fail_page_alloc/verbose=0"
FI_OLD=""
for kv in $FI_KNOBS; do
	FI_OLD+=" ${kv%%=*}=$(cat "$DBG/${kv%%=*}")"
	echo "${kv#*=}" >"$DBG/${kv%%=*}" || fail "cannot set $kv"
done
# shellcheck disable=SC2064 # the old values, now
trap "for kv in $FI_OLD; do echo \"\${kv#*=}\" >\"$DBG/\${kv%%=*}\"; done" EXIT

dmesg_mark
t0=$SECONDS
dp_up
info "devices up in $((SECONDS - t0)) s"
settle_mem
mem_baseline
[ -w $KML ] && echo clear >$KML
"$PROG" "$@"
rc=$?
ds=$(d_state)
[ -z "$ds" ] || { echo "$ds"; fail "tasks in D state after the cases"; }
settle_mem
mem_check
# Unreferenced objects allocated through sroce or the RDMA core (two
# scans: kmemleak reports an object once it is 5 s old and unreferenced).
if [ -w $KML ]; then
	{ echo scan >$KML && sleep 6 && echo scan >$KML; } 2>/dev/null ||
		fail "kmemleak cannot scan"
	leaks=$(awk '
		/^unreferenced object/ { if (hit) print rep; rep = $0; hit = 0; next }
		{ rep = rep "\n" $0 }
		/\[sroce\]|sroce_|ib_uverbs|ib_core|uverbs_|rdma_|ib_/ { hit = 1 }
		END { if (hit) print rep }' $KML)
	[ -z "$leaks" ] || { echo "$leaks" | head -100 | sed 's/^/# /'; fail "kmemleak: objects leaked"; }
	info "kmemleak: nothing allocated through sroce or the RDMA core is leaked"
else
	info "no kmemleak in this kernel"
fi
dp_down
check_dmesg
exit $rc
