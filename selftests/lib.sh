# SPDX-License-Identifier: GPL-2.0-only
# Shared helpers for sroce's guest selftests (kselftest conventions:
# exit 0 = pass, 1 = fail, 4 = skip). Source it from a test.
# shellcheck shell=bash

KSFT_PASS=0
KSFT_FAIL=1
KSFT_SKIP=4

SELFTESTS_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
TOP=$(cd "$SELFTESTS_DIR/.." && pwd)
BUILD=$TOP/build
TOOLS=$BUILD/selftests
# The debug kernel (run-qemu.sh -k debug) loads modules built against its
# own tree (scripts/build-debug-modules.sh), a kernel of the matrix (-k
# CELL) those built for it (scripts/matrix/build.sh); SROCE_KERNEL comes
# from scripts/vm/guest-init.sh.
case ${SROCE_KERNEL:-stock} in
stock)
	SROCE_KO=$BUILD/kernel/sroce.ko
	KMOD_DIR=$TOOLS ;;
debug)
	SROCE_KO=$BUILD/debug/kernel/sroce.ko
	KMOD_DIR=$BUILD/debug/selftests ;;
*)
	SROCE_KO=$BUILD/matrix/$SROCE_KERNEL/kernel/sroce.ko
	KMOD_DIR=$BUILD/matrix/$SROCE_KERNEL/selftests ;;
esac

# Documentation address ranges (RFC 5737, RFC 3849): the two namespaces
# never route anywhere outside the guest.
NS_A=sroce_a
NS_B=sroce_b
IP4_A=192.0.2.1
IP4_B=192.0.2.2
IP6_A=2001:db8::1
IP6_B=2001:db8::2

fail() { echo "# FAIL: $*"; exit $KSFT_FAIL; }
skip() { echo "# SKIP: $*"; exit $KSFT_SKIP; }
info() { echo "# $*"; }

# Retry a condition for up to $1 seconds (TCG is slow; events are async).
# The debug-kernel lane sets SROCE_TIME_SCALE (KASAN and lockdep under
# TCG make set-up and teardown several times slower, not wrong).
wait_for() {
	local secs=$(($1 * ${SROCE_TIME_SCALE:-1})); shift
	local end=$((SECONDS + secs))
	while ! "$@" 2>/dev/null; do
		[ $SECONDS -ge $end ] && return 1
		sleep 0.2
	done
}

sroce_loaded() { [ -d /sys/module/sroce ]; }

# hw_counter DEV NAME: one port counter, from sysfs.
hw_counter() { cat "/sys/class/infiniband/$1/ports/1/hw_counters/$2"; }
# counter_ge DEV NAME VALUE: the counter has reached VALUE.
counter_ge() { [ "$(hw_counter "$1" "$2")" -ge "$3" ]; }

sroce_load() {
	sroce_loaded && return 0
	modprobe -a ib_core ib_uverbs udp_tunnel ip6_udp_tunnel || return 1
	insmod "$SROCE_KO"
}

sroce_unload() {
	sroce_loaded || return 0
	rmmod sroce
}

# Names of the RDMA devices sroce has registered (by its sysfs attribute).
sroce_devices() {
	local d
	for d in /sys/class/infiniband/*; do
		[ -e "$d/sroce_abi_version" ] && basename "$d"
	done
	return 0
}

dev_exists() { [ -e "/sys/class/infiniband/$1" ]; }
dev_gone() { ! dev_exists "$1"; }

# Two namespaces joined by a veth pair: veth_a in $NS_A, veth_b in $NS_B,
# both at MTU $TOPO_MTU (1500 unless the test sets it), each with
# $TOPO_QUEUES TX and RX queues (1 unless the test sets it).
topo_up() {
	local q=${TOPO_QUEUES:-1}

	topo_down
	ip netns add $NS_A && ip netns add $NS_B || return 1
	ip link add veth_a numtxqueues "$q" numrxqueues "$q" netns $NS_A type veth \
		peer name veth_b numtxqueues "$q" numrxqueues "$q" netns $NS_B || return 1
	ip -n $NS_A addr add $IP4_A/24 dev veth_a
	ip -n $NS_B addr add $IP4_B/24 dev veth_b
	ip -n $NS_A addr add $IP6_A/64 dev veth_a nodad
	ip -n $NS_B addr add $IP6_B/64 dev veth_b nodad
	ip -n $NS_A link set veth_a mtu "${TOPO_MTU:-1500}" || return 1
	ip -n $NS_B link set veth_b mtu "${TOPO_MTU:-1500}" || return 1
	ip -n $NS_A link set lo up
	ip -n $NS_B link set lo up
	ip -n $NS_A link set veth_a up
	ip -n $NS_B link set veth_b up
}

topo_down() {
	ip netns del $NS_A 2>/dev/null
	ip netns del $NS_B 2>/dev/null
	return 0
}

# rdma link add/del inside a namespace (the netdev lives there).
link_add() { ip netns exec "$1" rdma link add "$2" type sroce netdev "$3"; }
link_del() { rdma link del "$1"; }
# rdma link show names the netdev only inside the netdev's namespace.
link_netdev() { ip netns exec "$1" rdma link show "$2/1" | grep -o "netdev [^ ]*"; }

# Both ends: sroce_a on veth_a, sroce_b on veth_b.
devs_up() {
	link_add $NS_A sroce_a veth_a && link_add $NS_B sroce_b veth_b
}

devs_down() {
	local d
	for d in $(sroce_devices); do rdma link del "$d" 2>/dev/null; done
	return 0
}

# The value of one field of ibv_devinfo -v for a device, e.g. "state".
devinfo_field() {
	ibv_devinfo -v -d "$1" | awk -v k="$2" '
		{ sub(/^[ \t]+/, "") }
		index($0, k ":") == 1 { sub(/^[^:]*:[ \t]*/, ""); print; exit }'
}

# Kernel log lines that mean a bug: oopses, WARNs, SLUB debug and KFENCE
# reports, KASAN, UBSAN, lockdep, kmemleak, hung tasks ("INFO: task ...
# blocked"), each by the words of its report, not of its boot message or
# of the command line that turns it on (scripts/vm/
# run-qemu.sh turns the stock kernel's checks on, the debug kernel has the
# rest; lockdep's "trying to register non-static key" has no WARNING
# line of its own). The same expression scans the console on the host.
KERNEL_REPORT_RE='BUG|WARNING|Oops|general protection|Kernel panic|refcount_t|suspected memory leak|UBSAN|KASAN|KFENCE|INFO: task|INFO: possible|INFO: rcu|inconsistent lock state|non-static key'
# ... since the mark set by dmesg_mark.
# The value (kB) of one /proc/meminfo field, e.g. meminfo Slab.
meminfo() { awk -v k="$1:" '$1 == k { print $2 }' /proc/meminfo; }

# Reclaimable caches dropped, and frees deferred past an RCU grace period
# (kfree_rcu batches every few seconds) given time to happen: before a
# memory baseline and before comparing with it.
settle_mem() {
	sync
	echo 3 >/proc/sys/vm/drop_caches
	sleep 3
	echo 3 >/proc/sys/vm/drop_caches
}

# Slab, unreclaimable slab and vmalloc use now, as the baseline that
# mem_check compares with (call settle_mem first).
mem_baseline() {
	MEM_SLAB0=$(meminfo Slab) MEM_SUNR0=$(meminfo SUnreclaim) MEM_VM0=$(meminfo VmallocUsed)
	info "baseline: Slab $MEM_SLAB0 kB, SUnreclaim $MEM_SUNR0 kB, VmallocUsed $MEM_VM0 kB"
}

# Fail unless kernel memory is back to mem_baseline's (call settle_mem
# first). The tolerance: per-CPU partial slabs and the bookkeeping of the
# processes that ran move without sroce; a leak per object or round
# exceeds it. $1: added to the failure (e.g. how to replay).
mem_check() {
	local slab sunr vm why=${1:+ ($1)}
	slab=$(( $(meminfo Slab) - MEM_SLAB0 ))
	sunr=$(( $(meminfo SUnreclaim) - MEM_SUNR0 ))
	vm=$(( $(meminfo VmallocUsed) - MEM_VM0 ))
	info "after: Slab $slab kB, SUnreclaim $sunr kB, VmallocUsed $vm kB more than the baseline"
	[ $sunr -le 1536 ] || fail "unreclaimable slab grew by $sunr kB$why"
	[ $slab -le 3072 ] || fail "slab grew by $slab kB$why"
	[ $vm -le 1024 ] || fail "vmalloc use grew by $vm kB$why"
}

# Active objects per slab cache ("cache count" lines), after flushing
# RCU-deferred frees, per-CPU slabs and dentry caches so that mostly live
# objects are counted, plus the pages vmalloc really holds
# ("vmalloc_kB N"). vmap_area is left out: freed areas are purged lazily,
# so it grows with process churn (rdma_rxe shows the same).
slab_snapshot() {
	sleep 2
	echo 3 >/proc/sys/vm/drop_caches
	for s in /sys/kernel/slab/*/shrink; do echo 1 >"$s" 2>/dev/null; done
	awk 'NR > 2 && $1 != "vmap_area" { print $1, $2 }' /proc/slabinfo
	awk '$1 == "VmallocUsed:" { print "vmalloc_kB", $2 }' /proc/meminfo
}

# Tasks in uninterruptible sleep, with their kernel stacks, as "# " lines.
d_state() {
	local p
	for p in $(ps -eo pid=,stat= | awk '$2 ~ /^D/ { print $1 }'); do
		echo "# D state: $(cat /proc/"$p"/comm 2>/dev/null) ($p)"
		sed 's/^/#   /' /proc/"$p"/stack 2>/dev/null
	done
}

dmesg_mark() { DMESG_MARK=$(dmesg | wc -l); }
dmesg_bugs() {
	dmesg | tail -n +"$((${DMESG_MARK:-0} + 1))" | grep -E "$KERNEL_REPORT_RE" || true
}
check_dmesg() {
	local bugs
	bugs=$(dmesg_bugs)
	[ -z "$bugs" ] || { echo "$bugs" | sed 's/^/# dmesg: /'; fail "kernel reported a problem"; }
}

# ---- Data-path tests (selftests/datapath): rxe reference and GID lookup ----
# rdma_rxe on one veth in the init namespace (its UDP socket lives there
# only), both test ends on the one device. Addresses: RFC 5737 / RFC 3849.
RXE_DEV=rxe0
RXE_NETDEV=rxe_v0
RXE_IP4=198.51.100.1
RXE_IP6=2001:db8:1::1

# rxe_dev_up [NETNS]: rxe0 on rxe_v0 with RXE_IP4 and RXE_IP6; the veth's
# other end, rxe_v1, stays here or goes to NETNS, down.
rxe_dev_up() {
	modprobe rdma_rxe || return 1
	ip link add $RXE_NETDEV type veth peer name rxe_v1 ${1:+netns "$1"} ||
		return 1
	ip addr add $RXE_IP4/24 dev $RXE_NETDEV
	ip addr add $RXE_IP6/64 dev $RXE_NETDEV nodad
	ip link set $RXE_NETDEV up
	rdma link add $RXE_DEV type rxe netdev $RXE_NETDEV
}

rxe_up() {
	rxe_down
	rxe_dev_up || return 1
	ip link set rxe_v1 up
	wait_for 10 gid_index $RXE_DEV $RXE_IP4 >/dev/null &&
		wait_for 10 gid_index $RXE_DEV $RXE_IP6 >/dev/null
}

rxe_down() {
	rdma link del $RXE_DEV 2>/dev/null
	ip link del $RXE_NETDEV 2>/dev/null
	return 0
}

# ---- sroce <-> rdma_rxe on one wire (DP_TARGET mixed, mixed_r) ----
# rxe0 on rxe_v0 in the init namespace (rxe's UDP socket lives in init_net
# only), sroce_m on the other end of the veth, rxe_v1, moved into netns
# sroce_m (sroce's socket is per namespace, so the two never share a
# port): the same /24 and /64 as RXE_IP4/RXE_IP6, host address 2.
NS_M=sroce_m
MIX_DEV=sroce_m
MIX_IP4=198.51.100.2
MIX_IP6=2001:db8:1::2

mixed_up() {
	mixed_down
	ip netns add $NS_M || return 1
	rxe_dev_up $NS_M || return 1
	ip -n $NS_M addr add $MIX_IP4/24 dev rxe_v1
	ip -n $NS_M addr add $MIX_IP6/64 dev rxe_v1 nodad
	ip -n $NS_M link set lo up
	ip -n $NS_M link set rxe_v1 up
	link_add $NS_M $MIX_DEV rxe_v1 || return 1
	wait_for 10 gid_index $RXE_DEV $RXE_IP4 >/dev/null &&
		wait_for 10 gid_index $RXE_DEV $RXE_IP6 >/dev/null &&
		wait_for 10 gid_index $MIX_DEV $MIX_IP4 >/dev/null &&
		wait_for 10 gid_index $MIX_DEV $MIX_IP6 >/dev/null
}

mixed_down() {
	rdma link del $MIX_DEV 2>/dev/null
	rdma link del $RXE_DEV 2>/dev/null
	ip link del $RXE_NETDEV 2>/dev/null
	ip netns del $NS_M 2>/dev/null
	return 0
}

# The sysfs spelling of the GID of an IPv4 or IPv6 address (pure bash:
# python3 takes seconds to start under a loaded TCG guest).
ip_to_gid() {
	local a=$1 head tail n i h=() t=() p=()
	if [[ $a != *:* ]]; then
		IFS=. read -r -a p <<<"$a"
		printf '0000:0000:0000:0000:0000:ffff:%02x%02x:%02x%02x\n' "${p[@]}"
		return
	fi
	if [[ $a == *::* ]]; then head=${a%%::*} tail=${a#*::}; else head=$a tail=; fi
	[ -n "$head" ] && IFS=: read -r -a h <<<"$head"
	[ -n "$tail" ] && IFS=: read -r -a t <<<"$tail"
	n=$((8 - ${#h[@]} - ${#t[@]}))
	p=("${h[@]}")
	for ((i = 0; i < n; i++)); do p+=(0); done
	p+=("${t[@]}")
	printf '%04x:%04x:%04x:%04x:%04x:%04x:%04x:%04x\n' \
		$((16#${p[0]})) $((16#${p[1]})) $((16#${p[2]})) $((16#${p[3]})) \
		$((16#${p[4]})) $((16#${p[5]})) $((16#${p[6]})) $((16#${p[7]}))
}

# gid_index DEV IP: the index of DEV's port-1 RoCE v2 GID for IP (from
# sysfs, never assumed); prints it, or fails if there is none.
gid_index() {
	local want g i
	want=$(ip_to_gid "$2") || return 1
	for g in /sys/class/infiniband/"$1"/ports/1/gids/*; do
		[ "$(cat "$g" 2>/dev/null)" = "$want" ] || continue
		i=${g##*/}
		[ "$(cat /sys/class/infiniband/"$1"/ports/1/gid_attrs/types/"$i" 2>/dev/null)" = "RoCE v2" ] || continue
		echo "$i"
		return 0
	done
	return 1
}
