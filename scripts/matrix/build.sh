#!/bin/bash
# Build one matrix cell (scripts/lib/matrix.sh) in its root
# (scripts/matrix/mkroot.sh, built if missing):
#   build/matrix/CELL/kernel/sroce.ko      against the cell's kernel headers
#   build/matrix/CELL/selftests/*.ko       the test modules (selftests/kmod/)
#   build/matrix/CELL/provider/            libsroce built in the cell's
#                                          rdma-core (CELL_PROVIDER=build)
# and the cell's guest initramfs (scripts/matrix/mkinitrd.sh). The sources
# are copied to build/matrix/CELL/src/ and built there, so the stock
# build's objects are left alone and each build stays incremental.
#   scripts/matrix/build.sh CELL
set -euo pipefail
. "$(dirname "$0")/../lib/common.sh"
. "$SROCE_TOP/scripts/lib/matrix.sh"

cell=${1:?usage: $0 CELL}
"$SROCE_TOP/scripts/matrix/mkroot.sh" "$cell"
matrix_cell "$cell"
krel=$(cell_krelease)
src=$CELL_BUILD/src

sync_kernel_sources "$src"
cp "$SROCE_TOP/VERSION" "$src/VERSION"

rsrc=/src/build/matrix/$cell/src	# as seen inside the root
log "cell $cell: building sroce.ko and the test modules for $krel ($CELL_CC)"
in_root sh -c "cd $rsrc/kernel && make -s KDIR=/usr/src/linux-headers-$krel CC=$CELL_CC &&
	cd ../selftests/kmod && make -s KDIR=/usr/src/linux-headers-$krel CC=$CELL_CC" ||
	die "cell $cell: module build failed"
mkdir -p "$CELL_BUILD/kernel" "$CELL_BUILD/selftests"
cp "$src/kernel/sroce.ko" "$CELL_BUILD/kernel/"
cp "$src"/selftests/kmod/*.ko "$CELL_BUILD/selftests/"

# CELL_PROVIDER=abi is checked when the cell runs (scripts/matrix/matrix.sh):
# it needs the stock libsroce.
[ "$CELL_PROVIDER" != build ] || SROCE_CELL=$cell "$SROCE_TOP/scripts/build-provider.sh"
"$SROCE_TOP/scripts/matrix/mkinitrd.sh" "$cell"
log "cell $cell: built for $krel"
