#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# The data path at path MTU 4096: rdma_rw.sh's cases (RC and UC WRITE, RC
# READ, IPv4 and IPv6, messages up to 16 MiB, every byte compared) with
# the veths at MTU 9000. Each full packet is then 4096 bytes of payload,
# and its skb is built on a page of the transmit pool
# (kernel/sroce_txpool.c), which the receiver's free returns for reuse.
# Run one case alone: jumbo.sh -t <name>; list them: jumbo.sh -l.
. "$(dirname "$0")/dp_lib.sh"

export TOPO_MTU=9000

# Both ports offer path MTU 4096, which the programs connect with.
# shellcheck disable=SC2317  # dp_run calls it (DP_UP_CHECK)
active_4096() {
	local d
	for d in "$DEV_A" "$DEV_B"; do
		[ "$(devinfo_field "$d" active_mtu | cut -d' ' -f1)" = 4096 ] || {
			info "$d: active_mtu $(devinfo_field "$d" active_mtu), want 4096"
			return 1
		}
	done
}
DP_UP_CHECK=active_4096 dp_prog rdma_rw "$@"
