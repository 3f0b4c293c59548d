#!/bin/bash
# test_systemd.sh: ibsmd as systemd runs it (Type=notify, WatchdogSec) on ibsim (fat tree k=4):
# NOTIFY_SOCKET names a datagram socket of the test's own (notify_listen.py records every
# message) and WATCHDOG_USEC=400000 asks for a ping every 200 ms.
#   a) master, with `daemon TRUE` in its file and -B: it stays in the foreground (the pid we
#      started sends READY=1), says both are ignored; READY=1 once, after a STATUS= saying the
#      subnet is up; WATCHDOG=1 goes on; OpenSM's `dump_files_dir /var/log/` on a read-only
#      /var/log (as under ProtectSystem=strict: a mount namespace of its own, when unshare
#      can make one; else a path that is no directory) is reported once (log line and
#      dump_failed event) over several heavy sweeps and the SM goes on; SIGTERM: STOPPING=1,
#      exit 0
#   b) standby beside a master (OpenSM when installed, else ibsmd) of higher priority:
#      READY=1 with STATUS= standby, the watchdog kept
#   c) -I (sm_inactive): READY=1 at once with STATUS= not active, the watchdog kept
#   d) master on a port without a link (its host unlinked): READY=1 with STATUS= saying so
# shellcheck disable=SC2086 # SM_ARGS and PLUGIN_ARGS split on purpose
. "$(dirname "$0")/lib.sh"

sim_init
[ "$SM" = ibsmd ] || t_skip "systemd notification is ibsmd's (SM=$SM)"
grep -q '^#define HAVE_SYSTEMD 1' "$top_builddir/config.h" 2>/dev/null ||
	t_skip "ibsmd built without libsystemd: no sd_notify"
NET=$FABRICS/fattree-k4.net
HOST_A=pod1-edge1-host1
HOST_B=pod4-edge2-host2
LISTEN=$SIM_LIB_DIR/notify_listen.py
PIDS=

# our listeners and SMs die with the test (only ours: their pids)
_sd_kill() {
	local p
	for p in $PIDS; do
		kill -TERM "$p" 2>/dev/null
	done
	for p in $PIDS; do
		kill_wait "$p" >/dev/null 2>&1
	done
	PIDS=
}
trap 'rc=$?; _sd_kill; (exit $rc); _teardown' EXIT
trap 'exit 1' INT TERM

# sd_start NAME HOST ARGS...: ibsmd on HOST as systemd starts it; its files in $T/NAME, the
# notifications it sends in $T/NAME/notify; sets NAME_PID and LISTEN_NAME_PID
sd_start() {
	local name=$1 host=$2 dir=$T/$1 lpid pid i
	shift 2
	rm -rf "$dir"
	mkdir -p "$dir"
	timeout -k 2 300 "$PYTHON" "$LISTEN" "$dir/nsock" "$dir/notify" --max-seconds 280 &
	lpid=$!
	PIDS="$PIDS $lpid"
	for ((i = 0; i < 50; i++)); do
		[ -S "$dir/nsock" ] && break
		sleep 0.1
	done
	[ -S "$dir/nsock" ] || t_fail "$name: notify listener did not start"
	(cd "$T/run" && SIM_HOST=$host NOTIFY_SOCKET=$dir/nsock WATCHDOG_USEC=400000 \
		LD_PRELOAD=$UMAD2SIM exec "${SD_WRAP[@]}" "$IBSMD" --cache-dir "$dir" $PLUGIN_ARGS \
		--socket "$dir/sock" $SM_ARGS "$@" >"$dir/log" 2>&1 {SIM_FD}>&-) &
	pid=$!
	PIDS="$PIDS $pid"
	eval "${name}_PID=$pid LISTEN_${name}_PID=$lpid"
	t_info "$name: ibsmd on $host under NOTIFY_SOCKET, pid $pid: $*"
}

sd_pid() { eval echo "\$${1}_PID"; }

# sd_stop NAME: SIGTERM, the exit status in SD_RC, then its listener
sd_stop() {
	local pid lpid
	pid=$(sd_pid "$1")
	lpid=$(eval echo "\$LISTEN_${1}_PID")
	kill_wait "$pid"
	SD_RC=$?
	sleep 0.3 # the listener reads what is queued
	kill_wait "$lpid"
	PIDS=$(echo " $PIDS " | sed -e "s/ $pid / /" -e "s/ $lpid / /")
	t_info "$1: stopped (exit $SD_RC)"
}

# n_count NAME PATTERN: notifications matching PATTERN (grep -E on the message)
n_count() { sed 's/^[0-9.]* //' "$T/$1/notify" 2>/dev/null | grep -Ec -- "$2"; }

# n_wait NAME PATTERN SEC: a notification matching PATTERN arrives; the process stays alive
n_wait() {
	local name=$1 pat=$2 sec=$3 end pid
	pid=$(sd_pid "$name")
	end=$((SECONDS + sec))
	while [ "$(n_count "$name" "$pat")" -eq 0 ]; do
		_running "$pid" || t_fail "$name: exited before '$pat' (log $T/$name/log)"
		[ $SECONDS -ge $end ] &&
			t_fail "$name: no notification '$pat' after ${sec}s: $(tail -n 5 "$T/$name/notify")"
		sleep 0.1
	done
}

# t_ready NAME STATUS_PATTERN SEC: READY=1 within SEC s, once, and the last STATUS= sent
# before it matches STATUS_PATTERN
t_ready() {
	local name=$1 pat=$2 st
	n_wait "$name" '^READY=1$' "$3"
	st=$(sed 's/^[0-9.]* //' "$T/$name/notify" | sed -n '/^READY=1$/q;s/^STATUS=//p' | tail -n 1)
	[ -n "$st" ] || t_fail "$name: READY=1 without a STATUS= before it"
	echo "$st" | grep -Eq -- "$pat" || t_fail "$name: READY=1 with STATUS='$st', want /$pat/"
	t_info "$name: READY=1, STATUS=$st"
}

# t_watchdog NAME: WATCHDOG=1 keeps coming (every 200 ms asked; at least 4 in 1.5 s)
t_watchdog() {
	local n0 n1
	n0=$(n_count "$1" '^WATCHDOG=1$')
	sleep 1.5
	n1=$(n_count "$1" '^WATCHDOG=1$')
	[ $((n1 - n0)) -ge 4 ] || t_fail "$1: $((n1 - n0)) WATCHDOG=1 in 1.5 s, want every 200 ms"
	t_info "$1: watchdog kept ($((n1 - n0)) pings in 1.5 s, $n1 in all)"
}

sd_ctl() { timeout -k 2 10 "$IBSMCTL" -S "$T/$1/sock" "${@:2}"; }

# SD_WRAP: what sd_start runs ibsmd under (the same process: every part execs the next)
SD_WRAP=(env)
RO_VARLOG='mount --bind /var/log /var/log && mount -o remount,bind,ro /var/log'
RO_PROBE='f=/var/log/.ibsmd-rw-probe; if touch $f; then rm -f $f; exit 1; fi'
if [ "$(id -u)" = 0 ] && unshare -m sh -c "$RO_VARLOG && { $RO_PROBE; }" 2>/dev/null; then
	DUMP_DIR=/var/log/
	ro_wrap=(unshare -m sh -c "$RO_VARLOG && exec \"\$@\"" sh)
else
	DUMP_DIR=/dev/null/ibsmd-dumps
	ro_wrap=(env)
	t_info "no read-only /var/log of our own (unshare -m): $DUMP_DIR stands for it"
fi

sim_start "$NET"

t_step "a) master, daemon TRUE and -B ignored, dump_files_dir $DUMP_DIR not writable"
mkdir -p "$T/a"
printf 'daemon TRUE\ndump_files_dir %s\n' "$DUMP_DIR" >"$T/a.conf"
SD_WRAP=("${ro_wrap[@]}")
sd_start a "$HOST_A" -F "$T/a.conf" -B
SD_WRAP=(env)
t_ready a 'subnet up' 60
_running "$a_PID" || t_fail "a: the process systemd started is gone (it forked?)"
grep -q 'daemon TRUE (or -B) ignored' "$T/a/log" || t_fail "a: no warning that daemon TRUE is ignored"
[ "$(sd_ctl a --json status | "$PYTHON" -c 'import json,sys; print(json.load(sys.stdin)["result"]["subnet_up"])')" = True ] ||
	t_fail "a: READY=1 but ibsmctl says the subnet is not up"
t_watchdog a
for i in 1 2; do
	sd_ctl a sweep heavy >/dev/null || t_fail "a: ibsmctl sweep heavy"
	sleep 1.5
done
n=$(grep -c "cannot write dump files in $DUMP_DIR" "$T/a/log")
[ "$n" -eq 1 ] || t_fail "a: the unwritable dump dir reported $n times in the log, want once"
n=$(sd_ctl a --json events 200 | grep -o '"dump_failed"' | wc -l)
[ "$n" -eq 1 ] || t_fail "a: $n dump_failed events, want 1"
sd_ctl a wait-up --timeout 10 >/dev/null || t_fail "a: subnet not up after the heavy sweeps"
[ "$(n_count a '^READY=1$')" -eq 1 ] || t_fail "a: READY=1 sent $(n_count a '^READY=1$') times"
t_info "a: dump dir failure said once, SM goes on"
sd_stop a
[ "$SD_RC" -eq 0 ] || t_fail "a: exit $SD_RC after SIGTERM"
[ "$(n_count a '^STOPPING=1$')" -eq 1 ] || t_fail "a: no STOPPING=1"

t_step "b) standby beside a master of higher priority"
if command -v opensm >/dev/null; then
	mkdir -p "$T/m"
	printf 'sm_priority 15\nforce_log_flush TRUE\n' >"$T/m/osm.conf"
	(cd "$T/run" && SIM_HOST=$HOST_B OSM_TMP_DIR=$T/m OSM_CACHE_DIR=$T/m LD_PRELOAD=$UMAD2SIM \
		exec opensm -F "$T/m/osm.conf" -f "$T/m/log" >"$T/m/out" 2>&1 {SIM_FD}>&-) &
	M_PID=$!
	PIDS="$PIDS $M_PID"
	wait_log "$T/m/log" 'SUBNET UP' 60
	t_info "master: OpenSM on $HOST_B, pid $M_PID"
else
	mkdir -p "$T/m"
	(cd "$T/run" && SIM_HOST=$HOST_B LD_PRELOAD=$UMAD2SIM exec "$IBSMD" -p 15 \
		--cache-dir "$T/m" --dump_files_dir "$T/m" $PLUGIN_ARGS --socket "$T/m/sock" \
		>"$T/m/log" 2>&1 {SIM_FD}>&-) &
	M_PID=$!
	PIDS="$PIDS $M_PID"
	wait_log "$T/m/log" 'subnet up' 60
	t_info "master: ibsmd on $HOST_B, pid $M_PID (no opensm installed)"
fi
sd_start b "$HOST_A" -p 1 --dump_files_dir "$T/b"
t_ready b '^standby' 60
state=$(sd_ctl b --json status | "$PYTHON" -c 'import json,sys; print(json.load(sys.stdin)["result"]["sm"]["state"])')
[ "${state,,}" = standby ] || t_fail "b: READY=1 as standby, but ibsmctl says $state"
t_watchdog b
sd_stop b
[ "$SD_RC" -eq 0 ] || t_fail "b: exit $SD_RC after SIGTERM"

t_step "c) not active (-I)"
sd_start c "$HOST_A" -I --dump_files_dir "$T/c"
t_ready c '^not active \(sm_inactive\)' 15
t_watchdog c
sd_stop c
[ "$SD_RC" -eq 0 ] || t_fail "c: exit $SD_RC after SIGTERM"
kill_wait "$M_PID"
PIDS=$(echo " $PIDS " | sed "s/ $M_PID / /")

t_step "d) master on a port without a link"
sim_cmd "Unlink \"$HOST_A\"[1]"
sd_start d "$HOST_A" --dump_files_dir "$T/d"
t_ready d '^master, no links on the local port' 30
t_watchdog d
sd_stop d
[ "$SD_RC" -eq 0 ] || t_fail "d: exit $SD_RC after SIGTERM"

t_info "ok"
exit 0
