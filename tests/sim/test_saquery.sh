#!/bin/bash
# The read-only SA records (NodeRecord, PortInfoRecord, LinkRecord, SwitchInfoRecord,
# GUIDInfoRecord, SMInfoRecord, LinearForwardingTableRecord, P_KeyTableRecord, SLtoVL and
# VLArbitration) asked with saquery (infiniband-diags) of the SM daemon on the fat tree
# k=4, from the SM's host and from another one; every printed field that the SM reads or
# sets is compared with what the devices answer to smpquery, sminfo and ibroute.
#
# ibsim carries at most 256 bytes per MAD and no multi-segment RMPP transfer: saquery
# then gets the first segment only (and prints what it makes of it). So every query here
# is one whose whole answer fits one MAD, 200 bytes of records: one NodeRecord (112 bytes
# padded), up to 2 PortInfo/LFT/GUIDInfo/P_Key records (72), 8 SwitchInfoRecords (24),
# 25 LinkRecords (8): NR/PIR/GIR/PKTR/SWIR by LID (and port), LR of one switch (4 links
# here), LFTR of one switch (37 LIDs: one block), SMIR. Tables of the whole fabric are
# the unit test's (tests/unit/test_sa_records.c).
. "$(dirname "$0")/lib.sh"
sim_init
command -v saquery >/dev/null || t_skip "saquery missing (infiniband-diags)"
NET=$FABRICS/fattree-k4.net
HOST=pod2-edge1-host2 # port 1 on pod2-edge1 port 2
SW=pod2-edge1         # ports 1-2 hosts, 3-4 pod2-agg1/2 (their port 1)
OTHER=pod3-edge2-host1

# saquery ARGS > $T/NAME.sq (one MAD's worth); N records of KIND expected
sq() {
	local name=$1 kind=$2 n=$3 got
	shift 3
	sim_run saquery "$@" >"$T/$name.sq" || t_fail "saquery $* failed: $(tail -n 3 "$T/clients.log")"
	got=$(grep -c "$kind" "$T/$name.sq")
	[ "$got" -eq "$n" ] || t_fail "saquery $*: $got records, want $n: $(head -c 400 "$T/$name.sq")"
}
smp() { # smpquery ARGS > $T/NAME.smp
	local name=$1
	shift
	sim_run smpquery "$@" >"$T/$name.smp" || t_fail "smpquery $* failed"
}

sm_daemon_up "$NET" 30
HL=$(lid_of $HOST)
SL=$(lid_of $SW)
t_info "$HOST: LID $HL, $SW: LID $SL"

t_step "NodeRecord by LID (a CA port, a switch, nobody)"
sq nr.ca "NodeRecord dump" 1 NR "$HL"
smp ni.ca nodeinfo "$HL"
t_field_eq "$T/nr.ca.sq" lid "$HL"
t_field_eq "$T/nr.ca.sq" node_type "Channel Adapter"
t_field_eq "$T/nr.ca.sq" node_guid "$(field "$T/ni.ca.smp" Guid)"
t_field_eq "$T/nr.ca.sq" port_guid "$(field "$T/ni.ca.smp" PortGuid)"
t_field_eq "$T/nr.ca.sq" sys_guid "$(field "$T/ni.ca.smp" SystemGuid)"
t_field_eq "$T/nr.ca.sq" num_ports "$(field "$T/ni.ca.smp" NumPorts)"
t_field_eq "$T/nr.ca.sq" port_num "$(field "$T/ni.ca.smp" LocalPort)"
t_field_eq "$T/nr.ca.sq" partition_cap "$(field "$T/ni.ca.smp" PartCap)"
t_field_eq "$T/nr.ca.sq" NodeDescription "$HOST"
sq nr.sw "NodeRecord dump" 1 NR "$SL"
smp ni.sw nodeinfo "$SL"
t_field_eq "$T/nr.sw.sq" lid "$SL"
t_field_eq "$T/nr.sw.sq" node_type Switch
t_field_eq "$T/nr.sw.sq" node_guid "$(field "$T/ni.sw.smp" Guid)"
t_field_eq "$T/nr.sw.sq" port_guid "$(field "$T/ni.sw.smp" Guid)"
t_field_eq "$T/nr.sw.sq" num_ports 4
t_field_eq "$T/nr.sw.sq" NodeDescription "$SW"
sq nr.none "NodeRecord dump" 0 NR 999

t_step "PortInfoRecord by LID and port"
sq pir.ca "PortInfoRecord dump" 1 PIR "$HL"
smp pi.ca portinfo "$HL" 1
t_field_eq "$T/pir.ca.sq" EndPortLid "$HL"
t_field_eq "$T/pir.ca.sq" PortNum 1
for k in Lid SMLid LMC LinkState PhysLinkState MtuCap NeighborMTU OperVLs VLCap \
	LinkWidthActive LinkSpeedActive GidPrefix CapMask SubnetTimeout LocalPort; do
	t_field_eq "$T/pir.ca.sq" "$k" "$(field "$T/pi.ca.smp" "$k")"
done
t_field_eq "$T/pir.ca.sq" Lid "$HL"
t_field_eq "$T/pir.ca.sq" LinkState Active
sq pir.sw "PortInfoRecord dump" 1 PIR "$SL/3"
smp pi.sw portinfo "$SL" 3
t_field_eq "$T/pir.sw.sq" EndPortLid "$SL"
t_field_eq "$T/pir.sw.sq" PortNum 3
# LocalPort of a switch port is the port the reading SMP came in by: not compared
for k in LinkState PhysLinkState NeighborMTU MtuCap OperVLs VLCap LinkWidthActive \
	LinkWidthEnabled LinkSpeedActive HoqLife VLStallCount; do
	t_field_eq "$T/pir.sw.sq" "$k" "$(field "$T/pi.sw.smp" "$k")"
done
sq pir.sw0 "PortInfoRecord dump" 1 PIR "$SL/0"
smp pi.sw0 portinfo "$SL" 0
for k in Lid SMLid LMC LinkState CapMask GidPrefix SubnetTimeout; do
	t_field_eq "$T/pir.sw0.sq" "$k" "$(field "$T/pi.sw0.smp" "$k")"
done

t_step "LinkRecord: from a CA, from a switch, one link by both ends"
sq lr.ca "LinkRecord dump" 1 LR "$HL"
t_field_eq "$T/lr.ca.sq" FromLID "$HL"
t_field_eq "$T/lr.ca.sq" FromPort 1
t_field_eq "$T/lr.ca.sq" ToLID "$SL"
t_field_eq "$T/lr.ca.sq" ToPort 2
sq lr.sw "LinkRecord dump" 4 LR "$SL"
# each of the switch's links leads where ibsim's file says
for pair in "1 pod2-edge1-host1 1" "2 $HOST 1" "3 pod2-agg1 1" "4 pod2-agg2 1"; do
	read -r port peer pport <<<"$pair"
	plid=$(lid_of "$peer")
	awk -v p="$port" -v l="$plid" -v q="$pport" '
		/FromPort/ { fp = $0; sub(/.*\./, "", fp) }
		/ToPort/ { tp = $0; sub(/.*\./, "", tp) }
		/ToLID/ { tl = $0; sub(/.*\./, "", tl); if (fp == p && tl == l && tp == q) ok = 1 }
		END { exit !ok }' "$T/lr.sw.sq" || t_fail "no LinkRecord $SW:$port -> $peer:$pport (LID $plid)"
done
sq lr.one "LinkRecord dump" 1 LR "$SL/3" "$(lid_of pod2-agg1)/1"
t_field_eq "$T/lr.one.sq" FromPort 3

t_step "SwitchInfoRecord, GUIDInfoRecord, SMInfoRecord"
sq swir "SwitchInfoRecord dump" 1 SWIR "$SL"
smp si switchinfo "$SL"
t_field_eq "$T/swir.sq" LID "$SL"
t_field_eq "$T/swir.sq" LinearFDBCap "$(field "$T/si.smp" LinearFdbCap)"
t_field_eq "$T/swir.sq" LinearFDBTop "$(field "$T/si.smp" LinearFdbTop)"
t_field_eq "$T/swir.sq" MulticastFDBCap "$(field "$T/si.smp" McastFdbCap)"
t_field_eq "$T/swir.sq" PartitionEnforcementCap "$(field "$T/si.smp" PartEnforceCap)"
sq gir.ca "GUIDInfo Record dump" 1 GIR "$HL/0" # OpenSM also lists the empty blocks of GUIDCap
t_field_eq "$T/gir.ca.sq" LID "$HL"
t_field_eq "$T/gir.ca.sq" Block 0
t_field_eq "$T/gir.ca.sq" "GUID 0" "$(field "$T/ni.ca.smp" PortGuid)"
sq gir.sw "GUIDInfo Record dump" 1 GIR "$SL"
t_field_eq "$T/gir.sw.sq" "GUID 0" "$(field "$T/ni.sw.smp" Guid)"
sq smir "SMInfoRecord dump" 1 SMIR
sim_run sminfo >"$T/sminfo.out" || t_fail "sminfo failed"
read -r smlid smguid smprio smstate < <(sed -n \
	's/.*sm lid \([0-9]*\) sm guid \(0x[0-9a-f]*\), activity count [0-9]* priority \([0-9]*\) state \([0-9]*\).*/\1 \2 \3 \4/p' \
	"$T/sminfo.out")
[ -n "$smlid" ] || t_fail "cannot read sminfo: $(cat "$T/sminfo.out")"
t_field_eq "$T/smir.sq" LID "$smlid"
t_field_eq "$T/smir.sq" GUID "$smguid"
t_field_eq "$T/smir.sq" Priority "$smprio"
t_field_eq "$T/smir.sq" SMState "$smstate"
t_field_eq "$T/smir.sq" SM_Key 0 # untrusted
if [ "$SM" = ibsmd ]; then
	t_field_eq "$T/smir.sq" GUID "$(sm_ctl_get result.sm.guid status)"
	acts=$(sm_ctl_get result.sm.act_count status)
	[ "$(field "$T/smir.sq" ActCount)" -le "$acts" ] || t_fail "ActCount above the SM's own"
	sq smir.key "SMInfoRecord dump" 1 --smkey 1 SMIR
	t_field_eq "$T/smir.key.sq" SM_Key 1 # trusted: ibsmd's default sm_key
fi

t_step "LinearForwardingTableRecord against ibroute"
sq lftr "LFT Record dump" 1 LFTR "$SL"
t_field_eq "$T/lftr.sq" Block 0
ok=0
for try in 1 2 3; do # ibroute crashes now and then on ibsim
	sim_run ibroute "$SL" >"$T/ibroute.out" && ok=1 && break
done
[ $ok = 1 ] || t_fail "ibroute $SL failed"
# "0x0001 003 : ..." per valid LID; saquery's table "LID<TAB>port" per entry of the block
awk 'function hex(s,  i, v) { v = 0; s = tolower(substr(s, 3))
		for (i = 1; i <= length(s); i++) v = v * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1
		return v }
	FNR == NR { if ($1 ~ /^0x/ && $2 ~ /^[0-9]+$/) want[hex($1)] = $2 + 0; next }
	/^[ \t]+[0-9]+[ \t]+[0-9]+[ \t]*$/ { got[$1 + 0] = $2 + 0 }
	END { for (l in want) if (!(l in got) || got[l] != want[l]) { print "lid " l; exit 1 }
		for (l in got) if (got[l] != 255 && !(l in want)) { print "lid " l; exit 1 } }' \
	"$T/ibroute.out" "$T/lftr.sq" >"$T/lft.diff" ||
	t_fail "LFTR and ibroute disagree at $(cat "$T/lft.diff")"
sq lftr.b0 "LFT Record dump" 1 LFTR "$SL/0"
sq lftr.b1 "LFT Record dump" 0 LFTR "$SL/1" # no LID there: not in use, not invented

t_step "P_KeyTableRecord (trusted only), SLtoVL and VLArbitration (none)"
if sim_run saquery PKTR "$HL" >"$T/pktr.untrusted" 2>&1; then
	[ "$SM" = ibsmd ] && t_fail "PKTR answered an untrusted request"
fi
sq pktr "PKeyTableRecord dump" 1 --smkey 1 PKTR "$HL/1/0"
smp pkeys pkeys "$HL"
t_field_eq "$T/pktr.sq" LID "$HL"
t_field_eq "$T/pktr.sq" Port 1
t_field_eq "$T/pktr.sq" Block 0
want=$(awk '/^ *0:/ { print $2; exit }' "$T/pkeys.smp")
got=$(awk '/PKey Table:/ { getline; print $1; exit }' "$T/pktr.sq")
[ -n "$want" ] && [ "$got" = "$want" ] || t_fail "P_Key 0 of $HOST: SA '$got', port '$want'"
sq pktr.sw "PKeyTableRecord dump" 1 --smkey 1 PKTR "$SL/0/0"
t_field_eq "$T/pktr.sw.sq" Port 0
if [ "$SM" = ibsmd ]; then
	sq sl2vl "SL2VL" 0 SL2VL "$SL"
	sq vlarb "VLArbitration" 0 VLAR "$SL"
fi

t_step "from another host ($OTHER)"
export SIM_HOST=$OTHER
sq nr.other "NodeRecord dump" 1 NR "$HL"
t_field_eq "$T/nr.other.sq" NodeDescription "$HOST"
sq pir.other "PortInfoRecord dump" 1 PIR "$(lid_of $OTHER)"
t_field_eq "$T/pir.other.sq" LinkState Active
sq lr.other "LinkRecord dump" 1 LR "$(lid_of $OTHER)"
unset SIM_HOST

sm_alive || t_fail "$SM died"
sm_stop
[ "$SM_RC" -eq 0 ] || [ "$SM" = opensm ] || t_fail "$SM exit $SM_RC on SIGTERM (want 0)"
t_step "pass"
