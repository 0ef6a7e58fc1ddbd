#!/bin/bash
# Build the kernel's siw (soft-iWARP) as build/siw/siw.ko for the guest's
# kernel: Debian does not ship it (CONFIG_RDMA_SIW is off). The source is
# drivers/infiniband/sw/siw of Debian's linux-source package of the same
# version as the root's linux-headers, fetched once with apt-get download
# inside the cached root and kept (that directory only) in the cache; it is
# compiled out of tree with CONFIG_RDMA_SIW=m against those headers. siw is
# only the benchmark's point of comparison (scripts/bench/bench.sh).
set -euo pipefail
. "$(dirname "$0")/lib/common.sh"

"$SROCE_TOP/scripts/mkroot.sh"
hdr=$(cd "$SROCE_ROOT/usr/src" && ls -d linux-headers-*-amd64 | head -1)
[ -n "$hdr" ] || die "no linux-headers in the root"
kver=$(chroot "$SROCE_ROOT" dpkg-query -W -f='${Version}' "$hdr")
series=$(sed -n 's/^VERSION = \(.*\)/\1/p; s/^PATCHLEVEL = \(.*\)/.\1/p' \
	"$SROCE_ROOT/usr/src/$hdr/Makefile" 2>/dev/null | tr -d '\n')
[ -n "$series" ] || series=$(echo "$kver" | cut -d. -f1,2)
src=$SROCE_CACHE/siw-src-$kver

if [ ! -e "$src/Makefile" ]; then
	log "fetching linux-source-$series=$kver for siw (once; cached in $src)"
	dl=$SROCE_CACHE/siw-dl.$$
	mkdir -p "$dl"
	trap 'rm -rf "$dl"' EXIT
	chmod 777 "$dl"	# apt-get download runs as _apt where it can
	in_root sh -c "cd /cache/$(basename "$dl") &&
		{ apt-get download -q linux-source-$series=$kver ||
		  { apt-get update -q && apt-get download -q linux-source-$series=$kver; }; }" \
		>"$dl/download.log" 2>&1 || { tail -20 "$dl/download.log"; die "apt-get download linux-source-$series=$kver failed"; }
	deb=$(ls "$dl"/linux-source-*.deb)
	# Only the siw directory is unpacked from the source tarball.
	dpkg-deb --fsys-tarfile "$deb" |
		tar -xO "./usr/src/linux-source-$series.tar.xz" |
		xz -dc | tar -x -C "$dl" --wildcards "linux-source-$series/drivers/infiniband/sw/siw/*" ||
		die "cannot unpack siw from $deb"
	rm -rf "$src.tmp"
	mv "$dl/linux-source-$series/drivers/infiniband/sw/siw" "$src.tmp"
	mv "$src.tmp" "$src"
fi

out=$SROCE_BUILD/siw
rm -rf "$out/src"
mkdir -p "$out/src"
cp "$src"/*.[ch] "$src/Makefile" "$out/src/"
in_root sh -c "make -s -C /usr/src/$hdr M=/src/build/siw/src CONFIG_RDMA_SIW=m modules" \
	>"$out/build.log" 2>&1 || { tail -30 "$out/build.log"; die "siw build failed"; }
cp "$out/src/siw.ko" "$out/siw.ko"
log "built $out/siw.ko (siw of linux $kver)"
