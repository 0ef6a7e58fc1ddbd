#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# ibv_rc_pingpong between the two ends (server A, client B over TCP), over
# the IPv4 and IPv6 GIDs, received buffers validated (-c): exits 0.
. "$(dirname "$0")/dp_lib.sh"
dp_pingpong ibv_rc_pingpong -n 100 -c
