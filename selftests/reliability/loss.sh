#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# RC/UC loss paths with deterministic drops: build/selftests/rel_loss
# (selftests/reliability/loss.c). One case: loss.sh -t <name>; list: -l.
. "$(dirname "$0")/rel_lib.sh"
rel_prog loss "$@"
