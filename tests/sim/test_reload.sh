#!/bin/bash
# Configuration reload and signals, on a live fabric (fat tree k=4), ibsmd -F CONF -f LOG:
# (a) SIGHUP with CONF turned bad (a bad value, an unknown key) and strict_config TRUE:
#     the daemon runs on with the old configuration, its log names file:line of each
#     warning, and it goes on sweeping;
# (b) `ibsmctl reload` with the bad file: ok:false, code reload_failed (exit 1);
# (b2) the same file without strict_config: as OpenSM, the reload goes on, the bad value
#     gets its default, the warnings are logged and in the reload reply;
# (c) SIGHUP with good changes: reloadable keys (sweep_interval, sm_priority) take effect
#     (`ibsmctl config KEY` shows the value and FILE:LINE, sminfo the new priority); a key
#     that needs a restart (lmc) keeps its old value and is reported (log, reload reply);
# (d) SIGUSR1 reopens the log file: moved aside, a new one appears and gets the lines;
# (e) SIGTERM: exit 0, the socket file is gone, guid2lid holds the LIDs on the wire.
. "$(dirname "$0")/lib.sh"
sim_init
[ "$SM" = ibsmd ] || t_skip "ibsmd's reload"
NET=$FABRICS/fattree-k4.net
CONF=$T/reload.conf
LOG=$T/ibsmd.log

# `config KEY` shows VALUE from SOURCE
t_config() {
	sm_ctl config "$1" >"$T/config.out" || t_fail "config $1 failed"
	grep -Eq "^\\*? +$1 +$2 +$3( |\$)" "$T/config.out" ||
		t_fail "config $1: want $2 from $3, got: $(sed -n 2p "$T/config.out")"
}

# CONF from stdin; not root, our group may act (socket_group at the end: the lines
# the checks name stay put)
write_conf() {
	cat >"$CONF"
	[ "$(id -u)" = 0 ] || printf 'socket_group %s\n' "$(id -g)" >>"$CONF"
}

write_conf <<EOF
# test_reload.sh, the good one
sweep_interval 1
sm_priority 3
lmc 0
EOF

t_step "daemon -F CONF -f LOG"
sim_start "$NET"
sm_start -F "$CONF" -f "$LOG"
sm_wait_up 30
sm_check_issm || t_fail "ibsmd is not IsSM in ibsim: sminfo cannot ask it"
t_config sweep_interval 1 "$CONF:2"
t_config sm_priority 3 "$CONF:3"
lids_snapshot "$T/lids.wire"

t_step "(a) SIGHUP with a bad file and strict_config: the old configuration stays"
write_conf <<EOF
# test_reload.sh, the bad one
sweep_interval soon
no_such_key 1
sm_priority 9
strict_config TRUE
EOF
kill -HUP "$SM_PID"
wait_log "$SM_LOG" 'reload: configuration rejected'
grep -q "reload: $CONF:2: " "$SM_LOG" || t_fail "the log does not name $CONF:2 (bad value)"
grep -q "reload: $CONF:3: unknown key 'no_such_key'" "$SM_LOG" ||
	t_fail "the log does not name $CONF:3 (unknown key)"
sm_alive || t_fail "ibsmd died on a bad reload"
t_config sweep_interval 1 "$CONF:2"
t_config sm_priority 3 "$CONF:3"
[ "$(sm_ctl_get result.sm.priority status)" = 3 ] || t_fail "priority changed by a rejected reload"
sm_ctl events 5 | grep -q 'reload_failed' || t_fail "no reload_failed event"
t_sm_sweeping "after the rejected reload"
t_info "rejected, errors at $CONF:2 and :3 in the log, still sweeping on the old one"

t_step "(b) ibsmctl reload with the bad file"
sm_ctl --json reload >"$T/reload.json"
rc=$?
[ $rc -eq 1 ] || t_fail "reload exit $rc, want 1: $(cat "$T/reload.json")"
grep -q '"code": "reload_failed"' "$T/reload.json" || t_fail "reload: $(cat "$T/reload.json")"
grep -q "$CONF:[23]" "$T/reload.json" ||
	t_fail "reload does not name the file: $(cat "$T/reload.json")"
sm_ctl reload >"$T/reload.out" 2>&1 && t_fail "reload (human) exit 0 with a bad file"
grep -q 'reload_failed' "$T/reload.out" || t_fail "reload said: $(cat "$T/reload.out")"
t_config sm_priority 3 "$CONF:3"
t_info "$(cat "$T/reload.out")"

t_step "(b2) the same file without strict_config: reloaded with warnings"
write_conf <<EOF
# test_reload.sh, the bad one, not strict
sweep_interval soon
no_such_key 1
sm_priority 9
EOF
sm_ctl reload >"$T/reload.out" 2>&1 || t_fail "reload refused: $(cat "$T/reload.out")"
grep -q "warning: $CONF:3: unknown key 'no_such_key'" "$T/reload.out" ||
	t_fail "reload does not show the warning: $(cat "$T/reload.out")"
grep -q "reload: $CONF:2: sweep_interval: \"soon\" is not an integer, using the default 10" \
	"$SM_LOG" || t_fail "the log does not name $CONF:2 (bad value, default used)"
t_config sm_priority 9 "$CONF:4"
t_config sweep_interval 10 default
t_info "$(cat "$T/reload.out")"

t_step "(c) SIGHUP with good changes"
write_conf <<EOF
# test_reload.sh, changed
lmc 1
sm_priority 5
sweep_interval 2
EOF
lines=$(wc -l <"$SM_LOG")
kill -HUP "$SM_PID"
wait_log "$SM_LOG" 'reload: [0-9]+ keys changed'
t_config sweep_interval 2 "$CONF:4"
t_config sm_priority 5 "$CONF:3"
t_config lmc 0 "[^ ]+" # from where it came at the start
tail -n +"$lines" "$SM_LOG" | grep -q "$CONF:2: lmc: needs a restart, keeping 0" ||
	t_fail "the log does not report lmc kept at 0"
[ "$(sm_ctl_get result.sm.priority status)" = 5 ] || t_fail "status: priority not 5"
for ((i = 0; i < 20; i++)); do
	sim_run sminfo >"$T/sminfo.out"
	grep -q 'priority 5 ' "$T/sminfo.out" && break
	sleep 0.1
done
grep -q 'priority 5 .*SMINFO_MASTER' "$T/sminfo.out" || t_fail "sminfo: $(cat "$T/sminfo.out")"
sm_ctl reload >"$T/reload.out" || t_fail "reload of a good file failed: $(cat "$T/reload.out")"
grep -q '^configuration reloaded, 0 keys changed$' "$T/reload.out" &&
	grep -q "lmc: needs a restart, keeping 0" "$T/reload.out" ||
	t_fail "reload said: $(cat "$T/reload.out")"
[ "$(sm_ctl_get result.kept.0 reload)" = "$CONF:2: lmc: needs a restart, keeping 0" ] ||
	t_fail "reload --json does not report lmc kept"
t_sm_sweeping "after the reload"
t_info "$(cat "$T/sminfo.out")"
t_info "lmc kept at 0: $(sed -n 2p "$T/reload.out" | sed 's/^ *//')"

t_step "(d) SIGUSR1 reopens the log file"
wait_log "$LOG" 'keys changed'
mv "$LOG" "$LOG.1"
kill -USR1 "$SM_PID"
wait_log "$LOG" 'log file reopened'
sm_ctl loglevel info >/dev/null || t_fail "loglevel info failed"
wait_log "$LOG" 'log level set to info on the socket'
grep -q 'log level set to info' "$LOG.1" && t_fail "the moved-aside log still gets lines"
t_info "new $(basename "$LOG"): $(wc -l <"$LOG") lines, the old one kept $(wc -l <"$LOG.1")"

t_step "(e) SIGTERM"
sm_alive || t_fail "ibsmd died"
sm_stop
[ "$SM_RC" -eq 0 ] || t_fail "ibsmd exit $SM_RC on SIGTERM, want 0"
[ -e "$SM_SOCK" ] && t_fail "the socket file $SM_SOCK is still there"
[ -s "$T/cache/guid2lid" ] || t_fail "no guid2lid in the cache dir"
"$PYTHON" "$SIMTOOL" guid2lid "$T/cache/guid2lid" >"$T/lids.g2l" || t_fail "bad guid2lid"
t_lids_same "$T/lids.wire" "$T/lids.g2l"
grep -q 'signal 15: exiting' "$LOG" || t_fail "the log file does not say why it ended"
t_step "pass"
