#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# More READ/ATOMIC in flight than the responder's max_dest_rd_atomic
# (seed-rules R2.7, R3.4): responder QP_ACCESS_ERR, requester
# REM_INV_REQ_ERR; equal limits never fail. build/selftests/err_rdatomic
# (errors/err_rdatomic.c). One case: rd_atomic.sh -t <name>; list: -l.
. "$(dirname "$0")/err_lib.sh"
dp_prog err_rdatomic "$@"
