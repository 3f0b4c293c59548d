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
