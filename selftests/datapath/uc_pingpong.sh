#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# ibv_uc_pingpong between the two ends over the IPv4 and IPv6 GIDs (-c).
. "$(dirname "$0")/dp_lib.sh"
dp_pingpong ibv_uc_pingpong -n 100 -c
