#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Guest entry point of the kernel matrix (scripts/matrix/matrix.sh): the
# core subset of selftests/matrix/tests.list on a matrix cell's kernel
# (run-qemu.sh -k CELL), results in build/matrix/CELL/guest.ktap.
#   run.sh [FILTER...]   (as selftests/run_guest.sh's)
cd "$(dirname "$0")/.." || exit 1
cell=${SROCE_KERNEL:-stock}
case $cell in
stock | debug) echo "# not a matrix cell's kernel (run-qemu.sh -k CELL)"; exit 1 ;;
esac
echo "# kernel $(uname -r), cell $cell"
KTAP_OUT=$(cd .. && pwd)/build/matrix/$cell/guest.ktap exec bash ./run_guest.sh selftests/matrix/tests.list "$@"
