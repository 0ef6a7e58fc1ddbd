# SPDX-License-Identifier: GPL-2.0-only
# Shared shell of the two-VM test (scripts/vm/two-vms.sh): two guests, each
# its own kernel, joined by a virtio-net link (eth0 in both). The server
# guest (10.99.0.1) runs agent.py, which runs this file's functions on the
# client's request (side.sh); the client guest (10.99.0.2) runs client.sh,
# which drives every case and calls the same functions on its own side.
# Each guest has one RDMA device at a time on eth0: sroce0 (sroce) or rxe0
# (the kernel's rdma_rxe), named in /run/twovm.dev.
# shellcheck shell=bash
. "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"

# shellcheck disable=SC2034 # used by the scripts that source this
TV_IP4_SERVER=10.99.0.1
TV_IP4_CLIENT=10.99.0.2
TV_IP6_SERVER=fd99::1
TV_IP6_CLIENT=fd99::2
TV_MAC_SERVER=52:54:00:99:00:01
TV_MAC_CLIENT=52:54:00:99:00:02
# shellcheck disable=SC2034
TV_AGENT_PORT=7100
TV_NETDEV=eth0
# shellcheck disable=SC2034
TV_OUT=$BUILD/twovm

tv_role() { cat /run/twovm.role 2>/dev/null; }
tv_dev() { cat /run/twovm.dev 2>/dev/null; }
# This guest's IPv4 or IPv6 (FAM 4 or 6) address.
tv_ip() {
	local r
	r=$(tv_role)
	case $1:$r in
	4:server) echo $TV_IP4_SERVER ;;
	4:client) echo $TV_IP4_CLIENT ;;
	6:server) echo $TV_IP6_SERVER ;;
	6:client) echo $TV_IP6_CLIENT ;;
	*) return 1 ;;
	esac
}

tv_hello() { echo "$(tv_role) $(uname -r) dev=$(tv_dev)"; }

# tv_net_up ROLE: eth0 (the virtio-net NIC run-qemu.sh -n gave, with its
# fixed MAC) up with the role's addresses. No udev in the guest: the
# driver is loaded by hand.
tv_net_up() {
	local role=$1 mac ip4 ip6
	case $role in
	server) mac=$TV_MAC_SERVER ip4=$TV_IP4_SERVER ip6=$TV_IP6_SERVER ;;
	client) mac=$TV_MAC_CLIENT ip4=$TV_IP4_CLIENT ip6=$TV_IP6_CLIENT ;;
	*) echo "# unknown role $role"; return 1 ;;
	esac
	echo "$role" >/run/twovm.role
	dmesg | wc -l >/run/twovm.dmesg0
	hostname "twovm-$role"
	modprobe virtio_net || return 1
	wait_for 20 test -e /sys/class/net/$TV_NETDEV || { echo "# no $TV_NETDEV"; ip -br link; return 1; }
	[ "$(cat /sys/class/net/$TV_NETDEV/address)" = "$mac" ] ||
		{ echo "# $TV_NETDEV has MAC $(cat /sys/class/net/$TV_NETDEV/address), not $mac"; return 1; }
	ip addr add "$ip4/24" dev $TV_NETDEV &&
		ip addr add "$ip6/64" dev $TV_NETDEV nodad &&
		ip link set $TV_NETDEV up || return 1
	wait_for 20 grep -qx 1 /sys/class/net/$TV_NETDEV/carrier || { echo "# no carrier"; return 1; }
	info "$role: $(ip -br addr show dev $TV_NETDEV)"
}

# The libsroce provider, where Debian's libibverbs looks for providers.
tv_provider() {
	[ -e /etc/libibverbs.d/sroce.driver ] && return 0
	install -m 644 "$BUILD"/provider/libsroce-rdmav*.so /usr/lib/x86_64-linux-gnu/libibverbs/ &&
		install -m 644 "$BUILD/provider/sroce.driver" /etc/libibverbs.d/sroce.driver
}

# No RDMA device on eth0, neither module loaded: both bind UDP port 4791.
tv_dev_down() {
	local d
	for d in sroce0 rxe0; do
		dev_exists $d && { rdma link del $d || return 1; }
	done
	if sroce_loaded; then rmmod sroce || return 1; fi
	if [ -d /sys/module/rdma_rxe ]; then rmmod rdma_rxe || return 1; fi
	rm -f /run/twovm.dev
}

# tv_dev_up sroce|rxe: that device on eth0, with its RoCE v2 GIDs of both
# addresses in place.
tv_dev_up() {
	local kind=$1 dev fam
	tv_dev_down || { echo "# cannot remove the previous device"; return 1; }
	case $kind in
	sroce)
		dev=sroce0
		tv_provider || { echo "# cannot install libsroce"; return 1; }
		sroce_load || { echo "# cannot load $SROCE_KO"; return 1; }
		rdma link add $dev type sroce netdev $TV_NETDEV || return 1 ;;
	rxe)
		dev=rxe0
		modprobe rdma_rxe || return 1
		rdma link add $dev type rxe netdev $TV_NETDEV || return 1 ;;
	*) echo "# unknown device kind $kind"; return 1 ;;
	esac
	echo $dev >/run/twovm.dev
	for fam in 4 6; do
		wait_for 30 gid_index $dev "$(tv_ip $fam)" >/dev/null ||
			{ echo "# $dev has no RoCE v2 GID for $(tv_ip $fam)"; return 1; }
	done
	info "$(tv_role): $dev on $TV_NETDEV, GID $(gid_index $dev "$(tv_ip 4)") for $(tv_ip 4)," \
		"GID $(gid_index $dev "$(tv_ip 6)") for $(tv_ip 6), active MTU $(devinfo_field $dev active_mtu)"
}

# tv_tool FAM TOOL GIDFLAG PORT [ARGS...]: TOOL on this guest's device
# with the index of its IPv4 or IPv6 (FAM) GID after GIDFLAG (-g for the
# ibv_*_pingpong, -x for perftest) and the TCP port of its out-of-band
# exchange; the client adds the server's address as the last argument.
tv_tool() {
	local fam=$1 tool=$2 gflag=$3 port=$4 dev gid
	shift 4
	dev=$(tv_dev)
	[ -n "$dev" ] || { echo "# no device"; return 1; }
	gid=$(gid_index "$dev" "$(tv_ip "$fam")") || { echo "# $dev: no GID for IPv$fam"; return 1; }
	echo "# $(tv_role): $tool -d $dev $gflag $gid -p $port $*"
	timeout -k 5 "${TV_TOOL_TIMEOUT:-240}" "$tool" -d "$dev" "$gflag" "$gid" -p "$port" "$@"
}

# tv_rping server|client PORT COUNT: rping over rdma_cm (no device named:
# rdma_cm resolves the address to the device), the client validating
# every ping's data (-V).
tv_rping() {
	local side=$1 port=$2 count=$3 out rc n
	out=$(mktemp)
	case $side in
	server) timeout -k 5 "${TV_TOOL_TIMEOUT:-240}" rping -s -a $TV_IP4_SERVER -p "$port" -C "$count" -V -v >"$out" 2>&1 ;;
	client) timeout -k 5 "${TV_TOOL_TIMEOUT:-240}" rping -c -a $TV_IP4_SERVER -p "$port" -C "$count" -V -v >"$out" 2>&1 ;;
	esac
	rc=$?
	# -v: each ping's data, "ping data: ..." (the server: "server ping data: ...").
	n=$(grep -cE '^(server )?ping data: ' "$out")
	grep -m 2 -E '^(server )?ping data: ' "$out"
	grep -vE '^(server )?ping data: ' "$out" | head -20
	echo "# rping $side: exit $rc, $n pings"
	rm -f "$out"
	[ $rc = 0 ] && [ "$n" = "$count" ]
}

# tv_cmatose ucmatose|udaddy server|client [PORT]: the rdma_cm example
# programs (RC and UD), 10 messages on one connection. udaddy's port is
# fixed (7174).
tv_cmatose() {
	local prog=$1 side=$2 port=${3:-}
	local a=(-C 10) t=${TV_TOOL_TIMEOUT:-240}
	[ "$prog" = ucmatose ] && a+=(-p "$port")
	case $side in
	server) timeout -k 5 "$t" "$prog" -b $TV_IP4_SERVER "${a[@]}" ;;
	client) timeout -k 5 "$t" "$prog" -s $TV_IP4_SERVER "${a[@]}" ;;
	esac
}

# tv_ready tcp|cm PORT: wait until this guest's server listens: on a TCP
# port (the out-of-band exchange of the pingpongs and perftest) or with
# an rdma_cm id (rping, ucmatose, udaddy). A client that comes first is
# refused.
tv_listening_tcp() { ss -Hltn "sport = :$1" | grep -q .; }
tv_listening_cm() { rdma resource show cm_id 2>/dev/null | grep -q "LISTEN.*:$1 "; }
tv_ready() {
	wait_for 30 "tv_listening_$1" "$2" && return 0
	echo "# nothing listens on $1 port $2 after 30 s"
	[ "$1" = cm ] && rdma resource show cm_id 2>&1 | head -5
	return 1
}

# tv_netem [ARGS]: netem ARGS (e.g. "loss 5%") on eth0's egress; none: removed.
tv_netem() {
	tc qdisc del dev $TV_NETDEV root 2>/dev/null
	[ $# = 0 ] && return 0
	tc qdisc add dev $TV_NETDEV root netem "$@" || { echo "# no netem (sch_netem)"; return 1; }
	echo "# $(tv_role): $(tc qdisc show dev $TV_NETDEV root)"
}

# tv_counter NAME: a port counter of this guest's device (rdma statistic).
tv_counter() {
	rdma statistic show link "$(tv_dev)/1" 2>/dev/null | tr -s ' \t' '\n' |
		awk -v k="$1" '$0 == k { getline; print; f = 1; exit } END { if (!f) print 0 }'
}

# Non-zero counters of this guest's device, and eth0's packet counts.
tv_stats() {
	local d
	d=$(tv_dev)
	[ -n "$d" ] && rdma statistic show link "$d/1" 2>/dev/null | tr -s ' \t' '\n' |
		paste - - | awk -v d="$d" 'NR > 1 && $2 != 0 { printf "# %s %s %s\n", d, $1, $2 }'
	sed -n "s/^ *$TV_NETDEV: *//p" /proc/net/dev |
		awk -v n=$TV_NETDEV '{ printf "# %s: rx %s packets, tx %s packets\n", n, $2, $10 }'
	# UDP's own drops (a bad checksum, a full socket buffer) never reach sroce.
	awk '$1 == "Udp:" { if (!h) { split($0, k); h = 1; next }
		for (i = 2; i <= NF; i++) if ($i != 0) s = s " " k[i] "=" $i; print "# udp:" s; exit }' /proc/net/snmp
}

# Kernel reports since tv_net_up (boot messages such as KFENCE's own
# would match the expression).
tv_kernel_clean() {
	local bugs
	bugs=$(dmesg | tail -n +"$(($(cat /run/twovm.dmesg0 2>/dev/null || echo 0) + 1))" |
		grep -E "$KERNEL_REPORT_RE")
	[ -z "$bugs" ] && { echo "# $(tv_role): kernel log clean"; return 0; }
	echo "$bugs" | head -40 | sed "s/^/# $(tv_role) dmesg: /"
	return 1
}

# tv_param NAME VALUE: a sroce module parameter (e.g. tx_gso 0).
tv_param() {
	echo "$2" >"/sys/module/sroce/parameters/$1" && echo "# $(tv_role): sroce.$1=$(cat "/sys/module/sroce/parameters/$1")"
}
