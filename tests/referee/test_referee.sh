#!/bin/bash
# test_referee.sh: the referee (referee.py) on fabrics whose faults we know.
# (a) fat tree k=4 brought up by `ibsmd -o`: ok, exit 0, every pair routed, no credit loop,
#     stretch 1; the all-to-all figures of a k=4 fat tree; the extra judge, when there is
#     one, agrees.
#     With the SM as a daemon routing by updn (one VL), --vl reads the PathRecords' SLs and
#     the SL2VL tables: ok, every path on VL0. Its saved output edited: SLs on two VLs that
#     the tables keep apart (ok, VL0 and VL1 used); an SL a switch maps to VL15 (dropped
#     pairs), no PathRecords (SLs unknown), SL2VL tables that cannot be read: not ok.
# (b) its saved diags output with one LFT entry dropped, then with two switches sending one
#     LID back and forth, then with a CA's LID 0 and another's LID taken twice: each is
#     found (unrouted pair, looping pairs, LID faults), exit 1; no output at all: exit 2.
#     The top LID's entry left out of dump_fts: with --quick its pairs are not judged (ok),
#     without it not ok; a dropped entry is still found with --quick.
# (c) a link taken down with no SM to repair it: unrouted pairs, exit 1.
# (d) a 6x6 torus routed by min-hop alone, its verifier only warning, has credit loops (not ok;
#     ok with --allow-credit-loops); routed by updn it has none.
. "$(dirname "$0")/../sim/lib.sh"
sim_init
REFEREE=$top_srcdir/tests/referee/referee.py
NET=$FABRICS/fattree-k4.net

# ref NAME [ARGS]: run the referee on the live fabric (report $T/NAME.json); its exit code
ref() {
	local name=$1
	shift
	SIM_TIMEOUT=$JUDGE_TIMEOUT sim_run "$PYTHON" "$REFEREE" --json "$T/$name.json" "$@" \
		>"$T/$name.out"
}

# want NAME 'PYTHON EXPR over r' MSG: the report $T/NAME.json must satisfy the expression
want() {
	"$PYTHON" -c 'import json, sys
r = json.load(open(sys.argv[1]))
if not eval(sys.argv[2]):
    sys.exit("%s: %s" % (sys.argv[3], json.dumps({k: v for k, v in r.items() if v})))' \
		"$T/$1.json" "$2" "$3" || t_fail "report $1 is wrong"
	t_info "$1: $3"
}

# edit DIR 'PYTHON' [FROM]: copy the saved output ($T/saved, or FROM) to DIR and run PYTHON on
# it (the fabric's files are f_links and f_fts, the directory d; helpers lft(name, lid, port),
# port_to(a, b), lid_of(name))
edit() {
	local dir=$T/$1
	rm -rf "$dir" && cp -r "${3:-$T/saved}" "$dir"
	"$PYTHON" - "$dir" "$2" <<'EOF' || t_fail "cannot edit the saved output for $1"
import re, sys
d, code = sys.argv[1], sys.argv[2]
f_links, f_fts = d + '/iblinkinfo.txt', d + '/dump_fts.txt'
links, fts = open(f_links).read(), open(f_fts).read()

def lid_of(name):
    m = re.search(r'^0x\w+\s+"\s*%s"\s+(\d+)\s' % re.escape(name), links, re.M)
    return int(m.group(1))

def port_to(a, b):
    """the port of switch a that leads to b"""
    m = re.search(r'^0x\w+\s+"\s*%s"\s+\d+\s+(\d+)\[.*"%s"' % (re.escape(a), re.escape(b)),
                  links, re.M)
    return int(m.group(1))

def lft(name, lid, port):
    """set (port >= 0) or drop (None) switch name's entry for lid"""
    global fts
    head = fts.index('(%s):' % name)
    end = fts.find('Unicast lids', head)
    end = len(fts) if end < 0 else end
    block = fts[head:end]
    pat = re.compile(r'^0x%04x \d+ :' % lid, re.M)
    assert pat.search(block), (name, lid)
    block = pat.sub('' if port is None else '0x%04x %03d :' % (lid, port), block)
    fts = fts[:head] + block + fts[end:]

exec(code)
open(f_links, 'w').write(links)
open(f_fts, 'w').write(fts)
EOF
}

t_step "(a) fat tree k=4 routed by ibsmd"
sim_start "$NET"
sm_once
[ "$SM_RC" -eq 0 ] || t_fail "$SM -o exit $SM_RC"
ref good --save "$T/saved" || t_fail "referee not ok on a good fabric: $(head -c 600 "$T/good.out")"
want good 'r["ok"] and r["pairs_unrouted"] == 0 and r["pairs_looping"] == 0 and not r["credit_loops"]' \
	"ok, every pair routed, no credit loop"
# 16 hosts, 20 switches: 36 LIDs; min-hop paths in a fat tree are shortest
want good 'r["switches"] == 20 and r["ca_ports"] == 16 and r["pairs"] == 16 * 15 and r["switch_pairs"] == 16 * 20 and r["from_switches"] == 20 * 35 and r["from_switches_unrouted"] == 0' \
	"16 x 15 host pairs, 16 x 20 host-switch pairs, 20 x 35 from the switches"
want good 'r["path_stretch"] == 1.0 and r["path_stretch_max"] == 1.0' "stretch 1"
# 240 CA pairs, 48 directed switch links; each host sends to 14 others beyond its edge
# switch over its 2 uplinks: at least 7 x 2 on the busiest uplink
want good 'r["a2a_max_link_load"] >= 14 and r["a2a_avg_link_load"] > 0' "all-to-all load counted"
"$PYTHON" "$REFEREE" --from "$T/saved" --json "$T/replay.json" >/dev/null ||
	t_fail "the saved output does not judge ok"
want replay 'r["pairs"] == 16 * 15 and r["ok"]' "the saved output judges the same"
EXTRA=$("$PYTHON" "$RUN_JUDGES" --extra)
if [ -n "$EXTRA" ]; then
	SIM_TIMEOUT=$JUDGE_TIMEOUT sim_run "$PYTHON" "$EXTRA" --json "$T/extra.json" \
		>"$T/extra.out" || t_fail "the extra judge is not ok where the referee is"
	"$PYTHON" -c 'import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:])
# (the shift figures sample permutations, each judge its own way: not compared)
for k in ("a2a_max_link_load", "pairs", "pairs_unrouted", "credit_loops", "path_stretch"):
    if a.get(k) != b.get(k):
        sys.exit("referee and extra judge differ on %s: %s / %s" % (k, a.get(k), b.get(k)))' \
		"$T/good.json" "$T/extra.json" || t_fail "referee and extra judge disagree"
	t_info "the extra judge agrees"
fi

sm_start -R updn
sm_wait_up 60
ref vl --vl --save "$T/savedvl" || t_fail "referee --vl not ok: $(head -c 600 "$T/vl.out")"
want vl 'r["ok"] and r["vl_mode"] == "sl2vl" and r["sl_unknown"] == 0 and not r["credit_loops"]' \
	"--vl: SLs from PathRecords, VLs from SL2VL: no credit loop"
want vl 'r["vls_used"] == [0] and r["sl2vl_unread"] == [] and r["pairs_vl15"] == 0 and r["pathrecords"] >= 16 * 15' \
	"--vl, updn: every path on VL0, every table read"
sm_stop

# the tables of the saved --vl output: SL column n of every row of every file set to vl
SL2VL_SET='import glob, re
def sl2vl_set(sl, vl):
    for f in glob.glob(d + "/sl2vl-*.txt"):
        t = open(f).read()
        def row(m):
            v = m.group(2).split("|")
            v[sl] = "%2d" % vl
            return m.group(1) + "|".join(v) + "|"
        open(f, "w").write(re.sub(r"^(ports: in\s+\d+, out\s+\d+:\s*\|)(.*)\|", row, t, flags=re.M))
'
edit vlsplit "$SL2VL_SET"'
pr = open(d + "/saquery-pr.txt").read()
# pairs to an odd LID on SL1, which every switch puts on VL1
pr = re.sub(r"(dlid\.+(\w+)(?:(?!\bsl\.).)*?\bsl\.+)0x0*0\b",
            lambda m: m.group(1) + ("0x1" if int(m.group(2), 0) % 2 else "0x0"), pr, flags=re.S)
open(d + "/saquery-pr.txt", "w").write(pr)
sl2vl_set(1, 1)' "$T/savedvl"
"$PYTHON" "$REFEREE" --vl --from "$T/vlsplit" --json "$T/vlsplit.json" >/dev/null ||
	t_fail "--vl: SLs on two VLs judged not ok"
want vlsplit 'r["ok"] and r["vls_used"] == [0, 1] and r["a2a_max_link_load"] >= 14' \
	"--vl: pairs to odd LIDs on SL1 -> VL1: two VLs used, ok"
edit vl15 "$SL2VL_SET"'sl2vl_set(0, 15)' "$T/savedvl"
"$PYTHON" "$REFEREE" --vl --from "$T/vl15" --json "$T/vl15.json" >/dev/null &&
	t_fail "--vl: SL0 mapped to VL15 judged ok"
want vl15 'not r["ok"] and r["pairs_vl15"] == 16 * 15 and "pairs_vl15" in r["not_ok_because"] and "VL15" in r["pairs_bad"][0]' \
	"--vl: SL0 on VL15 drops every pair"
edit nopr 'open(d + "/saquery-pr.txt", "w").write("")' "$T/savedvl"
"$PYTHON" "$REFEREE" --vl --from "$T/nopr" --json "$T/nopr.json" >/dev/null &&
	t_fail "--vl: no PathRecords judged ok"
want nopr 'not r["ok"] and r["sl_unknown"] == 16 * 15 and r["pathrecords"] == 0 and r["not_ok_because"] == ["sl_unknown"]' \
	"--vl: no PathRecords, no SL known: not judged per VL"
edit nosl2vl 'import glob, os
for f in glob.glob(d + "/sl2vl-*.txt"):
    open(f, "w").write("ibwarn: smpquery failed\n")' "$T/savedvl"
"$PYTHON" "$REFEREE" --vl --from "$T/nosl2vl" --json "$T/nosl2vl.json" >/dev/null &&
	t_fail "--vl: SL2VL tables not read judged ok"
want nosl2vl 'not r["ok"] and len(r["sl2vl_unread"]) > 0 and r["not_ok_because"] == ["sl2vl_unread"]' \
	"--vl: unreadable SL2VL tables: not judged per VL"

t_step "(b) saved output with faults put in"
# pod1-edge1-host1 hangs on pod1-edge1; pod1-edge1 reaches the core through pod1-agg1
edit drop 'lft("pod4-edge2", lid_of("pod1-edge1-host1"), None)'
"$PYTHON" "$REFEREE" --from "$T/drop" --json "$T/drop.json" >/dev/null && t_fail "a dropped LFT entry judged ok"
want drop 'not r["ok"] and r["pairs_unrouted"] == 2 and r["pairs_looping"] == 0 and all("pod4-edge2-host" in x for x in r["pairs_bad"])' \
	"a dropped entry: pod4-edge2's two hosts cannot reach pod1-edge1-host1"
edit loop 'h = lid_of("pod1-edge1-host1")
lft("pod1-edge1", h, port_to("pod1-edge1", "pod1-agg1"))
lft("pod1-agg1", h, port_to("pod1-agg1", "pod1-edge1"))'
"$PYTHON" "$REFEREE" --from "$T/loop" --json "$T/loop.json" >/dev/null && t_fail "a forwarding loop judged ok"
want loop 'not r["ok"] and r["pairs_looping"] > 0' "two switches sending a LID back and forth: looping pairs"
edit lids 'links = re.sub(r"^(0x\w+\s+\"\s*pod2-edge1-host1\"\s+)\d+", r"\g<1>0", links, flags=re.M)
links = re.sub(r"^(0x\w+\s+\"\s*pod3-edge1-host1\"\s+)\d+", r"\g<1>%d" % lid_of("pod3-edge1-host2"), links, flags=re.M)'
"$PYTHON" "$REFEREE" --from "$T/lids" --json "$T/lids.json" >/dev/null && t_fail "LID faults judged ok"
want lids 'not r["ok"] and r["lids_missing"] == ["pod2-edge1-host1 port 1"] and len(r["lids_duplicate"]) == 1' \
	"a LID 0 and a LID held twice"
# --quick does not read the LinearFDBTop entry dump_fts leaves out: the pairs to that LID are
# not judged (neither routed nor unrouted); without --quick an unread top entry is wrong
edit notop 'top = max(int(x, 16) for x in re.findall(r"^Unicast lids \[0x\w+-0x(\w+)\]", fts, re.M))
fts = re.sub(r"^0x%04x \d+ :.*\n" % top, "", fts, flags=re.M)
import glob, os
for f in glob.glob(d + "/lft-*.txt"):
    os.remove(f)
open(d + "/top", "w").write(str(top))'
NOTOP=$(cat "$T/notop/top")
"$PYTHON" "$REFEREE" --quick --from "$T/notop" --json "$T/notop-quick.json" >/dev/null ||
	t_fail "--quick: the top entry dump_fts leaves out judged not ok"
want notop-quick "r['ok'] and r['lids_unjudged'] == [$NOTOP] and r['pairs_unjudged'] + r['switch_pairs_unjudged'] > 0 and r['pairs_unrouted'] == 0" \
	"--quick: the pairs to LinearFDBTop ($NOTOP) are not judged, nothing unrouted"
"$PYTHON" "$REFEREE" --from "$T/notop" --json "$T/notop.json" >/dev/null &&
	t_fail "a top entry that could not be read judged ok"
want notop 'not r["ok"] and r["not_ok_because"] == ["lft_top_unread"]' \
	"without --quick an unread top entry is wrong"
"$PYTHON" "$REFEREE" --quick --from "$T/drop" --json "$T/drop-quick.json" >/dev/null &&
	t_fail "--quick: a dropped LFT entry judged ok"
want drop-quick 'not r["ok"] and r["pairs_unrouted"] == 2' "--quick: a dropped entry still found"
mkdir -p "$T/empty"
rc=0
"$PYTHON" "$REFEREE" --from "$T/empty" --json "$T/empty.json" >/dev/null || rc=$?
[ $rc -eq 2 ] || t_fail "no diags output: exit $rc, want 2"
want empty 'not r["ok"] and "missing" in r["error"]' "no diags output: exit 2 and an error"

t_step "(c) a link goes down and nobody repairs the routes"
sim_cmd 'Unlink "pod1-agg1"[3]'
rc=0
ref unlinked || rc=$?
[ $rc -eq 1 ] || t_fail "a dead link in use: referee exit $rc, want 1"
want unlinked 'not r["ok"] and r["pairs_unrouted"] > 0' "routes into the dead link: unrouted pairs"
sim_stop

t_step "(d) credit loops on a 6x6 torus"
sim_clear_cache
sim_start "$FABRICS/torus-6x6.net"
if [ "$SM" = ibsmd ]; then
	printf 'routing_engine minhop\nrouting_verify warn\n' >"$T/minhop.conf"
	sm_once -F "$T/minhop.conf"
else
	sm_once
fi
[ "$SM_RC" -eq 0 ] || t_fail "$SM -o exit $SM_RC on the torus"
rc=0
ref torus || rc=$?
[ $rc -eq 1 ] || t_fail "min-hop on a torus: referee exit $rc, want 1 (credit loops)"
want torus 'r["credit_loops"] and r["not_ok_because"] == ["credit_loops"] and len(r["credit_loop"]) > 2' \
	"min-hop: a credit loop, nothing else wrong"
ref torus-allowed --allow-credit-loops || t_fail "--allow-credit-loops: not ok"
want torus-allowed 'r["ok"] and r["credit_loops"]' "--allow-credit-loops: ok, loops still reported"
if [ "$SM" = ibsmd ]; then
	sim_clear_cache
	sim_start "$FABRICS/torus-6x6.net"
	sm_once -R updn
	[ "$SM_RC" -eq 0 ] || t_fail "$SM -o -R updn exit $SM_RC on the torus"
	ref updn || t_fail "updn on a torus: referee not ok: $(head -c 600 "$T/updn.out")"
	want updn 'r["ok"] and not r["credit_loops"]' "updn: no credit loop"
fi
sim_stop
t_step "pass"
