#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Teardown under load: while RC, UC, UD and ODP traffic runs between the
# two devices (perftest, duration mode), one round each of: SIGKILL of
# the clients (their QPs, MRs and contexts destroyed mid-transfer), SIGKILL
# of the servers, `rdma link del`, `ip link del` of the netdev, `ip netns
# del` of its namespace, and `rmmod sroce`. After each, every traffic
# process must be gone within 30 s (SIGKILL after 10 s for those left
# polling a device that went away, as perftest does), no task may be in
# D state, and the kernel must report nothing (run_guest.sh scans the log;
# so does check_dmesg here). The module must load again and a fresh pair
# must still run traffic afterwards. modify_qp to RESET and dealloc_mw of
# a bound window under traffic need the traffic's own process: they are
# rounds of hard_mwud.c (mwud.sh -t _under_).
# Usage: teardown.sh [ROUND...] (kill_clients, kill_servers, link_del,
# netdev_del, netns_del, rmmod; all by default). tests.list runs them in
# two halves, each well inside the per-test timeout, and the rmmod round
# alone in the full debug-kernel lane (make debug-lane).
. "$(dirname "$0")/../datapath/dp_lib.sh"

# Path MTU 4096: the traffic's large packets are skbs on the transmit
# pool's pages (kernel/sroce_txpool.c), and its UD messages and ACKs are
# kmalloc'd ones; both kinds are in flight when a round strikes.
export TOPO_MTU=9000

ROUNDS=(kill_clients kill_servers link_del netdev_del netns_del rmmod)
[ $# -gt 0 ] && ROUNDS=("$@")

# The traffic, one perftest pair per line: port, tool and its arguments.
FLOWS=(
	"18700 ib_write_bw -c RC -s 65536"
	"18701 ib_write_bw -c RC -s 65536 --odp"
	"18702 ib_send_bw -c UC -s 4096"
	"18703 ib_send_bw -c UD -s 1024"
	"18704 ib_read_bw -c RC -s 65536"
)

# Every flow in the background, servers on A and clients on B. All the
# servers listen before any client starts, so that every flow runs for
# most of the others' time; a server may take a minute to start, four on
# the debug kernel (SROCE_TIME_SCALE).
traffic() {
	local ga gb f
	local -a w
	ga=$(gid_index "$DEV_A" "$A4") gb=$(gid_index "$DEV_B" "$B4")
	for f in "${FLOWS[@]}"; do
		read -r -a w <<<"$f"
		$NS_EXEC_A "${w[1]}" -d "$DEV_A" -x "$ga" -p "${w[0]}" -D 60 "${w[@]:2}" >/dev/null 2>&1 &
		SERVERS+=($!)
	done
	for f in "${FLOWS[@]}"; do
		read -r -a w <<<"$f"
		wait_for 60 dp_listening "$NS_EXEC_A" "${w[0]}" ||
			{ info "${w[*]:1} did not listen"; return 1; }
	done
	for f in "${FLOWS[@]}"; do
		read -r -a w <<<"$f"
		$NS_EXEC_B "${w[1]}" -d "$DEV_B" -x "$gb" -p "${w[0]}" -D 60 "${w[@]:2}" "$A4" >/dev/null 2>&1 &
		CLIENTS+=($!)
	done
}

# Every PID given gone within 30 s; SIGKILL at 10 s.
all_gone() {
	local end=$((SECONDS + 30)) killed=0 p left
	while :; do
		left=()
		for p in "$@"; do kill -0 "$p" 2>/dev/null && left+=("$p"); done
		[ ${#left[@]} = 0 ] && return 0
		if [ $killed = 0 ] && [ $SECONDS -ge $((end - 20)) ]; then
			info "SIGKILL to ${#left[@]} process(es) still running: $(ps -o comm= -p "${left[*]// /,}" | tr '\n' ' ')"
			kill -9 "${left[@]}" 2>/dev/null
			killed=1
		fi
		if [ $SECONDS -ge $end ]; then
			ps -o pid=,stat=,comm= -p "${left[*]// /,}" | sed 's/^/# left: /'
			d_state
			return 1
		fi
		sleep 0.5
	done
}

round() {
	local what=$1
	SERVERS=() CLIENTS=()
	dp_up
	traffic || fail "$what: traffic did not start"
	# The clients' start-up takes seconds (longer on the debug kernel):
	# strike only once packets flow.
	wait_for 30 counter_ge "$DEV_B" rx_pkts 1000 ||
		fail "$what: B received $(hw_counter "$DEV_B" rx_pkts) packets in 30 s"
	sleep 3
	info "$what under traffic: rx_pkts of B $(hw_counter "$DEV_B" rx_pkts)"
	case $what in
	kill_clients) kill -9 "${CLIENTS[@]}" ;;
	kill_servers) kill -9 "${SERVERS[@]}" ;;
	link_del) rdma link del "$DEV_B" || fail "rdma link del under traffic" ;;
	netdev_del) ip -n "$NS_B" link del veth_b || fail "ip link del under traffic" ;;
	netns_del) ip netns del "$NS_B" || fail "ip netns del under traffic" ;;
	rmmod)
		sroce_unload || fail "rmmod under traffic"
		sroce_loaded && fail "sroce still loaded"
		;;
	esac
	all_gone "${SERVERS[@]}" "${CLIENTS[@]}" || fail "$what: processes left after 30 s"
	[ -z "$(d_state)" ] || { d_state; fail "$what: tasks in D state"; }
	dp_down
	info "$what: every process ended, none in D state"
}

dmesg_mark
for r in "${ROUNDS[@]}"; do
	round "$r"
done
# Everything still works afterwards.
dp_up
dp_pair_tool 4 -x 18710 ib_write_bw -c RC -n 20 -F >/dev/null || fail "traffic after the teardown rounds"
dp_down
check_dmesg
info "rounds: ${ROUNDS[*]}"
exit 0
