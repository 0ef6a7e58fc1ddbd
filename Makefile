# SPDX-License-Identifier: GPL-2.0-only
# sroce: software RoCEv2 RDMA device (kernel module + rdma-core provider).
# No logic here: every target calls a script or a sub-make.
#
#   make              build sroce.ko (Debian 13 kernel), libsroce, selftests, host tests
#   make KDIR=<dir>   build sroce.ko for another kernel tree instead
#   make check        host unit tests, fuzz smoke, static checks, the guest selftests in QEMU,
#                     then the debug-kernel lane (SROCE_DEBUG_LANE=0: without it)
#   make deb          build/deb/: sroce-dkms (the module, built by DKMS) and ibverbs-provider-sroce
#   make static-checks  sparse (C=2), W=1 and checkpatch --strict of sroce's kernel code
#   make demo         boot the guest, create two sroce devices, show them working
#   make vm-test      only the guest selftests; T="FILTER..." a subset (tags, directories,
#                     scripts: T=datapath, T=rxe), TARGET=rxe the rxe-tagged ones on rdma_rxe
#   make pyverbs      rdma-core 56.1's python test suite against sroce in the guest
#   make bench        sroce against rdma_rxe and siw in one guest run (Documentation/performance.md)
#   make bench-odp    the ODP benchmarks (packet damming, packet flood; Documentation/odp.md)
#   make bench-reliability  recovery timing and ib_write_bw under loss, in the guest
#   make bench-congestion  two RC flows through a RED/ECN bottleneck, DCQCN on and off
#   make debug-kernel  build (once, cached) the KASAN/lockdep/kmemleak guest kernel
#   make debug-lane    the full lane: the tests tagged "debug", "debug-only" and "debug-full" on that kernel
#                      (make check's lane runs those tagged "debug")
#   make twovm        two guests joined by a virtual link: sroce<->sroce, then rdma_rxe<->sroce
#                     (pingpongs, perftest, rdma_cm tools, loss); make twovm-short: CI's short form
#   make matrix       the kernel and rdma-core matrix: build every cell (Debian 12's 6.1 with
#                     rdma-core 44.0, the newest Debian kernel) and run the core subset on each
#                     (make check runs it; SROCE_MATRIX=0: without it). CELLS="..." names cells
KDIR ?=

all: module provider selftests host-tests

module:
ifeq ($(KDIR),)
	scripts/build-module.sh
else
	$(MAKE) -C kernel KDIR=$(KDIR)
endif

provider:
	scripts/build-provider.sh

selftests:
	scripts/build-selftests.sh

host-tests:
	$(MAKE) -C selftests/host

fuzz:
	$(MAKE) -C selftests/fuzz smoke

deb:
	scripts/pkg/mkdeb.sh

image:
	scripts/vm/mkimage.sh

check:
	scripts/check.sh

static-checks:
	scripts/static-checks.sh

# Regenerate Documentation/spec-map.md (and the seed-rules copy).
spec-map:
	scripts/spec-map.sh --update

demo:
	scripts/demo.sh

vm-test: module provider selftests
	scripts/vm/run-qemu.sh selftests/run_guest.sh $(if $(TARGET),--target $(TARGET)) $(T)

pyverbs: module provider
	scripts/pyverbs.sh sroce

bench:
	scripts/bench/bench.sh

# The ODP benchmarks in the guest; tables in build/bench/, plot
# in Documentation/odp-bench.png (gnuplot). See Documentation/odp.md.
bench-odp: module provider selftests
	scripts/bench/odp-damming
	scripts/bench/odp-flood
	scripts/bench/odp-plot
bench-reliability: module provider selftests
	SROCE_GUEST_DEBUG=0 SROCE_TCG_THREAD=multi scripts/vm/run-qemu.sh -t 3000 scripts/bench/reliability.sh
# Two RC flows through a RED/ECN bottleneck with DCQCN on and off
# (Documentation/observability.md, "ECN and CNPs"); plot in build/bench/.
bench-congestion: module provider selftests
	SROCE_GUEST_DEBUG=0 SROCE_TCG_THREAD=multi scripts/vm/run-qemu.sh -t 1800 scripts/bench/congestion.sh
	scripts/bench/congestion-plot

debug-kernel:
	scripts/vm/mkdebugkernel.sh

debug-modules:
	scripts/build-debug-modules.sh

debug-lane: provider selftests
	scripts/debug-lane.sh -f

# Two guests joined by a virtual Ethernet link (selftests/twovm/).
twovm: module provider
	scripts/vm/two-vms.sh full

twovm-short: module provider
	scripts/vm/two-vms.sh short
matrix: provider selftests
	scripts/matrix/matrix.sh $(CELLS)

clean:
	rm -rf build
	$(MAKE) -C selftests/host clean
	$(MAKE) -C selftests/fuzz clean
	-$(MAKE) -s -C kernel clean KDIR=$$(ls -d $${HOME}/.cache/sroce/trixie-root/usr/src/linux-headers-*-amd64 2>/dev/null | head -1) 2>/dev/null
	-$(MAKE) -s -C selftests/kmod clean KDIR=$$(ls -d $${HOME}/.cache/sroce/trixie-root/usr/src/linux-headers-*-amd64 2>/dev/null | head -1) 2>/dev/null

.PHONY: all module provider selftests host-tests fuzz deb image check static-checks spec-map demo vm-test pyverbs bench bench-odp bench-reliability bench-congestion debug-kernel debug-modules debug-lane twovm twovm-short matrix clean
