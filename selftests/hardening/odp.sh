#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Teardown races on ODP memory under RC traffic (seed-rules R5.2, R5.3,
# R3.4, R3.5): build/selftests/hard_odp (hardening/hard_odp.c) runs WRITE,
# READ, FETCH_ADD and SEND at an explicit or an implicit ODP MR while the
# process munmaps, MADV_DONTNEEDs, forks over, mprotects or deregisters
# it, destroys a QP or exits; plus implicit children freed after munmap
# a userfaultfd-held fault, and FUSE-held faults (verbs while the daemon
# is stopped; a WRITE that outlives its requester's ACK timeouts, RNR
# NAKed). Afterwards: no task in D state, slab and
# vmalloc use back near the baseline, no kernel report.
# Run one case alone: odp.sh -t <name>; list them: odp.sh -l.
. "$(dirname "$0")/../errors/err_lib.sh"

PROG=$TOOLS/hard_odp
[ -x "$PROG" ] || fail "$PROG is not built (scripts/build-selftests.sh)"
for a in "$@"; do [ "$a" = -l ] && exec "$PROG" -l; done

dmesg_mark
dp_up
settle_mem
mem_baseline
"$PROG" "$@"
rc=$?
if [ $rc != 0 ]; then
	for d in $DEV_A $DEV_B; do
		rdma statistic show link "$d/1" 2>/dev/null | tr -s ' \t' '\n' |
			paste - - | awk -v d="$d" 'NR > 1 && $2 != 0 { printf "# %s %s %s\n", d, $1, $2 }'
	done
fi
ds=$(d_state)
[ -z "$ds" ] || { echo "$ds"; fail "tasks in D state after the cases"; }
settle_mem
mem_check
dp_down
check_dmesg
exit $rc
