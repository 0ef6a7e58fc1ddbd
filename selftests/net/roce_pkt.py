#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Craft and send RoCEv2 packets for sroce's network-layer selftests.

The ICRC is computed here independently of the kernel (zlib's CRC-32 over
the IBA Annex A17 invariant fields), so a packet this tool calls valid is
valid by the spec, not by sroce's own code.

IPv4 and IPv6 packets are sent whole (IP + UDP + BTH .. ICRC) through a
raw IPPROTO_RAW socket (header included), so every field the ICRC covers
is the tool's choice. "garbage" uses a plain UDP socket.

usage: roce_pkt.py KIND DST [--count N] [--qpn Q] [--opcode OP] [--seed S]
Prints the number of packets sent and the sum of their IB lengths (BTH
through ICRC) as "sent N bytes B".

KIND "req" sends one RC request (or response) of any opcode to a live QP (--psn, --va,
--rkey, --dmalen fill the RETH or AtomicETH, --payload its length, --pkey
the BTH P_Key; --secs S sends it again and again for S seconds) and,
with --sniff IFACE --reply-qpn Q, waits up to 3 s for the acknowledge the
responder sends to QP Q and prints "reply syndrome 0xSS psn 0xPPPPPP"
(or "reply none"): the requester's view of an injected error request.
"""
import argparse
import ipaddress
import os
import random
import socket
import struct
import sys
import zlib

ROCE_PORT = 4791
SPORT = 0xC123

# opcode -> extension header bytes after the BTH (IBA 9.2, table 38)
EXT_LEN = {
    0x01: 0,        # RC SEND MIDDLE
    0x02: 0,        # RC SEND LAST
    0x04: 0,        # RC SEND ONLY
    0x07: 0,        # RC RDMA WRITE MIDDLE
    0x08: 0,        # RC RDMA WRITE LAST
    0x0A: 16,       # RC RDMA WRITE ONLY (RETH)
    0x0C: 16,       # RC RDMA READ REQUEST (RETH)
    0x0E: 0,        # RC RDMA READ RESPONSE MIDDLE
    0x0F: 4,        # RC RDMA READ RESPONSE LAST (AETH)
    0x11: 4,        # RC ACKNOWLEDGE (AETH)
    0x13: 28,       # RC COMPARE SWAP (AtomicETH)
    0x14: 28,       # RC FETCH ADD (AtomicETH)
    0x24: 0,        # UC SEND ONLY
    0x64: 8,        # UD SEND ONLY (DETH)
    0x65: 12,       # UD SEND ONLY WITH IMMEDIATE (DETH + ImmDt)
}
HAS_PAYLOAD = {0x01, 0x02, 0x04, 0x07, 0x08, 0x0A, 0x0E, 0x0F, 0x24, 0x64,
               0x65}


def bth(opcode, dqpn, psn=0, pad=0, tver=0, pkey=0xFFFF, ackreq=False):
    return struct.pack(">BBHII", opcode, (pad << 4) | tver, pkey,
                       dqpn & 0xFFFFFF,
                       (0x80000000 if ackreq else 0) | (psn & 0xFFFFFF))


def ib_packet(opcode, dqpn, payload=b"", tver=0, pkey=0xFFFF,
              qkey=0x11111111):
    """BTH + extension headers (zeroed, DETH Q_Key @qkey from QP 1) +
    payload + pad, without the ICRC."""
    pad = -len(payload) & 3
    ext = bytearray(EXT_LEN.get(opcode, 0))
    if opcode in (0x64, 0x65):
        ext[0:8] = struct.pack(">II", qkey, 0x000001)
    return bth(opcode, dqpn, pad=pad, tver=tver, pkey=pkey) + bytes(ext) + \
        payload + bytes(pad)


RETH_OPS = {0x06, 0x0A, 0x0B, 0x0C,        # RC WRITE FIRST/ONLY(+imm), READ
            0x26, 0x2A}                   # UC WRITE FIRST/ONLY
ATOMIC_OPS = {0x13, 0x14}                 # RC COMPARE SWAP, FETCH ADD
IMM_OPS = {0x03, 0x05, 0x09, 0x0B}
AETH_OPS = {0x0D, 0x0F, 0x10, 0x11,       # RC READ RESPONSE FIRST/LAST/ONLY, ACK
            0x12}                         # RC ATOMIC ACKNOWLEDGE (+AtomicAckETH)


def rc_request(opcode, dqpn, psn, va, rkey, dmalen, payload, pkey=0xFFFF):
    """One RC (or UC) request: BTH (AckReq) + RETH/AtomicETH/ImmDt +
    payload, with P_Key @pkey."""
    ext = b""
    if opcode in RETH_OPS:
        ext += struct.pack(">QII", va, rkey, dmalen)
    if opcode in ATOMIC_OPS:
        ext += struct.pack(">QIQQ", va, rkey, 1, 0)
    if opcode in IMM_OPS:
        ext += struct.pack(">I", 0x1234)
    if opcode in AETH_OPS:
        ext += struct.pack(">I", 0)      # ACK syndrome, MSN 0
    if opcode == 0x12:
        ext += struct.pack(">Q", 0)      # original remote data
    if opcode in AETH_OPS:
        return bth(opcode, dqpn, psn=psn, pad=-len(payload) & 3,
                   pkey=pkey) + ext + payload + bytes(-len(payload) & 3)
    pad = -len(payload) & 3
    return bth(opcode, dqpn, psn=psn, pad=pad, ackreq=True, pkey=pkey) + \
        ext + payload + bytes(pad)


def sniff_open(ifname):
    s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(3))
    s.bind((ifname, 0))
    s.settimeout(0.2)
    return s


def sniff_reply(s, src, qpn, secs=3.0):
    """The (syndrome, psn) of the first RC ACKNOWLEDGE from @src to @qpn."""
    import time
    end = time.monotonic() + secs
    want = socket.inet_aton(src)
    while time.monotonic() < end:
        try:
            f = s.recv(2048)
        except socket.timeout:
            continue
        if len(f) < 14 + 20 + 8 + 16 or f[12:14] != b"\x08\x00":
            continue
        ip = f[14:]
        ihl = (ip[0] & 15) * 4
        if ip[9] != socket.IPPROTO_UDP or ip[12:16] != want:
            continue
        udp = ip[ihl:]
        if struct.unpack(">H", udp[2:4])[0] != ROCE_PORT:
            continue
        ib = udp[8:]
        dqpn = struct.unpack(">I", ib[4:8])[0] & 0xFFFFFF
        if ib[0] != 0x11 or dqpn != qpn:
            continue
        psn = struct.unpack(">I", ib[8:12])[0] & 0xFFFFFF
        return ib[12], psn
    return None


def ipv4_hdr(src, dst, total_len, ident=0x1234, tos=0, ttl=64, frag=0x4000):
    h = struct.pack(">BBHHHBBH4s4s", 0x45, tos, total_len, ident, frag, ttl,
                    socket.IPPROTO_UDP, 0, socket.inet_aton(src),
                    socket.inet_aton(dst))
    csum = inet_csum(h)
    return h[:10] + struct.pack(">H", csum) + h[12:]


def ipv6_hdr(src, dst, payload_len, tclass=0, flow=0, hop=64):
    w = (6 << 28) | (tclass << 20) | flow
    return struct.pack(">IHBB16s16s", w, payload_len, socket.IPPROTO_UDP,
                       hop, socket.inet_pton(socket.AF_INET6, src),
                       socket.inet_pton(socket.AF_INET6, dst))


def inet_csum(data):
    if len(data) & 1:
        data += b"\0"
    s = sum(struct.unpack(">%dH" % (len(data) // 2), data))
    while s >> 16:
        s = (s & 0xFFFF) + (s >> 16)
    return ~s & 0xFFFF


def icrc(iph, udph, ib):
    """IBA A17.3.3: CRC-32 over 8 x 0xff, IP/UDP/BTH with the variant
    fields set to 1s, then the rest; stored little endian."""
    ip = bytearray(iph)
    if ip[0] >> 4 == 4:
        ip[1] = 0xFF                     # TOS
        ip[8] = 0xFF                     # TTL
        ip[10:12] = b"\xff\xff"          # header checksum
    else:
        ip[0] |= 0x0F                    # traffic class (high nibble)
        ip[1:4] = b"\xff\xff\xff"        # traffic class + flow label
        ip[7] = 0xFF                     # hop limit
    udp = bytearray(udph)
    udp[6:8] = b"\xff\xff"               # UDP checksum
    b = bytearray(ib)
    b[4] = 0xFF                          # FECN, BECN, resv6a
    crc = zlib.crc32(b"\xff" * 8 + bytes(ip) + bytes(udp) + bytes(b))
    return struct.pack("<I", crc)


def frame(src, dst, ib, good_icrc=True, with_icrc=True):
    """The whole IP packet for IB bytes @ib (BTH .. pad)."""
    v6 = ":" in dst
    ulen = 8 + len(ib) + (4 if with_icrc else 0)
    udp = struct.pack(">HHHH", SPORT, ROCE_PORT, ulen, 0)
    if v6:
        iph = ipv6_hdr(src, dst, ulen)
    else:
        iph = ipv4_hdr(src, dst, 20 + ulen)
    tail = b""
    if with_icrc:
        tail = icrc(iph, udp, ib)
        if not good_icrc:
            tail = bytes([tail[0] ^ 0x01]) + tail[1:]
    if v6:
        pseudo = iph[8:40] + struct.pack(">IxxxB", ulen, socket.IPPROTO_UDP)
        c = inet_csum(pseudo + udp + ib + tail) or 0xFFFF
        udp = udp[:6] + struct.pack(">H", c)
    return iph + udp + ib + tail


def fragments_v4(pkt, mtu=1500):
    """Split an IPv4 packet (no DF) into fragments, as a router would."""
    hdr, body = pkt[:20], pkt[20:]
    step = (mtu - 20) & ~7
    out = []
    for off in range(0, len(body), step):
        chunk = body[off:off + step]
        more = 0x2000 if off + step < len(body) else 0
        h = bytearray(hdr)
        struct.pack_into(">H", h, 2, 20 + len(chunk))
        struct.pack_into(">H", h, 6, more | (off >> 3))
        h[10:12] = b"\0\0"
        struct.pack_into(">H", h, 10, inet_csum(bytes(h)))
        out.append(bytes(h) + chunk)
    return out


def src_for(dst):
    """The address this namespace uses towards @dst."""
    fam = socket.AF_INET6 if ":" in dst else socket.AF_INET
    s = socket.socket(fam, socket.SOCK_DGRAM)
    s.connect((dst, ROCE_PORT))
    a = s.getsockname()[0]
    s.close()
    return a


def raw_send(dst, pkts):
    fam = socket.AF_INET6 if ":" in dst else socket.AF_INET
    s = socket.socket(fam, socket.SOCK_RAW, socket.IPPROTO_RAW)
    for p in pkts:
        s.sendto(p, (dst, 0))
    s.close()


def flood(dst, pkt, iblen, secs):
    """The same packet again and again for @secs seconds, as fast as the
    CPU sends: "flooding" once the first left (a caller may wait for it),
    the count at the end."""
    import time
    fam = socket.AF_INET6 if ":" in dst else socket.AF_INET
    s = socket.socket(fam, socket.SOCK_RAW, socket.IPPROTO_RAW)
    s.sendto(pkt, (dst, 0))
    print("flooding", flush=True)
    n, end = 1, time.monotonic() + secs
    while time.monotonic() < end:
        for _ in range(32):
            s.sendto(pkt, (dst, 0))
        n += 32
    s.close()
    print("sent %d bytes %d" % (n, n * iblen))
    return 0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("kind", choices=["valid", "badicrc", "short", "badop",
                                     "tver", "cnp", "cnpshort", "cnplong",
                                     "mcastqp", "frag",
                                     "garbage", "fuzz", "req"])
    ap.add_argument("dst")
    ap.add_argument("--count", type=int, default=1)
    ap.add_argument("--qpn", type=lambda x: int(x, 0), default=0xABCDE)
    ap.add_argument("--opcode", type=lambda x: int(x, 0), default=0x64)
    ap.add_argument("--payload", type=int, default=64)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--psn", type=lambda x: int(x, 0), default=0)
    ap.add_argument("--va", type=lambda x: int(x, 0), default=0)
    ap.add_argument("--rkey", type=lambda x: int(x, 0), default=0)
    ap.add_argument("--dmalen", type=lambda x: int(x, 0), default=0)
    ap.add_argument("--pkey", type=lambda x: int(x, 0), default=0xFFFF)
    ap.add_argument("--qkey", type=lambda x: int(x, 0), default=0x11111111)
    ap.add_argument("--secs", type=float, default=0)
    ap.add_argument("--sniff")
    ap.add_argument("--reply-qpn", type=lambda x: int(x, 0), default=0)
    a = ap.parse_args()
    rnd = random.Random(a.seed)
    dst = str(ipaddress.ip_address(a.dst))
    src = src_for(dst)
    pkts, iblen = [], 0

    def add(ib, **kw):
        nonlocal iblen
        p = frame(src, dst, ib, **kw)
        pkts.append(p)
        iblen += len(ib) + (4 if kw.get("with_icrc", True) else 0)

    if a.kind == "req":
        sn = sniff_open(a.sniff) if a.sniff else None
        pl = bytes(rnd.getrandbits(8) for _ in range(a.payload))
        add(rc_request(a.opcode, a.qpn, a.psn, a.va, a.rkey, a.dmalen, pl,
                       a.pkey))
        if a.secs:
            return flood(dst, pkts[0], iblen, a.secs)
        raw_send(dst, pkts)
        print("sent %d bytes %d" % (1, iblen))
        if sn:
            r = sniff_reply(sn, dst, a.reply_qpn)
            if r:
                print("reply syndrome 0x%02x psn 0x%06x" % r)
            else:
                print("reply none")
        return 0

    for i in range(a.count):
        if a.kind in ("valid", "badicrc"):
            op = a.opcode
            pl = bytes(rnd.getrandbits(8) for _ in range(a.payload)) \
                if op in HAS_PAYLOAD else b""
            add(ib_packet(op, a.qpn, pl, pkey=a.pkey, qkey=a.qkey),
                good_icrc=a.kind == "valid")
        elif a.kind == "short":
            # 0 .. 15 bytes of UDP payload: no room for BTH + ICRC
            n = i % 16
            add(bth(0x04, a.qpn)[:n], with_icrc=False)
        elif a.kind == "badop":
            # reserved RC/UC/UD opcodes and the RD range, correct ICRC
            ops = [0x15, 0x18, 0x1F, 0x2C, 0x3F, 0x40, 0x4A, 0x60, 0x66,
                   0x7F, 0xA0, 0xC0, 0xFF]
            add(ib_packet(ops[i % len(ops)], a.qpn, b""))
        elif a.kind == "tver":
            add(ib_packet(0x04, a.qpn, b"abcd", tver=1 + i % 15))
        elif a.kind == "cnp":
            # IBA A17.9.2: BTH (BECN set) + 16 reserved bytes + ICRC
            ib = bytearray(bth(0x81, a.qpn) + bytes(16))
            ib[4] |= 0x40
            add(bytes(ib))
        elif a.kind == "cnpshort":
            # 1 .. 15 reserved bytes: truncated
            add(bth(0x81, a.qpn) + bytes(1 + i % 15))
        elif a.kind == "cnplong":
            # 17 .. 32 bytes after the BTH: a CNP has no payload
            add(bth(0x81, a.qpn) + bytes(17 + i % 16))
        elif a.kind == "mcastqp":
            add(ib_packet(0x64, 0xFFFFFF, b"abcd"))
        elif a.kind == "frag":
            ib = ib_packet(0x04, a.qpn, bytes(rnd.getrandbits(8)
                                             for _ in range(a.payload)))
            p = frame(src, dst, ib)
            p = p[:6] + b"\0\0" + p[8:]          # no DF: may fragment
            p = p[:10] + b"\0\0" + p[12:]
            p = p[:10] + struct.pack(">H", inet_csum(p[:20])) + p[12:]
            # the ICRC covers the reassembled header: frag_off 0
            ib_icrc = frame_icrc_nodf(src, dst, ib)
            p = p[:-4] + ib_icrc
            pkts.extend(fragments_v4(p))
            iblen += len(ib) + 4
        elif a.kind == "fuzz":
            # random BTH and headers with a correct ICRC: parser fuzz
            n = rnd.randrange(12, 120)
            ib = bytearray(rnd.getrandbits(8) for _ in range(n))
            if rnd.random() < 0.5:
                ib[0] = rnd.choice(list(EXT_LEN))
            if rnd.random() < 0.5:
                ib[1] &= 0xF0
            add(bytes(ib))
        elif a.kind == "garbage":
            pass

    if a.kind == "garbage":
        fam = socket.AF_INET6 if ":" in dst else socket.AF_INET
        s = socket.socket(fam, socket.SOCK_DGRAM)
        for _ in range(a.count):
            n = rnd.randrange(0, 200)
            d = bytes(rnd.getrandbits(8) for _ in range(n))
            s.sendto(d, (dst, ROCE_PORT))
            iblen += n
        s.close()
        print("sent %d bytes %d" % (a.count, iblen))
        return 0

    raw_send(dst, pkts)
    print("sent %d bytes %d" % (a.count, iblen))
    return 0


def frame_icrc_nodf(src, dst, ib):
    ulen = 8 + len(ib) + 4
    udp = struct.pack(">HHHH", SPORT, ROCE_PORT, ulen, 0)
    iph = ipv4_hdr(src, dst, 20 + ulen, frag=0)
    return icrc(iph, udp, ib)


if __name__ == "__main__":
    sys.exit(main())
