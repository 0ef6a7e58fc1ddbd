#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# The client guest's half of the two-VM test (scripts/vm/two-vms.sh): runs
# every case, the server side of each on the server guest through its
# agent.py, and prints KTAP (also in build/twovm/client.ktap).
#   client.sh short|full
# short: sroce<->sroce ibv_rc_pingpong and rping, then rdma_rxe (server)
# <-> sroce (client) ibv_rc_pingpong. full: the pingpongs (RC over IPv4
# and IPv6, UC, UD), perftest (ib_write_bw, ib_read_bw, ib_send_lat), the
# rdma_cm tools (rping, ucmatose, udaddy) and a run under 5% loss, for
# sroce<->sroce, then rdma_rxe<->sroce both ways round.
. "$(dirname "$0")/twovm_lib.sh"

mode=${1:-short}
case $mode in short | full | diag) ;; *) echo "usage: $0 short|full"; exit 2 ;; esac
KTAP=$TV_OUT/client.ktap
SRV=$TV_IP4_SERVER

# tv_req SECS REQUEST...: one request to the server's agent; prints the reply.
tv_req() {
	local secs=$1
	shift
	# shellcheck disable=SC2016 # expanded by the inner shell
	timeout -k 5 "$secs" bash -c 'exec 3<>"/dev/tcp/$0/$1" || exit 111; echo "$2" >&3; cat <&3' \
		"$SRV" "$TV_AGENT_PORT" "$*" 2>/dev/null
}

# tv_reply REPLY: a "rc N" reply's output as "# server: " lines; returns N.
tv_reply() {
	local first=${1%%$'\n'*} rc
	[[ $first =~ ^rc\ ([0-9]+)$ ]] || { echo "# no answer from the server (${first:-nothing})"; return 1; }
	rc=${BASH_REMATCH[1]}
	[[ $1 == *$'\n'* ]] && printf '%s\n' "${1#*$'\n'}" | sed 's/^# //; s/^/# server: /'
	return "$rc"
}

# srv SECS FUNC [ARGS...]: a twovm_lib.sh function run on the server.
srv() {
	local secs=$1
	shift
	tv_reply "$(tv_req $((secs + 30)) run "$secs" "$@")"
}

# pair READY PORT -- SERVER_FUNC... -- CLIENT_FUNC...: the server's side
# started on the server guest and waited for (tv_ready READY PORT), then
# the client's side run here, then the server's end collected. Both must
# exit 0; both outputs are also left in PAIR_LOG, the client's in PAIR_CLOG.
TV_JOB=0
pair() {
	local ready=$1 port=$2 s=() c=() out rc_c=1 rc_s clog secs=300
	shift 2
	[ "${1:-}" = -- ] && shift
	while [ $# -gt 0 ] && [ "$1" != -- ]; do s+=("$1"); shift; done
	shift
	c=("$@")
	TV_JOB=$((TV_JOB + 1))
	out=$(tv_req 60 start "j$TV_JOB" "${s[@]}")
	[ "$out" = ok ] || { echo "# cannot start on the server: ${s[*]} (${out:-no answer})"; return 1; }
	clog=$(mktemp)
	if srv 60 tv_ready "$ready" "$port"; then
		"${c[@]}" >"$clog" 2>&1
		rc_c=$?
	else
		secs=5
	fi
	out=$(tv_req $((secs + 60)) wait "j$TV_JOB" "$secs")
	PAIR_CLOG=$(cat "$clog")
	PAIR_LOG=$out$'\n'$PAIR_CLOG
	tv_reply "$out"
	rc_s=$?
	sed 's/^# //; s/^/# client: /' "$clog"
	rm -f "$clog"
	echo "# ${s[*]}: server exit $rc_s, client exit $rc_c"
	[ $rc_s = 0 ] && [ $rc_c = 0 ] && return 0
	# What each end's device and UDP layer saw.
	srv 10 tv_stats
	tv_stats | sed 's/^# /# client: /'
	return 1
}

TV_PORT=18500
next_port() { TV_PORT=$((TV_PORT + 1)); }

# ---- the cases (each prints "# " lines, returns 0 pass, 4 skip) ----

# Both guests' devices (server's kind, client's kind), then the link.
c_setup() {
	srv 180 tv_dev_up "$1" || return 1
	tv_dev_up "$2" || return 1
	ping -c 3 -W 5 "$SRV" | tail -2 | sed 's/^/# /'
	[ "${PIPESTATUS[0]}" = 0 ] || { echo "# no IPv4 path to the server"; return 1; }
	ping -c 1 -W 5 "$TV_IP6_SERVER" >/dev/null || { echo "# no IPv6 path to the server"; return 1; }
	srv 10 tv_hello && echo "# client: $(tv_hello)"
}

# c_pingpong FAM TOOL [ARGS...]: an ibv_*_pingpong over the IPv4 or IPv6 GID.
c_pingpong() {
	local fam=$1 tool=$2
	shift 2
	next_port
	pair tcp $TV_PORT -- tv_tool "$fam" "$tool" -g $TV_PORT "$@" -- \
		tv_tool "$fam" "$tool" -g $TV_PORT "$@" "$SRV" || return 1
	grep -E "bytes in .* seconds|iters in" <<<"$PAIR_CLOG" | sed 's/^/# result: /'
}

# c_perf TOOL CONN [ARGS...]: a perftest program over the IPv4 GID. Under
# TCG perftest can fail its clock calibration and give no report ("Can't
# produce a report"): retried, and a SKIP if that was all that failed.
c_perf() {
	local tool=$1 conn=$2 try
	shift 2
	for try in 1 2 3; do
		next_port
		if pair tcp $TV_PORT -- tv_tool 4 "$tool" -x $TV_PORT -c "$conn" -F "$@" -- \
			tv_tool 4 "$tool" -x $TV_PORT -c "$conn" -F "$@" "$SRV"; then
			grep -A1 -E "#bytes +#iterations" <<<"$PAIR_CLOG" | sed 's/^/# result: /'
			return 0
		fi
		if grep -q "produce a report" <<<"$PAIR_LOG" &&
			! grep -qiE "failed|error|couldn't|unable" <<<"$PAIR_LOG"; then
			echo "# $tool -c $conn: clock calibration failed under TCG (attempt $try)"
			continue
		fi
		return 1
	done
	echo "# traffic ran, but perftest could not produce a report (TCG clock)"
	return 4
}

c_rping() {
	next_port
	pair cm $TV_PORT -- tv_rping server $TV_PORT "$1" -- tv_rping client $TV_PORT "$1"
}

c_ucmatose() {
	next_port
	pair cm $TV_PORT -- tv_cmatose ucmatose server $TV_PORT -- tv_cmatose ucmatose client $TV_PORT
}

c_udaddy() {
	pair cm 7174 -- tv_cmatose udaddy server -- tv_cmatose udaddy client
}

# Retransmitted packets of the sroce ends (rxe's counters differ).
retrans() {
	local n=0 s
	[ "$(tv_dev)" = sroce0 ] && n=$(tv_counter retrans_pkts)
	s=$(tv_req 40 run 10 tv_counter retrans_pkts | sed -n 2p)
	[ "$(srv_dev)" = sroce0 ] && n=$((n + ${s:-0}))
	echo "$n"
}
srv_dev() { tv_req 40 run 10 tv_dev | sed -n 2p; }

# c_loss PCT: PCT% loss on both guests' eth0 (netem, egress): RC
# ib_write_bw and a data-checked ibv_rc_pingpong must complete, and the
# sroce end(s) must have retransmitted.
c_loss() {
	local pct=$1 r0 r1 rc=0
	if ! srv 20 tv_netem loss "$pct%" || ! tv_netem loss "$pct%"; then
		srv 20 tv_netem
		tv_netem
		return 1
	fi
	r0=$(retrans)
	c_perf ib_write_bw RC -n 300 || rc=1
	c_pingpong 4 ibv_rc_pingpong -n 200 -c || rc=1
	r1=$(retrans)
	tv_netem
	srv 20 tv_netem
	echo "# retransmitted packets (sroce ends) during the run: $((r1 - r0))"
	[ $((r1 - r0)) -gt 0 ] || { echo "# no retransmission: was anything lost?"; rc=1; }
	return $rc
}

# Both kernels' logs, and what went over the link.
c_clean() {
	local rc=0
	srv 10 tv_stats
	tv_stats | sed 's/^# /# client: /'
	srv 20 tv_kernel_clean || rc=1
	tv_kernel_clean || rc=1
	return $rc
}

# ---- the list ----
names=() cmds=()
add() { names+=("$1"); cmds+=("$2"); }

phase() {	# SERVER_KIND CLIENT_KIND
	local p="$1<->$2"
	add "$p: devices up, link" "c_setup $1 $2"
	add "$p: ibv_rc_pingpong IPv4" "c_pingpong 4 ibv_rc_pingpong -n 100 -c"
	[ "$mode" = full ] || return 0
	add "$p: ibv_rc_pingpong IPv6" "c_pingpong 6 ibv_rc_pingpong -n 100 -c"
	add "$p: ibv_uc_pingpong" "c_pingpong 4 ibv_uc_pingpong -n 100 -c"
	add "$p: ibv_ud_pingpong" "c_pingpong 4 ibv_ud_pingpong -n 100 -s 512 -c"
	# 16 WRITEs and 4 READs of 64 KiB in flight, not perftest's 128,
	# whose 8 MiB overflow what the link buffers.
	add "$p: ib_write_bw RC" "c_perf ib_write_bw RC -n 200 -t 16"
	add "$p: ib_write_bw UC" "c_perf ib_write_bw UC -n 200 -t 16"
	add "$p: ib_read_bw RC" "c_perf ib_read_bw RC -n 200 -o 4"
	add "$p: ib_send_lat RC" "c_perf ib_send_lat RC -n 200"
	add "$p: ib_send_lat UD" "c_perf ib_send_lat UD -n 200"
	add "$p: rping" "c_rping 20"
	add "$p: ucmatose" "c_ucmatose"
	add "$p: udaddy" "c_udaddy"
	add "$p: 5% loss" "c_loss 5"
}

c_rtt() { ping -c 20 -i 0.2 "$SRV" | tail -2 | sed 's/^/# /'; }
c_gso() { srv 10 tv_param tx_gso "$1" && tv_param tx_gso "$1"; }
if [ "$mode" = diag ]; then
	add "rxe<->rxe: devices up, link" "c_setup rxe rxe"
	add "rtt" "c_rtt"
	add "rxe<->rxe: ibv_rc_pingpong 4096" "c_pingpong 4 ibv_rc_pingpong -n 100 -c"
	add "rxe<->rxe: ib_write_bw RC" "c_perf ib_write_bw RC -n 200"
	add "sroce<->sroce: devices up, link" "c_setup sroce sroce"
	add "rtt" "c_rtt"
	add "sroce<->sroce: ibv_rc_pingpong 64" "c_pingpong 4 ibv_rc_pingpong -n 100 -s 64 -c"
	add "sroce<->sroce: ibv_rc_pingpong 1024" "c_pingpong 4 ibv_rc_pingpong -n 100 -s 1024 -c"
	add "sroce<->sroce: ibv_rc_pingpong 4096" "c_pingpong 4 ibv_rc_pingpong -n 100 -c"
	add "sroce<->sroce: ibv_rc_pingpong 4096 IPv6" "c_pingpong 6 ibv_rc_pingpong -n 100 -c"
	add "sroce<->sroce: ib_write_bw RC" "c_perf ib_write_bw RC -n 200"
	add "gso off" "c_gso 0"
	add "sroce<->sroce: ibv_rc_pingpong 4096, no GSO" "c_pingpong 4 ibv_rc_pingpong -n 100 -c"
	add "sroce<->sroce: ib_write_bw RC, no GSO" "c_perf ib_write_bw RC -n 200"
	add "kernel logs" "c_clean"
elif [ "$mode" = full ]; then
	phase sroce sroce
	add "sroce<->sroce: kernel logs" "c_clean"
	phase rxe sroce
	phase sroce rxe
	add "rxe<->sroce, sroce<->rxe: kernel logs" "c_clean"
else
	phase sroce sroce
	add "sroce<->sroce: rping" "c_rping 10"
	phase rxe sroce
	add "kernel logs" "c_clean"
fi

# ---- run ----
mkdir -p "$TV_OUT"
echo "# waiting for the server's agent"
up=0
for _ in $(seq 300); do
	tv_reply "$(tv_req 15 run 10 tv_hello)" && { up=1; break; }
	sleep 2
done
{
	echo "TAP version 13"
	echo "# two VMs ($mode): server $TV_IP4_SERVER, client $TV_IP4_CLIENT, $(uname -r)"
	echo "1..${#names[@]}"
} | tee "$KTAP"
[ $up = 1 ] || echo "# the server's agent never answered" | tee -a "$KTAP"
fails=0
for i in "${!names[@]}"; do
	log=$(mktemp)
	t0=$SECONDS
	if [ $up = 1 ]; then
		eval "${cmds[$i]}" >"$log" 2>&1
		rc=$?
	else
		rc=1
	fi
	echo "# ${names[$i]}: $((SECONDS - t0)) s" >>"$log"
	sed 's/^# //; s/^/# /' "$log" | tee -a "$KTAP"
	rm -f "$log"
	n=$((i + 1))
	case $rc in
	0) line="ok $n ${names[$i]}" ;;
	4) line="ok $n ${names[$i]} # SKIP" ;;
	*) line="not ok $n ${names[$i]} # exit=$rc"; fails=$((fails + 1)) ;;
	esac
	echo "$line" | tee -a "$KTAP"
done
echo "# $fails failed of ${#names[@]}" | tee -a "$KTAP"
tv_dev_down
[ $up = 1 ] && tv_req 30 quit 0 >/dev/null
[ $fails = 0 ]
