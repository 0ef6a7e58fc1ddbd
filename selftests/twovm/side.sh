#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# One function of twovm_lib.sh with its arguments, e.g.
#   side.sh tv_tool 4 ibv_rc_pingpong -g 18515 -n 100 -c
# agent.py runs what the client asks for so, on the server guest.
. "$(dirname "$0")/twovm_lib.sh"
case ${1:-} in
tv_*) ;;
*) echo "# side.sh: not a twovm function: ${1:-}"; exit 2 ;;
esac
"$@"
