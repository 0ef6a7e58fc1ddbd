#!/bin/bash
# The busybox initramfs of a matrix cell's guest: scripts/vm/initramfs-init
# with the modules that mount the root disk and the 9p share, from the
# cell's kernel (its root, scripts/matrix/mkroot.sh), and busybox from the
# stock root. Rebuilt when older than the cell root or initramfs-init.
#   scripts/matrix/mkinitrd.sh CELL
set -euo pipefail
. "$(dirname "$0")/../lib/common.sh"
. "$SROCE_TOP/scripts/lib/matrix.sh"

busybox=$SROCE_ROOT/usr/bin/busybox
"$SROCE_TOP/scripts/mkroot.sh"
matrix_cell "${1:?usage: $0 CELL}"
KVER=$(cell_krelease)
[ -e "$CELL_INITRD" ] && [ "$CELL_INITRD" -nt "$SROCE_ROOT/.sroce-cell-v1" ] &&
	[ "$CELL_INITRD" -nt "$SROCE_TOP/scripts/vm/initramfs-init" ] && exit 0

log "making the $CELL_NAME cell's initramfs ($KVER)"
make_initramfs "$busybox" "$KVER" "$CELL_INITRD"
