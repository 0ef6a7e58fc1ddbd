#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Send one valid RoCEv2 RC request N times, as fast as one CPU can.

usage: roce_flood.py DST --qpn Q --psn P [--opcode OP] [--payload LEN]
                     [--count N] [--cpu C] [--fifo PRIO] [--max-secs S]

The packet is built once with roce_pkt.py (ICRC included) and sent with
one raw socket. With --cpu and --fifo the sender pins itself to CPU C and
runs as SCHED_FIFO PRIO, so that a veth peer's receive softirq runs on C
after each send and nothing of a lower class (a kworker) runs on C until
the flood ends: a hardening test uses it to fill a QP's receive queue.
Two things would still hand C to the others for 50 ms of every second:
RT throttling (kernel.sched_rt_runtime_us) and, from Linux 6.12, the
fair server of C (debugfs sched/fair_server/cpuC/runtime), which runs
starved normal tasks after 950 ms. With --fifo both are turned off for
the flood (the fair server where debugfs has it) and put back after.

Prints "sent N secs S", then " fair_server off" if it turned it off.
"""
import argparse
import ipaddress
import os
import socket
import subprocess
import sys
import time

sys.dont_write_bytecode = True     # no __pycache__ in the shared tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import roce_pkt  # noqa: E402

RT_RUNTIME = "/proc/sys/kernel/sched_rt_runtime_us"
FAIR_SERVER = "/sys/kernel/debug/sched/fair_server/cpu%d/runtime"


def swap(path, val):
    """Write @val to @path; return what it held."""
    with open(path) as f:
        old = f.read().strip()
    with open(path, "w") as f:
        f.write(val)
    return old


def debugfs_has(path):
    """Does debugfs have @path? "ip netns exec" gives its command a mount
    namespace of its own with a new /sys, without debugfs: mounted here,
    it goes away with that namespace."""
    if not os.path.ismount("/sys/kernel/debug"):
        subprocess.run(["mount", "-t", "debugfs", "none", "/sys/kernel/debug"],
                       stderr=subprocess.DEVNULL, check=False)
    return os.path.exists(path)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("dst")
    ap.add_argument("--qpn", type=lambda x: int(x, 0), required=True)
    ap.add_argument("--psn", type=lambda x: int(x, 0), required=True)
    ap.add_argument("--opcode", type=lambda x: int(x, 0), default=0x04)
    ap.add_argument("--payload", type=int, default=256)
    ap.add_argument("--count", type=int, default=1)
    ap.add_argument("--cpu", type=int, default=-1)
    ap.add_argument("--fifo", type=int, default=0)
    ap.add_argument("--max-secs", type=float, default=20.0)
    a = ap.parse_args()
    dst = str(ipaddress.ip_address(a.dst))
    src = roce_pkt.src_for(dst)
    ib = roce_pkt.rc_request(a.opcode, a.qpn, a.psn, 0, 0, 0,
                             bytes(i & 0xFF for i in range(a.payload)))
    pkt = roce_pkt.frame(src, dst, ib)
    fam = socket.AF_INET6 if ":" in dst else socket.AF_INET
    s = socket.socket(fam, socket.SOCK_RAW, socket.IPPROTO_RAW)
    old_rt = old_fair = None
    fair = FAIR_SERVER % max(a.cpu, 0)
    if a.cpu >= 0:
        os.sched_setaffinity(0, {a.cpu})
    sent = 0
    try:
        if a.fifo:
            old_rt = swap(RT_RUNTIME, "-1")
            if a.cpu >= 0 and debugfs_has(fair):
                old_fair = swap(fair, "0")
            os.sched_setscheduler(0, os.SCHED_FIFO, os.sched_param(a.fifo))
        start = time.monotonic()
        end = start + a.max_secs
        send = s.sendto
        addr = (dst, 0)
        # Bounded in count and in time; the clock is read every 256 sends.
        while sent < a.count:
            send(pkt, addr)
            sent += 1
            if not sent & 255 and time.monotonic() > end:
                break
        secs = time.monotonic() - start
    finally:
        if a.fifo:
            os.sched_setscheduler(0, os.SCHED_OTHER, os.sched_param(0))
        if old_fair is not None:
            swap(fair, old_fair)
        if old_rt is not None:
            swap(RT_RUNTIME, old_rt)
        s.close()
    print("sent %d secs %.3f%s" % (sent, secs, "" if old_fair is None else
                                    " fair_server off"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
