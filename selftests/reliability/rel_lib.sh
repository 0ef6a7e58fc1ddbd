# SPDX-License-Identifier: GPL-2.0-only
# Shared shell of the reliability tests: the data-path setup (dp_lib.sh)
# plus debugfs, where sroce's drop rules live, and sch_netem.
# shellcheck shell=bash
. "$(dirname "${BASH_SOURCE[0]}")/../datapath/dp_lib.sh"

rel_need() {
	mountpoint -q /sys/kernel/debug ||
		mount -t debugfs none /sys/kernel/debug || skip "no debugfs"
	modprobe -q sch_netem 2>/dev/null
}

# rel_prog NAME [args]: run build/selftests/rel_NAME like dp_prog.
rel_prog() {
	local prog=$TOOLS/rel_$1 rc
	shift
	[ -x "$prog" ] || fail "$prog is not built (scripts/build-selftests.sh)"
	rel_need
	dmesg_mark
	dp_up
	[ -e /sys/kernel/debug/sroce/$DEV_A/tx_drop ] ||
		{ dp_down; fail "no /sys/kernel/debug/sroce/$DEV_A/tx_drop"; }
	"$prog" "$@"
	rc=$?
	# Counters of both devices when a case fails (or when asked for).
	if [ $rc != 0 ] || [ -n "${SROCE_DP_STATS:-}" ]; then
		for d in $DEV_A $DEV_B; do
			rdma statistic show link "$d/1" 2>/dev/null | tr -s ' \t' '\n' |
				paste - - | awk -v d="$d" 'NR > 1 && $2 != 0 { printf "# %s %s %s\n", d, $1, $2 }'
		done
	fi
	dp_down
	check_dmesg
	exit $rc
}
