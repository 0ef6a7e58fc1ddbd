#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# ibv_srq_pingpong (4 QPs on one SRQ) between the two ends over the IPv4
# and IPv6 GIDs (-c).
. "$(dirname "$0")/dp_lib.sh"
dp_pingpong ibv_srq_pingpong -q 4 -n 50 -c
