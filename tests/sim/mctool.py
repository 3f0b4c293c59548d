#!/usr/bin/env python3
"""mctool.py: multicast and partition checks for the ibsim tests (test_mcast.sh,
test_pkeys.sh). Like simtool.py it reads files the test saved and never talks to the
fabric. Subcommands:

  port-guid IBND NAME...        the port GUID (0x...) of each CA node named NAME (port 1)
  lid IBND NAME                 the LID of node NAME (a switch's, or a CA's port 1)
  switch-lids IBND              'LID NAME' of every switch
  ca-names IBND                 every CA's name, one a line, in ibnetdiscover's order
  tree IBND MFTS MLID RECV [SEND]
                                the MFTs (MFTS: `dump_fts -M`, or `ibroute -M` of every
                                switch concatenated) carry MLID from every member to every receiving one:
                                from each member's CA port, flood the packet as the
                                switches would (every port of the MLID's mask but the one
                                it came in by); every other receiver (RECV: CA names,
                                comma-separated) gets it exactly once, no switch sees it
                                twice (no loop, no duplicate), no CA outside the group
                                gets it, no mask names a port without a link; the
                                switch-to-switch links of the MLID are symmetric and form
                                a tree. SEND: send-only members (sources only; whether
                                they receive is the SM's choice, reported).
  tree-link IBND MFTS MLID      'NAME PORT': a switch-to-switch link of MLID's tree, away
                                from the CAs (to take it down)
  mft-same MFTS MFTS            two dumps hold the same MFTs (`ibroute -M` and `dump_fts -M`)
  mft-mlids MFTS                the MLIDs with any port set on any switch, one a line (hex)
  mft-vs-groups MFTS MC_JSON    MLIDs in the MFTs == the MLIDs of the groups with a
                                receiving member (`ibsmctl --json raw '{"cmd":"multicast"}'`)
  pkeys SMPQUERY_OUT            the non-zero P_Keys of `smpquery pkeys`, sorted, one line
                                (0xNNNN ...); fails when a P_Key is there twice
  pkeys-check LISTING           each 'LABEL<TAB>FILE<TAB>WANT' line: FILE (smpquery pkeys)
                                holds the P_Keys WANT, as `pkeys` prints them
Exit status 0 when the check holds, 1 with a reason on stderr when not.
"""
import json
import os
import re
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from simtool import ibnd_topology, run_cli  # noqa: E402


def die(msg):
    print(f"mctool: {msg}", file=sys.stderr)
    sys.exit(1)

# `ibroute -M LID` says "of switch Lid 21 guid 0x...", `dump_fts -M` "of switch DR path ...
# guid 0x..."
MFT_HDR = re.compile(r'^Multicast mlids \[[^]]*\] of switch (?:Lid \d+|DR path .*?) '
                     r'guid (0x[0-9a-fA-F]+)')
MFT_ROW = re.compile(r'^(0x[0-9a-fA-F]+)\s')


def by_name(topo, name):
    for guid, n in topo.items():
        if n['desc'] == name:
            return guid, n
    die(f"no node named {name!r} in the ibnetdiscover output")


def ca_port_guid(topo, name):
    _, n = by_name(topo, name)
    if n['type'] == 'Switch' or 1 not in n['ports'] or not n['ports'][1].get('guid'):
        die(f"{name}: not a CA with a port 1")
    return n['ports'][1]['guid']


def cmd_port_guid(ibnd, *names):
    topo = ibnd_topology(ibnd)
    for name in names:
        print(f"0x{ca_port_guid(topo, name):016x}")
    return 0


def cmd_lid(ibnd, name):
    _, n = by_name(ibnd_topology(ibnd), name)
    lid = n['lid'] if n['type'] == 'Switch' else n['ports'].get(1, {}).get('lid')
    if not lid:
        die(f"{name}: no LID")
    print(lid)
    return 0


def cmd_switch_lids(ibnd):
    for guid, n in sorted(ibnd_topology(ibnd).items()):
        if n['type'] == 'Switch':
            print(n['lid'], n['desc'])
    return 0


def cmd_ca_names(ibnd):
    for n in ibnd_topology(ibnd).values():
        if n['type'] != 'Switch':
            print(n['desc'])
    return 0


def parse_mfts(path):
    """`ibroute -M` outputs or `dump_fts -M` -> {switch guid: {mlid: set of ports}}.  A row
    marks a port with an 'x' in the column of that port's digit on the 'Ports:' line."""
    out = {}
    cur = col0 = None
    for line in open(path, errors='replace'):
        line = line.rstrip('\n')
        m = MFT_HDR.match(line)
        if m:
            cur = out.setdefault(int(m.group(1), 16), {})
            col0 = None
            continue
        if cur is None:
            continue
        if 'Ports:' in line:
            i = line.index('Ports:') + len('Ports:')
            while i < len(line) and line[i] == ' ':
                i += 1
            col0 = i  # the column of port 0; port p is 2p further
            continue
        m = MFT_ROW.match(line)
        if m and col0 is not None:
            ports = {(i - col0) // 2 for i, c in enumerate(line)
                     if c == 'x' and i >= col0 and (i - col0) % 2 == 0}
            if ports:
                cur.setdefault(int(m.group(1), 16), set()).update(ports)
    if not out:
        die(f"{path}: no ibroute -M or dump_fts -M output")
    return out


def cmd_tree(ibnd, mfts, mlid, recv, send=''):
    topo = ibnd_topology(ibnd)
    mft = parse_mfts(mfts)
    mlid = int(mlid, 0)
    recv_names = [x for x in recv.split(',') if x]
    send_names = [x for x in send.split(',') if x]
    members = {}  # CA node guid -> (name, receives)
    for name in recv_names:
        members[by_name(topo, name)[0]] = (name, True)
    for name in send_names:
        members.setdefault(by_name(topo, name)[0], (name, False))
    errs = []
    for sw, n in topo.items():
        if n['type'] == 'Switch' and sw not in mft:
            errs.append(f"no MFT of switch {n['desc']} in the dump")

    def mask(sw):
        return mft.get(sw, {}).get(mlid, set())

    # switch-to-switch links of the MLID: both ends must name them, and no cycle
    parent = {}

    def root(x):
        while parent.setdefault(x, x) != x:
            x = parent[x]
        return x
    seen_links = set()
    for sw, n in topo.items():
        if n['type'] != 'Switch':
            continue
        for p in sorted(mask(sw)):
            if p == 0:
                continue
            port = n['ports'].get(p)
            if port is None:
                errs.append(f"{n['desc']}: mlid 0x{mlid:04x} names port {p}, which has no link")
                continue
            peer, pport = port['peer']
            if topo.get(peer, {}).get('type') != 'Switch':
                continue
            if pport not in mask(peer):
                errs.append(f"{n['desc']}:{p} -> {topo[peer]['desc']}:{pport}: the far end "
                            f"does not forward mlid 0x{mlid:04x} back (not symmetric)")
                continue
            key = tuple(sorted([(sw, p), (peer, pport)]))
            if key in seen_links:
                continue
            seen_links.add(key)
            a, b = root(sw), root(peer)
            if a == b:
                errs.append(f"mlid 0x{mlid:04x}: the link {n['desc']}:{p} -> "
                            f"{topo[peer]['desc']}:{pport} closes a cycle")
            parent[a] = b
    # flood from every member
    sendonly_rx = 0
    for src, (sname, _) in sorted(members.items()):
        port = topo[src]['ports'].get(1)
        if port is None:
            errs.append(f"{sname}: no port 1")
            continue
        got = {}
        visits = {}
        queue = [port['peer']]
        while queue:
            sw, inport = queue.pop(0)
            visits[sw] = visits.get(sw, 0) + 1
            if visits[sw] > 1:
                errs.append(f"from {sname}: switch {topo[sw]['desc']} gets the packet "
                            f"{visits[sw]} times (loop or second path)")
                continue
            for p in sorted(mask(sw) - {inport, 0}):
                far = topo[sw]['ports'].get(p)
                if far is None:
                    continue  # reported above
                peer, pport = far['peer']
                if topo.get(peer, {}).get('type') == 'Switch':
                    queue.append((peer, pport))
                else:
                    got[peer] = got.get(peer, 0) + 1
            if len(visits) > 4 * len(topo):
                break
        for ca, k in got.items():
            name, rx = members.get(ca, (topo.get(ca, {}).get('desc', hex(ca)), None))
            if rx is None:
                errs.append(f"from {sname}: {name}, not a member, gets the packet")
            elif k > 1:
                errs.append(f"from {sname}: {name} gets the packet {k} times")
            elif not rx:
                sendonly_rx += 1
        for ca, (name, rx) in members.items():
            if rx and ca != src and ca not in got:
                errs.append(f"from {sname}: {name} does not get the packet")
        if src in got:
            errs.append(f"from {sname}: the packet comes back to its sender")
    if errs:
        for e in errs[:20]:
            print(f"mctool: {e}", file=sys.stderr)
        die(f"mlid 0x{mlid:04x}: {len(errs)} problems")
    nsw = sum(1 for sw in mft if mask(sw))
    print(f"mlid 0x{mlid:04x}: {len(members)} members, {nsw} switches, {len(seen_links)} "
          f"tree links, every receiver reached once from every member, no loop"
          + (f" ({sendonly_rx} deliveries to send-only members)" if sendonly_rx else ""))
    return 0


def cmd_tree_link(ibnd, mfts, mlid):
    """a switch-to-switch link MLID's tree uses, as 'NAME PORT' (one end), the one
    farthest from the CAs (core side first) so that the fabric stays connected without it"""
    topo = ibnd_topology(ibnd)
    mft = parse_mfts(mfts)
    mlid = int(mlid, 0)

    def cas(n):
        return sum(1 for p in n['ports'].values()
                   if topo.get(p['peer'][0], {}).get('type') not in (None, 'Switch'))
    best = None
    for sw, n in sorted(topo.items()):
        if n['type'] != 'Switch':
            continue
        for p in sorted(mft.get(sw, {}).get(mlid, set()) - {0}):
            port = n['ports'].get(p)
            if not port or topo.get(port['peer'][0], {}).get('type') != 'Switch':
                continue
            peer = topo[port['peer'][0]]
            k = (cas(n) + cas(peer), n['desc'], p)
            if best is None or k < best:
                best = k
    if best is None:
        die(f"mlid 0x{mlid:04x}: no switch-to-switch link in its tree")
    print(best[1], best[2])
    return 0


def cmd_mft_same(a, b):
    x, y = parse_mfts(a), parse_mfts(b)
    if x != y:
        diff = [f"0x{sw:016x}" for sw in sorted(set(x) | set(y)) if x.get(sw) != y.get(sw)]
        die(f"{a} and {b} differ at switches {' '.join(diff[:8])}")
    print(f"the same MFTs of {len(x)} switches in both")
    return 0


def cmd_mft_mlids(mfts):
    mlids = set()
    for rows in parse_mfts(mfts).values():
        mlids.update(rows)
    for m in sorted(mlids):
        print(f"0x{m:04x}")
    return 0


def cmd_mft_vs_groups(mfts, js):
    try:
        v = json.load(open(js))
    except (OSError, ValueError) as e:
        die(f"{js}: {e}")
    v = v.get('result', v)
    want = {g['mlid'] for g in v['groups'] if g['full'] + g['non'] > 0}
    held = set()
    for rows in parse_mfts(mfts).values():
        held.update(rows)
    extra, missing = held - want, want - held
    if extra or missing:
        die("MFTs and groups disagree: "
            + (f"stale MLIDs {' '.join(f'0x{m:04x}' for m in sorted(extra))} " if extra else "")
            + (f"MLIDs not programmed {' '.join(f'0x{m:04x}' for m in sorted(missing))}"
               if missing else ""))
    print(f"MFTs hold exactly the {len(want)} MLIDs of groups with receivers "
          f"({v['mlids_in_use']} MLIDs in use)")
    return 0


def read_pkeys(path):
    """`smpquery pkeys` -> the non-zero P_Keys as text, sorted; raises ValueError"""
    keys = []
    for line in open(path, errors='replace'):
        m = re.match(r'^\s*\d+:\s+((?:0x[0-9a-fA-F]{4}\s*)+)$', line)
        if m:
            keys += [int(x, 16) for x in m.group(1).split()]
    if not keys:
        raise ValueError(f"{path}: no P_Key table")
    keys = sorted(k for k in keys if k & 0x7fff)
    text = ' '.join(f'0x{k:04x}' for k in keys)
    low = [k & 0x7fff for k in keys]
    dup = {k for k in low if low.count(k) > 1}
    if dup:
        raise ValueError(f"P_Key {' '.join(f'0x{k:04x}' for k in sorted(dup))} twice in "
                         f"the table: {text}")
    return text


def cmd_pkeys(path):
    try:
        print(read_pkeys(path))
    except ValueError as e:
        die(str(e))
    return 0


def cmd_pkeys_check(listing):
    """LISTING: 'LABEL<TAB>FILE<TAB>WANT' lines: each FILE (smpquery pkeys) holds WANT"""
    n = 0
    errs = []
    for line in open(listing):
        label, path, want = line.rstrip('\n').split('\t')
        try:
            got = read_pkeys(path)
        except ValueError as e:
            errs.append(f"{label}: {e}")
            continue
        if got != want:
            errs.append(f"{label}: '{got}', want '{want}'")
        n += 1
    if errs:
        for e in errs[:10]:
            print(f"mctool: {e}", file=sys.stderr)
        die(f"{len(errs)} P_Key tables wrong")
    print(f"{n} P_Key tables as they should be")
    return 0


CMDS = {
    'port-guid': (cmd_port_guid, -2), 'lid': (cmd_lid, 2), 'switch-lids': (cmd_switch_lids, 1),
    'ca-names': (cmd_ca_names, 1), 'tree': (cmd_tree, -4), 'mft-mlids': (cmd_mft_mlids, 1),
    'tree-link': (cmd_tree_link, 3), 'mft-same': (cmd_mft_same, 2),
    'mft-vs-groups': (cmd_mft_vs_groups, 2), 'pkeys': (cmd_pkeys, 1),
    'pkeys-check': (cmd_pkeys_check, 1),
}

if __name__ == '__main__':
    sys.exit(run_cli(CMDS, __doc__, sys.argv))
