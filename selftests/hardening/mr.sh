#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# An MR deregistered, or the window its key names invalidated, while an
# RDMA WRITE or READ through it is in progress: the rest of the message
# fails (RC NAK + QP error, UC dropped) and ibv_dereg_mr never waits for
# the peer (seed-rules R3.4, R3.5, R3.7): build/selftests/hard_mr
# (hardening/hard_mr.c). Run one case alone: mr.sh -t <name>; list: -l.
. "$(dirname "$0")/../errors/err_lib.sh"
dp_prog hard_mr "$@"
