#!/bin/bash
# make deb: the two Debian packages of sroce, in build/deb/:
#   sroce-dkms_V_all.deb              the module's source under /usr/src/sroce-V,
#                                     built and installed by DKMS (depends on dkms)
#   ibverbs-provider-sroce_V_ARCH.deb libsroce-rdmav34.so and sroce.driver where
#                                     Debian's libibverbs looks for providers
# They are built with dpkg-deb inside the cached Debian 13 root (the
# provider against its rdma-core 56.1, scripts/build-provider.sh), from the
# templates beside this script. The version is VERSION's, plus
# +git<commits>.<hash> when HEAD is not the tag v<VERSION>, so that every
# rebuilt commit installs over the one before.
set -euo pipefail
. "$(dirname "$0")/../lib/common.sh"

pkg=$SROCE_TOP/scripts/pkg
out=$SROCE_BUILD/deb

# The inside part (run in the root by in_root, the tree at /src).
if [ "${1:-}" = --in-root ]; then
	version=$2 top=/src
	out=$top/build/deb stage=$top/build/deb/stage
	rm -rf "$stage" && mkdir -p "$stage"
	fill() { sed -e "s|@VERSION@|$version|g" -e "s|@ARCH@|${arch:-}|g" -e "s|@DEPENDS@|${depends:-}|g" "$@"; }
	md5sums() { (cd "$1" && find . -path ./DEBIAN -prune -o -type f -printf '%P\0' |
		sort -z | xargs -0 md5sum >DEBIAN/md5sums); }

	# sroce-dkms: the repository's layout, only the files the module needs.
	d=$stage/sroce-dkms src=$stage/sroce-dkms/usr/src/sroce-$version
	mkdir -p "$src" "$d/DEBIAN" "$d/usr/share/doc/sroce-dkms"
	(cd "$top" && find kernel include/uapi -type f \( -name '*.[ch]' -o -name Kbuild -o -name Makefile \) \
		! -name '*.mod.c' -print0 | sort -z | xargs -0 cp --parents -t "$src")
	echo "$version" >"$src/VERSION"
	fill "$pkg/dkms.conf" >"$src/dkms.conf"
	fill "$pkg/sroce-dkms.control" >"$d/DEBIAN/control"
	for s in postinst prerm; do
		fill "$pkg/sroce-dkms.$s" >"$d/DEBIAN/$s"
		chmod 755 "$d/DEBIAN/$s"
	done
	cp "$pkg/copyright" "$d/usr/share/doc/sroce-dkms/"
	md5sums "$d"

	# ibverbs-provider-sroce: libibverbs loads <name>-rdmav<private ABI>.so
	# from its provider directory for each <name> listed in
	# /etc/libibverbs.d/*.driver.
	arch=$(dpkg --print-architecture) multiarch=$(dpkg-architecture -qDEB_HOST_MULTIARCH)
	d=$stage/ibverbs-provider-sroce
	mkdir -p "$d/DEBIAN" "$d/usr/lib/$multiarch/libibverbs" "$d/etc/libibverbs.d" \
		"$d/usr/share/doc/ibverbs-provider-sroce"
	set -- "$top"/build/provider/libsroce-rdmav*.so
	[ $# = 1 ] && [ -e "$1" ] || { echo "expected one build/provider/libsroce-rdmav*.so"; exit 1; }
	so=$d/usr/lib/$multiarch/libibverbs/$(basename "$1")
	install -m 644 "$1" "$so"
	strip --strip-unneeded --remove-section=.comment --remove-section=.note "$so"
	# The build's RUNPATH (rdma-core's build tree, for its own tests) must
	# not ship: the system's libibverbs is the one to use.
	echo 'file(RPATH_REMOVE FILE "${SO}")' >"$stage/rpath.cmake"
	cmake -DSO="$so" -P "$stage/rpath.cmake" >/dev/null
	install -m 644 "$top/build/provider/sroce.driver" "$d/etc/libibverbs.d/"
	echo /etc/libibverbs.d/sroce.driver >"$d/DEBIAN/conffiles"
	cp "$pkg/copyright" "$d/usr/share/doc/ibverbs-provider-sroce/"
	# The libraries it links (dpkg-shlibdeps wants a debian/control, even
	# an empty one). libibverbs1 at least the rdma-core it was built
	# against: a provider uses libibverbs' private ABI, whose structures
	# the symbols file does not track.
	mkdir -p "$stage/shl/debian" && touch "$stage/shl/debian/control"
	depends=$(cd "$stage/shl" && dpkg-shlibdeps -O -e "$so" 2>/dev/null |
		sed -n 's/^shlibs:Depends=//p')
	[ -n "$depends" ] || { echo "dpkg-shlibdeps found no dependencies"; exit 1; }
	depends=$(echo "$depends" | sed "s/libibverbs1 ([^)]*)/libibverbs1 (>= ${RDMA_CORE_VERSION%%.*})/")
	fill "$pkg/ibverbs-provider-sroce.control" >"$d/DEBIAN/control"
	md5sums "$d"

	for p in sroce-dkms:all ibverbs-provider-sroce:$arch; do
		dpkg-deb --root-owner-group --build "$stage/${p%:*}" \
			"$out/${p%:*}_${version}_${p#*:}.deb" >/dev/null
	done
	rm -rf "$stage"
	exit 0
fi

version=$(cat "$SROCE_TOP/VERSION")
if git -C "$SROCE_TOP" rev-parse -q --verify HEAD >/dev/null 2>&1 &&
   [ "$(git -C "$SROCE_TOP" describe --tags --exact-match 2>/dev/null)" != "v$version" ]; then
	version=$version+git$(git -C "$SROCE_TOP" rev-list --count HEAD).$(git -C "$SROCE_TOP" rev-parse --short=7 HEAD)
fi
rm -rf "$out" && mkdir -p "$out"
"$SROCE_TOP/scripts/build-provider.sh"
in_root bash /src/scripts/pkg/mkdeb.sh --in-root "$version" ||
	die "making the packages failed"
log "packages: $(cd "$out" && echo *.deb)"
