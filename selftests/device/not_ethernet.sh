#!/bin/bash
# A netdev that is not Ethernet (loopback, a TUN device, an IPIP tunnel) is
# refused with EINVAL and leaves nothing behind.
. "$(dirname "$0")/../lib.sh"
sroce_load || fail "load"
topo_up || fail "topology"
modprobe tun
ip -n $NS_A tuntap add dev tun0 mode tun || fail "tun"
modprobe ipip 2>/dev/null
ip -n $NS_A link add ipip0 type ipip local 192.0.2.1 remote 192.0.2.2 2>/dev/null
before=$(ls /sys/class/infiniband 2>/dev/null | sort)
for nd in lo tun0 ipip0; do
	ip -n $NS_A link show "$nd" >/dev/null 2>&1 || { info "no $nd here"; continue; }
	out=$(link_add $NS_A bad0 "$nd" 2>&1) && fail "device created on $nd"
	echo "$out" | grep -q "Invalid argument" || fail "unclear error for $nd: $out"
	info "$nd: $out"
done
[ "$(ls /sys/class/infiniband 2>/dev/null | sort)" = "$before" ] || fail "devices left behind"
[ "$(cat /sys/module/sroce/refcnt)" = 0 ] || fail "module reference left behind"
exit 0
