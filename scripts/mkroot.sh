#!/bin/bash
# Build (once) the cached Debian 13 root that is both the build chroot for
# sroce.ko, libsroce and the selftests, and the source of the guest image.
# One root keeps linux-headers and linux-image at the same version.
set -euo pipefail
. "$(dirname "$0")/lib/common.sh"

# Packages the build needs.
BUILD_PKGS="build-essential gcc-14 make linux-headers-amd64 cmake ninja-build
pkg-config libnl-3-dev libnl-route-3-dev libudev-dev libibverbs-dev
librdmacm-dev dpkg-dev python3-dev cython3 ca-certificates"
# Packages the guest runs.
GUEST_PKGS="linux-image-amd64 rdma-core ibverbs-utils ibverbs-providers
perftest rdmacm-utils python3-pyverbs iproute2 kmod tcpdump tshark procps
iputils-ping ethtool iperf3 busybox-static util-linux python3 xz-utils"
STAMP=$SROCE_ROOT/.sroce-root-v1

[ -e "$STAMP" ] && exit 0
"$SROCE_TOP/scripts/host-deps.sh"

log "debootstrap Debian 13 into $SROCE_ROOT (several minutes, cached)"
rm -rf "$SROCE_ROOT"
mkdir -p "$SROCE_CACHE"
debootstrap --variant=minbase --components=main trixie "$SROCE_ROOT" "$SROCE_MIRROR" \
	>"$SROCE_CACHE/debootstrap.log" 2>&1 || {
	tail -20 "$SROCE_CACHE/debootstrap.log"; die "debootstrap failed"; }

cat >"$SROCE_ROOT/etc/apt/sources.list" <<SRC
deb $SROCE_MIRROR trixie main
deb $SROCE_MIRROR trixie-updates main
deb $SROCE_SECURITY trixie-security main
deb-src $SROCE_MIRROR trixie main
SRC
# No daemons may start inside the chroot.
printf '#!/bin/sh\nexit 101\n' >"$SROCE_ROOT/usr/sbin/policy-rc.d"
chmod +x "$SROCE_ROOT/usr/sbin/policy-rc.d"
echo 'wireshark-common wireshark-common/install-setuid boolean false' \
	>"$SROCE_ROOT/tmp/debconf.sel"

log "installing build and guest packages into the root"
# shellcheck disable=SC2086
in_root sh -c "debconf-set-selections /tmp/debconf.sel &&
	apt-get update -q && apt-get install -y -q --no-install-recommends \
	$(echo $BUILD_PKGS $GUEST_PKGS) && apt-get clean" \
	>"$SROCE_CACHE/root-install.log" 2>&1 || {
	tail -30 "$SROCE_CACHE/root-install.log"; die "package install failed"; }
touch "$STAMP"
log "root ready: $(ls "$SROCE_ROOT"/boot/vmlinuz-* | xargs -n1 basename)"
