#!/bin/bash
# ibsmd --offline, the way tests/bench/routing runs it: a topology file routed without a
# fabric, its JSON report (- for stdout) saying the routes verified; a topology that cannot
# be read and an engine that does not exist end with exit 1 and a message, never a crash
# (the configuration is handed to the offline run, which frees it: nothing freed twice).
# Exit 0 pass, 1 fail, 77 skip (no python3).
set -u
top_srcdir=${top_srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
top_builddir=${top_builddir:-$top_srcdir}
IBSMD=$top_builddir/ibsmd
PLUGINS=$top_builddir/plugins/routing/.libs
NET=$top_srcdir/tests/fabrics/fattree-k4.net
command -v python3 >/dev/null || exit 77
T=$(mktemp -d /tmp/ibsmd-offline.XXXXXX)
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

for e in minhop updn ftree; do
	timeout 60 "$IBSMD" --offline "$NET" -R "$e" --plugin-dir "$PLUGINS" -F /dev/null \
		--report "$T/$e.json" >"$T/$e.out" 2>&1 || fail "$e: exit $?: $(cat "$T/$e.out")"
	python3 - "$T/$e.json" "$e" <<'PY' || fail "$e: report: $(head -c 400 "$T/$e.json")"
import json, sys
r = json.load(open(sys.argv[1]))
a = [x for x in r["attempts"] if x["result"] == "ok"]
assert a and a[-1]["engine"] == sys.argv[2] and a[-1]["verification"]["ok"], r
PY
done
echo "ok: minhop, updn and ftree route $NET offline, verified"

# dfsssp on a torus: the VLs its layers use are in the report; with too few
# VLs (max_op_vls 2) it fails saying how many layers it needs, and updn routes
TORUS=$top_srcdir/tests/fabrics/torus-6x6.net
timeout 60 "$IBSMD" --offline "$TORUS" -R dfsssp --plugin-dir "$PLUGINS" -F /dev/null \
	--report "$T/df.json" >"$T/df.out" 2>&1 || fail "dfsssp: exit $?: $(cat "$T/df.out")"
printf 'max_op_vls 2\n' >"$T/vl2.conf"
timeout 60 "$IBSMD" --offline "$TORUS" -R dfsssp,updn --plugin-dir "$PLUGINS" -F "$T/vl2.conf" \
	--report "$T/df2.json" >"$T/df2.out" 2>&1 || fail "dfsssp,updn: exit $?: $(cat "$T/df2.out")"
python3 - "$T/df.json" "$T/df2.json" <<'PY' || fail "dfsssp: reports: $(head -c 600 "$T/df2.json")"
import json, sys
r = json.load(open(sys.argv[1]))
assert r["engine"] == "dfsssp" and r["verification"]["ok"], r
assert r["verification"]["vls"] == 8 and not r["verification"]["credit_loop"], r
r = json.load(open(sys.argv[2]))
a = r["attempts"]
assert a[0]["engine"] == "dfsssp" and a[0]["result"] != "ok", a
assert a[0]["reason"] == "dfsssp: 6 virtual layers needed, only 2 VLs", a
assert r["engine"] == "updn" and r["verification"]["vls"] == 1, r
PY
grep -q "routing engine dfsssp failed: dfsssp: 6 virtual layers needed, only 2 VLs; fell back to updn" \
	"$T/df2.out" || fail "dfsssp fallback not said: $(cat "$T/df2.out")"
echo "ok: dfsssp routes the 6x6 torus on 8 VLs; on 2 it fails, named, and updn routes"

timeout 30 "$IBSMD" --offline "$T/missing.net" -R minhop --plugin-dir "$PLUGINS" -F /dev/null \
	>"$T/missing.out" 2>&1
rc=$?
[ $rc -eq 1 ] || fail "missing topology: exit $rc, want 1: $(cat "$T/missing.out")"
grep -q "missing.net" "$T/missing.out" || fail "missing topology not named: $(cat "$T/missing.out")"
echo "ok: a missing topology: exit 1, named"

timeout 30 "$IBSMD" --offline "$NET" -R nosuch,no_fallback --plugin-dir "$PLUGINS" -F /dev/null \
	>"$T/nosuch.out" 2>&1
rc=$?
[ $rc -eq 1 ] || fail "no engine: exit $rc, want 1: $(cat "$T/nosuch.out")"
echo "ok: no engine left in the chain: exit 1"
