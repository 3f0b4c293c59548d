#!/bin/bash
# The status socket protocol and ibsmctl on a live fabric (fat tree k=4), with the daemon
# sweeping every second (-s 1), routing_engine naming an engine that does not exist
# (skipped as OpenSM does, shown by ibsmctl routing) and its socket open to everybody
# (socket_mode 0666, no socket_group: actions are for root only):
# - every view's JSON has its members, and the views agree on the counts;
# - bad requests (malformed JSON, over 64 KiB, unknown command, missing or bad arguments)
#   get their error codes and the connection stays usable;
# - user nobody may read but not act (permission_denied);
# - 200 clients at once are all answered;
# - a subscriber (ibsmctl watch) sees the event of a sweep asked with ibsmctl sweep, and
#   ends with exit 0 when the daemon goes away;
# - ibsmctl loglevel, config, the human renderings, and exit codes 0/1/2;
# - the daemon keeps sweeping throughout.
. "$(dirname "$0")/lib.sh"
sim_init
[ "$SM" = ibsmd ] || t_skip "the status socket is ibsmd's"
NET=$FABRICS/fattree-k4.net

# ibsmctl watch, its pid the one to kill (no shell in between)
watch_bg() { exec timeout -k 2 60 "$IBSMCTL" -S "$SM_SOCK" watch "$@"; }

nobody_init

printf 'socket_mode 0666\nrouting_engine lash,minhop\n' >"$T/ctl.conf"
if [ "$(id -u)" != 0 ]; then
	# actions are root's without a group: let our own group act instead
	printf 'socket_group %s\n' "$(id -g)" >>"$T/ctl.conf"
	t_info "not root: socket_group $(id -g) for the actions; the nobody checks are left out"
fi

t_step "daemon on $(basename "$NET"), light sweep every second"
sim_start "$NET"
sm_start -F "$T/ctl.conf" -s 1
sm_wait_up 30
SM_LIGHT=$(sm_ctl_get result.sweeps.light status) || t_fail "status failed"

t_step "every view's JSON has its members"
D=$T/views
mkdir -p "$D"
for v in status nodes links switches lids routing config counters events help; do
	sm_ctl --json "$v" >"$D/$v.json" || t_fail "ibsmctl --json $v failed: $(head -c 300 "$D/$v.json")"
done
sm_ctl node pod1-edge1 --json >"$D/node_switch.json" || t_fail "node (switch) failed"
sm_ctl --json node pod1-edge1-host2 >"$D/node_ca.json" || t_fail "node (CA) failed"
guid=$(sm_ctl_get result.nodes.0.guid nodes --type switch) || t_fail "nodes --type switch failed"
sm_ctl --json ports "$guid" >"$D/ports.json" || t_fail "ports $guid failed"
lid=$(sm_ctl_get result.node.lid node pod2-agg1) || t_fail "node pod2-agg1 failed"
sm_ctl --json lft "$lid" >"$D/lft.json" || t_fail "lft $lid failed"
sm_ctl --json route pod1-edge1-host1 pod4-edge2-host2 >"$D/route.json" || t_fail "route failed"
out=$("$PYTHON" "$SIMTOOL" ctl-shapes "$D" 2>&1) || t_fail "$out"
t_info "$out"

t_step "bad requests: error codes, and the connection stays usable"
out=$("$PYTHON" "$SIMTOOL" ctl-errors "$SM_SOCK" 2>&1) || t_fail "$out"
t_info "$out"
sm_alive || t_fail "the daemon died on bad requests"
t_sm_sweeping "after the bad requests"

t_step "nobody reads, but may not act"
if [ $NOBODY = 1 ]; then
	NCTL=("$T/bin/ibsmctl" -S "$SM_SOCK")
	expect_rc 0 as_nobody "${NCTL[@]}" status
	expect_rc 0 as_nobody "${NCTL[@]}" --json nodes
	grep -q '"ok": true' "$T/rc.out" || t_fail "nodes as nobody: $(head -c 200 "$T/rc.out")"
	for a in "sweep" "sweep light" "reroute" "loglevel debug" "reload"; do
		# shellcheck disable=SC2086
		expect_rc 1 as_nobody "${NCTL[@]}" --json $a
		grep -q '"code": "permission_denied"' "$T/rc.out" ||
			t_fail "$a as nobody: $(head -c 300 "$T/rc.out")"
	done
	expect_rc 1 as_nobody "${NCTL[@]}" sweep
	grep -q 'permission_denied' "$T/rc.out" || t_fail "sweep as nobody: $(cat "$T/rc.out")"
	expect_rc 0 as_nobody "${NCTL[@]}" events 5
	t_info "nobody: reads answered, 5 actions refused with permission_denied"
else
	t_info "not root: left out"
fi

t_step "200 clients at once"
out=$("$PYTHON" "$SIMTOOL" ctl-many "$SM_SOCK" 200 2>&1) || t_fail "$out"
t_info "$out"
sm_alive || t_fail "the daemon died under 200 clients"
t_sm_sweeping "after 200 clients"

t_step "a subscriber sees the event of a sweep"
watch_bg --json >"$T/watch.json" 2>"$T/watch.err" &
W1=$!
watch_bg >"$T/watch.txt" 2>"$T/watch.txt.err" &
W2=$!
for ((i = 0; i < 50; i++)); do
	[ "$(sm_ctl_get result.clients.subscribed status)" -ge 2 ] && break
	sleep 0.1
done
[ "$(sm_ctl_get result.clients.subscribed status)" -ge 2 ] ||
	t_fail "the watchers did not subscribe"
heavy=$(sm_ctl_get result.sweeps.heavy status)
sm_ctl sweep heavy >"$T/sweep.out" || t_fail "ibsmctl sweep heavy failed: $(cat "$T/sweep.out")"
grep -qx 'heavy sweep queued' "$T/sweep.out" || t_fail "sweep said: $(cat "$T/sweep.out")"
for ((i = 0; i < 100; i++)); do
	grep -q '"event":"sweep".*heavy sweep' "$T/watch.json" &&
		grep -Eq '^[0-9-]{10} [0-9:.]{12} sweep heavy sweep' "$T/watch.txt" && break
	sleep 0.1
done
grep -q '"event":"sweep".*heavy sweep' "$T/watch.json" ||
	t_fail "watch --json saw no sweep event: $(head -c 500 "$T/watch.json")"
grep -Eq '^[0-9-]{10} [0-9:.]{12} sweep heavy sweep' "$T/watch.txt" ||
	t_fail "watch saw no sweep event: $(head -c 500 "$T/watch.txt")"
"$PYTHON" -c 'import json, sys
for l in open(sys.argv[1]):
    e = json.loads(l)
    assert "ok" not in e and isinstance(e["event"], str) and isinstance(e["seq"], int), l' \
	"$T/watch.json" || t_fail "watch --json printed something else than event lines"
[ "$(sm_ctl_get result.sweeps.heavy status)" -gt "$heavy" ] ||
	t_fail "no heavy sweep after sweep heavy"
kill_wait $W1 $W2
t_info "watch --json: $(wc -l <"$T/watch.json") event(s); watch: $(head -n1 "$T/watch.txt")"

t_step "loglevel, config"
expect_rc 0 sm_ctl loglevel debug
grep -qx 'log level set to debug' "$T/rc.out" || t_fail "loglevel said: $(cat "$T/rc.out")"
sm_ctl config >"$T/config.txt" || t_fail "config failed"
for ((i = 0; i < 20; i++)); do
	grep -q 'control: client pid [0-9]*: config' "$SM_LOG" && break
	sleep 0.1
done
grep -q 'control: client pid [0-9]*: config' "$SM_LOG" ||
	t_fail "no debug line for the config request after loglevel debug"
expect_rc 0 sm_ctl loglevel info
grep -Eq '^\* +socket_mode +0666 +.*ctl\.conf:1 +\(restart\)$' "$T/config.txt" ||
	t_fail "config: no '* socket_mode 0666 ...:1 (restart)': $(grep socket_mode "$T/config.txt")"
grep -Eq '^\* +sweep_interval +1 +flag$' "$T/config.txt" ||
	t_fail "config: no '* sweep_interval 1 flag' row: $(grep sweep_interval "$T/config.txt")"
grep -Eq '^ +sm_priority +0 +default$' "$T/config.txt" ||
	t_fail "config: sm_priority row: $(grep sm_priority "$T/config.txt")"
grep -Eq '^\s+cc_key +\S+ +default +(\(restart\) )?\(unsupported\)$' "$T/config.txt" ||
	t_fail "config: cc_key row: $(grep -w cc_key "$T/config.txt")"
expect_rc 0 sm_ctl config socket_mode
[ "$(grep -c socket_mode "$T/rc.out")" = 1 ] || t_fail "config socket_mode: $(cat "$T/rc.out")"
expect_rc 1 sm_ctl config no_such_key
expect_rc 2 sm_ctl loglevel loud
t_info "loglevel debug logs the requests; config rows flagged"

t_step "human renderings"
expect_rc 0 sm_ctl status
grep -Eq '^  state +master$' "$T/rc.out" || t_fail "status: $(head -c 300 "$T/rc.out")"
expect_rc 0 sm_ctl nodes --type ca
[ "$(grep -c ' CA ' "$T/rc.out")" = 16 ] || t_fail "nodes --type ca: $(cat "$T/rc.out")"
expect_rc 0 sm_ctl node pod1-edge1
grep -Eq '^PORT +STATE +PHYS +WIDTH +SPEED +MTU +LID +PEER$' "$T/rc.out" &&
	grep -Eq '^ +3 +Active +LinkUp +4x +SDR +[0-9]+ +- +pod1-agg1\[1\]$' "$T/rc.out" ||
	t_fail "node pod1-edge1: $(cat "$T/rc.out")"
expect_rc 0 sm_ctl ports pod1-edge1-host1
grep -Eq '^ +1 +Active .* +1 +pod1-edge1\[1\]$' "$T/rc.out" || t_fail "ports: $(cat "$T/rc.out")"
expect_rc 0 sm_ctl links
[ "$(grep -c Active "$T/rc.out")" = 48 ] || t_fail "links: $(head -c 300 "$T/rc.out")"
expect_rc 0 sm_ctl switches
grep -Eq '^GUID +LID +ACTIVE/PORTS +LFT TOP +CAP +DESC$' "$T/rc.out" &&
	[ "$(grep -c ' 4/4 ' "$T/rc.out")" = 20 ] || t_fail "switches: $(cat "$T/rc.out")"
hlid=$(sm_ctl_get result.node.ports.0.lid node pod1-edge1-host1) || t_fail "node pod1-edge1-host1"
expect_rc 0 sm_ctl lft pod1-edge1 "$hlid" "$hlid"
grep -Eq "^$(printf 0x%04x "$hlid") +001 +pod1-edge1-host1/1\$" "$T/rc.out" &&
	grep -q '^1 valid lids dumped$' "$T/rc.out" || t_fail "lft: $(cat "$T/rc.out")"
expect_rc 0 sm_ctl route pod1-edge1-host1 pod4-edge2-host2
grep -Eq '^   pod1-edge1-host1 port 1$' "$T/rc.out" &&
	grep -Eq '^-> pod1-edge1 \[lid [0-9]+\] in 1 out [34]$' "$T/rc.out" &&
	grep -Eq '^-> pod4-edge2-host2 port 1$' "$T/rc.out" &&
	grep -q '^delivered, switch hops: 5$' "$T/rc.out" || t_fail "route: $(cat "$T/rc.out")"
expect_rc 0 sm_ctl lids
expect_rc 0 sm_ctl routing
grep -Eq '^engine +[a-z]' "$T/rc.out" || t_fail "routing: $(cat "$T/rc.out")"
grep -Eq '^skipped +lash$' "$T/rc.out" && grep -Eq '^chain +minhop$' "$T/rc.out" ||
	t_fail "routing does not show lash skipped: $(cat "$T/rc.out")"
expect_rc 0 sm_ctl counters
grep -q '^MADs$' "$T/rc.out" || t_fail "counters: $(head -c 300 "$T/rc.out")"
expect_rc 0 sm_ctl events 3
grep -Eq '^[0-9-]{10} [0-9:.]{12} +[a-z_]+ +' "$T/rc.out" || t_fail "events: $(cat "$T/rc.out")"
expect_rc 0 sm_ctl reroute
expect_rc 0 sm_ctl help
expect_rc 0 sm_ctl --json help
t_info "every view renders"

t_step "exit codes"
expect_rc 0 sm_ctl status
expect_rc 1 sm_ctl node nosuchnode
grep -q 'not_found' "$T/rc.out" || t_fail "node nosuchnode said: $(cat "$T/rc.out")"
expect_rc 1 sm_ctl --json lft pod1-edge1-host1 # not a switch
expect_rc 0 sm_ctl reload
grep -q '^configuration reloaded, 0 keys changed$' "$T/rc.out" ||
	t_fail "reload: $(cat "$T/rc.out")"
expect_rc 2 "$IBSMCTL" -S "$T/no-such.sock" status
expect_rc 2 "$IBSMCTL" -S "$T/no-such.sock" watch
expect_rc 2 sm_ctl no-such-command
expect_rc 2 sm_ctl node # missing argument
t_info "0 ok, 1 the SM said no, 2 no SM or bad usage"

t_step "the daemon kept sweeping"
t_sm_sweeping "at the end"
watch_bg >"$T/watch.end" 2>&1 &
W3=$!
for ((i = 0; i < 50; i++)); do
	[ "$(sm_ctl_get result.clients.subscribed status)" -ge 1 ] && break
	sleep 0.1
done
sm_stop
[ "$SM_RC" -eq 0 ] || t_fail "ibsmd exit $SM_RC on SIGTERM"
for ((i = 0; i < 30; i++)); do
	_running $W3 || break
	sleep 0.1
done
_running $W3 && t_fail "watch still runs after the daemon stopped"
wait $W3
rc=$?
[ $rc -eq 0 ] || t_fail "watch exit $rc when the daemon stopped, want 0: $(cat "$T/watch.end")"
t_step "pass"
