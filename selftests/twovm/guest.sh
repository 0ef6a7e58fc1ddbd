#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Entry point of each guest of the two-VM test (scripts/vm/two-vms.sh
# starts both through run-qemu.sh):
#   guest.sh server|client short|full
# Brings eth0 (the link to the other guest) up with the role's addresses,
# then the server runs agent.py (the client's remote hands; its log also
# in build/twovm/server.log) and the client runs client.sh (the cases).
. "$(dirname "$0")/twovm_lib.sh"

role=${1:-} mode=${2:-short}
mkdir -p "$TV_OUT"
ulimit -l unlimited
tv_net_up "$role" || { echo "# $role: the link did not come up"; exit 1; }
tv_provider || { echo "# cannot install libsroce (scripts/build-provider.sh)"; exit 1; }
case $role in
server)
	python3 "$SELFTESTS_DIR/twovm/agent.py" --addr "$TV_IP4_SERVER" --port "$TV_AGENT_PORT" 2>&1 |
		tee "$TV_OUT/server.log"
	exit "${PIPESTATUS[0]}" ;;
client)
	exec bash "$SELFTESTS_DIR/twovm/client.sh" "$mode" ;;
esac
