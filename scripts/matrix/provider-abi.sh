#!/bin/bash
# Check the stock libsroce (build/provider/, built in rdma-core 56.1) against
# a matrix cell's libibverbs (scripts/lib/matrix.sh, CELL_PROVIDER=abi),
# where libsroce cannot be built in that rdma-core's own source because
# Debian's mirror no longer carries it (rdma-core 44.0 of Debian 12). A
# provider is loaded by a libibverbs of the same private ABI (the
# rdmavNN of its name, the IBVERBS_PRIVATE_NN symbol version), and every
# symbol libsroce imports from libibverbs must be exported there with the
# version it was linked against. Writes build/matrix/CELL/provider/abi.txt.
#   scripts/matrix/provider-abi.sh CELL
set -euo pipefail
. "$(dirname "$0")/../lib/common.sh"
. "$SROCE_TOP/scripts/lib/matrix.sh"

matrix_cell "${1:?usage: $0 CELL}"
lib=$(ls "$SROCE_BUILD"/provider/libsroce-rdmav*.so 2>/dev/null | head -1)
[ -n "$lib" ] || die "no build/provider/libsroce-rdmav*.so: run scripts/build-provider.sh"
out=$CELL_BUILD/provider
mkdir -p "$out"
pabi=${lib##*-rdmav}; pabi=${pabi%.so}
verbs=$(ls "$SROCE_ROOT"/usr/lib/x86_64-linux-gnu/libibverbs.so.1.* | head -1)
have=$(objdump -T "$verbs" | awk '$2 == "g" || $4 ~ /IBVERBS/ { print $(NF-1), $NF }' |
	tr -d '()' | awk '$1 ~ /^IBVERBS/' | sort -u)
need=$(objdump -T "$lib" | awk '/\*UND\*/ && /IBVERBS/ { print $(NF-1), $NF }' | tr -d '()' | sort -u)
missing=$(comm -13 <(echo "$have") <(echo "$need"))
{
	echo "libsroce: ${lib##*/} (rdma-core $RDMA_CORE_VERSION), provider ABI $pabi"
	echo "libibverbs: ${verbs##*/} of rdma-core $CELL_RDMA_CORE (cell $CELL_NAME)"
	echo "private ABI of that libibverbs: $(echo "$have" | awk '{print $1}' | grep -o 'IBVERBS_PRIVATE_[0-9]*' | sort -u | tr '\n' ' ')"
	echo "imports: $(echo "$need" | wc -l); missing: $(echo "$missing" | grep -c . || true)"
	[ -z "$missing" ] || echo "$missing" | sed 's/^/  missing: /'
} >"$out/abi.txt"
cat "$out/abi.txt" >&2
echo "$have" | grep -qx "IBVERBS_PRIVATE_$pabi.*" ||
	echo "$have" | awk '{print $1}' | grep -qx "IBVERBS_PRIVATE_$pabi" ||
	die "libibverbs of rdma-core $CELL_RDMA_CORE has no private ABI $pabi"
[ -z "$missing" ] || die "libsroce imports symbols rdma-core $CELL_RDMA_CORE does not export"
