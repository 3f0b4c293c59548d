#!/bin/bash
# What the SM programs into the ports, ibsmd against OpenSM 3.3.23: one opensm.conf that sets the
# port keys (force_link_width/speed/speed_ext, fdr10, lmc with lmc_esp0, subnet_timeout, the
# VL stall and HOQ keys, max_op_vls, M_Key lease, error thresholds, ...), the same fresh ibsim
# fabric brought up once by `opensm -o` and once by `ibsmd -o`, every port's PortInfo, every
# linked port's MlnxExtPortInfo, every switch's SwitchInfo read back with smpquery after
# each, and the two readings diffed. Fields that may differ are dropped below, each with its
# reason; all the rest must be equal. Then the same with the link keys left at their defaults
# and fdr10 2 (disable).
#
# The fabric (written below): 4 ConnectX-3 CAs (device 0x1003) and 2 SwitchX switches (0xc738),
# so both SMs read MlnxExtPortInfo; H1-S1 and H2-S1 are FDR10 links, H3-S2 has extended speeds
# (FDR and EDR enabled, e=3); S1 has an enhanced port 0 (lmc_esp0 gives it 2^lmc LIDs), S2 a
# base port 0. ibsim keeps PortInfo LID, SMLID, LMC, HOQLife, OperationalVLs, GID prefix, the
# Link*Enabled values it knows (only from a Set that changes no port state) and the whole
# MlnxExtPortInfo of a Set; it answers every other field with its own constant, so those
# compare equal whatever an SM writes: tests/unit/test_ports.c and test_sweep.c check those
# over the fake fabric.
. "$(dirname "$0")/lib.sh"
sim_init
command -v opensm >/dev/null || t_skip "opensm not installed"
# shellcheck disable=SC2034 # read by lib.sh
SIM_TIMEOUT=20 # a client that does not answer in 20 s has failed here

NET=$T/ports.net
cat >"$NET" <<'EOF'
devid=0x1003
Hca	2 "H1"
[1]	"S1"[1]		# lid 0 4xFDR10

Hca	2 "H2"
[1]	"S1"[2]		# lid 0 4xFDR10

Hca	2 "H3"
[1]	"S2"[1]	e=3

Hca	2 "H4"
[1]	"S2"[2]

devid=0xc738
Switch	8 "S1" # "S1" enhanced port 0
[1]	"H1"[1]		# "H1" lid 0 4xFDR10
[2]	"H2"[1]		# "H2" lid 0 4xFDR10
[3]	"S2"[3]
[5]	"S2"[5]

Switch	8 "S2" # "S2" base port 0
[1]	"H3"[1]	e=3
[2]	"H4"[1]
[3]	"S1"[3]
[5]	"S1"[5]
EOF

# the SM runs on H1 (the first port of the file): DR paths from there, with the ports to read
CAS="0:1 0,1,2:1 0,1,3,1:1 0,1,3,2:1"
SWITCHES="0,1 0,1,3"
NSWPORTS=8
# switch ports with a cable (the others are down: their MlnxExtPortInfo is all 0, not read)
SWLINKED="0 1 2 3 5"

# the port keys, set away from their defaults; OpenSM reads the file as is
KEYS_SET='
lmc 1
lmc_esp0 TRUE
force_link_width 1
force_link_speed 3
force_link_speed_ext 1
fdr10 1
subnet_timeout 17
vl_stall_count 0x05
leaf_vl_stall_count 0x06
head_of_queue_lifetime 0x11
leaf_head_of_queue_lifetime 0x0f
max_op_vls 3
m_key_lease_period 30
local_phy_errors_threshold 0x09
overrun_errors_threshold 0x0a
sm_sl 2
packet_life_time 0x10
subnet_prefix 0xfe80000000000042
'
# the link keys at their defaults (no change where enabled == supported), FDR10 disabled
KEYS_DEFAULT='
force_link_width 255
force_link_speed 15
force_link_speed_ext 31
fdr10 2
'

# Fields dropped from the comparison, and why:
#   Mkey                 smpquery does not show it (the keys are not set here)
#   *Violations          counters: each SM's own MADs count
#   StateChange          SwitchInfo PortStateChange: depends on when the last trap was handled
#   Lid                  with lmc > 0 OpenSM starts every port's LIDs on a 2^lmc boundary even
#                        when it takes one LID (a switch's base port 0); ibsmd puts such ports
#                        in the holes (lid.c). LMC is compared, and check_lids below checks that
#                        both SMs give every port 2^LMC aligned LIDs, none shared
#   LifeTime, DefPort, LinearFdbTop  routing, compared by the routing tests (test_dumps, golden)
DROP='^(Mkey|MkeyViolations|PkeyViolations|QkeyViolations|StateChange|Lid|LifeTime|DefPort'
DROP+='|LinearFdbTop):'

# read_all FILE: every port's PortInfo, every linked port's MlnxExtPortInfo, every switch's
# SwitchInfo; FILE.lids gets "path port lid lmc" of each port with LIDs (CA ports, switch port 0)
read_all() {
	local out=$1 e path port p
	: >"$out"
	: >"$out.lids"
	for e in $CAS; do
		path=${e%%:*} port=${e##*:}
		read_one "$out" pi "$path" "$port"
		echo "$path $port $(field "$T/smpquery.out" Lid) $(field "$T/smpquery.out" LMC)" \
			>>"$out.lids"
		read_one "$out" mepi "$path" "$port"
	done
	for path in $SWITCHES; do
		read_one "$out" si "$path"
		for ((p = 0; p <= NSWPORTS; p++)); do
			read_one "$out" pi "$path" "$p"
			[ $p = 0 ] && echo "$path 0 $(field "$T/smpquery.out" Lid) \
$(field "$T/smpquery.out" LMC)" >>"$out.lids"
		done
		for p in $SWLINKED; do
			read_one "$out" mepi "$path" "$p"
		done
	done
}

# read_one FILE OP PATH [PORT]: one smpquery, its fields as "OP PATH PORT Field:value" lines
read_one() {
	local out=$1 op=$2 path=$3 port=${4:-} raw=$T/smpquery.out i
	# three tries: under load a query can time out while ibsim is busy with a trap
	for ((i = 0; i < 3; i++)); do
		# shellcheck disable=SC2086 # no port for SwitchInfo
		sim_client smpquery -t 2000 -D "$op" "$path" $port >"$raw" && break
	done
	if [ $i = 3 ]; then
		t_fail "smpquery $op $path $port failed: $(tail -1 "$T/clients.log")"
	fi
	grep -v '^#' "$raw" | grep -Ev '^[[:space:]]' | sed 's/:\.*/:/' | grep -Ev "$DROP" |
		sed "s/^/$op $path $port /" >>"$out"
}

# check_lids NAME: in $T/NAME.txt.lids ("path port lid lmc" of each port with a LID), every
# base LID is aligned to 2^LMC and no two ports' ranges meet
check_lids() {
	awk -v what="$1" '
		{ lid = $3; n = 2 ^ $4
		  if (lid == 0) { print what ": " $1 " port " $2 " has no lid"; bad = 1; next }
		  if (lid % n) { print what ": " $1 " lid " lid " not aligned to lmc " $4; bad = 1 }
		  for (l = lid; l < lid + n; l++) {
			if (l in seen) { print what ": lid " l " twice"; bad = 1 }
			seen[l] = 1 } }
		END { exit bad }' "$T/$1.txt.lids" >"$T/lids.out" || t_fail "$(cat "$T/lids.out")"
}

# bring_up NAME WHICH CONF: fresh ibsim, empty cache, WHICH (opensm|ibsmd) -o with CONF; reads
# the ports into $T/NAME.txt
bring_up() {
	local name=$1 which=$2 conf=$3
	sim_stop
	sim_clear_cache
	sim_start "$NET"
	printf 'force_log_flush TRUE\n%s\n' "$conf" >"$T/osm.conf"
	SM=$which sm_once -F "$T/osm.conf"
	[ "$SM_RC" = 0 ] || t_fail "$which -o exit $SM_RC (log $SM_LOG)"
	read_all "$T/$name.txt"
	check_lids "$name"
	t_info "$which: $(wc -l <"$T/$name.txt") fields read back"
}

# compare WHAT: OpenSM's reading and ibsmd's are equal
compare() {
	local what=$1
	if ! diff -u "$T/osm-$what.txt" "$T/ibsmd-$what.txt" >"$T/diff-$what.txt"; then
		t_fail "$what: ibsmd programs the ports otherwise than OpenSM:
$(grep '^[-+][^-+]' "$T/diff-$what.txt" | head -40)"
	fi
	t_info "$what: $(wc -l <"$T/osm-$what.txt") fields equal"
}

# expect WHAT LINE: the reading has LINE (the keys took effect at all)
expect() {
	grep -qxF "$2" "$T/ibsmd-$1.txt" || t_fail "$1: no line '$2' in what ibsmd programmed"
}

t_step "port keys set: OpenSM, then ibsmd"
bring_up osm-set opensm "$KEYS_SET"
bring_up ibsmd-set ibsmd "$KEYS_SET"
compare set
expect set "pi 0,1,3,2 1 LinkWidthEnabled:1X"
expect set "pi 0,1 3 LinkSpeedEnabled:2.5 Gbps or 5.0 Gbps"
expect set "pi 0,1 0 LMC:1"
expect set "pi 0,1,3 0 LMC:0"
expect set "pi 0 1 LMC:1"
expect set "pi 0,1 1 HoqLife:15"
expect set "pi 0,1 3 HoqLife:17"
expect set "pi 0 1 GidPrefix:0xfe80000000000042"
expect set "pi 0,1,3,1 1 LinkSpeedExtEnabled:14.0625 Gbps"

t_step "link keys at their defaults, fdr10 2: OpenSM, then ibsmd"
bring_up osm-def opensm "$KEYS_DEFAULT"
bring_up ibsmd-def ibsmd "$KEYS_DEFAULT"
compare def
# a MlnxExtPortInfo Set leaves StateChangeEnable 1 in ibsim (the speed fields it resets)
expect def "mepi 0,1 1 StateChangeEnable:0x01"
t_info "ok"
