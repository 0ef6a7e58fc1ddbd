#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# ../atomic.sh against the kernel's rdma_rxe (the reference), both ends on rxe0.
DP_TARGET=rxe exec bash "$(dirname "$0")/../atomic.sh" "$@"
