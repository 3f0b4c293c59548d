#!/bin/bash
# Abuse of the status socket (fat tree k=4, light sweep every second): for 20 s, abuser.py keeps
# about 1,000 bad clients connected (silent ones, slowloris, garbage, wrong argument types,
# subscribers that never read while others flood events with reroutes and heavy sweeps, clients
# that close without reading). Meanwhile:
# - a well-behaved `ibsmctl status` keeps answering, and a reading subscriber (`ibsmctl watch`)
#   is never dropped and sees the sweeps' events all along;
# - sweeps keep coming (light ones, or the heavy ones abusers ask for, which do what a light one
#   does and more: their count rises in every third of the abuse);
# - user nobody still reads, and gets permission_denied for sweep, reload and loglevel;
# - every garbage request gets a JSON error, every wrong-typed argument an answer (never
#   "internal"), slowloris clients a "timeout", non-reading subscribers are dropped;
# then 1,100 silent clients at once: the longest idle are evicted to make room and `ibsmctl
# status` is still answered; afterwards the daemon's descriptors are back to their count before
# the abuse and its RSS has not grown by more than 64 MiB (512 MiB under ASan, whose quarantine
# keeps freed memory). The daemon starts with a soft descriptor limit of 256 and a hard one of
# 1024, and must raise the soft one (1024 also keeps its descriptors below umad2sim's fake ones,
# from 1024 up, whose close() umad2sim swallows).
. "$(dirname "$0")/lib.sh"
sim_init
[ "$SM" = ibsmd ] || t_skip "the status socket is ibsmd's"
NET=$FABRICS/fattree-k4.net
ABUSER=$SIM_LIB_DIR/abuser.py
SECONDS_ABUSE=20

nobody_init

sm_fds() { find "/proc/$SM_PID/fd" -mindepth 1 -maxdepth 1 2>/dev/null | wc -l; }
sm_rss_kib() { awk '/^VmRSS:/ { print $2 }' "/proc/$SM_PID/status"; }
connected() { sm_ctl_get result.clients.connected status; }

cat >"$T/abuse.conf" <<EOF
socket_mode 0666
socket_max_clients 1012
socket_idle_timeout 5
socket_request_timeout 3
socket_max_output 262144
EOF
[ "$(id -u)" = 0 ] || printf 'socket_group %s\n' "$(id -g)" >>"$T/abuse.conf"
cat >"$T/ibsmd-limited" <<EOF
#!/bin/sh
ulimit -Sn 256 && ulimit -Hn 1024 || exit 77
exec "$IBSMD" "\$@"
EOF
chmod 755 "$T/ibsmd-limited"
IBSMD=$T/ibsmd-limited

t_step "daemon on $(basename "$NET"), descriptors soft 256 hard 1024"
sim_start "$NET"
sm_start -F "$T/abuse.conf" -s 1
sm_wait_up 30
limits=$(awk '/^Max open files/ { print $4, $5 }' "/proc/$SM_PID/limits")
[ "$limits" = "1024 1024" ] || t_fail "descriptor limits of the daemon: $limits, want 1024 1024"
grep -q 'descriptor limit raised from 256 to 1024' "$SM_LOG" ||
	t_fail "no 'descriptor limit raised' in the log"
t_info "soft descriptor limit raised to the hard one (1024)"

t_step "every command with arguments of the wrong types"
out=$("$PYTHON" "$ABUSER" types "$SM_SOCK" 2>&1) || t_fail "$out"
t_info "$out"
sm_alive || t_fail "the daemon died on wrong argument types"

# the baseline: no client but the one asking
for ((i = 0; i < 50; i++)); do
	[ "$(connected)" = 1 ] && break
	sleep 0.1
done
FD0=$(sm_fds)
RSS0=$(sm_rss_kib)
t_info "baseline: $FD0 descriptors, RSS $RSS0 KiB"

t_step "abuse for ${SECONDS_ABUSE}s: about 1,000 bad clients"
timeout -k 5 $((SECONDS_ABUSE + 60)) "$PYTHON" "$ABUSER" abuse "$SM_SOCK" \
	--seconds "$SECONDS_ABUSE" --json "$T/abuse.json" >"$T/abuse.out" 2>"$T/abuse.log" &
AB=$!
(exec timeout -k 2 $((SECONDS_ABUSE + 40)) "$IBSMCTL" -S "$SM_SOCK" watch --json \
	>"$T/watch.json" 2>"$T/watch.err") &
W=$!
t0=$SECONDS
probes=0 slowest=0 peak=0 nobody_done=0
: >"$T/sweeps.samples"
while _running $AB; do
	t1=$(date +%s%N)
	sm_ctl --json status >"$T/status.json" 2>&1 ||
		t_fail "ibsmctl status failed under abuse: $(head -c 300 "$T/status.json")"
	ms=$((($(date +%s%N) - t1) / 1000000))
	probes=$((probes + 1))
	[ $ms -gt $slowest ] && slowest=$ms
	read -r nsweeps conn < <("$PYTHON" -c 'import json, sys
r = json.load(open(sys.argv[1]))["result"]
print(r["sweeps"]["light"] + r["sweeps"]["heavy"], r["clients"]["connected"])' "$T/status.json") ||
		t_fail "status reply: $(head -c 300 "$T/status.json")"
	echo "$((SECONDS - t0)) $nsweeps" >>"$T/sweeps.samples"
	[ "$conn" -gt "$peak" ] && peak=$conn
	if [ $NOBODY = 1 ] && [ $nobody_done = 0 ] && [ $((SECONDS - t0)) -ge 8 ]; then
		NCTL=("$T/bin/ibsmctl" -S "$SM_SOCK")
		expect_rc 0 as_nobody "${NCTL[@]}" status
		expect_rc 0 as_nobody "${NCTL[@]}" --json nodes
		for a in "sweep" "reload" "loglevel debug"; do
			# shellcheck disable=SC2086
			expect_rc 1 as_nobody "${NCTL[@]}" --json $a
			grep -q '"code": "permission_denied"' "$T/rc.out" ||
				t_fail "$a as nobody under abuse: $(head -c 300 "$T/rc.out")"
		done
		nobody_done=1
		t_info "under abuse, nobody reads, and sweep/reload/loglevel are refused"
	fi
	sleep 0.5
done
wait $AB
rc=$?
cat "$T/abuse.out"
[ $rc -eq 0 ] || t_fail "abuser exit $rc: $(head -c 1500 "$T/abuse.log")"
t_info "$probes status probes answered during the abuse, slowest ${slowest} ms;" \
	"$peak clients connected at the peak, $(sm_ctl_get result.clients.evicted status) evicted"
sm_alive || t_fail "the daemon died under abuse"
[ "$peak" -ge 900 ] || t_fail "only $peak clients connected at the peak, want about 1,000"
"$PYTHON" - "$T/abuse.json" <<'EOF' || t_fail "the abuse did not do what it should"
import json, sys
st = json.load(open(sys.argv[1]))["stats"]
want = {"slowloris clients timed out": st["slow_timeouts"],
        "idle clients closed": st.get("idle_closed", 0),
        "non-reading subscribers dropped": st.get("subs_dropped", 0) + st.get("flood_dropped", 0),
        "garbage answered": st["garbage_answered"],
        "wrong types answered": st["types_answered"]}
bad = [k for k, v in want.items() if v <= 0]
if bad:
    sys.exit(f"none: {', '.join(bad)}: {st}")
EOF
[ $nobody_done = 1 ] || [ $NOBODY = 0 ] || t_fail "the nobody checks did not run"

t_step "sweeps went on, and the reading subscriber kept up"
"$PYTHON" - "$T/sweeps.samples" "$SECONDS_ABUSE" <<'EOF' || t_fail "sweeps stalled under abuse"
import sys
s = [tuple(map(int, l.split())) for l in open(sys.argv[1]) if l.strip()]
dur = int(sys.argv[2])
# loosely: the count rose within each third of the abuse (the schedule is one a second)
for k in range(3):
    lo, hi = k * dur // 3, (k + 1) * dur // 3
    inside = [n for t, n in s if lo <= t <= hi + 1]
    before = [n for t, n in s if t < lo] or inside[:1]
    if not inside or max(inside) <= max(before):
        sys.exit(f"no sweep between {lo} s and {hi} s of the abuse: {s}")
print(f"sweeps (light and heavy): {s[0][1]} -> {s[-1][1]} over {s[-1][0]} s of abuse")
EOF
_running $W || t_fail "the reading subscriber was dropped: $(cat "$T/watch.err")"
kill_wait $W
"$PYTHON" - "$T/watch.json" <<'EOF' || t_fail "the reading subscriber's events"
import json, sys
ev = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
sweeps = [e["time_ms"] for e in ev if e["event"] == "sweep"]
if len(sweeps) < 2:
    sys.exit(f"{len(ev)} events, {len(sweeps)} sweep events")
print(f"watch: {len(ev)} events, {len(sweeps)} heavy sweeps over "
      f"{(sweeps[-1] - sweeps[0]) / 1000:.1f} s")
EOF

t_step "more silent clients than the socket holds: the longest idle make room"
ev0=$(sm_ctl_get result.clients.evicted status) || t_fail "status failed"
timeout -k 5 60 "$PYTHON" "$ABUSER" abuse "$SM_SOCK" --seconds 6 --mix idle=1100 \
	>"$T/over.out" 2>&1 &
AB=$!
sleep 3
for ((i = 0; i < 5; i++)); do
	sm_ctl status >"$T/rc.out" 2>&1 || t_fail "ibsmctl status with the socket full: $(cat "$T/rc.out")"
done
wait $AB || t_fail "abuser: $(cat "$T/over.out")"
ev1=$(sm_ctl_get result.clients.evicted status) || t_fail "status failed"
[ "$ev1" -gt "$ev0" ] || t_fail "nobody evicted with 1,100 silent clients"
t_info "$(cat "$T/over.out"); $((ev1 - ev0)) evicted; status answered throughout"

t_step "no descriptor or memory left behind"
for ((i = 0; i < 100; i++)); do
	[ "$(connected)" = 1 ] && break
	sleep 0.1
done
[ "$(connected)" = 1 ] || t_fail "clients still connected after the abuse: $(connected)"
for ((i = 0; i < 50; i++)); do
	[ "$(sm_fds)" -eq "$FD0" ] && break
	sleep 0.1
done
FD1=$(sm_fds)
RSS1=$(sm_rss_kib)
[ "$FD1" -eq "$FD0" ] || t_fail "descriptors: $FD0 before the abuse, $FD1 after"
# under ASan freed memory waits in its quarantine (256 MiB by default)
RSS_BOUND=65536
grep -q libasan "/proc/$SM_PID/maps" && RSS_BOUND=$((512 * 1024))
[ "$RSS1" -le $((RSS0 + RSS_BOUND)) ] || t_fail "RSS grew from $RSS0 to $RSS1 KiB"
t_info "descriptors $FD0 -> $FD1, RSS $RSS0 -> $RSS1 KiB"
t_sm_sweeping "after the abuse"
sm_stop
[ "$SM_RC" -eq 0 ] || t_fail "ibsmd exit $SM_RC on SIGTERM"
t_step "pass"
