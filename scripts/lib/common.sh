# Shared settings for sroce's scripts. Source it; do not run it.
# shellcheck shell=bash

SROCE_TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
# Outside the clone so that CI's fresh clones reuse downloads and images.
SROCE_CACHE=${SROCE_CACHE:-$HOME/.cache/sroce}
SROCE_ROOT=$SROCE_CACHE/trixie-root        # Debian 13: build chroot and guest root
SROCE_IMAGE=$SROCE_CACHE/guest.ext4         # read-only guest root image
SROCE_INITRD=$SROCE_CACHE/initramfs.cpio.gz # busybox initramfs
SROCE_MIRROR=${SROCE_MIRROR:-http://deb.debian.org/debian}
SROCE_SECURITY=${SROCE_SECURITY:-http://deb.debian.org/debian-security}
RDMA_CORE_VERSION=56.1
SROCE_BUILD=$SROCE_TOP/build                # ignored build output, shared into the guest

log() { printf '[sroce] %s\n' "$*" >&2; }
die() { printf '[sroce] error: %s\n' "$*" >&2; exit 1; }

# Run a command inside the Debian 13 root with /proc, /dev, the source tree
# (at /src) and the cache (at /cache) mounted. Mounts are undone on return.
in_root() {
	mkdir -p "$SROCE_CACHE"
	exec 9>"$SROCE_CACHE/root.lock"
	flock 9	# one user of the root's mounts at a time
	local m
	for m in proc sys dev dev/pts; do
		mountpoint -q "$SROCE_ROOT/$m" || mount --bind "/$m" "$SROCE_ROOT/$m"
	done
	mkdir -p "$SROCE_ROOT/src" "$SROCE_ROOT/cache"
	mountpoint -q "$SROCE_ROOT/src" || mount --bind "$SROCE_TOP" "$SROCE_ROOT/src"
	mountpoint -q "$SROCE_ROOT/cache" || mount --bind "$SROCE_CACHE" "$SROCE_ROOT/cache"
	local rc=0
	chroot "$SROCE_ROOT" /usr/bin/env -i HOME=/root PATH=/usr/sbin:/usr/bin:/sbin:/bin \
		LANG=C.UTF-8 DEBIAN_FRONTEND=noninteractive "$@" || rc=$?
	umount_root
	flock -u 9
	return $rc
}

umount_root() {
	local m
	for m in cache src dev/pts dev sys proc; do
		mountpoint -q "$SROCE_ROOT/$m" && umount -l "$SROCE_ROOT/$m"
	done
	return 0
}
