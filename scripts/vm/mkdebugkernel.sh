#!/bin/bash
# Build (once) the debug guest kernel: Debian 13's linux-source-6.12 (the
# stock guest kernel's upstream version) configured by `make allnoconfig` plus
# scripts/vm/debug-kernel.config (KASAN, KFENCE, lockdep, kmemleak, UBSAN,
# ...; everything the guest needs built in). Cached in
#   $SROCE_CACHE/debug-kernel/<linux-source version>-<fragment hash>/
#     bzImage  System.map  config  kernel.release
#     build/                    tree to build external modules against
#                               (modules_prepare output and Module.symvers)
#     modules/<release>/        modules.builtin*, modules.order and depmod's
#                               indexes, for modprobe of built-in modules
# A change of the fragment or of the package changes the key: a rebuild.
#   scripts/vm/mkdebugkernel.sh          build if not cached
#   scripts/vm/mkdebugkernel.sh --dir    print the cache directory, build nothing
# The compile runs in the cached root, in a mount namespace of its own and
# without the root's lock (an hour on two cores would stall every other
# build); only the package install takes the lock. ccache (in
# $SROCE_CACHE/ccache) makes a rebuild after a small config change fast.
set -euo pipefail
. "$(dirname "$0")/../lib/common.sh"

PKG=linux-source-6.12
# The kernel build's own needs, besides the root's build-essential.
PKGS="$PKG flex bison bc libelf-dev libssl-dev ccache cpio"
FRAGMENT=$SROCE_TOP/scripts/vm/debug-kernel.config
# Bump when this script changes how the tree is built.
RECIPE=2
DK=$SROCE_CACHE/debug-kernel

pkg_version() {
	chroot "$SROCE_ROOT" dpkg-query -W -f='${Status} ${Version}' "$PKG" 2>/dev/null |
		sed -n 's/^install ok installed //p'
}

cache_dir() {
	local ver=$1 h
	h=$( { echo "recipe $RECIPE"; cat "$FRAGMENT"; } | sha256sum | cut -c1-12)
	echo "$DK/$ver-$h"
}

if [ "${1:-}" = --dir ]; then
	ver=$(pkg_version)
	[ -n "$ver" ] || die "$PKG is not installed in the root (run $0)"
	cache_dir "$ver"
	exit 0
fi

"$SROCE_TOP/scripts/mkroot.sh"

missing() {
	local p
	for p in $PKGS; do
		chroot "$SROCE_ROOT" dpkg-query -W -f='${Status}' "$p" 2>/dev/null |
			grep -q 'ok installed' || echo "$p"
	done
}
if [ -n "$(missing)" ]; then
	log "adding $(missing | xargs) to the cached root"
	# Not part of the guest's needs: no root stamp, the image stays.
	in_root sh -c "apt-get install -y -q --no-install-recommends $(missing | xargs) ||
		{ apt-get update -q && apt-get install -y -q --no-install-recommends $(missing | xargs); } &&
		apt-get clean" >"$SROCE_CACHE/debug-kernel-pkgs.log" 2>&1 || {
		tail -30 "$SROCE_CACHE/debug-kernel-pkgs.log"; die "installing $PKGS failed"; }
fi

ver=$(pkg_version)
out=$(cache_dir "$ver")
[ -e "$out/.done" ] && { log "debug kernel cached: $out"; exit 0; }

mkdir -p "$DK" "$SROCE_CACHE/ccache"
exec 7>"$DK/build.lock"
flock 7	# one debug kernel build at a time
[ -e "$out/.done" ] && { log "debug kernel cached: $out"; exit 0; }

key=$(basename "$out")
work=$DK/work-$key
rm -rf "$work" "$out"
mkdir -p "$work" "$out"
cp "$FRAGMENT" "$work/debug-kernel.config"
log "building the debug kernel ($PKG $ver, key $key): ~40 min on 2 shared cores, cached"
log "load before the build: $(cut -d' ' -f1-3 /proc/loadavg)"
t0=$SECONDS

# Inside the root, with /cache = $SROCE_CACHE.
cat >"$work/build.sh" <<'EOF'
set -eu
key=$1
work=/cache/debug-kernel/work-$key
out=/cache/debug-kernel/$key
cd "$work"
tar -xaf /usr/src/linux-source-6.12.tar.xz
cd linux-source-6.12
export CCACHE_DIR=/cache/ccache CCACHE_MAXSIZE=3G CCACHE_COMPRESS=1
export KBUILD_BUILD_TIMESTAMP="$key" KBUILD_BUILD_USER=sroce KBUILD_BUILD_HOST=sroce
MK="make -j$(nproc) CC=ccache\ gcc-14 HOSTCC=gcc-14"
eval "$MK allnoconfig" >/dev/null
scripts/kconfig/merge_config.sh -m .config "$work/debug-kernel.config" >/dev/null
eval "$MK olddefconfig" >/dev/null
# Every line of the fragment must have survived (a dependency missing
# would silently drop it).
bad=0
while read -r line; do
	case "$line" in
	CONFIG_*=*) grep -qxF "$line" .config || { echo "not in .config: $line (got: $(grep "^${line%%=*}=" .config || echo unset))"; bad=1; } ;;
	"# CONFIG_"*" is not set") s=${line#\# }; s=${s%% *}
		! grep -q "^$s=" .config || { echo "set in .config: $(grep "^$s=" .config) (fragment: $line)"; bad=1; } ;;
	esac
done <"$work/debug-kernel.config"
[ $bad = 0 ] || exit 1
eval "$MK bzImage" >"$work/make.log" 2>&1 || { tail -40 "$work/make.log"; exit 1; }
# No module is configured: this writes modules.builtin* and Module.symvers
# and prepares the tree for external modules.
eval "$MK modules modules_prepare" >>"$work/make.log" 2>&1 || { tail -40 "$work/make.log"; exit 1; }
eval "$MK INSTALL_MOD_PATH=$work/modroot modules_install" >>"$work/make.log" 2>&1 ||
	{ tail -40 "$work/make.log"; exit 1; }
rel=$(cat include/config/kernel.release)
cp arch/x86/boot/bzImage System.map "$out/"
cp .config "$out/config"
echo "$rel" >"$out/kernel.release"
mkdir -p "$out/modules"
cp -a "$work/modroot/lib/modules/$rel" "$out/modules/"
rm -f "$out/modules/$rel/build" "$out/modules/$rel/source"
# The subset of the tree an external module build reads (what Debian's
# linux-headers holds), then the sources and objects go.
srctree=. objtree=. SRCARCH=x86 CC=gcc-14 HOSTCC=gcc-14 MAKE=make \
	scripts/package/install-extmod-build "$out/build"
cp .config "$out/build/.config"
ccache -s | sed -n '/^Local storage/q; /Hits\|Misses/p'
EOF
# Private mounts: gone when the namespace ends, invisible to in_root.
unshare -m --propagation private sh -c '
	root=$1 cache=$2 key=$3
	for m in proc sys dev; do mount --bind /$m "$root/$m"; done
	mkdir -p "$root/cache"
	mount --bind "$cache" "$root/cache"
	exec chroot "$root" /usr/bin/env -i HOME=/root PATH=/usr/sbin:/usr/bin:/sbin:/bin \
		LANG=C.UTF-8 bash "/cache/debug-kernel/work-$key/build.sh" "$key"
' sh "$SROCE_ROOT" "$SROCE_CACHE" "$key" || {
	log "debug kernel build failed; log in $work/make.log"
	rm -rf "$out" "$work/linux-source-6.12"
	exit 1
}
secs=$((SECONDS - t0))
echo "$secs s, load at the end $(cut -d' ' -f1-3 /proc/loadavg)" >"$out/build-time"
rm -rf "$work"
touch "$out/.done"
log "debug kernel $(cat "$out/kernel.release") built in ${secs} s ($(du -sh "$out" | cut -f1)): $out"
