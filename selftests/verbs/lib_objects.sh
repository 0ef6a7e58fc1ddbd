# SPDX-License-Identifier: GPL-2.0-only
# Shared set-up of the object tests: sroce_a on veth_a (topology of
# ../lib.sh) with its RoCE v2 GIDs in place. Source after ../lib.sh.
# shellcheck shell=bash

has_obj_gids() {
	local v
	v=$(ibv_devinfo -v -d sroce_a) || return 1
	echo "$v" | grep -q "::ffff:$IP4_A, RoCE v2" && echo "$v" | grep -q "$IP6_A, RoCE v2"
}

objects_setup() {
	dmesg_mark
	sroce_load || fail "load"
	topo_up || fail "topology"
	link_add $NS_A sroce_a veth_a || fail "link add"
	wait_for 10 has_obj_gids || fail "no RoCE v2 GIDs for $IP4_A and $IP6_A"
	export SROCE_DEV=sroce_a
}
