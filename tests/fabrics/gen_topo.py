#!/usr/bin/env python3
"""gen_topo.py: write InfiniBand fabric descriptions for ibsim (and ibsmd's tests).

The output is an ibsim "net" file, which is also close enough to ibnetdiscover's
topology format for ibsmd's topofile reader:

    Hca     1 "leaf1-host1"
    [1]     "leaf1"[1]              # "leaf1" lid 0 4xSDR

    Switch  36 "leaf1"
    [1]     "leaf1-host1"[1]        # "leaf1-host1" lid 0 4xSDR

Rules every generated file keeps:
  - the FIRST node is a host CA: ibsim attaches a client without SIM_HOST there,
    so the SM under test runs on it (its port GUID is 0x100001 on a fresh ibsim);
  - node ids are readable and unique ("spine1", "leaf3-host2", "pod2-edge1",
    "core3"); ibsim uses the id as the NodeDescription;
  - the same arguments always give the same bytes (seeded RNG, no timestamps);
  - every port line carries an ibnetdiscover-style comment '# "peer" lid 0 4xSDR':
    ibsim >= 0.10 parses it (4x SDR, no LID) instead of warning once per port.

GUIDs are not written: ibsim numbers CAs from 0x100000 and switches from 0x200000
in file order (a CA with P ports takes P+1 GUIDs; port GUID = node GUID + port).

Subcommands (see --help of each):
  leafspine --spines S --leaves L --hosts H [--links-per-pair N]
  fattree   --k K                   3-level k-ary fat tree, k^3/4 hosts, 5k^2/4 switches
  torus     --dims 6x6[x4] [--hosts H]
  random    --switches N --degree D --seed S [--hosts H]
  degrade   --input FILE --fraction F --seed S
  stats     --input FILE            print node/port counts and the ibsim -N/-S/-P they need
"""
import argparse
import re
import sys
from collections import OrderedDict, deque

# switch port counts we round up to, so that most switches keep a few unused
# (Down/Polling) ports like real ones do
RADIXES = (8, 12, 18, 24, 32, 36, 48, 64, 96, 128, 254)
MAX_PORTS = 254          # NodeInfo NumPorts tops out at 254 external ports
MAX_ID = 63              # ibsim: NodeDescription is 64 bytes, ids must fit
SPEED = "4xSDR"          # what ibsim gives a link without annotation


class Fabric:
    """Nodes in output order; links as (a, pa, b, pb)."""

    def __init__(self):
        self.nodes = OrderedDict()   # name -> {'type': 'Hca'|'Switch', 'ports': n, 'links': {p: (peer, pp)}}
        self.comments = []

    def add(self, name, ntype, nports):
        if name in self.nodes:
            raise SystemExit(f"gen_topo: duplicate node id {name!r}")
        if len(name) > MAX_ID or '"' in name or '#' in name or '@' in name:
            raise SystemExit(f"gen_topo: bad node id {name!r}")
        if not 1 <= nports <= MAX_PORTS:
            raise SystemExit(f"gen_topo: {name}: {nports} ports (ibsim allows 1-{MAX_PORTS})")
        self.nodes[name] = {'type': ntype, 'ports': nports, 'links': {}}

    def link(self, a, pa, b, pb):
        for n, p in ((a, pa), (b, pb)):
            node = self.nodes[n]
            if not 1 <= p <= node['ports']:
                raise SystemExit(f"gen_topo: {n} has no port {p} (radix {node['ports']})")
            if p in node['links']:
                raise SystemExit(f"gen_topo: {n}[{p}] linked twice")
        self.nodes[a]['links'][pa] = (b, pb)
        self.nodes[b]['links'][pb] = (a, pa)

    def unlink(self, a, pa):
        b, pb = self.nodes[a]['links'].pop(pa)
        del self.nodes[b]['links'][pb]

    def switch_links(self):
        """inter-switch links, each once, in file order"""
        out = []
        for n, d in self.nodes.items():
            if d['type'] != 'Switch':
                continue
            for p in sorted(d['links']):
                m, q = d['links'][p]
                if self.nodes[m]['type'] == 'Switch' and (n, p) < (m, q):
                    out.append((n, p, m, q))
        return out

    def switch_graph_connected(self, skip=None):
        sw = [n for n, d in self.nodes.items() if d['type'] == 'Switch']
        if not sw:
            return True
        adj = {n: [] for n in sw}
        for lk in self.switch_links():
            if lk == skip:
                continue
            a, _, b, _ = lk
            adj[a].append(b)
            adj[b].append(a)
        seen, q = {sw[0]}, deque([sw[0]])
        while q:
            for v in adj[q.popleft()]:
                if v not in seen:
                    seen.add(v)
                    q.append(v)
        return len(seen) == len(sw)

    def check(self):
        first = next(iter(self.nodes.values()), None)
        if first is None or first['type'] == 'Switch':
            raise SystemExit("gen_topo: the first node must be a host CA")

    def write(self, f):
        self.check()
        nsw = sum(d['type'] == 'Switch' for d in self.nodes.values())
        nca = len(self.nodes) - nsw
        nlinks = sum(len(d['links']) for d in self.nodes.values()) // 2
        for c in self.comments:
            f.write(f"# {c}\n" if c else "#\n")
        f.write(f"# {nsw} switches, {nca} CAs, {nlinks} links "
                f"({len(self.switch_links())} between switches)\n")
        f.write(f"# ibsim needs: {ibsim_limits_str(self)}\n")
        for name, d in self.nodes.items():
            f.write(f"\n{d['type']}\t{d['ports']} \"{name}\"\n")
            for p in sorted(d['links']):
                peer, pp = d['links'][p]
                f.write(f"[{p}]\t\"{peer}\"[{pp}]\t\t# \"{peer}\" lid 0 {SPEED}\n")


class Rng:
    """splitmix64: the same numbers on every Python version (random's algorithms may change)"""

    def __init__(self, seed):
        self.s = seed & (2**64 - 1)

    def next(self):
        self.s = (self.s + 0x9E3779B97F4A7C15) & (2**64 - 1)
        z = self.s
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & (2**64 - 1)
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & (2**64 - 1)
        return z ^ (z >> 31)

    def below(self, n):
        """uniform in [0, n) (rejection sampling, no modulo bias)"""
        lim = (2**64 // n) * n
        while True:
            x = self.next()
            if x < lim:
                return x % n

    def choice(self, seq):
        return seq[self.below(len(seq))]

    def shuffle(self, lst):
        for i in range(len(lst) - 1, 0, -1):
            j = self.below(i + 1)
            lst[i], lst[j] = lst[j], lst[i]

    def sample2(self, seq):
        i = self.below(len(seq))
        j = self.below(len(seq) - 1)
        return seq[i], seq[j + (j >= i)]


def ibsim_limits(fab):
    nodes = len(fab.nodes)
    switches = sum(d['type'] == 'Switch' for d in fab.nodes.values())
    ports = sum(d['ports'] + (d['type'] == 'Switch') for d in fab.nodes.values())
    return nodes, switches, ports


def ibsim_limits_str(fab):
    n, s, p = ibsim_limits(fab)
    return f"-N {n} -S {s} -P {p} (defaults: 2048 nodes, 256 switches, 13312 ports)"


def radix_for(need, override=None):
    if override:
        if override < need:
            raise SystemExit(f"gen_topo: --radix {override} < {need} ports needed")
        return override
    for r in RADIXES:
        if r >= need:
            return r
    raise SystemExit(f"gen_topo: {need} ports needed, ibsim allows {MAX_PORTS}")


def header(fab, argv):
    fab.comments += ["generated by tests/fabrics/gen_topo.py " + " ".join(argv),
                     "do not edit: regenerate (see tests/fabrics/README.md)", ""]


# --- generators -------------------------------------------------------------------------------

def gen_leafspine(a):
    S, L, H, N = a.spines, a.leaves, a.hosts, a.links_per_pair
    if min(S, L, N) < 1 or H < 1:
        raise SystemExit("gen_topo: leafspine needs --spines, --leaves, --hosts, --links-per-pair >= 1")
    fab = Fabric()
    leaf_radix = radix_for(H + S * N, a.radix)
    spine_radix = radix_for(L * N, a.radix)
    for l in range(1, L + 1):
        for h in range(1, H + 1):
            fab.add(f"leaf{l}-host{h}", 'Hca', 1)
    for s in range(1, S + 1):
        fab.add(f"spine{s}", 'Switch', spine_radix)
    for l in range(1, L + 1):
        fab.add(f"leaf{l}", 'Switch', leaf_radix)
    for l in range(1, L + 1):
        for h in range(1, H + 1):
            fab.link(f"leaf{l}-host{h}", 1, f"leaf{l}", h)
        for s in range(1, S + 1):
            for n in range(1, N + 1):
                fab.link(f"leaf{l}", H + (s - 1) * N + n, f"spine{s}", (l - 1) * N + n)
    fab.comments.append(f"leaf-spine: {S} spines, {L} leaves, {H} hosts per leaf, "
                        f"{N} link(s) per leaf-spine pair")
    fab.comments.append(f"leafL ports 1-{H}: hosts; port {H}+(s-1)*{N}+n: spine s link n")
    return fab


def gen_fattree(a):
    k = a.k
    if k < 2 or k % 2:
        raise SystemExit("gen_topo: fattree --k must be even and >= 2")
    h = k // 2
    fab = Fabric()
    for p in range(1, k + 1):
        for e in range(1, h + 1):
            for x in range(1, h + 1):
                fab.add(f"pod{p}-edge{e}-host{x}", 'Hca', 1)
    for j in range(1, h * h + 1):
        fab.add(f"core{j}", 'Switch', k)
    for p in range(1, k + 1):
        for g in range(1, h + 1):
            fab.add(f"pod{p}-agg{g}", 'Switch', k)
        for e in range(1, h + 1):
            fab.add(f"pod{p}-edge{e}", 'Switch', k)
    for p in range(1, k + 1):
        for e in range(1, h + 1):
            edge = f"pod{p}-edge{e}"
            for x in range(1, h + 1):
                fab.link(f"{edge}-host{x}", 1, edge, x)
            for g in range(1, h + 1):
                fab.link(edge, h + g, f"pod{p}-agg{g}", e)
        for g in range(1, h + 1):
            for c in range(1, h + 1):
                fab.link(f"pod{p}-agg{g}", h + c, f"core{(g - 1) * h + c}", p)
    fab.comments.append(f"3-level fat tree k={k}: {k} pods of {h} edge + {h} aggregation switches, "
                        f"{h * h} core switches, {h} hosts per edge switch ({k * h * h} hosts)")
    fab.comments.append(f"edge ports 1-{h}: hosts, {h}+g: agg g; agg ports 1-{h}: edge e, "
                        f"{h}+c: core (g-1)*{h}+c; core port p: pod p")
    return fab


def parse_dims(s):
    try:
        dims = [int(x) for x in s.lower().split('x')]
    except ValueError:
        raise SystemExit(f"gen_topo: bad --dims {s!r} (want e.g. 6x6 or 6x6x4)")
    if not dims or any(d < 1 for d in dims):
        raise SystemExit(f"gen_topo: bad --dims {s!r}")
    return dims


def gen_torus(a):
    dims = parse_dims(a.dims)
    H = a.hosts
    fab = Fabric()
    coords = [()]
    for d in dims:
        coords = [c + (i,) for c in coords for i in range(d)]
    name = lambda c: "sw-" + "-".join(map(str, c))
    radix = radix_for(H + 2 * len(dims), a.radix)
    for c in coords:
        for x in range(1, H + 1):
            fab.add(f"{name(c)}-host{x}", 'Hca', 1)
    for c in coords:
        fab.add(name(c), 'Switch', radix)
    for c in coords:
        for x in range(1, H + 1):
            fab.link(f"{name(c)}-host{x}", 1, name(c), x)
    # port H+2d+1 goes up (+1) in dimension d, port H+2d+2 goes down (-1);
    # a ring of 2 is one link, a ring of 1 none
    for d, n in enumerate(dims):
        if n < 2:
            continue
        for c in coords:
            if n == 2 and c[d] == 1:
                continue
            nb = c[:d] + ((c[d] + 1) % n,) + c[d + 1:]
            fab.link(name(c), H + 2 * d + 1, name(nb), H + 2 * d + 2)
    fab.comments.append(f"torus {'x'.join(map(str, dims))} with wrap-around links, {H} host(s) per switch")
    fab.comments.append(f"switch ports 1-{H}: hosts; {H}+2d+1: +1 in dimension d, {H}+2d+2: -1")
    return fab


def gen_random(a):
    N, D, H = a.switches, a.degree, a.hosts
    if N < 1 or H < 0 or (N > 2 and D < 2) or (N == 2 and D < 1):
        raise SystemExit("gen_topo: random needs --switches >= 1, --degree >= 2 (a tree must fit)")
    rng = Rng(a.seed)
    fab = Fabric()
    radix = radix_for(H + D, a.radix)
    sw = [f"sw{i}" for i in range(1, N + 1)]
    for s in sw:
        for x in range(1, H + 1):
            fab.add(f"{s}-host{x}", 'Hca', 1)
    for s in sw:
        fab.add(s, 'Switch', radix)
    for s in sw:
        for x in range(1, H + 1):
            fab.link(f"{s}-host{x}", 1, s, x)
    deg = {s: 0 for s in sw}
    edges = set()

    def connect(u, v):
        deg[u] += 1
        deg[v] += 1
        edges.add((u, v) if u < v else (v, u))
        fab.link(u, H + deg[u], v, H + deg[v])

    # a random spanning tree first (attach each switch to an earlier one that has room),
    # so the graph is connected whatever happens next
    order = sw[:]
    rng.shuffle(order)
    for i in range(1, len(order)):
        room = [u for u in order[:i] if deg[u] < D]
        connect(order[i], rng.choice(room))
    # then random extra links between switches with free ports, no self or parallel links
    tries = 0
    while tries < 50 * N * D:
        tries += 1
        free = [s for s in sw if deg[s] < D]
        if len(free) < 2:
            break
        u, v = rng.sample2(free)
        if (min(u, v), max(u, v)) in edges:
            continue
        connect(u, v)
    fab.comments.append(f"random: {N} switches, degree <= {D}, seed {a.seed}, {H} host(s) per switch "
                        f"(spanning tree + random links, connected)")
    fab.comments.append(f"switch ports 1-{H}: hosts; {H + 1}-: other switches in the order linked")
    return fab


# --- reading net files (ibsim's own, ours, ibnetdiscover's) -----------------------------------

NODE_RE = re.compile(r'^(Switch|Hca|Ca|Rt)\s+(\d+)\s+"([^"]+)"')
PORT_RE = re.compile(r'^\[(\d+)\](?:\([0-9a-fA-F]+\))?\s*"([^"]+)"\[(\d+)\]')


def read_net(path):
    """-> (lines, fab, where): where[(node, port)] = line index of that port line"""
    with open(path) as f:
        lines = f.read().splitlines()
    fab = Fabric()
    where, pending = {}, []
    cur = None
    for i, line in enumerate(lines):
        m = NODE_RE.match(line)
        if m:
            ntype = 'Switch' if m.group(1) == 'Switch' else 'Hca'
            cur = m.group(3)
            fab.nodes[cur] = {'type': ntype, 'ports': int(m.group(2)), 'links': {}}
            continue
        if not line.strip():
            cur = None
            continue
        m = PORT_RE.match(line)
        if m and cur is not None:
            p, peer, pp = int(m.group(1)), m.group(2), int(m.group(3))
            where[(cur, p)] = i
            pending.append((cur, p, peer, pp))
    for n, p, peer, pp in pending:
        if peer not in fab.nodes:
            raise SystemExit(f"gen_topo: {path}: {n}[{p}] -> unknown node {peer!r} "
                             "(aliases and 'include' are not supported here)")
        fab.nodes[n]['links'][p] = (peer, pp)
    for n, d in fab.nodes.items():
        for p, (peer, pp) in d['links'].items():
            if fab.nodes[peer]['links'].get(pp) != (n, p):
                raise SystemExit(f"gen_topo: {path}: {n}[{p}] -> {peer}[{pp}] is not linked back")
    return lines, fab, where


SUMMARY_RE = re.compile(r'^# \d+ switches, \d+ CAs, \d+ links')


def gen_degrade(a, argv):
    if not 0 <= a.fraction <= 1:
        raise SystemExit("gen_topo: --fraction must be in [0, 1]")
    lines, fab, where = read_net(a.input)
    links = fab.switch_links()
    want = round(a.fraction * len(links))
    rng = Rng(a.seed)
    cand = links[:]
    rng.shuffle(cand)
    removed = []
    for lk in cand:
        if len(removed) >= want:
            break
        if not fab.switch_graph_connected(skip=lk):
            continue
        fab.unlink(lk[0], lk[1])
        removed.append(lk)
    drop = {where[(n, p)] for (n, p, m, q) in removed for (n, p) in ((n, p), (m, q))}
    out = ["# degraded by tests/fabrics/gen_topo.py " + " ".join(argv),
           f"# removed {len(removed)} of {len(links)} inter-switch links "
           f"(asked {want}: fraction {a.fraction}, seed {a.seed}); the switch graph stays connected"]
    out += [f"#   removed \"{n}\"[{p}] <-> \"{m}\"[{q}]" for n, p, m, q in sorted(removed)]
    out.append("#")
    nsw = sum(d['type'] == 'Switch' for d in fab.nodes.values())
    summary = (f"# {nsw} switches, {len(fab.nodes) - nsw} CAs, "
               f"{sum(len(d['links']) for d in fab.nodes.values()) // 2} links "
               f"({len(fab.switch_links())} between switches)")
    out += [summary if SUMMARY_RE.match(l) else l for i, l in enumerate(lines) if i not in drop]
    if len(removed) < want:
        print(f"gen_topo: only {len(removed)} of {want} links could go without disconnecting "
              "the switches", file=sys.stderr)
    return "\n".join(out) + "\n"


def cmd_stats(a):
    _, fab, _ = read_net(a.input)
    n, s, p = ibsim_limits(fab)
    ca = n - s
    print(f"nodes {n} switches {s} cas {ca} ports {p} links "
          f"{sum(len(d['links']) for d in fab.nodes.values()) // 2} "
          f"switch_links {len(fab.switch_links())} first {next(iter(fab.nodes))}")
    return 0


# --- command line -----------------------------------------------------------------------------

def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    ap = argparse.ArgumentParser(
        prog="gen_topo.py", description=__doc__.split("\n\n")[0],
        epilog="Examples:\n"
               "  gen_topo.py leafspine --spines 4 --leaves 8 --hosts 8 -o leafspine-4s8l8h.net\n"
               "  gen_topo.py fattree --k 8 -o fattree-k8.net\n"
               "  gen_topo.py torus --dims 6x6 --hosts 1 -o torus-6x6.net\n"
               "  gen_topo.py random --switches 40 --degree 4 --seed 1 --hosts 2 -o random-40.net\n"
               "  gen_topo.py degrade --input fattree-k8.net --fraction 0.1 --seed 1 -o ft8-deg.net\n"
               "Run ibsim on the result: ibsim -s [-N nodes -S switches -P ports] FILE\n"
               "(the '# ibsim needs:' line of each file gives the limits it needs).",
        formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", metavar="COMMAND")
    sub.required = True

    def common(p, radix=True):
        p.add_argument("-o", "--output", help="write here instead of stdout")
        if radix:
            p.add_argument("--radix", type=int,
                           help="switch port count (default: the smallest of "
                                f"{', '.join(map(str, RADIXES))} that fits)")
        return p

    p = common(sub.add_parser("leafspine", help="two-level leaf-spine (every leaf to every spine)"))
    p.add_argument("--spines", type=int, required=True)
    p.add_argument("--leaves", type=int, required=True)
    p.add_argument("--hosts", type=int, required=True, help="hosts per leaf")
    p.add_argument("--links-per-pair", type=int, default=1, help="parallel links leaf-spine (1)")

    p = sub.add_parser("fattree", help="3-level k-ary fat tree (k-port switches)")
    common(p, radix=False)
    p.add_argument("--k", type=int, required=True, help="even; k=8: 128 hosts, 80 switches")

    p = common(sub.add_parser("torus", help="2D/3D torus with wrap-around links"))
    p.add_argument("--dims", required=True, help="e.g. 6x6 or 6x6x4")
    p.add_argument("--hosts", type=int, default=1, help="hosts per switch (1)")

    p = common(sub.add_parser("random", help="connected random switch graph"))
    p.add_argument("--switches", type=int, required=True)
    p.add_argument("--degree", type=int, required=True, help="max inter-switch links per switch")
    p.add_argument("--seed", type=int, required=True)
    p.add_argument("--hosts", type=int, default=1, help="hosts per switch (1)")

    p = sub.add_parser("degrade", help="remove a seeded random share of inter-switch links "
                                       "(never disconnecting the switches)")
    common(p, radix=False)
    p.add_argument("--input", required=True, help="net file to degrade")
    p.add_argument("--fraction", type=float, required=True, help="share of inter-switch links, 0-1")
    p.add_argument("--seed", type=int, required=True)

    p = sub.add_parser("stats", help="counts and ibsim limits of a net file")
    p.add_argument("--input", required=True)

    a = ap.parse_args(argv)
    if a.cmd == "stats":
        return cmd_stats(a)
    if a.cmd == "degrade":
        text = gen_degrade(a, argv_for_comment(argv))
    else:
        fab = {"leafspine": gen_leafspine, "fattree": gen_fattree,
               "torus": gen_torus, "random": gen_random}[a.cmd](a)
        cm, fab.comments = fab.comments, []
        header(fab, argv_for_comment(argv))
        fab.comments += cm
        import io
        buf = io.StringIO()
        fab.write(buf)
        text = buf.getvalue()
    if a.output:
        with open(a.output, "w") as f:
            f.write(text)
    else:
        sys.stdout.write(text)
    return 0


def argv_for_comment(argv):
    """the arguments without -o FILE, with --input reduced to its base name (reproducible)"""
    out, skip = [], False
    for i, x in enumerate(argv):
        if skip:
            skip = False
            continue
        if x in ("-o", "--output"):
            skip = True
            continue
        if x.startswith("--output="):
            continue
        if i > 0 and argv[i - 1] == "--input":
            x = x.rsplit("/", 1)[-1]
        out.append(x)
    return out


if __name__ == "__main__":
    sys.exit(main())
