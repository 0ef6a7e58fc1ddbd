#!/bin/bash
# Build libsroce as an rdma-core 56.1 provider, inside rdma-core's own source
# (a provider links against rdma-core's private, per-version ABI). The
# source comes from Debian 13 (deb-src) and is cached; our provider and uapi
# header are added to a copy at build time. Nothing of rdma-core is
# committed. Output: build/provider/{libsroce-rdmav*.so,sroce.driver}.
# SROCE_CELL=CELL: the same in a matrix cell's root (scripts/lib/matrix.sh)
# with its rdma-core; output in build/matrix/CELL/provider/.
set -euo pipefail
. "$(dirname "$0")/lib/common.sh"

deb_rev=1 bdir=$SROCE_BUILD/rdma-core out=$SROCE_BUILD/provider suite=trixie
if [ -n "${SROCE_CELL:-}" ]; then
	. "$SROCE_TOP/scripts/lib/matrix.sh"
	"$SROCE_TOP/scripts/matrix/mkroot.sh" "$SROCE_CELL"
	matrix_cell "$SROCE_CELL"
	[ "$CELL_PROVIDER" = build ] || die "cell $SROCE_CELL does not build libsroce"
	RDMA_CORE_VERSION=${CELL_RDMA_CORE%-*} deb_rev=${CELL_RDMA_CORE##*-}
	bdir=$CELL_BUILD/rdma-core out=$CELL_BUILD/provider suite=$CELL_SUITE
else
	"$SROCE_TOP/scripts/mkroot.sh"
fi
orig=$SROCE_CACHE/rdma-core_${RDMA_CORE_VERSION}.orig.tar.gz
if [ ! -s "$orig" ] && [ -n "${SROCE_CELL:-}" ]; then
	# Another suite's source: from the mirror's pool, no deb-src needed.
	log "fetching rdma-core $RDMA_CORE_VERSION source (Debian's pool)"
	curl -sSf -o "$orig.tmp" "$SROCE_MIRROR/pool/main/r/rdma-core/${orig##*/}" &&
		mv "$orig.tmp" "$orig" || { rm -f "$orig.tmp"; die "could not download ${orig##*/}"; }
fi
if [ ! -s "$orig" ]; then
	log "fetching rdma-core $RDMA_CORE_VERSION source (deb-src $suite)"
	# The .dsc answers 404 but the .orig.tar.gz still arrives.
	in_root sh -c "mkdir -p /var/tmp/rc && cd /var/tmp/rc && \
		apt-get source -q --download-only rdma-core=${RDMA_CORE_VERSION}-${deb_rev} >/dev/null 2>&1; \
		cp rdma-core_${RDMA_CORE_VERSION}.orig.tar.gz /cache/ && rm -rf /var/tmp/rc" ||
		die "could not download rdma-core ${RDMA_CORE_VERSION} source"
fi

# A private copy per clone (under build/), so that clones never share it.
tree=$bdir/src
if [ ! -e "$tree/.sroce-unpacked" ]; then
	rm -rf "$tree" && mkdir -p "$tree"
	tar xzf "$orig" -C "$tree" --strip-components=1
	touch "$tree/.sroce-unpacked"
fi

# Add our provider and ABI header (idempotent).
rm -rf "$tree/providers/sroce"
cp -r "$SROCE_TOP/providers/sroce" "$tree/providers/sroce"
cmp -s "$SROCE_TOP/include/uapi/rdma/sroce-abi.h" "$tree/kernel-headers/rdma/sroce-abi.h" ||
	cp "$SROCE_TOP/include/uapi/rdma/sroce-abi.h" "$tree/kernel-headers/rdma/sroce-abi.h"
grep -q 'rdma/sroce-abi.h' "$tree/kernel-headers/CMakeLists.txt" ||
	sed -i 's|^  rdma/rdma_user_rxe.h$|&\n  rdma/sroce-abi.h|' "$tree/kernel-headers/CMakeLists.txt"
grep -q 'providers/sroce' "$tree/CMakeLists.txt" ||
	sed -i 's|^add_subdirectory(providers/rxe)$|&\nadd_subdirectory(providers/sroce)|' "$tree/CMakeLists.txt"

# The provider ABI's version names the library (rdma-core's CMakeLists.txt).
pabi=$(sed -n 's/^set(IBVERBS_PABI_VERSION "\([0-9]*\)")$/\1/p' "$tree/CMakeLists.txt")
[ -n "$pabi" ] || die "no IBVERBS_PABI_VERSION in rdma-core ${RDMA_CORE_VERSION}"
rb=/src/${bdir#"$SROCE_TOP"/}	# as seen inside the root
log "building libsroce in rdma-core ${RDMA_CORE_VERSION}${SROCE_CELL:+ (cell $SROCE_CELL)}"
in_root sh -c "set -e; mkdir -p $rb/build && cd $rb/build && \
	{ [ -e build.ninja ] || cmake -GNinja -DNO_PYVERBS=1 -DNO_MAN_PAGES=1 \
		-Wno-dev -DCMAKE_BUILD_TYPE=RelWithDebInfo -DENABLE_WERROR=1 $rb/src >cmake.log 2>&1 || \
		{ tail -40 cmake.log; exit 1; }; } && \
	ninja sroce-rdmav$pabi >ninja.log || { tail -40 ninja.log; exit 1; }" ||
	die "provider build failed"

mkdir -p "$out"
cp "$bdir"/build/lib/libsroce-rdmav*.so "$out/"
echo "driver sroce" >"$out/sroce.driver"
log "provider: $(cd "$out" && ls)"
