#!/bin/bash
# The QoS tables the SM programs, ibsmd against OpenSM 3.3.23: one opensm.conf per case (both
# SMs read it with -F), the same fresh ibsim fabric brought up once by `opensm -o` and once
# by `ibsmd -o`, then every SL2VL table (switches: every input port for every output port,
# port 0 included; CA and router ports one each), every VLArbitration table (low and high)
# and every port's VLHighLimit, OperVLs, VLCap and VLArb caps read back with smpquery and
# compared field by field. Every case runs; each difference is listed as
# "NODE/PORT TABLE FIELD: OpenSM X, ibsmd Y" (e.g. "S1/3 sl2vl(in=1) SL8: OpenSM 1, ibsmd 8":
# switch S1, output port 3, input port 1), then the test fails naming the cases.
# Cases (QOS_CASES=abcdefgh picks some; QOS_OPENSM_ONLY=1 runs the OpenSM half alone):
#   a) the general keys: qos TRUE, qos_max_vls 8, qos_high_limit 4, qos_vlarb_high/low,
#      qos_sl2vl naming VLs above the ports' operational VL0-7, and VL 15
#   b) the per-class keys _ca, _sw0, _swe, _rtr, each class different, some keys of a class
#      left out (they fall back to the general key); a short vlarb list (the rest is 0:0)
#   c) a qos_policy_file with qos-setup (vlarb-tables, sl2vl-tables), qos-levels and a
#      match rule: OpenSM loads it and ignores qos-setup, the tables follow the keys
#   d) max_op_vls 2 (VL0-1) under the keys of (a): tables masked to VL0-1. Compared after
#      two `-o` runs on the same fabric: OpenSM 3.3.23's first sweep masks the switch ports
#      (enhanced port 0 included) by the OperVLs they held before it sets them (VL0-7 on a
#      fresh ibsim) and only the CA/router ports by VL0-1, an artifact of its phase order
#      (QoS before the link manager's PortInfo Sets) that a second sweep undoes; ibsmd need
#      not copy it, so that first state is not compared
#   e) qos FALSE with every class's keys set, max_op_vls 3: no table is touched
#   f) qos TRUE and no other key: OpenSM's defaults (equal to ibsim's initial tables but for
#      SL 8-14 -> VL 8-14, masked to VL 0-6, and SL 15 -> VL 7)
#   g) the SM as a daemon with the keys of (a), then SIGHUP with the keys of (b) (OpenSM
#      rereads them and reprograms every table in the heavy sweep that follows); read once
#      the sweep is over (OpenSM: one more "SUBNET UP" in its log; ibsmd: sm_wait_quiet).
#      ibsmd also: before the SIGHUP, `ibsmctl qos` (JSON and text) and the SA's
#      SLtoVLMappingTableRecord and VLArbitrationTableRecord (saquery SL2VL, VLAR) of H1
#      show what was written; after it, every table was sent again (not only the changed
#      ones) and no port differs from the configuration
#   h) table strings OpenSM reads its own way (letters, VLs above 15, too many entries,
#      other separators, hex, a weight above 255): read as OpenSM reads them
# Every case also checks that OpenSM's reading shows the case's keys (ref_expect), so two
# untouched fabrics can not compare equal.
#
# The fabric (below): CAs H1 (two ports, both linked; the SM runs on port 1), H2, H3, a
# router R1, switch S1 with an enhanced port 0, S2 with a base port 0; ports 4 and 6 of S1
# and port 6 of S2 have no cable.
#
# What ibsim 0.10 models (ibsim/sim_mad.c, sim_net.c), so what this can and can not compare:
#   - SL2VL: kept per port, on switches per (input, output) pair, port 0 included, from a
#     Set; a Get returns it (initially SL n -> VL n, SL 15 -> VL 7). Modifier bits above
#     the two port numbers are ignored (no OptSL2VL, no AllInputs/AllOutputs).
#   - VLArbitration: kept per port (on switches the modifier's port, port 0 included),
#     blocks 1 (low 0-31) and 3 (high 0-31): every port has VLArbHighCap 8 and
#     VLArbLowCap 8, fixed, blocks 2 and 4 are refused. Initially low VL0:0, VL1-7:4;
#     high VL0:4, VL1-7:0.
#   - PortInfo: VLCap is VL0-7 on every port, the VLArb caps 8/8 (no topology option
#     changes them), so per-port VLCap differences can not be exercised. OperationalVLs is
#     kept from a Set. VLHighLimit is NOT kept: ibsim always answers 0, so the
#     VLHighLimit fields compare equal whatever the SMs set (unit tests must check it).
#   - SwitchInfo OptimizedSLtoVLMappingProgramming is 0: use_optimized_slvl is not
#     exercised. Every port's CapabilityMask has IsSLMappingSupported.
#   - S2's base port 0 has no VLArbitration tables ("none(BSP0)"); its SL2VL tables are
#     read (nobody programs them).
#   - Ports without a cable: OpenSM leaves their tables as output ports alone, but as
#     input ports of a linked output port they are programmed; both are compared.
#   - A port that goes down and comes back (Unlink, Link) keeps its SL2VL and VLArb tables
#     in ibsim, so whether an SM sends them again then can not be seen here.
# shellcheck disable=SC1091,SC2086,SC2015 # lists split on purpose; A && B || fail
. "$(dirname "$0")/lib.sh"
sim_init
command -v opensm >/dev/null || t_skip "opensm not installed"
# shellcheck disable=SC2034 # read by lib.sh
SIM_TIMEOUT=20 # a client that does not answer in 20 s has failed here
# SM=opensm (the harness checked with OpenSM alone) runs the OpenSM half only
[ "$SM" = opensm ] && QOS_OPENSM_ONLY=1

NET=$T/qos.net
cat >"$NET" <<'EOF'
Hca	2 "H1"
[1]	"S1"[1]
[2]	"S2"[1]

Hca	1 "H2"
[1]	"S1"[2]

Hca	1 "H3"
[1]	"S2"[2]

rtguid=0x300000
Rt	1 "R1"
[1]	"S2"[4]

Switch	6 "S1" # "S1" enhanced port 0
[1]	"H1"[1]
[2]	"H2"[1]
[3]	"S2"[3]
[5]	"S2"[5]

Switch	6 "S2" # "S2" base port 0
[1]	"H1"[2]
[2]	"H3"[1]
[3]	"S1"[3]
[4]	"R1"[1]
[5]	"S1"[5]
EOF

# the end ports: NAME/PORT=DR path from the SM's port (H1 port 1)
ENDPORTS="H1/1=0 H1/2=0,1,3,1 H2/1=0,1,2 H3/1=0,1,3,2 R1/1=0,1,3,4"
# the switches: NAME=DR path; each has ports 0..NSWPORTS
SWITCHES="S1=0,1 S2=0,1,3"
NSWPORTS=6

# smp OUT ARGS...: smpquery -D ARGS into OUT, three tries (under load a query can time out
# while ibsim is busy with a trap)
smp() {
	local out=$1 i
	shift
	for ((i = 0; i < 3; i++)); do
		sim_client smpquery -t 2000 -D "$@" >"$out" && return 0
	done
	t_fail "smpquery $* failed: $(tail -1 "$T/clients.log")"
}

# norm WHERE FILE: one "WHERE TABLE FIELD value" line per field of an smpquery output
# (sl2vl, vlarb or portinfo)
norm() {
	awk -v w="$1" '
	/^ports: in/ { # SL2VL: "ports: in  2, out  3: | 0| 1|..."
		split($0, a, "|"); inp = $3; sub(/,/, "", inp)
		for (i = 2; i <= 17; i++) { v = a[i]; gsub(/ /, "", v)
			print w " sl2vl(in=" inp ") SL" i - 2 " " v }
		next }
	/^# No VLArbitration tables/ { print w " vlarb - none(BSP0)"; next }
	/^# Low priority/ { t = "low"; next }
	/^# High priority/ { t = "high"; next }
	/^VL  *:/ { split($0, vl, "|"); next }
	/^WEIGHT:/ { split($0, wt, "|")
		for (i = 2; i < length(wt); i++) { v = vl[i]; x = wt[i]; gsub(/ /, "", v)
			gsub(/ /, "", x); print w " vlarb-" t "[" i - 2 "] VL:weight " v ":" x }
		next }
	/^(VLCap|VLHighLimit|VLArbHighCap|VLArbLowCap|OperVLs):/ {
		f = $0; sub(/:.*/, "", f); v = $0; sub(/^[^:]*:\.*/, "", v)
		print w " portinfo " f " " v }' "$2"
}

# read_all FILE: every table of every port, normalised
read_all() {
	local out=$1 e name path p raw=$T/smp.out
	: >"$out"
	for e in $ENDPORTS; do
		name=${e%%=*} path=${e#*=}
		smp "$raw" sl2vl "$path" && norm "$name" "$raw" >>"$out"
		smp "$raw" vlarb "$path" && norm "$name" "$raw" >>"$out"
		smp "$raw" portinfo "$path" && norm "$name" "$raw" >>"$out"
	done
	for e in $SWITCHES; do
		name=${e%%=*} path=${e#*=}
		for ((p = 0; p <= NSWPORTS; p++)); do
			smp "$raw" sl2vl "$path" $p && norm "$name/$p" "$raw" >>"$out"
			smp "$raw" vlarb "$path" $p && norm "$name/$p" "$raw" >>"$out"
			smp "$raw" portinfo "$path" $p && norm "$name/$p" "$raw" >>"$out"
		done
	done
}

# bring_up NAME WHICH CONF RUNS: fresh ibsim, empty cache, WHICH (opensm|ibsmd) -o with
# CONF, RUNS times in a row on that fabric; the tables into $T/NAME.txt
bring_up() {
	local name=$1 which=$2 conf=$3 runs=$4 i
	sim_stop
	sim_clear_cache
	sim_start "$NET"
	printf 'force_log_flush TRUE\n%s\n' "$conf" >"$T/osm.conf"
	for ((i = 1; i <= runs; i++)); do
		SM=$which sm_once -F "$T/osm.conf"
		[ "$SM_RC" = 0 ] || t_fail "$which -o exit $SM_RC (log $SM_LOG)"
		cat "$SM_LOG" >>"$T/$name.smlog"
	done
	read_all "$T/$name.txt"
	t_info "$which: $(wc -l <"$T/$name.txt") fields read back"
}

# hup_up NAME WHICH CONF1 CONF2: fresh ibsim, empty cache, WHICH (opensm|ibsmd) as a daemon
# with CONF1, up; CONF2 written and SIGHUP; once the sweep after it is over, the tables
# into $T/NAME.txt
hup_up() {
	local name=$1 which=$2 i n
	sim_stop
	sim_clear_cache
	sim_start "$NET"
	printf 'force_log_flush TRUE\n%s\n' "$3" >"$T/osm.conf"
	SM=$which sm_start -F "$T/osm.conf"
	SM=$which sm_wait_up 60
	[ "$which" = ibsmd ] && ibsmd_views
	printf 'force_log_flush TRUE\n%s\n' "$4" >"$T/osm.conf"
	n=$(grep -c 'SUBNET UP' "$SM_LOG")
	kill -HUP "$SM_PID"
	t_info "$which: SIGHUP with the second configuration"
	if [ "$which" = opensm ]; then
		for ((i = 0; i < 300; i++)); do
			[ "$(grep -c 'SUBNET UP' "$SM_LOG")" -gt "$n" ] && break
			sleep 0.1
		done
		[ $i -lt 300 ] || t_fail "opensm: no heavy sweep within 30 s of SIGHUP"
	else
		sm_wait_quiet 30 2 || t_fail "ibsmd: not quiet within 30 s of SIGHUP"
		ibsmd_resent
	fi
	sm_alive || t_fail "$which died after SIGHUP"
	cp "$SM_LOG" "$T/$name.smlog"
	read_all "$T/$name.txt"
	SM=$which sm_stop
	t_info "$which: $(wc -l <"$T/$name.txt") fields read back"
}

# ibsmd_views: under the keys of (a), ibsmctl qos (JSON and text) and the SA's
# SLtoVLMappingTableRecord and VLArbitrationTableRecord of H1's port 1 show what was written
ibsmd_views() {
	local lid
	sm_ctl --json qos >"$T/qos.json" || t_fail "ibsmctl qos failed"
	"$PYTHON" - "$T/qos.json" <<'PYEOF' || t_fail "qos view: $(cat "$T/qos.json")"
import json, sys
v = json.load(open(sys.argv[1]))["result"]
ca = [c for c in v["classes"] if c["class"] == "ca"][0]
assert v["enabled"] is True and v["policy"]["state"] == "none", v
assert ca["sl2vl"] == "0,1,2,3,4,5,6,7,9,10,11,12,13,14,15,15", ca
assert v["differ_count"] == 0 and v["refused_count"] == 0, v
assert v["smps"]["sl2vl_sets"] > 0 and v["smps"]["vlarb_sets"] > 0, v
PYEOF
	sm_ctl qos >"$T/qos.txt" || t_fail "ibsmctl qos (text) failed"
	grep -q '^QoS yes' "$T/qos.txt" && grep -q '0:10,1:20,2:30' "$T/qos.txt" ||
		t_fail "ibsmctl qos: $(head -5 "$T/qos.txt")"
	smp "$T/h1.pi" portinfo 0
	lid=$(sed -n 's/^Lid:\.*//p' "$T/h1.pi")
	sim_client saquery SL2VL "$lid" >"$T/sl2vl.sq" || t_fail "saquery SL2VL $lid failed"
	# VL 9-14 masked to VL0-7, 15 kept
	grep -q 'VL: 0| 1| 2| 3| 4| 5| 6| 7| 1| 2| 3| 4| 5| 6|15|15|' "$T/sl2vl.sq" ||
		t_fail "saquery SL2VL: $(cat "$T/sl2vl.sq")"
	sim_client saquery VLAR "$lid" >"$T/vlar.sq" || t_fail "saquery VLAR $lid failed"
	# ibsim's caps (8, 8): blocks 1 (low) and 3 (high)
	[ "$(grep -c '^[[:space:]]*Block\.*[13]$' "$T/vlar.sq")" = 2 ] ||
		t_fail "saquery VLAR: $(cat "$T/vlar.sq")"
}

# ibsmd_resent: after the SIGHUP that changed QoS keys, every table was sent again (not only
# those that changed) and every port holds what the configuration says
ibsmd_resent() {
	sm_ctl --json qos >"$T/qos2.json" || t_fail "ibsmctl qos failed"
	"$PYTHON" - "$T/qos.json" "$T/qos2.json" <<'PYEOF' || t_fail "after SIGHUP: $(cat "$T/qos2.json")"
import json, sys
a, b = (json.load(open(f))["result"] for f in sys.argv[1:3])
assert b["smps"]["sl2vl_sets"] >= 2 * a["smps"]["sl2vl_sets"], (a["smps"], b["smps"])
assert b["differ_count"] == 0 and b["refused_count"] == 0, b
PYEOF
}

# run_case CASE CONF [RUNS]: both SMs (each RUNS times -o, default once), then the
# comparison
run_case() {
	t_step "case $1: OpenSM, then ibsmd"
	bring_up "osm-$1" opensm "$2" "${3:-1}"
	[ "${QOS_OPENSM_ONLY:-0}" = 1 ] && return 0
	bring_up "ibsmd-$1" ibsmd "$2" "${3:-1}"
	ref_compare "$1"
}

NOPOLICY="qos_policy_file $T/absent-qos-policy.conf"
KEYS_A="qos TRUE
$NOPOLICY
qos_max_vls 8
qos_high_limit 4
qos_vlarb_high 0:10,1:20,2:30,3:40,4:50,5:60,6:70,7:80
qos_vlarb_low 7:1,6:2,5:3,4:4,3:5,2:6,1:7,0:8
qos_sl2vl 0,1,2,3,4,5,6,7,9,10,11,12,13,14,15,15"

# per class: each class sets some keys and leaves others to the general key or to OpenSM's
# default (the general qos_vlarb_high is short: the entries after it are 0:0)
KEYS_B="qos TRUE
$NOPOLICY
qos_high_limit 1
qos_vlarb_high 0:1,1:2,2:3,3:4
qos_vlarb_low 0:9,1:9,2:9,3:9,4:9,5:9,6:9,7:9
qos_sl2vl 0,0,1,1,2,2,3,3,4,4,5,5,6,6,7,7
qos_ca_high_limit 2
qos_ca_vlarb_high 1:11,2:12
qos_ca_sl2vl 1,2,3,4,5,6,7,0,1,2,3,4,5,6,7,0
qos_sw0_vlarb_low 3:33,4:44
qos_sw0_sl2vl 3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3
qos_swe_high_limit 6
qos_swe_vlarb_high 6:66,7:77,0:1
qos_swe_vlarb_low 7:7
qos_swe_sl2vl 7,6,5,4,3,2,1,0,7,6,5,4,3,2,1,0
qos_rtr_max_vls 4
qos_rtr_vlarb_high 2:22
qos_rtr_vlarb_low 5:55
qos_rtr_sl2vl 2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2"

# a policy file with qos-setup (tables other than the keys', which must not be used) and
# qos-levels and a match rule
POLICY=$T/qos-policy.conf
cat >"$POLICY" <<'EOF'
port-groups
    port-group
        name: Hosts
        node-type: CA
    end-port-group
    port-group
        name: Switches
        node-type: SWITCH
    end-port-group
end-port-groups

qos-setup
    vlarb-tables
        vlarb-scope
            group: Hosts
            across: Switches
            vl-high-limit: 10
            vlarb-high: 0:255,1:127
            vlarb-low: 2:200,3:100
        end-vlarb-scope
    end-vlarb-tables
    sl2vl-tables
        sl2vl-scope
            group: Switches
            from: *
            to: *
            sl2vl-table: 3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3
        end-sl2vl-scope
        sl2vl-scope
            group: Hosts
            across-to: Switches
            sl2vl-table: 0,1,0,1,0,1,0,1,0,1,0,1,0,1,0,1
        end-sl2vl-scope
    end-sl2vl-tables
end-qos-setup

qos-levels
    qos-level
        name: DEFAULT
        sl: 0
    end-qos-level
    qos-level
        name: Fast
        sl: 3
        mtu-limit: 4
        rate-limit: 6
    end-qos-level
end-qos-levels

qos-match-rules
    qos-match-rule
        qos-class: 1
        qos-level-name: Fast
    end-qos-match-rule
end-qos-match-rules
EOF
KEYS_C=${KEYS_A/$NOPOLICY/qos_policy_file $POLICY}

# fewer operational VLs than the tables name: VL0-1 (VLArb entries naming VL 2-7 too)
KEYS_D="$KEYS_A
max_op_vls 2
qos_ca_vlarb_low 0:1,1:2,2:3,3:4,4:5,5:6,6:7,7:8"

# QoS off, every class's keys set: nothing QoS is programmed (max_op_vls 3: VL0-3)
KEYS_E="${KEYS_B/qos TRUE/qos FALSE}
max_op_vls 3"

# values OpenSM reads its own way: letters, VLs above 15, too many entries, other
# separators, hex, a weight above 255
KEYS_H="qos TRUE
$NOPOLICY
qos_sl2vl 0,1,x,3,4,17,6,7,8,9,10,11,12,13,14,15,3,3
qos_vlarb_high 0:4,15:3,x:2,5,0x3:0x10,-1:300
qos_vlarb_low 1;9,2:8 3:7
qos_high_limit 300"

on() { case ${QOS_CASES:-abcdefgh} in *$1*) return 0 ;; esac; return 1; }

if on a; then
	run_case a "$KEYS_A"
	# VL 9-14 masked to the port's VL0-7 (9 -> 1), VL 15 kept; ports without a cable and
	# the base port 0 untouched as output ports
	ref_expect a "S1/3 sl2vl(in=1) SL8 1" "S1/3 sl2vl(in=1) SL14 15" "S1/0 sl2vl(in=4) SL9 2" \
		"H1/2 sl2vl(in=0) SL13 6" "S1/4 sl2vl(in=1) SL8 8" "S2/0 sl2vl(in=1) SL8 8" \
		"H2/1 vlarb-high[1] VL:weight 0x1:0x14" "R1/1 vlarb-low[0] VL:weight 0x7:0x1" \
		"S2/6 vlarb-low[1] VL:weight 0x1:0x4" "S2/0 vlarb - none(BSP0)"
fi
if on b; then
	run_case b "$KEYS_B"
	# each class its own keys; the enhanced port 0 gets the sw0 table for in 0 only, the
	# swe one from the other input ports; keys left out come from the general ones
	ref_expect b "H1/2 sl2vl(in=0) SL0 1" "R1/1 sl2vl(in=0) SL0 2" "S1/0 sl2vl(in=0) SL0 3" \
		"S1/0 sl2vl(in=1) SL0 7" "S2/5 sl2vl(in=0) SL0 7" "S1/0 vlarb-low[0] VL:weight 0x3:0x21" \
		"S1/0 vlarb-high[0] VL:weight 0x0:0x1" "S1/0 vlarb-high[4] VL:weight 0x0:0x0" \
		"H1/1 vlarb-low[0] VL:weight 0x0:0x9" "H1/1 vlarb-high[0] VL:weight 0x1:0xB" \
		"R1/1 vlarb-low[0] VL:weight 0x5:0x37" "S2/3 vlarb-high[2] VL:weight 0x0:0x1"
fi
if on c; then
	run_case c "$KEYS_C"
	grep -q 'Loading QoS policy file' "$T/osm-c.smlog" && ! grep -q 'ERR AC' "$T/osm-c.smlog" ||
		t_fail "case c: OpenSM did not load the policy file cleanly: $(grep AC "$T/osm-c.smlog")"
	ref_expect c "S1/3 sl2vl(in=1) SL8 1" "H2/1 sl2vl(in=0) SL1 1" \
		"H2/1 vlarb-high[0] VL:weight 0x0:0xA" "S1/1 vlarb-low[2] VL:weight 0x5:0x3"
fi
if on d; then
	# twice -o: OpenSM's first sweep masks the switch ports (port 0 included) by the
	# operational VLs they had before it set OperVLs (VL0-7 here), the end ports by the new
	# ones; the second sweep masks all by VL0-1. The state after the second is compared
	run_case d "$KEYS_D" 2
	ref_expect d "H1/1 sl2vl(in=0) SL2 0" "S1/3 sl2vl(in=2) SL3 1" "S1/0 sl2vl(in=0) SL8 1" \
		"S1/1 portinfo OperVLs VL0-1" "S1/4 portinfo OperVLs VL0-7" \
		"R1/1 vlarb-low[0] VL:weight 0x1:0x1" "H1/1 vlarb-low[2] VL:weight 0x0:0x3"
fi
if on e; then
	run_case e "$KEYS_E"
	ref_expect e "H1/1 sl2vl(in=0) SL8 8" "S1/0 sl2vl(in=0) SL9 9" "S1/1 portinfo OperVLs VL0-3" \
		"H1/1 vlarb-low[1] VL:weight 0x1:0x4" "S1/1 vlarb-high[0] VL:weight 0x0:0x4"
fi
if on f; then
	run_case f "qos TRUE
$NOPOLICY"
	ref_expect f "S1/3 sl2vl(in=1) SL8 0" "S1/0 sl2vl(in=0) SL14 6" "H1/1 sl2vl(in=0) SL15 7" \
		"H1/1 vlarb-high[0] VL:weight 0x0:0x4" "S1/1 vlarb-low[1] VL:weight 0x1:0x4"
fi
if on g; then
	t_step "case g: SIGHUP from the keys of (a) to those of (b): OpenSM, then ibsmd"
	# light sweeps every second: sm_wait_quiet waits for one after the last heavy sweep
	hup_up osm-g opensm "$KEYS_A
sweep_interval 1" "$KEYS_B
sweep_interval 1"
	if [ "${QOS_OPENSM_ONLY:-0}" != 1 ]; then
		hup_up ibsmd-g ibsmd "$KEYS_A
sweep_interval 1" "$KEYS_B
sweep_interval 1"
		ref_compare g
	fi
	# the tables of (b), not those of (a)
	ref_expect g "H1/2 sl2vl(in=0) SL0 1" "S1/0 sl2vl(in=0) SL0 3" "S1/0 sl2vl(in=1) SL0 7" \
		"S1/0 vlarb-low[0] VL:weight 0x3:0x21" "R1/1 vlarb-low[0] VL:weight 0x5:0x37" \
		"S2/3 vlarb-high[2] VL:weight 0x0:0x1"
fi
if on h; then
	run_case h "$KEYS_H"
	# 'x' reads as 0 and so does the ',' after it: the rest shifts by two; 300 & 0xff
	ref_expect h "H1/1 sl2vl(in=0) SL2 0" "H1/1 sl2vl(in=0) SL4 3" "H1/1 sl2vl(in=0) SL15 6" \
		"H1/1 vlarb-low[1] VL:weight 0x2:0x8" "H1/1 vlarb-high[5] VL:weight 0x0:0x2C"
fi
[ -z "$REF_FAILED" ] || t_fail "ibsmd's QoS tables differ from OpenSM's in case(s)$REF_FAILED (above)"
t_info "ok"
