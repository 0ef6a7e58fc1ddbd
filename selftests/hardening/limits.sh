#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Every object limit of query_device enforced to the exact count (ENOMEM
# past it), every queue depth limit (EINVAL past it), user queue and MR
# memory charged to the memory cgroup (ENOMEM, no OOM kill, no leak), ODP
# MR size and implicit-ODP children bounded: build/selftests/hard_limits
# (hardening/hard_limits.c). Afterwards slab and vmalloc use must be back
# at their baseline. Run one case alone: limits.sh -t <name>; list: -l.
. "$(dirname "$0")/../errors/err_lib.sh"

PROG=$TOOLS/hard_limits
[ -x "$PROG" ] || fail "$PROG is not built (scripts/build-selftests.sh)"
# CQ, SRQ, QP and MR limits lowered for the devices dp_up adds: 64K QPs
# alone take about 1.4 GiB of the guest's 2 GiB with slub_debug, and
# minutes under TCG (hard_limits.c). PDs, MWs and AHs keep their own.
LOW_LIMITS="max_cq=4096 max_srq=4096 max_qp=4096 max_mr=16384"
set_limits() {	# set_limits NAME=VALUE...: sroce's module parameters
	local kv
	for kv in "$@"; do
		echo "${kv#*=}" >/sys/module/sroce/parameters/"${kv%%=*}" || return 1
	done
}
for a in "$@"; do [ "$a" = -l ] && exec "$PROG" -l; done

# Empty slabs freed and per-CPU slabs flushed too: after 64K objects of a
# kind come and go, what is left must be live objects, not cached slabs.
settle_all() {
	settle_mem
	for s in /sys/kernel/slab/*/shrink; do echo 1 >"$s" 2>/dev/null; done
}

# Run by hand with the default limits, 64K CQs, SRQs or QPs map a ring
# each: more than the 65530 mappings a process may have by default.
mapc=$(sysctl -n vm.max_map_count)
sysctl -qw vm.max_map_count=262144 || fail "cannot raise vm.max_map_count"
dmesg_mark
sroce_load || fail "cannot load $SROCE_KO"
# shellcheck disable=SC2086
set_limits $LOW_LIMITS || fail "cannot set $LOW_LIMITS"
# The next test gets devices with the defaults, whatever ends this one.
trap 'set_limits max_cq=0 max_srq=0 max_qp=0 max_mr=0' EXIT
dp_up
settle_all
slab_snapshot | sort >/tmp/limits.0
mem_baseline
"$PROG" "$@"
rc=$?
sysctl -qw vm.max_map_count="$mapc"
ds=$(d_state)
[ -z "$ds" ] || { echo "$ds"; fail "tasks in D state after the cases"; }
settle_all
slab_snapshot | sort >/tmp/limits.1
# Each case makes 4096 to 64K objects of a kind (32K ODP children): one
# object left per object made is a cache that grew by thousands.
grown=$(join /tmp/limits.0 /tmp/limits.1 | awk '$3 - $2 >= 2048 { print $1, $2, $3 }')
[ -z "$grown" ] || { echo "$grown" | sed 's/^/# grew: /'; fail "slab objects left after the cases"; }
mem_check
dp_down
check_dmesg
exit $rc
