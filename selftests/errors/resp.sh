#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Responder-side failures and protection checks, both sides checked
# (seed-rules R3.4, R3.5): build/selftests/err_resp (errors/err_resp.c).
# Run one case alone: resp.sh -t <name>; list them: resp.sh -l.
. "$(dirname "$0")/err_lib.sh"
dp_prog err_resp "$@"
