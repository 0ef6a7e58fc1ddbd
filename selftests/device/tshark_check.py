#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Check a capture of sroce's traffic against tshark's decoding of it.

  tshark_check.py PCAP FIELDS MANIFEST --ip4 A,B --ip6 A,B [--expect I M]
  tshark_check.py --corrupt PCAP BAD_PCAP

PCAP: tcpdump's capture (classic pcap, Ethernet) of UDP port 4791.
FIELDS: tshark -T fields -E header=y output of the same file, with at
least the fields of FIELD_NAMES (tshark.sh makes it). MANIFEST: the
traffic program's output, whose "wire type=..." lines name each pair's
QPNs and PSN range (hardening/hard_wire.c).

Every RoCEv2 packet must be decoded by tshark's InfiniBand dissector with
no malformed-packet or error-level expert item; its ICRC must be right
(computed here from the captured bytes, IBA A17.3.3: tshark 4.4 shows the
field but does not verify it) and equal to the field tshark decodes;
every opcode sroce sends must appear; the BTH destination QP, PSN and
the DETH source QP must be the manifest's.

--corrupt writes a copy with one bad ICRC and one malformed packet;
--expect checks that copy and passes only if exactly those two packets
fail, for those reasons: the check can fail.
"""
import argparse
import ipaddress
import os
import struct
import sys

sys.dont_write_bytecode = True     # no __pycache__ in the source tree
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "net"))
from roce_pkt import icrc  # noqa: E402  (IBA A17.3.3 masking + CRC-32)

ROCE_PORT = 4791
FIELD_NAMES = ["frame.number", "udp.dstport", "infiniband.bth.opcode",
               "infiniband.bth.destqp", "infiniband.bth.psn",
               "infiniband.aeth.syndrome", "infiniband.deth.srcqp",
               "infiniband.invariant.crc", "_ws.malformed",
               "_ws.expert.severity", "_ws.expert.message"]
PI_ERROR = 0x00800000       # epan/proto.h expert severity "error"

RC, UC, UD = "RC", "UC", "UD"
OPCODES = {
    0x00: "RC SEND FIRST", 0x01: "RC SEND MIDDLE", 0x02: "RC SEND LAST",
    0x03: "RC SEND LAST IMM", 0x04: "RC SEND ONLY", 0x05: "RC SEND ONLY IMM",
    0x06: "RC WRITE FIRST", 0x07: "RC WRITE MIDDLE", 0x08: "RC WRITE LAST",
    0x09: "RC WRITE LAST IMM", 0x0a: "RC WRITE ONLY",
    0x0b: "RC WRITE ONLY IMM", 0x0c: "RC READ REQUEST",
    0x0d: "RC READ RESPONSE FIRST", 0x0e: "RC READ RESPONSE MIDDLE",
    0x0f: "RC READ RESPONSE LAST", 0x10: "RC READ RESPONSE ONLY",
    0x11: "RC ACKNOWLEDGE", 0x12: "RC ATOMIC ACKNOWLEDGE",
    0x13: "RC CMP_SWAP", 0x14: "RC FETCH_ADD",
    0x16: "RC SEND LAST INV", 0x17: "RC SEND ONLY INV",
    0x20: "UC SEND FIRST", 0x21: "UC SEND MIDDLE", 0x22: "UC SEND LAST",
    0x23: "UC SEND LAST IMM", 0x24: "UC SEND ONLY", 0x25: "UC SEND ONLY IMM",
    0x26: "UC WRITE FIRST", 0x27: "UC WRITE MIDDLE", 0x28: "UC WRITE LAST",
    0x29: "UC WRITE LAST IMM", 0x2a: "UC WRITE ONLY",
    0x2b: "UC WRITE ONLY IMM",
    0x64: "UD SEND ONLY", 0x65: "UD SEND ONLY IMM",
}
# Responder to requester (RC only); every other opcode is a request.
READ_RESPONSES = {0x0d, 0x0e, 0x0f, 0x10}
RESPONSES = READ_RESPONSES | {0x11, 0x12}
# ACKNOWLEDGE kinds by AETH syndrome bits 6..5 (IBA 9.7.5.2.1); every one
# must appear: the ACK itself, the RNR NAK, the PSN sequence error NAK.
ACK_KINDS = ["ACK", "RNR NAK", "NAK PSN sequence error"]


def aeth_kind(syn):
    k = (syn >> 5) & 3
    if k == 0:
        return "ACK"
    if k == 1:
        return "RNR NAK"
    if k == 3:
        return "NAK PSN sequence error" if syn & 0x1f == 0 else \
            "NAK code %d" % (syn & 0x1f)
    return "reserved syndrome 0x%02x" % syn


def read_pcap(path):
    """{frame number: Ethernet frame bytes} of a classic pcap file."""
    with open(path, "rb") as f:
        data = f.read()
    magic = data[:4]
    if magic in (b"\xd4\xc3\xb2\xa1", b"\x4d\x3c\xb2\xa1"):
        end = "<"
    elif magic in (b"\xa1\xb2\xc3\xd4", b"\xa1\xb2\x3c\x4d"):
        end = ">"
    else:
        raise SystemExit("%s: not a classic pcap file" % path)
    linktype = struct.unpack(end + "I", data[20:24])[0]
    if linktype != 1:
        raise SystemExit("%s: link type %d, not Ethernet" % (path, linktype))
    frames, off, n = {}, 24, 0
    while off + 16 <= len(data):
        incl, orig = struct.unpack(end + "II", data[off + 8:off + 16])
        n += 1
        if incl != orig:
            raise SystemExit("frame %d truncated by the capture (%d of %d)"
                             % (n, incl, orig))
        frames[n] = data[off + 16:off + 16 + incl]
        off += 16 + incl
    return frames


def split_frame(fr):
    """(family, src, dst, ip header, udp header, IB bytes, ICRC bytes) of a
    RoCEv2 frame, or None for any other frame."""
    eth = 14
    etype = struct.unpack(">H", fr[12:14])[0]
    if etype == 0x0800:
        ihl = (fr[eth] & 0x0f) * 4
        if fr[eth + 9] != 17:
            return None
        tot = struct.unpack(">H", fr[eth + 2:eth + 4])[0]
        ip = fr[eth:eth + ihl]
        fam, src, dst = 4, ip[12:16], ip[16:20]
        end = eth + tot
    elif etype == 0x86dd:
        ip = fr[eth:eth + 40]
        if ip[6] != 17:
            return None
        fam, src, dst = 6, ip[8:24], ip[24:40]
        end = eth + 40 + struct.unpack(">H", ip[4:6])[0]
    else:
        return None
    u = eth + len(ip)
    udp = fr[u:u + 8]
    if struct.unpack(">H", udp[2:4])[0] != ROCE_PORT:
        return None
    body = fr[u + 8:end]
    return (fam, ipaddress.ip_address(src), ipaddress.ip_address(dst), ip,
            udp, body[:-4], body[-4:])


def icrc_ok(parts):
    fam, src, dst, ip, udp, ib, tail = parts
    return icrc(ip, udp, ib) == tail


def read_fields(path):
    """{frame number: {field: value}} from tshark -T fields -E header=y."""
    rows = {}
    with open(path) as f:
        names = f.readline().rstrip("\n").split("\t")
        miss = set(FIELD_NAMES) - set(names)
        if miss:
            raise SystemExit("%s lacks the fields %s" % (path, sorted(miss)))
        for line in f:
            col = line.rstrip("\n").split("\t")
            col += [""] * (len(names) - len(col))
            r = dict(zip(names, col))
            rows[int(r["frame.number"])] = r
    return rows


def read_manifest(path):
    pairs = []
    with open(path) as f:
        for line in f:
            if " wire type=" not in line:
                continue
            kv = dict(w.split("=", 1) for w in
                      line.split(" wire ", 1)[1].split())
            pairs.append({"type": kv["type"], "fam": int(kv["fam"]),
                          "qa": int(kv["qpn_a"], 16),
                          "qb": int(kv["qpn_b"], 16),
                          "psn": int(kv["psn_a"], 16),
                          "npsn": int(kv["npsn"]), "seen": set()})
    return pairs


def write_pcap(path, frames):
    with open(path, "wb") as f:
        f.write(struct.pack("<IHHiIII", 0xa1b2c3d4, 2, 4, 0, 0, 262144, 1))
        for n in sorted(frames):
            fr = frames[n]
            f.write(struct.pack("<IIII", n, 0, len(fr), len(fr)) + fr)


def corrupt(src, dst):
    """A copy of capture @src with two packets broken the ways the check
    must catch: the last payload byte of the first SEND flipped (a bad
    ICRC, nothing tshark sees) and the first IPv4 ACKNOWLEDGE made a WRITE
    ONLY (lengths unchanged, so tshark runs out of bytes in the RETH: a
    malformed packet). Prints the two frame numbers."""
    frames = read_pcap(src)
    flip = trunc = None
    for n in sorted(frames):
        parts = split_frame(frames[n])
        if parts is None:
            continue
        op = parts[5][0]
        if flip is None and op in (0x04, 0x24, 0x64):
            flip = n
        if trunc is None and op == 0x11 and parts[0] == 4:
            trunc = n
    if flip is None or trunc is None:
        raise SystemExit("no SEND ONLY or IPv4 ACKNOWLEDGE to corrupt")
    fr = bytearray(frames[flip])
    fr[-5] ^= 0x01
    frames[flip] = bytes(fr)
    fr = bytearray(frames[trunc])
    fr[14 + (fr[14] & 0x0f) * 4 + 8] = 0x0a
    frames[trunc] = bytes(fr)
    write_pcap(dst, frames)
    print("%d %d" % (flip, trunc))


def check(a):
    """The list of what is wrong with the capture (empty: all good)."""
    ips = {4: [ipaddress.ip_address(x) for x in a.ip4.split(",")],
           6: [ipaddress.ip_address(x) for x in a.ip6.split(",")]}
    frames = read_pcap(a.pcap)
    rows = read_fields(a.fields)
    pairs = read_manifest(a.manifest)
    errs = []

    def bad(n, msg):
        errs.append("frame %d: %s" % (n, msg))

    if not pairs:
        raise SystemExit("no 'wire type=' lines in %s" % a.manifest)
    # QPNs are per device: a pair's two QPs may have the same number.
    byqpn = {}
    for p in pairs:
        a_ip, b_ip = ips[p["fam"]]
        for k in ((a_ip, p["qa"]), (b_ip, p["qb"])):
            if k in byqpn:
                raise SystemExit("QPN 0x%06x of %s used by two pairs"
                                 % (k[1], k[0]))
            byqpn[k] = p

    counts, kinds, nroce, nicrc = {}, {}, 0, 0
    for n in sorted(frames):
        parts = split_frame(frames[n])
        if parts is None:
            continue
        nroce += 1
        fam, src, dst, ip, udp, ib, tail = parts
        r = rows.get(n)
        if r is None:
            bad(n, "not in tshark's output")
            continue
        if len(frames[n]) - 14 > a.mtu:
            bad(n, "IP packet of %d bytes, over the MTU (a GSO super-packet?)"
                % (len(frames[n]) - 14))
        if r["_ws.malformed"]:
            bad(n, "tshark: malformed (%s)" % r["_ws.expert.message"])
        sev = [int(x) for x in r["_ws.expert.severity"].split(",") if x]
        if any(x >= PI_ERROR for x in sev):
            bad(n, "tshark expert error: %s" % r["_ws.expert.message"])
        if not r["infiniband.bth.opcode"]:
            bad(n, "UDP port 4791 not decoded as InfiniBand")
            continue
        op = int(r["infiniband.bth.opcode"])
        qpn = int(r["infiniband.bth.destqp"], 16)
        psn = int(r["infiniband.bth.psn"])
        # The dissector's view of the header layout must match ours: its
        # ICRC field is the packet's last 4 bytes.
        if r["infiniband.invariant.crc"] == "":
            bad(n, "tshark decoded no ICRC")
        elif int(r["infiniband.invariant.crc"], 16) != \
                struct.unpack(">I", tail)[0]:
            bad(n, "tshark's ICRC %s is not the packet's last 4 bytes %s"
                % (r["infiniband.invariant.crc"], tail.hex()))
        if icrc_ok(parts):
            nicrc += 1
        else:
            bad(n, "bad ICRC %s, want %s" % (tail.hex(),
                                             icrc(ip, udp, ib).hex()))
        if op not in OPCODES:
            bad(n, "opcode 0x%02x is not one sroce sends" % op)
            continue
        counts[op] = counts.get(op, 0) + 1
        if op == 0x11:
            k = aeth_kind(int(r["infiniband.aeth.syndrome"] or 0))
            kinds[k] = kinds.get(k, 0) + 1
        p = byqpn.get((dst, qpn))
        if p is None:
            bad(n, "destination QP 0x%06x of %s is none of the test's"
                % (qpn, dst))
            continue
        want_tr = {RC: 0, UC: 1, UD: 3}[p["type"]]
        if op >> 5 != want_tr:
            bad(n, "%s on the %s pair" % (OPCODES[op], p["type"]))
        resp = op in RESPONSES
        a_ip, b_ip = ips[fam]
        want = (b_ip, a_ip, p["qa"]) if resp else (a_ip, b_ip, p["qb"])
        if (src, dst, qpn) != want:
            bad(n, "%s %s -> %s to QP 0x%06x, want %s -> %s to QP 0x%06x"
                % (OPCODES[op], src, dst, qpn, *want))
        off = (psn - p["psn"]) % (1 << 24)
        if off >= p["npsn"]:
            bad(n, "%s PSN 0x%06x outside the pair's 0x%06x + %d"
                % (OPCODES[op], psn, p["psn"], p["npsn"]))
        elif not resp or op in READ_RESPONSES:
            p["seen"].add(off)
        if op >> 5 == 3:
            sq = r["infiniband.deth.srcqp"]
            if not sq or int(sq, 16) != p["qa"]:
                bad(n, "DETH source QP %s, want 0x%06x" % (sq, p["qa"]))

    # Every PSN of the range went out (a READ's after its first in the
    # responses).
    for p in pairs:
        miss = p["npsn"] - len(p["seen"])
        if miss:
            errs.append("%s IPv%d pair: %d of its %d PSNs not seen"
                        % (p["type"], p["fam"], miss, p["npsn"]))
    print("# %d RoCEv2 packets, %d pairs; ICRC right in %d" %
          (nroce, len(pairs), nicrc))
    for op in sorted(OPCODES):
        if not a.expect:
            print("# %-26s 0x%02x %5d" % (OPCODES[op], op, counts.get(op, 0)))
        if not counts.get(op):
            errs.append("no %s (0x%02x) in the capture" % (OPCODES[op], op))
    for k in ACK_KINDS:
        if not a.expect:
            print("# ACKNOWLEDGE %-26s %5d" % (k, kinds.get(k, 0)))
        if not kinds.get(k):
            errs.append("no ACKNOWLEDGE that is a %s" % k)
    for k in sorted(set(kinds) - set(ACK_KINDS)):
        errs.append("%d ACKNOWLEDGE %s" % (kinds[k], k))
    return errs


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--corrupt", nargs=2, metavar=("IN", "OUT"),
                    help="write a broken copy of IN to OUT (see corrupt())")
    ap.add_argument("pcap", nargs="?")
    ap.add_argument("fields", nargs="?")
    ap.add_argument("manifest", nargs="?")
    ap.add_argument("--ip4")
    ap.add_argument("--ip6")
    ap.add_argument("--mtu", type=int, default=1500)
    ap.add_argument("--expect", nargs=2, type=int, metavar=("ICRC", "MALF"),
                    help="the capture is corrupt()'s: pass if exactly "
                    "these frames fail, the first for its ICRC, the second "
                    "as malformed")
    a = ap.parse_args()
    if a.corrupt:
        corrupt(*a.corrupt)
        return 0
    if not (a.pcap and a.fields and a.manifest and a.ip4 and a.ip6):
        ap.error("give PCAP FIELDS MANIFEST --ip4 A,B --ip6 A,B")
    errs = check(a)
    if a.expect:
        got = {e.split(":", 1)[0] for e in errs}
        icrc_n, malf_n = a.expect
        found_icrc = any(e.startswith("frame %d: bad ICRC" % icrc_n)
                         for e in errs)
        found_malf = any(e.startswith("frame %d: tshark: malformed" % malf_n)
                         for e in errs)
        print("# self-check: frame %d's flipped byte %s, frame %d's "
              "opcode %s" % (icrc_n, "caught (bad ICRC)" if found_icrc else
                             "NOT caught", malf_n, "caught (malformed)"
                             if found_malf else "NOT caught"))
        others = got - {"frame %d" % icrc_n, "frame %d" % malf_n}
        for e in errs:
            if e.split(":", 1)[0] in others:
                print("# FAIL: self-check: also %s" % e)
        return 0 if found_icrc and found_malf and not others else 1
    for e in errs[:40]:
        print("# FAIL: %s" % e)
    if len(errs) > 40:
        print("# ... and %d more" % (len(errs) - 40))
    return 1 if errs else 0


if __name__ == "__main__":
    sys.exit(main())
