#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# sroce and the kernel's rdma_rxe on one wire, in one guest: data-path
# programs with DP_TARGET=mixed (A=sroce_m requester, B=rxe0 responder)
# and mixed_r (A=rxe0, B=sroce_m), see dp_lib.sh and lib.sh mixed_up.
#   interop_rxe.sh [-t FILTER] [PROG...]
# PROG default: atomic rdma_rw send_recv atomic_write. -t: each program's
# case filter (dp.c; make check gives "!_v6": the IPv6 twins of the cases
# go the same way through both devices, and run in the programs' own tests).
# One KTAP result per program and direction. The cases rxe cannot do are
# listed below with their reason and reported as SKIP (dp.c DP_SKIP),
# never as passes; the program then runs its other cases.
. "$(dirname "$0")/dp_lib.sh"

filter=()
[ "${1:-}" = -t ] && { filter=(-t "${2:?-t takes a case filter}"); shift 2; }
progs=("$@")
[ ${#progs[@]} -gt 0 ] || progs=(atomic rdma_rw send_recv atomic_write)

# known_skips TARGET PROG: DP_SKIP's "CASE=reason|..." for that run.
# (atomic_write.c skips by itself what librxe does differently.)
known_skips() {
	local inv="rxe as receiver (Linux 6.12, rdma-core 56.1) reports"
	inv="$inv IB_WC_WITH_INVALIDATE as IBV_WC_IP_CSUM_OK"
	local retry="rxe's requester never runs out of retry_cnt 7: its"
	retry="$retry completer decrements retry_cnt only when it is not 7"
	local flush="rdma_rxe (Linux 6.12) computes a FLUSH's ICRC over the"
	flush="$flush wrong bytes, sent or received: its opcode table gives"
	flush="$flush RC_FLUSH no payload offset (rxe_opcode.c; captures"
	flush="$flush checked with net/roce_pkt.py icrc())"
	local f c
	case $1:$2 in
	mixed:atomic_write | mixed_r:atomic_write)
		for c in RC_FLUSH_v4 RC_FLUSH_v6 FLUSH_mr_no_flush_global \
			 FLUSH_qp_no_flush_global FLUSH_type_persistent_violate \
			 FLUSH_range_out_of_mr; do
			f="$f${f:+|}$c=$flush"
		done
		echo "$f" ;;
	mixed:send_recv)
		echo "RC_SEND_WITH_INV_v4=$inv|RC_SEND_WITH_INV_v6=$inv" ;;
	mixed_r:send_recv)
		echo "RC_responder_in_error_retry_exceeded_v4=$retry" ;;
	esac
}

echo "TAP version 13"
echo "1..$((2 * ${#progs[@]}))"
n=0 failed=0
for t in mixed mixed_r; do
	for p in "${progs[@]}"; do
		n=$((n + 1))
		DP_SKIP=$(known_skips $t "$p") dp_prog_ktap $n $t "$p" "${filter[@]}" ||
			failed=$((failed + 1))
	done
done
[ $failed = 0 ] || fail "$failed of $n runs failed"
exit 0
