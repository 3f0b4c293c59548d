#!/bin/bash
# OpenSM's logging and naming keys on a live fabric (fat tree k=4), ibsmd -F CONF:
# - log_prefix: every line the daemon logs after reading its configuration carries it;
# - per_module_logging_file: its bad lines are warned about as file:line, the good ones
#   raise their subsystem's level (the SA may log at debug, the sweeps do not), and a
#   missing file is silently fine;
# - node_name_map_name: a map written while the daemon runs, read on SIGHUP: ibsmctl shows
#   the names and finds a node by one, opensm-subnet.lst carries them; a map with a bad
#   line is refused with its file:line and the descriptions come back.
. "$(dirname "$0")/lib.sh"
sim_init
[ "$SM" = ibsmd ] || t_skip "ibsmd's logging"
NET=$FABRICS/fattree-k4.net
CONF=$T/names.conf
MAP=$T/node-name-map
PML=$T/per-module.conf

# wait up to SEC s until FILE has a line matching the extended regex RE
wait_grep() {
	local sec=$1 re=$2 file=$3 i
	for ((i = 0; i < sec * 10; i++)); do
		grep -Eq -- "$re" "$file" 2>/dev/null && return 0
		sleep 0.1
	done
	return 1
}

# the GUID of the node whose description is $1
guid_of() {
	sm_ctl --json nodes | "$PYTHON" -c 'import json, sys
for n in json.load(sys.stdin)["result"]["nodes"]:
    if n["desc"] == sys.argv[1]:
        print(n["guid"])' "$1"
}

printf '%s\n' '# per-module logging, OpenSM format' 'osm_sa_path_record.c 0x08' \
	'osm_bogus.c 0x08' 'osm_sm.c zz' 'osm_perfmgr.c=0xff' >"$PML"
printf '%s\n' 'log_prefix fabricA' "per_module_logging_file $PML" "node_name_map_name $MAP" \
	'log_flags 0x03' >"$CONF"
[ "$(id -u)" = 0 ] || printf 'socket_group %s\n' "$(id -g)" >>"$CONF"

t_step "daemon with log_prefix, a per-module file and a node name map not there yet"
sim_start "$NET"
sm_start -F "$CONF"
sm_wait_up 30
grep -q "fabricA: $PML:3: unknown module osm_bogus.c, line ignored" "$SM_LOG" ||
	t_fail "no file:line warning for the unknown module: $(grep -i module "$SM_LOG" | head -3)"
grep -q "fabricA: $PML:4: bad log flags \"zz\" for osm_sm.c" "$SM_LOG" ||
	t_fail "no file:line warning for the bad flags"
grep -q "cannot read node name map $MAP" "$SM_LOG" || t_fail "no warning for the missing map"
# every line after the configuration was read carries the prefix
n=$(sed -n '/unknown module osm_bogus/,$p' "$SM_LOG" | grep -c '^ibsmd\[' || true)
bad=$(sed -n '/unknown module osm_bogus/,$p' "$SM_LOG" | grep '^ibsmd\[' |
	grep -vc 'fabricA: ' || true)
[ "$n" -gt 3 ] && [ "$bad" = 0 ] || t_fail "$bad of $n log lines without the prefix"
t_info "$n log lines, all with the prefix"

t_step "per-module levels: the sweeps stay at info"
sim_run saquery -p --timeout 2000 >/dev/null 2>&1 || true
sm_ctl sweep heavy >/dev/null 2>&1 || true
sleep 2
grep -q '\[debug\] fabricA: sweep: phase' "$SM_LOG" &&
	t_fail "the sweeps log at debug though only the SA was raised"
t_info "$(grep -c '\[debug\]' "$SM_LOG" || true) debug lines (the SA's)"

t_step "a node name map, read on SIGHUP"
g1=$(guid_of pod1-edge1)
g2=$(guid_of pod2-edge1-host2)
[ -n "$g1" ] && [ -n "$g2" ] || t_fail "no guids for pod1-edge1 and pod2-edge1-host2"
printf '# test map\n%s "rack1-leaf-A"\n%s "compute-0042" # a host\n' "$g1" "$g2" >"$MAP"
kill -HUP "$SM_PID"
for ((i = 0; i < 100; i++)); do
	sm_ctl nodes 2>/dev/null | grep -q 'rack1-leaf-A' && break
	sleep 0.1
done
sm_ctl nodes >"$T/nodes.out" || t_fail "ibsmctl nodes failed"
grep -q 'rack1-leaf-A' "$T/nodes.out" || t_fail "ibsmctl nodes shows no mapped name"
grep -q 'compute-0042' "$T/nodes.out" || t_fail "ibsmctl nodes: no compute-0042"
[ "$(sm_ctl_get result.node.guid node compute-0042)" = "$g2" ] ||
	t_fail "ibsmctl node compute-0042 does not find the host"
[ "$(sm_ctl_get result.node.desc node rack1-leaf-A)" = "pod1-edge1" ] ||
	t_fail "the node found by its name keeps its description"
wait_grep 20 '\{compute-0042\}' "$T/cache/opensm-subnet.lst" ||
	t_fail "opensm-subnet.lst has no mapped name"
grep -q '{pod2-edge1-host2}' "$T/cache/opensm-subnet.lst" &&
	t_fail "opensm-subnet.lst still has the description of a mapped node"
t_info "names in ibsmctl and opensm-subnet.lst"

t_step "a map with a bad line is refused: descriptions again"
printf '%s "rack1-leaf-A"\nnot-a-guid "x"\n' "$g1" >"$MAP"
kill -HUP "$SM_PID"
wait_grep 10 "$MAP:2: not a node guid, node name map not used" "$SM_LOG" ||
	t_fail "no file:line warning for the bad map line"
for ((i = 0; i < 100; i++)); do
	sm_ctl nodes 2>/dev/null | grep -q 'rack1-leaf-A' || break
	sleep 0.1
done
sm_ctl nodes | grep -q 'rack1-leaf-A' && t_fail "the refused map is still used"

t_step "a missing per-module file is fine: no warning on reload"
rm -f "$PML"
kill -HUP "$SM_PID"
sleep 1
grep -q "per_module_logging_file" "$SM_LOG" && t_fail "a missing per-module file was warned about"
sm_alive || t_fail "the daemon died"
sm_stop
[ "$SM_RC" = 0 ] || t_fail "exit $SM_RC"
t_step "pass"
