#!/usr/bin/env python3
"""gen_corpus.py: write the binary and JSON seed inputs of the fuzz targets
(tests/fuzz/corpus/{smp,sa,control,sweep}) as the fabric and clients send them:
SubnGet/Set(SMInfo), traps 128/129/144 and vendor traps, GetResps; SA
queries of every record family with Get/GetTable/Set/Delete/GetMulti, the
masks saquery and the IPoIB/rdma-cm stacks use, RMPP ACK/STOP/ABORT
sequences after a GetTable; status socket requests of every command.

Frame format of smp and sa inputs: one selector byte (requester: index into
the fake fabric's port LIDs, bit 7 QP0) and 256 MAD bytes, repeated.
The fake fabric (tests/fuzz/fuzzenv.c) has CAs h1..h6 with node GUIDs
0x100000, 0x100002, ... (port GUID = node GUID + port), switches 0x200000..

Run from anywhere: python3 tests/fuzz/gen_corpus.py [CORPUS_DIR]
"""
import json
import os
import struct
import sys

OUT = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(
    os.path.abspath(__file__)), "corpus")
PREFIX = bytes.fromhex("fe80000000000000")


def gid(guid):
    return PREFIX + struct.pack(">Q", guid)


def port_guid(host, port=1):
    """h1..h6 as in fuzzenv.c: node GUIDs 0x100000, +2 per 1-port CA"""
    return 0x100000 + 2 * (host - 1) + port


def mad_hdr(mclass, cver, method, attr, attr_mod=0, tid=0x1234, status=0):
    return struct.pack(">BBBBHHQHHI", 1, mclass, cver, method, status, 0, tid, attr, 0,
                       attr_mod)


def smp(method, attr, data=b"", attr_mod=0, dr=False, tid=0x42, hops=b""):
    if dr:
        h = bytearray(mad_hdr(0x81, 1, method, attr, attr_mod, tid))
        h[4] = 0
        h[5] = 0
        h[6] = 0            # hop pointer
        h[7] = len(hops)    # hop count
    else:
        h = bytearray(mad_hdr(0x01, 1, method, attr, attr_mod, tid))
    m = bytearray(256)
    m[0:24] = h
    m[24:32] = struct.pack(">Q", 0)          # M_Key
    if dr:
        m[32:36] = struct.pack(">HH", 0xffff, 0xffff)
        m[128:128 + 1 + len(hops)] = b"\0" + hops
    m[64:64 + len(data)] = data
    return bytes(m)


def notice(trap, issuer, generic=True, ntype=1, producer=2, details=b""):
    first = (0x80 if generic else 0) | (ntype & 0x7f)
    d = struct.pack(">B", first) + producer.to_bytes(3, "big") + struct.pack(">HH", trap, issuer)
    d += struct.pack(">H", 0) + details
    return d.ljust(64, b"\0")


def sa(method, attr, rec=b"", mask=0, tid=0x1000, key=0, attr_mod=0, rmpp=b"", cver=2):
    m = bytearray(256)
    m[0:24] = mad_hdr(0x03, cver, method, attr, attr_mod, tid)
    m[24:36] = rmpp.ljust(12, b"\0")
    m[36:56] = struct.pack(">QHHQ", key, 0, 0, mask)
    m[56:56 + len(rec)] = rec
    return bytes(m)


def rmpp(rtype, seg, nwl_or_len, flags=1, status=0):
    return struct.pack(">BBBBII", 1, rtype, (0x1f << 3) | flags, status, seg, nwl_or_len)


def frames(*pairs):
    return b"".join(bytes([sel]) + m for sel, m in pairs)


def write(target, name, data):
    d = os.path.join(OUT, target)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, name), "wb") as f:
        f.write(data)


def gen_smp():
    sminfo = struct.pack(">QQIBB", 0x0002c90300001234, 0, 7, 14, (3 << 4)).ljust(64, b"\0")
    write("smp", "sminfo-get-lid", frames((1, smp(0x01, 0x20))))
    write("smp", "sminfo-get-dr", frames((0x80 | 12, smp(0x01, 0x20, dr=True, hops=b"\x01\x05"))))
    write("smp", "sminfo-set-handover", frames((2, smp(0x02, 0x20, sminfo, attr_mod=2))))
    write("smp", "trap128", frames((7, smp(0x05, 0x02, notice(128, 7)))))
    write("smp", "trap129-130-131", frames(*[(7, smp(0x05, 0x02, notice(t, 7, details=b"\0\0\0\3")))
                                              for t in (129, 130, 131)]))
    write("smp", "trap144", frames((2, smp(0x05, 0x02, notice(144, 3, details=b"\0" * 6 + b"\0\0\0\2")))))
    write("smp", "trap-vendor", frames((3, smp(0x05, 0x02, notice(0x1234, 3, generic=False,
                                                                       producer=0x2c9)))))
    # responses as the SMAs send them (TIDs the SM may have out)
    ni = struct.pack(">BBBBQQQHHIB", 1, 1, 2, 36, 0x200000, 0x200000, 0x200000, 8, 0xc738, 0xa1,
                     0) + (0x2c9).to_bytes(3, "big")
    pi = bytearray(64)
    pi[16:18] = struct.pack(">H", 5)
    pi[31] = 0x14
    write("smp", "getresp-nodeinfo", frames((0x80 | 12, smp(0x81, 0x11, ni, dr=True, tid=3,
                                                             hops=b"\x01"))))
    write("smp", "getresp-portinfo", frames((0x80 | 12, smp(0x81, 0x15, bytes(pi), attr_mod=1,
                                                             dr=True, tid=5, hops=b"\x01"))))
    write("smp", "getresp-nodedesc", frames((1, smp(0x81, 0x10, b"leaf1 HCA-1\xff\x01".ljust(64, b"x"),
                                                     tid=4))))
    write("smp", "bad-class-version", frames((1, smp(0x01, 0x20)[:2] + b"\x02" + smp(0x01, 0x20)[3:])))
    write("smp", "short", frames((1, smp(0x01, 0x20)[:60])))
    write("smp", "dr-too-many-hops", frames((12, smp(0x01, 0x20, dr=True, hops=bytes(range(1, 64))))))


NR, PIR, SL2VL, SWIR, LFTR, MFTR, SMIR = 0x11, 0x12, 0x13, 0x14, 0x15, 0x17, 0x18
LR, GIR, SR, PKR, PR, VLA, MCM, MPR, II, IIR, CPI = (0x20, 0x30, 0x31, 0x33, 0x35, 0x36, 0x38,
                                                     0x3a, 0x03, 0xf3, 0x01)
GET, SET, GETTABLE, GETMULTI, DELETE, REPORTRESP = 0x01, 0x02, 0x12, 0x14, 0x15, 0x86


def path_rec(sg, dg, slid=0, dlid=0, numb=1, pkey=0xffff, rev=1, mtu=(0, 0), rate=(0, 0),
             sl=0):
    r = bytearray(64)
    r[8:24] = dg
    r[24:40] = sg
    r[40:44] = struct.pack(">HH", dlid, slid)
    r[49] = (rev << 7) | numb
    r[50:52] = struct.pack(">H", pkey)
    r[52:54] = struct.pack(">H", sl)
    r[54] = (mtu[0] << 6) | mtu[1]
    r[55] = (rate[0] << 6) | rate[1]
    return bytes(r)


def mpr(sgids, dgids, numb=2, rev=1):
    """MultiPathRecord: fixed 24 bytes, then SGIDs and DGIDs"""
    r = bytearray(24)
    r[5] = (rev << 7) | numb
    r[6:8] = struct.pack(">H", 0xffff)
    r[15] = len(sgids)
    r[16] = len(dgids)
    return bytes(r) + b"".join(sgids) + b"".join(dgids)


def mcm(mgid, pgid, join=1, pkey=0xffff, qkey=0x0b1b, mtu=(2, 4), rate=(2, 3), scope=2):
    r = bytearray(52)
    r[0:16] = mgid
    r[16:32] = pgid
    r[32:36] = struct.pack(">I", qkey)
    r[38] = (mtu[0] << 6) | mtu[1]
    r[40:42] = struct.pack(">H", pkey)
    r[42] = (rate[0] << 6) | rate[1]
    r[48] = (scope << 4) | join
    return bytes(r)


def service_rec(sid, g, name, lease=0xffffffff, pkey=0xffff):
    r = bytearray(176)
    r[0:8] = struct.pack(">Q", sid)
    r[8:24] = g
    r[24:26] = struct.pack(">H", pkey)
    r[28:32] = struct.pack(">I", lease)
    r[48:48 + len(name)] = name
    r[112:116] = b"\x01\x02\x03\x04"
    return bytes(r)


def inform(g, trap, subscribe=1, generic=1, lid_begin=0xffff, lid_end=0, qpn=1):
    r = bytearray(36)
    r[0:16] = g
    r[16:20] = struct.pack(">HH", lid_begin, lid_end)
    r[22] = generic
    r[23] = subscribe
    r[24:28] = struct.pack(">HH", 0xffff if trap == 0xffff else 4, trap)
    r[28:32] = struct.pack(">I", (qpn << 8) | 18)
    r[32:36] = struct.pack(">I", 0xffffff)
    return bytes(r)


def gen_sa():
    h2, h3, h5 = gid(port_guid(2)), gid(port_guid(3)), gid(port_guid(5))
    bits = lambda *i: sum(1 << x for x in i)
    seeds = {
        "classportinfo": [(1, sa(GET, CPI))],
        "bad-version": [(1, sa(GET, NR, cver=1))],
        "bad-method": [(1, sa(0x13, NR))],
        "unknown-attr": [(1, sa(GET, 0x0039))],
        "bad-mask": [(1, sa(GETTABLE, NR, mask=1 << 40))],
        "nr-table": [(1, sa(GETTABLE, NR))],
        "nr-get-lid": [(1, sa(GET, NR, struct.pack(">H", 3), mask=1))],
        "nr-by-guid": [(1, sa(GETTABLE, NR, struct.pack(">HHBBBBQQQ", 0, 0, 1, 1, 2, 36, 0,
                                                          0x200001, 0), mask=bits(7)))],
        "pir-table-trusted": [(1, sa(GETTABLE, PIR, key=1))],
        "pir-lid-port": [(2, sa(GETTABLE, PIR, struct.pack(">HB", 1, 1), mask=bits(0, 1)))],
        "sl2vl-table": [(1, sa(GETTABLE, SL2VL))],
        "swir-table": [(1, sa(GETTABLE, SWIR))],
        "lftr-table": [(1, sa(GETTABLE, LFTR))],
        "lftr-block": [(1, sa(GET, LFTR, struct.pack(">HH", 8, 0), mask=bits(0, 1)))],
        "mftr-table": [(1, sa(GETTABLE, MFTR))],
        "smir-table": [(1, sa(GETTABLE, SMIR))],
        "lr-table": [(1, sa(GETTABLE, LR))],
        "lr-from": [(1, sa(GETTABLE, LR, struct.pack(">HBBH", 8, 5, 0, 0), mask=bits(0, 1)))],
        "gir-table": [(1, sa(GETTABLE, GIR, key=1))],
        "gir-set": [(1, sa(SET, GIR, struct.pack(">HB5xQQQ", 2, 0, 0, 0x0002c903000abcd1, 0),
                           mask=bits(0, 1, 5, 6)))],
        "gir-delete": [(1, sa(SET, GIR, struct.pack(">HB5xQQ", 2, 0, 0, 0), mask=bits(0, 1, 5))),
                       (1, sa(DELETE, GIR, struct.pack(">HB", 2, 0), mask=bits(0, 1, 5)))],
        "pkr-table": [(1, sa(GETTABLE, PKR))],
        "pkr-trusted": [(1, sa(GETTABLE, PKR, key=1))],
        "vla-table": [(1, sa(GETTABLE, VLA))],
        "pr-gid": [(1, sa(GETTABLE, PR, path_rec(h2, h3), mask=bits(2, 3, 12)))],
        "pr-lid": [(2, sa(GET, PR, path_rec(b"\0" * 16, b"\0" * 16, slid=2, dlid=3),
                          mask=bits(4, 5)))],
        "pr-selectors": [(1, sa(GETTABLE, PR, path_rec(h2, h5, mtu=(2, 4), rate=(1, 6), sl=1,
                                                       pkey=0x8002),
                                mask=bits(2, 3, 11, 12, 13, 15, 16, 17, 18, 19)))],
        "pr-all": [(3, sa(GETTABLE, PR))],
        "mpr-getmulti": [(1, sa(GETMULTI, MPR, mpr([h2], [h3, h5]), mask=bits(5, 6, 19, 20, 22)))],
        "mcm-join-ipoib": [(1, sa(SET, MCM, mcm(bytes.fromhex("ff12401bffff00000000ffffffffffff"),
                                                 h2), mask=bits(0, 1, 2, 7, 16)))],
        "mcm-create-leave": [
            (1, sa(SET, MCM, mcm(bytes(16), h2, join=1), mask=bits(1, 2, 4, 5, 6, 7, 8, 9, 12,
                                                                      13, 15, 16), tid=0x77)),
            (1, sa(DELETE, MCM, mcm(bytes.fromhex("ff12601b000000000000000000000001"), h2),
                   mask=bits(0, 1, 16), tid=0x78))],
        "mcm-table": [(1, sa(GETTABLE, MCM))],
        "sr-register-get-delete": [
            (1, sa(SET, SR, service_rec(0x1000000000000001, h2, b"fuzz service"),
                   mask=bits(0, 1, 2, 6), tid=0x90)),
            (3, sa(GETTABLE, SR, service_rec(0x1000000000000001, b"\0" * 16, b""), mask=bits(0),
                   tid=0x91)),
            (1, sa(DELETE, SR, service_rec(0x1000000000000001, h2, b"fuzz service"),
                   mask=bits(0, 1, 2), tid=0x92))],
        "sr-lease": [(2, sa(SET, SR, service_rec(7, h3, b"short", lease=1), mask=bits(0, 1)))],
        "ii-subscribe-64": [(1, sa(SET, II, inform(h2, 64)))],
        "ii-subscribe-all-unsubscribe": [(1, sa(SET, II, inform(h2, 0xffff), tid=0xa0)),
                                         (1, sa(SET, II, inform(h2, 0xffff, subscribe=0),
                                                tid=0xa1))],
        "iir-table": [(1, sa(GETTABLE, IIR, key=1))],
        "report-resp": [(1, sa(REPORTRESP, 0x02, notice(64, 0)))],
        # a long table answered by RMPP, ACKed as a client does, then one stopped
        "rmpp-ack": [(1, sa(GETTABLE, PIR, tid=0xb0)),
                     (1, sa(GETTABLE, PIR, tid=0xb0, rmpp=rmpp(2, 1, 4))),
                     (1, sa(GETTABLE, PIR, tid=0xb0, rmpp=rmpp(2, 4, 12))),
                     (1, sa(GETTABLE, PIR, tid=0xb0, rmpp=rmpp(2, 12, 12)))],
        "rmpp-ack-resp-method": [(1, sa(GETTABLE, NR, tid=0xb1)),
                                 (1, sa(0x92, NR, tid=0xb1, rmpp=rmpp(2, 1, 2)))],
        "rmpp-stop": [(1, sa(GETTABLE, LFTR, tid=0xb2)),
                      (1, sa(GETTABLE, LFTR, tid=0xb2, rmpp=rmpp(3, 0, 0, status=1)))],
        "rmpp-abort": [(1, sa(GETTABLE, SWIR, tid=0xb3)),
                       (1, sa(GETTABLE, SWIR, tid=0xb3, rmpp=rmpp(4, 0, 0, status=118)))],
        "rmpp-bad-ack": [(1, sa(GETTABLE, PIR, tid=0xb4)),
                         (1, sa(GETTABLE, PIR, tid=0xb4, rmpp=rmpp(2, 99, 1)))],
        "rmpp-resend-request": [(1, sa(GETTABLE, PIR, tid=0xb5)),
                                (1, sa(GETTABLE, PIR, tid=0xb5))],
        "short-mad": [(1, sa(GET, NR)[:100])],
    }
    for name, fr in seeds.items():
        write("sa", name, frames(*fr))


def gen_control():
    reqs = {
        "status": [{"cmd": "status"}],
        "help": [{"cmd": "help", "id": 1}],
        "nodes-filters": [{"cmd": "nodes"}, {"cmd": "nodes", "type": "switch"},
                          {"cmd": "nodes", "guid": "0x200001"}, {"cmd": "nodes", "lid": 3},
                          {"cmd": "nodes", "name": "leaf", "lid": "0x4"}],
        "node-specs": [{"cmd": "node", "node": "leaf1"}, {"cmd": "node", "node": 1},
                       {"cmd": "node", "node": "0x0000000000100003"}, {"cmd": "ports", "node": "h6"}],
        "lft": [{"cmd": "lft", "switch": "spine1", "from": 1, "to": 8},
                {"cmd": "lft", "switch": 5, "from": "0x10"}],
        "route": [{"cmd": "route", "src": "h2", "dst": "h5"}, {"cmd": "route", "src": 1, "dst": 9}],
        "views": [{"cmd": c} for c in ("links", "switches", "lids", "routing", "counters",
                                       "multicast", "partitions")] +
                 [{"cmd": "config", "key": "sm_priority"}, {"cmd": "events", "n": 5}],
        "actions": [{"cmd": "sweep", "kind": "light"}, {"cmd": "subscribe", "id": "s"},
                    {"cmd": "publish", "x": [1, 2]}, {"cmd": "fail"}],
        "bad": None,
    }
    for name, lines in reqs.items():
        if lines is None:
            text = (b'{"cmd":\n[1,2]\n{"cmd":"nope","id":{"a":null}}\n{"cmd":"lft","from":-1}\n'
                    b'{"cmd":"node","node":"\\u0000"}\n   \n{"cmd":"status","cmd":"x"}\n'
                    b'{"cmd":"status"}')
        else:
            text = b"".join(json.dumps(r).encode() + b"\n" for r in lines)
        write("control", name, text)
    write("control", "too-large", b'{"cmd":"status","pad":"' + b"x" * 3000 + b'"}\n{"cmd":"help"}\n')


def gen_sweep():
    """fuzz_sweep: one control byte per SMP the SM sends (mode = c & 3: 0 the tree's
    answer, 1 undelivered, 2 status invalid field, 3 answer with c >> 2 patches of
    (offset, value)); an exhausted input answers as the tree does"""
    write("sweep", "tree", b"")
    write("sweep", "drops", bytes([0] * 5 + [1] + [0] * 20 + [1, 1, 1]))
    write("sweep", "errors", bytes([0, 0, 2, 0, 0, 0, 2] + [0] * 30 + [2] * 4))
    # NodeInfo of the first switch: 9 ports, node GUID byte changed
    write("sweep", "patch-nodeinfo", bytes([0, 3 | (2 << 2), 3, 9, 19, 0x55]))
    # a PortInfo answer saying Down/Polling, another with LMC 7
    write("sweep", "patch-portinfo", bytes([0] * 6 + [3 | (2 << 2), 32, 0x21, 33, 0x25] +
                                           [0] * 10 + [3 | (1 << 2), 34, 0x07]))


if __name__ == "__main__":
    gen_sweep()
    gen_smp()
    gen_sa()
    gen_control()
