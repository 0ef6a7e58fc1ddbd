#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Fast-registration MRs (REG_MR, LOCAL_INV and SEND_WITH_INV of an FRMR),
# which only a kernel ULP can reach: loads the test module
# build/selftests/sroce_frmr_test.ko (selftests/kmod/sroce_frmr_test.c) on
# sroce_a, whose two RC QPs talk to each other through sroce_a's RoCE v2
# GID. Each case checks both sides (seed-rules R3.2, R3.4, R3.5): a WRITE
# and READ through a registered FRMR; LOCAL_INV, SEND_WITH_INV and
# re-registration with a new key, after which the old R_Key gives
# REM_ACCESS_ERR and QP_ACCESS_ERR; REG_MR of a valid FRMR, more pages than
# max_num_sg, LOCAL_INV with a wrong key byte, REG_MR with remote write
# but no local write; no remote rights on a DMA MR (IB_PD_UNSAFE_GLOBAL_RKEY
# refused, the PD's local_dma_lkey is no R_Key); ATOMICs through an FRMR,
# and refused (REM_INV_REQ_ERR, QP_ACCESS_ERR, no byte written) when the
# word is 8-byte aligned in the iova but not in memory (4-byte pages).
. "$(dirname "$0")/../lib.sh"

KMOD=$KMOD_DIR/sroce_frmr_test.ko
CASES=(reg_mr_write_read local_inv_then_write rereg_new_key_old_key_dead
	send_with_inv reg_mr_of_valid_mr over_max_num_sg local_inv_wrong_key_byte
	reg_mr_remote_write_without_local_write dma_mr_remote_access_refused
	dma_lkey_as_rkey_refused atomic_misaligned_memory_fetch_add
	atomic_misaligned_memory_cmp_swap atomic_frmr_ok)

[ -f "$KMOD" ] || fail "$KMOD is not built (scripts/build-selftests.sh)"
dmesg_mark
sroce_load || fail "cannot load $SROCE_KO"
topo_up || fail "topology"
link_add "$NS_A" sroce_a veth_a || fail "rdma link add"
gid=$(wait_for 30 gid_index sroce_a "$IP4_A") || fail "no RoCE v2 GID for $IP4_A"
res_before=$(rdma resource show sroce_a)

insmod "$KMOD" ibdev=sroce_a gid_index="$gid"
rc=$?
# The module does all its work in init and frees it there.
[ $rc = 0 ] && { rmmod sroce_frmr_test || fail "rmmod sroce_frmr_test"; }

# Its KTAP lines, as they came.
out=$(dmesg | tail -n +"$((DMESG_MARK + 1))" | sed -n 's/^.*sroce_frmr_test: //p')
echo "$out" | sed 's/^# //; s/^/# /'
failed=0
for c in "${CASES[@]}"; do
	if echo "$out" | grep -qx "ok [0-9]* $c"; then
		:
	elif echo "$out" | grep -qx "not ok [0-9]* $c"; then
		failed=$((failed + 1))
	else
		fail "no result line for case $c"
	fi
done
[ "$(echo "$out" | grep -c '^\(not \)\?ok ')" = ${#CASES[@]} ] ||
	fail "the module ran other cases than ${CASES[*]}"
# init returns 0 exactly when every case passed.
[ $failed = 0 ] || fail "$failed case(s) failed (insmod exit $rc)"
[ $rc = 0 ] || fail "every case passed but insmod failed ($rc)"

res_after=$(rdma resource show sroce_a)
[ "$res_before" = "$res_after" ] ||
	fail "objects left on sroce_a: before '$res_before', after '$res_after'"
check_dmesg
exit "$KSFT_PASS"
