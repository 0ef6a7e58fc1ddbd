#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# RC and UC packets with a wrong P_Key (injected with net/roce_pkt.py) are
# dropped silently and counted (IBA 10.9.3, seed-rules R1.5 as for UD):
# build/selftests/err_pkey (errors/err_pkey.c). One case: pkey.sh -t <name>.
. "$(dirname "$0")/err_lib.sh"
dp_prog err_pkey "$@"
