#!/bin/bash
# The Debian 13 packages that `apt install ./build/deb/*.deb` pulls in and
# the guest image lacks (dkms, and what it recommends), as a local apt
# repository in build/deb-deps/ (a Packages index beside the .debs): the
# guest has no network, so selftests/device/install.sh points apt at it,
# as an offline machine would use a local mirror. Downloaded once, inside
# the cached root but against the image's package list (the root may have
# gained build tools since), and cached per image and per the packages'
# dependencies. Run after scripts/pkg/mkdeb.sh.
set -euo pipefail
. "$(dirname "$0")/../lib/common.sh"

rm -rf "$SROCE_BUILD/deb-deps"
debs=("$SROCE_BUILD"/deb/sroce-dkms_*_all.deb "$SROCE_BUILD"/deb/ibverbs-provider-sroce_*.deb)
[ -e "${debs[0]}" ] && [ -e "${debs[1]}" ] || die "no packages in build/deb: run make deb"
"$SROCE_TOP/scripts/vm/mkimage.sh"

key=$({
	stat -c '%Y %s' "$SROCE_IMAGE"
	for f in "${debs[@]}"; do dpkg-deb -f "$f" Depends Recommends; done
} | md5sum | cut -c1-12)
cache=$SROCE_CACHE/deb-deps/$key
if [ ! -e "$cache/Packages" ]; then
	log "downloading the packages the offline install test needs (dkms)"
	# Another image's or dependencies' set is stale (a few MB each).
	find "$SROCE_CACHE/deb-deps" -mindepth 1 -maxdepth 1 -mmin +60 -exec rm -rf {} + 2>/dev/null || true
	mkdir -p "$cache/partial"
	st=image-status.$$	# this run's: another may be at the same step
	debugfs -R 'cat /var/lib/dpkg/status' "$SROCE_IMAGE" >"$cache/$st" 2>/dev/null
	grep -q '^Package: libibverbs1$' "$cache/$st" || die "cannot read the image's dpkg status"
	names=$(printf '/src/build/deb/%s ' "${debs[@]##*/}")
	dl="apt-get install -y -q --download-only -o Dir::State::status=/cache/deb-deps/$key/$st \
		-o Dir::Cache::archives=/cache/deb-deps/$key $names"
	in_root sh -c "{ $dl || { apt-get update -q && $dl; }; } >/cache/deb-deps/$key/apt.log 2>&1 &&
		cd /cache/deb-deps/$key && rm -rf partial lock lock-frontend $st sroce-dkms_* ibverbs-provider-sroce_* &&
		dpkg-scanpackages -m . >Packages 2>/dev/null" ||
		{ tail -20 "$cache/apt.log"; rm -rf "$cache"; die "downloading the packages failed"; }
fi
cp -r "$cache" "$SROCE_BUILD/deb-deps"
log "build/deb-deps: $(cd "$SROCE_BUILD/deb-deps" && echo *.deb)"
