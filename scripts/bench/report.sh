#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Summarize a guest run of scripts/bench/guest.sh: the median of each
# measurement over its repeats, one table with the ratios sroce/rxe and
# sroce/siw, the targets of the benchmark, and build/bench/bench.tsv.
#   scripts/bench/report.sh [RAW_TSV [OUT_TSV]]
# Ratios are plain sroce/other for every metric: for a latency (better=lo)
# below 1 is better for sroce, for a bandwidth above 1.
set -euo pipefail
. "$(dirname "$0")/../lib/common.sh"

raw=${1:-$SROCE_BUILD/bench/raw.tsv}
out=${2:-$SROCE_BUILD/bench/bench.tsv}
[ -s "$raw" ] || die "no measurements in $raw"

# Medians: one line per section/test/device/metric. A perftest figure that
# is not a positive number (0.00, inf) is its clock failing under TCG, not a
# measurement: left out (the guest retries those; older raw files have them).
invalid='$1 != "objs" && !($8 ~ /^[0-9.]+$/ && $8 + 0 > 0)'
awk -F'\t' "$invalid"' { next }
	{ k = $1 FS $2 FS $3 FS $4 FS $5 FS $6; v[k] = v[k] " " $8; n[k]++ }
	END {
		for (k in v) {
			c = split(substr(v[k], 2), a, " ")
			for (i = 2; i <= c; i++) {	# insertion sort, numeric
				x = a[i] + 0
				for (j = i - 1; j >= 1 && a[j] + 0 > x; j--) a[j + 1] = a[j]
				a[j + 1] = x
			}
			m = c % 2 ? a[(c + 1) / 2] : (a[c / 2] + a[c / 2 + 1]) / 2
			print k FS m FS c
		}
	}' "$raw" | sort >"$out.medians"

# One row per section/test/metric with the three devices side by side,
# then the variants when the run had them (BENCH_DEVICES): sroce_lo
# (both ends on one device, rxe's set-up), sroce_wq (inline_engines=0),
# the jumbo-MTU columns sroce_j and rxe_j (veths at MTU 9000, path MTU
# 4096: an extra column, the targets are judged at the default MTU);
# sroce_ngso (tx_gso=0) as sroce/ngso.
awk -F'\t' -v OFS='\t' '
	function r(a, b) { return (a != "" && b != "" && b + 0 != 0) ? sprintf("%.2f", a / b) : "-" }
	{ k = $1 OFS $2 OFS $4 OFS $5 OFS $6; keys[k] = 1; val[k, $3] = $7; cnt[k] = $8 }
	END {
		print "section", "test", "metric", "unit", "better", "sroce", "rxe", "siw",
			"sroce/rxe", "sroce/siw", "udp", "n", "sroce_lo", "lo/rxe", "lo/siw",
			"sroce_wq", "sroce/wq", "sroce_j", "rxe_j", "j/rxe_j",
			"sroce_ngso", "sroce/ngso"
		for (k in keys) {
			s = val[k, "sroce"]; x = val[k, "rxe"]; w = val[k, "siw"]; u = val[k, "veth"]
			if (u == "") u = val[k, "cpu"]
			l = val[k, "sroce_lo"]; q = val[k, "sroce_wq"]
			sj = val[k, "sroce_j"]; xj = val[k, "rxe_j"]
			ng = val[k, "sroce_ngso"]
			print k, (s == "" ? "-" : s), (x == "" ? "-" : x), (w == "" ? "-" : w),
				r(s, x), r(s, w), (u == "" ? "-" : u), cnt[k],
				(l == "" ? "-" : l), r(l, x), r(l, w), (q == "" ? "-" : q), r(s, q),
				(sj == "" ? "-" : sj), (xj == "" ? "-" : xj), r(sj, xj),
				(ng == "" ? "-" : ng), r(s, ng)
		}
	}' "$out.medians" | (read -r h; echo "$h"; sort -t$'\t' -k1,1 -k2,2V) >"$out"
rm -f "$out.medians"

# The table, aligned.
column -t -s$'\t' "$out"

# The targets of the benchmark (issue 18, Documentation/performance.md),
# from the medians.
get() {	# TEST METRIC COLUMN
	awk -F'\t' -v t="$1" -v m="$2" -v c="$3" '
		NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
		$2 == t && $3 == m { print $col[c]; exit }' "$out"
}
target() {	# TEXT VALUE OP LIMIT
	local verdict
	if [ -z "$2" ] || [ "$2" = - ]; then
		verdict="no data"
	elif awk -v v="$2" -v l="$4" -v op="$3" 'BEGIN { exit !(op == ">=" ? v >= l : v <= l) }'; then
		verdict=met
	else
		verdict=MISSED
	fi
	printf '  %-52s %8s %s %-5s %s\n' "$1" "$2" "$3" "$4" "$verdict"
}
quot() {	# A B: A / B, or - when either is missing or B is 0
	case $1:$2 in
	*-* | :* | *:) echo - ;;
	*) awk -v a="$1" -v b="$2" 'BEGIN { printf (b + 0 ? "%.2f" : "-"), a / b }' ;;
	esac
}
ratio() {	# TEST METRIC DEVICE OTHER: DEVICE's median / OTHER's, or -
	quot "$(get "$1" "$2" "$3")" "$(get "$1" "$2" "$4")"
}
# Issue 18's targets. At MTU 1500 (path MTU 1024) sroce and rdma_rxe run
# as they are, at MTU 9000 (path MTU 4096) the jumbo variants sroce_j and
# rxe_j (BENCH_DEVICES); siw runs over the loopback device at either, so
# both compare with its one figure.
echo
echo "Targets (issue 18; ratios of medians in this run):"
for t in ib_write_bw ib_send_bw ib_read_bw; do
	for s in 65536 1048576; do
		target "$t ${s} B sroce/rxe (MTU 1500)" "$(ratio ${t}_$s bw sroce rxe)" ">=" 2.0
		target "$t ${s} B sroce/siw (MTU 1500)" "$(ratio ${t}_$s bw sroce siw)" ">=" 0.6
		target "$t ${s} B sroce_j/rxe_j (MTU 9000)" "$(ratio ${t}_$s bw sroce_j rxe_j)" ">=" 2.0
		target "$t ${s} B sroce_j/siw (MTU 9000)" "$(ratio ${t}_$s bw sroce_j siw)" ">=" 1.0
	done
done
for t in ib_send_lat ib_write_lat ib_read_lat; do
	target "$t 8 B sroce/siw" "$(ratio ${t}_8 t_typical sroce siw)" "<=" 1.0
	target "$t 8 B sroce/rxe" "$(ratio ${t}_8 t_typical sroce rxe)" "<=" 0.6
done
# rxe's own set-up is both ends on one device: sroce_lo.
target "ib_atomic_bw sroce_lo/rxe (one device)" "$(ratio ib_atomic_bw_8 bw sroce_lo rxe)" ">=" 2.0
target "ib_atomic_bw sroce/rxe (two namespaces)" "$(ratio ib_atomic_bw_8 bw sroce rxe)" ">=" 1.0
# Scale: aggregate ib_write_bw over 1..1024 QPs within 80% of its best;
# 10,000 QPs made and destroyed at least as fast as rdma_rxe, with no more
# kernel memory per QP.
best=0
for q in 1 16 128 1024; do
	v=$(get ib_write_bw_65536_q$q bw sroce)
	[ -n "$v" ] && [ "$v" != - ] && best=$(awk -v a="$v" -v b="$best" 'BEGIN { print (a > b ? a : b) }')
done
for q in 1 16 128 1024; do
	target "ib_write_bw 64 KiB x $q QPs / the best count" \
		"$(quot "$(get ib_write_bw_65536_q$q bw sroce)" "$best")" ">=" 0.8
done
for o in qp_create_10000 qp_destroy_10000; do
	target "$o sroce/rxe time" "$(ratio $o us_each sroce rxe)" "<=" 1.0
done
target "qp_create_10000 sroce/rxe slab" "$(ratio qp_create_10000 slab sroce rxe)" "<=" 1.0
target "qp_create_10000 sroce/rxe vmalloc" "$(ratio qp_create_10000 vmalloc sroce rxe)" "<=" 1.0
# The ceiling is the kernel's UDP rate (pktgen); iperf3's user-space rate
# is below sroce's under TCG and only informational.
echo "ceiling: ib_write_bw 64 KiB of sroce / the veth's kernel UDP rate (pktgen, same boot):" \
	"$(quot "$(get ib_write_bw_65536 bw sroce)" "$(get pktgen_udp_1472 bw udp)")"
echo "ceiling: ib_write_bw 64 KiB of sroce_j / the veth's kernel UDP rate at MTU 9000 (pktgen, same boot):" \
	"$(quot "$(get ib_write_bw_65536 bw sroce_j)" "$(get pktgen_udp_8972 bw udp)")"
# Every payload byte of a WRITE or SEND costs sroce two ICRC passes: the
# sender's, which also copies it from the MR into the skb, and the
# receiver's check; then the receiver's copy into the MR. With nothing
# else, and the sender's pass at the ICRC's rate, one vCPU moves at most
# 1 / (2 / crc + 1 / copy), two vCPUs in perfect overlap twice that. siw
# computes no CRC and sends an unsignalled message of a page or more
# from the user's pages (MSG_SPLICE_PAGES): its one copy is the
# receiver's.
crc=$(get icrc_1k bw udp) cpy=$(get memcpy_64k bw udp)
if [ -n "$crc" ] && [ "$crc" != - ] && [ -n "$cpy" ] && [ "$cpy" != - ]; then
	awk -v c="$crc" -v m="$cpy" -v s="$(get ib_write_bw_1048576 bw siw)" \
		-v sj="$(get ib_write_bw_1048576 bw sroce_j)" 'BEGIN {
		one = 1 / (2 / c + 1 / m)
		printf "per-byte bound: ICRC %.1f MiB/s, memcpy %.1f MiB/s (one vCPU, same boot): two ICRC passes (one copying) and a copy allow %.1f MiB/s on one vCPU, %.1f on two", c, m, one, 2 * one
		printf "; ib_write_bw 1 MiB: sroce_j %s, siw %s\n", sj, s
	}'
fi
# Work handed to the other vCPU waits for a wake-up there: what that
# costs in this guest, beside the same vCPU's.
wx=$(get wake_cross_cpu t udp) ws=$(get wake_same_cpu t udp)
if [ -n "$wx" ] && [ "$wx" != - ]; then
	echo "hand-off cost: waking a thread on the other vCPU $wx us, on its own vCPU ${ws:--} us (same boot)"
fi
# An atomic is two packets (request, ATOMIC ACKNOWLEDGE) through veth, IP
# and UDP: at the small-packet ceiling, with no work of sroce's at all,
# one vCPU moves kpps / 2 atomics of 8 bytes per second, two vCPUs in
# perfect overlap twice that. Against the target of 2x rdma_rxe.
kpps=$(get pktgen_udp_44 rate udp) xat=$(get ib_atomic_bw_8 bw rxe)
if [ -n "$kpps" ] && [ "$kpps" != - ] && [ -n "$xat" ] && [ "$xat" != - ]; then
	awk -v k="$kpps" -v x="$xat" 'BEGIN {
		one = k * 1000 / 2 * 8 / 1048576
		printf "atomic_bw bound from the 44-byte packet ceiling (%.1f kpps): %.2f MiB/s on one vCPU, %.2f on two; 2x rxe is %.2f\n", k, one, 2 * one, 2 * x
	}'
fi
# A READ is two packets through the same path one after the other, the
# response sent only once the request has arrived, and its doorbell is a
# system call: with no work of sroce's at all, at least two packet times
# of that ceiling and one system call. Against the target of 0.6x
# rdma_rxe, whose ends loop back inside its driver.
xrl=$(get ib_read_lat_8 t_typical rxe) sys=$(get syscall_null t udp)
if [ -n "$kpps" ] && [ "$kpps" != - ] && [ -n "$xrl" ] && [ "$xrl" != - ]; then
	awk -v k="$kpps" -v x="$xrl" -v s="$(get ib_read_lat_8 t_typical sroce)" -v c="${sys:--}" 'BEGIN {
		printf "read_lat bound from the 44-byte packet ceiling (%.1f kpps): two packets take %.2f us", k, 2000 / k
		if (c != "-")
			printf ", with one system call (%.3f us) %.2f us", c, 2000 / k + c
		printf "; 0.6x rxe is %.2f us; sroce %s us\n", 0.6 * x, s
	}'
fi
bad=$(awk -F'\t' "$invalid" "$raw" | wc -l)
[ "$bad" = 0 ] || echo "left out: $bad figure(s) of 0 or inf (perftest's TCG clock)"
echo
echo "medians of $(awk -F'\t' '{ print $7 }' "$raw" | sort -u | wc -l) repeat(s); table: $out"
