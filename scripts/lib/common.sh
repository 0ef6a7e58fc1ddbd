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
# A matrix cell's root (scripts/lib/matrix.sh) sets SROCE_ROOT and
# SROCE_ROOT_LOCK to its own.
in_root() {
	mkdir -p "$SROCE_CACHE"
	exec 9>"${SROCE_ROOT_LOCK:-$SROCE_CACHE/root.lock}"
	flock 9	# one user of the root's mounts at a time
	# Holding the lock, any mount still there is stale: a user killed
	# before it could undo its own, with /src perhaps another tree.
	umount_root
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

# root_add_packages STAMP LOG PKG...: install PKGs into the existing cached
# root in place, once: the root is shared by every build and guest run, so
# it is never rebuilt for this. STAMP (a file at the root's top) says it is
# done and is checked again under the root's lock, since another user may
# have just installed them; LOG goes to the cache. A stamp named
# .sroce-root-* is newer than guest.ext4 and makes scripts/vm/mkimage.sh
# rebuild the image once (packages the guest runs); any other name does
# not (build-time tools).
root_add_packages() {
	local stamp=$1 logf=$SROCE_CACHE/$2 pkgs
	shift 2
	pkgs="$*"
	"$SROCE_TOP/scripts/mkroot.sh"
	[ -e "$SROCE_ROOT/$stamp" ] && return 0
	log "adding $pkgs to the cached root"
	in_root sh -c "
		[ -e /$stamp ] && exit 0
		missing=
		for p in $pkgs; do
			dpkg-query -W -f='\${Status}' \$p 2>/dev/null | grep -q 'ok installed' ||
				missing=\"\$missing \$p\"
		done
		if [ -n \"\$missing\" ]; then
			apt-get install -y -q --no-install-recommends \$missing ||
				{ apt-get update -q && apt-get install -y -q --no-install-recommends \$missing; } ||
				exit 1
			apt-get clean
		fi
		touch /$stamp" >"$logf" 2>&1 || {
		tail -30 "$logf"; die "installing $pkgs failed"; }
}

# sync_kernel_sources DEST: the module's sources (kernel/, include/,
# selftests/kmod/) copied to DEST for a build against other kernel
# headers. Only what changed is copied, so make keeps the objects of
# unchanged files; generated .mod.c files stay behind.
sync_kernel_sources() {
	local d from to f
	for d in kernel include selftests/kmod; do
		from=$SROCE_TOP/$d to=$1/$d
		mkdir -p "$to"
		(cd "$from" && find . -type f \( -name '*.[ch]' -o -name Kbuild -o -name Makefile \) ! -name '*.mod.c') |
		while read -r f; do
			cmp -s "$from/$f" "$to/$f" 2>/dev/null && continue
			mkdir -p "$to/$(dirname "$f")"
			cp "$from/$f" "$to/$f"
		done
	done
}

# make_initramfs BUSYBOX KVER OUT: a guest's busybox initramfs
# (scripts/vm/initramfs-init) with the modules of $SROCE_ROOT's kernel
# KVER that mount the root disk and the 9p share, in load order (those
# built in are left out: virtio_pci is from 6.12 on). OUT is replaced
# whole: two runs may make it at once.
make_initramfs() {
	local busybox=$1 kver=$2 out=$3 work ko name m
	work=$(mktemp -d)
	trap 'rm -rf "$work"' EXIT
	mkdir -p "$work"/{bin,dev,proc,sys,newroot,lib/modules}
	cp "$busybox" "$work/bin/busybox"
	for m in virtio_pci virtio_blk ext4 9pnet_virtio 9p; do
		chroot "$SROCE_ROOT" modprobe -S "$kver" --show-depends "$m"
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
	echo "$kver" >"$work/lib/modules/release"
	install -m 755 "$SROCE_TOP/scripts/vm/initramfs-init" "$work/init"
	(cd "$work" && find . -path ./order.txt -prune -o -print | cpio -o -H newc --quiet) |
		gzip -1 >"$out.tmp.$$"
	mv "$out.tmp.$$" "$out"
	rm -rf "$work"
	trap - EXIT
}
