#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Memory windows, LOCAL_INV and SEND_WITH_INV with their errors, both sides
# checked (seed-rules R3.1, R3.2, R3.4, R3.5, R5.1): build/selftests/err_mw
# (errors/err_mw.c). Run one case alone: mw.sh -t <name>; list: mw.sh -l.
. "$(dirname "$0")/err_lib.sh"
dp_prog err_mw "$@"
