#!/bin/bash
# dfsssp on ibsim: a 6x6 torus (its paths need several virtual layers) routed by the
# daemon, `ibsmctl routing` naming dfsssp, and the SA handing out the engine's SLs in
# PathRecords (`saquery -p` from one host to every port: more than one SL, all below the
# 8 VLs dfsssp may use). The credit loops per VL are the verifier's (unit tests); the
# referee that reads SLs and SL2VL tables is not this test's.
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
sim_stop
t_step "pass"
