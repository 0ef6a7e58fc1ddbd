#!/bin/bash
# Two guests, each its own kernel, joined by a virtual Ethernet link, as
# people run sroce on test VMs: sroce in both, then rdma_rxe in one of
# them (selftests/twovm/).
#   scripts/vm/two-vms.sh [-t timeout_s] [short|full]
# The link: a virtio-net NIC in each guest on a QEMU "dgram" netdev, each
# end's Ethernet frames sent as UDP datagrams to the other QEMU on the
# host's loopback (no root networking on the host, no start order). A
# burst larger than the receiving side buffers is partly dropped, as on
# Ethernet without flow control. SROCE_TWOVM_LINK=stream: one TCP
# connection between the QEMUs instead (the server's listens), which
# loses nothing but, without TCP_NODELAY (QEMU 7.2 sets none), holds the
# last frame of a burst back for the peer's delayed ACK: 4 KiB RC
# pingpongs then took 50 ms an iteration and ran out of retries. The
# server guest (10.99.0.1, MAC 52:54:00:99:00:01) runs
# selftests/twovm/agent.py, the client guest (10.99.0.2, ...:02) runs the
# cases (selftests/twovm/client.sh) and asks the agent for the server's
# side of each. Results: build/twovm/client.ktap, the consoles in
# build/twovm/console-{server,client}.log. Exits 0 if every case passed
# and both guests ended cleanly.
# short (make twovm-short, CI): ibv_rc_pingpong and rping sroce<->sroce,
# ibv_rc_pingpong rdma_rxe<->sroce. full (make twovm): see client.sh.
set -uo pipefail
. "$(dirname "$0")/../lib/common.sh"

timeout_s="" mode=short
while getopts "t:" o; do
	case $o in
	t) timeout_s=$OPTARG ;;
	*) die "usage: $0 [-t timeout_s] [short|full]" ;;
	esac
done
shift $((OPTIND - 1))
mode=${1:-short}
case $mode in
short | diag) timeout_s=${timeout_s:-1200} ;;
full) timeout_s=${timeout_s:-3600} ;;
*) die "usage: $0 [-t timeout_s] [short|full]" ;;
esac

# Once here, not in both run-qemu.sh at the same time.
"$SROCE_TOP/scripts/host-deps.sh" || die "host dependencies"
"$SROCE_TOP/scripts/vm/mkimage.sh" || die "guest image"
[ -e "$SROCE_BUILD/kernel/sroce.ko" ] || die "no build/kernel/sroce.ko: run scripts/build-module.sh"
ls "$SROCE_BUILD"/provider/libsroce-rdmav*.so >/dev/null 2>&1 ||
	die "no libsroce: run scripts/build-provider.sh"

out=$SROCE_BUILD/twovm
rm -rf "$out"
mkdir -p "$out"

# Ports on the loopback that nothing holds; a race with another binder
# shows as a QEMU that cannot start.
link=${SROCE_TWOVM_LINK:-dgram}
port_free() { ! ss -Hlntu "( sport = :$1 or sport = :$(($1 + 1)) )" | grep -q .; }
p1=$((20000 + ($$ * 2) % 40000))
while ! port_free $p1; do p1=$((p1 + 2 > 59998 ? 20000 : p1 + 2)); done
p2=$((p1 + 1))
case $link in
stream)
	srv_net="stream,server=on,addr.type=inet,addr.host=127.0.0.1,addr.port=$p1"
	cli_net="stream,server=off,addr.type=inet,addr.host=127.0.0.1,addr.port=$p1" ;;
dgram)
	dg() { echo "dgram,local.type=inet,local.host=127.0.0.1,local.port=$1,remote.type=inet,remote.host=127.0.0.1,remote.port=$2"; }
	srv_net=$(dg $p1 $p2) cli_net=$(dg $p2 $p1) ;;
*) die "SROCE_TWOVM_LINK is stream or dgram" ;;
esac

t0=$SECONDS
log "two guests ($mode, timeout ${timeout_s}s) joined by a $link link on 127.0.0.1:$p1"
# Each in a process group of its own (setsid), so that one can be stopped
# whole (run-qemu.sh, timeout, QEMU, tee) when the other failed.
setsid "$SROCE_TOP/scripts/vm/run-qemu.sh" -t "$timeout_s" -n "$srv_net" -e 52:54:00:99:00:01 \
	-l "$out/console-server.log" selftests/twovm/guest.sh server "$mode" >"$out/run-server.log" 2>&1 &
spid=$!
# The client's QEMU connects once, at its start: the server's listens first.
if [ "$link" = stream ]; then
	for _ in $(seq 300); do
		ss -Hltn "sport = :$p1" | grep -q . && break
		kill -0 "$spid" 2>/dev/null || break
		sleep 0.2
	done
fi
setsid "$SROCE_TOP/scripts/vm/run-qemu.sh" -t "$timeout_s" -n "$cli_net" -e 52:54:00:99:00:02 \
	-l "$out/console-client.log" selftests/twovm/guest.sh client "$mode" >"$out/run-client.log" 2>&1 &
cpid=$!

# Stopped whole, with everything under it, if this script is.
trap 'kill -- -"$spid" -"$cpid" 2>/dev/null' EXIT
trap 'exit 130' INT TERM

# The client ends first when all went well (it tells the server to end);
# a guest that ends badly leaves the other 120 s before it is stopped.
alive() { local s; s=$(ps -o stat= -p "$1") && [[ $s != Z* ]]; }
src="" crc=""
while [ -z "$src" ] || [ -z "$crc" ]; do
	who="" pending=()
	[ -n "$src" ] || pending+=("$spid")
	[ -n "$crc" ] || pending+=("$cpid")
	wait -n -p who "${pending[@]}"
	rc=$?
	case $who in
	"$spid") src=$rc other=$cpid ;;
	"$cpid") crc=$rc other=$spid ;;
	*) break ;;
	esac
	if [ "$rc" = 0 ] || ! alive "$other"; then continue; fi
	log "the $([ "$who" = "$spid" ] && echo server || echo client) guest ended with status $rc: the other has 120 s left"
	for _ in $(seq 120); do alive "$other" || break; sleep 1; done
	kill -- -"$other" 2>/dev/null
done
trap - EXIT

[ -s "$out/client.ktap" ] && grep -E "^(not )?ok |^# [0-9]+ failed" "$out/client.ktap"
log "server guest: status $src; client guest: status $crc; $((SECONDS - t0)) s"
for r in server client; do
	grep '^\[sroce\]' "$out/run-$r.log" | grep -v '^\[sroce\] booting' | sed "s/^/$r: /" >&2
done
[ "$src" = 0 ] && [ "$crc" = 0 ]
