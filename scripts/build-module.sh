#!/bin/bash
# Build kernel/sroce.ko against Debian 13's linux-headers with the compiler
# that kernel was built with (gcc 14), inside the cached Debian 13 root.
# make KDIR=... at the top level bypasses this for any other kernel tree.
set -euo pipefail
. "$(dirname "$0")/lib/common.sh"

"$SROCE_TOP/scripts/mkroot.sh"
in_root sh -c 'cd /src/kernel && make -s KDIR=$(ls -d /usr/src/linux-headers-*-amd64 | head -1)' ||
	die "module build failed"
mkdir -p "$SROCE_BUILD/kernel"
cp "$SROCE_TOP/kernel/sroce.ko" "$SROCE_BUILD/kernel/"
