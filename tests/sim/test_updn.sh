#!/bin/bash
# updn on fabrics min-hop cannot route without credit loops: a 6x6 torus and a
# 40-switch random graph. Every CA pair routed and, unlike test_torus.sh and
# test_random.sh, no credit loop allowed: the judge runs without --allow-credit-loops.
. "$(dirname "$0")/lib.sh"
sim_init
for net in torus-6x6.net random-40.net; do
	t_step "$net: ibsmd -o -R updn"
	sim_clear_cache
	sim_start "$FABRICS/$net"
	sm_once -R updn
	[ "$SM_RC" -eq 0 ] || t_fail "$SM -o -R updn exit $SM_RC on $net"
	if [ "$SM" = ibsmd ] && grep -q 'routing failed' "$SM_LOG"; then
		t_fail "updn failed on $net: $(grep -m1 'routing failed' "$SM_LOG")"
	fi
	t_judge_ok
	sim_stop
done
t_step "pass"
