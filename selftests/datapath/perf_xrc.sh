#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# perftest's XRC mode (-c XRC: XRC domain, SRQ, initiator and target QPs)
# for send, write and read bandwidth between the two ends (IPv4 GID).
. "$(dirname "$0")/dp_lib.sh"
dp_perftest "ib_send_bw ib_write_bw ib_read_bw" XRC -- -n 50 -s 4096
