#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# A type 2 window is no key for a QP that reuses its binding QP's number
# (seed-rules R3.4, R3.5); UD datagrams over the MTU are dropped and
# counted, and the GSI QP survives any datagram (seed-rules R1.1, R1.5,
# R3.2); modify_qp to RESET and dealloc_mw of a bound window under
# traffic end cleanly (seed-rules R4.2, R2.2, R2.9, R3.3, R3.8, R3.4,
# R3.5): build/selftests/hard_mwud (hardening/hard_mwud.c). Run one case
# alone: mwud.sh -t <name>; list: mwud.sh -l.
. "$(dirname "$0")/../errors/err_lib.sh"
# qp_next is a debugfs file of the device (Documentation/fault-injection.md).
mountpoint -q /sys/kernel/debug ||
	mount -t debugfs none /sys/kernel/debug || skip "no debugfs"
dp_prog hard_mwud "$@"
