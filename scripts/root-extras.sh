#!/bin/bash
# Install the benchmark's extra packages (linux-perf for profiling in the
# guest, gnuplot-nox for the chart) into the cached Debian 13 root
# (scripts/lib/common.sh root_add_packages); their .sroce-root-* stamp makes
# scripts/vm/mkimage.sh rebuild the guest image once.
set -euo pipefail
. "$(dirname "$0")/lib/common.sh"

root_add_packages .sroce-root-extras-v1 root-extras.log linux-perf gnuplot-nox
