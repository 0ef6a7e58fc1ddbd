#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# ibv_ud_pingpong between the two ends over the IPv4 and IPv6 GIDs (-c);
# 512-byte messages fit any path MTU.
. "$(dirname "$0")/dp_lib.sh"
dp_pingpong ibv_ud_pingpong -n 100 -s 512 -c
