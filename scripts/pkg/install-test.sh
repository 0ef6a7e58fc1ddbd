#!/bin/bash
# The packages installed as README's "Install on your machine" says, on a
# copy of the guest's Debian 13 system: an overlay on the cached root
# (the image is made from it), so nothing stays. Offline, apt installs
# build/deb's two packages with dkms from build/deb-deps (the packages the
# image lacks, scripts/pkg/offline-deps.sh); DKMS builds sroce.ko for the
# guest kernel, whose headers the root has; then `apt purge` must leave
# nothing behind. This runs at the host's speed: DKMS's compile under TCG
# took 18 minutes of a guest. The module DKMS built is kept in
# build/install/ for selftests/device/install.sh, which loads it in a
# guest with modprobe and runs traffic over it.
#   scripts/pkg/install-test.sh     results: build/install/install.ktap
set -uo pipefail
. "$(dirname "$0")/../lib/common.sh"

out=$SROCE_BUILD/install
ktap=$out/install.ktap
PKGS="sroce-dkms ibverbs-provider-sroce"
rm -rf "$out"
mkdir -p "$out"
n=0 failed=0
{ echo "TAP version 13"; echo "1..6"; } >"$ktap"
result() {	# result OK|FAIL NAME [DETAIL]
	n=$((n + 1))
	if [ "$1" = OK ]; then echo "ok $n $2" >>"$ktap"
	else
		[ -n "${3:-}" ] && printf '%s\n' "$3" | sed 's/^/# /' >>"$ktap"
		echo "not ok $n $2" >>"$ktap"
		failed=1
	fi
}
finish() {
	while [ $n -lt 6 ]; do result FAIL "not reached"; done
	grep -E "^(not )?ok|^# " "$ktap"
	exit $failed
}

set -- "$SROCE_BUILD"/deb/sroce-dkms_*_all.deb
[ -e "$1" ] && [ -e "$SROCE_BUILD/deb-deps/Packages" ] || {
	result FAIL "packages" "no build/deb or build/deb-deps: run scripts/pkg/mkdeb.sh and offline-deps.sh"
	finish
}
version=$(dpkg-deb -f "$1" Version)
"$SROCE_TOP/scripts/mkroot.sh" || die "the Debian 13 root"
kver=$(ls "$SROCE_ROOT/lib/modules")
[ "$(echo "$kver" | wc -w)" = 1 ] && [ -d "$SROCE_ROOT/lib/modules/$kver/build" ] ||
	die "the root should have one kernel with its headers, has: $kver"

# The overlay: the root is the read-only lower layer (its lock is held, so
# nothing changes it meanwhile); writes go to $ovl/upper, removed after.
# Commands run in it through in_root (lib/common.sh) with the overlay as
# the root and a lock of its own.
ovl=$(mktemp -d "$SROCE_CACHE/install-ovl.XXXXXX")
m=$ovl/merged
cleanup() {
	mountpoint -q "$m" && umount -l "$m"
	rm -rf "$ovl"
}
trap cleanup EXIT
exec 8>"$SROCE_CACHE/root.lock"	# in_root's own lock is on fd 9
flock 8
mkdir -p "$ovl/upper" "$ovl/work" "$m"
mount -t overlay overlay -o "lowerdir=$SROCE_ROOT,upperdir=$ovl/upper,workdir=$ovl/work" "$m" ||
	die "cannot mount an overlay on the root"
run() {	# run CMD...: in the overlay, as a fresh login would
	SROCE_ROOT=$m SROCE_ROOT_LOCK=$ovl/lock in_root "$@"
}
# What the packages may leave behind.
leftovers() {
	run sh -c "find /lib/modules -name 'sroce.ko*'
		ls -d /usr/src/sroce-* /var/lib/dkms/sroce /usr/lib/x86_64-linux-gnu/libibverbs/libsroce* \
			/etc/libibverbs.d/sroce.driver /usr/share/doc/sroce-dkms \
			/usr/share/doc/ibverbs-provider-sroce 2>/dev/null
		command -v dkms >/dev/null && dkms status
		dpkg-query -W -f='\${binary:Package} \${db:Status-Status}\n' $PKGS 2>/dev/null |
			grep -v ' not-installed\$'
		true"
}

# apt's only source: the local repository, as on an offline machine.
run sh -c 'rm -f /etc/apt/sources.list.d/*; echo "deb [trusted=yes] file:/src/build/deb-deps ./" >/etc/apt/sources.list'
left=$(leftovers)
[ -z "$left" ] || { result FAIL "nothing of sroce installed before" "$left"; finish; }
t0=$SECONDS
run sh -c "apt-get update -q && cd /src && apt-get install -y ./build/deb/*.deb" >"$out/apt-install.log" 2>&1
rc=$?
log "apt install of build/deb/*.deb on the root's overlay: exit $rc, $((SECONDS - t0)) s"
if [ $rc = 0 ]; then result OK "apt install ./build/deb/*.deb (offline, dkms from build/deb-deps)"
else result FAIL "apt install ./build/deb/*.deb" "$(tail -30 "$out/apt-install.log")"; finish
fi

# DKMS built and installed it for the guest kernel: one module, in updates/dkms.
st=$(run dkms status -m sroce -v "$version" -k "$kver")
ko=$(run find /lib/modules -name 'sroce.ko*')
if grep -q ': installed' <<<"$st" && [ "$(echo "$ko" | wc -l)" = 1 ] &&
	[[ $ko == /lib/modules/$kver/updates/dkms/sroce.ko* ]]; then
	result OK "dkms installed sroce/$version for $kver"
else
	result FAIL "dkms installed sroce/$version for $kver" "dkms status: $st
modules on disk: $ko
$(grep -iE 'dkms|error|kernel' "$out/apt-install.log" | tail -20)"
fi

# modprobe's view: the name resolves to that file, with the package's version.
mv=$(run modinfo -k "$kver" -F version sroce 2>&1)
mf=$(run modinfo -k "$kver" -n sroce 2>&1)
if [ "$mv" = "$version" ] && [ "$mf" = "$ko" ]; then
	result OK "modinfo -k $kver sroce: version $version, $mf"
else
	result FAIL "modinfo -k $kver sroce" "version '$mv' (package $version), file '$mf'"
fi

# libibverbs' view: the provider and its driver file.
if run test -e /usr/lib/x86_64-linux-gnu/libibverbs/libsroce-rdmav34.so &&
	run grep -qx 'driver sroce' /etc/libibverbs.d/sroce.driver; then
	result OK "the provider package installed libsroce and sroce.driver"
else
	result FAIL "the provider package installed libsroce and sroce.driver"
fi

# For the guest: the module DKMS built (device/install.sh loads it).
[ -n "$ko" ] && cp "$m$ko" "$out/" && echo "$kver ${ko##*/}" >"$out/module"

# shellcheck disable=SC2086
run apt-get purge -y $PKGS >"$out/apt-purge.log" 2>&1
rc=$?
if [ $rc = 0 ]; then result OK "apt purge $PKGS"
else result FAIL "apt purge $PKGS" "$(tail -20 "$out/apt-purge.log")"
fi
left=$(leftovers)
if [ -z "$left" ]; then result OK "apt purge left nothing behind"
else result FAIL "apt purge left nothing behind" "$left"
fi
finish
