#!/bin/bash
# Boot the Debian 13 guest under QEMU (TCG), run one script from this tree
# inside it, and exit with that script's exit status.
#   scripts/vm/run-qemu.sh [-t timeout_s] [-m mem_mb] <script> [args...]
# The source tree (with build/) is shared into the guest at /mnt/sroce (9p,
# read-write). The guest disk is opened with snapshot=on: it never changes.
# Always ends: QEMU is killed after the timeout (exit 124).
# SROCE_KERNEL_ARGS: more guest kernel parameters, e.g. "isolcpus=nohz,domain,1
# nohz_full=1 rcu_nocbs=1" to give a benchmark a CPU of its own.
# -k debug (or SROCE_KERNEL=debug): boot the debug kernel of
# scripts/vm/mkdebugkernel.sh (KASAN, KFENCE, lockdep, kmemleak, UBSAN...)
# with the same image and initramfs; the guest then loads build/debug/'s
# modules (scripts/build-debug-modules.sh). Its default memory is 3 GiB:
# KASAN's shadow and kmemleak's metadata take their share.
# -k CELL (a cell of the kernel matrix, scripts/lib/matrix.sh: bookworm,
# backports): boot that cell's Debian kernel with the same image (Debian 13
# userspace) and the cell's initramfs (scripts/matrix/build.sh); its
# modules are shared read-only into the guest's /lib/modules, and the guest
# loads build/matrix/CELL/'s sroce.ko and test modules.
# SROCE_GUEST_DEBUG=0: boot without the stock kernel's debugging checks
# (benchmarks do: they slow allocations down); on by default, see below.
# SROCE_TCG_THREAD=multi: a host thread per vCPU, for benchmarks (see below);
# tests run single-threaded TCG.
# SROCE_MEM_PREALLOC=1: back all guest RAM with host memory at start
# (-mem-prealloc), so that the guest's first use of a page does not also
# fault (and zero a huge page) in the host: a benchmark that allocates
# fresh pages (odp_bench) would time the host's fault too.
# -n NETDEV: a virtio-net NIC (eth0 in the guest) on the QEMU netdev
# NETDEV ("dgram,local.type=inet,...": scripts/vm/two-vms.sh joins two
# guests so), with the MAC of -e MAC. -l LOG: keep the console as LOG
# rather than build/guest-console.log (guests side by side).
set -euo pipefail
. "$(dirname "$0")/../lib/common.sh"

timeout_s=1800 mem="" cpus=2 kern=${SROCE_KERNEL:-stock} netdev="" mac="" keep=""
while getopts "t:m:c:k:n:e:l:" o; do
	case $o in
	t) timeout_s=$OPTARG ;;
	m) mem=$OPTARG ;;
	c) cpus=$OPTARG ;;
	k) kern=$OPTARG ;;
	n) netdev=$OPTARG ;;
	e) mac=$OPTARG ;;
	l) keep=$OPTARG ;;
	*) die "usage: $0 [-t timeout] [-m mem_mb] [-c cpus] [-k stock|debug|CELL] [-n netdev [-e mac]] [-l log] script [args]" ;;
	esac
done
shift $((OPTIND - 1))
[ $# -ge 1 ] || die "usage: $0 [-t timeout] script [args]"
script=$1; shift
[ -f "$SROCE_TOP/$script" ] || die "no such script in the tree: $script"
for a in "$@"; do
	case "$a" in *[,\ ]*) die "guest arguments may not contain commas or spaces: $a" ;; esac
done
args=$(IFS=,; echo "$*")

"$SROCE_TOP/scripts/host-deps.sh"
"$SROCE_TOP/scripts/vm/mkimage.sh"
mkdir -p "$SROCE_BUILD"
initrd=$SROCE_INITRD kmods=()
case $kern in
stock)
	kernel=$(ls "$SROCE_ROOT"/boot/vmlinuz-* | head -1)
	mem=${mem:-2048} ;;
debug)
	kdir=$("$SROCE_TOP/scripts/vm/mkdebugkernel.sh" --dir 2>/dev/null) && [ -e "$kdir/.done" ] ||
		die "no debug kernel: run scripts/vm/mkdebugkernel.sh"
	[ -e "$SROCE_BUILD/debug/kernel/sroce.ko" ] ||
		die "no build/debug/kernel/sroce.ko: run scripts/build-debug-modules.sh"
	kernel=$kdir/bzImage
	mem=${mem:-3072}
	# modprobe of a built-in module reads modules.builtin from
	# /lib/modules/<release>, which the image lacks: guest-init.sh installs
	# this copy from the share. Guests side by side share it: it is
	# replaced, under a lock, only when it differs.
	mkdir -p "$SROCE_BUILD/debug"
	(
		flock 8
		if ! diff -rq "$kdir/modules" "$SROCE_BUILD/debug/modules" >/dev/null 2>&1; then
			rm -rf "$SROCE_BUILD/debug/modules"
			mkdir -p "$SROCE_BUILD/debug/modules"
			cp -a "$kdir/modules/." "$SROCE_BUILD/debug/modules/"
		fi
	) 8>"$SROCE_BUILD/debug/modules.lock" ;;
*)
	. "$SROCE_TOP/scripts/lib/matrix.sh"
	case " $MATRIX_CELLS " in
	*" $kern "*) ;;
	*) die "-k takes stock, debug or a matrix cell ($MATRIX_CELLS), not $kern" ;;
	esac
	matrix_cell "$kern"
	krel=$(cell_krelease 2>/dev/null) && [ -e "$CELL_INITRD" ] &&
		[ -e "$CELL_BUILD/kernel/sroce.ko" ] ||
		die "cell $kern not built: run scripts/matrix/build.sh $kern"
	kernel=$SROCE_ROOT/boot/vmlinuz-$krel
	initrd=$CELL_INITRD
	mem=${mem:-2048}
	# guest-init.sh mounts it at /lib/modules/<release>.
	kmods=(-fsdev "local,id=fs1,path=$SROCE_ROOT/lib/modules/$krel,security_model=none,readonly=on"
		-device virtio-9p-pci,fsdev=fs1,mount_tag=kmods) ;;
esac
# One console file per run, so that two guests of one tree cannot mix
# their exit statuses; the last run's is kept as guest-console.log.
console=$SROCE_BUILD/guest-console.$$.log
keep=${keep:-$SROCE_BUILD/guest-console.log}
trap 'mv -f "$console" "$keep" 2>/dev/null' EXIT
nic=()
[ -z "$netdev" ] || nic=(-netdev "$netdev,id=net0" -device "virtio-net-pci,netdev=net0${mac:+,mac=$mac}")

# The debugging Debian's own kernel carries, on for every run that is not
# a benchmark: SLUB sanity checks and red zones (not poisoning and owner
# tracking: with them a data-path test took 1.5 times as long, and the
# debug lane's KASAN sees what they would),
# KFENCE sampling an allocation every millisecond, a report of any task
# blocked 30 s, and a panic at any WARN, so that the run stops where it
# happened. loglevel=5 puts WARNs on the console beside the errors. RCU
# reports a stall after 60 s, not 21: a loaded host starves a TCG guest's
# vCPUs that long (seen at boot), and a real stall lasts for ever.
# The debug kernel checks every access with KASAN, so slub_debug would add
# cost for nothing; KFENCE samples less often (100 ms) so that most
# allocations stay KASAN's, the more precise of the two; a task may block
# 120 s before it is reported (every step is slower under KASAN).
debug_args=""
if [ "$kern" = debug ]; then
	debug_args="kasan.fault=report kfence.sample_interval=100 hung_task_timeout_secs=120 rcupdate.rcu_cpu_stall_timeout=60 panic_on_warn=1"
elif [ "${SROCE_GUEST_DEBUG:-1}" != 0 ]; then
	debug_args="slub_debug=FZ kfence.sample_interval=1 hung_task_timeout_secs=30 rcupdate.rcu_cpu_stall_timeout=60 panic_on_warn=1"
fi
loglevel=$([ -n "$debug_args" ] && echo 5 || echo 4)
# A throw-away test VM: no retpolines or RSB filling (time under TCG,
# nothing that sroce's behaviour depends on).
base_args="console=ttyS0 panic=-1 oops=panic quiet mitigations=off loglevel=$loglevel"

# Tests: one host thread runs the vCPUs in turn (thread=single). With a
# thread per vCPU, Debian 12's QEMU 7.2 sometimes runs the transient int3
# of a kernel text rewrite (a static key switched by text_poke_bp while the
# other vCPU runs that code) after the rewrite is over: `Oops: int3`, the
# guest dies. A ping loop beside a UDP flood over a veth crashes it within
# seconds that way; single-threaded it ran 300 s clean. It costs about a
# tenth on a test.
# Benchmarks set SROCE_TCG_THREAD=multi: their two vCPUs must run at the
# same time, as on hardware.
tcg_thread=${SROCE_TCG_THREAD:-single}
case $tcg_thread in single | multi) ;; *) die "SROCE_TCG_THREAD is single or multi" ;; esac
boot() {
	log "booting guest (TCG, $kern kernel, ${cpus} vCPU, ${mem} MiB, timeout ${timeout_s}s${debug_args:+, debug checks}): $script $*"
	rc=0
	timeout --foreground -k 10 "$timeout_s" qemu-system-x86_64 \
		-machine q35 -accel "tcg,thread=$tcg_thread" -cpu max -smp "$cpus" -m "$mem" \
		${SROCE_MEM_PREALLOC:+-mem-prealloc} \
		-nographic -no-reboot -nodefaults -serial stdio \
		-kernel "$kernel" -initrd "$initrd" \
		-append "$base_args $debug_args sroce.kernel=$kern sroce.run=$script sroce.args=$args${SROCE_KERNEL_ARGS:+ $SROCE_KERNEL_ARGS}" \
		-drive "file=$SROCE_IMAGE,if=virtio,format=raw,snapshot=on" \
		-fsdev "local,id=fs0,path=$SROCE_TOP,security_model=none" \
		-device virtio-9p-pci,fsdev=fs0,mount_tag=sroce "${kmods[@]}" \
		-device virtio-rng-pci "${nic[@]}" </dev/null 2>&1 | tee "$console" || rc=$?
}
boot "$@"
# A guest that died before guest-init.sh started the script ran nothing
# of this tree (sroce is loaded by the tests): the emulated boot failed,
# not what is tested. Its console is shown and kept, and it boots once more.
# (grep reads the file itself: under pipefail, grep -q ending a pipe early
# would fail the pipe on a long console.)
if [ "$rc" != 124 ] && ! grep -a -q -e '\[guest\] running ' -e 'SROCE-GUEST-EXIT=' "$console"; then
	log "guest died while booting (status $rc), before the script started; its console ends:"
	tr -d '\r' <"$console" | tail -30 >&2
	mv -f "$console" "$keep.boot-failed"
	log "booting it once more (the failed boot's console: $keep.boot-failed)"
	boot "$@"
fi
# A kernel report on the console (a panic ends the guest before its exit
# line; a report the test scripts did not catch) is shown here and fails
# the run. Kernel lines only (timestamped); the expression is the guest
# selftests' (selftests/lib.sh).
KERNEL_REPORT_RE=$(sed -n "s/^KERNEL_REPORT_RE='\(.*\)'$/\1/p" "$SROCE_TOP/selftests/lib.sh")
reports=$(tr -d '\r' <"$console" | grep -E '^\[ *[0-9]+\.[0-9]+\] ' |
	grep -v 'Kernel command line:' | grep -E "$KERNEL_REPORT_RE" | head -40 || true)
[ -n "$reports" ] && { log "kernel reports on the guest console:"; echo "$reports" >&2; }
[ "$rc" = 124 ] && { log "guest timed out after ${timeout_s}s"; exit 124; }
grc=$(tr -d '\r' <"$console" | sed -n 's/.*SROCE-GUEST-EXIT=\([0-9][0-9]*\).*/\1/p' | tail -1)
[ -n "$grc" ] || { log "guest ended without an exit status (crash?)"; exit 125; }
[ -z "$reports" ] || [ "$grc" != 0 ] || { log "the guest passed, but the kernel reported a problem"; exit 126; }
exit "$grc"
