#!/bin/bash
# Build (once) the guest's read-only root image and its busybox initramfs
# from the cached Debian 13 root. Both are cached beside the root.
set -euo pipefail
. "$(dirname "$0")/../lib/common.sh"

"$SROCE_TOP/scripts/mkroot.sh"
KVER=$(basename "$(ls -d "$SROCE_ROOT"/lib/modules/*)")

if [ ! -e "$SROCE_IMAGE" ] || [ "$SROCE_ROOT/.sroce-root-v1" -nt "$SROCE_IMAGE" ]; then
	log "making guest image $SROCE_IMAGE"
	rm -f "$SROCE_IMAGE.tmp"
	size_mb=$(( $(du -sm "$SROCE_ROOT" | cut -f1) + 768 ))
	mkfs.ext4 -q -F -L sroce-root -d "$SROCE_ROOT" "$SROCE_IMAGE.tmp" "${size_mb}M"
	mv "$SROCE_IMAGE.tmp" "$SROCE_IMAGE"
fi

if [ ! -e "$SROCE_INITRD" ] || [ "$SROCE_IMAGE" -nt "$SROCE_INITRD" ] ||
   [ "$SROCE_TOP/scripts/vm/initramfs-init" -nt "$SROCE_INITRD" ]; then
	log "making initramfs $SROCE_INITRD"
	work=$(mktemp -d)
	trap 'rm -rf "$work"' EXIT
	mkdir -p "$work"/{bin,dev,proc,sys,newroot,lib/modules}
	cp "$SROCE_ROOT/usr/bin/busybox" "$work/bin/busybox"
	# Modules to mount the root disk and the 9p share, in load order.
	for m in virtio_blk ext4 9pnet_virtio 9p; do
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
	install -m 755 "$SROCE_TOP/scripts/vm/initramfs-init" "$work/init"
	(cd "$work" && find . -path ./order.txt -prune -o -print | cpio -o -H newc --quiet) |
		gzip -1 >"$SROCE_INITRD.tmp"
	mv "$SROCE_INITRD.tmp" "$SROCE_INITRD"
fi
