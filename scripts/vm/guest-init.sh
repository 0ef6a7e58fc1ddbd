#!/bin/bash
# PID 1 inside the guest after switch_root. Sets up a minimal system, runs the
# command given on the kernel command line as sroce.run=<path relative to the
# share> (arguments in sroce.args, comma separated), prints its exit status
# in a line the host runner looks for, and powers off.
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export HOME=/root LANG=C.UTF-8 TERM=dumb
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t tmpfs tmp /tmp
mount -t tmpfs run /run
mkdir -p /dev/pts /dev/shm
ln -sfn /proc/self/fd /dev/fd
ln -sfn /proc/self/fd/0 /dev/stdin
ln -sfn /proc/self/fd/1 /dev/stdout
ln -sfn /proc/self/fd/2 /dev/stderr
mount -t devpts devpts /dev/pts
mount -t tmpfs shm /dev/shm
mount -t debugfs none /sys/kernel/debug 2>/dev/null
hostname sroce-guest
ip link set lo up
ulimit -l unlimited

run="" args="" SROCE_KERNEL=stock
for w in $(cat /proc/cmdline); do
	case "$w" in
	sroce.run=*) run=${w#sroce.run=} ;;
	sroce.args=*) args=${w#sroce.args=} ;;
	sroce.kernel=*) SROCE_KERNEL=${w#sroce.kernel=} ;;
	esac
done
# stock or debug: selftests/lib.sh picks the modules built for it.
export SROCE_KERNEL
# The debug kernel has no modules in the image, only built-in ones, which
# modprobe finds in modules.builtin: run-qemu.sh puts its copy in the share.
rel=$(uname -r)
if [ ! -d "/lib/modules/$rel" ] && [ -d "/mnt/sroce/build/debug/modules/$rel" ]; then
	cp -a "/mnt/sroce/build/debug/modules/$rel" /lib/modules/
fi
# A kernel of the matrix (run-qemu.sh -k CELL): its modules are a 9p share.
if [ ! -d "/lib/modules/$rel" ] &&
   grep -qs kmods /sys/bus/virtio/drivers/9pnet_virtio/*/mount_tag; then
	mkdir -p "/lib/modules/$rel"
	mount -t 9p -o trans=virtio,version=9p2000.L,ro kmods "/lib/modules/$rel" ||
		echo "[guest] cannot mount the modules of $rel"
fi
cd /mnt/sroce || exit 1
rc=127
if [ -n "$run" ]; then
	echo "[guest] running $run ${args//,/ }"
	# shellcheck disable=SC2086
	bash "$run" ${args//,/ } </dev/null
	rc=$?
fi
sync
# Quiet the console so no kernel message splits the exit line.
echo 1 >/proc/sys/kernel/printk
echo
echo "SROCE-GUEST-EXIT=$rc"
echo o >/proc/sysrq-trigger
# Wait for the power-off without touching the disk: it is shut down first,
# and an external command paged in from it then dies (init would panic).
while :; do :; done
