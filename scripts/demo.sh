#!/bin/bash
# make demo: set up everything on a fresh Debian machine, build, boot the
# guest, load sroce, create a device in each of two namespaces and show
# them (ibv_devinfo); then run stock verbs tools across them where the data
# path supports them.
set -euo pipefail
. "$(dirname "$0")/lib/common.sh"

"$SROCE_TOP/scripts/host-deps.sh"
"$SROCE_TOP/scripts/build-module.sh"
"$SROCE_TOP/scripts/build-provider.sh"
"$SROCE_TOP/scripts/build-selftests.sh"
exec "$SROCE_TOP/scripts/vm/run-qemu.sh" -t 1200 scripts/demo-guest.sh
