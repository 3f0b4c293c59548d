#!/bin/bash
# dnup and none on ibsim. dnup (up/down ranked from the switches with end ports) on a fabric
# with a host on a spine and a switch above the spines without hosts: every pair routed, no
# credit loop (the judge runs without --allow-credit-loops). none routes nothing itself: the
# chain goes on to minhop, the fallback, loudly (OpenSM 3.3.23 crashes with it, so with
# SM=opensm only dnup runs).
. "$(dirname "$0")/lib.sh"
sim_init
NET=$top_srcdir/tests/golden/dnup/mixed.net

t_step "dnup: $SM -o -R dnup"
sim_start "$NET"
sm_once -R dnup
[ "$SM_RC" -eq 0 ] || t_fail "$SM -o -R dnup exit $SM_RC"
if [ "$SM" = ibsmd ] && grep -q 'routing failed' "$SM_LOG"; then
	t_fail "dnup failed: $(grep -m1 'routing failed' "$SM_LOG")"
fi
t_judge_ok
sim_stop

if [ "$SM" = ibsmd ]; then
	t_step "none: ibsmd -o -R none, minhop routes"
	sim_clear_cache
	sim_start "$NET"
	sm_once -R none
	[ "$SM_RC" -eq 0 ] || t_fail "ibsmd -o -R none exit $SM_RC"
	grep -q 'none computes no routes' "$SM_LOG" ||
		t_fail "no word of none's failure in $SM_LOG"
	t_judge_ok --allow-credit-loops
	sim_stop
fi
t_step "pass"
