#!/bin/bash
# Install what the host needs from Debian's mirror (the host is Debian 12;
# Debian 13 packages only ever go into the debootstrap'ed root).
set -euo pipefail
. "$(dirname "$0")/lib/common.sh"

HOST_PKGS="debootstrap qemu-system-x86 e2fsprogs cpio xz-utils zstd gcc make
clang curl ca-certificates util-linux"
missing=""
for p in $HOST_PKGS; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing="$missing $p"
done
[ -z "$missing" ] && exit 0
[ "$(id -u)" = 0 ] || die "need root to install:$missing"
log "installing host packages:$missing"
export DEBIAN_FRONTEND=noninteractive
apt-get update -q >/dev/null
# shellcheck disable=SC2086
apt-get install -y -q --no-install-recommends $missing >/dev/null
