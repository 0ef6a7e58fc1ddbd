# The kernel and rdma-core matrix (README, "Supported kernels"): the
# cells besides the stock one (Debian 13's kernel and rdma-core, the
# cached root of scripts/mkroot.sh). Source it after common.sh; do not run it.
# shellcheck shell=bash

# Cells in the order make matrix builds and runs them.
MATRIX_CELLS="bookworm backports"

# matrix_cell NAME: set the cell's variables, and point SROCE_ROOT (and
# its lock) at the cell's root, so that in_root runs there.
#   CELL_SUITE      the root's Debian suite (debootstrap)
#   CELL_SOURCES    its apt sources
#   CELL_KTARGET    the suite the kernel comes from (apt-get -t), or ""
#   CELL_CC         the compiler that kernel was built with (its Kbuild checks)
#   CELL_RDMA_CORE  the rdma-core (Debian version) libsroce is checked
#                   against in this cell
#   CELL_PROVIDER   how: "build" (libsroce built in that rdma-core's source,
#                   scripts/build-provider.sh) or "abi" (the stock libsroce's
#                   imports checked against that rdma-core's libibverbs,
#                   scripts/matrix/provider-abi.sh: Debian's mirror has no
#                   source of it any more)
#   CELL_DIR        its cache directory (root, initramfs)
#   CELL_BUILD      its build output (under build/, shared into the guest)
matrix_cell() {
	local m=$SROCE_MIRROR s=$SROCE_SECURITY
	case $1 in
	bookworm)	# Debian 12: Linux 6.1, rdma-core 44.0, gcc 12
		CELL_SUITE=bookworm CELL_KTARGET="" CELL_CC=gcc-12
		CELL_RDMA_CORE=44.0-2 CELL_PROVIDER=abi
		CELL_SOURCES="deb $m bookworm main
deb $m bookworm-updates main
deb $s bookworm-security main
deb-src $m bookworm main" ;;
	backports)	# the newest kernel in Debian's archive: Debian 13's
		# backports; with the newest rdma-core in it, unstable's (Debian
		# 13 with backports runs 56.1, the stock build's)
		CELL_SUITE=trixie CELL_KTARGET=trixie-backports CELL_CC=gcc-14
		CELL_RDMA_CORE=65.0-1.1 CELL_PROVIDER=build
		CELL_SOURCES="deb $m trixie main
deb $m trixie-updates main
deb $s trixie-security main
deb $m trixie-backports main" ;;
	*) die "no matrix cell $1 (cells: $MATRIX_CELLS)" ;;
	esac
	CELL_NAME=$1
	CELL_DIR=$SROCE_CACHE/matrix/$1
	CELL_BUILD=$SROCE_BUILD/matrix/$1
	SROCE_ROOT=$CELL_DIR/root
	SROCE_ROOT_LOCK=$CELL_DIR/root.lock
	CELL_INITRD=$CELL_DIR/initramfs.cpio.gz
}

# The cell root's kernel release (after scripts/matrix/mkroot.sh).
cell_krelease() {
	basename "$(ls -d "$SROCE_ROOT"/lib/modules/*-amd64 | sort -V | tail -1)"
}
