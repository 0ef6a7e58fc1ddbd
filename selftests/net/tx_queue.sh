#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# A QP's packets leave a multi-queue netdev through one TX queue, whatever
# CPU its engines run on (kernel/sroce_xmit.c, sroce_tx_queue_by_flow()).
# Such netdevs pick the queue by the sending CPU (XPS: mlx5, ice and
# virtio-net set it up so), their queues reach the wire independently, and
# a QP's packets spread over two queues can leave out of order, which an
# RNIC never does (seed-rules R2.5: a request ahead of the expected PSN
# is a sequence error, NAKed and sent again).
#
# veth_a and veth_b get two TX queues each, XPS sending CPU 0's packets
# through tx-0 and CPU 1's through tx-1. ibv_rc_pingpong runs 4 KiB
# messages (IPv4 GID, then IPv6) while the script moves the client from
# one CPU to the other every 0.2 s. The tracepoint net:net_dev_start_xmit
# records every skb handed to a veth, with its CPU and queue. A RoCE data
# packet or GSO skb is the only thing longer than 1000 bytes there (ACKs,
# ARP and ibv_rc_pingpong's TCP exchange are shorter). For each veth, its data
# skbs:
#   - were sent from both CPUs, so that XPS alone would have put them in
#     two queues (else the run proved nothing and the test fails);
#   - all went through one queue.
. "$(dirname "$0")/../datapath/dp_lib.sh"

T=/sys/kernel/tracing
EV=$T/events/net/net_dev_start_xmit
mover=
cleanup() {
	[ -n "$mover" ] && kill "$mover" 2>/dev/null
	wait 2>/dev/null
	echo 0 >$EV/enable 2>/dev/null
	echo 0 >$EV/filter 2>/dev/null
	dp_down
}
bad() { cleanup; fail "$@"; }

[ "$(nproc)" -ge 2 ] || skip "needs two CPUs"
export TOPO_QUEUES=2
dmesg_mark
dp_up
mountpoint -q $T || mount -t tracefs nodev $T || bad "no tracefs at $T"
[ -e $EV/enable ] || bad "no tracepoint net:net_dev_start_xmit"
for ns in "$NS_A" "$NS_B"; do
	v=veth_${ns##*_}
	ip netns exec "$ns" sh -c "echo 1 >/sys/class/net/$v/queues/tx-0/xps_cpus &&
		echo 2 >/sys/class/net/$v/queues/tx-1/xps_cpus" ||
		bad "cannot set XPS on $v"
done

# move_client: flip every process of the client's netns between CPU 0
# and CPU 1 until killed.
move_client() {
	local c=0 p
	while :; do
		for p in $(ip netns pids "$NS_B"); do
			taskset -pc "$c" "$p" >/dev/null 2>&1
		done
		c=$((1 - c))
		sleep 0.2
	done
}

port=18700
for fam in 4 6; do
	echo >$T/trace
	echo 'len > 1000' >$EV/filter || bad "tracepoint filter"
	echo 1 >$EV/enable
	move_client &
	mover=$!
	dp_pair_tool $fam -g $port ibv_rc_pingpong -s 4096 -n 400 -c >/dev/null ||
		bad "ibv_rc_pingpong over the IPv$fam GID"
	kill "$mover"
	wait "$mover" 2>/dev/null
	mover=
	echo 0 >$EV/enable
	port=$((port + 1))
	# "... [001] ...: net_dev_start_xmit: dev=veth_b queue_mapping=1 ..."
	for dev in veth_a veth_b; do
		recs=$(sed -n "s/.*\[\([0-9]*\)\].* net_dev_start_xmit: dev=$dev queue_mapping=\([0-9]*\) .*/\1 \2/p" $T/trace)
		n=$(echo "$recs" | grep -c .)
		cpus=$(echo "$recs" | awk '{ print $1 + 0 }' | sort -u | paste -sd' ')
		queues=$(echo "$recs" | awk '{ print $2 }' | sort -u | paste -sd' ')
		info "IPv$fam $dev: $n data skbs, from CPUs $cpus through queues $queues"
		[ "$n" -gt 0 ] || bad "IPv$fam: no data skb traced on $dev"
		[ "$(wc -w <<<"$cpus")" -ge 2 ] ||
			bad "IPv$fam: $dev's data left from CPU $cpus only: nothing shown"
		[ "$(wc -w <<<"$queues")" = 1 ] ||
			bad "IPv$fam: one QP's data went through queues $queues of $dev"
	done
done
cleanup
check_dmesg
exit 0
