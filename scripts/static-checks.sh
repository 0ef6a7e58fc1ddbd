#!/bin/bash
# The static checks a kernel maintainer runs, against Debian 13's
# linux-headers inside the cached root. Prints KTAP on stdout, one result
# per check, the findings as "# " lines before a failure:
#   1 sparse: make C=2 over sroce.ko and the test module (selftests/kmod/)
#   2 W=1:    the same two modules built with W=1 (extra gcc warnings,
#             kernel-doc, modpost)
#   3 checkpatch.pl --strict over kernel/*.c kernel/*.h kernel/core/*
# Only findings in sroce's own files count (kernel/, selftests/kmod/); those
# in the kernel's headers are not ours: they are counted apart and shown as
# a "# " line, never failed on. Exits 1 if a check failed.
#
# The modules are built in a copy (build/static/src/): W=1 changes every
# object's command line, and the normal build (scripts/build-module.sh)
# must find kernel/ as it left it. sparse comes from Debian
# (scripts/root-tools.sh). checkpatch.pl is not in any linux-headers
# package: its three files are taken once from linux-source-X.Y (a 150 MB
# download, a few seconds on Debian's mirror) and kept in the cache.
set -uo pipefail
. "$(dirname "$0")/lib/common.sh"

out=$SROCE_BUILD/static
copy=$out/src

"$SROCE_TOP/scripts/root-tools.sh" >&2 || die "installing sparse into the root"

# checkpatch.pl, spelling.txt, const_structs.checkpatch of the kernel series
# whose headers the root has, in $SROCE_CACHE/checkpatch-X.Y/.
fetch_checkpatch() {
	local hdr series dir tmp
	hdr=$(basename "$(ls -d "$SROCE_ROOT"/usr/src/linux-headers-*-common | head -1)")
	series=$(echo "$hdr" | sed -n 's/^linux-headers-\([0-9]*\.[0-9]*\)\..*/\1/p')
	[ -n "$series" ] || return 1
	dir=$SROCE_CACHE/checkpatch-$series
	CHECKPATCH_DIR=$dir
	[ -e "$dir/checkpatch.pl" ] && return 0
	log "fetching checkpatch.pl from linux-source-$series (once, kept in $dir)"
	tmp=$SROCE_CACHE/checkpatch-dl.$$
	rm -rf "$tmp" && mkdir -p "$tmp"
	in_root sh -c "cd /cache/${tmp##*/} && { apt-get download -q -o APT::Sandbox::User=root linux-source-$series ||
		{ apt-get update -q && apt-get download -q -o APT::Sandbox::User=root linux-source-$series; }; }" \
		>"$tmp/download.log" 2>&1 &&
	dpkg-deb --fsys-tarfile "$tmp"/linux-source-"$series"_*.deb |
		tar -xO "./usr/src/linux-source-$series.tar.xz" |
		tar -xJ -C "$tmp" --strip-components=2 \
			"linux-source-$series/scripts/checkpatch.pl" \
			"linux-source-$series/scripts/spelling.txt" \
			"linux-source-$series/scripts/const_structs.checkpatch" &&
	mkdir -p "$dir.new" &&
	mv "$tmp/checkpatch.pl" "$tmp/spelling.txt" "$tmp/const_structs.checkpatch" "$dir.new/" &&
	rm -rf "$dir" && mv "$dir.new" "$dir"
	local rc=$?
	[ $rc = 0 ] || tail -5 "$tmp/download.log" >&2
	rm -rf "$tmp" "$dir.new"
	return $rc
}

CHECKPATCH_DIR=
cp_ok=1
fetch_checkpatch || cp_ok=0

rm -rf "$out"
mkdir -p "$copy"
tar -C "$SROCE_TOP" -cf - --exclude='*.o' --exclude='*.ko' --exclude='*.mod' \
	--exclude='*.mod.c' --exclude='.*.cmd' --exclude=Module.symvers \
	--exclude=modules.order --exclude='*.a' kernel include selftests/kmod |
	tar -C "$copy" -xf - || die "copying the sources to $copy"

t0=$SECONDS
# One root session. The C=2 pass comes second with the same W=1: the objects
# are then up to date and only sparse runs.
in_root sh -c '
	K=$(ls -d /usr/src/linux-headers-*-amd64 | head -1)
	o=/src/build/static
	# checkpatch beside the builds (2 cores). Its file list is expanded
	# now, while the copy holds only sources: kernel/core/* would match
	# the objects.
	if [ -n "$1" ]; then
		(s=$(date +%s)
		cd $o/src && perl "/cache/$1/checkpatch.pl" --strict --no-tree -f --terse \
			--show-types --no-summary kernel/*.c kernel/*.h kernel/core/* \
			>$o/checkpatch.log 2>&1
		echo "checkpatch: $(($(date +%s) - s)) s" >>$o/times.log) &
	fi
	for d in kernel selftests/kmod; do
		s=$(date +%s)
		make -C $o/src/$d KDIR=$K W=1 >>$o/w1.log 2>&1 || echo "BUILD FAILED: $d" >>$o/w1.log
		m=$(date +%s)
		make -C $o/src/$d KDIR=$K W=1 C=2 >>$o/sparse.log 2>&1 || echo "BUILD FAILED: $d" >>$o/sparse.log
		e=$(date +%s)
		echo "$d: W=1 build $((m - s)) s, sparse $((e - m)) s" >>$o/times.log
	done
	wait
' sh "$([ $cp_ok = 1 ] && basename "$CHECKPATCH_DIR")" || die "could not run the checks in the root"
sed 's/^/# /' "$out/times.log" >&2
log "static checks took $((SECONDS - t0)) s in the root"

# Compiler, sparse and kernel-doc findings of a log: ours to $1.ours (paths
# relative to the top: kernel/..., selftests/kmod/...), the kernel headers'
# to $1.theirs.
split_findings() {
	local log=$1 pfx=/src/build/static/src/
	grep -E '^BUILD FAILED|^(WARNING|ERROR): modpost:' "$log" >"$log.ours"
	grep -E "^${pfx}(kernel|selftests/kmod)/[^:]+:[0-9]+(:[0-9]+)?: (warning|error):" "$log" |
		sed "s|^$pfx||" >>"$log.ours"
	grep -E '^[^ ]+:[0-9]+(:[0-9]+)?: (warning|error):' "$log" |
		grep -vE "^${pfx}(kernel|selftests/kmod)/" >"$log.theirs"
}

n=0 failed=0
report() {	# name, file of our findings, file of the headers' (or "")
	local name=$1 ours=$2 theirs=$3 cnt
	n=$((n + 1))
	cnt=$(grep -c . "$ours")
	echo "# $name: $cnt in sroce's code"
	if [ -n "$theirs" ] && [ -s "$theirs" ]; then
		echo "# $name: $(grep -c . "$theirs") more in kernel headers (not sroce's, not counted)"
	fi
	if [ "$cnt" = 0 ]; then
		echo "ok $n $name"
	else
		sed 's/^/# /' "$ours"
		echo "not ok $n $name"
		failed=1
	fi
}

# A checkpatch finding that is a known false positive. The exceptions, each
# with why it is one:
checkpatch_excepted() {	# type file line
	local type=$1 file=$2 src name
	[ "$3" -gt 0 ] || return 1
	src=$(sed -n "${3}p" "$copy/$file")
	case $type in
	COMPLEX_MACRO | MACRO_ARG_REUSE)
		# An X-macro list (#define FOO_LIST(X) X(...) X(...)) expands to a
		# sequence of X() calls by design: parentheses would break it, and
		# X is the name of a macro, not an expression with side effects.
		echo "$src" | grep -qE '^#define [A-Za-z0-9_]+_LIST\(X\)' && return 0 ;;
	esac
	case $type in
	MACRO_ARG_UNUSED | MACRO_ARG_REUSE | BRACKET_SPACE | COMPLEX_MACRO)
		# An X-macro's expander (a macro passed to a FOO_LIST() in the
		# same file): it takes every column of the list and uses those
		# it needs; its arguments are the list's constant tokens; its
		# body is an enum or array entry ("ID = val," or "[ID] = ...,",
		# not an expression to parenthesise; checkpatch reads "[" after
		# ")" as an array subscript).
		name=$(echo "$src" | sed -n 's/^#define \([A-Za-z0-9_]*\)(.*/\1/p')
		[ -n "$name" ] && grep -qE "_LIST\($name\)" "$copy/$file" && return 0 ;;
	esac
	case $type:$file in
	MACRO_ARG_REUSE:kernel/core/opcode.c)
		# OFF_BEFORE()/OFF_OF() compute the opcode table's static
		# initializer from an opcode's mask: only integer constant
		# expressions compile there, so no argument has side effects.
		echo "$src" | grep -qE '^#define (OFF_BEFORE|OFF_OF)\(' && return 0 ;;
	LINUX_VERSION_CODE:kernel/sroce_compat.h | CONSTANT_COMPARISON:kernel/sroce_compat.h)
		# The compatibility header is where sroce tests the kernel's
		# version (README, "Supported kernels and rdma-core"), in the
		# kernel's own idiom: LINUX_VERSION_CODE >= KERNEL_VERSION(...).
		echo "$src" | grep -qE '^#if LINUX_VERSION_CODE [<>]=? KERNEL_VERSION\(' && return 0 ;;
	MACRO_ARG_UNUSED:kernel/sroce_compat.h | MACRO_ARG_REUSE:kernel/sroce_compat.h)
		# One kernel's spelling of an interface may not need an argument
		# another's needs; the arguments are names of sroce's functions
		# (no side effects to repeat).
		echo "$src" | grep -qE '^#define (SROCE_[A-Z_]+|sroce_[a-z_]+)\(' && return 0 ;;
	OPEN_ENDED_LINE:kernel/*_trace.h | PARENTHESIS_ALIGNMENT:kernel/*_trace.h)
		# The TRACE_EVENT() layout of include/trace/events/: each TP_*()
		# one tab in, TP_STRUCT__entry( and TP_fast_assign( ending a line.
		return 0 ;;
	esac
	return 1
}

echo "TAP version 13"
echo "1..3"
split_findings "$out/sparse.log"
report "sparse (make C=2) of sroce.ko and selftests/kmod" "$out/sparse.log.ours" "$out/sparse.log.theirs"
split_findings "$out/w1.log"
report "W=1 build of sroce.ko and selftests/kmod" "$out/w1.log.ours" "$out/w1.log.theirs"

n=$((n + 1))
cp_name="checkpatch.pl --strict of kernel/"
if [ $cp_ok = 0 ] || [ ! -f "$out/checkpatch.log" ]; then
	echo "# checkpatch.pl could not be fetched from linux-source (see above)"
	echo "not ok $n $cp_name"
	failed=1
else
	: >"$out/checkpatch.ours"
	: >"$out/checkpatch.excepted"
	# Lines "FILE:LINE: LEVEL:TYPE: message"; anything else is an error
	# of checkpatch itself, kept so that it fails.
	while IFS= read -r l; do
		if [[ $l =~ ^([^:]+):([0-9]+):\ (ERROR|WARNING|CHECK):([A-Z_0-9]+): ]] &&
			checkpatch_excepted "${BASH_REMATCH[4]}" "${BASH_REMATCH[1]}" "${BASH_REMATCH[2]}"; then
			echo "$l" >>"$out/checkpatch.excepted"
		else
			echo "$l" >>"$out/checkpatch.ours"
		fi
	done <"$out/checkpatch.log"
	echo "# checkpatch: $(grep -c . "$out/checkpatch.excepted") known false positives (exceptions in scripts/static-checks.sh)"
	n=$((n - 1))
	report "$cp_name" "$out/checkpatch.ours" ""
fi

# Nothing of the W=1 objects is left for anyone to trip on.
rm -rf "$copy"
exit $failed
