#!/bin/bash
# Build the guest selftests' C programs against Debian 13's libibverbs
# (rdma-core 56.1) inside the cached root. Output: build/selftests/.
set -euo pipefail
. "$(dirname "$0")/lib/common.sh"

"$SROCE_TOP/scripts/mkroot.sh"
in_root make -s -C /src/selftests OUTPUT=/src/build/selftests || die "selftests build failed"
