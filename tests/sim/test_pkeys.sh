#!/bin/bash
# Partitions on a live fabric (fat tree k=4), ibsmd -F CONF with partition_config_file:
# (a) a partitions.conf with port GUID members, full and limited, defmember, ALL_CAS,
#     ALL_SWITCHES: `smpquery pkeys` shows on every CA port, on every switch's port 0 and
#     on the switch external ports facing CAs the P_Keys each should hold, full bit right,
#     none twice; `ibsmctl partitions` counts the members;
# (b) `sminfo` agrees with `ibsmctl status`: LID, GUID, priority, state MASTER;
# (c) SIGHUP and `ibsmctl reload` with a bad partitions file: rejected, the log and the
#     reply name file:line, every table stays as it was, the daemon sweeps on;
# (d) `ibsmctl reload` with a good new file: the tables are reprogrammed (keys that went
#     are gone, new ones are there, memberships changed); the IPoIB broadcast group of the
#     partition that went (joined by a host before) is gone, its MLID free again.
# ibsim keeps no PortInfo PartitionEnforcementInbound/Outbound bits (its PortInfo Set takes
# LID, SMLID, LMC, HOQLife, states and OperVLs only): they cannot be checked here.
# shellcheck disable=SC1091,SC2086,SC2015  # host lists split on purpose; A && B || fail
. "$(dirname "$0")/lib.sh"
sim_init
[ "$SM" = ibsmd ] || t_skip "ibsmd's partitions and reload"
MCTOOL=$SIM_LIB_DIR/mctool.py
NET=$FABRICS/fattree-k4.net
CONF=$T/ibsmd.conf
PART=$T/partitions.conf
LOG=$T/ibsmd.log
PRIO=5
: "${SA_CLIENT:=$top_builddir/tests/tools/sa_client}"
[ -x "$SA_CLIENT" ] || t_skip "$SA_CLIENT not built"
CBCAST=ff12:401b:8020::ffff:ffff # partition compute's IPoIB broadcast group

mct() { "$PYTHON" "$MCTOOL" "$@"; }
# the named hosts
HA=pod1-edge1-host1 # the SM's
HB=pod1-edge1-host2
HC=pod2-edge2-host1
HD=pod3-edge1-host2

# want VERSION NAME: the P_Keys NAME (a CA, or "switch": every switch's port 0) should
# hold with version VERSION of the file ($T/want.VERSION; CAs not named there: "other")
want() {
	awk -v n="$2" '$1 == n { $1 = ""; sub(/^ /, ""); print; f = 1; exit }
		$1 == "other" { o = $0; sub(/^other /, "", o) }
		END { if (!f) print o }' "$T/want.$1"
}
# smp_pkeys FILE LID [PORT]: `smpquery pkeys` into FILE (retried: the diags crash now and
# then on ibsim)
smp_pkeys() {
	local f=$1
	shift
	for _ in 1 2 3; do
		sim_run smpquery pkeys "$@" >"$f" && return 0
	done
	return 1
}
# check_tables VERSION: every CA port, every switch's port 0 and every switch port facing a
# CA (it holds the CA's keys: enforcement) holds what want says; smpquery all, then check
check_tables() {
	local v=$1 name lid sw port peer i=0
	rm -rf "$T/pk"
	mkdir -p "$T/pk"
	: >"$T/pk/list"
	while read -r name lid; do
		i=$((i + 1))
		smp_pkeys "$T/pk/$i" "$lid" || { echo "smpquery pkeys $lid failed"; return 1; }
		printf '%s\t%s\t%s\n' "$name (lid $lid)" "$T/pk/$i" "$(want "$v" "$name")" >>"$T/pk/list"
	done <"$T/cas"
	while read -r lid sw; do
		i=$((i + 1))
		smp_pkeys "$T/pk/$i" "$lid" 0 || { echo "smpquery pkeys $lid 0 failed"; return 1; }
		printf '%s\t%s\t%s\n' "$sw port 0" "$T/pk/$i" "$(want "$v" switch)" >>"$T/pk/list"
	done <"$T/switches"
	while read -r sw lid port peer; do
		i=$((i + 1))
		smp_pkeys "$T/pk/$i" "$lid" "$port" ||
			{ echo "smpquery pkeys $lid $port failed"; return 1; }
		printf '%s\t%s\t%s\n' "$sw port $port (to $peer)" "$T/pk/$i" "$(want "$v" "$peer")" \
			>>"$T/pk/list"
	done <"$T/edges"
	mct pkeys-check "$T/pk/list" 2>&1
}
t_tables() {
	local out
	out=$(check_tables "$1") || t_fail "$out"
	t_info "$out"
}
# wait_tables VERSION SEC: until the tables are right (a reload's sweep is on its way)
wait_tables() {
	local i out
	for ((i = 0; i < $2 * 2; i++)); do
		out=$(check_tables "$1") && { t_info "$out"; return 0; }
		sleep 0.5
	done
	t_fail "tables not reprogrammed after $2 s: $out"
}
# mc_group MGID: "MLID MEMBERS" of the group, nothing when there is none; mlids: in use
mc_group() {
	sm_ctl --json multicast | "$PYTHON" -c 'import json, sys
for g in json.load(sys.stdin)["result"]["groups"]:
    if g["mgid"] == sys.argv[1]:
        print(g["mlid"], g["members"])' "$1"
}

t_step "fabric, the GUIDs of the hosts"
sim_start "$NET"
sim_run ibnetdiscover >"$T/ibnd0" || t_fail "ibnetdiscover failed"
read -r GA GB GC GD <<<"$(mct port-guid "$T/ibnd0" $HA $HB $HC $HD | tr '\n' ' ')" ||
	t_fail "no GUIDs"
t_info "$HA $GA, $HB $GB, $HC $GC, $HD $GD"

cat >"$PART" <<EOF
# test_pkeys.sh, version 1
Default=0x7fff, ipoib : ALL=full ;
storage=0x0010, ipoib, defmember=full : $GA, $GB=limited, ALL_SWITCHES ;
compute=0x0020, ipoib, defmember=limited : ALL_CAS, $GC=full ;
admin=0x0030 : $GD=full,
	$GA ;
EOF
cat >"$T/want.1" <<EOF
$HA 0x0020 0x0030 0x8010 0xffff
$HB 0x0010 0x0020 0xffff
$HC 0x8020 0xffff
$HD 0x0020 0x8030 0xffff
other 0x0020 0xffff
switch 0x8010 0xffff
EOF
cat >"$CONF" <<EOF
partition_config_file $PART
sm_priority $PRIO
sweep_interval 1
EOF
# not root: our group may act on the socket (reload)
[ "$(id -u)" = 0 ] || printf 'socket_group %s\n' "$(id -g)" >>"$CONF"

t_step "(a) ibsmd programs the P_Key tables"
sm_start -F "$CONF" -f "$LOG"
sm_wait_up 30
sim_run ibnetdiscover >"$T/ibnd" || t_fail "ibnetdiscover failed"
mct switch-lids "$T/ibnd" >"$T/switches" || t_fail "no switches"
mct ca-names "$T/ibnd" | while read -r n; do echo "$n $(mct lid "$T/ibnd" "$n")"; done >"$T/cas"
[ "$(wc -l <"$T/cas")" = 16 ] || t_fail "$(wc -l <"$T/cas") CAs, want 16"
# switch ports that face a CA: "SWITCH LID PORT CA"
awk '/^Switch/ { sw = $0; sub(/.*# "/, "", sw); sub(/".*/, "", sw)
		lid = $0; sub(/.* lid /, "", lid); sub(/ .*/, "", lid); next }
	/^$/ { sw = "" }
	sw != "" && /"H-/ { p = $1; gsub(/[][]/, "", p); ca = $0; sub(/.*# "/, "", ca)
		sub(/".*/, "", ca); print sw, lid, p, ca }' "$T/ibnd" >"$T/edges"
[ "$(wc -l <"$T/edges")" = 16 ] || t_fail "$(wc -l <"$T/edges") switch ports face CAs, want 16"
t_tables 1
sm_ctl --json partitions >"$T/parts.json" || t_fail "partitions view failed"
"$PYTHON" - "$T/parts.json" "$PART" <<'EOF' || t_fail "partitions view is wrong"
import json, sys
v = json.load(open(sys.argv[1]))["result"]
assert v["file"] == sys.argv[2], v["file"]
got = {p["pkey"]: (p["name"], p["members"]["full"], p["members"]["limited"], p["line"])
       for p in v["partitions"]}
# 16 CAs + 20 switches; storage: A full, B limited, 20 switches full; compute: C full,
# 15 limited; admin: D full, A limited
want = {"0x7fff": ("Default", 36, 0, 2), "0x0010": ("storage", 21, 1, 3),
        "0x0020": ("compute", 1, 15, 4), "0x0030": ("admin", 1, 1, 5)}
if got != want:
    sys.exit(f"partitions: {got}, want {want}")
EOF
sm_ctl partitions >"$T/parts.txt" || t_fail "ibsmctl partitions failed"
grep -Eq '^storage +0x0010 +yes +21 +1 +3$' "$T/parts.txt" ||
	t_fail "ibsmctl partitions: no line for storage: $(cat "$T/parts.txt")"
t_info "ibsmctl partitions: 4 partitions, members counted"
SIM_HOST=$HC sim_client "$SA_CLIENT" -t 3000 join $CBCAST >>"$T/sac.out" ||
	t_fail "$HC cannot join $CBCAST: $(tail -n 2 "$T/clients.log")"
read -r cmlid cmem <<<"$(mc_group $CBCAST)"
[ "$cmem" = 1 ] || t_fail "$CBCAST: '$cmem' members, want 1"
mlids1=$(sm_ctl_get result.mlids_in_use multicast) || t_fail "multicast view failed"
t_info "$HC joined $CBCAST (mlid $(printf 0x%04x "$cmlid")); $mlids1 MLIDs in use"

t_step "(b) sminfo agrees with ibsmctl status"
sm_check_issm || t_fail "ibsmd is not IsSM in ibsim: sminfo cannot ask it"
sim_run sminfo >"$T/sminfo.out" || t_fail "sminfo failed"
read -r smlid smguid smprio smstate < <(sed -n \
	's/.*sm lid \([0-9]*\) sm guid \(0x[0-9a-f]*\), activity count [0-9]* priority \([0-9]*\) state \([0-9]*\).*/\1 \2 \3 \4/p' \
	"$T/sminfo.out")
[ -n "$smlid" ] || t_fail "cannot read sminfo: $(cat "$T/sminfo.out")"
sm_ctl --json status >"$T/status.json" || t_fail "status failed"
read -r clid cguid cprio cstate < <("$PYTHON" -c 'import json, sys
s = json.load(open(sys.argv[1]))["result"]["sm"]
print(s["lid"], s["guid"], s["priority"], s["state"])' "$T/status.json")
[ "$smlid" = "$clid" ] || t_fail "sminfo lid $smlid, ibsmctl $clid"
[ $((smguid)) = $((cguid)) ] || t_fail "sminfo guid $smguid, ibsmctl $cguid"
[ $((smguid)) = $((GA)) ] || t_fail "sminfo guid $smguid, the SM's port is $GA"
[ "$smprio" = "$cprio" ] && [ "$smprio" = $PRIO ] || t_fail "priority: sminfo $smprio, ibsmctl $cprio, want $PRIO"
[ "$smstate" = 3 ] && [ "$cstate" = master ] || t_fail "state: sminfo $smstate, ibsmctl $cstate"
grep -q SMINFO_MASTER "$T/sminfo.out" || t_fail "sminfo: not SMINFO_MASTER"
t_info "lid $smlid guid $smguid priority $smprio MASTER on both"

t_step "(c) a bad partitions file: SIGHUP and ibsmctl reload keep the old tables"
cat >"$PART" <<EOF
# test_pkeys.sh, a bad one
Default=0x7fff, ipoib : ALL=full ;
storage=0x0010 : $GA ;
other=0x0010 : $GB ;
compute=0x0020 : ALL_CAS=sometimes ;
admin=0x0030, nosuchflag : $GD ;
lab=0x0040 : $GC
EOF
kill -HUP "$SM_PID"
wait_log "$LOG" 'reload: configuration rejected'
for line in 4 5 6 7; do
	grep -q "reload: $PART:$line: " "$LOG" || t_fail "the log does not name $PART:$line"
done
t_info "rejected; the log names $PART:4 (a P_Key under two names), :5 (membership), :6 (flag), :7 (no ';')"
sm_ctl --json reload >"$T/reload.json"
rc=$?
[ $rc -eq 1 ] || t_fail "reload exit $rc, want 1: $(cat "$T/reload.json")"
grep -q '"reload_failed"' "$T/reload.json" || t_fail "no reload_failed: $(cat "$T/reload.json")"
grep -q "$PART:4: " "$T/reload.json" || t_fail "the reply does not name $PART:4: $(cat "$T/reload.json")"
sm_alive || t_fail "ibsmd died on a bad partitions file"
[ "$(sm_ctl_get result.file partitions)" = "$PART" ] || t_fail "partitions file changed"
[ "$(sm_ctl_get result.smps.loads partitions)" = 1 ] || t_fail "a bad file was loaded"
t_sm_sweeping "after the rejected reloads"
# a heavy sweep with the old partitions changes nothing either
heavy=$(sm_ctl_get result.sweeps.heavy status) || t_fail "status failed"
sm_ctl sweep >/dev/null || t_fail "sweep failed"
for ((i = 0; i < 100; i++)); do
	[ "$(sm_ctl_get result.sweeps.heavy status)" -gt "$heavy" ] &&
		[ "$(sm_ctl_get result.sweeps.running status)" = False ] && break
	sleep 0.1
done
[ "$(sm_ctl_get result.sweeps.heavy status)" -gt "$heavy" ] || t_fail "no heavy sweep in 10 s"
t_tables 1
[ "$(mc_group $CBCAST)" = "$cmlid 1" ] || t_fail "$CBCAST changed by a rejected reload"
t_info "old tables kept, $CBCAST too"

t_step "(d) a good new file: ibsmctl reload reprograms"
cat >"$PART" <<EOF
# test_pkeys.sh, version 2
Default=0x7fff, ipoib : ALL=full ;
storage=0x0010, ipoib, defmember=full : $GA, $GB, ALL_SWITCHES ;
admin=0x0030 : $GA=full ;
lab=0x0040 : $GD=full, $GC=limited ;
EOF
cat >"$T/want.2" <<EOF
$HA 0x8010 0x8030 0xffff
$HB 0x8010 0xffff
$HC 0x0040 0xffff
$HD 0x8040 0xffff
other 0xffff
switch 0x8010 0xffff
EOF
sm_ctl --json reload >"$T/reload2.json" || t_fail "reload failed: $(cat "$T/reload2.json")"
wait_tables 2 20
[ "$(sm_ctl_get result.smps.loads partitions)" = 2 ] || t_fail "the new file not counted"
[ "$(sm_ctl_get result.partitions.3.name partitions)" = lab ] || t_fail "no partition lab"
for ((i = 0; i < 50; i++)); do
	[ -z "$(mc_group $CBCAST)" ] && break
	sleep 0.2
done
[ -z "$(mc_group $CBCAST)" ] || t_fail "$CBCAST still there after compute went: $(mc_group $CBCAST)"
mlids2=$(sm_ctl_get result.mlids_in_use multicast) || t_fail "multicast view failed"
[ "$mlids2" -eq $((mlids1 - 1)) ] || t_fail "$mlids2 MLIDs in use after the reload, want $((mlids1 - 1))"
t_info "$CBCAST gone with partition compute (its member left), $mlids2 MLIDs in use"
sm_alive || t_fail "ibsmd died"
sm_stop
[ "$SM_RC" -eq 0 ] || t_fail "ibsmd exit $SM_RC on SIGTERM (want 0)"
t_step "pass"
