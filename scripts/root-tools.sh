#!/bin/bash
# Install the static checkers' packages (sparse, for make C=2) into the
# existing cached Debian 13 root. Incremental on purpose, as
# scripts/root-extras.sh: the root is shared by every build and guest run, so
# it is never rebuilt for this; the packages are added in place under the
# root's lock. Cheap when done: one stat of the stamp below.
# The stamp is not named .sroce-root-*: these are build-time tools the guest
# never runs, so they must not make scripts/vm/mkimage.sh rebuild the image.
set -euo pipefail
. "$(dirname "$0")/lib/common.sh"

TOOLS_PKGS="sparse"
STAMP_NAME=.sroce-tools-v1

"$SROCE_TOP/scripts/mkroot.sh"
[ -e "$SROCE_ROOT/$STAMP_NAME" ] && exit 0
log "adding $TOOLS_PKGS to the cached root"
# Checked again under the lock: another user may have just installed them.
in_root sh -c "
	[ -e /$STAMP_NAME ] && exit 0
	missing=
	for p in $TOOLS_PKGS; do
		dpkg-query -W -f='\${Status}' \$p 2>/dev/null | grep -q 'ok installed' ||
			missing=\"\$missing \$p\"
	done
	if [ -n \"\$missing\" ]; then
		apt-get install -y -q --no-install-recommends \$missing ||
			{ apt-get update -q && apt-get install -y -q --no-install-recommends \$missing; } ||
			exit 1
		apt-get clean
	fi
	touch /$STAMP_NAME" >"$SROCE_CACHE/root-tools.log" 2>&1 || {
	tail -30 "$SROCE_CACHE/root-tools.log"; die "installing $TOOLS_PKGS failed"; }
