#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Guest entry point for the selftests: installs libsroce, then runs the
# tests of a list and prints KTAP.
#   run_guest.sh [-n] [--target sroce|rxe] [--shard I/N [--queue DIR]]
#                [--skip-tag TAG] [LIST.list] [FILTER...]
# LIST: a list file under the tree (default selftests/tests.list): one test
# a line, "script [args]  # tags: TAG...", paths under selftests/.
# FILTER: run only the tests that one of the words selects: a tag
# ("debug", "rxe"), a script or a directory under selftests/ ("datapath",
# "errors/resp.sh"), or a glob on the script's path ("errors/r*", quoted).
# --target rxe (or DP_TARGET=rxe): run the tests tagged "rxe" (those of
# the selection) against the kernel's rdma_rxe instead of sroce
# (datapath/dp_lib.sh). -n: print the selected tests, run nothing.
# --shard I/N: of the selected tests, the I-th of every N (make check runs
# N guests side by side, one a shard). With --queue DIR (under build/)
# the guests take the tests from a shared queue instead, each the next one
# no other has taken (mkdir DIR/K claims test K; DIR/K/done holds its
# result), so they end together; DIR/total is the number selected, for
# scripts/check.sh to find a test a guest took and never finished.
# --skip-tag TAG: leave out the tests tagged TAG (make check leaves the
# "debug" ones to the debug-kernel lane when it runs).
# The results also go to build/selftests-guest.ktap (with --shard,
# build/selftests-guest-I.ktap; or $KTAP_OUT); each
# test gets settings' timeout (or $TEST_TIMEOUT seconds), or the one of
# its tag "timeout=SECS".
cd "$(dirname "$0")" || exit 1
. ./lib.sh

dry=0 target=${DP_TARGET:-sroce} list=selftests/tests.list shard="" queue="" skip_tag=""
while [ $# -gt 0 ]; do
	case $1 in
	-n) dry=1 ;;
	--target) target=${2:?--target takes sroce or rxe}; shift ;;
	--target=*) target=${1#--target=} ;;
	--shard) shard=${2:?--shard takes I/N}; shift ;;
	--queue) queue=${2:?--queue takes a directory under build/}; shift ;;
	--skip-tag) skip_tag=${2:?--skip-tag takes a tag}; shift ;;
	*.list) list=$1 ;;
	*) break ;;
	esac
	shift
done
[ -f "$TOP/$list" ] || { echo "no test list $list"; exit 1; }
if [ -n "$shard" ]; then
	si=${shard%/*} sn=${shard#*/}
	[[ $si =~ ^[0-9]+$ && $sn =~ ^[0-9]+$ ]] && [ "$si" -ge 1 ] && [ "$si" -le "$sn" ] ||
		{ echo "--shard takes I/N with 1 <= I <= N, not $shard"; exit 1; }
fi
case $target in
sroce | rxe) ;;
*) echo "unknown target $target (sroce or rxe)"; exit 1 ;;
esac

# selected PATH TAGS: does a filter word pick the test (all do without one)?
selected() {
	local w
	[ $# -gt 2 ] || return 0
	for w in "${@:3}"; do
		case " $2 " in *" $w "*) return 0 ;; esac
		case $1 in "$w" | "${w%/}"/*) return 0 ;; esac
		# shellcheck disable=SC2053 # a glob on purpose
		[[ $1 == $w ]] && return 0
	done
	return 1
}

tests=() touts=()
while IFS= read -r line; do
	case $line in '#'* | '') continue ;; esac
	read -r -a w <<<"${line%%#*}"
	t=${w[*]}
	tg=()
	case $line in *'# tags:'*) read -r -a tg <<<"${line#*# tags:}" ;; esac
	tags=${tg[*]}
	# A shorter form of a stock test, for the debug kernel only.
	[ "${SROCE_KERNEL:-stock}" = debug ] || case " $tags " in *" debug-only "*) continue ;; esac
	[ -n "$skip_tag" ] && case " $tags " in *" $skip_tag "*) continue ;; esac
	# Another target runs only the tests tagged with its name.
	[ "$target" = sroce ] || case " $tags " in *" $target "*) ;; *) continue ;; esac
	# "timeout=SECS" among the tags: that test's own timeout.
	to=""
	for x in "${tg[@]}"; do case $x in timeout=*) to=${x#timeout=} ;; esac; done
	selected "${w[0]}" "$tags" "$@" && { tests+=("$t"); touts+=("$to"); }
done <"$TOP/$list"
if [ -n "$queue" ]; then
	[ -n "$shard" ] || { echo "--queue needs --shard I/N"; exit 1; }
	qdir=$BUILD/$queue
	mkdir -p "$qdir"
	echo ${#tests[@]} >"$qdir/total"
elif [ -n "$shard" ]; then
	all=("${tests[@]}") allto=("${touts[@]}") tests=() touts=()
	for i in "${!all[@]}"; do
		[ $((i % sn + 1)) = "$si" ] && { tests+=("${all[$i]}"); touts+=("${allto[$i]}"); }
	done
fi
if [ $dry = 1 ]; then
	printf '%s\n' "${tests[@]}"
	exit 0
fi
[ ${#tests[@]} -gt 0 ] || { echo "no test in $list matches: $*"; exit 1; }

# libsroce goes where Debian's libibverbs looks for providers.
install -m 644 "$BUILD"/provider/libsroce-rdmav*.so /usr/lib/x86_64-linux-gnu/libibverbs/
install -m 644 "$BUILD/provider/sroce.driver" /etc/libibverbs.d/sroce.driver
export DP_TARGET=$target
sfx=""
[ "$target" = sroce ] || sfx=" ($target)"

out=${KTAP_OUT:-$BUILD/selftests-guest${shard:+-$si}.ktap}
timeout_s=${TEST_TIMEOUT:-$(sed -n 's/^timeout=//p' settings 2>/dev/null)}
{
	echo "TAP version 13"
	echo "# $list${*:+, filter: $*}, target $target${shard:+, shard $shard}${queue:+ of a shared queue}"
	# A queue's share is known at the end: the plan goes last (TAP 13).
	[ -n "$queue" ] || echo "1..${#tests[@]}"
} | tee "$out"
n=0
for i in "${!tests[@]}"; do
	t=${tests[$i]}
	if [ -n "$queue" ]; then
		mkdir "$qdir/$i" 2>/dev/null || continue
		echo "$t" >"$qdir/$i/test"
	fi
	n=$((n + 1))
	log=$(mktemp)
	read -r -a words <<<"$t"	# a test may carry arguments
	dmesg_mark
	t0=$SECONDS
	timeout -k 5 "${touts[$i]:-${timeout_s:-300}}" bash "$TOP/selftests/${words[0]}" "${words[@]:1}" >"$log" 2>&1
	rc=$?
	# Any kernel report during a test fails it, whatever the test said.
	bugs=$(dmesg_bugs)
	if [ -n "$bugs" ]; then
		echo "$bugs" | sed 's/^/# kernel report: /' >>"$log"
		[ $rc = 0 ] || [ $rc = 4 ] && rc=3
	fi
	echo "# $t: $((SECONDS - t0)) s" >>"$log"
	sed 's/^/# /; s/^# # /# /' "$log" | tee -a "$out"
	case $rc in
	0) echo "ok $n $t$sfx" ;;
	4) echo "ok $n $t$sfx # SKIP" ;;
	124) echo "not ok $n $t$sfx # TIMEOUT" ;;
	3) echo "not ok $n $t$sfx # kernel report" ;;
	*) echo "not ok $n $t$sfx # exit=$rc" ;;
	esac | tee -a "$out"
	[ -n "$queue" ] && echo "$rc" >"$qdir/$i/done"
	rm -f "$log"
	# Each test starts from nothing.
	for d in $(sroce_devices); do rdma link del "$d" 2>/dev/null; done
	topo_down
done
[ -n "$queue" ] && echo "1..$n" | tee -a "$out"
exit 0
