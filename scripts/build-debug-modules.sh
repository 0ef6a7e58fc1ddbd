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

sync_kernel_sources "$src"

# gcc-14 by that name: the kernel's CONFIG_CC_VERSION_TEXT, or Kbuild warns.
in_root sh -c "cd /src/build/debug/src/kernel && make -s KDIR=$kdir CC=gcc-14 &&
	cd ../selftests/kmod && make -s KDIR=$kdir CC=gcc-14" || die "debug module build failed"
mkdir -p "$SROCE_BUILD/debug/kernel" "$SROCE_BUILD/debug/selftests"
cp "$src/kernel/sroce.ko" "$SROCE_BUILD/debug/kernel/"
cp "$src"/selftests/kmod/*.ko "$SROCE_BUILD/debug/selftests/"
log "built $(cd "$SROCE_TOP" && echo build/debug/kernel/*.ko build/debug/selftests/*.ko) for $(cat "$hostdir/kernel.release")"
