#!/bin/bash
# Build sroce.ko and the selftests' test modules (selftests/kmod/) against
# the debug guest kernel (scripts/vm/mkdebugkernel.sh, built if not cached):
#   build/debug/kernel/sroce.ko
#   build/debug/selftests/*.ko
# The sources are copied to build/debug/src/ and built there, so the
# objects of the stock build (kernel/*.o, build/kernel/sroce.ko) are left
# alone and each build stays incremental.
set -euo pipefail
. "$(dirname "$0")/lib/common.sh"

"$SROCE_TOP/scripts/vm/mkdebugkernel.sh"
hostdir=$("$SROCE_TOP/scripts/vm/mkdebugkernel.sh" --dir)
kdir=/cache/${hostdir#"$SROCE_CACHE"/}/build	# as seen inside the root
src=$SROCE_BUILD/debug/src

# Copy only what changed: make keeps the objects of unchanged files.
sync_dir() {
	local from=$1 to=$2 f
	mkdir -p "$to"
	(cd "$from" && find . -type f \( -name '*.[ch]' -o -name Kbuild -o -name Makefile \) ! -name '*.mod.c') |
	while read -r f; do
		cmp -s "$from/$f" "$to/$f" 2>/dev/null && continue
		mkdir -p "$to/$(dirname "$f")"
		cp "$from/$f" "$to/$f"
	done
}
sync_dir "$SROCE_TOP/kernel" "$src/kernel"
sync_dir "$SROCE_TOP/include" "$src/include"
sync_dir "$SROCE_TOP/selftests/kmod" "$src/selftests/kmod"

# gcc-14 by that name: the kernel's CONFIG_CC_VERSION_TEXT, or Kbuild warns.
in_root sh -c "cd /src/build/debug/src/kernel && make -s KDIR=$kdir CC=gcc-14 &&
	cd ../selftests/kmod && make -s KDIR=$kdir CC=gcc-14" || die "debug module build failed"
mkdir -p "$SROCE_BUILD/debug/kernel" "$SROCE_BUILD/debug/selftests"
cp "$src/kernel/sroce.ko" "$SROCE_BUILD/debug/kernel/"
cp "$src"/selftests/kmod/*.ko "$SROCE_BUILD/debug/selftests/"
log "built $(cd "$SROCE_TOP" && echo build/debug/kernel/*.ko build/debug/selftests/*.ko) for $(cat "$hostdir/kernel.release")"
