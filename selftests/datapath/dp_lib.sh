# SPDX-License-Identifier: GPL-2.0-only
# Shared shell of the data-path tests. Source it from a test.
#
# The target is DP_TARGET: "sroce" (default; sroce_a on veth_a in netns
# sroce_a and sroce_b on veth_b in netns sroce_b, see lib.sh topo_up and
# devs_up) or "rxe" (the kernel's rdma_rxe as the reference: rxe0 on a veth
# in the init namespace, both ends on it, since rxe's UDP socket lives in
# init_net only). run_guest.sh --target rxe runs the tests tagged rxe in
# tests.list with DP_TARGET=rxe. "mixed" and "mixed_r": sroce and rdma_rxe
# on the two ends of one veth (lib.sh mixed_up), A=sroce_m B=rxe0 (mixed)
# or A=rxe0 B=sroce_m (mixed_r); datapath/interop_rxe.sh runs them. "lo":
# both ends on sroce_a (netns sroce_a), so that every packet goes through
# sroce's local delivery (its loopback FIFO) instead of the veth, as in
# rdma_rxe's set-up; datapath/one_device.sh runs it.
# End A is the server / requester, end B the client.
# shellcheck shell=bash
. "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"

DP_TARGET=${DP_TARGET:-sroce}

# Run alone (not from run_guest.sh), libsroce may not be installed.
dp_libsroce() {
	[ -e /etc/libibverbs.d/sroce.driver ] || {
		install -m 644 "$BUILD"/provider/libsroce-rdmav*.so \
			/usr/lib/x86_64-linux-gnu/libibverbs/ &&
		install -m 644 "$BUILD/provider/sroce.driver" /etc/libibverbs.d/
	} || fail "cannot install libsroce (make provider)"
}

dp_up() {
	case $DP_TARGET in
	sroce | lo)
		dp_libsroce
		sroce_load || fail "cannot load $SROCE_KO"
		topo_up || fail "topology"
		devs_up || fail "rdma link add"
		DEV_A=sroce_a NS_EXEC_A="ip netns exec $NS_A" A4=$IP4_A A6=$IP6_A
		if [ "$DP_TARGET" = lo ]; then
			DEV_B=$DEV_A NS_EXEC_B=$NS_EXEC_A B4=$A4 B6=$A6
		else
			DEV_B=sroce_b NS_EXEC_B="ip netns exec $NS_B" B4=$IP4_B B6=$IP6_B
		fi
		;;
	rxe)
		rxe_up || fail "cannot set up rdma_rxe"
		DEV_A=$RXE_DEV DEV_B=$RXE_DEV NS_EXEC_A="" NS_EXEC_B=""
		A4=$RXE_IP4 B4=$RXE_IP4 A6=$RXE_IP6 B6=$RXE_IP6
		;;
	mixed | mixed_r)
		dp_libsroce
		sroce_load || fail "cannot load $SROCE_KO"
		mixed_up || fail "cannot set up sroce and rdma_rxe on one veth"
		if [ "$DP_TARGET" = mixed ]; then
			DEV_A=$MIX_DEV DEV_B=$RXE_DEV
			NS_EXEC_A="ip netns exec $NS_M" NS_EXEC_B=""
			A4=$MIX_IP4 B4=$RXE_IP4 A6=$MIX_IP6 B6=$RXE_IP6
		else
			DEV_A=$RXE_DEV DEV_B=$MIX_DEV
			NS_EXEC_A="" NS_EXEC_B="ip netns exec $NS_M"
			A4=$RXE_IP4 B4=$MIX_IP4 A6=$RXE_IP6 B6=$MIX_IP6
		fi
		;;
	*) fail "unknown DP_TARGET '$DP_TARGET' (sroce, lo, rxe, mixed or mixed_r)" ;;
	esac
	local d
	for d in "$DEV_A $A4" "$DEV_A $A6" "$DEV_B $B4" "$DEV_B $B6"; do
		# shellcheck disable=SC2086
		wait_for 30 gid_index $d >/dev/null || { ls -l /sys/class/infiniband/*/ports/1/gids/ | head; cat /sys/class/infiniband/sroce_a/ports/1/gids/[0-3]; fail "no RoCE v2 GID for $d"; }
	done
	export DP_DEVS="$DEV_A,$DEV_B" DP_IP4="$A4,$B4" DP_IP6="$A6,$B6"
	info "target $DP_TARGET: A=$DEV_A ($A4, $A6) B=$DEV_B ($B4, $B6)"
}

dp_down() {
	case $DP_TARGET in
	sroce | lo) devs_down; topo_down ;;
	rxe) rxe_down ;;
	mixed | mixed_r) mixed_down ;;
	esac
}

# dp_prog NAME [args]: run the C test program build/selftests/dp_NAME
# (build/selftests/NAME when DP_PREFIX is set empty).
dp_prog() {
	local prog=$TOOLS/${DP_PREFIX-dp_}$1
	shift
	dp_run "$prog" "$@"
}

# dp_run PROG [args]: PROG between dp_up and dp_down, then the kernel log
# checked; exits with PROG's status. DP_UP_CHECK: a command run after
# dp_up that fails the test if it fails (rel_lib.sh's debugfs check).
dp_run() {
	local prog=$1 rc
	shift
	[ -x "$prog" ] || fail "$prog is not built (scripts/build-selftests.sh)"
	dmesg_mark
	dp_up
	[ -z "${DP_UP_CHECK:-}" ] || $DP_UP_CHECK || { dp_down; fail "$DP_UP_CHECK"; }
	# DP_PREFIX_CMD: a command to run the program under (taskset -c N).
	# shellcheck disable=SC2086
	${DP_PREFIX_CMD:-} "$prog" "$@"
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

dp_listening() { $1 ss -Hltn "sport = :$2" | grep -q .; }

# dp_prog_ktap N TARGET PROG [args]: PROG's own test script (PROG.sh, the
# program build/selftests/dp_PROG) with DP_TARGET=TARGET, its output
# indented, then KTAP result N for it (exit 4: SKIP). DP_SKIP, if set, is
# passed on. Returns 1 if it failed.
dp_prog_ktap() {
	local n=$1 t=$2 p=$3 t0 rc
	shift 3
	[ -x "$TOOLS/dp_$p" ] || fail "$TOOLS/dp_$p is not built"
	info "---- $p.sh, DP_TARGET=$t"
	t0=$SECONDS
	DP_TARGET=$t bash "$(dirname "${BASH_SOURCE[0]}")/$p.sh" "$@" 2>&1 | sed 's/^/# /'
	rc=${PIPESTATUS[0]}
	info "---- $p.sh, DP_TARGET=$t: $((SECONDS - t0)) s"
	case $rc in
	0) echo "ok $n $p ($t)" ;;
	4) echo "ok $n $p ($t) # SKIP" ;;
	*) echo "not ok $n $p ($t) # exit=$rc"; return 1 ;;
	esac
}

# dp_pair_tool FAM GIDFLAG PORT TOOL [args]: TOOL as server on end A and as
# client on end B (connecting to A's IPv4 address over TCP), each given its
# device, the index of its FAM (4 or 6) GID after GIDFLAG, and the port.
# Prints both outputs; returns 0 if both exit 0. The outputs stay in
# $DP_LOG for the caller.
dp_pair_tool() {
	local fam=$1 gflag=$2 port=$3 tool=$4 ga gb spid rc_c rc_s=0 n=0 slog clog
	shift 4
	if [ "$fam" = 6 ]; then
		ga=$(gid_index "$DEV_A" "$A6") gb=$(gid_index "$DEV_B" "$B6")
	else
		ga=$(gid_index "$DEV_A" "$A4") gb=$(gid_index "$DEV_B" "$B4")
	fi
	[ -n "$ga" ] && [ -n "$gb" ] || fail "no GID index for IPv$fam"
	slog=$(mktemp) clog=$(mktemp)
	info "server: $tool -d $DEV_A $gflag $ga -p $port $*"
	$NS_EXEC_A "$tool" -d "$DEV_A" "$gflag" "$ga" -p "$port" "$@" >"$slog" 2>&1 &
	spid=$!
	if ! wait_for 20 dp_listening "$NS_EXEC_A" "$port"; then
		kill "$spid" 2>/dev/null
		wait "$spid" 2>/dev/null
		sed 's/^/server: /' "$slog"
		rm -f "$slog" "$clog"
		info "server did not listen on port $port"
		return 1
	fi
	info "client: $tool -d $DEV_B $gflag $gb -p $port $* $A4"
	timeout -k 5 180 $NS_EXEC_B "$tool" -d "$DEV_B" "$gflag" "$gb" -p "$port" "$@" "$A4" \
		>"$clog" 2>&1
	rc_c=$?
	while kill -0 "$spid" 2>/dev/null && [ $n -lt 300 ]; do
		sleep 0.2
		n=$((n + 1))
	done
	if kill -0 "$spid" 2>/dev/null; then
		kill "$spid"
		rc_s=124
		wait "$spid" 2>/dev/null
	else
		wait "$spid"
		rc_s=$?
	fi
	sed 's/^/server: /' "$slog"
	sed 's/^/client: /' "$clog"
	DP_LOG=$(cat "$slog" "$clog")
	rm -f "$slog" "$clog"
	info "$tool: server exit $rc_s, client exit $rc_c"
	[ "$rc_s" = 0 ] && [ "$rc_c" = 0 ]
}

# dp_pingpong TOOL [args]: an ibv_*_pingpong over the IPv4 and the IPv6 GID.
dp_pingpong() {
	local tool=$1 fam port=18515
	shift
	dmesg_mark
	dp_up
	for fam in 4 6; do
		dp_pair_tool $fam -g $port "$tool" "$@" ||
			{ dp_down; fail "$tool over the IPv$fam GID"; }
		port=$((port + 1))
	done
	dp_down
	check_dmesg
	exit 0
}

# dp_perftest TOOLS CONN... -- [args]: each perftest program of TOOLS (one
# name, or several in one word) once per connection type, over the IPv4 GID. Perftest can give up computing its report under
# TCG when its clock calibration fails ("Can't produce a report"); such a
# run is retried (3 attempts) and, when that was the only failure, the test
# ends as SKIP, saying so, never as a pass.
dp_perftest() {
	local tool=$1 conns=() c try port=18600 calib=0
	shift
	while [ $# -gt 0 ] && [ "$1" != -- ]; do conns+=("$1"); shift; done
	[ "${1:-}" = -- ] && shift
	dmesg_mark
	dp_up
	for t in $tool; do
	for c in "${conns[@]}"; do
		for try in 1 2 3; do
			port=$((port + 1))
			if dp_pair_tool 4 -x $port "$t" -c "$c" -F "$@"; then
				info "$t -c $c: pass (attempt $try)"
				break
			fi
			if grep -q "produce a report" <<<"$DP_LOG" &&
			   ! grep -qiE "failed|error|couldn't|unable" <<<"$DP_LOG"; then
				info "$t -c $c: clock calibration failed under TCG (attempt $try)"
				[ $try = 3 ] && calib=1
				continue
			fi
			dp_down
			fail "$t -c $c"
		done
	done
	done
	dp_down
	check_dmesg
	[ $calib = 0 ] || skip "traffic ran but perftest could not produce a report (TCG clock)"
	exit 0
}
