#!/bin/bash
# Build the guest selftests' C programs against Debian 13's libibverbs
# (rdma-core 56.1), and the kernel-side test modules (selftests/kmod/)
# against Debian 13's linux-headers, inside the cached root. Output:
# build/selftests/.
set -euo pipefail
. "$(dirname "$0")/lib/common.sh"

"$SROCE_TOP/scripts/mkroot.sh"
in_root make -s -C /src/selftests OUTPUT=/src/build/selftests || die "selftests build failed"
in_root sh -c 'cd /src/selftests/kmod && make -s KDIR=$(ls -d /usr/src/linux-headers-*-amd64 | head -1)' ||
	die "test module build failed"
cp "$SROCE_TOP"/selftests/kmod/*.ko "$SROCE_BUILD/selftests/"
