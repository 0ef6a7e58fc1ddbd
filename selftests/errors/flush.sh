#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Errors move QPs to ERROR or SQE and flush (seed-rules R3.2, R3.3); bad
# posts fail at once with mlx5's errnos (R3.8): build/selftests/err_flush.
# Run one case alone: flush.sh -t <name>; list them: flush.sh -l.
. "$(dirname "$0")/err_lib.sh"
dp_prog err_flush "$@"
