#!/usr/bin/env python3
"""simtool.py: parsers and checks for the ibsim test harness (tests/sim/lib.sh).

Everything here reads files the harness saved (tool outputs, JSON), so it never
talks to the fabric itself.  Subcommands:

  ibnd-lids IBND_OUT            'PORTGUID LID NAME' per LID owner seen by ibnetdiscover
                                (switch: node GUID, port 0; CA/router: each port), sorted
  ibnd-local IBND_OUT           the port GUID ibnetdiscover ran from ("Initiated from")
  ibnd-name IBND_OUT NAME       LID of the node whose description is NAME (first port)
  compare-lids IBND_OUT JSON    ibnetdiscover LIDs == `ibsmctl nodes --json` LIDs
  osm-nodes-json SUBNET_LST     OpenSM's opensm-subnet.lst as `ibsmctl nodes --json`
  sminfo-master SMINFO_OUT GUID sminfo names GUID as the master SM
  judge-ok JUDGE_JSON           the judges said "ok": true (tests/referee/run_judges.py)
  judge-faults JUDGE_JSON NODE  like judge-ok, but links at NODE may be left un-Active
  log-mentions LOG GUID PORT [PATH...]
                                the SM log names port GUID:PORT (0x..:8, 0x.. port 8, 0x../8,
                                0x..[8]) or one of the directed-route PATHs (e.g. 0,1,9,8)
  guid2lid FILE                 'GUID LID' per line of an OpenSM/ibsmd guid2lid file
  guid2lid-reverse FILE         the same GUIDs with their LIDs handed out in reverse order
  lids-diff A B                 compare two 'GUID LID ...' files; print what moved
  compare-nodes IBND NODES [LINKS]
                                `ibsmctl --json nodes` (and `links`) == ibnetdiscover: every
                                node's GUID, type, description and LIDs, and every link
  compare-lft IBROUTE LFT [IBROUTE LFT...]
                                `ibsmctl --json lft SW` == `ibroute SWLID`, entry by entry
  compare-route IBTRACERT ROUTE [IBTRACERT ROUTE...]
                                `ibsmctl --json route S D` == `ibtracert S D`, hop by hop
  route-pairs NODES N           N 'SLID DLID' pairs to trace, switch destinations among them
  ctl-shapes DIR                every DIR/VIEW.json (`ibsmctl --json VIEW`) has its members
  ctl-errors SOCKET             bad requests get the right error codes, the connection lives
  ctl-many SOCKET N             N clients at once, each asks status, all are answered
  net-nodes NET                 the node names of an ibsim net file, one per line
  flap-plan NET N SEED          N random link events for the ibsim console (Unlink "a"[p]
                                of a link that is up, Link "a"[p] "b"[q] of one that is down),
                                then a Link for every link still down; never a link of the
                                first node (where the SM runs)
  guid2lid-check FILE REF [ALT] FILE is a whole guid2lid (every line "GUID BASE [TOP]" or
                                blank, nothing cut off) with exactly the entries of REF (or
                                exactly those of ALT)
  guid2lid-drop FILE N SEED     FILE without N of its entries, chosen at random
  ctl-lids-check JSON LIDS      `ibsmctl --json lids` gives each GUID of LIDS ('GUID LID'
                                lines) that LID
Exit status 0 when the check holds, 1 with a reason on stderr when not.
"""
import json
import re
import sys

NODE_HDR = re.compile(r'^(Switch|Ca|Rt)\s+\d+\s+"[SHR]-([0-9a-fA-F]+)"\s*(?:#\s*"(.*?)")?(.*)$')
LOCAL = re.compile(r'^#\s*Initiated from node\s+([0-9a-fA-F]+)\s+port\s+([0-9a-fA-F]+)')


def die(msg):
    print(f"simtool: {msg}", file=sys.stderr)
    sys.exit(1)


def g(x):
    """GUID text in any spelling (0x..., S-..., bare hex) -> int"""
    x = str(x).strip()
    if x[:2] in ('S-', 'H-', 'R-'):
        x = x[2:]
    return int(x, 16)


PORT_LINE = re.compile(r'^\[(\d+)\](?:\(([0-9a-fA-F]+)\))?\s+"([SHR])-([0-9a-fA-F]+)"\[(\d+)\]'
                       r'(?:\([0-9a-fA-F]+\))?\s*#\s*(.*)$')
KINDS = {'Switch': 'Switch', 'Ca': 'CA', 'Rt': 'Router'}


def ibnd_topology(path):
    """ibnetdiscover -> {node guid: {type, desc, lid (switch), ports: {num: {guid, lid, peer}}}}"""
    nodes = {}
    cur = None
    for line in open(path, errors='replace'):
        line = line.rstrip('\n')
        m = NODE_HDR.match(line)
        if m:
            kind, guid, desc, rest = m.group(1), g(m.group(2)), m.group(3) or '', m.group(4)
            cur = nodes[guid] = {'type': KINDS[kind], 'desc': desc, 'ports': {}}
            lm = re.search(r'\blid\s+(\d+)', rest)
            if kind == 'Switch':
                cur['lid'] = int(lm.group(1)) if lm else 0
            continue
        if not line.strip():
            cur = None
            continue
        m = PORT_LINE.match(line)
        if cur is not None and m:
            num, pguid, _, peer, pport, rest = m.groups()
            port = {'peer': (g(peer), int(pport))}
            if cur['type'] != 'Switch':
                port['guid'] = g(pguid) if pguid else None
                lm = re.match(r'lid\s+(\d+)', rest)
                port['lid'] = int(lm.group(1)) if lm else None
            cur['ports'][int(num)] = port
    return nodes


def ibnd_parse(path):
    """-> {port guid: (lid, name, kind)} for every LID owner ibnetdiscover printed"""
    out = {}
    for guid, n in ibnd_topology(path).items():
        if n['type'] == 'Switch':
            out[guid] = (n['lid'], n['desc'], 'Switch')
            continue
        for num, p in n['ports'].items():
            if p['guid'] is not None and p['lid'] is not None:
                out[p['guid']] = (p['lid'], f"{n['desc']}/{num}", n['type'])
    return out


def cmd_ibnd_lids(path):
    lids = ibnd_parse(path)
    if not lids:
        die(f"{path}: no nodes in ibnetdiscover output")
    for guid in sorted(lids):
        lid, name, _ = lids[guid]
        print(f"0x{guid:016x} {lid} {name}")
    return 0


def cmd_ibnd_local(path):
    for line in open(path, errors='replace'):
        m = LOCAL.match(line)
        if m:
            print(f"0x{g(m.group(2)):016x}")
            return 0
    die(f"{path}: no 'Initiated from' line")


def cmd_ibnd_name(path, name):
    for guid, (lid, n, kind) in sorted(ibnd_parse(path).items()):
        if n == name or n.split('/')[0] == name:
            print(lid)
            return 0
    die(f"{path}: no node {name!r}")


def load_reply(path):
    """an `ibsmctl --json` reply -> its result; dies unless ok"""
    try:
        doc = json.load(open(path))
    except (OSError, ValueError) as e:
        die(f"{path}: not JSON: {e}")
    if not isinstance(doc, dict) or doc.get('ok') is not True:
        die(f"{path}: reply is not ok: {str(doc)[:300]}")
    return doc.get('result')


def sm_json_lids(path):
    """`ibsmctl nodes --json` -> {port guid: lid}; tolerant to extra fields"""
    nodes = (load_reply(path) or {}).get('nodes')
    if not isinstance(nodes, list):
        die(f"{path}: no result.nodes list")
    out = {}
    for n in nodes:
        ntype = str(n.get('type', '')).lower()
        ports = n.get('ports') or []
        if ntype == 'switch':
            lid = n.get('lid')
            if lid is None:  # fall back to port 0's, then any port's
                p0 = [p for p in ports if p.get('port') == 0] or ports
                lid = p0[0].get('lid') if p0 else None
            if lid is not None:
                out[g(n['guid'])] = int(lid)
            continue
        for p in ports:
            if p.get('lid') is None:
                continue
            pg = p.get('guid')
            if pg is None:
                continue
            out[g(pg)] = int(p['lid'])
    return out


def cmd_compare_lids(ibnd, js):
    a = {k: v[0] for k, v in ibnd_parse(ibnd).items()}
    names = {k: v[1] for k, v in ibnd_parse(ibnd).items()}
    b = sm_json_lids(js)
    if not a:
        die(f"{ibnd}: no nodes")
    bad = []
    for guid, lid in sorted(a.items()):
        if guid not in b:
            bad.append(f"{names[guid]} 0x{guid:016x}: lid {lid} on the wire, missing from the SM's list")
        elif b[guid] != lid:
            bad.append(f"{names[guid]} 0x{guid:016x}: lid {lid} on the wire, {b[guid]} in the SM's list")
    extra = sorted(set(b) - set(a))
    if bad:
        die(f"{len(bad)} of {len(a)} LIDs differ:\n  " + "\n  ".join(bad[:20]))
    print(f"compare-lids: {len(a)} LIDs agree"
          + (f" ({len(extra)} ports only in the SM's list)" if extra else ""))
    return 0


OSM_SIDE = re.compile(r'\{\s*(CA|SW|RTR)(?:-SM)?\s+Ports:([0-9A-Fa-f]+)\s+SystemGUID:[0-9A-Fa-f]+\s+'
                      r'NodeGUID:([0-9A-Fa-f]+)\s+PortGUID:([0-9A-Fa-f]+).*?\{(.*?)\}\s+'
                      r'LID:([0-9A-Fa-f]+)\s+PN:([0-9A-Fa-f]+)\s*\}')


def cmd_osm_nodes_json(path):
    """OpenSM writes its view of every link to opensm-subnet.lst; shape it like ibsmctl's reply"""
    nodes = {}
    for line in open(path, errors='replace'):
        for kind, _, ng, pg, desc, lid, pn in OSM_SIDE.findall(line):
            ng, pg = g(ng), g(pg)
            t = {'CA': 'CA', 'SW': 'Switch', 'RTR': 'Router'}[kind]
            n = nodes.setdefault(ng, {'guid': f"0x{ng:016x}", 'type': t, 'desc': desc, 'ports': {}})
            lid = int(lid, 16)
            if t == 'Switch':
                n['lid'] = lid
                pg = ng
            n['ports'][int(pn, 16)] = {'port': int(pn, 16), 'guid': f"0x{pg:016x}", 'lid': lid,
                                       'lmc': 0, 'state': 'Active'}
    if not nodes:
        die(f"{path}: no nodes")
    res = [dict(n, ports=[n['ports'][p] for p in sorted(n['ports'])]) for n in nodes.values()]
    print(json.dumps({'ok': True, 'result': {'nodes': res}}))
    return 0


SMINFO = re.compile(r'sm lid\s+(\d+)\s+sm guid\s+(0x[0-9a-fA-F]+),.*?state\s+(\d+)\s+(\w+)')


def cmd_sminfo_master(path, guid):
    text = open(path, errors='replace').read()
    m = SMINFO.search(text)
    if not m:
        die(f"sminfo printed no SMInfo: {text.strip()[:300]!r}")
    lid, sg, state, sname = m.groups()
    if g(sg) != g(guid):
        die(f"sminfo: master is {sg} (lid {lid}), expected {guid}")
    if sname != 'SMINFO_MASTER':
        die(f"sminfo: {sg} is in state {state} {sname}, not SMINFO_MASTER")
    print(f"sminfo: {sg} lid {lid} is master")
    return 0


def load_judge(path):
    try:
        return json.load(open(path))
    except (OSError, ValueError) as e:
        die(f"{path}: no judge report: {e}")


JUDGE_KEYS = ('error', 'links_not_active', 'lids_missing', 'lids_duplicate',
              'switches_without_lft', 'pairs_unrouted', 'pairs_looping', 'switch_pairs_unrouted',
              'switch_pairs_looping', 'pairs_bad',
              'credit_loops', 'credit_loop', 'lids_unlisted')


def cmd_judge_ok(path):
    """the report of tests/referee/run_judges.py: the referee's, the extra judge's inside"""
    rep = load_judge(path)
    extra = rep.get('extra')
    if rep.get('ok') is True:
        print(f"referee ok: {rep.get('nodes')} nodes, {rep.get('pairs')} pairs routed, "
              f"stretch {rep.get('path_stretch')}, credit loops {rep.get('credit_loops')}"
              + ("; extra judge ok" if extra else ""))
        return 0
    why = {k: rep[k] for k in JUDGE_KEYS if rep.get(k)}
    if extra and not extra.get('ok'):
        why['extra judge'] = {k: extra[k] for k in JUDGE_KEYS if extra.get(k)}
    die("judges say not ok: " + json.dumps(why))


def faults_of(rep, node):
    """what is wrong in one judge's report besides links and LIDs at NODE"""
    if rep.get('ok') is True:
        return []
    if rep.get('error'):
        return [f"error: {rep['error']}"]
    bad = []
    for x in rep.get('lids_missing', []) + rep.get('lids_unlisted', []):
        if not str(x).startswith('...') and not str(x).startswith(node):
            bad.append(f"no LID: {x}")
    for k in ('lids_duplicate', 'switches_without_lft', 'pairs_unrouted', 'pairs_looping',
              'switch_pairs_unrouted', 'switch_pairs_looping'):
        if rep.get(k):
            bad.append(f"{k}: {rep[k]}")
    return bad


def cmd_judge_faults(path, node):
    """the fabric minus a node that drops every packet: only links at that node may stay
    un-Active, and every CA the tools can see must have a LID and routes"""
    rep = load_judge(path)
    if rep.get('ok') is True:
        print("judges ok (the failing node did not matter)")
        return 0
    bad = faults_of(rep, node) + [f"extra judge: {x}" for x in faults_of(rep.get('extra', {}),
                                                                           node)]
    if bad:
        die("judges (fault mode): " + "; ".join(bad))
    stuck = [x for x in rep.get('links_not_active', []) if not x.startswith('...')]
    print(f"judges (fault mode) ok: {rep.get('ca_ports')} CA ports, {rep.get('pairs')} pairs "
          f"routed; un-Active links next to {node}: {len(stuck)}")
    return 0


def read_pairs(path):
    out = {}
    for line in open(path):
        w = line.split()
        if len(w) >= 2 and not line.startswith('#'):
            out[g(w[0])] = (int(w[1], 0), ' '.join(w[2:]))
    return out


def cmd_guid2lid(path):
    for line in open(path):
        w = line.split()
        if len(w) >= 2 and not line.startswith('#'):
            print(f"0x{g(w[0]):016x} {int(w[1], 0)}")
    return 0


def cmd_lids_diff(a, b):
    A, B = read_pairs(a), read_pairs(b)
    if not A or not B:
        die(f"empty LID list ({a}: {len(A)}, {b}: {len(B)})")
    bad = []
    for k in sorted(set(A) | set(B)):
        la, lb = A.get(k, (None, ''))[0], B.get(k, (None, ''))[0]
        if la != lb:
            name = (A.get(k) or B.get(k))[1]
            bad.append(f"0x{k:016x} {name}: {la} -> {lb}")
    if bad:
        die(f"{len(bad)} LIDs differ between {a} and {b}:\n  " + "\n  ".join(bad[:20]))
    print(f"lids-diff: {len(A)} LIDs unchanged")
    return 0


def cmd_log_mentions(log, guid, port, *paths):
    text = open(log, errors='replace').read()
    gv = g(guid)
    gre = rf'0x0*{gv:x}\b'
    pats = [gre + rf'\s*(?::|/|\[|,)?\s*(?:port\s*)?{int(port)}\b']
    for p in paths:
        hops = [h for h in p.split(',') if h != '']
        # a path may be printed with or without the leading 0, with ',' or ', ' or ' '
        body = r'[,\s]+'.join(hops[1:] if hops and hops[0] == '0' else hops)
        pats.append(rf'(?<![\d,])(?:0[,\s]+)?{body}(?![\d,])')
    for line in text.splitlines():
        for pat in pats:
            if re.search(pat, line, re.I):
                print(f"log-mentions: {line.strip()[:200]}")
                return 0
    die(f"{log}: no line names port 0x{gv:016x}:{port} or path(s) {' '.join(paths) or '-'}")


def cmd_guid2lid_reverse(path):
    rows = []
    for line in open(path):
        w = line.split()
        if len(w) >= 2 and not line.startswith('#'):
            rows.append((g(w[0]), int(w[1], 0)))
    lids = [l for _, l in rows][::-1]
    # OpenSM's reader needs the empty line after each entry (without it, it takes the next
    # line as part of the value)
    for (guid, _), lid in zip(rows, lids):
        print(f"0x{guid:016x} 0x{lid:04x} 0x{lid:04x}\n")
    return 0



# --- agreement with infiniband-diags -----------------------------------------------------

def link_key(a, ap, b, bp):
    return tuple(sorted(((a, ap), (b, bp))))


def fmt_link(k):
    return f"0x{k[0][0]:x}[{k[0][1]}] - 0x{k[1][0]:x}[{k[1][1]}]"


def cmd_compare_nodes(ibnd, nodes_js, links_js=None):
    wire = ibnd_topology(ibnd)
    if not wire:
        die(f"{ibnd}: no nodes")
    sm = {g(n['guid']): n for n in load_reply(nodes_js)['nodes']}
    bad = []
    for guid in sorted(set(wire) | set(sm)):
        w, n = wire.get(guid), sm.get(guid)
        if not w or not n:
            bad.append(f"node 0x{guid:016x}: only {'on the wire' if w else 'in the SM'}")
            continue
        name = w['desc']
        if n.get('type') != w['type']:
            bad.append(f"{name}: type {n.get('type')!r}, ibnetdiscover {w['type']!r}")
        if n.get('desc') != w['desc']:
            bad.append(f"{name}: description {n.get('desc')!r} in the SM")
        if w['type'] == 'Switch' and n.get('lid') != w['lid']:
            bad.append(f"{name}: lid {n.get('lid')} in the SM, {w['lid']} on the wire")
        ports = {p['port']: p for p in n.get('ports', [])}
        for num, wp in sorted(w['ports'].items()):
            p = ports.get(num)
            if p is None:
                bad.append(f"{name} port {num}: missing in the SM")
                continue
            if w['type'] != 'Switch':
                if p.get('guid') is None or g(p['guid']) != wp['guid']:
                    bad.append(f"{name} port {num}: guid {p.get('guid')} in the SM")
                if p.get('lid') != wp['lid']:
                    bad.append(f"{name} port {num}: lid {p.get('lid')} in the SM, "
                               f"{wp['lid']} on the wire")
    wlinks = {link_key(a, ap, *p['peer']) for a, n in wire.items() for ap, p in n['ports'].items()}
    views = [('nodes', {link_key(g(n['guid']), p['port'], g(p['peer_guid']), p['peer_port'])
                        for n in sm.values() for p in n.get('ports', []) if p.get('peer_guid')})]
    if links_js:
        views.append(('links', {link_key(g(l['a_guid']), l['a_port'], g(l['b_guid']), l['b_port'])
                                for l in load_reply(links_js)['links']}))
    for what, links in views:
        for k in sorted(wlinks - links):
            bad.append(f"link {fmt_link(k)}: on the wire, not in `{what}`")
        for k in sorted(links - wlinks):
            bad.append(f"link {fmt_link(k)}: in `{what}`, not on the wire")
    if bad:
        die(f"{len(bad)} differences with ibnetdiscover:\n  " + "\n  ".join(bad[:30]))
    print(f"compare-nodes: {len(wire)} nodes and {len(wlinks)} links agree with ibnetdiscover"
          + (" (nodes and links views)" if links_js else ""))
    return 0


IBROUTE_HDR = re.compile(r'^Unicast lids \[0x([0-9a-f]+)-0x([0-9a-f]+)\] of switch '
                         r'.*guid (0x[0-9a-f]+)')
IBROUTE_ROW = re.compile(r'^0x([0-9a-f]+)\s+(\d+)\s+:')


def cmd_compare_lft(*files):
    if len(files) % 2:
        die("compare-lft: IBROUTE LFT pairs")
    total = 0
    for ibroute, lft_js in zip(files[::2], files[1::2]):
        text = open(ibroute, errors='replace').read().splitlines()
        hdr = [IBROUTE_HDR.match(l) for l in text if IBROUTE_HDR.match(l)]
        if not hdr:
            die(f"{ibroute}: no 'Unicast lids' header: {text[:3]}")
        wire = {int(m.group(1), 16): int(m.group(2)) for m in map(IBROUTE_ROW.match, text) if m}
        res = load_reply(lft_js)
        sw = res['switch']
        if g(hdr[0].group(3)) != g(sw['guid']):
            die(f"{ibroute}: switch {hdr[0].group(3)}, the SM's view is of {sw['guid']}")
        top = res['lft_top']
        sm = {e['lid']: e['port'] for e in res['entries']}
        # ibroute leaves out the entry of LID == LinearFDBTop (some versions): compare it
        # only when both have it
        lids = {l for l in set(wire) | set(sm) if l < top or (l == top and l in wire and l in sm)}
        bad = [f"lid {l}: port {sm.get(l)} in the SM, {wire.get(l)} in ibroute"
               for l in sorted(lids) if sm.get(l) != wire.get(l)]
        if bad:
            die(f"{sw['desc']} (lid {sw.get('lid')}): {len(bad)} LFT entries differ:\n  "
                + "\n  ".join(bad[:20]))
        if not lids:
            die(f"{sw['desc']}: empty LFT")
        total += len(lids)
    print(f"compare-lft: {len(files) // 2} switches, {total} LFT entries agree with ibroute")
    return 0


TR_FROM = re.compile(r'^From (\w+) \{(0x[0-9a-f]+)\} portnum (\d+)')
TR_HOP = re.compile(r'^\[(\d+)\] -> (\w+) port \{(0x[0-9a-f]+)\}\[(\d+)\]')
TR_TO = re.compile(r'^To (\w+) \{(0x[0-9a-f]+)\} portnum (\d+)')


def tracert_hops(path):
    """ibtracert -> [(node guid, in port, out port)], None where a port does not apply"""
    hops, to = [], None
    for line in open(path, errors='replace'):
        m = TR_FROM.match(line)
        if m:
            hops.append([g(m.group(2)), None, None])
            continue
        m = TR_HOP.match(line)
        if m and hops:
            hops[-1][2] = int(m.group(1))
            hops.append([g(m.group(3)), int(m.group(4)), None])
            continue
        m = TR_TO.match(line)
        if m:
            to = g(m.group(2))
    if not hops or to is None:
        die(f"{path}: no complete ibtracert output")
    hops[-1][0] = to  # a CA shows as its port GUID on the way, as its node GUID at the end
    return [tuple(h) for h in hops]


def cmd_compare_route(*files):
    if len(files) % 2:
        die("compare-route: IBTRACERT ROUTE pairs")
    for tr, route_js in zip(files[::2], files[1::2]):
        wire = tracert_hops(tr)
        res = load_reply(route_js)
        if res.get('delivered') is not True:
            die(f"{route_js}: not delivered: {res.get('reason')}")
        sm = [(g(h['guid']), h.get('in_port'), h.get('out_port')) for h in res['hops']]
        if sm != wire:
            fmt = lambda hs: ' -> '.join(f"0x{n:x} in {i} out {o}" for n, i, o in hs)
            die(f"{res['src']['desc']} -> {res['dst']['desc']} (dlid {res['dlid']}) differs:\n"
                f"  ibsmctl:   {fmt(sm)}\n  ibtracert: {fmt(wire)}")
    print(f"compare-route: {len(files) // 2} routes agree with ibtracert hop by hop")
    return 0


def cmd_route_pairs(nodes_js, n):
    """a fixed sample of (SLID, DLID): CA -> CA, CA -> switch, switch -> CA, switch -> switch"""
    import random
    nodes = load_reply(nodes_js)['nodes']
    sw = sorted(x['lid'] for x in nodes if x['type'] == 'Switch' and x.get('lid'))
    ca = sorted(p['lid'] for x in nodes if x['type'] != 'Switch'
                for p in x.get('ports', []) if p.get('lid'))
    if len(sw) < 2 or len(ca) < 2:
        die(f"{nodes_js}: too few switches or CAs")
    rnd = random.Random(4242)
    kinds = [(ca, ca), (ca, sw), (sw, ca), (sw, sw)]
    pairs = set()
    while len(pairs) < int(n):
        a, b = kinds[len(pairs) % 4]
        s, d = rnd.choice(a), rnd.choice(b)
        if s != d:
            pairs.add((s, d))
    for s, d in sorted(pairs):
        print(s, d)
    return 0


# --- the status socket ------------------------------------------------------------------

GUID_RE = re.compile(r'^0x[0-9a-f]{16}$')


class Guid:
    pass


def shape_errors(v, want, where):
    """v against want: a type, Guid, a dict of required members, [elem] (non-empty list),
    or a tuple of alternatives"""
    if isinstance(want, tuple):
        errs = [shape_errors(v, w, where) for w in want]
        return [] if any(not e for e in errs) else errs[0]
    if want is Guid:
        return [] if isinstance(v, str) and GUID_RE.match(v) else [f"{where}: not a GUID: {v!r}"]
    if isinstance(want, dict):
        if not isinstance(v, dict):
            return [f"{where}: not an object"]
        out = []
        for k, w in want.items():
            if k not in v:
                out.append(f"{where}.{k}: missing")
            else:
                out += shape_errors(v[k], w, f"{where}.{k}")
        return out
    if isinstance(want, list):
        if not isinstance(v, list) or not v:
            return [f"{where}: not a non-empty array"]
        return [e for i, x in enumerate(v) for e in shape_errors(x, want[0], f"{where}[{i}]")]
    if want is None:
        return [] if v is None else [f"{where}: not null"]
    # bool is an int to Python: tell them apart
    ok = type(v) is want or (want is float and type(v) is int)
    return [] if ok else [f"{where}: {type(v).__name__}, want {want.__name__}"]


NODE_PORT = {'port': int, 'state': str, 'phys': str}
NODE = {'guid': Guid, 'type': str, 'desc': str, 'nports': int, 'dr_path': str,
        'ports': [NODE_PORT]}
PORT_DETAIL = dict(NODE_PORT, mtu_cap=int, neighbor_mtu=int, vl_cap=int, op_vls=int, sm_lid=int,
                   cap_mask=int)
BRIEF = {'guid': Guid, 'type': str, 'desc': str}
EVENT = {'event': str, 'seq': int, 'time': str, 'time_ms': int, 'text': str}
SHAPES = {
    'status': {'version': str, 'uptime_s': int, 'subnet_up': bool,
               'sm': {'state': str, 'priority': int, 'guid': Guid, 'lid': int, 'port': int,
                      'act_count': int},
               'sweeps': {'heavy': int, 'light': int, 'running': bool, 'last_heavy_ms': int,
                          'last_heavy_ok': bool, 'last_heavy_age_s': int},
               'fabric': {'nodes': int, 'switches': int, 'cas': int, 'routers': int,
                          'links': int, 'max_lid': int},
               'mads': {'sent': int, 'received': int, 'timeouts': int},
               'traps': {'received': int}, 'clients': {'connected': int, 'subscribed': int}},
    'nodes': {'nodes': [NODE]},
    'node_switch': {'node': dict(BRIEF, lid=int, nports=int, sys_guid=Guid, vendor_id=int,
                                 device_id=int, revision=int, dr_path=str,
                                 switch={'lft_cap': int, 'lft_top': int, 'mft_cap': int},
                                 ports=[PORT_DETAIL])},
    'node_ca': {'node': dict(BRIEF, nports=int, ports=[dict(PORT_DETAIL, guid=Guid, lid=int,
                                                            lmc=int, peer_guid=Guid,
                                                            peer_port=int)])},
    'ports': {'node_guid': Guid, 'type': str, 'desc': str, 'ports': [{'port': int}]},
    'links': {'links': [{'a_guid': Guid, 'a_desc': str, 'a_port': int, 'b_guid': Guid,
                         'b_desc': str, 'b_port': int, 'state': str, 'width': str,
                         'speed': str}]},
    'switches': {'switches': [{'guid': Guid, 'desc': str, 'lid': int, 'nports': int,
                               'linked': int, 'active': int, 'lft_cap': int, 'lft_top': int}]},
    'lft': {'switch': dict(BRIEF, lid=int), 'lft_top': int,
            'entries': [{'lid': int, 'port': int, 'dest': (str, None)}]},
    'route': {'src': BRIEF, 'dst': BRIEF, 'dlid': int, 'delivered': bool, 'switch_hops': int,
              'hops': [{'guid': Guid, 'desc': str, 'in_port': (int, None),
                        'out_port': (int, None)}]},
    'lids': {'lids': [{'lid': int, 'top': int, 'guid': Guid, 'port': int, 'type': str,
                       'desc': str}],
             'max_lid': int, 'guid2lid': {'path': (str, None), 'entries': int, 'corrupt': bool}},
    'routing': {'engine': str, 'configured': (str, None), 'runs': int, 'failures': int,
                'last_ms': int, 'last_ok': bool, 'lft_blocks_sent_last': int},
    'config': {'file': (str, None),
               'config': [{'key': str, 'value': str, 'default': str, 'source': str,
                           'reload': bool, 'supported': bool, 'description': str}]},
    'counters': {'mads': {'sent': int, 'received': int}, 'dropped': {'malformed': int},
                 'traps': {'received': int}, 'sweeps': {'heavy': int, 'light': int},
                 'requests': {'sminfo': int, 'sa': int}, 'transport': {'receive_overruns': int},
                 'clients': {'connected': int, 'subscribed': int}},
    'events': {'events': [EVENT], 'total': int},
    'help': {'commands': [{'name': str, 'help': str, 'action': bool}]},
}


def cmd_ctl_shapes(d):
    import os
    bad, seen, res = [], [], {}
    for view, shape in SHAPES.items():
        path = os.path.join(d, view + '.json')
        if not os.path.exists(path):
            bad.append(f"{view}: no {path}")
            continue
        res[view] = load_reply(path)
        bad += shape_errors(res[view], shape, view)
        seen.append(view)
    if bad:
        die(f"{len(bad)} shape errors:\n  " + "\n  ".join(bad[:30]))
    # the views agree with each other
    fab = res['status']['fabric']
    counts = {'nodes': len(res['nodes']['nodes']), 'links': len(res['links']['links']),
              'switches': len(res['switches']['switches'])}
    for k, n in counts.items():
        if fab[k] != n:
            bad.append(f"status says {fab[k]} {k}, the {k} view lists {n}")
    if len(res['lids']['lids']) != fab['nodes']:
        bad.append(f"lids lists {len(res['lids']['lids'])} owners for {fab['nodes']} nodes")
    names = {c['name'] for c in res['help']['commands']}
    for c in ('status', 'nodes', 'node', 'ports', 'links', 'switches', 'lft', 'route', 'lids',
              'routing', 'config', 'counters', 'events', 'sweep', 'reroute', 'loglevel',
              'reload', 'help', 'subscribe'):
        if c not in names:
            bad.append(f"help does not list {c}")
    if bad:
        die("; ".join(bad))
    print(f"ctl-shapes: {len(seen)} views have their members")
    return 0


class Conn:
    """one status socket connection, one JSON line each way"""

    def __init__(self, path, timeout=10):
        import socket
        self.s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.s.settimeout(timeout)
        self.s.connect(path)
        self.buf = b''

    def send(self, raw):
        self.s.sendall(raw if raw.endswith(b'\n') else raw + b'\n')

    def reply(self):
        while b'\n' not in self.buf:
            chunk = self.s.recv(65536)
            if not chunk:
                die(f"the SM closed the connection (pending {self.buf[:100]!r})")
            self.buf += chunk
        line, self.buf = self.buf.split(b'\n', 1)
        return json.loads(line)


def cmd_ctl_errors(path):
    c = Conn(path)
    big = b'{"cmd":"status","pad":"' + b'x' * (70 * 1024) + b'"}'
    cases = [
        (b'{"cmd":', 'bad_request'),
        (b'[1,2]', 'bad_request'),
        (b'{"cmd":5}', 'bad_request'),
        (b'{"nocmd":"status"}', 'bad_request'),
        (big, 'too_large'),
        (b'{"cmd":"nosuchcommand"}', 'unknown_command'),
        (b'{"cmd":"node"}', 'bad_request'),
        (b'{"cmd":"ports"}', 'bad_request'),
        (b'{"cmd":"lft"}', 'bad_request'),
        (b'{"cmd":"route","src":1}', 'bad_request'),
        (b'{"cmd":"lft","switch":1,"from":"x"}', 'bad_request'),
        (b'{"cmd":"events","n":-1}', 'bad_request'),
        (b'{"cmd":"nodes","guid":"notaguid"}', 'bad_request'),
        (b'{"cmd":"config","key":5}', 'bad_request'),
        (b'{"cmd":"sweep","kind":"medium"}', 'bad_request'),
        (b'{"cmd":"loglevel","level":"loud"}', 'bad_request'),
        (b'{"cmd":"loglevel"}', 'bad_request'),
        (b'{"cmd":"node","node":"no-such-node"}', 'not_found'),
        (b'{"cmd":"config","key":"no_such_key"}', 'not_found'),
    ]
    for i, (req, code) in enumerate(cases):
        # the bad request, then a good one on the same connection
        c.send(req)
        c.send(b'{"cmd":"status","id":%d}' % i)
        r = c.reply()
        got = (r.get('error') or {}).get('code')
        if r.get('ok') is not False or got != code:
            die(f"{req[:60]!r}: want {code}, got {json.dumps(r)[:200]}")
        r = c.reply()
        if r.get('ok') is not True or r.get('id') != i:
            die(f"after {req[:60]!r}: status on the same connection: {json.dumps(r)[:200]}")
    # pipelined requests come back in order, with their ids
    c.send(b''.join(b'{"cmd":"%s","id":"x%d"}\n' % (v, i)
                    for i, v in enumerate([b'lids', b'status', b'routing'])))
    ids = [c.reply().get('id') for _ in range(3)]
    if ids != ['x0', 'x1', 'x2']:
        die(f"pipelined replies out of order: {ids}")
    print(f"ctl-errors: {len(cases)} bad requests got their codes, the connection stayed usable")
    return 0


def cmd_ctl_many(path, n):
    import select
    import time
    n = int(n)
    conns = [Conn(path) for _ in range(n)]
    for i, c in enumerate(conns):
        c.send(b'{"cmd":"status","id":%d}' % i)
    pending = {c.s.fileno(): (i, c) for i, c in enumerate(conns)}
    end = time.time() + 20
    while pending and time.time() < end:
        ready, _, _ = select.select(list(pending), [], [], 1)
        for fd in ready:
            i, c = pending[fd]
            chunk = c.s.recv(1 << 20)
            if not chunk:
                die(f"client {i}: closed without a reply")
            c.buf += chunk
            if b'\n' in c.buf:
                r = json.loads(c.buf.split(b'\n', 1)[0])
                if r.get('ok') is not True or r.get('id') != i:
                    die(f"client {i}: {json.dumps(r)[:200]}")
                del pending[fd]
    if pending:
        die(f"{len(pending)} of {n} clients got no reply in 20 s")
    for c in conns:
        c.s.close()
    print(f"ctl-many: {n} clients at once, all answered")
    return 0


NET_NODE = re.compile(r'^(Switch|Hca|Ca|Rt|Router)\s+\d+\s+"([^"]+)"')
NET_PORT = re.compile(r'^\[(\d+)\]\s+"([^"]+)"\[(\d+)\]')


def read_net(path):
    """ibsim net file -> (node names in file order, {(a, p, b, q)} links with (a, p) < (b, q))"""
    names, links, cur = [], set(), None
    for line in open(path):
        m = NET_NODE.match(line)
        if m:
            cur = m.group(2)
            names.append(cur)
            continue
        m = NET_PORT.match(line)
        if m and cur is not None:
            a, b = (cur, int(m.group(1))), (m.group(2), int(m.group(3)))
            links.add(a + b if a < b else b + a)
    return names, links


def cmd_net_nodes(path):
    for n in read_net(path)[0]:
        print(n)
    return 0


def cmd_flap_plan(path, n, seed):
    import random
    names, links = read_net(path)
    rnd = random.Random(int(seed))
    cand = sorted(l for l in links if names[0] not in (l[0], l[2]))
    if not cand:
        die(f"{path}: no link to flap")
    down = set()
    for _ in range(int(n)):
        l = rnd.choice(cand)
        if l in down:
            down.discard(l)
            print(f'Link "{l[0]}"[{l[1]}] "{l[2]}"[{l[3]}]')
        else:
            down.add(l)
            a, p = (l[0], l[1]) if rnd.random() < 0.5 else (l[2], l[3])
            print(f'Unlink "{a}"[{p}]')
    for l in sorted(down):
        print(f'Link "{l[0]}"[{l[1]}] "{l[2]}"[{l[3]}]')
    return 0


G2L_LINE = re.compile(r'^0x[0-9a-fA-F]{1,16} +0x[0-9a-fA-F]{1,4}( +0x[0-9a-fA-F]{1,4})?$')


def cmd_guid2lid_drop(path, n, seed):
    import random
    lines = [l for l in open(path).read().split('\n') if l.strip() and not l.startswith('#')]
    drop = set(random.Random(int(seed)).sample(range(len(lines)), min(int(n), len(lines))))
    for i, l in enumerate(lines):
        if i not in drop:
            print(l + '\n')
    return 0


def cmd_guid2lid_check(path, ref, alt=None):
    """a guid2lid must be complete and exactly REF's: a torn write shows as a cut line,
    lost entries or an empty file"""
    try:
        text = open(path, errors='replace').read()
    except OSError as e:
        die(f"guid2lid: {e}")
    if not text:
        die(f"{path} is empty")
    if not text.endswith('\n'):
        die(f"{path} does not end with a newline (cut off?): ...{text[-40:]!r}")
    for i, line in enumerate(text.split('\n')[:-1], 1):
        if line and not line.startswith('#') and not G2L_LINE.match(line):
            die(f"{path}:{i}: not a guid2lid line: {line[:80]!r}")
    a, b = read_pairs(path), read_pairs(ref)
    if alt is not None and {k: v[0] for k, v in a.items()} == \
            {k: v[0] for k, v in read_pairs(alt).items()}:
        print(f"guid2lid-check: {len(a)} entries, whole, as in {alt}")
        return 0
    moved = [f"0x{k:016x}: {b[k][0]} -> {a.get(k, (None,))[0]}" for k in sorted(b)
             if a.get(k, (None,))[0] != b[k][0]]
    extra = sorted(set(a) - set(b))
    if moved or extra:
        die(f"{path} differs from {ref}: {len(moved)} entries lost or moved "
            f"({'; '.join(moved[:5])}), {len(extra)} new")
    print(f"guid2lid-check: {len(a)} entries, whole and unchanged")
    return 0


def cmd_ctl_lids_check(js, lids):
    rep = load_reply(js)
    want = read_pairs(lids)
    have = {}

    def walk(v):
        if isinstance(v, dict):
            gv, lv = v.get('guid'), v.get('lid', v.get('base', v.get('base_lid')))
            if gv is not None and isinstance(lv, int) and lv:
                have.setdefault(g(gv), set()).add(lv)
            for x in v.values():
                walk(x)
        elif isinstance(v, list):
            for x in v:
                walk(x)
    walk(rep)
    bad = [f"0x{k:016x} {w[1]}: want {w[0]}, ibsmctl lids {sorted(have.get(k, []))}"
           for k, w in sorted(want.items()) if w[0] not in have.get(k, set())]
    if bad:
        die(f"{len(bad)} of {len(want)} LIDs differ in ibsmctl lids:\n  " + "\n  ".join(bad[:10]))
    print(f"ctl-lids-check: {len(want)} LIDs as ibsmctl lids reports them")
    return 0


CMDS = {
    'ibnd-lids': (cmd_ibnd_lids, 1), 'ibnd-local': (cmd_ibnd_local, 1),
    'ibnd-name': (cmd_ibnd_name, 2),
    'compare-lids': (cmd_compare_lids, 2), 'osm-nodes-json': (cmd_osm_nodes_json, 1),
    'sminfo-master': (cmd_sminfo_master, 2), 'judge-ok': (cmd_judge_ok, 1),
    'judge-faults': (cmd_judge_faults, 2), 'guid2lid': (cmd_guid2lid, 1),
    'guid2lid-reverse': (cmd_guid2lid_reverse, 1), 'log-mentions': (cmd_log_mentions, -3),
    'lids-diff': (cmd_lids_diff, 2),
    'compare-nodes': (cmd_compare_nodes, -2), 'compare-lft': (cmd_compare_lft, -2),
    'compare-route': (cmd_compare_route, -2), 'route-pairs': (cmd_route_pairs, 2),
    'ctl-shapes': (cmd_ctl_shapes, 1), 'ctl-errors': (cmd_ctl_errors, 1),
    'ctl-many': (cmd_ctl_many, 2), 'net-nodes': (cmd_net_nodes, 1),
    'flap-plan': (cmd_flap_plan, 3), 'guid2lid-check': (cmd_guid2lid_check, -2),
    'guid2lid-drop': (cmd_guid2lid_drop, 3),
    'ctl-lids-check': (cmd_ctl_lids_check, 2),
}

def run_cli(cmds, doc, argv):
    """run the subcommand argv[1] of a {name: (function, arity)} table (arity -N: at least N
    arguments); the usage (doc) and exit 2 when it does not fit"""
    n = cmds.get(argv[1], (None, 0))[1] if len(argv) > 1 else 0
    if (len(argv) < 2 or argv[1] not in cmds
            or (n >= 0 and len(argv) - 2 != n) or (n < 0 and len(argv) - 2 < -n)):
        print(doc, file=sys.stderr)
        return 2
    return cmds[argv[1]][0](*argv[2:])


if __name__ == '__main__':
    sys.exit(run_cli(CMDS, __doc__, sys.argv))
