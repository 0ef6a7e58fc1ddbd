#!/bin/bash
# Build (once) the guest's read-only root image and its busybox initramfs
# from the cached Debian 13 root. Both are cached beside the root.
set -euo pipefail
. "$(dirname "$0")/../lib/common.sh"

"$SROCE_TOP/scripts/mkroot.sh"
KVER=$(basename "$(ls -d "$SROCE_ROOT"/lib/modules/*)")

# The image is stale when it is older than any stamp of the root: the root
# itself (.sroce-root-v1) or packages added to it later in place
# (.sroce-root-extras-*, scripts/root-extras.sh).
image_stale() {
	local s
	[ -e "$SROCE_IMAGE" ] || return 0
	for s in "$SROCE_ROOT"/.sroce-root-*; do
		[ "$s" -nt "$SROCE_IMAGE" ] && return 0
	done
	return 1
}

if image_stale; then
	# Under the root's lock (as in_root): no package is installed while
	# mkfs reads the root, and two runs never build the image at once. It
	# is built aside and moved over the old one: a guest already running
	# keeps the file it opened.
	exec 8>"$SROCE_CACHE/root.lock"
	flock 8
	if image_stale; then
		log "making guest image $SROCE_IMAGE"
		tmp=$SROCE_IMAGE.tmp.$$
		rm -f "$tmp"
		size_mb=$(( $(du -sm "$SROCE_ROOT" | cut -f1) + 768 ))
		mkfs.ext4 -q -F -L sroce-root -d "$SROCE_ROOT" "$tmp" "${size_mb}M" ||
			{ rm -f "$tmp"; die "mkfs.ext4 failed"; }
		mv "$tmp" "$SROCE_IMAGE"
	fi
	flock -u 8
	exec 8>&-
fi

if [ ! -e "$SROCE_INITRD" ] || [ "$SROCE_IMAGE" -nt "$SROCE_INITRD" ] ||
   [ "$SROCE_TOP/scripts/vm/initramfs-init" -nt "$SROCE_INITRD" ]; then
	log "making initramfs $SROCE_INITRD"
	make_initramfs "$SROCE_ROOT/usr/bin/busybox" "$KVER" "$SROCE_INITRD"
fi
