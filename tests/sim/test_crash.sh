#!/bin/bash
# Crash safety on the demo leaf-spine fabric (76 nodes): the daemon is killed with SIGKILL at
# a random moment CRASHES (20) times, each time restarted on the same cache dir.
#   - first run: up, every LID recorded (the wire and guid2lid);
#   - each run: while it runs, heavy sweeps are asked for every ~50 ms (`ibsmctl sweep`), and
#     it is killed after a random 0-400 ms (starting, reading guid2lid, sweeping, configuring,
#     writing its files). Before a run, guid2lid loses a few random entries, so the daemon has
#     to write it again (the ports still hold their LIDs); every 5th run starts on a FRESH
#     ibsim (no LID anywhere) with the whole guid2lid, so the LIDs come from the file alone;
#   - after each kill guid2lid is whole (every line complete, nothing cut off) and is either
#     the file the run started with or the complete one: never torn, empty or mixed;
#   - at the end a daemon comes up: every LID on the wire (ibnetdiscover) and in
#     `ibsmctl lids` is the first run's, the judge is ok, no temp file of an interrupted
#     write is left behind, SIGTERM exits 0.
# CRASH_SEED repeats a run (the seed is printed).
. "$(dirname "$0")/lib.sh"
sim_init
[ "$SM" = ibsmd ] || t_skip "ibsmd only: the sweeps are asked for with ibsmctl"
NET=$FABRICS/leafspine-4s8l8h.net
CRASHES=${CRASHES:-20}
SEED=${CRASH_SEED:-$RANDOM}
RANDOM=$SEED
TRIG=

trigger_start() {
	: >"$T/trigger.on"
	(
		while [ -e "$T/trigger.on" ] && kill -0 $$ 2>/dev/null; do
			timeout -k 1 2 "$IBSMCTL" -S "$SM_SOCK" sweep >/dev/null 2>&1
			sleep 0.05
		done
	) &
	TRIG=$!
}

trigger_stop() {
	rm -f "$T/trigger.on"
	[ -n "$TRIG" ] && wait "$TRIG" 2>/dev/null
	TRIG=
}

t_step "first run"
sim_start "$NET"
sm_start
sm_wait_up 60
lids_snapshot "$T/lids.first"
sm_stop
[ "$SM_RC" -eq 0 ] || t_fail "$SM exit $SM_RC on SIGTERM (want 0)"
[ -s "$T/cache/guid2lid" ] || t_fail "no guid2lid after the first run"
cp "$T/cache/guid2lid" "$T/guid2lid.first"
t_info "$(grep -c '^0x' "$T/guid2lid.first") guid2lid entries, seed $SEED"

t_step "$CRASHES kills"
fresh=0
for ((i = 1; i <= CRASHES; i++)); do
	if [ $((i % 5)) -eq 0 ]; then
		sim_stop
		sim_start "$NET"
		cp "$T/guid2lid.first" "$T/guid2lid.start"
		fresh=$((fresh + 1))
	else
		"$PYTHON" "$SIMTOOL" guid2lid-drop "$T/guid2lid.first" $((1 + RANDOM % 8)) "$RANDOM" \
			>"$T/guid2lid.start" || t_fail "guid2lid-drop"
	fi
	cp "$T/guid2lid.start" "$T/cache/guid2lid.new" && mv "$T/cache/guid2lid.new" "$T/cache/guid2lid"
	delay=$(printf '0.%03d' $((RANDOM % 400)))
	SIM_QUIET=1
	sm_start -s 1 >/dev/null
	trigger_start
	sleep "$delay"
	sm_alive || t_fail "run $i: $SM died by itself (see $SM_LOG)"
	kill -KILL "$SM_PID"
	wait "$SM_PID" 2>/dev/null
	SM_PID=
	trigger_stop
	out=$("$PYTHON" "$SIMTOOL" guid2lid-check "$T/cache/guid2lid" "$T/guid2lid.first" \
		"$T/guid2lid.start" 2>&1) || t_fail "run $i (killed after ${delay}s): $out"
	sweeps=$(grep -c 'sweep: ' "$SM_LOG")
	t_info "run $i: killed after ${delay}s, $sweeps sweeps done; ${out#guid2lid-check: }"
done

t_step "after $CRASHES kills ($fresh on a fresh fabric)"
sm_start
sm_wait_up 60
lids_snapshot "$T/lids.last"
t_lids_same "$T/lids.first" "$T/lids.last"
sm_ctl --json lids >"$T/lids.json" || t_fail "ibsmctl lids failed"
out=$("$PYTHON" "$SIMTOOL" ctl-lids-check "$T/lids.json" "$T/lids.first" 2>&1) || t_fail "$out"
t_info "$out"
t_lids_match_sm
t_judge_ok
sm_stop
[ "$SM_RC" -eq 0 ] || t_fail "$SM exit $SM_RC on SIGTERM (want 0)"
out=$("$PYTHON" "$SIMTOOL" guid2lid-check "$T/cache/guid2lid" "$T/guid2lid.first" 2>&1) ||
	t_fail "after the last run: $out"
t_info "$out"
left=$(find "$T/cache" -name '*.tmp.*' | wc -l)
[ "$left" -eq 0 ] || t_fail "$left temp files of interrupted writes left in the cache dir: $(ls "$T/cache" | grep -m3 '\.tmp\.')"
t_step "pass"
