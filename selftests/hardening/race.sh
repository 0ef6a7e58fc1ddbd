#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Races of the receive path and the doorbell callers with the verbs that
# create and destroy what they use: build/selftests/hard_race
# (hardening/hard_race.c). qp_lookup: a flood at QPNs whose QPs are
# destroyed and recreated at the same numbers; doorbell_hold, doorbell_odp:
# ODP faults left to a doorbell caller that sleeps while other processes
# ring doorbells on its CPU; mcast: a multicast flood while QPs attach,
# detach, are destroyed and their processes killed. Each case runs a
# bounded time (SROCE_RACE_SECS, else 20-25 s, 20-30 s on the slower
# debug kernel); any kernel report fails the test. The whole test takes
# about 2 min on the stock guest, 5 on the debug kernel.
# Run one case alone: race.sh -t <name>; list them: race.sh -l.
. "$(dirname "$0")/../errors/err_lib.sh"
# qp_next is a debugfs file of the device (Documentation/fault-injection.md).
mountpoint -q /sys/kernel/debug ||
	mount -t debugfs none /sys/kernel/debug || skip "no debugfs"
dp_prog hard_race "$@"
