#!/bin/bash
# sroce.ko loads after ib_core/ib_uverbs/udp_tunnel, registers link type
# "sroce", and unloads cleanly when it has no devices.
. "$(dirname "$0")/../lib.sh"
dmesg_mark
sroce_unload
sroce_load || fail "insmod failed"
grep -q "^sroce " /proc/modules || fail "sroce not in /proc/modules"
[ "$(cat /sys/module/sroce/refcnt)" = 0 ] || fail "refcount not 0 with no devices"
sroce_unload || fail "rmmod failed"
sroce_loaded && fail "module still loaded"
sroce_load || fail "reload failed"
check_dmesg
exit 0
