#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Object limits of query_device enforced (ENOMEM past them), user queue
# memory charged to the memory cgroup (ENOMEM, no OOM kill, no leak), ODP
# MR size and implicit-ODP children bounded: build/selftests/hard_limits
# (hardening/hard_limits.c). Run one case alone: limits.sh -t <name>.
. "$(dirname "$0")/../errors/err_lib.sh"
dp_prog hard_limits "$@"
