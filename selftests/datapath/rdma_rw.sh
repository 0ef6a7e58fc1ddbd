#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Data-path acceptance test: build/selftests/dp_rdma_rw (selftests/datapath/rdma_rw.c).
# Run one case alone: rdma_rw.sh -t <name>; list them: rdma_rw.sh -l.
. "$(dirname "$0")/dp_lib.sh"
dp_prog rdma_rw "$@"
