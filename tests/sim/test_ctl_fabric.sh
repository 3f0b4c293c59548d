#!/bin/bash
# ibsmctl agrees with infiniband-diags on the same live fabric (fat tree k=4, then the
# leaf-spine): `ibsmctl nodes --json` and `links --json` with ibnetdiscover (every node's
# GUID, type, description and LIDs, every link); `ibsmctl lft SW` with `ibroute SWLID`
# for every switch; `ibsmctl route S D` with `ibtracert S D` hop by hop for a sample of
# pairs (CA and switch sources and destinations). Then the comparisons are shown to fail
# on a tampered copy, so that agreement means something.
. "$(dirname "$0")/lib.sh"
sim_init
[ "$SM" = ibsmd ] || t_skip "ibsmctl is ibsmd's"
PAIRS=16


# check_fabric NETFILE: the three agreements on a fresh fabric under the daemon
check_fabric() {
	local net=$1 D lid s d args out
	D=$T/$(basename "$net" .net)
	mkdir -p "$D"
	t_step "$(basename "$net"): daemon"
	sim_clear_cache
	sim_start "$net"
	sm_start
	sm_wait_up 30

	t_step "$(basename "$net"): nodes and links == ibnetdiscover"
	sim_run ibnetdiscover >"$D/ibnd" || t_fail "ibnetdiscover failed"
	sm_ctl --json nodes >"$D/nodes.json" || t_fail "ibsmctl nodes failed"
	sm_ctl --json links >"$D/links.json" || t_fail "ibsmctl links failed"
	out=$("$PYTHON" "$SIMTOOL" compare-nodes "$D/ibnd" "$D/nodes.json" "$D/links.json" 2>&1) ||
		t_fail "$out"
	t_info "$out"

	t_step "$(basename "$net"): lft == ibroute, every switch"
	args=()
	for lid in $("$PYTHON" -c 'import json, sys
print(" ".join(str(n["lid"]) for n in json.load(open(sys.argv[1]))["result"]["nodes"]
               if n["type"] == "Switch"))' "$D/nodes.json"); do
		sim_run ibroute "$lid" >"$D/ibroute.$lid" || t_fail "ibroute $lid failed"
		sm_ctl --json lft "$lid" >"$D/lft.$lid.json" || t_fail "ibsmctl lft $lid failed"
		args+=("$D/ibroute.$lid" "$D/lft.$lid.json")
	done
	out=$("$PYTHON" "$SIMTOOL" compare-lft "${args[@]}" 2>&1) || t_fail "$out"
	t_info "$out"
	LFT_ARGS=("${args[@]:0:2}")

	t_step "$(basename "$net"): route == ibtracert, $PAIRS pairs"
	"$PYTHON" "$SIMTOOL" route-pairs "$D/nodes.json" "$PAIRS" >"$D/pairs" || t_fail "route-pairs"
	args=()
	while read -r s d; do
		sim_run ibtracert "$s" "$d" >"$D/tr.$s.$d" || t_fail "ibtracert $s $d failed"
		sm_ctl --json route "$s" "$d" >"$D/route.$s.$d.json" || t_fail "ibsmctl route $s $d failed"
		args+=("$D/tr.$s.$d" "$D/route.$s.$d.json")
	done <"$D/pairs"
	out=$("$PYTHON" "$SIMTOOL" compare-route "${args[@]}" 2>&1) || t_fail "$out"
	t_info "$out: lids $(awk '{printf "%s%s->%s", NR > 1 ? " " : "", $1, $2}' "$D/pairs")"
	ROUTE_ARGS=("${args[@]:0:2}")
	sm_alive || t_fail "the daemon died"
	sm_stop
	[ "$SM_RC" -eq 0 ] || t_fail "ibsmd exit $SM_RC on SIGTERM"
	sim_stop
}

# tamper FILE EXPR: a copy of the reply FILE with the python EXPR applied to r (its result)
tamper() {
	"$PYTHON" -c 'import json, sys
doc = json.load(open(sys.argv[1]))
r = doc["result"]
exec(sys.argv[2])
json.dump(doc, open(sys.argv[1] + ".bad", "w"))' "$1" "$2" || t_fail "cannot tamper with $1"
	echo "$1.bad"
}

check_fabric "$FABRICS/fattree-k4.net"
check_fabric "$FABRICS/leafspine-4s8l8h.net"

t_step "the comparisons notice a difference"
D=$T/leafspine-4s8l8h
bad=$(tamper "$D/nodes.json" 'r["nodes"][0]["desc"] += "x"')
"$PYTHON" "$SIMTOOL" compare-nodes "$D/ibnd" "$bad" >/dev/null 2>&1 &&
	t_fail "compare-nodes missed a wrong description"
bad=$(tamper "$D/links.json" 'r["links"][3]["b_port"] += 1')
"$PYTHON" "$SIMTOOL" compare-nodes "$D/ibnd" "$D/nodes.json" "$bad" >/dev/null 2>&1 &&
	t_fail "compare-nodes missed a wrong link"
bad=$(tamper "${LFT_ARGS[1]}" 'r["entries"][2]["port"] ^= 1')
"$PYTHON" "$SIMTOOL" compare-lft "${LFT_ARGS[0]}" "$bad" >/dev/null 2>&1 &&
	t_fail "compare-lft missed a wrong port"
bad=$(tamper "${ROUTE_ARGS[1]}" 'r["hops"][1]["out_port"] += 1')
"$PYTHON" "$SIMTOOL" compare-route "${ROUTE_ARGS[0]}" "$bad" >/dev/null 2>&1 &&
	t_fail "compare-route missed a wrong hop"
t_info "a wrong description, link, LFT entry or hop is caught"
t_step "pass"
