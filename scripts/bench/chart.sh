#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Draw build/bench/bench.png from build/bench/bench.tsv (scripts/bench/report.sh):
# how many times faster sroce is than rdma_rxe and than siw on each
# measurement of the run (throughput ratio, or the inverse ratio for a
# latency or a cost), on a log scale where 1 means "as fast".
# gnuplot runs inside the cached root (scripts/root-extras.sh installs it).
set -euo pipefail
. "$(dirname "$0")/../lib/common.sh"

tsv=${1:-$SROCE_BUILD/bench/bench.tsv}
png=${2:-$SROCE_BUILD/bench/bench.png}
dat=$SROCE_BUILD/bench/chart.dat
[ -s "$tsv" ] || die "no $tsv"
case $(realpath "$png") in "$SROCE_TOP"/*) ;; *) die "$png must be inside the tree" ;; esac

awk -F'\t' -v OFS='\t' '
	function sp(r, b) { return (r == "-" || r + 0 == 0) ? "NaN" : (b == "lo" ? 1 / r : r + 0) }
	NR > 1 && $9 != "-" && $3 != "vmalloc" && $3 != "slab" {
		label = $2 ($3 == "msg_rate" ? " rate" : "") ($1 == "objs" ? " (" $3 ")" : "") \
			($1 == "cpu" ? " cpu" : "")
		print label, sp($9, $5), sp($10, $5)
	}' "$tsv" >"$dat"
"$SROCE_TOP/scripts/root-extras.sh"
rel_dat=/src/${dat#"$SROCE_TOP"/} rel_png=/src/$(realpath --relative-to="$SROCE_TOP" "$png")
n=$(wc -l <"$dat")
w=$((300 + 28 * n))
[ "$w" -ge 720 ] || w=720	# room for the title
in_root gnuplot -e "
	set terminal pngcairo noenhanced size $w,640 font 'sans,9';
	set output '$rel_png';
	set title 'sroce speed relative to rdma_rxe and siw, same guest run (>1: sroce faster)';
	set logscale y 2; set grid ytics; set yrange [0.0625:64];
	set style data histograms; set style histogram clustered gap 1;
	set style fill solid 0.8 border -1; set boxwidth 0.9;
	set xtics rotate by -60 scale 0; set key top left;
	set datafile separator '\t'; set datafile missing 'NaN';
	plot '$rel_dat' using 2:xtic(1) title 'vs rdma_rxe', '' using 3 title 'vs siw', 1 notitle lw 2 lc rgb 'black'
" || die "gnuplot failed"
log "chart: $png"
