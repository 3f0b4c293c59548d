#!/bin/bash
# Routing SLs end to end on ibsim, with the test engine "layers" (tests/unit/plugins/layers.c:
# updn's tables, SL = LID % 4, IBSM_TEST_LAYERS_VLS VLs) loaded as a plug-in next to minhop.
# (a) 2 VLs, qos FALSE: ibsmd serves; the judges with --vl (PathRecords' SLs through saquery,
#     the switches' SL2VL through smpquery) find every pair routed, no credit loop per VL and
#     exactly VL0 and VL1 in use (SL 2 and 3 on VL 0 and 1: the tables were written, OpenSM's
#     built-in ones would put them on VL 2 and 3); a switch's SL2VL says so; the event
#     qos_routing_sl2vl is there once, and ibsmctl qos shows the mapping.
# (b) 4 VLs with max_op_vls 2 (switch links operate VL0-1): the verifier refuses the result,
#     minhop routes, ibsmctl routing says why; the fabric is judged ok with one VL.
. "$(dirname "$0")/lib.sh"
sim_init
[ "$SM" = ibsmd ] || t_skip "ibsmd's own routing API"
LAYERS=$top_builddir/tests/unit/plugins/.libs/routing_layers.so
[ -f "$LAYERS" ] || t_skip "no $LAYERS (make check builds it)"
mkdir -p "$T/plugins"
ln -sf "$LAYERS" "$T/plugins/routing_layers.so"
ln -sf "$top_builddir/plugins/routing/.libs/routing_minhop.so" "$T/plugins/"
PLUGIN_ARGS="--plugin-dir $T/plugins"

t_step "(a) 2 VLs, qos FALSE"
sim_start "$FABRICS/fattree-k4.net"
printf 'routing_engine layers\nqos FALSE\n' >"$T/layers.conf"
export IBSM_TEST_LAYERS_VLS=2
sm_start -F "$T/layers.conf"
sm_wait_up 60
[ "$(sm_ctl_get result.engine routing)" = layers ] ||
	t_fail "routing by $(sm_ctl_get result.engine routing), not layers"
judge --vl || t_fail "judges --vl not ok: $(judge_verdict)"
"$PYTHON" -c 'import json, sys
r = json.load(open(sys.argv[1]))
if r["vls_used"] != [0, 1] or r["sl_unknown"] or r["credit_loops"]:
    sys.exit("want VL0 and VL1, every SL known, no loop: %s" % {k: r.get(k) for k in
             ("vls_used", "sl_unknown", "credit_loops", "pathrecords")})' "$T/judge.json" ||
	t_fail "the judged VLs are wrong"
t_info "judges --vl: ok, VL0 and VL1 in use"
# a spine's table for port 1 to port 2: SL 0-3 on VL 0,1,0,1, SL 4 as OpenSM's built-in table
sim_run ibswitches >"$T/switches.txt" || t_fail "ibswitches failed"
LID=$(awk '/pod1-agg1/ { for (i = 1; i < NF; i++) if ($i == "lid") print $(i + 1) }' \
	"$T/switches.txt" | head -1)
[ -n "$LID" ] || t_fail "no LID for pod1-agg1 in $(head -c 300 "$T/switches.txt")"
sim_run smpquery sl2vl "$LID" 2 >"$T/sl2vl.txt" || t_fail "smpquery sl2vl $LID 2 failed"
grep -Eq '^ports: in +1, out +2: *\| 0\| 1\| 0\| 1\| 4\|' "$T/sl2vl.txt" ||
	t_fail "pod1-agg1 1->2 SL2VL is not the routing's: $(cat "$T/sl2vl.txt")"
t_info "pod1-agg1: SL 0-3 on VL 0,1,0,1, SL 4 on VL 4"
sm_ctl --json events >"$T/events.json" || t_fail "ibsmctl events failed"
n=$(grep -o 'qos is FALSE: programming' "$T/events.json" | wc -l)
[ "$n" -eq 1 ] || t_fail "qos_routing_sl2vl said $n times, want 1"
[ "$(sm_ctl_get result.routing_sl2vl.num_vls qos)" = 2 ] || t_fail "ibsmctl qos: no mapping"
t_info "qos_routing_sl2vl said once; ibsmctl qos shows 2 VLs"
sm_stop
sim_stop

t_step "(b) 4 VLs over links operating VL0-1: refused"
sim_clear_cache
sim_start "$FABRICS/fattree-k4.net"
printf 'routing_engine layers\nmax_op_vls 2\n' >"$T/refuse.conf"
export IBSM_TEST_LAYERS_VLS=4
sm_start -F "$T/refuse.conf"
sm_wait_up 60
[ "$(sm_ctl_get result.engine routing)" = minhop ] ||
	t_fail "routing by $(sm_ctl_get result.engine routing), not the fallback minhop"
sm_ctl --json routing >"$T/routing.json" || t_fail "ibsmctl routing failed"
grep -q 'the routes need 4 VLs, the switch-to-switch links operate 2' "$T/routing.json" ||
	t_fail "ibsmctl routing does not say why: $(head -c 600 "$T/routing.json")"
t_info "layers refused: the routes need 4 VLs, the links operate 2; minhop routes"
t_judge_ok
sm_stop
sim_stop
t_step "pass"
