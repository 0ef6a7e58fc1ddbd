#!/bin/bash
# Build libsroce as an rdma-core 56.1 provider, inside rdma-core's own source
# (a provider links against rdma-core's private, per-version ABI). The
# source comes from Debian 13 (deb-src) and is cached; our provider and uapi
# header are added to a copy at build time. Nothing of rdma-core is
# committed. Output: build/provider/{libsroce-rdmav*.so,sroce.driver}.
set -euo pipefail
. "$(dirname "$0")/lib/common.sh"

"$SROCE_TOP/scripts/mkroot.sh"
orig=$SROCE_CACHE/rdma-core_${RDMA_CORE_VERSION}.orig.tar.gz
if [ ! -s "$orig" ]; then
	log "fetching rdma-core $RDMA_CORE_VERSION source (deb-src trixie)"
	# The .dsc answers 404 but the .orig.tar.gz still arrives.
	in_root sh -c "mkdir -p /var/tmp/rc && cd /var/tmp/rc && \
		apt-get source -q --download-only rdma-core=${RDMA_CORE_VERSION}-1 >/dev/null 2>&1; \
		cp rdma-core_${RDMA_CORE_VERSION}.orig.tar.gz /cache/ && rm -rf /var/tmp/rc" ||
		die "could not download rdma-core ${RDMA_CORE_VERSION} source"
fi

# A private copy per clone (under build/), so that clones never share it.
tree=$SROCE_BUILD/rdma-core/src
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

log "building libsroce in rdma-core ${RDMA_CORE_VERSION}"
in_root sh -c "set -e; mkdir -p /src/build/rdma-core/build && cd /src/build/rdma-core/build && \
	{ [ -e build.ninja ] || cmake -GNinja -DNO_PYVERBS=1 -DNO_MAN_PAGES=1 \
		-Wno-dev -DCMAKE_BUILD_TYPE=RelWithDebInfo -DENABLE_WERROR=1 /src/build/rdma-core/src >cmake.log 2>&1; } && \
	ninja sroce-rdmav34 >ninja.log || { tail -40 ninja.log; exit 1; }" ||
	die "provider build failed"

out=$SROCE_BUILD/provider
mkdir -p "$out"
cp "$SROCE_BUILD"/rdma-core/build/lib/libsroce-rdmav*.so "$out/"
echo "driver sroce" >"$out/sroce.driver"
log "provider: $(cd "$out" && ls)"
