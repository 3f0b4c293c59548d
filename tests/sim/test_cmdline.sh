#!/bin/bash
# test_cmdline.sh: OpenSM's command line on a live fabric (fat tree k=4), where a unit test
# cannot see it: -g 0 with one local port takes it without asking (as OpenSM); single-dash long
# options (-once, -dump_files_dir) as OpenSM's getopt_long_only takes them; -f stdout and
# -f - log to standard output and make no file of that name; -V is maximum verbosity (debug
# lines, and log_flags 0x40 writes the table dumps); -J is refused, --pidfile written and
# removed; a reload keeps the port -g 0 took without a word; --version prints the version.
# shellcheck disable=SC2086 # PLUGIN_ARGS splits on purpose
. "$(dirname "$0")/lib.sh"

sim_init
[ "$SM" = ibsmd ] || t_skip "ibsmd's command line (SM=$SM)"
sim_start "$FABRICS/fattree-k4.net"

# once NAME ARGS...: ibsmd -o on the fabric from $T/run; stdout in $T/NAME.out, stderr in
# $T/NAME.err, the exit status in RC
once() {
	local name=$1
	shift
	(cd "$T/run" && LD_PRELOAD=$UMAD2SIM exec timeout -k 5 "$SM_TIMEOUT" "$IBSMD" \
		--cache-dir "$T/cache" $PLUGIN_ARGS "$@" \
		>"$T/$name.out" 2>"$T/$name.err" </dev/null {SIM_FD}>&-)
	RC=$?
	t_info "$name: ibsmd $* -> exit $RC"
}

t_step "-g 0 with one local port: that one, nothing asked"
once g0 -o -g 0 --dump_files_dir "$T/d0"
[ $RC -eq 0 ] || t_fail "-g 0 -o: exit $RC: $(tail -n 3 "$T/g0.err")"
grep -q 'using ibsim0 port 1' "$T/g0.err" || t_fail "-g 0: not on the local port"
if grep -q 'Enter choice' "$T/g0.out"; then t_fail "-g 0 asked with one port"; fi

t_step "-once, -f stdout, -f -"
for f in stdout -; do
	once "f$f" -once -f "$f" -dump_files_dir "$T/d1"
	[ $RC -eq 0 ] || t_fail "-once -f $f: exit $RC"
	grep -q 'subnet up, exiting (-o)' "$T/f$f.out" || t_fail "-f $f: the log is not on stdout"
	[ ! -e "$T/run/$f" ] || t_fail "-f $f made a file named $f"
	[ ! -s "$T/f$f.err" ] || t_fail "-f $f: the log went to stderr too"
done

t_step "-V: maximum verbosity, the table dumps written"
once V -o -V --dump_files_dir "$T/dV"
[ $RC -eq 0 ] || t_fail "-o -V: exit $RC"
grep -q '\[debug\]' "$T/V.err" || t_fail "-V: no debug lines"
[ -s "$T/dV/opensm-lfts.dump" ] || t_fail "-V: no opensm-lfts.dump (log_flags 0x40)"
grep -q "ibsmd $(sed -n 's/^#define PACKAGE_VERSION "\(.*\)"/\1/p' "$top_builddir/config.h")" \
	"$T/V.out" "$T/V.err" && t_fail "-V printed the version"

t_step "-J refused, --pidfile, --version; a reload keeps the port -g 0 took, unremarked"
once J -o -J "$T/pid"
[ $RC -eq 2 ] || t_fail "-J: exit $RC, want 2 (OpenSM 3.3.23 refuses it too)"
sm_start --pidfile "$T/pid" -g 0
sm_wait_up 60
kill -HUP "$SM_PID"
wait_log "$SM_LOG" 'reload: [0-9]+ keys changed' 10
if grep -q 'guid: needs a restart' "$SM_LOG"; then t_fail "-g 0: a reload says the port changed"; fi
[ "$(cat "$T/pid" 2>/dev/null)" = "$SM_PID" ] || t_fail "--pidfile: $(cat "$T/pid" 2>/dev/null), want $SM_PID"
sm_stop
[ ! -e "$T/pid" ] || t_fail "--pidfile: left at exit"
"$IBSMD" --version >"$T/version.out" || t_fail "--version: exit $?"
grep -q '^ibsmd ' "$T/version.out" || t_fail "--version: $(cat "$T/version.out")"

t_info "ok"
exit 0
