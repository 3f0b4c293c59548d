#!/bin/bash
# A flap storm on the 3-level fat tree k=4: FLAPS (200) random link events in STORM_S (20) s,
# each an `Unlink` of a link that is up or a `Link` of one that is down (any link but the SM
# host's), then every link back and quiet. Throughout the daemon lives and its socket answers;
# afterwards it settles (ibsmctl: no heavy sweep for 3 s while light sweeps run, nothing
# outstanding), the judge is ok, every LID is as before the storm and agrees with the
# daemon's, SIGTERM exits 0.
# With IBSMD_SAN=/path/to/ibsmd built with --enable-sanitizers (scripts/check passes its
# build-san one), a second, shorter storm (FLAPS_SAN, 100 events in 10 s) runs that daemon:
# ASan or UBSan reports fail the test, and so do leaks at exit. FLAPS_SAN_ONLY=1: that one only.
# FLAP_SEED repeats a storm (the seed of each run is printed).
. "$(dirname "$0")/lib.sh"
sim_init
NET=$FABRICS/fattree-k4.net
FLAPS=${FLAPS:-200}
STORM_S=${STORM_S:-20}
SEED=${FLAP_SEED:-$RANDOM}
IBSMD_SAN=${IBSMD_SAN:-}

# storm N SECONDS SEED: N events spread over SECONDS, the relinks, then ibsim catches up
storm() {
	local n=$1 sec=$2 seed=$3 plan=$T/flaps.$3 gap n0 lines i=0 line
	"$PYTHON" "$SIMTOOL" flap-plan "$NET" "$n" "$seed" >"$plan" || t_fail "flap-plan failed"
	lines=$(wc -l <"$plan")
	gap=$(awk -v s="$sec" -v n="$n" 'BEGIN { printf "%.3f", s / n }')
	t_info "storm: $n events in ${sec}s (seed $seed), then $((lines - n)) links back"
	n0=$(_sim_prompts)
	while IFS= read -r line; do
		printf '%s\n' "$line" >&"$SIM_FD" || t_fail "cannot write to ibsim"
		i=$((i + 1))
		[ "$i" -le "$n" ] && sleep "$gap"
		if [ $((i % 50)) -eq 0 ]; then
			sm_alive || t_fail "$SM died during the storm (event $i, seed $seed)"
			[ "$SM" = opensm ] || sm_ctl status >/dev/null ||
				t_fail "the status socket did not answer during the storm (event $i)"
		fi
	done <"$plan"
	for ((i = 0; i < 200; i++)); do
		[ "$(_sim_prompts)" -ge $((n0 + lines)) ] && break
		sleep 0.05
	done
	grep -q 'not found\|bad port\|can.t link\|is not linked' "$SIM_LOG" &&
		t_fail "ibsim refused a storm command: $(grep -m1 'not found\|bad port\|can.t link\|is not linked' "$SIM_LOG")"
	t_info "storm over: ibsim took all $lines commands"
}

# settled: quiet (which includes nothing outstanding: a stuck request never lets the daemon be
# quiet), judge ok, LIDs as before
t_settled() {
	local what=$1 out
	if [ "$SM" = ibsmd ]; then
		sm_wait_quiet 60 3 || t_fail "$what: the daemon did not settle in 60 s"
	else
		sleep 10 # OpenSM: a few of its sweeps
	fi
	sm_alive || t_fail "$SM died ($what)"
	t_judge_ok
	[ "$SM" = opensm ] || t_info "$(sm_ctl events 3 | tail -n 2)"
	lids_snapshot "$T/lids.$what"
	t_lids_same "$T/lids.before" "$T/lids.$what"
	t_lids_match_sm
}

sim_start "$NET"
if [ -n "$IBSMD_SAN" ] && [ "${FLAPS_SAN_ONLY:-0}" = 1 ]; then
	sm_start -s 1
	sm_wait_up 60
	lids_snapshot "$T/lids.before"
	sm_stop
else
	t_step "storm of $FLAPS link events"
	sm_start -s 1
	sm_wait_up 60
	lids_snapshot "$T/lids.before"
	storm "$FLAPS" "$STORM_S" "$SEED"
	t_settled storm
	sm_stop
	[ "$SM_RC" -eq 0 ] || [ "$SM" = opensm ] || t_fail "$SM exit $SM_RC on SIGTERM (want 0)"
fi

if [ -n "$IBSMD_SAN" ] && [ "$SM" = ibsmd ]; then
	t_step "storm under ASan+UBSan ($IBSMD_SAN)"
	[ -x "$IBSMD_SAN" ] || t_fail "IBSMD_SAN=$IBSMD_SAN is not an executable"
	IBSMD=$IBSMD_SAN
	# umad2sim (the simulator's preloaded library) overreads in its read(): not ours
	export ASAN_OPTIONS=$ASAN_OPTIONS:detect_leaks=1:abort_on_error=1:suppressions=$SIM_LIB_DIR/asan-umad2sim.supp
	export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
	sm_start -s 1
	sm_wait_up 60
	storm "${FLAPS_SAN:-100}" "${STORM_SAN_S:-10}" $((SEED + 1))
	t_settled storm-san
	# leak checking at exit takes a while on a busy machine: more grace than sm_stop's 2 s
	kill -TERM "$SM_PID"
	for ((i = 0; i < 300; i++)); do
		sm_alive || break
		sleep 0.1
	done
	sm_alive && t_info "no exit 30 s after SIGTERM: SIGKILL" && kill -KILL "$SM_PID"
	wait "$SM_PID"
	SM_RC=$?
	SM_PID=
	if grep -q 'ERROR: AddressSanitizer\|ERROR: LeakSanitizer\|runtime error:' "$SM_LOG"; then
		grep -m5 -A10 'ERROR: AddressSanitizer\|ERROR: LeakSanitizer\|runtime error:' "$SM_LOG" >&2
		t_fail "sanitizer report in $SM_LOG"
	fi
	[ "$SM_RC" -eq 0 ] || t_fail "$IBSMD_SAN exit $SM_RC on SIGTERM (want 0)"
fi
t_step "pass"
