#!/bin/bash
# Install the static checkers' packages (sparse, for make C=2) into the
# cached Debian 13 root (scripts/lib/common.sh root_add_packages). Their
# stamp is not named .sroce-root-*: build-time tools the guest never runs
# must not make scripts/vm/mkimage.sh rebuild the image.
set -euo pipefail
. "$(dirname "$0")/lib/common.sh"

root_add_packages .sroce-tools-v1 root-tools.log sparse
