#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Work queues whose producer index user space corrupted: SRQ_ERR and
# QP_FATAL (seed-rules R3.9): build/selftests/err_ring (errors/err_ring.c).
# Run one case alone: ring.sh -t <name>; list them: ring.sh -l.
. "$(dirname "$0")/err_lib.sh"
dp_prog err_ring "$@"
