#!/bin/bash
# "rdma resource show" lists sroce's CQs, SRQs, MRs and PDs while a process
# holds them, and none once it has destroyed them. The kernel's own objects
# (the GSI QP's PD and CQ, made by ib_mad) are counted before and left out.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/lib_objects.sh"
objects_setup

# Count of resource $1 in the summary line of sroce_a.
res_count() {
	rdma resource show | awk -v r="$1" '$2 == "sroce_a:" {
		for (i = 3; i < NF; i++) if ($i == r) { print $(i + 1); exit } }'
}

declare -A base
for r in pd cq mr srq ctx; do
	base[$r]=$(res_count $r)
	info "before: $r ${base[$r]:-0}"
done

coproc HOLD { exec "$TOOLS/obj_tool" -d sroce_a hold 3 2>&1; }
read -r -t 60 line <&"${HOLD[0]}" || fail "obj_tool did not start"
[ "$line" = READY ] || fail "obj_tool: $line"
for r in pd cq mr srq ctx; do
	n=$(( $(res_count $r) - ${base[$r]:-0} ))
	info "holding: $r $n"
	case $r in
	pd|ctx) [ "$n" -ge 1 ] || fail "no $r listed while held" ;;
	*) [ "$n" -ge 3 ] || fail "$r: $n listed, 3 held" ;;
	esac
done
n=$(rdma resource show cq dev sroce_a | grep -c "comm obj_tool")
[ "$n" -ge 3 ] || fail "rdma resource show cq: $n CQs of obj_tool"
n=$(rdma resource show mr dev sroce_a | grep -c "comm obj_tool")
[ "$n" -ge 3 ] || fail "rdma resource show mr: $n MRs of obj_tool"

pid=$HOLD_PID
exec {HOLD[1]}>&-	# EOF on its stdin: it destroys everything
wait "$pid" || fail "obj_tool failed to destroy its objects"
for r in pd cq mr srq ctx; do
	n=$(( $(res_count $r) - ${base[$r]:-0} ))
	[ "$n" = 0 ] || fail "$r: $n still listed after destroy"
done
check_dmesg
exit 0
