#!/bin/bash
# QoS tables, ibsmd against OpenSM 3.3.23: one opensm.conf with `qos TRUE` and the QoS keys (the
# general qos_* ones, then per-class variants _ca, _sw0, _swe, _rtr, then junk values OpenSM
# reads its own way), the same fresh ibsim fabric brought up once by `opensm -o` and once by
# `ibsmd -o`, and every port's SL2VL table (every input port of every switch output port), both
# VL arbitration tables and PortInfo VLHighLimit/OperationalVLs read back with smpquery after
# each: the two readings must be equal. max_op_vls 3 makes both SMs mask the tables' VLs by the
# ports' OperationalVLs. A last run with QoS off checks that ibsmd sends no QoS table at all.
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

# bring_up NAME WHICH CONF: fresh ibsim, WHICH (opensm|ibsmd) -o with CONF, the ports read
bring_up() {
	local name=$1 which=$2 conf=$3
	sim_stop
	sim_clear_cache
	sim_start "$NET"
	printf 'force_log_flush TRUE\n%s\n' "$conf" >"$T/osm.conf"
	SM=$which sm_once -F "$T/osm.conf"
	[ "$SM_RC" = 0 ] || t_fail "$which -o exit $SM_RC (log $SM_LOG)"
	read_all "$T/$name.txt"
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
	local what=$1 conf=$2
	t_step "$what: OpenSM, then ibsmd"
	bring_up "osm-$what" opensm "$conf"
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
t_info "ok"
