#!/usr/bin/env python3
"""referee: the repository's own judge of a fabric a subnet manager has configured.

It looks at the fabric only the way an operator would, through infiniband-diags run in the
caller's environment (on ibsim: LD_PRELOAD=libumad2sim.so and IBSIM_SOCKNAME), so it shares
no code and no assumption with the SM under test:

  iblinkinfo -l        every port, its state and the port at the other end (links, LIDs)
  dump_fts             every switch's linear forwarding table (LFT)
  smpdump LID 0x19 B   the LFT entry of LID == LinearFDBTop when dump_fts left it out
  saquery PR, smpquery sl2vl   with --vl: each pair's SL and the switches' SL2VL tables

and reports, as JSON (stdout, and --json FILE):
  links_not_active       ports with a neighbour whose state is not Active
  lids_missing / lids_duplicate   CA ports and switches without a LID, LIDs held twice
  switches_without_lft   switches dump_fts could not read
  pairs / pairs_unrouted / pairs_looping   CA-to-CA pairs, walked hop by hop
  switch_pairs*          the same from every CA port to every switch (from_switches*: paths
                         from the switches, for information: up/down leaves root to root out)
  lids_unjudged / pairs_unjudged (and switch_pairs_unjudged)   LIDs whose LinearFDBTop entry
                         was not read on some switch (--quick, or smpdump failed) and the
                         pairs whose walk reaches such a switch: neither routed nor unrouted
  credit_loops           a cycle in the channel dependency graph (per VL with --vl, else VL0)
  with --vl: pathrecords, sl_unknown (CA pairs the SA gave no SL for: not judged per VL),
  sl2vl_unread (switch output ports whose SL2VL table smpquery could not read), pairs_vl15
  (pairs whose SL a switch on the way, the last one included, maps to VL15: dropped, bad
  examples in pairs_bad),
  vls_used (the VLs CA-to-CA paths take on switch links)
  a2a_max_link_load / a2a_avg_link_load   all-to-all CA paths per directed switch link
  shift_max_congestion / shift_mean_congestion   the worst switch link over --shifts shift
                         permutations (CA ports in LID order)
  path_stretch           switch hops taken / shortest switch hops, over all CA pairs (and
                         path_stretch_max, the worst pair)
"ok" is true when nothing above is wrong (with --vl an SL or a table not read is wrong too: the
pairs cannot be judged per VL; credit loops tolerated with
--allow-credit-loops; with --quick, pairs_unjudged are left out, as the shared judge leaves
out its lids_unlisted; without it an unread top entry is wrong); the exit code is 0 then, 1
when not ok, 2 when the tools failed.

--save DIR keeps the tools' output; --from DIR judges such saved output instead of the fabric
(the bad-input tests edit saved files).  Python 3, standard library only.
"""
import argparse
import collections
import json
import os
import re
import subprocess
import sys

LIST_MAX = 20          # items shown per list in the report; the rest is counted
TOOL_TIMEOUT = 600     # seconds for one diags run
ATTR_LFT = '0x19'      # LinearForwardingTable
UNREAD = 'LinearFDBTop entry not read'   # why a walk stopped at a switch whose entry is unknown

# iblinkinfo --line: 'GUID "DESC" LID PORT[..] ==( ... STATE/ PHYS)==> GUID LID PORT[..] "DESC" ...'
# a port without a neighbour prints no GUID/LID on the right.
LINK_RE = re.compile(r'^(0x[0-9a-f]+)\s+"\s*(.*?)"\s+(\d+)\s+(\d+)\[[^\]]*\]\s+==\((.*?)\)==>'
                     r'\s*(?:(0x[0-9a-f]+)\s+(\d+)\s+(\d+)\[[^\]]*\])?')
FTS_HEAD_RE = re.compile(r'^Unicast lids \[0x([0-9a-f]+)-0x([0-9a-f]+)\] of switch (.*) '
                         r'guid (0x[0-9a-f]+) \((.*)\):')
FTS_ENTRY_RE = re.compile(r'^0x([0-9a-f]+)\s+(\d+)\s')
PR_RE = re.compile(r'^\s*(dlid|slid|sl)\.+(\S+)', re.M)
SL2VL_RE = re.compile(r'^ports: in\s+(\d+), out\s+(\d+):\s*\|(.*)\|', re.M)


class Fail(Exception):
    """the diags could not be run or read"""


# --- reading the fabric ------------------------------------------------------------------

def run_tool(argv):
    """a diags tool's result; once more when a signal killed it (libumad2sim, ibsim's umad
    stand-in, crashes a client now and then: tests/sim/lib.sh sim_client)"""
    r = subprocess.run(argv, capture_output=True, text=True, timeout=TOOL_TIMEOUT)
    if r.returncode < 0:
        r = subprocess.run(argv, capture_output=True, text=True, timeout=TOOL_TIMEOUT)
    return r


class Source:
    """the diags' output: run live (saving to SAVE when set) or read from a saved dir"""

    def __init__(self, from_dir, save_dir):
        self.from_dir, self.save_dir = from_dir, save_dir
        if save_dir:
            os.makedirs(save_dir, exist_ok=True)

    def get(self, name, argv, must=True):
        if self.from_dir:
            path = os.path.join(self.from_dir, name)
            if not os.path.exists(path):
                if must:
                    raise Fail(f"{path} missing")
                return None
            with open(path) as f:
                return f.read()
        try:
            r = run_tool(argv)
        except (OSError, subprocess.TimeoutExpired) as e:
            raise Fail(f"{' '.join(argv)}: {e}") from None
        if r.returncode != 0 and (must or not r.stdout.strip()):
            if must:
                raise Fail(f"{' '.join(argv)} exit {r.returncode}: {r.stderr.strip()[-300:]}")
            return None
        self.save(name, r.stdout)
        return r.stdout

    def run(self, argv):
        """a tool's output, or None when it failed (nothing saved)"""
        try:
            r = run_tool(argv)
        except (OSError, subprocess.TimeoutExpired):
            return None
        return r.stdout if r.returncode == 0 else None

    def save(self, name, text):
        if self.save_dir:
            with open(os.path.join(self.save_dir, name), 'w') as f:
                f.write(text)


class Fabric:
    """ports and links from iblinkinfo, LFTs from dump_fts"""

    def __init__(self):
        self.desc = {}        # node GUID -> description
        self.ports = {}       # (guid, port) -> dict(lid, state, peer=(guid, port) or None)
        self.switches = {}    # switch GUID -> dict(lid, top, lft{lid: port}, path)
        self.cas = []         # (guid, port) of every CA port that has a neighbour

    def read_links(self, text):
        for line in text.splitlines():
            m = LINK_RE.match(line.strip())
            if not m:
                continue
            guid, desc, lid, port, mid, pguid, _plid, pport = m.groups()
            state = mid.split('/')[0].split()[-1] if '/' in mid else 'Down'
            self.desc[guid] = desc
            peer = (pguid, int(pport)) if pguid else None
            self.ports[(guid, int(port))] = dict(lid=int(lid), state=state, peer=peer)
        if not self.ports:
            raise Fail("iblinkinfo listed no port")

    def read_fts(self, text):
        sw = None
        for line in text.splitlines():
            m = FTS_HEAD_RE.match(line)
            if m:
                top, path, guid, desc = int(m.group(2), 16), m.group(3), m.group(4), m.group(5)
                sw = self.switches[guid] = dict(top=top, lft={}, path=path, lid=0)
                self.desc.setdefault(guid, desc)
                continue
            m = FTS_ENTRY_RE.match(line)
            if m and sw is not None:
                sw['lft'][int(m.group(1), 16)] = int(m.group(2))

    def finish(self):
        """node types and LIDs: a switch is what has an LFT or is named so by dump_fts; the
        switch LID is port 0's, which iblinkinfo prints on every port of the switch"""
        for (guid, port), p in self.ports.items():
            if guid in self.switches:
                self.switches[guid]['lid'] = p['lid']
            elif p['peer']:
                self.cas.append((guid, port))
        self.cas.sort()

    def name(self, guid, port=None):
        d = self.desc.get(guid) or guid
        return d if port is None else f"{d} port {port}"

    def active_peer(self, guid, port):
        p = self.ports.get((guid, port))
        if not p or not p['peer'] or p['state'] != 'Active':
            return None
        q = self.ports.get(p['peer'])
        if not q or q['state'] != 'Active':
            return None
        return p['peer']


def read_top_entries(fab, src, quick):
    """dump_fts (like ibroute) can leave out the entry of LID == LinearFDBTop; read it
    LID-routed with smpdump.  Returns the switches whose top entry stayed unread (marked
    top_unread: the walk calls that entry unknown, not missing)."""
    lids = {fab.ports[c]['lid'] for c in fab.cas} | {s['lid'] for s in fab.switches.values()}
    unread = []
    for guid, sw in sorted(fab.switches.items()):
        top = sw['top']
        if top == 0 or top in sw['lft'] or top not in lids:
            continue
        if quick or not sw['lid']:
            sw['top_unread'] = True
            unread.append(fab.name(guid))
            continue
        text = src.get(f"lft-{guid}-{top // 64}.txt",
                       ['smpdump', str(sw['lid']), ATTR_LFT, str(top // 64)], must=False)
        data = bytes.fromhex(''.join(text.split())) if text else b''
        if len(data) < 64:
            sw['top_unread'] = True
            unread.append(fab.name(guid))
            continue
        port = data[top % 64]
        if port != 0xff:
            sw['lft'][top] = port
    return unread


# --- checks ------------------------------------------------------------------------------

def capped(items):
    items = list(items)
    return items[:LIST_MAX] + ([f"... {len(items) - LIST_MAX} more"] if len(items) > LIST_MAX
                               else [])


def check_links(fab):
    bad = []
    for (guid, port), p in sorted(fab.ports.items()):
        if p['peer'] and p['state'] != 'Active':
            bad.append(f"{fab.name(guid, port)} {p['state']} -> "
                       f"{fab.name(p['peer'][0], p['peer'][1])}")
    return bad


def check_lids(fab):
    owners = collections.defaultdict(list)
    missing = []
    for c in fab.cas:
        lid = fab.ports[c]['lid']
        (owners[lid].append(fab.name(*c)) if lid else missing.append(fab.name(*c)))
    for guid, sw in sorted(fab.switches.items()):
        (owners[sw['lid']].append(fab.name(guid)) if sw['lid'] else missing.append(fab.name(guid)))
    dup = [f"LID {lid}: {', '.join(names)}" for lid, names in sorted(owners.items())
           if len(names) > 1]
    return missing, dup


class Routes:
    """where each destination LID's packets go, walked from every switch.

    For one destination the next hops form a function over the switches, so each switch's
    fate (delivered after n hops, dropped, looping) is computed once and shared by every
    source behind it."""

    def __init__(self, fab):
        self.fab = fab

    def hop(self, sw, dlid):
        """('done',) at the destination, ('next', guid, out_port, peer_guid) or ('drop', why)"""
        fab = self.fab
        s = fab.switches[sw]
        if s['lid'] == dlid:
            return ('done',)
        port = s['lft'].get(dlid)
        if port is None and dlid == s['top'] and s.get('top_unread'):
            return ('drop', UNREAD)
        if port is None or port == 0xff:
            return ('drop', 'no entry')
        if port == 0:
            return ('drop', 'sent to the switch itself')
        peer = fab.active_peer(sw, port)
        if not peer:
            return ('drop', f'port {port} not active')
        if peer[0] in fab.switches:
            return ('next', sw, port, peer[0])
        if fab.ports[peer]['lid'] == dlid:
            return ('done_ca', sw, port)
        return ('drop', f'port {port} leads to {fab.name(*peer)}')

    def tree(self, dlid):
        """{switch: (links to dlid or None, next switch or None, out port, why not)}"""
        res = {}
        for s in self.fab.switches:
            path, on_path, looped = [], set(), False
            while s not in res:
                if s in on_path:
                    looped = True
                    break
                on_path.add(s)
                h = self.hop(s, dlid)
                if h[0] == 'next':
                    path.append((s, h[2], h[3]))
                    s = h[3]
                elif h[0] == 'done':
                    res[s] = (0, None, None, None)
                elif h[0] == 'done_ca':
                    res[s] = (1, None, h[2], None)
                else:
                    res[s] = (None, None, None, h[1])
            if looped:      # every switch on the walk feeds the loop
                for sw, _, _ in path:
                    res[sw] = (None, None, None, 'loop')
                continue
            for sw, port, nxt in reversed(path):
                hn, why = res[nxt][0], res[nxt][3]
                res[sw] = (None if hn is None else hn + 1, nxt, port, why)
        return res


def ca_attach(fab, ca):
    """the switch a CA port hangs on, or None (down, or cabled to another CA)"""
    peer = fab.active_peer(*ca)
    return peer[0] if peer and peer[0] in fab.switches else None


def shortest_hops(fab):
    """switch -> {switch: hops} over Active switch links (BFS from every switch)"""
    adj = collections.defaultdict(set)
    for (g, port), _ in fab.ports.items():
        if g in fab.switches:
            peer = fab.active_peer(g, port)
            if peer and peer[0] in fab.switches and peer[0] != g:
                adj[g].add(peer[0])
    dist = {}
    for s in fab.switches:
        d = {s: 0}
        todo = collections.deque([s])
        while todo:
            x = todo.popleft()
            for y in adj[x]:
                if y not in d:
                    d[y] = d[x] + 1
                    todo.append(y)
        dist[s] = d
    return dist


def find_cycle(edges):
    """a cycle in a directed graph {node: set(next)} as a list of nodes, or None"""
    color = {}
    for root in edges:
        if root in color:
            continue
        stack = [(root, iter(edges.get(root, ())))]
        color[root] = 1
        trail = [root]
        while stack:
            node, it = stack[-1]
            for nxt in it:
                c = color.get(nxt)
                if c == 1:
                    return trail[trail.index(nxt):] + [nxt]
                if c is None:
                    color[nxt] = 1
                    trail.append(nxt)
                    stack.append((nxt, iter(edges.get(nxt, ()))))
                    break
            else:
                color[node] = 2
                trail.pop()
                stack.pop()
    return None


# --- SLs and VLs (--vl) --------------------------------------------------------------------

def parse_pathrecords(text):
    sls, cur = {}, {}
    for key, val in PR_RE.findall(text):
        cur[key] = int(val, 0)
        if key == 'sl' and 'slid' in cur and 'dlid' in cur:
            sls.setdefault((cur['slid'], cur['dlid']), cur['sl'])
            cur = {}
    return sls


def read_sls(src, pairs):
    """(slid, dlid) -> SL from the SA's PathRecords (the SM must be running): one query for
    all, then one per pair the answer left out (a GetTable may not cover every pair)"""
    name = 'saquery-pr.txt'
    if src.from_dir:
        return parse_pathrecords(src.get(name, None, must=False) or '')
    text = src.run(['saquery', 'PR']) or ''
    for _ in range(2):      # once more for a query that timed out
        have = parse_pathrecords(text)
        for slid, dlid in pairs:
            if (slid, dlid) not in have:
                text += src.run(['saquery', 'PR', '--slid', str(slid), '--dlid', str(dlid)]) or ''
    src.save(name, text)
    return parse_pathrecords(text)


class Sl2Vl:
    """a switch's SL2VL table per (in, out) port, read on demand with smpquery"""

    def __init__(self, fab, src):
        self.fab, self.src, self.tables = fab, src, {}
        self.unread = set()     # (switch, out port) without a table for an input port used

    def vl(self, sw, inp, out, sl):
        """the VL of sl from port inp to port out of switch sw; 0 for a table not read (and
        the port noted in self.unread)"""
        key = (sw, out)
        if key not in self.tables:
            lid = self.fab.switches[sw]['lid']
            text = self.src.get(f"sl2vl-{sw}-{out}.txt",
                                ['smpquery', 'sl2vl', str(lid), str(out)], must=False) or ''
            t = {}
            for i, o, row in SL2VL_RE.findall(text):
                t[int(i)] = [int(x) for x in row.split('|')]
            self.tables[key] = t
        row = self.tables[key].get(inp)
        if not row or len(row) != 16:
            self.unread.add(key)
            return 0
        return row[sl]


# --- the report ----------------------------------------------------------------------------

class Walk:
    """every destination LID's tree, and what the pairs make of them"""

    def __init__(self, fab):
        self.fab = fab
        owner = {}
        for c in fab.cas:
            owner.setdefault(fab.ports[c]['lid'], ('ca', c))
        for g, s in fab.switches.items():
            owner.setdefault(s['lid'], ('sw', g))
        owner.pop(0, None)
        self.owner = owner
        self.attach = {c: ca_attach(fab, c) for c in fab.cas}
        routes = Routes(fab)
        self.trees = {lid: routes.tree(lid) for lid in sorted(owner)}
        self.ca_lids = sorted(lid for lid, (kind, _) in owner.items() if kind == 'ca')

    def pairs(self):
        """every CA port to every other CA port (pairs*) and to every switch (switch_pairs*):
        counts, bad examples and the path stretch (switch hops taken / shortest switch hops,
        summed over the CA-to-CA pairs); paths from the switches (from_switches*) are counted
        for information only"""
        fab, attach = self.fab, self.attach
        dist = shortest_hops(fab)
        srcs = [('ca', c, attach[c]) for c in fab.cas if fab.ports[c]['lid']] + \
               [('sw', g, g) for g in fab.switches]
        r = dict(pairs_bad=[])
        for pre in ('pairs', 'switch_pairs', 'from_switches'):
            r[pre] = r[pre + '_unrouted'] = r[pre + '_looping'] = r[pre + '_unjudged'] = 0
        unjudged = set()
        taken = shortest = 0
        worst = None
        for dlid, tree in self.trees.items():
            kind, who = self.owner[dlid]
            dst_sw = attach.get(who) if kind == 'ca' else who
            for skind, s, first in srcs:
                if s == who:
                    continue
                pre = ('from_switches' if skind == 'sw' else 'pairs' if kind == 'ca'
                       else 'switch_pairs')
                r[pre] += 1
                fate = tree[first] if first else (None, None, None, 'source not attached')
                if fate[0] is None and fate[3] == UNREAD:
                    r[pre + '_unjudged'] += 1
                    unjudged.add(dlid)
                elif fate[0] is None:
                    r[pre + ('_looping' if fate[3] == 'loop' else '_unrouted')] += 1
                    if skind == 'ca' and len(r['pairs_bad']) < LIST_MAX:
                        r['pairs_bad'].append(f"{fab.name(*s)} -> LID {dlid}: {fate[3]}")
                elif skind == 'ca' and kind == 'ca' and dst_sw in dist[first]:
                    hops, short = fate[0] - 1, dist[first][dst_sw]   # switch to switch
                    taken, shortest = taken + hops, shortest + short
                    if short and (worst is None or hops / short > worst):
                        worst = hops / short
        r['path_stretch'] = round(taken / shortest, 4) if shortest else (1.0 if taken == 0
                                                                          else None)
        r['path_stretch_max'] = round(worst, 3) if worst is not None else r['path_stretch']
        r['lids_unjudged'] = sorted(unjudged)
        return r

    def routed_cas(self, tree, dlid):
        """the CA ports whose packets reach dlid, with their first switch"""
        for c in self.fab.cas:
            first = self.attach[c]
            lid = self.fab.ports[c]['lid']
            if lid and lid != dlid and first and tree[first][0] is not None:
                yield c, first

    def load_vl0(self):
        """all-to-all CA paths per switch link and the channel dependencies, all on VL0:
        per destination, sources are added up along the tree, farthest switch first"""
        load, deps = collections.Counter(), collections.defaultdict(set)
        for dlid in self.ca_lids:
            tree = self.trees[dlid]
            cnt = collections.Counter(first for _, first in self.routed_cas(tree, dlid))
            for s in sorted((s for s in tree if tree[s][0] is not None and tree[s][1]),
                            key=lambda s: -tree[s][0]):
                if cnt[s]:
                    _, nxt, out, _ = tree[s]
                    load[(s, out)] += cnt[s]
                    cnt[nxt] += cnt[s]
                    if tree[nxt][1]:
                        deps[(s, out, 0)].add((nxt, tree[nxt][2], 0))
        return load, deps

    def load_vl(self, src):
        """as load_vl0, but each pair on the VLs its SL maps to, switch by switch"""
        fab = self.fab
        pairs = [(fab.ports[c]['lid'], dlid) for dlid in self.ca_lids
                 for c, _ in self.routed_cas(self.trees[dlid], dlid)]
        sls, sl2vl = read_sls(src, pairs), Sl2Vl(fab, src)
        self.pathrecords = len(sls)
        self.sl_unknown = sum(1 for p in pairs if p not in sls)
        self.vl15, self.vl15_bad, self.vls_used = 0, [], set()
        load, deps = collections.Counter(), collections.defaultdict(set)
        for dlid in self.ca_lids:
            tree = self.trees[dlid]
            for c, s in self.routed_cas(tree, dlid):
                sl = sls.get((fab.ports[c]['lid'], dlid), 0)
                inp, prev = fab.ports[c]['peer'][1], None
                while True:
                    _, nxt, out, _ = tree[s]
                    vl = sl2vl.vl(s, inp, out, sl)
                    if vl == 15:    # the switch drops it
                        self.vl15 += 1
                        if len(self.vl15_bad) < LIST_MAX:
                            self.vl15_bad.append(f"{fab.name(*c)} -> LID {dlid}: SL{sl} is "
                                                 f"VL15 at {fab.name(s)} port {out}")
                        break
                    if not nxt:     # out to the CA: no switch link, no dependency
                        break
                    load[(s, out)] += 1
                    self.vls_used.add(vl)
                    chan = (s, out, vl)
                    if prev:
                        deps[prev].add(chan)
                    prev, inp, s = chan, fab.ports[(s, out)]['peer'][1], nxt
        self.sl2vl_unread = sorted(f"{fab.name(g)} port {p}" for g, p in sl2vl.unread)
        return load, deps


def judge(fab, args, src):
    rep = dict(nodes=len(fab.desc), switches=len(fab.switches), ca_ports=len(fab.cas))
    rep['links_not_active'] = check_links(fab)
    rep['lids_missing'], rep['lids_duplicate'] = check_lids(fab)
    rep['switches_without_lft'] = sorted(fab.name(g) for g, s in fab.switches.items()
                                         if not s['lft'])
    rep['lft_top_unread'] = read_top_entries(fab, src, args.quick)
    walk = Walk(fab)
    rep.update(walk.pairs())
    load, deps = walk.load_vl(src) if args.vl else walk.load_vl0()
    isl = sum(1 for (g, p) in fab.ports if g in fab.switches and fab.active_peer(g, p) and
              fab.active_peer(g, p)[0] in fab.switches)
    rep['a2a_max_link_load'] = max(load.values(), default=0)
    rep['a2a_avg_link_load'] = round(sum(load.values()) / isl, 2) if isl else 0
    rep['shift_max_congestion'], rep['shift_mean_congestion'] = shift_congestion(walk,
                                                                                 args.shifts)
    cycle = find_cycle(deps)
    rep['credit_loops'] = cycle is not None
    rep['credit_loop'] = [f"{fab.name(g)} port {p} VL{vl}" for g, p, vl in cycle or []]
    rep['vl_mode'] = 'sl2vl' if args.vl else 'vl0'
    checks = ['links_not_active', 'lids_missing', 'lids_duplicate', 'switches_without_lft',
              'pairs_unrouted', 'pairs_looping', 'switch_pairs_unrouted', 'switch_pairs_looping']
    if args.vl:
        rep['pathrecords'], rep['sl_unknown'] = walk.pathrecords, walk.sl_unknown
        rep['sl2vl_unread'], rep['pairs_vl15'] = walk.sl2vl_unread, walk.vl15
        rep['vls_used'] = sorted(walk.vls_used)
        rep['pairs_bad'] = (rep['pairs_bad'] + walk.vl15_bad)[:LIST_MAX]
        checks += ['sl_unknown', 'sl2vl_unread', 'pairs_vl15']
    bad = [k for k in checks if rep[k]]
    if cycle and not args.allow_credit_loops:
        bad.append('credit_loops')
    if rep['lft_top_unread'] and not args.quick:
        bad.append('lft_top_unread')
    rep['ok'], rep['not_ok_because'] = not bad, bad
    for k in ('links_not_active', 'lids_missing', 'lids_duplicate', 'switches_without_lft',
              'lft_top_unread', 'sl2vl_unread'):
        if k in rep:
            rep[k] = capped(rep[k])
    return rep


def shift_congestion(walk, shifts):
    """(max, mean) over SHIFTS shift permutations, spread evenly over 1..n-1, of the most CA
    flows on one switch link; in permutation i the CA port j (in LID order) sends to j+i"""
    fab = walk.fab
    cas = sorted((c for c in fab.cas if fab.ports[c]['lid'] and walk.attach[c]),
                 key=lambda c: fab.ports[c]['lid'])
    n = len(cas)
    if n < 2 or shifts <= 0:
        return 0, 0
    step = (n - 1) / min(shifts, n - 1)
    worst = []
    for i in sorted({1 + int(k * step) for k in range(min(shifts, n - 1))}):
        flows = collections.Counter()
        for j, c in enumerate(cas):
            tree = walk.trees[fab.ports[cas[(j + i) % n]]['lid']]
            s = walk.attach[c]
            if tree[s][0] is None:
                continue
            while tree[s][1]:
                flows[(s, tree[s][2])] += 1
                s = tree[s][1]
        worst.append(max(flows.values(), default=0))
    return max(worst), round(sum(worst) / len(worst), 3)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--json', help='also write the report to this file')
    ap.add_argument('--quick', action='store_true',
                    help='do not read the LinearFDBTop entry dump_fts leaves out: pairs to '
                    'that LID are not judged (lids_unjudged, pairs_unjudged)')
    ap.add_argument('--vl', action='store_true',
                    help='credit loops per VL: SLs from PathRecords, SL2VL from the switches')
    ap.add_argument('--allow-credit-loops', action='store_true',
                    help='credit loops are reported but do not make the fabric not ok')
    ap.add_argument('--shifts', type=int, default=8, help='shift permutations to sample (8)')
    ap.add_argument('--save', metavar='DIR', help='keep the diags output in DIR')
    ap.add_argument('--from', dest='from_dir', metavar='DIR',
                    help='judge the diags output saved in DIR instead of the fabric')
    args = ap.parse_args()
    src = Source(args.from_dir, args.save)
    try:
        fab = Fabric()
        fab.read_links(src.get('iblinkinfo.txt', ['iblinkinfo', '--line']))
        fab.read_fts(src.get('dump_fts.txt', ['dump_fts']))
        fab.finish()
        rep = judge(fab, args, src)
        rc = 0 if rep['ok'] else 1
    except Fail as e:
        rep, rc = dict(ok=False, error=str(e)), 2
    text = json.dumps(rep, indent=1, sort_keys=True)
    print(text)
    if args.json:
        with open(args.json, 'w') as f:
            f.write(text + '\n')
    return rc


if __name__ == '__main__':
    sys.exit(main())
