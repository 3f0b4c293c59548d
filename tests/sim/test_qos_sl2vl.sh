#!/bin/bash
# QoS tables, ibsmd against OpenSM 3.3.23: one opensm.conf with `qos TRUE` and the QoS keys (the
# general qos_* ones, then per-class variants _ca, _sw0, _swe, _rtr, then junk values OpenSM
# reads its own way, then OpenSM's defaults), the same fresh ibsim fabric brought up once by
# OpenSM and once by ibsmd, and every port's SL2VL table (every input port of every switch
# output port), both VL arbitration tables and the PortInfo VL fields read back with smpquery
# after each: the two readings must be equal. S1 has an enhanced port 0 (its own class, sw0),
# S2 a base port 0 (no tables); switch ports without a cable get no tables from either SM.
#
# ibsim keeps no VLHighLimit (it answers 0 whatever was set): tests/unit/test_qos_tables.c
# checks it on the fake fabric.
#
# The "masked" case sets max_op_vls 3, so both SMs mask the tables' VLs by ports operating
# VL0-3. There OpenSM is read after its second heavy sweep (a SIGHUP starts one): its first
# writes the tables of switch ports before it lowers their OperationalVLs (osm_qos_setup runs
# before the link manager's Sets), masked for the VLs they operated when discovered, and only
# its next heavy sweep writes them masked for VL0-3, the tables ibsmd writes at once (its qos
# phase runs after the configure phase). The last
# case, QoS off, checks that ibsmd sends no QoS table at all (the tables stay ibsim's).
# Before it, ibsmd as a daemon: `ibsmctl qos`, saquery SL2VL and VLAR of a CA port, and a
# SIGHUP that changes a QoS key, after which every table is sent again.
. "$(dirname "$0")/lib.sh"
sim_init
command -v opensm >/dev/null || t_skip "opensm not installed"
# shellcheck disable=SC2034 # read by lib.sh
SIM_TIMEOUT=20

NET=$T/qos.net
cat >"$NET" <<'NETEOF'
Hca	2 "H1"
[1]	"S1"[1]

Hca	2 "H2"
[1]	"S1"[2]

Hca	2 "H3"
[1]	"S2"[1]

Switch	6 "S1" # "S1" enhanced port 0
[1]	"H1"[1]
[2]	"H2"[1]
[3]	"S2"[3]
[5]	"S2"[5]

Switch	6 "S2" # "S2" base port 0
[1]	"H3"[1]
[3]	"S1"[3]
[5]	"S1"[5]
NETEOF

CAS="0:1 0,1,2:1 0,1,3,1:1"
SWITCHES="0,1 0,1,3"
NSWPORTS=6

# read_all FILE: SL2VL, VLArb and the PortInfo VL fields of every port
read_all() {
	local out=$1 e path port p
	: >"$out"
	for e in $CAS; do
		path=${e%%:*} port=${e##*:}
		read_port "$out" "$path" "$port"
	done
	for path in $SWITCHES; do
		for ((p = 0; p <= NSWPORTS; p++)); do
			read_port "$out" "$path" "$p"
		done
	done
}

# read_port FILE PATH PORT
read_port() {
	local out=$1 path=$2 port=$3
	read_one "$out" sl2vl "$path" "$port"
	read_one "$out" vlarb "$path" "$port"
	read_one "$out" pi "$path" "$port"
	grep -E '^(pi .*(VLHighLimit|OperVLs|VLArbHighCap|VLArbLowCap|VLCap):|sl2vl|vlarb)' \
		"$out.tmp" >>"$out"
	rm -f "$out.tmp"
}

# read_one FILE OP PATH PORT: one smpquery, its lines prefixed with "OP PATH PORT"
read_one() {
	local out=$1 op=$2 path=$3 port=$4 raw=$T/smpquery.out i
	for ((i = 0; i < 3; i++)); do
		sim_client smpquery -t 2000 -D "$op" "$path" "$port" >"$raw" 2>&1 && break
	done
	[ $i = 3 ] && echo "failed" >"$raw"
	grep -v '^#' "$raw" | sed 's/:\.*/:/; s/[[:space:]]\+/ /g' | sed "s/^/$op $path $port /" \
		>>"$out.tmp"
}

# bring_up NAME WHICH CONF [resweep]: fresh ibsim, WHICH (opensm|ibsmd) -o with CONF, the ports
# read into $T/NAME.txt; resweep: OpenSM as a daemon, read after the heavy sweep a SIGHUP starts
bring_up() {
	local name=$1 which=$2 conf=$3 mode=${4:-once} i
	sim_stop
	sim_clear_cache
	sim_start "$NET"
	printf 'force_log_flush TRUE\n%s\n' "$conf" >"$T/osm.conf"
	if [ "$mode" = resweep ] && [ "$which" = opensm ]; then
		SM=opensm sm_start
		SM=opensm sm_wait_up
		kill -HUP "$SM_PID"
		# every heavy sweep ends with a SUBNET UP line: the second is the SIGHUP's
		for ((i = 0; i < 200; i++)); do
			[ "$(grep -c 'SUBNET UP' "$SM_LOG")" -ge 2 ] && break
			sleep 0.1
		done
		[ $i = 200 ] && t_fail "opensm: no heavy sweep after SIGHUP (log $SM_LOG)"
		read_all "$T/$name.txt"
		SM=opensm sm_stop
	else
		SM=$which sm_once -F "$T/osm.conf"
		[ "$SM_RC" = 0 ] || t_fail "$which -o exit $SM_RC (log $SM_LOG)"
		read_all "$T/$name.txt"
	fi
	t_info "$which: $(wc -l <"$T/$name.txt") lines read back"
}

compare() {
	local what=$1
	if ! diff -u "$T/osm-$what.txt" "$T/ibsmd-$what.txt" >"$T/diff-$what.txt"; then
		t_fail "$what: ibsmd's QoS tables differ from OpenSM's:
$(grep '^[-+][^-+]' "$T/diff-$what.txt" | head -40)"
	fi
	t_info "$what: $(wc -l <"$T/osm-$what.txt") lines equal"
}

run_case() {
	local what=$1 conf=$2 mode=${3:-once}
	t_step "$what: OpenSM, then ibsmd"
	bring_up "osm-$what" opensm "$conf" "$mode"
	[ -n "${QOS_KEEP:-}" ] && cp "$T/osm-$what.txt" "$QOS_KEEP/osm-$what.txt"
	[ "$SM" = opensm ] && return 0
	bring_up "ibsmd-$what" ibsmd "$conf"
	compare "$what"
}

run_case general '
qos TRUE
qos_high_limit 7
qos_vlarb_high 0:10,1:20,2:30,3:40
qos_vlarb_low 0:1,1:2,2:3,3:4,4:5,5:6,6:7,7:8,8:9
qos_sl2vl 0,1,2,3,4,5,6,7,0,1,2,3,4,5,6,15
'
run_case classes '
qos TRUE
qos_high_limit 3
qos_ca_high_limit 9
qos_ca_sl2vl 1,1,1,1,2,2,2,2,3,3,3,3,4,4,4,4
qos_ca_vlarb_low 0:32,1:16
qos_sw0_sl2vl 3,2,1,0,3,2,1,0,3,2,1,0,3,2,1,0
qos_sw0_vlarb_high 1:200
qos_swe_sl2vl 7,6,5,4,3,2,1,0,7,6,5,4,3,2,1,0
qos_swe_vlarb_low 2:1,3:2,4:3,5:4,6:5,7:6
qos_swe_high_limit 12
qos_rtr_sl2vl 0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0
'
run_case junk '
qos TRUE
qos_sl2vl 0,1,x,3,4,17,6,7,8,9,10,11,12,13,14,15,3,3
qos_vlarb_high 0:4,15:3,x:2,5,0x3:0x10,-1:300
qos_vlarb_low 1;9,2:8 3:7
qos_high_limit 300
'
run_case defaults '
qos TRUE
'
run_case masked '
qos TRUE
max_op_vls 3
qos_sl2vl 0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15
qos_vlarb_low 0:1,1:2,2:3,3:4,4:5,5:6,6:7,7:8
qos_vlarb_high 4:9,5:10,6:11,7:12
' resweep
# VL 15 stays 15, VL 5 -> 1 on a port operating VL0-3
grep -q '^sl2vl 0,1 1 ports: in 0, out 1: | 0| 1| 2| 3| 0| 1| 2| 3| 0| 1| 2| 3| 0| 1| 2|15|$' \
	"$T/ibsmd-masked.txt" || t_fail "masked: leaf table not masked for VL0-3"

if [ "$SM" = ibsmd ]; then
	t_step "the daemon: ibsmctl qos, and a SIGHUP that changes a QoS key"
	sim_stop
	sim_clear_cache
	sim_start "$NET"
	printf 'qos TRUE\nqos_ca_sl2vl 1,1,1,1,2,2,2,2,3,3,3,3,4,4,4,4\n' >"$T/osm.conf"
	sm_start -F "$T/osm.conf"
	sm_wait_up
	sm_ctl --json qos >"$T/qos.json" || t_fail "ibsmctl qos failed"
	"$PYTHON" - "$T/qos.json" <<'PYEOF' || t_fail "qos view: $(cat "$T/qos.json")"
import json, sys
v = json.load(open(sys.argv[1]))["result"]
ca = [c for c in v["classes"] if c["class"] == "ca"][0]
assert v["enabled"] is True and v["policy"]["state"] == "none", v
assert ca["sl2vl"] == "1,1,1,1,2,2,2,2,3,3,3,3,4,4,4,4", ca
assert v["differ_count"] == 0 and v["refused_count"] == 0, v
assert v["smps"]["sl2vl_sets"] > 0 and v["smps"]["vlarb_sets"] > 0, v
PYEOF
	sm_ctl qos >"$T/qos.txt" || t_fail "ibsmctl qos (text) failed"
	grep -q '^QoS yes' "$T/qos.txt" || t_fail "ibsmctl qos: $(head -3 "$T/qos.txt")"
	grep -q '1,1,1,1,2,2,2,2,3,3,3,3,4,4,4,4' "$T/qos.txt" || t_fail "ibsmctl qos: no CA table"
	# the SA answers what was programmed: H1's SL2VL and VLArb blocks 1 and 3 (caps 8, 8)
	lid=$(sim_client smpquery -D pi 0 1 | sed -n 's/^Lid:\.*//p')
	sim_client saquery SL2VL "$lid" >"$T/sl2vl.sq" || t_fail "saquery SL2VL $lid failed"
	grep -q 'VL: 1| 1| 1| 1| 2| 2| 2| 2| 3| 3| 3| 3| 4| 4| 4| 4|' "$T/sl2vl.sq" ||
		t_fail "saquery SL2VL: $(cat "$T/sl2vl.sq")"
	sim_client saquery VLAR "$lid" >"$T/vlar.sq" || t_fail "saquery VLAR $lid failed"
	[ "$(grep -c '^[[:space:]]*Block\.*[13]$' "$T/vlar.sq")" = 2 ] ||
		t_fail "saquery VLAR: $(cat "$T/vlar.sq")"
	sent=$("$PYTHON" -c 'import json,sys; print(json.load(open(sys.argv[1]))["result"]["smps"]["sl2vl_sets"])' "$T/qos.json")
	printf 'qos TRUE\nqos_ca_sl2vl 5,5,5,5,6,6,6,6,7,7,7,7,0,0,0,0\n' >"$T/osm.conf"
	kill -HUP "$SM_PID"
	for ((i = 0; i < 100; i++)); do
		sim_client smpquery -D sl2vl 0 1 >"$T/h1.sl2vl" 2>&1 &&
			grep -q '| 5| 5| 5| 5| 6| 6| 6| 6| 7| 7| 7| 7| 0| 0| 0| 0|' "$T/h1.sl2vl" && break
		sleep 0.2
	done
	[ $i = 100 ] && t_fail "SIGHUP: H1's SL2VL not reprogrammed: $(cat "$T/h1.sl2vl")"
	# the sweep may still be writing the switches' tables: ask until they are all in
	for ((i = 0; i < 50; i++)); do
		sm_ctl --json qos >"$T/qos2.json" || t_fail "ibsmctl qos failed"
		"$PYTHON" - "$T/qos2.json" "$sent" <<'PYEOF' && break
import json, sys
v = json.load(open(sys.argv[1]))["result"]
# a changed QoS key sends every table again, not only the CA ones that changed
sys.exit(not (v["smps"]["sl2vl_sets"] >= 2 * int(sys.argv[2]) and v["differ_count"] == 0))
PYEOF
		sleep 0.2
	done
	[ $i = 50 ] && t_fail "after SIGHUP, not every table sent again: $(cat "$T/qos2.json")"
	sm_stop

	t_step "QoS off: ibsmd leaves the tables as ibsim holds them"
	bring_up ibsmd-off ibsmd 'qos FALSE'
	sim_stop
	sim_clear_cache
	sim_start "$NET"
	read_all "$T/fresh.txt"
	diff -u "$T/fresh.txt" "$T/ibsmd-off.txt" >"$T/diff-off.txt" ||
		t_fail "QoS off: ibsmd changed tables: $(grep '^[-+][^-+]' "$T/diff-off.txt" | head)"
fi
t_info "ok"
