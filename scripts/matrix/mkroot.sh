#!/bin/bash
# Build (once) a matrix cell's root (scripts/lib/matrix.sh): a debootstrap
# of the cell's suite with its kernel (image and headers), the compiler
# that kernel was built with, and what building libsroce in that suite's
# rdma-core needs. It is the cell's build chroot and the source of its guest
# kernel and modules; the guest's userspace is the stock Debian 13 image.
#   scripts/matrix/mkroot.sh CELL
set -euo pipefail
. "$(dirname "$0")/../lib/common.sh"
. "$SROCE_TOP/scripts/lib/matrix.sh"

matrix_cell "${1:?usage: $0 CELL}"
STAMP=$SROCE_ROOT/.sroce-cell-v1

PKGS="build-essential $CELL_CC make kmod"
case $CELL_PROVIDER in
build) PKGS="$PKGS cmake ninja-build pkg-config python3 libnl-3-dev libnl-route-3-dev libudev-dev" ;;
abi) PKGS="$PKGS libibverbs1" ;;
esac
KPKGS="linux-image-amd64 linux-headers-amd64"
# A root made before the cell's package list changed gets the packages in
# place, once (its stamp names the list).
PSTAMP=$SROCE_ROOT/.sroce-cell-pkgs-$(echo "$PKGS" | md5sum | cut -c1-12)
if [ -e "$STAMP" ]; then
	[ -e "$PSTAMP" ] && exit 0
	log "adding $PKGS to the $CELL_NAME root"
	in_root sh -c "apt-get install -y -q --no-install-recommends $PKGS ||
		{ apt-get update -q && apt-get install -y -q --no-install-recommends $PKGS; }" \
		>"$CELL_DIR/install-pkgs.log" 2>&1 || {
		tail -30 "$CELL_DIR/install-pkgs.log"; die "package install in the $CELL_NAME root failed"; }
	touch "$PSTAMP"
	exit 0
fi
"$SROCE_TOP/scripts/host-deps.sh"

mkdir -p "$CELL_DIR"
exec 7>"$SROCE_ROOT_LOCK.build"
flock 7	# one build of the root at a time
[ -e "$STAMP" ] && exit 0
log "debootstrap $CELL_SUITE into $SROCE_ROOT (cell $CELL_NAME; minutes, cached)"
rm -rf "$SROCE_ROOT"
debootstrap --variant=minbase --components=main "$CELL_SUITE" "$SROCE_ROOT" "$SROCE_MIRROR" \
	>"$CELL_DIR/debootstrap.log" 2>&1 || {
	tail -20 "$CELL_DIR/debootstrap.log"; die "debootstrap of $CELL_SUITE failed"; }
printf '%s\n' "$CELL_SOURCES" >"$SROCE_ROOT/etc/apt/sources.list"
printf '#!/bin/sh\nexit 101\n' >"$SROCE_ROOT/usr/sbin/policy-rc.d"
chmod +x "$SROCE_ROOT/usr/sbin/policy-rc.d"

log "installing $CELL_NAME's kernel and build packages"
in_root sh -c "apt-get update -q &&
	apt-get install -y -q --no-install-recommends $PKGS &&
	apt-get install -y -q --no-install-recommends ${CELL_KTARGET:+-t $CELL_KTARGET} $KPKGS &&
	apt-get clean" >"$CELL_DIR/install.log" 2>&1 || {
	tail -30 "$CELL_DIR/install.log"; die "package install in the $CELL_NAME root failed"; }
touch "$PSTAMP" "$STAMP"
log "cell $CELL_NAME root ready: kernel $(cell_krelease)"
