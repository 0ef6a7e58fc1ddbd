# SPDX-License-Identifier: GPL-2.0-only
# Shared shell of the reliability tests: the data-path setup (dp_lib.sh)
# plus debugfs, where sroce's drop rules live, and sch_netem.
# shellcheck shell=bash
. "$(dirname "${BASH_SOURCE[0]}")/../datapath/dp_lib.sh"
# Packet injection (rel_flood_a in rel.c).
export ROCE_PKT=$SELFTESTS_DIR/net/roce_pkt.py NS_A NS_B

rel_need() {
	mountpoint -q /sys/kernel/debug ||
		mount -t debugfs none /sys/kernel/debug || skip "no debugfs"
	modprobe -q sch_netem 2>/dev/null
}

rel_drop_rules() {
	[ -e "/sys/kernel/debug/sroce/$DEV_A/tx_drop" ] ||
		{ info "no /sys/kernel/debug/sroce/$DEV_A/tx_drop"; return 1; }
}

# rel_prog NAME [args]: run build/selftests/rel_NAME like dp_prog, with
# sroce's drop rules there.
rel_prog() {
	local prog=$TOOLS/rel_$1
	shift
	rel_need
	DP_UP_CHECK=rel_drop_rules dp_run "$prog" "$@"
}
