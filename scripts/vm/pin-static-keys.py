#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
# Keep the guest kernel from rewriting its own text while the tests run.
#
# Switching a static key rewrites kernel code while the other vCPU may be
# running it. QEMU 7.2's TCG (Debian 12's) sometimes runs the transient
# int3 of that rewrite after it is over, and the guest dies with
# "Oops: int3" (seen in netif_rx_internal while a test pinged). So, before
# any test:
# - hold the keys the tests would switch on and off many times: packet
#   timestamps (SO_TIMESTAMP: every ping) and UDP encapsulation (every
#   tunnel socket: each sroce and rxe link). A key that stays on is never
#   rewritten;
# - send a little TCP and UDP over loopback, so that the one-shot keys
#   (the hash secrets' DO_ONCE) flip now, on an idle guest.
# Prints "pinned" when done, then sleeps holding the sockets.
import signal
import socket
import sys

SO_TIMESTAMP = 29        # <asm-generic/socket.h>; Python does not name it
UDP_ENCAP = 100          # <linux/udp.h>
UDP_ENCAP_L2TPINUDP = 3  # no receive hook: the socket stays a plain one

stamp = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
stamp.setsockopt(socket.SOL_SOCKET, SO_TIMESTAMP, 1)
# An IPv6 socket turns on both the IPv6 and the IPv4 encapsulation key.
encap = socket.socket(socket.AF_INET6, socket.SOCK_DGRAM)
encap.setsockopt(socket.IPPROTO_UDP, UDP_ENCAP, UDP_ENCAP_L2TPINUDP)

for family, addr in ((socket.AF_INET, "127.0.0.1"), (socket.AF_INET6, "::1")):
    with socket.socket(family, socket.SOCK_STREAM) as srv:
        srv.bind((addr, 0))
        srv.listen(1)
        with socket.create_connection(srv.getsockname()[:2]) as cli:
            conn, _ = srv.accept()
            cli.sendall(b"x")
            conn.recv(1)
            conn.close()
    with socket.socket(family, socket.SOCK_DGRAM) as rx, \
         socket.socket(family, socket.SOCK_DGRAM) as tx:
        rx.bind((addr, 0))
        tx.connect(rx.getsockname()[:2])
        tx.send(b"x")
        rx.recv(1)

print("pinned", flush=True)
sys.stdout.close()
while True:
    signal.pause()
