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
  judge-ok JUDGE_JSON           the judge said "ok": true
  judge-faults JUDGE_JSON NODE  like judge-ok, but links at NODE may be left un-Active
  log-mentions LOG GUID PORT [PATH...]
                                the SM log names port GUID:PORT (0x..:8, 0x.. port 8, 0x../8,
                                0x..[8]) or one of the directed-route PATHs (e.g. 0,1,9,8)
  guid2lid FILE                 'GUID LID' per line of an OpenSM/ibsmd guid2lid file
  guid2lid-reverse FILE         the same GUIDs with their LIDs handed out in reverse order
  lids-diff A B                 compare two 'GUID LID ...' files; print what moved
Exit status 0 when the check holds, 1 with a reason on stderr when not.
"""
import json
import re
import sys

NODE_HDR = re.compile(r'^(Switch|Ca|Rt)\s+\d+\s+"[SHR]-([0-9a-fA-F]+)"\s*(?:#\s*"(.*?)")?(.*)$')
CA_PORT = re.compile(r'^\[(\d+)\]\(([0-9a-fA-F]+)\)\s+"[^"]*"\[\d+\](?:\([0-9a-fA-F]+\))?\s*#\s*lid\s+(\d+)')
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


def ibnd_parse(path):
    """-> {port guid: (lid, name, kind)} for every LID owner ibnetdiscover printed"""
    out = {}
    cur = None
    for line in open(path, errors='replace'):
        line = line.rstrip('\n')
        m = NODE_HDR.match(line)
        if m:
            kind, guid, desc, rest = m.group(1), g(m.group(2)), m.group(3) or '', m.group(4)
            cur = (kind, guid, desc)
            if kind == 'Switch':
                lm = re.search(r'\blid\s+(\d+)', rest)
                out[guid] = (int(lm.group(1)) if lm else 0, desc, 'Switch')
            continue
        if not line.strip():
            cur = None
            continue
        if cur and cur[0] != 'Switch':
            m = CA_PORT.match(line)
            if m:
                out[g(m.group(2))] = (int(m.group(3)), f"{cur[2]}/{m.group(1)}", cur[0])
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


def sm_json_lids(path):
    """`ibsmctl nodes --json` -> {port guid: lid}; tolerant to extra fields"""
    try:
        doc = json.load(open(path))
    except (OSError, ValueError) as e:
        die(f"{path}: not JSON: {e}")
    if not isinstance(doc, dict) or doc.get('ok') is not True:
        die(f"{path}: reply is not ok: {str(doc)[:300]}")
    nodes = (doc.get('result') or {}).get('nodes')
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


def cmd_judge_ok(path):
    rep = load_judge(path)
    if rep.get('ok') is True:
        print(f"judge ok: {rep.get('nodes')} nodes, {rep.get('pairs')} pairs routed, "
              f"stretch {rep.get('path_stretch')}, credit loops {rep.get('credit_loops')}")
        return 0
    keys = ('error', 'links_not_active', 'lids_missing', 'lids_duplicate', 'switches_without_lft',
            'pairs_unrouted', 'pairs_looping', 'credit_loops', 'lids_unlisted')
    die("judge says not ok: " + json.dumps({k: rep[k] for k in keys if rep.get(k)}))


def cmd_judge_faults(path, node):
    """the fabric minus a node that drops every packet: only links at that node may stay
    un-Active, and every CA the tools can see must have a LID and routes"""
    rep = load_judge(path)
    if rep.get('ok') is True:
        print("judge ok (the failing node did not matter)")
        return 0
    if rep.get('error'):
        die(f"judge: {rep['error']}")
    bad = []
    stuck = [x for x in rep.get('links_not_active', []) if not x.startswith('...')]
    for x in rep.get('lids_missing', []) + rep.get('lids_unlisted', []):
        if not str(x).startswith('...') and not str(x).startswith(node):
            bad.append(f"no LID: {x}")
    for k in ('lids_duplicate', 'switches_without_lft'):
        if rep.get(k):
            bad.append(f"{k}: {rep[k]}")
    for k in ('pairs_unrouted', 'pairs_looping'):
        if rep.get(k):
            bad.append(f"{k}: {rep[k]}")
    if bad:
        die("judge (fault mode): " + "; ".join(bad))
    print(f"judge (fault mode) ok: {rep.get('ca_ports')} CA ports, {rep.get('pairs')} pairs routed; "
          f"un-Active links next to {node}: {len(stuck)}")
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


CMDS = {
    'ibnd-lids': (cmd_ibnd_lids, 1), 'ibnd-local': (cmd_ibnd_local, 1),
    'ibnd-name': (cmd_ibnd_name, 2),
    'compare-lids': (cmd_compare_lids, 2), 'osm-nodes-json': (cmd_osm_nodes_json, 1),
    'sminfo-master': (cmd_sminfo_master, 2), 'judge-ok': (cmd_judge_ok, 1),
    'judge-faults': (cmd_judge_faults, 2), 'guid2lid': (cmd_guid2lid, 1),
    'guid2lid-reverse': (cmd_guid2lid_reverse, 1), 'log-mentions': (cmd_log_mentions, -3),
    'lids-diff': (cmd_lids_diff, 2),
}

if __name__ == '__main__':
    n = CMDS.get(sys.argv[1], (None, 0))[1] if len(sys.argv) > 1 else 0
    if (len(sys.argv) < 2 or sys.argv[1] not in CMDS
            or (n >= 0 and len(sys.argv) - 2 != n) or (n < 0 and len(sys.argv) - 2 < -n)):
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    sys.exit(CMDS[sys.argv[1]][0](*sys.argv[2:]))
