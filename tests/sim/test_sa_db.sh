#!/bin/bash
# sa_db_dump and sa_db_file across a restart (fat tree k=4): with sa_db_dump TRUE, hosts
# create and join a multicast group (full, non member), register a ServiceRecord and
# subscribe to a trap (InformInfo) with sa_client; after a heavy sweep opensm-sa.dump in
# dump_files_dir holds them (OpenSM's format); ibsmd stops, starts again with sa_db_file
# naming that dump, and after its first sweep saquery finds the group on the same MLID,
# the service and the subscription; the members are members again (their leaves are
# accepted, not refused as strangers'), and the subscriber unsubscribes what it had.
# An alias GUID of H4 (GUIDInfoRecord Set; ibsim refuses the GUIDInfo Set itself, the SA
# keeps it) and H4's join by that alias GID (an SR-IOV virtual function) go into the dump
# as OpenSM's GUIDInfo and mcm_port lines and come back: saquery GIR shows the alias, and
# the alias member leaves as a member (ibsim: GUIDCap 32, four GUIDInfo lines).
# shellcheck disable=SC1091
. "$(dirname "$0")/lib.sh"
sim_init
[ "$SM" = ibsmd ] || t_skip "ibsmd's sa_db_file"
sa_tools_init
NET=$FABRICS/fattree-k4.net
G=ff15:1234::7
H1=pod1-edge1-host1 # creates
H2=pod2-edge2-host2 # joins, full
H3=pod3-edge1-host2 # joins, non member
H4=pod4-edge2-host1 # registers a service
SID=0x100000000000cafe
ALIAS=0x0002c903000abcd1
DUMP=$T/cache/opensm-sa.dump

sac() {
	local h=$1
	shift
	SIM_HOST=$h sim_client "$SA_CLIENT" -t 3000 "$@" >>"$T/sac.out" ||
		t_fail "sa_client on $h: $* failed: $(tail -n 2 "$T/sac.out")"
}
mlid_of_g() { # saquery -m output FILE: the MLID of group $G
	awk -v g="$G" '/MGID/ { ok = index($0, g) > 0 } ok && /Mlid/ { sub(/.*\.+/, ""); print; exit }' "$1"
}

t_step "daemon with sa_db_dump on $(basename "$NET")"
sim_start "$NET"
printf 'partition_config_file %s\nsa_db_dump TRUE\n' "$T/no-partitions.conf" >"$T/1.conf"
sm_start -F "$T/1.conf"
sm_wait_up 30
sac $H1 join $G --create
sac $H2 join $G
sac $H3 join $G --state non
sac $H4 service register $SID "sadb test service"
# a subscription to a trap nobody sends (a Report to a client that is gone fails)
sac $H4 inform 0x7777
sim_run ibnetdiscover >"$T/ibnd" || t_fail "ibnetdiscover failed"
L4=$("$PYTHON" "$MCTOOL" lid "$T/ibnd" $H4) || t_fail "no LID for $H4"
G4=$("$PYTHON" "$MCTOOL" port-guid "$T/ibnd" $H4) || t_fail "no GUID for $H4"
sac $H4 guidinfo set "$L4" 0 1=$ALIAS
sac $H4 join $G --port-guid $ALIAS
sim_run saquery -m >"$T/m.1" || t_fail "saquery -m failed"
MLID=$(mlid_of_g "$T/m.1")
[ -n "$MLID" ] || t_fail "saquery -m does not show $G: $(head -c 400 "$T/m.1")"
sm_ctl sweep heavy >/dev/null || t_fail "ibsmctl sweep heavy failed"
for ((i = 0; i < 100; i++)); do
	grep -q "^Service Record: id=0x100000000000cafe" "$DUMP" 2>/dev/null && break
	sleep 0.1
done
grep -q "^Service Record: id=0x100000000000cafe .*name='sadb test service'" "$DUMP" ||
	t_fail "no service in $DUMP: $(head -c 600 "$DUMP" 2>/dev/null)"
grep -q "^MC Group $(printf '0x%04x' $((MLID))): mgid=0xff15123400000000:0x0000000000000007 " "$DUMP" ||
	t_fail "no group $G on $MLID in $DUMP: $(head -c 600 "$DUMP")"
[ "$(grep -c '^mcm_port: ' "$DUMP")" -ge 4 ] || t_fail "members missing in $DUMP"
grep -q "^mcm_port: port_gid=0xfe80000000000000:$ALIAS " "$DUMP" ||
	t_fail "no member by alias in $DUMP: $(grep '^mcm_port' "$DUMP")"
grep -q "^GUIDInfo Record: base_guid=$(printf '0x%016x' "$G4") lid=$(printf '0x%04x' "$L4") block_num=0x0 guid0=$(printf '0x%016x' "$G4") guid1=$ALIAS " "$DUMP" ||
	t_fail "no GUIDInfo line in $DUMP: $(grep -i guidinfo "$DUMP")"
grep -q "^InformInfo Record: subscriber_gid=0xfe80000000000000:0x[0-9a-f]* subscriber_enum=0x0 InformInfo: gid=0x0000000000000000:0x0000000000000000 lid_range_begin=0xffff .* trap_num=0x7777 qpn_resp_time_val=0x112 .* rep_addr: lid=" "$DUMP" ||
	t_fail "no subscription in $DUMP: $(grep -i inform "$DUMP")"
t_info "dump: $(grep -c '^MC Group' "$DUMP") groups, $(grep -c '^mcm_port' "$DUMP") members"
cp "$DUMP" "$T/sa.dump"
sm_stop

t_step "restart with sa_db_file"
printf 'partition_config_file %s\nsa_db_file %s\n' "$T/no-partitions.conf" "$T/sa.dump" \
	>"$T/2.conf"
sm_start -F "$T/2.conf"
sm_wait_up 30
wait_log "$SM_LOG" "sa database .*: 4 alias GUID blocks restored" 10
wait_log "$SM_LOG" "sa database .*: [1-9][0-9]* multicast groups, [4-9][0-9]* members, 1 services, 1 informs restored, 0 lines skipped" 10
sim_run saquery GIR "$L4/0" >"$T/gir" || t_fail "saquery GIR failed"
grep -qi "${ALIAS#0x}" "$T/gir" || t_fail "saquery GIR: no alias: $(head -c 600 "$T/gir")"
sim_run saquery -m >"$T/m.2" || t_fail "saquery -m failed"
[ "$(mlid_of_g "$T/m.2")" = "$MLID" ] || t_fail "$G: mlid '$(mlid_of_g "$T/m.2")', want $MLID"
sim_run saquery SR >"$T/sr" || t_fail "saquery SR failed"
grep -q "ServiceName\.*sadb test service" "$T/sr" || t_fail "saquery SR: $(head -c 400 "$T/sr")"
sac $H4 service query $SID
# the subscription is back as it was: saquery lists it, its port unsubscribes it
sim_run saquery IIR >"$T/iir" || t_fail "saquery IIR failed"
grep -q "trap_num\.*30583$" "$T/iir" && grep -q "resp_time_val\.*0x12$" "$T/iir" ||
	t_fail "saquery IIR: $(head -c 600 "$T/iir")"
sac $H4 inform 0x7777 --unsubscribe
sac $H4 inform 0x7777 --unsubscribe --expect 0x0200
sac $H3 leave $G --state non
sac $H2 leave $G
sac $H4 leave $G --port-guid $ALIAS
sac $H1 leave $G
sim_run saquery -m >"$T/m.3" || t_fail "saquery -m failed"
[ -z "$(mlid_of_g "$T/m.3")" ] || t_fail "$G still there after its last full member left"
t_info "group, service, subscription and alias back after the restart; members leave as members"

t_step "a damaged dump: warned, the rest loaded, the daemon up"
sm_stop
{ echo "garbage"; head -c 80 "$T/sa.dump"; echo; grep '^Service' "$T/sa.dump"; } >"$T/bad.dump"
printf 'partition_config_file %s\nsa_db_file %s\n' "$T/no-partitions.conf" "$T/bad.dump" \
	>"$T/3.conf"
sm_start -F "$T/3.conf"
sm_wait_up 30
wait_log "$SM_LOG" "bad.dump:1: cannot read" 10
wait_log "$SM_LOG" "bad.dump:2: cannot read" 10
wait_log "$SM_LOG" "1 services, 0 informs restored, 2 lines skipped" 10
sm_stop
t_info "ok"
