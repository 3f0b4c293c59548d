#!/bin/bash
# dfsssp on ibsim: a 6x6 torus (its paths need several virtual layers) routed by the
# daemon, `ibsmctl routing` naming dfsssp, and the SA handing out the engine's SLs in
# PathRecords (`saquery -p` from one host to every port: more than one SL, all below the
# 8 VLs dfsssp may use), then the judges with --vl while the daemon serves: each pair's SL
# from its PathRecord, each hop's VL from the SL2VL table ibsmd wrote for the routing's
# layers (qos FALSE): no credit loop on any VL, no path dropped on VL15, more than one VL.
. "$(dirname "$0")/lib.sh"
sim_init
[ "$SM" = ibsmd ] || t_skip "ibsmd's dfsssp engine"
command -v saquery >/dev/null || t_skip "saquery missing (infiniband-diags)"
NET=$FABRICS/torus-6x6.net
t_step "daemon -R dfsssp on $(basename "$NET")"
sim_start "$NET"
sm_start -R dfsssp
sm_wait_up 60
expect_rc 0 sm_ctl routing
grep -Eq '^engine +dfsssp' "$T/rc.out" || t_fail "routing: $(cat "$T/rc.out")"
sim_run ibnetdiscover >"$T/ibnd" || t_fail "ibnetdiscover failed"
"$PYTHON" "$SIMTOOL" ibnd-lids "$T/ibnd" >"$T/lids" || t_fail "no LIDs"
me=$("$PYTHON" "$SIMTOOL" ibnd-local "$T/ibnd") || t_fail "no local port"
slid=$(awk -v g="$me" '$1 == g { print $2 }' "$T/lids")
[ -n "$slid" ] || t_fail "no LID for the local port $me"
: >"$T/pr.out"
n=0
for dlid in $(awk '{ print $2 }' "$T/lids"); do
	[ "$dlid" = "$slid" ] && continue
	sim_run saquery -p --slid "$slid" --dlid "$dlid" >>"$T/pr.out" 2>&1 ||
		t_fail "saquery -p $slid -> $dlid: $(tail -n 3 "$T/pr.out")"
	n=$((n + 1))
done
sls=$(sed -n 's/^[[:space:]]*sl\.*0x\([0-9a-f]*\)$/\1/p' "$T/pr.out" | while read -r x; do
	echo $((16#$x))
done | sort -nu | tr '\n' ' ')
t_info "$n PathRecords from lid $slid, SLs: $sls"
[ "$(grep -c 'PathRecord dump' "$T/pr.out")" -eq "$n" ] || t_fail "not one record per query"
set -- $sls
[ $# -ge 2 ] || t_fail "one SL for every path: $sls"
for sl in $sls; do
	[ "$sl" -lt 8 ] || t_fail "SL $sl beyond 8 VLs"
done
t_step "judges --vl"
judge --vl || t_fail "judges --vl not ok: $(judge_verdict)"
"$PYTHON" -c 'import json, sys
r = json.load(open(sys.argv[1]))
if len(r["vls_used"]) < 2 or r["sl_unknown"] or r["credit_loops"]:
    sys.exit("want several VLs, every SL known, no loop: %s" % {k: r.get(k) for k in
             ("vls_used", "sl_unknown", "credit_loops")})' "$T/judge.json" ||
	t_fail "the judged VLs are wrong"
sim_stop
t_step "pass"
