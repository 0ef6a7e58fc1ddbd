# SPDX-License-Identifier: GPL-2.0-only
# Shared shell of the error selftests (selftests/errors/): the data-path
# set-up of datapath/dp_lib.sh, plus what packet injection needs.
# shellcheck shell=bash
. "$(dirname "${BASH_SOURCE[0]}")/../datapath/dp_lib.sh"

DP_PREFIX=""
# err_inject (errors/err.c) runs roce_pkt.py in the sending end's namespace
# and reads the replies on that end's interface.
export ROCE_PKT=$SELFTESTS_DIR/net/roce_pkt.py NS_A NS_B SNIFF_IF=veth_a SNIFF_IF_B=veth_b
