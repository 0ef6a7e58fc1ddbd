#!/bin/bash
# Run rdma-core 56.1's own python test suite (its tests/ directory, with
# Debian 13's python3-pyverbs) in the QEMU guest against one device:
#   scripts/pyverbs.sh [rxe|sroce] [unittest args, e.g. test_qp or -k rc]
# rxe: the kernel's rdma_rxe (reference); sroce: sroce.ko + libsroce (build
# them first: make module provider). Prints the passed / failed / errors /
# skipped counts; the full log is build/pyverbs-<target>.log. Exits 0 when
# nothing failed and nothing errored.
set -euo pipefail
. "$(dirname "$0")/lib/common.sh"

target=${1:-rxe}
[ $# -gt 0 ] && shift
case $target in
rxe) ;;
sroce)
	[ -e "$SROCE_BUILD/kernel/sroce.ko" ] || die "build sroce.ko first (make module)"
	ls "$SROCE_BUILD"/provider/libsroce-rdmav*.so >/dev/null 2>&1 ||
		die "build libsroce first (make provider)"
	;;
*) die "usage: $0 [rxe|sroce] [unittest args]" ;;
esac

# The suite from rdma-core's source: the unpacked copy of build-provider.sh
# if there is one, else the cached orig tarball (fetched by build-provider.sh).
dst=$SROCE_BUILD/pyverbs/tests
rm -rf "$dst" && mkdir -p "$dst"
if [ -e "$SROCE_BUILD/rdma-core/src/tests/run_tests.py" ]; then
	cp -r "$SROCE_BUILD/rdma-core/src/tests/." "$dst/"
else
	orig=$SROCE_CACHE/rdma-core_${RDMA_CORE_VERSION}.orig.tar.gz
	[ -s "$orig" ] || "$SROCE_TOP/scripts/build-provider.sh"
	tar xzf "$orig" -C "$dst" --strip-components=2 "rdma-core-${RDMA_CORE_VERSION}/tests"
fi
rm -f "$dst/CMakeLists.txt"
"$SROCE_TOP/scripts/vm/run-qemu.sh" -t "${PYVERBS_TIMEOUT:-3000}" \
	selftests/pyverbs/run.sh "$target" "$@"
