#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Run one data-path test (a script under selftests/, with its arguments)
# against the kernel's rdma_rxe instead of sroce, e.g. one case alone:
#   scripts/vm/run-qemu.sh selftests/on_rxe.sh datapath/send_recv.sh -t UD_SEND_v6
# (run_guest.sh --target rxe runs the tests tagged rxe in tests.list so).
[ $# -ge 1 ] || { echo "usage: $0 TEST.sh [args]"; exit 1; }
t=$1
shift
DP_TARGET=rxe exec bash "$(dirname "$0")/$t" "$@"
