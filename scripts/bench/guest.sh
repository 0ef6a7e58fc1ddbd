#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Guest side of `make bench` (scripts/bench/bench.sh boots the guest with
# it). Loads sroce, rdma_rxe and siw in one boot, runs the same perftest
# commands on each, interleaved (repeat 1 of a test on every device, then
# repeat 2, ...) so that a change of load on the shared host hits all three
# alike, and appends one line per measurement to build/bench/raw.tsv:
#   section  test  device  metric  unit  better(hi|lo)  repeat  value
# The host side takes the medians and the ratios.
#
#   guest.sh [REPEATS [SECTIONS [FILTER [DEVICES]]]]
# SECTIONS is a '+'-separated subset of verbs+udp+scale+objs (default all
# four) or "profile" (perf record -a -g of each device during ib_write_bw
# 64 KiB and 1 MiB, ib_read_bw 1 MiB, ib_atomic_bw, ib_send_bw 64 B and
# ib_send_lat and ib_write_lat 8 B; FILTER picks among them).
# FILTER, a bash regular expression, keeps only the tests whose name
# (e.g. ib_write_bw_65536, ib_write_bw_65536_q16) matches. DEVICES,
# '+'-separated (default sroce+rxe+siw), may also name "sroce_wq": sroce with the
# module parameter inline_engines=0 (every engine run in the work item),
# to measure what running them inline buys, in the same boot; "sroce_lo": both ends on
# sroce_a, as rxe runs (see below); the jumbo variants "sroce_j" and
# "rxe_j": sroce or rdma_rxe with their veths at MTU 9000 for the test, so
# that the RoCE path MTU is 4096 (the MTU of a real RoCE deployment)
# instead of 1024; "sroce_ngso": sroce with tx_gso=0 (every packet its own
# trip through the IP stack, no GSO batch).
#
# Topologies (addresses from RFC 5737 documentation ranges, never routed):
#   sroce: sroce_a on veth_a in netns sroce_a, sroce_b on veth_b in sroce_b
#          (selftests/lib.sh topo_up/devs_up), 192.0.2.1 <-> 192.0.2.2
#   sroce_lo: both ends on sroce_a (netns sroce_a), 192.0.2.1 to itself:
#          sroce delivers to its own device without the IP stack or the
#          veth, the same favour as rxe's.
#   rxe:   rxe0 on rxe_v0 in the init namespace, both ends on it (6.12's
#          rdma_rxe opens its UDP socket in init_net only, so it cannot
#          span two namespaces): rxe loops packets back inside the driver,
#          without the IP stack or the veth, which favours rxe.
#   siw:   siw0 on siw_v0 in the init namespace, both ends on it, 203.0.113.1:
#          its TCP connection runs over the loopback device, which favours
#          siw too. Two namespaces are impossible here: a wildcard rdma_cm
#          listen makes siw bind a socket of the listener's namespace to
#          every siw netdev's ifindex, which fails for a netdev of another
#          namespace and fails the whole listen (for every device).
# Connection set-up: siw (iWARP) connects through rdma_cm only (-R); sroce
# and rxe exchange QP numbers over TCP with the RoCE v2 GID given (-x), as
# in the selftests. The data path measured is the same: only the set-up
# differs. ibv_rc_pingpong has no rdma_cm mode: it runs on sroce and rxe
# only, as do the atomics (siw offers none).
cd "$(dirname "$0")/../.." || exit 1
. selftests/lib.sh

REPEATS=${1:-3}
SECTIONS=${2:-verbs+udp+scale+objs}
FILTER=${3:-.}
OUT=$BUILD/bench
RAW=$OUT/raw.tsv
LOGS=$OUT/logs
DEVICES=${4:-sroce+rxe+siw}
DEVICES=${DEVICES//+/ }
PORT=19000

declare -A DEV_A DEV_B NSX_A NSX_B IP_A IP_B
# sroce and its variants that differ only in a module parameter or the MTU:
# the two-namespace topology.
for v in sroce sroce_wq sroce_j sroce_ngso; do
	DEV_A[$v]=sroce_a DEV_B[$v]=sroce_b IP_A[$v]=$IP4_A IP_B[$v]=$IP4_B
	NSX_A[$v]="ip netns exec $NS_A" NSX_B[$v]="ip netns exec $NS_B"
done
DEV_A[sroce_lo]=sroce_a DEV_B[sroce_lo]=sroce_a IP_A[sroce_lo]=$IP4_A IP_B[sroce_lo]=$IP4_A
NSX_A[sroce_lo]="ip netns exec $NS_A" NSX_B[sroce_lo]="ip netns exec $NS_A"
for v in rxe rxe_j; do
	DEV_A[$v]=$RXE_DEV DEV_B[$v]=$RXE_DEV NSX_A[$v]="" NSX_B[$v]=""
	IP_A[$v]=$RXE_IP4 IP_B[$v]=$RXE_IP4
done
DEV_A[siw]=siw0 DEV_B[siw]=siw0 NSX_A[siw]="" NSX_B[siw]=""
IP_A[siw]=203.0.113.1 IP_B[siw]=203.0.113.1
INLINE_PARAM=/sys/module/sroce/parameters/inline_engines
PARAMS=/sys/module/sroce/parameters

# veth_mtu MTU: both veth pairs (sroce's and rxe's) at MTU.
veth_mtu() {
	ip -n "$NS_A" link set veth_a mtu "$1" && ip -n "$NS_B" link set veth_b mtu "$1" &&
		ip link set rxe_v1 mtu "$1" && ip link set "$RXE_NETDEV" mtu "$1"
}

# variant_on/variant_off DEV: what a variant changes for the length of one
# test, and back: a module parameter of sroce, or (sroce_j, rxe_j) the MTU.
variant_on() {
	case $1 in
	sroce_wq) echo 0 >"$INLINE_PARAM" ;;
	sroce_ngso) echo 0 >"$PARAMS/tx_gso" ;;
	*_j)
		veth_mtu 9000
		say "$1: $(${NSX_A[$1]} ibv_devinfo -v -d "${DEV_A[$1]}" | grep -m1 active_mtu)"
		;;
	esac
}
variant_off() {
	case $1 in
	sroce_wq) echo 1 >"$INLINE_PARAM" ;;
	sroce_ngso) echo 1 >"$PARAMS/tx_gso" ;;
	*_j) veth_mtu 1500 ;;
	esac
}

say() { echo "[bench] $*" >&2; }

setup() {
	install -m 644 "$BUILD"/provider/libsroce-rdmav*.so /usr/lib/x86_64-linux-gnu/libibverbs/ &&
		install -m 644 "$BUILD/provider/sroce.driver" /etc/libibverbs.d/sroce.driver ||
		{ say "cannot install libsroce (make provider)"; return 1; }
	# siw also needs crc32c (libcrc32c), which an out-of-tree build cannot
	# record as a dependency.
	modprobe -a ib_core ib_uverbs iw_cm rdma_cm rdma_ucm libcrc32c || return 1
	sroce_load || { say "cannot load $SROCE_KO"; return 1; }
	[ -d /sys/module/siw ] || insmod "$BUILD/siw/siw.ko" ||
		{ dmesg | tail -5; say "cannot load $BUILD/siw/siw.ko (scripts/build-siw.sh)"; return 1; }
	topo_up && devs_up || { say "sroce topology"; return 1; }
	rxe_up || { say "rdma_rxe setup"; return 1; }
	ip link add siw_v0 type veth peer name siw_v1 &&
		ip addr add 203.0.113.1/24 dev siw_v0 &&
		ip link set siw_v1 up && ip link set siw_v0 up &&
		rdma link add siw0 type siw netdev siw_v0 || { say "siw setup"; return 1; }
	wait_for 30 gid_index sroce_a "$IP4_A" >/dev/null &&
		wait_for 30 gid_index sroce_b "$IP4_B" >/dev/null || { say "no sroce GID"; return 1; }
	rdma link show
	dmesg | grep "sroce: ICRC" >&2
}

# emit SECTION TEST DEVICE METRIC UNIT BETTER REPEAT VALUE
emit() {
	local IFS=$'\t'
	echo "$*" >>"$RAW"
	say "result: $*"
}

# The first data line of a perftest report (after its "#bytes" header).
perf_line() {
	awk '/^ *#bytes/ { h = 1; next } h && $1 ~ /^[0-9]+$/ && NF >= 5 { print; exit }' "$1"
}

# sroce_stats DEV: rx_handoffs, loop_other_cpu, out_of_sequence and
# retrans_pkts, each the sum of DEV's two ends (sroce and its variants; one
# device counted once), to log which runs handed receive work over and
# which went back for lost or reordered packets; empty for the others.
SROCE_STATS="rx_handoffs loop_other_cpu out_of_sequence retrans_pkts"
sroce_stats() {
	local c d
	case $1 in
	sroce*) ;;
	*) return 0 ;;
	esac
	for c in $SROCE_STATS; do
		for d in $(printf '%s\n' "${DEV_A[$1]}" "${DEV_B[$1]}" | sort -u); do
			cat "/sys/class/infiniband/$d/ports/1/hw_counters/$c"
		done 2>/dev/null |
			awk '{ s += $1 } END { printf "%d ", s }'
	done
}

# cpu_ticks: "cpuN busy total" per vCPU from /proc/stat.
cpu_ticks() {
	awk '/^cpu[0-9]/ { print $1, $2 + $3 + $4 + $7 + $8, $2 + $3 + $4 + $5 + $6 + $7 + $8 }' /proc/stat
}

# cpu_busy BEFORE AFTER: each vCPU's busy share between two cpu_ticks.
cpu_busy() {
	awk 'NR == FNR { b[$1] = $2; t[$1] = $3; next }
		{ d = $3 - t[$1]; printf "%s %d%% ", $1, d ? 100 * ($2 - b[$1]) / d : 0 }' \
		<(echo "$1") <(echo "$2")
}

# timed_ticks: copy a perftest client's output from stdin to stdout, and
# take cpu_ticks into $TICKS.0 when its report header ("#bytes") comes,
# just before the timed loop, and into $TICKS.1 at the next number line,
# the loop's result: the CPU use of the timed part, set-up and connection
# left out. The client runs under stdbuf -oL, so lines come as printed.
TICKS=/tmp/bench-ticks
timed_ticks() {
	local line t=0
	rm -f "$TICKS".[01]
	while IFS= read -r line; do
		printf '%s\n' "$line"
		if [ $t = 0 ] && [[ $line == *'#bytes'* ]]; then
			cpu_ticks >"$TICKS.0"
			t=1
		elif [ $t = 1 ] && [[ $line =~ ^\ *[0-9] ]]; then
			cpu_ticks >"$TICKS.1"
			t=2
		fi
	done
}

# timed_cpu_us MESSAGES: the vCPU time (all vCPUs, both ends, sroce's work
# wherever it ran) of the last client's timed part per message, in us.
timed_cpu_us() {
	[ -s "$TICKS.0" ] && [ -s "$TICKS.1" ] || return 1
	awk -v n="$1" -v hz="$(getconf CLK_TCK)" '
		NR == FNR { b[$1] = $2; next }
		{ s += $2 - b[$1] }
		END { printf "%.2f\n", s / hz * 1e6 / n }' "$TICKS.0" "$TICKS.1"
}

# run_pair DEV TOOL ARGS...: TOOL as server on end A and as client on end B
# of device DEV, both with ARGS and the device's connection set-up (see
# the top). The client's output is left in $CLOG. Returns 0 if both exited
# 0. An rdma_cm server shows no listening socket to wait for, so the client
# is retried while the server lives.
CLOG=/tmp/bench-client.log SLOG=/tmp/bench-server.log
run_pair() {
	local dev=$1 tool=$2 spid rc=1 n=0 cs=(-R) cc=(-R) h0 c0 c1
	shift 2
	PORT=$((PORT + 1))
	h0=$(sroce_stats "$dev")
	variant_on "$dev"
	if [ "$dev" != siw ]; then
		cs=(-x "$(gid_index "${DEV_A[$dev]}" "${IP_A[$dev]}")")
		cc=(-x "$(gid_index "${DEV_B[$dev]}" "${IP_B[$dev]}")")
	fi
	${NSX_A[$dev]} timeout -k 5 120 "$tool" -d "${DEV_A[$dev]}" -p "$PORT" "${cs[@]}" "$@" \
		>"$SLOG" 2>&1 &
	spid=$!
	c0=$(cpu_ticks)
	if [ "$dev" = siw ]; then
		sleep 1
	else
		wait_for 20 dp_listening "${NSX_A[$dev]}" "$PORT"
	fi
	for _ in 1 2 3 4 5 6; do
		${NSX_B[$dev]} timeout -k 5 120 stdbuf -oL "$tool" -d "${DEV_B[$dev]}" -p "$PORT" \
			"${cc[@]}" "$@" "${IP_A[$dev]}" 2>&1 | timed_ticks >"$CLOG"
		rc=${PIPESTATUS[0]}
		[ $rc = 0 ] && break
		kill -0 "$spid" 2>/dev/null || break
		grep -q "#bytes" "$CLOG" && break	# it ran: a real failure
		sleep 1
	done
	c1=$(cpu_ticks)
	while kill -0 "$spid" 2>/dev/null && [ $n -lt 150 ]; do sleep 0.2; n=$((n + 1)); done
	kill "$spid" 2>/dev/null
	wait "$spid" || rc=1
	variant_off "$dev"
	[ -n "$h0" ] && say "$tool on $dev: $SROCE_STATS (A+B) before $h0, after $(sroce_stats "$dev")"
	if [ -s "$TICKS.1" ]; then
		say "$tool on $dev: vCPUs busy $(cpu_busy "$(cat "$TICKS.0")" "$(cat "$TICKS.1")")" \
			"(timed part), $(cpu_busy "$c0" "$c1") (whole run)"
	else
		say "$tool on $dev: vCPUs busy $(cpu_busy "$c0" "$c1") (whole run)"
	fi
	return $rc
}

# perftest DEV COLUMN TOOL ARGS...: run_pair, and print field COLUMN of
# the report line. Retried (3 attempts) when perftest could not produce a
# report or printed a figure that is not a positive number (0.00, inf): its
# clock calibration fails under TCG now and then. Every attempt's output is
# kept in build/bench/logs/.
perftest() {
	local dev=$1 col=$2 v rc
	shift 2
	for _ in 1 2 3; do
		run_pair "$dev" "$@"
		rc=$?
		cp "$CLOG" "$LOGS/$1-$dev-$PORT.client.log"
		cp "$SLOG" "$LOGS/$1-$dev-$PORT.server.log"
		if [ $rc = 0 ]; then
			v=$(perf_line "$CLOG" | awk -v c="$col" '{ print $c }')
			if awk -v v="$v" 'BEGIN { exit !(v ~ /^[0-9.]+$/ && v + 0 > 0) }'; then
				echo "$v"
				return 0
			fi
			say "$1 on $dev: figure '$v' is no measurement (TCG clock), retrying"
			continue
		fi
		grep -q "produce a report" "$CLOG" "$SLOG" || break
		say "$1 on $dev: no report (TCG clock), retrying"
	done
	say "$1 on $dev failed:"
	sed 's/^/[bench] client: /' "$CLOG" | tail -15 >&2
	sed 's/^/[bench] server: /' "$SLOG" | tail -15 >&2
	return 1
}

want() { [[ $1 =~ $FILTER ]]; }

# The latency tests: t_typical (perftest's median) in microseconds.
lat() {	# TOOL SIZE REP DEV [ITERS]
	local v
	want "${1}_$2" || return 0
	v=$(perftest "$4" 5 "$1" -s "$2" -n "${5:-1000}" -F) || return
	emit verbs "${1}_$2" "$4" t_typical us lo "$3" "$v"
}

# The bandwidth tests: BW average in MiB/s (perftest's MB is 2^20 bytes),
# or with RATE set the message rate in Mpps.
bw() {	# TOOL SIZE ITERS REP DEV [args]
	local tool=$1 size=$2 iters=$3 rep=$4 dev=$5 v
	shift 5
	want "${tool}_$size${TAG:-}" || return 0
	if [ -n "${RATE:-}" ]; then
		v=$(perftest "$dev" 5 "$tool" -s "$size" -n "$iters" -F "$@") || return
		emit "$SECTION" "${tool}_$size${TAG:-}" "$dev" msg_rate Mpps hi "$rep" "$v"
	else
		v=$(perftest "$dev" 4 "$tool" -s "$size" -n "$iters" -F "$@") || return
		emit "${SECTION:-verbs}" "${tool}_$size${TAG:-}" "$dev" bw MiB/s hi "$rep" "$v"
	fi
	# What a message cost the vCPUs: whether a device is faster for less
	# work or for more vCPUs kept busy (one QP: -n counts per QP).
	[ -z "${TAG:-}" ] && v=$(timed_cpu_us "$iters") &&
		emit cpu "${tool}_$size" "$dev" cpu_per_msg us lo "$rep" "$v"
}

# ibv_rc_pingpong (TCP exchange, no rdma_cm: sroce and rxe only), 8 B.
pingpong() {	# REP DEV
	local dev=$2 ga gb spid v
	want ibv_rc_pingpong_8 || return 0
	ga=$(gid_index "${DEV_A[$dev]}" "${IP_A[$dev]}")
	gb=$(gid_index "${DEV_B[$dev]}" "${IP_B[$dev]}")
	PORT=$((PORT + 1))
	variant_on "$dev"
	${NSX_A[$dev]} timeout -k 5 120 ibv_rc_pingpong -d "${DEV_A[$dev]}" -g "$ga" -p "$PORT" \
		-s 8 -n 1000 >"$SLOG" 2>&1 &
	spid=$!
	wait_for 20 dp_listening "${NSX_A[$dev]}" "$PORT"
	${NSX_B[$dev]} timeout -k 5 120 ibv_rc_pingpong -d "${DEV_B[$dev]}" -g "$gb" -p "$PORT" \
		-s 8 -n 1000 "${IP_A[$dev]}" >"$CLOG" 2>&1
	wait "$spid"
	variant_off "$dev"
	v=$(sed -n 's/.* seconds = \([0-9.]*\) usec\/iter.*/\1/p' "$CLOG" | head -1)
	[ -n "$v" ] || { say "ibv_rc_pingpong on $dev failed"; tail -5 "$CLOG" "$SLOG" >&2; return 1; }
	emit verbs ibv_rc_pingpong_8 "$dev" usec_per_iter us lo "$1" "$v"
}
dp_listening() { $1 ss -Hltn "sport = :$2" | grep -q .; }

# Raw UDP between the sroce namespaces over the same veth: the ceiling.
# Datagrams of 1472 B fill a 1500 B MTU as sroce's packets do.
udp() {	# REP
	local v
	want iperf3_udp_1472 || return 0
	ip netns exec "$NS_A" timeout 60 iperf3 -s -1 -p 5201 >"$SLOG" 2>&1 &
	wait_for 20 dp_listening "ip netns exec $NS_A" 5201
	ip netns exec "$NS_B" timeout 60 iperf3 -u -b 0 -l 1472 -t 3 -f m -p 5201 -c "$IP4_A" \
		>"$CLOG" 2>&1
	wait
	v=$(awk '/receiver/ { for (i = 1; i < NF; i++) if ($(i + 1) == "Mbits/sec") print $i }' "$CLOG")
	[ -n "$v" ] || { say "iperf3 failed"; tail -5 "$CLOG" "$SLOG" >&2; return 1; }
	emit udp iperf3_udp_1472 veth bw MiB/s hi "$1" "$(awk -v m="$v" 'BEGIN { printf "%.2f", m * 1e6 / 8 / 1048576 }')"
}

# The per-byte ceilings of one vCPU, for report.sh's bound on bandwidth:
# the ICRC's CRC-32 (the implementation sroce's module load picked, timed
# there over 1 KiB: its dmesg line) and the kernel's memcpy (memcpy_orig of
# arch/x86/lib/memcpy_64.S, which sroce's payload copies use in this guest,
# run by perf bench over 64 KiB buffers). MiB/s each.
byte_ceilings() {	# REP
	local v
	if want icrc_1k; then
		# "ICRC over 1 KiB: crc32_le N ns, fold N ns[, DRIVER N ns]: using WAY"
		v=$(dmesg | awk '/sroce: ICRC over 1 KiB/ {
			sub(/.*ICRC over 1 KiB: /, ""); split($0, a, /: using /)
			m = split(a[1], b, /, /)
			for (i = 1; i <= m; i++) { split(b[i], f, " "); ns[f[1]] = f[2] }
			use = a[2] }
			END { if (ns[use] > 0) printf "%.1f", 1024 / ns[use] * 1e9 / 1048576 }')
		[ -n "$v" ] && emit udp icrc_1k cpu bw MiB/s hi "$1" "$v"
	fi
	if want memcpy_64k && command -v perf >/dev/null; then
		v=$(perf bench mem memcpy -s 64KB -l 2000 -f x86-64-unrolled 2>&1 |
			awk '$2 ~ /B\/sec$/ { m = $1; u = $2
				if (u == "GB/sec") m *= 1024; else if (u == "KB/sec") m /= 1024
				else if (u == "B/sec") m /= 1048576
				printf "%.1f", m }')
		[ -n "$v" ] && emit udp memcpy_64k cpu bw MiB/s hi "$1" "$v"
	fi
	return 0
}

# The same datagrams sent by the kernel (pktgen): the real ceiling, since
# iperf3 pays a system call per datagram and sroce does not; the same with
# 8972-byte datagrams over the veths at MTU 9000 (the jumbo columns'
# ceiling). Then the packet rate of 44-byte datagrams (an ATOMIC request's
# UDP payload: BTH, AtomicETH, ICRC), the ceiling of one-packet messages:
# an atomic is two such packets through veth, IP and UDP (report.sh prints
# the bound). Last the per-byte ceilings.
udp_kernel() {	# REP
	local v
	if want pktgen_udp_1472; then
		v=$(scripts/bench/udp-ceiling "$NS_B" veth_b "$NS_A" veth_a "$IP4_A" 3 2>"$SLOG") ||
			{ say "pktgen failed"; cat "$SLOG" >&2; return 1; }
		emit udp pktgen_udp_1472 veth bw MiB/s hi "$1" "${v% *}"
	fi
	if want pktgen_udp_8972; then
		veth_mtu 9000
		v=$(scripts/bench/udp-ceiling "$NS_B" veth_b "$NS_A" veth_a "$IP4_A" 3 8972 2>"$SLOG")
		veth_mtu 1500
		[ -n "$v" ] || { say "pktgen failed"; cat "$SLOG" >&2; return 1; }
		emit udp pktgen_udp_8972 veth bw MiB/s hi "$1" "${v% *}"
	fi
	if want pktgen_udp_44; then
		v=$(scripts/bench/udp-ceiling "$NS_B" veth_b "$NS_A" veth_a "$IP4_A" 3 44 2>"$SLOG") ||
			{ say "pktgen failed"; cat "$SLOG" >&2; return 1; }
		emit udp pktgen_udp_44 veth rate kpps hi "$1" "$(awk -v p="${v#* }" 'BEGIN { printf "%.1f", p / 1000 }')"
	fi
	byte_ceilings "$1"
	syscall_ceiling "$1"
	wake_ceiling "$1"
}

# What waking a sleeping thread costs (wake_ping): on the other vCPU, as
# any hand-off of work to it does, and on the same one. us per wake-up.
wake_ceiling() {	# REP
	local out
	want wake_cross_cpu || want wake_same_cpu || return 0
	out=$("$BUILD/bench/wake_ping" 20000) || { say "wake_ping failed"; return 0; }
	emit udp wake_cross_cpu cpu t us lo "$1" "$(awk '$1 == "cross" { print $2 }' <<<"$out")"
	emit udp wake_same_cpu cpu t us lo "$1" "$(awk '$1 == "same" { print $2 }' <<<"$out")"
}

# What one system call costs (getppid(), perf bench): every sroce doorbell
# is one, so a READ's latency is at least two packet times and this
# (report.sh prints the bound). us per call.
syscall_ceiling() {	# REP
	local v
	want syscall_null && command -v perf >/dev/null || return 0
	v=$(perf bench syscall basic --loop 200000 2>&1 |
		awk '$2 == "usecs/op" { printf "%.3f", $1 }')
	[ -n "$v" ] && emit udp syscall_null cpu t us lo "$1" "$v"
	return 0
}

verbs() {	# REP
	local r=$1 d t s
	for t in ib_send_lat ib_write_lat ib_read_lat; do
		for d in $DEVICES; do lat "$t" 8 "$r" "$d"; done
	done
	for t in ib_send_bw ib_write_bw ib_read_bw; do
		for s in 4096:10000 65536:2000 1048576:200; do
			for d in $DEVICES; do bw "$t" "${s%:*}" "${s#*:}" "$r" "$d"; done
		done
	done
	for d in $DEVICES; do
		[ "$d" = siw ] && continue	# siw has no atomics, no pingpong
		lat ib_atomic_lat 8 "$r" "$d"
		bw ib_atomic_bw 8 20000 "$r" "$d"
		pingpong "$r" "$d"
	done
}

scale() {	# REP
	local r=$1 d q
	for q in 1 16 128 1024; do
		for d in $DEVICES; do
			SECTION=scale TAG=_q$q bw ib_write_bw 65536 $((1024 / q > 8 ? 1024 / q : 8)) "$r" "$d" -q "$q"
		done
	done
	for d in $DEVICES; do
		SECTION=scale RATE=1 bw ib_send_bw 64 5000 "$r" "$d"
	done
}

# 10,000 QPs and 10,000 MRs on one device: time and kernel memory, sroce
# against rdma_rxe.
objs() {	# REP: the order of the two devices alternates between repeats
	local d k v order="sroce rxe"
	[ $(($1 % 2)) = 0 ] && order="rxe sroce"
	for d in $order; do
		want obj_scale || continue
		"$BUILD/bench/obj_scale" "${DEV_A[$d]}" 10000 >"$CLOG" 2>&1 ||
			{ say "obj_scale on $d failed"; cat "$CLOG" >&2; continue; }
		while read -r k v; do
			case $k in
			*_us_each) emit objs "${k%_us_each}_10000" "$d" us_each us lo "$1" "$v" ;;
			*_slab_kib) emit objs "${k%_slab_kib}_10000" "$d" slab KiB lo "$1" "$v" ;;
			*_vmalloc_kib) emit objs "${k%_vmalloc_kib}_10000" "$d" vmalloc KiB lo "$1" "$v" ;;
			esac
		done <"$CLOG"
	done
}

# perf record of the whole guest while each of DEVICES runs one test, for
# each of ib_write_bw 64 KiB and 1 MiB, ib_read_bw 1 MiB, ib_atomic_bw 8 B,
# ib_send_bw 64 B, ib_send_lat, ib_write_lat and ib_read_lat 8 B that
# FILTER matches
# (the data stays in the guest's /tmp; the reports go to
# build/bench/perf-<device>-<test>-{dso,flat,children,tree,callers,cpu}.txt:
# tree has what each symbol of 3% or more (callees included) calls,
# callers the call chains into each symbol of 2% or more by itself, cpu
# each symbol's own share on each vCPU).
profile() {
	local spid data=/tmp/perf.data t tool size iters name dev base
	echo 0 >/proc/sys/kernel/kptr_restrict
	echo -1 >/proc/sys/kernel/perf_event_paranoid
	for t in ib_write_bw:65536:4000 ib_write_bw:1048576:1000 ib_read_bw:1048576:1000 \
		ib_atomic_bw:8:20000 ib_send_bw:64:50000 ib_send_lat:8:20000 ib_write_lat:8:20000 \
		ib_read_lat:8:20000; do
		IFS=: read -r tool size iters <<<"$t"
		want "${tool}_$size" || continue
		name=${tool#ib_}
		[ "$tool:$size" = ib_write_bw:65536 ] || name=${name}_$size
		for dev in $DEVICES; do
			base=$OUT/perf-$dev-$name
			perf record -a -g -o "$data" -- sleep 3600 >"$OUT/perf-record.log" 2>&1 &
			spid=$!
			sleep 2
			case $tool in
			*_lat) lat "$tool" "$size" 1 "$dev" "$iters" ;;
			*) bw "$tool" "$size" "$iters" 1 "$dev" ;;
			esac
			kill -INT "$spid"
			wait "$spid"
			perf report -i "$data" --stdio --no-children --sort dso \
				>"$base-dso.txt" 2>&1
			perf report -i "$data" --stdio --no-children --sort dso,sym -g none \
				--percent-limit 0.1 >"$base-flat.txt" 2>&1
			perf report -i "$data" --stdio --children --sort sym -g none \
				--percent-limit 0.3 >"$base-children.txt" 2>&1
			perf report -i "$data" --stdio --children --sort sym \
				-g graph,0.5,caller,function,percent --percent-limit 3 \
				>"$base-tree.txt" 2>&1
			perf report -i "$data" --stdio --no-children --sort sym \
				-g caller,0.5,callee,function,percent --percent-limit 2 \
				>"$base-callers.txt" 2>&1
			perf report -i "$data" --stdio --no-children --sort cpu,sym -g none \
				--percent-limit 0.5 >"$base-cpu.txt" 2>&1
			say "profile in $base-*.txt"
		done
	done
}

rm -rf "$LOGS"
mkdir -p "$OUT" "$LOGS"
: >"$RAW"
setup || exit 1
say "repeats $REPEATS, sections $SECTIONS, $(nproc) vCPUs"
if [ "$SECTIONS" = profile ]; then
	profile
else
	for r in $(seq 1 "$REPEATS"); do
		for s in ${SECTIONS//+/ }; do
			case $s in
			verbs) verbs "$r" ;;
			udp) udp "$r"; udp_kernel "$r" ;;
			scale) scale "$r" ;;
			objs) objs "$r" ;;
			*) say "unknown section $s"; exit 1 ;;
			esac
		done
	done
fi
devs_down
rxe_down
rdma link del siw0
ip link del siw_v0
topo_down
bugs=$(dmesg_bugs)
[ -z "$bugs" ] || { echo "$bugs"; say "the kernel reported a problem"; exit 1; }
exit 0
