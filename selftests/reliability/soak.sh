#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# RC SEND/WRITE/READ/ATOMIC under netem duplication, reordering and 1%, 5%
# and 10% random loss, every byte and every atomic checked:
# build/selftests/rel_soak (selftests/reliability/soak.c).
# Longer: SOAK_BATCHES=200 soak.sh; one case: soak.sh -t loss_5pct.
. "$(dirname "$0")/rel_lib.sh"
rel_prog soak "$@"
