#!/bin/bash
# CQ, MR/MW, SRQ and AH verbs on sroce: the C tests obj_cq, obj_mr, obj_srq
# and obj_ah (KTAP subtests, each citing its seed rule) on sroce_a.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/lib_objects.sh"
objects_setup

rc=0
for t in obj_cq obj_mr obj_srq obj_ah; do
	[ -x "$TOOLS/$t" ] || fail "$TOOLS/$t not built"
	"$TOOLS/$t" -d sroce_a
	r=$?
	case $r in
	0) ;;
	4) info "$t: all skipped" ;;
	*) info "$t failed (exit $r)"; rc=1 ;;
	esac
done
check_dmesg
exit $rc
