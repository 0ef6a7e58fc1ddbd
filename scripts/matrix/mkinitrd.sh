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
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work"/{bin,dev,proc,sys,newroot,lib/modules}
cp "$busybox" "$work/bin/busybox"
# virtio_pci first: built in from 6.12 on, a module in 6.1.
for m in virtio_pci virtio_blk ext4 9pnet_virtio 9p; do
	chroot "$SROCE_ROOT" modprobe -S "$KVER" --show-depends "$m"
done | awk '$1 == "insmod" && !seen[$2]++ { print $2 }' >"$work/order.txt"
: >"$work/lib/modules/order"
while read -r ko; do
	name=$(basename "$ko"); name=${name%.xz}; name=${name%.zst}
	case "$ko" in
	*.xz) xz -dc "$SROCE_ROOT$ko" >"$work/lib/modules/$name" ;;
	*.zst) zstd -qdc "$SROCE_ROOT$ko" >"$work/lib/modules/$name" ;;
	*) cp "$SROCE_ROOT$ko" "$work/lib/modules/$name" ;;
	esac
	echo "$name" >>"$work/lib/modules/order"
done <"$work/order.txt"
echo "$KVER" >"$work/lib/modules/release"
install -m 755 "$SROCE_TOP/scripts/vm/initramfs-init" "$work/init"
(cd "$work" && find . -path ./order.txt -prune -o -print | cpio -o -H newc --quiet) |
	gzip -1 >"$CELL_INITRD.tmp.$$"
mv "$CELL_INITRD.tmp.$$" "$CELL_INITRD"
