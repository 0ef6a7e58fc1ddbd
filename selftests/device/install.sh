#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# The guest half of the install test. scripts/pkg/install-test.sh (make
# check runs it before the guests) installs build/deb's packages with apt
# on an overlay of the guest's system, offline, has DKMS build sroce.ko for
# this kernel and checks what apt purge leaves; it keeps the module DKMS
# built in build/install/. Here that module goes where DKMS installs it,
# with the provider package (dpkg), and `modprobe sroce` must find it
# without a path, libibverbs must find libsroce, and ibv_rc_pingpong and
# ib_write_bw must run between the two test namespaces; then both go and
# nothing is left. DKMS's compile is not redone here: under TCG it took
# 18 minutes.
# What run_guest.sh set up (libsroce copies) is put aside and restored,
# and the module unloaded, for the tests that follow.
. "$(dirname "$0")/../datapath/dp_lib.sh"

DEB=$BUILD/deb
PROV=ibverbs-provider-sroce
set -- "$DEB"/sroce-dkms_*_all.deb
[ -e "$1" ] || fail "no build/deb/sroce-dkms_*.deb: run make deb"
version=$(dpkg-deb -f "$1" Version)
kver=$(uname -r)
read -r mkver mfile <"$BUILD/install/module" 2>/dev/null ||
	fail "no build/install/module: run scripts/pkg/install-test.sh (make check does)"
[ "$mkver" = "$kver" ] || fail "build/install/ holds a module built for $mkver, not $kver"
dest=/lib/modules/$kver/updates/dkms
libdir=/usr/lib/x86_64-linux-gnu/libibverbs
aside=$(mktemp -d)

# Every sroce.ko under /lib/modules (none is there outside this test: the
# other tests insmod build/kernel/sroce.ko).
modules_on_disk() { find /lib/modules -name 'sroce.ko*' 2>/dev/null; }
leftovers() {
	modules_on_disk
	ls -d "$libdir"/libsroce* /etc/libibverbs.d/sroce.driver /usr/share/doc/$PROV 2>/dev/null
	dpkg-query -W -f='${binary:Package} ${db:Status-Status}\n' $PROV 2>/dev/null |
		grep -v ' not-installed$'
	return 0
}

restore() {
	devs_down
	topo_down
	sroce_unload
	# Removed also when the test failed half-way.
	[ -e "$dest/$mfile" ] && rm -f "$dest/$mfile" && depmod -a "$kver"
	dpkg-query -W -f='${db:Status-Status}' $PROV 2>/dev/null | grep -qvx 'not-installed' &&
		dpkg --purge $PROV >/dev/null 2>&1
	[ -e "$aside/libs" ] && cp -a "$aside/libs/." "$libdir/"
	[ -e "$aside/sroce.driver" ] && mv -f "$aside/sroce.driver" /etc/libibverbs.d/
	rm -rf "$aside"
}
trap restore EXIT

dmesg_mark
devs_down
sroce_unload || fail "cannot unload the sroce loaded before"
mkdir -p "$aside/libs"
mv "$libdir"/libsroce* "$aside/libs/" 2>/dev/null
mv /etc/libibverbs.d/sroce.driver "$aside/" 2>/dev/null
[ -z "$(leftovers)" ] || { leftovers | sed 's/^/# before: /'; fail "sroce already installed"; }

info "dpkg -i the provider package; DKMS's sroce.ko into $dest"
dpkg -i "$DEB"/${PROV}_"${version}"_amd64.deb 2>&1 | sed 's/^/# dpkg: /'
[ "${PIPESTATUS[0]}" = 0 ] || fail "dpkg -i $PROV"
[ -e "$libdir/libsroce-rdmav34.so" ] && [ -e /etc/libibverbs.d/sroce.driver ] ||
	fail "the provider package did not install libsroce and sroce.driver"
mkdir -p "$dest"
install -m 644 "$BUILD/install/$mfile" "$dest/" || fail "copying the module"
depmod -a "$kver" || fail "depmod"
[ "$(modinfo -F version sroce)" = "$version" ] ||
	fail "modinfo sroce: version $(modinfo -F version sroce), not $version"

info "modprobe sroce"
modprobe sroce || fail "modprobe sroce"
[ "$(cat /sys/module/sroce/version)" = "$version" ] ||
	fail "loaded sroce is version $(cat /sys/module/sroce/version), not the package's $version"

info "rdma link add (two namespaces)"
topo_up || fail "topology"
devs_up || fail "rdma link add"
DEV_A=sroce_a DEV_B=sroce_b
# shellcheck disable=SC2034 # read by dp_pair_tool (datapath/dp_lib.sh)
NS_EXEC_A="ip netns exec $NS_A" NS_EXEC_B="ip netns exec $NS_B"
A4=$IP4_A B4=$IP4_B
for d in "$DEV_A $A4" "$DEV_B $B4"; do
	# shellcheck disable=SC2086
	wait_for 30 gid_index $d >/dev/null || fail "no RoCE v2 GID for $d"
done
ibv_devices | sed 's/^/# /'
ibv_devinfo -d sroce_a >/dev/null 2>&1 || fail "libibverbs does not open sroce_a (provider?)"

dp_pair_tool 4 -g 18515 ibv_rc_pingpong -n 100 -c || fail "ibv_rc_pingpong"
# perftest can fail its clock calibration under TCG ("Can't produce a
# report", datapath/dp_lib.sh dp_perftest); retried, and never a pass.
bw=fail
for try in 1 2 3; do
	if dp_pair_tool 4 -x $((18600 + try)) ib_write_bw -c RC -F -n 50; then
		bw=ok
		break
	fi
	grep -q "produce a report" <<<"$DP_LOG" && ! grep -qiE "failed|error|couldn't|unable" <<<"$DP_LOG" ||
		fail "ib_write_bw"
	bw=calibration
done
[ $bw = ok ] || fail "ib_write_bw ran but could not produce a report in 3 attempts (TCG clock)"

devs_down
topo_down
info "modprobe -r sroce"
modprobe -r sroce || fail "modprobe -r sroce"

info "remove the module and the provider"
rm -f "$dest/$mfile"
depmod -a "$kver" || fail "depmod"
dpkg --purge $PROV 2>&1 | sed 's/^/# dpkg: /'
[ "${PIPESTATUS[0]}" = 0 ] || fail "dpkg --purge $PROV"
left=$(leftovers)
[ -z "$left" ] || { echo "$left" | sed 's/^/# left: /'; fail "files left behind"; }
modprobe -n sroce 2>/dev/null && fail "modprobe still finds sroce"
check_dmesg
exit 0
