#!/bin/bash
# Fast local repair on a k=4 fat tree: a link in use is unlinked through ibsim's console
# (Unlink "pod1-agg1"[3], aggregation to core); ibsmd answers the traps with a targeted
# sweep of the region (no heavy sweep), the judge finds every pair routed and neither end
# of the dead link forwards into it; ReLink brings it back the same way. Then a whole core
# switch leaves (Unlink "core2") and comes back (ReLink "core2").
. "$(dirname "$0")/lib.sh"
sim_init
[ "$SM" = ibsmd ] || t_skip "targeted sweeps are ibsmd's"
NET=$FABRICS/fattree-k4.net

# the LID of the switch whose NodeDescription is $1
sw_lid() {
	sm_ctl --json nodes | "$PYTHON" -c 'import json, sys
for n in json.load(sys.stdin)["result"]["nodes"]:
    if n["desc"] == sys.argv[1]:
        print(n["lid"])' "$1"
}

# the LFT entries of switch LID $1 that point at port $2 (ibroute -n lines "0x0004 003 ...")
lft_into() {
	sim_run ibroute -n "$1" >"$T/ibroute.$1" || t_fail "ibroute $1 failed"
	awk -v p="$2" '$1 ~ /^0x/ && $2 ~ /^[0-9]+$/ && $2 + 0 == p + 0' "$T/ibroute.$1"
}

# fields PATH...: members of one `ibsmctl --json status` result, space-separated
fields() {
	sm_ctl --json status | "$PYTHON" -c 'import json, sys
r = json.load(sys.stdin)["result"]
out = []
for p in sys.argv[1:]:
    v = r
    for k in p.split("."):
        v = v[k]
    out.append(str(v))
print(" ".join(out))' "$@"
}
status() { fields "$1"; }

# wait until the region sweep count passes $1, $2 (links) and $3 (nodes) are what the
# model holds, and no sweep ran for 3 looks in a row (the engine's run after patched
# routes follows the repair at once)
wait_region() {
	local want=$1 links=$2 nodes=$3 i n run l nd quiet=0
	for ((i = 0; i < 300; i++)); do
		read -r n run l nd < <(fields sweeps.region sweeps.running fabric.links fabric.nodes)
		[ -n "$n" ] || t_fail "status failed"
		if [ "$n" -gt "$want" ] && [ "$run" = False ] && [ "$l" -eq "$links" ] &&
			[ "$nd" -eq "$nodes" ]; then
			quiet=$((quiet + 1))
			[ $quiet -ge 3 ] && return 0
		else
			quiet=0
		fi
		sleep 0.1
	done
	t_fail "not repaired within 30 s: region sweeps $n (from $want), $l links (want $links)," \
		"$nd nodes (want $nodes)"
}

# a change was repaired by region sweeps alone, with few SMPs
t_region_only() {
	local heavy ok smps r ms blocks
	read -r heavy ok smps r ms blocks < <(fields sweeps.heavy sweeps.last_region_ok \
		sweeps.last_region_smps sweeps.region sweeps.last_region_ms sweeps.last_region_blocks)
	[ "$heavy" -eq "$HEAVY0" ] || t_fail "$1: $((heavy - HEAVY0)) heavy sweep(s); want none"
	[ "$ok" = True ] || t_fail "$1: the region sweep was not ok"
	t_info "$1: region sweeps $r, last one $ms ms, $smps smps, $blocks lft blocks" \
		"(heavy sweep: $HEAVY_SMPS smps)"
	[ "$smps" -lt "$HEAVY_SMPS" ] || t_fail "$1: region sweep sent $smps smps, heavy $HEAVY_SMPS"
}

t_step "fat tree k=4 under ibsmd"
sim_clear_cache
sim_start "$NET"
sm_start -s 2
sm_wait_up 60
sm_check_issm || t_fail "ibsmd is not an SM in ibsim's eyes: no traps"
t_judge_ok
read -r HEAVY0 HEAVY_SMPS < <(fields sweeps.heavy sweeps.last_heavy_smps)
AGG=$(sw_lid pod1-agg1)
CORE=$(sw_lid core1)
[ -n "$AGG" ] && [ -n "$CORE" ] || t_fail "no lids for pod1-agg1 and core1"
# pod1-agg1 port 3 is core1 port 1 (gen_topo.py: agg port 2+c is core (g-1)*2+c, core port p is pod p)
[ -n "$(lft_into "$AGG" 3)" ] || t_fail "pod1-agg1 forwards nothing into port 3: not a link in use"

t_step "Unlink pod1-agg1[3] (to core1)"
R=$(status sweeps.region)
sim_cmd 'Unlink "pod1-agg1"[3]'
wait_region "$R" 47 36
t_judge_until 20 "the unlink"
[ -z "$(lft_into "$AGG" 3)" ] || t_fail "pod1-agg1 still forwards into port 3: $(lft_into "$AGG" 3 | head -3)"
[ -z "$(lft_into "$CORE" 1)" ] || t_fail "core1 still forwards into port 1: $(lft_into "$CORE" 1 | head -3)"
t_region_only "unlink"

t_step "ReLink pod1-agg1[3]"
R=$(status sweeps.region)
sim_cmd 'ReLink "pod1-agg1"[3]'
wait_region "$R" 48 36
t_judge_ok
[ -n "$(lft_into "$AGG" 3)" ] || t_info "note: pod1-agg1 forwards nothing into port 3 again yet"
t_region_only "relink"

t_step "Unlink core2 (a whole switch)"
R=$(status sweeps.region)
sim_cmd 'Unlink "core2"'
wait_region "$R" 44 35
t_judge_until 20 "core2 went away"
t_region_only "switch gone"

t_step "ReLink core2"
R=$(status sweeps.region)
sim_cmd 'ReLink "core2"'
wait_region "$R" 48 36
t_judge_ok
t_region_only "switch back"

sm_alive || t_fail "ibsmd died"
sm_stop
[ "$SM_RC" -eq 0 ] || t_fail "ibsmd exit $SM_RC on SIGTERM (want 0)"
sim_stop
t_step "pass"
