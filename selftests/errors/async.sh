#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Asynchronous events (seed-rules R3.1, R3.9): build/selftests/err_async.
# Run one case alone: async.sh -t <name>; list them: async.sh -l.
. "$(dirname "$0")/err_lib.sh"
dp_prog err_async "$@"
