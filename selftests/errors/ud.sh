#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# UD silent drops (wrong P_Key injected, wrong Q_Key) counted, and the
# privileged Q_Key (seed-rules R1.5): build/selftests/err_ud
# (errors/err_ud.c). Run one case alone: ud.sh -t <name>; list: ud.sh -l.
. "$(dirname "$0")/err_lib.sh"
dp_prog err_ud "$@"
