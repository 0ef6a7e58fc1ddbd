#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""The hostile peer of hardening/hostile.sh.

usage: hostile.py --target FILE --secs N --seed S [--skip KIND,...]

Reads the victim's target file (hardening/hard_victim.c writes it, and
rewrites it whenever a pair is re-made), learns the live PSNs by sniffing
veth_a (AF_PACKET) for the victim's own requests A -> B, and for N
seconds sends a seeded random mix of hostile RoCEv2 packets, built with
net/roce_pkt.py's frame() (valid ICRC, raw IPPROTO_RAW socket): from
netns sroce_a at sroce_b's QPs, and some from sroce_b at sroce_a's.

The rule that keeps the victim's data checks meaningful: a CHECKED QP
gets only packets a correct RNIC must drop or that may only fail the QP
(out-of-window PSNs, bad or stale keys, malformed headers, wrong opcode
sequences out of the window, oversize payloads), never a well-formed
in-window request with a valid key: a real RNIC would accept that spoof
and the data check would rightly see the peer's bytes. A SACRIFICIAL QP
gets anything, with its real R_Key, Q_Key and PSNs.

The choices follow --seed; which PSN a packet carries also depends on
what was sniffed at that moment, so a replay is close, not exact.
Prints the seed first and, at the end, how many packets of each kind went.
"""
import argparse
import os
import random
import socket
import struct
import sys
import threading
import time

sys.dont_write_bytecode = True     # the tree is shared with the host
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "net"))
import roce_pkt as rp  # noqa: E402

PSN_MASK = 0xFFFFFF
HALF = 1 << 23
GSI_QKEY = 0x80010000

# IBA 9.2 table 38, the low five bits of RC/UC opcodes
SEND_FIRST, SEND_MIDDLE, SEND_LAST, SEND_LAST_IMM = 0x00, 0x01, 0x02, 0x03
SEND_ONLY, SEND_ONLY_IMM = 0x04, 0x05
WRITE_FIRST, WRITE_MIDDLE, WRITE_LAST, WRITE_LAST_IMM = 0x06, 0x07, 0x08, 0x09
WRITE_ONLY, WRITE_ONLY_IMM, READ_REQ = 0x0A, 0x0B, 0x0C
RD_RESP_FIRST, RD_RESP_MIDDLE, RD_RESP_LAST, RD_RESP_ONLY = 0x0D, 0x0E, 0x0F, 0x10
ACK, ATOMIC_ACK, CMP_SWAP, FETCH_ADD = 0x11, 0x12, 0x13, 0x14
SEND_LAST_INV, SEND_ONLY_INV = 0x16, 0x17
FLUSH, ATOMIC_WRITE = 0x1C, 0x1D          # IBA 1.5, RC only
UC = 0x20
UD_SEND_ONLY, UD_SEND_ONLY_IMM = 0x64, 0x65
REQ_OPS = set(range(0x00, 0x0D)) | {CMP_SWAP, FETCH_ADD, SEND_LAST_INV,
                                    SEND_ONLY_INV, FLUSH, ATOMIC_WRITE}


def ib(op, dqpn, psn, va=0, rkey=0, dmalen=0, payload=b"", qkey=0, sqpn=1,
       ackreq=True, syndrome=0, msn=0, pkey=0xFFFF, feth=1):
    """BTH and the extension headers @op has (IBA 9.2), then payload and
    pad: the IB bytes of one packet, without the ICRC."""
    cls, t = op >> 5, op & 0x1F
    ext = b""
    if cls == 3:
        ext += struct.pack(">II", qkey, sqpn & PSN_MASK)
    if cls == 0 and t == FLUSH:
        ext += struct.pack(">I", feth & 0xFFFFFFFF)
    if cls in (0, 1) and (t in (WRITE_FIRST, WRITE_ONLY, WRITE_ONLY_IMM) or
                          (cls == 0 and t in (READ_REQ, FLUSH,
                                              ATOMIC_WRITE))):
        ext += struct.pack(">QII", va & (2**64 - 1), rkey, dmalen & 0xFFFFFFFF)
    if cls == 0 and t in (CMP_SWAP, FETCH_ADD):
        ext += struct.pack(">QIQQ", va & (2**64 - 1), rkey, 1, 2)
    if cls == 0 and t in (RD_RESP_FIRST, RD_RESP_LAST, RD_RESP_ONLY, ACK,
                          ATOMIC_ACK):
        ext += struct.pack(">I", syndrome << 24 | msn & PSN_MASK)
    if cls == 0 and t == ATOMIC_ACK:
        ext += struct.pack(">Q", 0)
    if cls in (0, 1) and t in (SEND_LAST_IMM, SEND_ONLY_IMM, WRITE_LAST_IMM,
                               WRITE_ONLY_IMM) or op == UD_SEND_ONLY_IMM:
        ext += struct.pack(">I", 0x1234)
    if cls == 0 and t in (SEND_LAST_INV, SEND_ONLY_INV):
        ext += struct.pack(">I", rkey)
    pad = -len(payload) & 3
    return rp.bth(op, dqpn, psn=psn & PSN_MASK, pad=pad, pkey=pkey,
                  ackreq=ackreq) + ext + payload + bytes(pad)


def hdr_len(op):
    return len(ib(op, 0, 0))


class Target:
    """The victim's target file: devices, IPs, keys and its live QPs."""

    def __init__(self, path):
        self.path = path
        self.gen = -1
        self.qps = []
        self.kv = {}

    def reload(self):
        try:
            with open(self.path) as f:
                lines = f.read().splitlines()
        except OSError:
            return False
        kv, qps = {}, []
        for ln in lines:
            w = ln.split()
            if not w:
                continue
            if w[0] == "qp":
                q = {"name": w[1]}
                for k, v in zip(w[2::2], w[3::2]):
                    q[k] = v if k == "type" else int(v, 0)
                qps.append(q)
            elif len(w) == 2:
                kv[w[0]] = w[1]
        gen = int(kv.get("gen", "0"))
        if gen == self.gen:
            return False
        self.gen, self.kv, self.qps = gen, kv, qps
        return True

    def num(self, k, default=0):
        return int(self.kv.get(k, str(default)), 0)


class Sniffer(threading.Thread):
    """The last PSN of the victim's own requests to each QPN (both ways),
    from veth_a: the next expected PSN of the QP they go to."""

    def __init__(self, sock, ip_a, ip_b, mtu):
        super().__init__(daemon=True)
        self.sock, self.mtu = sock, mtu
        self.ips = (socket.inet_aton(ip_a), socket.inet_aton(ip_b))
        self.epsn = {}
        self.seen = 0
        self.stop = False

    def run(self):
        while not self.stop:
            try:
                f = self.sock.recv(2048)
            except (socket.timeout, OSError):
                continue
            if len(f) < 14 + 20 + 8 + 12 or f[12:14] != b"\x08\x00":
                continue
            ip = f[14:]
            ihl = (ip[0] & 15) * 4
            if ip[9] != socket.IPPROTO_UDP or ip[12:16] not in self.ips:
                continue
            udp = ip[ihl:]
            sport, dport = struct.unpack(">HH", udp[0:4])
            if dport != rp.ROCE_PORT or sport == rp.SPORT:
                continue        # not RoCE, or one of ours
            b = udp[8:]
            op = b[0]
            if op & 0x1F not in REQ_OPS or op >> 5 not in (0, 1):
                continue
            dqpn = struct.unpack(">I", b[4:8])[0] & PSN_MASK
            psn = struct.unpack(">I", b[8:12])[0] & PSN_MASK
            n = 1
            if op == READ_REQ and len(b) >= 28:
                dmalen = struct.unpack(">I", b[24:28])[0]
                n = max(1, -(-dmalen // self.mtu))
            self.epsn[dqpn] = (psn + n) & PSN_MASK
            self.seen += 1


def in_netns(name, fn):
    """fn() with this thread in network namespace @name."""
    here = os.open("/proc/self/ns/net", os.O_RDONLY)
    there = os.open("/run/netns/" + name, os.O_RDONLY)
    try:
        os.setns(there, os.CLONE_NEWNET)
        return fn()
    finally:
        os.setns(here, os.CLONE_NEWNET)
        os.close(here)
        os.close(there)


def raw_sock():
    s = socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_RAW)
    s.setsockopt(socket.IPPROTO_IP, socket.IP_MULTICAST_TTL, 8)
    return s


class Injector:
    def __init__(self, a):
        self.a = a
        self.rnd = random.Random(a.seed)
        self.t = Target(a.target)
        self.counts = {}
        self.errors = 0
        self.rejected = 0       # packets the local stack refused to send

    # ---- sending ----------------------------------------------------
    def send(self, kind, frm_a, ibs, dst=None, n=1):
        """Frame IB bytes (one packet or a list) from A (or B) and send."""
        src = self.ip_a if frm_a else self.ip_b
        dst = dst or (self.ip_b if frm_a else self.ip_a)
        s = self.sa if frm_a else self.sb
        if isinstance(ibs, bytes):
            ibs = [ibs]
        pkts = [rp.frame(src, dst, x) for x in ibs]
        for _ in range(n):
            for p in pkts:
                try:
                    s.sendto(p, (dst, 0))
                except OSError:
                    self.rejected += 1
                    continue
                self.counts[kind] = self.counts.get(kind, 0) + 1

    # ---- what a packet may target -------------------------------------
    def qps(self, checked=None, types=None):
        return [q for q in self.t.qps
                if (checked is None or q["checked"] == checked) and
                (types is None or q["type"] in types)]

    def epsn_b(self, q):
        """B's expected PSN of pair q (sniffed, else its start PSN)."""
        return self.sn.epsn.get(q["b_qpn"], q["psn_a"])

    def epsn_a(self, q):
        """A's expected request PSN: B never sends requests itself."""
        return self.sn.epsn.get(q["a_qpn"], q["psn_b"])

    def edge(self, e):
        """The PSNs at the edges of the window around ePSN e."""
        return self.rnd.choice([e - 1, e, e + 1, e + HALF, e - HALF,
                                e + HALF - 1]) & PSN_MASK

    def far(self, e):
        """A PSN no correct responder takes as new or duplicate: the
        invalid half of the 24-bit space, ahead of the window."""
        return (e + HALF + self.rnd.randrange(1, HALF // 2)) & PSN_MASK

    def bad_key(self, q_any=None):
        """A key no correct RNIC resolves: a sacrificial key with its key
        byte flipped, an index far beyond any allocated, or the stale
        key of a deregistered MR."""
        r = self.rnd.random()
        sac = [q for q in self.qps(0) if "b_rkey" in q]
        if r < 0.4 and sac:
            return self.rnd.choice(sac)["b_rkey"] ^ 0xFF
        if r < 0.7:
            return (self.rnd.randrange(0x800000, 0x1000000) << 8) | \
                self.rnd.randrange(256)
        return self.t.num("stale_rkey")

    def bad_qkey(self):
        k = self.rnd.getrandbits(32)
        return k if k not in (0x11111111, 0x22222222) else k ^ 1

    def payload(self, n):
        return self.rnd.randbytes(n)

    # ---- the kinds ------------------------------------------------------
    def k_trunc(self):
        """Shorter than the opcode's headers (BTH and part of the rest)."""
        q = self.rnd.choice(self.t.qps)
        op = self.rnd.choice([WRITE_FIRST, WRITE_ONLY, READ_REQ, CMP_SWAP,
                              FETCH_ADD, FLUSH, ATOMIC_WRITE,
                              SEND_ONLY_IMM, UC | WRITE_ONLY,
                              UD_SEND_ONLY, UD_SEND_ONLY_IMM, ACK,
                              RD_RESP_FIRST, SEND_ONLY_INV])
        frm_a = self.rnd.random() < 0.8
        full = ib(op, q["b_qpn"] if frm_a else q["a_qpn"],
                  self.epsn_b(q) if frm_a else self.epsn_a(q),
                  qkey=q.get("qkey", 0))
        cut = self.rnd.randrange(5 if self.rnd.random() < 0.2 else 12,
                                 hdr_len(op))
        self.send("truncated", frm_a, full[:cut])

    def k_oversize(self):
        """A payload over the path MTU (still within the link's 1500)."""
        mtu = self.t.num("mtu", 1024)
        r = self.rnd.random()
        if r < 0.3:
            # UD to the GSI QP with the well-known Q_Key
            n = self.rnd.randrange(mtu + 1, 1449)
            self.send("oversize_gsi", self.rnd.random() < 0.7,
                      ib(UD_SEND_ONLY, 1, 0, qkey=GSI_QKEY,
                         sqpn=self.rnd.randrange(2, PSN_MASK),
                         payload=self.payload(n)))
            return
        q = self.rnd.choice(self.t.qps)
        if q["type"] == "ud":
            qk = q.get("qkey", self.bad_qkey())
            op, n = UD_SEND_ONLY, self.rnd.randrange(mtu + 1, 1449)
            b = ib(op, q["b_qpn"], 0, qkey=qk, sqpn=q["a_qpn"],
                   payload=self.payload(n))
        else:
            cls = UC if q["type"] == "uc" else 0
            op = cls | self.rnd.choice([SEND_ONLY, SEND_FIRST, SEND_MIDDLE])
            n = self.rnd.randrange(mtu + 1, 1457)
            b = ib(op, q["b_qpn"], self.edge(self.epsn_b(q)),
                   payload=self.payload(n))
        self.send("oversize", True, b)

    def k_badseq(self):
        """MIDDLE/LAST without FIRST, FIRST then ONLY."""
        q = self.rnd.choice(self.qps(types=("rc", "uc")))
        cls = UC if q["type"] == "uc" else 0
        e = self.epsn_b(q)
        key, va = q.get("b_rkey", 0), q.get("b_va", 0)
        if q["checked"]:
            e = self.far(e)         # a sequence error out of the window
            key = self.bad_key()
        mtu = self.t.num("mtu", 1024)
        r = self.rnd.random()
        if r < 0.35:
            pk = [ib(cls | self.rnd.choice([SEND_MIDDLE, WRITE_MIDDLE]), q["b_qpn"],
                     e, payload=self.payload(mtu))]
        elif r < 0.7:
            pk = [ib(cls | self.rnd.choice([SEND_LAST, WRITE_LAST,
                                            SEND_LAST_IMM]), q["b_qpn"], e,
                     payload=self.payload(self.rnd.randrange(1, mtu)))]
        else:
            # UC has no PSN window: any SEND FIRST/ONLY starts a message a
            # correct RNIC accepts, so a checked UC QP gets WRITEs with a
            # bad key only.
            writes_only = q["checked"] and cls == UC
            pk = [ib(cls | (WRITE_FIRST if writes_only else
                            self.rnd.choice([SEND_FIRST, WRITE_FIRST])),
                     q["b_qpn"], e, va=va, rkey=key, dmalen=2 * mtu,
                     payload=self.payload(mtu)),
                  ib(cls | (WRITE_ONLY if writes_only else
                            self.rnd.choice([SEND_ONLY, WRITE_ONLY])),
                     q["b_qpn"], e + 1, va=va, rkey=key, dmalen=16,
                     payload=self.payload(16))]
        self.send("wrong_sequence", True, pk)

    def k_abandon(self):
        """A WRITE FIRST whose MIDDLE and LAST never come."""
        q = self.rnd.choice(self.qps(types=("rc", "uc")))
        cls = UC if q["type"] == "uc" else 0
        mtu = self.t.num("mtu", 1024)
        if q["checked"]:
            key, va, e = self.bad_key(), 0x1000, self.epsn_b(q)
        else:
            key, va, e = q["b_rkey"], q["b_va"], self.epsn_b(q)
        self.send("abandoned_write_first", True,
                  ib(cls | WRITE_FIRST, q["b_qpn"], e, va=va, rkey=key,
                     dmalen=4 * mtu, payload=self.payload(mtu)))

    def k_ucgap(self):
        """UC WRITE FIRST, then LAST two PSNs later (a PSN gap)."""
        qs = self.qps(types=("uc",))
        if not qs:
            return
        q = self.rnd.choice(qs)
        mtu = self.t.num("mtu", 1024)
        key = self.bad_key() if q["checked"] else q["b_rkey"]
        va = q.get("b_va", 0x1000)
        e = self.epsn_b(q)
        # UC has no window: a LAST at the live PSN would continue the
        # victim's own message, so a checked QP's gap is a far one
        gap = self.far(e) - e if q["checked"] else 2
        self.send("uc_psn_gap", True,
                  [ib(UC | WRITE_FIRST, q["b_qpn"], e, va=va, rkey=key,
                      dmalen=3 * mtu, payload=self.payload(mtu)),
                   ib(UC | WRITE_LAST, q["b_qpn"], e + gap,
                      payload=self.payload(mtu))])

    def k_dupread(self):
        """A duplicate READ (older PSN) with a different RETH."""
        q = self.rnd.choice(self.qps(types=("rc",)))
        e = self.epsn_b(q)
        psn = (e - self.rnd.choice([1, 1, 2, 5, 100])) & PSN_MASK
        if q["checked"]:
            key, va, ln = self.bad_key(), 0x2000, 64
        else:
            key, va = q["b_rkey"], q["b_va"]
            ln = self.rnd.choice([1, 8, 100, 4096, q["b_len"], q["b_len"] + 1])
            va += self.rnd.choice([0, 0, 8, q["b_len"] - 8, q["b_len"]])
        self.send("duplicate_read", True,
                  ib(READ_REQ, q["b_qpn"], psn, va=va, rkey=key, dmalen=ln))

    def k_bigreth(self):
        """RETH lengths near 2^31 (READ, WRITE FIRST/ONLY)."""
        q = self.rnd.choice(self.qps(types=("rc", "uc")))
        cls = UC if q["type"] == "uc" else 0
        ln = self.rnd.choice([0x7FFFFFFF, 0x80000000, 0xFFFFFFFF, 0x80000001])
        key = self.bad_key() if q["checked"] else q["b_rkey"]
        va = q.get("b_va", 0x1000)
        ops = [WRITE_ONLY, WRITE_FIRST] + ([READ_REQ] * 2 if cls == 0 else [])
        op = cls | self.rnd.choice(ops)
        e = self.epsn_b(q) if not q["checked"] else self.edge(self.epsn_b(q))
        self.send("reth_len_2^31", True,
                  ib(op, q["b_qpn"], e, va=va, rkey=key, dmalen=ln,
                     payload=self.payload(64) if op & 0x1F != READ_REQ else b""))

    def k_badkey(self):
        """Flipped, far and stale R_Keys, any QP, at the window's edges."""
        q = self.rnd.choice(self.qps(types=("rc", "uc")))
        cls = UC if q["type"] == "uc" else 0
        ops = [WRITE_ONLY, WRITE_FIRST, WRITE_ONLY_IMM]
        if cls == 0:
            ops += [READ_REQ, CMP_SWAP, FETCH_ADD, FLUSH, ATOMIC_WRITE]
        if cls == 0 and not q["checked"]:
            # a SEND: its payload is delivered whatever the key to invalidate
            ops += [SEND_ONLY_INV]
        op = cls | self.rnd.choice(ops)
        va = q.get("b_va", 0x1000)
        e = self.edge(self.epsn_b(q))
        pl = self.payload(32) if op & 0x1F in (WRITE_ONLY, WRITE_FIRST,
                                               WRITE_ONLY_IMM,
                                               SEND_ONLY_INV) else b""
        if op == ATOMIC_WRITE:
            pl = self.payload(8)
        self.send("bad_rkey", True, ib(op, q["b_qpn"], e, va=va,
                                        rkey=self.bad_key(), dmalen=32,
                                        payload=pl))

    def k_psnedge(self):
        """Every edge of the window: a valid request to a sacrificial QP,
        a bad-key or truncated one to a checked QP."""
        q = self.rnd.choice(self.qps(types=("rc", "uc")))
        cls = UC if q["type"] == "uc" else 0
        e0 = self.epsn_b(q)
        for e in [e0 - 1, e0, e0 + 1, e0 + HALF, e0 - HALF, e0 + HALF - 1]:
            e &= PSN_MASK
            if q["checked"]:
                b = ib(cls | WRITE_ONLY, q["b_qpn"], e, va=0x1000,
                       rkey=self.bad_key(), dmalen=16, payload=self.payload(16))
            elif self.rnd.random() < 0.5:
                b = ib(cls | WRITE_ONLY, q["b_qpn"], e,
                       va=q["b_va"] + self.rnd.randrange(0, q["b_len"] - 64),
                       rkey=q["b_rkey"], dmalen=64, payload=self.payload(64))
            else:
                b = ib(cls | SEND_ONLY, q["b_qpn"], e, payload=self.payload(40))
            self.send("psn_edge", True, b)

    def k_atomic(self):
        """ATOMICs and ATOMIC WRITEs at unaligned and out-of-range
        addresses, FLUSHes of reserved types and levels and bad ranges."""
        qs = self.qps(types=("rc",))
        q = self.rnd.choice(qs)
        op = self.rnd.choice([CMP_SWAP, FETCH_ADD, ATOMIC_WRITE, FLUSH])
        if q["checked"]:
            key, va, e = self.bad_key(), 0x1001, self.edge(self.epsn_b(q))
        else:
            key, e = q["b_rkey"], self.epsn_b(q)
            base, ln = q["b_va"], q["b_len"]
            va = self.rnd.choice([base + self.rnd.randrange(1, 8),
                                  base + ln, base + ln - 4, base - 8, 0,
                                  2**64 - 8, base + 8 * self.rnd.randrange(16)])
        if op == ATOMIC_WRITE:
            pl = self.payload(self.rnd.choice([8, 8, 4, 16]))
            b = ib(op, q["b_qpn"], e, va=va, rkey=key, dmalen=len(pl),
                   payload=pl)
        elif op == FLUSH:
            b = ib(op, q["b_qpn"], e, va=va, rkey=key,
                   dmalen=self.rnd.choice([0, 8, 2**32 - 1]),
                   feth=self.rnd.choice([0, 1, 2, 3, 0x11, 0x21, 0x31, 0xF,
                                         self.rnd.getrandbits(32)]))
        else:
            b = ib(op, q["b_qpn"], e, va=va, rkey=key)
        self.send("atomic_bad_va", True, b)

    def k_b2a(self):
        """From B at A's QPs: spoofed ACKs, NAKs, unsolicited READ
        responses, requests. To a checked A only out-of-window PSNs."""
        q = self.rnd.choice(self.t.qps)
        last = self.epsn_b(q) - 1       # A's last request PSN to B
        if q["type"] == "ud":
            qk = q.get("qkey", self.bad_qkey())
            b = ib(UD_SEND_ONLY, q["a_qpn"], 0, qkey=qk, sqpn=q["b_qpn"],
                   payload=self.payload(self.rnd.randrange(0, 600)))
            self.send("b_to_a", False, b)
            return
        op = self.rnd.choice([ACK, ACK, RD_RESP_ONLY, RD_RESP_FIRST,
                              RD_RESP_MIDDLE, ATOMIC_ACK, WRITE_ONLY, SEND_ONLY])
        if q["type"] == "uc":
            op = UC | self.rnd.choice([SEND_ONLY, WRITE_ONLY])
        syn = self.rnd.choice([0x00, 0x1F, 0x20, 0x60, 0x61, 0x62, 0x63,
                               0x7F, 0xFF, self.rnd.randrange(256)])
        if q["checked"]:
            # responses out of the window of what A sent; requests to A's
            # responder out of its window and with a bad key
            if q["type"] == "uc" or op & 0x1F == SEND_ONLY:
                op = (op & 0xE0) | WRITE_ONLY
            psn = self.far(last if op & 0x1F in (ACK, ATOMIC_ACK) or
                           op & 0x1F in range(RD_RESP_FIRST, RD_RESP_ONLY + 1)
                           else self.epsn_a(q))
            key = self.bad_key()
        else:
            psn = self.rnd.choice([last, last - 1, last + 1, self.epsn_a(q),
                                   self.rnd.randrange(PSN_MASK + 1)])
            key = q["a_rkey"]
        mtu = self.t.num("mtu", 1024)
        pl = b""
        if op & 0x1F in (RD_RESP_ONLY, RD_RESP_FIRST, RD_RESP_MIDDLE, SEND_ONLY,
                         WRITE_ONLY):
            pl = self.payload(self.rnd.choice([0, 4, 64, mtu]))
        b = ib(op, q["a_qpn"], psn, va=q.get("a_va", 0x1000), rkey=key,
               dmalen=len(pl), syndrome=syn, msn=self.rnd.randrange(1 << 24),
               payload=pl)
        self.send("b_to_a", False, b)

    def k_gsi(self):
        """Random MAD-sized datagrams at QP1 with the GSI Q_Key."""
        mad = bytearray(self.payload(256))
        mad[0] = 1                      # base version
        mad[1] = self.rnd.choice([0x04, 0x07, 0x81, 0x03, mad[1]])  # mgmt class
        mad[2] = 1
        self.send("gsi_mad", self.rnd.random() < 0.7,
                  ib(UD_SEND_ONLY, 1, 0, qkey=GSI_QKEY,
                     sqpn=self.rnd.randrange(2, PSN_MASK), payload=bytes(mad)))

    def k_unknown_qpn(self):
        # whatever QP the number may name, the packet is one to reject
        qpn = self.rnd.randrange(2, PSN_MASK)
        op = self.rnd.choice([WRITE_ONLY, READ_REQ, UD_SEND_ONLY, ACK])
        self.send("unknown_qpn", self.rnd.random() < 0.7,
                  ib(op, qpn, self.rnd.randrange(PSN_MASK + 1), va=0x1000,
                     rkey=self.bad_key(), dmalen=16, qkey=self.bad_qkey(),
                     payload=self.payload(16) if op != READ_REQ else b""))

    def k_flood(self):
        """A few thousand packets at one QPN."""
        q = self.rnd.choice(self.t.qps)
        n = self.rnd.randrange(2000, 4001)
        e = self.epsn_b(q)
        if q["checked"]:
            if q["type"] == "ud":
                b = ib(UD_SEND_ONLY, q["b_qpn"], 0, qkey=self.bad_qkey(),
                       sqpn=q["a_qpn"], payload=self.payload(256))
            else:
                cls = UC if q["type"] == "uc" else 0
                b = ib(cls | WRITE_ONLY, q["b_qpn"], self.far(e), va=0x1000,
                       rkey=self.bad_key(), dmalen=256, payload=self.payload(256))
            pk = [b]
        elif q["type"] == "ud":
            pk = [ib(UD_SEND_ONLY, q["b_qpn"], 0, qkey=q["qkey"],
                     sqpn=q["a_qpn"], payload=self.payload(256))]
        else:
            # SENDs at successive PSNs from the live one: they eat the
            # receive queue (RNR), then go out of window
            cls = UC if q["type"] == "uc" else 0
            pk = [ib(cls | SEND_ONLY, q["b_qpn"], e + i,
                     payload=self.payload(64)) for i in range(64)]
            n = n // 64
        t0 = time.monotonic()
        self.send("flood", True, pk, n=n)
        print("# flood: %d packets at %s QPN 0x%x in %.1f s" %
              (n * len(pk), q["name"], q["b_qpn"], time.monotonic() - t0),
              flush=True)

    def k_mcast(self):
        """UD to the group address with QPN 0xFFFFFF (right and wrong
        Q_Keys), in a burst."""
        ip = self.t.kv.get("mcast_ip")
        if not ip:
            return
        qk = self.t.num("mcast_qkey") if self.rnd.random() < 0.7 \
            else self.bad_qkey()
        n = self.rnd.randrange(200, 1001)
        b = ib(UD_SEND_ONLY, 0xFFFFFF, 0, qkey=qk,
               sqpn=self.rnd.randrange(2, PSN_MASK),
               payload=self.payload(self.rnd.randrange(0, 1025)))
        self.send("mcast_flood", True, b, dst=ip, n=n)

    KINDS = [("trunc", 10), ("oversize", 6), ("badseq", 8), ("abandon", 4),
             ("ucgap", 4), ("dupread", 6), ("bigreth", 6), ("badkey", 10),
             ("psnedge", 6), ("atomic", 5), ("b2a", 10), ("gsi", 3),
             ("unknown_qpn", 3)]

    def run(self):
        a = self.a
        print("# hostile.py seed %d (replay: HOSTILE_SEED=%d), %d s" %
              (a.seed, a.seed, a.secs), flush=True)
        t_end = time.monotonic() + 60
        while not self.t.reload():
            if time.monotonic() > t_end:
                print("# FAIL: no target file %s" % a.target)
                return 1
            time.sleep(0.2)
        self.ip_a, self.ip_b = self.t.kv["ip_a"], self.t.kv["ip_b"]
        self.sa = in_netns(a.ns_a, raw_sock)
        self.sb = in_netns(a.ns_b, raw_sock)

        def sniff_sock():
            s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW,
                              socket.htons(3))
            s.bind((a.sniff_if, 0))
            s.settimeout(0.2)
            return s
        self.sn = Sniffer(in_netns(a.ns_a, sniff_sock), self.ip_a, self.ip_b,
                          self.t.num("mtu", 1024))
        self.sn.start()
        skip = set(a.skip.replace("+", ",").split(",")) if a.skip else set()
        kinds = [getattr(self, "k_" + k) for k, w in self.KINDS if k not in skip]
        weights = [w for k, w in self.KINDS if k not in skip]
        if skip:
            print("# kinds left out: %s" % ",".join(sorted(skip)), flush=True)
        start = time.monotonic()
        end = start + a.secs
        # floods and multicast bursts at seeded times
        specials = sorted([(start + self.rnd.uniform(2, a.secs - 1), self.k_flood)
                           for _ in range(max(1, a.secs // 20))] +
                          [(start + self.rnd.uniform(2, a.secs - 1), self.k_mcast)
                           for _ in range(max(1, a.secs // 30))],
                          key=lambda x: x[0])
        last_reload = 0
        while time.monotonic() < end:
            now = time.monotonic()
            if now - last_reload > 0.3:
                self.t.reload()
                last_reload = now
            if not self.t.qps:
                time.sleep(0.1)
                continue
            if specials and now >= specials[0][0]:
                specials.pop(0)[1]()
                continue
            self.rnd.choices(kinds, weights)[0]()
            time.sleep(self.rnd.uniform(0, 0.01))
        self.sn.stop = True
        total = sum(self.counts.values())
        print("# hostile.py sent %d packets in %.0f s (target generation %d, "
              "%d victim requests sniffed, %d refused by the local stack):" %
              (total, time.monotonic() - start, self.t.gen, self.sn.seen,
               self.rejected))
        for k in sorted(self.counts):
            print("#   %-22s %6d" % (k, self.counts[k]))
        return 0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--target", required=True)
    ap.add_argument("--secs", type=int, default=60)
    ap.add_argument("--seed", type=int, default=None)
    ap.add_argument("--ns-a", default="sroce_a")
    ap.add_argument("--ns-b", default="sroce_b")
    ap.add_argument("--sniff-if", default="veth_a")
    ap.add_argument("--skip", default="",
                    help="kinds (k_NAME without k_) left out, separated by , or +")
    a = ap.parse_args()
    if a.seed is None:
        a.seed = int(time.time())
    return Injector(a).run()


if __name__ == "__main__":
    sys.exit(main())
