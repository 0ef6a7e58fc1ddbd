#!/bin/bash
# Install the benchmark's extra packages (linux-perf for profiling in the
# guest, gnuplot-nox for the chart) into the existing cached Debian 13 root.
# Incremental on purpose: the root is shared by every build and guest run,
# so it is never rebuilt for this; the packages are added in place under the
# root's lock, and the stamp below (newer than guest.ext4) makes
# scripts/vm/mkimage.sh rebuild the guest image once.
set -euo pipefail
. "$(dirname "$0")/lib/common.sh"

EXTRA_PKGS="linux-perf gnuplot-nox"
STAMP_NAME=.sroce-root-extras-v1

"$SROCE_TOP/scripts/mkroot.sh"
[ -e "$SROCE_ROOT/$STAMP_NAME" ] && exit 0
log "adding $EXTRA_PKGS to the cached root"
# The stamp is checked again under the lock: another user may have just
# installed them, and touching it again would rebuild the image for nothing.
in_root sh -c "
	[ -e /$STAMP_NAME ] && exit 0
	missing=
	for p in $EXTRA_PKGS; do
		dpkg-query -W -f='\${Status}' \$p 2>/dev/null | grep -q 'ok installed' ||
			missing=\"\$missing \$p\"
	done
	if [ -n \"\$missing\" ]; then
		apt-get install -y -q --no-install-recommends \$missing ||
			{ apt-get update -q && apt-get install -y -q --no-install-recommends \$missing; } ||
			exit 1
		apt-get clean
	fi
	touch /$STAMP_NAME" >"$SROCE_CACHE/root-extras.log" 2>&1 || {
	tail -30 "$SROCE_CACHE/root-extras.log"; die "installing $EXTRA_PKGS failed"; }
