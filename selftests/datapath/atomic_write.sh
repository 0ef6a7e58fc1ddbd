#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Data-path acceptance test: build/selftests/dp_atomic_write
# (selftests/datapath/atomic_write.c): RDMA ATOMIC WRITE and RDMA FLUSH.
# Run one case alone: atomic_write.sh -t <name>; list them: atomic_write.sh -l.
. "$(dirname "$0")/dp_lib.sh"
dp_prog atomic_write "$@"
