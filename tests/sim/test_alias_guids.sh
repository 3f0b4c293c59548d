#!/bin/bash
# Alias GUIDs on a live fabric (fat tree k=4), ibsmd with sm_assigned_guid 0x42; the
# GUIDInfoRecord Sets and Deletes come from sa_client (tests/tools) on a host:
# (a) a Set of GUID1 (given) and GUID2 (0: the SM assigns 0x00140542_00000001) answers the
#     block; `saquery GIR` shows them; the guid phase writes the block into the port: ibsim
#     refuses GUIDInfo Sets (its SMA only answers Gets), so `smpquery guidinfo` still shows
#     the port GUID alone and the log tells the refusal once, not again after a heavy sweep;
# (b) `saquery -p --sgid-to-dgid` by either alias GID finds the host's LID, the record
#     echoing the alias GID; a GID nobody has is refused;
# (c) refused: a block past GUIDCap (ibsim: 32, 4 blocks) and a LID nobody has (0x0300),
#     GUID0 of block 0 (0x0200); another port setting the same alias
#     gets it left out (0 in the answer);
# (d) a Delete of GUID1 empties it: the PathRecord by it is refused, the other alias stays;
#     the fabric stays right (judges);
# (e) the same requests (Sets given and assigned, a Get, the bad ones, a duplicate, Deletes of
#     an empty and a set index, an assigned GUID asked for again, a PathRecord by alias GID)
#     on a fresh fabric, answered by ibsmd and by OpenSM 3.3.23: the same answers.
# shellcheck disable=SC1091,SC2015  # A && B || fail
. "$(dirname "$0")/lib.sh"
sim_init
[ "$SM" = ibsmd ] || t_skip "ibsmd's alias GUIDs"
sa_tools_init
NET=$FABRICS/fattree-k4.net
HA=pod2-edge1-host1 # its aliases
HB=pod3-edge2-host2 # asks for the same one
ALIAS=0x0002c903000abcd1
ASSIGNED=0x0014054200000001

# sac HOST ARGS...: `sa_client ARGS` on HOST's port, its answers appended to $T/sac.out
sac() {
	SIM_HOST=$1 sim_run "$SA_CLIENT" -t 3000 "${@:2}" >>"$T/sac.out" && return 0
	t_fail "sa_client ${*:2} on $1: $(tail -n 1 "$T/sac.out"), $(tail -n 2 "$T/clients.log")"
}
# the GID fe80::GUID in IPv6 text
gid() { printf 'fe80::%x:%x:%x:%x' $(($1 >> 48 & 0xffff)) $(($1 >> 32 & 0xffff)) \
	$(($1 >> 16 & 0xffff)) $(($1 & 0xffff)); }
# path_to GUID FILE: saquery's PathRecord from HB to fe80::GUID into FILE
path_to() {
	SIM_HOST=$HB sim_run saquery -p --sgid-to-dgid "$(gid "$GB")-$(gid "$1")" >"$2" 2>&1
}

t_step "daemon on $(basename "$NET")"
sim_start "$NET"
printf 'partition_config_file %s\nsm_assigned_guid 0x42\n' "$T/no-partitions.conf" \
	>"$T/ibsmd.conf"
sm_start -F "$T/ibsmd.conf"
sm_wait_up 30
sim_run ibnetdiscover >"$T/ibnd" || t_fail "ibnetdiscover failed"
read -r GA GB <<<"$("$PYTHON" "$MCTOOL" port-guid "$T/ibnd" $HA $HB | tr '\n' ' ')" ||
	t_fail "no GUIDs"
LA=$("$PYTHON" "$MCTOOL" lid "$T/ibnd" $HA) || t_fail "no LID for $HA"
LB=$("$PYTHON" "$MCTOOL" lid "$T/ibnd" $HB) || t_fail "no LID for $HB"

t_step "(a) GUID1 and an assigned GUID2 on $HA (lid $LA)"
sac $HA guidinfo set "$LA" 0 1=$ALIAS 2=0
want=$(printf 'status 0x0000 0x%016x 0x%016x 0x%016x 0x%016x' "$GA" $ALIAS $ASSIGNED 0)
grep -q "$want" "$T/sac.out" || t_fail "Set answered: $(tail -n 1 "$T/sac.out"), want $want"
sim_run saquery GIR "$LA/0" >"$T/gir" || t_fail "saquery GIR failed"
grep -qi "$(printf '%016x' $ALIAS)" "$T/gir" && grep -qi "$(printf '%016x' $ASSIGNED)" "$T/gir" ||
	t_fail "saquery GIR does not show the aliases: $(head -c 600 "$T/gir")"
wait_log "$SM_LOG" "guidinfo block 0 set refused" 10
sim_run smpquery guidinfo "$LA" >"$T/smp.gi" || t_fail "smpquery guidinfo failed"
grep -qi "$(printf '%016x' "$GA")" "$T/smp.gi" ||
	t_fail "smpquery guidinfo: $(head -c 300 "$T/smp.gi")"
! grep -qi "$(printf '%016x' $ALIAS)" "$T/smp.gi" ||
	t_fail "ibsim kept a GUIDInfo Set: this test's premise changed"
t_info "ibsim refused the GUIDInfo Set, as its SMA does; the SA holds the aliases"
heavy=$(sm_ctl_get result.sweeps.heavy status)
sm_ctl sweep heavy >/dev/null || t_fail "ibsmctl sweep heavy failed"
for ((i = 0; i < 100; i++)); do
	[ "$(sm_ctl_get result.sweeps.heavy status)" -gt "$heavy" ] && break
	sleep 0.1
done
sm_wait_quiet 30 1 || t_fail "no quiet after the heavy sweep"
[ "$(grep -c "guidinfo block .* refused" "$SM_LOG")" = 1 ] ||
	t_fail "the refusal was logged again: $(grep "guidinfo block" "$SM_LOG" | tail -n 3)"

t_step "(b) PathRecords by alias GID"
for g in $ALIAS $ASSIGNED; do
	path_to "$g" "$T/pr.$g" || t_fail "saquery -p to $(gid "$g") failed: $(tail -n 3 "$T/pr.$g")"
	t_field_eq "$T/pr.$g" dlid "$LA" || t_fail "dlid $(field "$T/pr.$g" dlid), want $LA"
	t_field_eq "$T/pr.$g" slid "$LB" || t_fail "slid $(field "$T/pr.$g" slid), want $LB"
	t_field_eq "$T/pr.$g" dgid "$(gid "$g")" ||
		t_fail "dgid $(field "$T/pr.$g" dgid), want $(gid "$g")"
done
! path_to 0x0002c903deadbeef "$T/pr.none" && ! grep -q dlid "$T/pr.none" ||
	t_fail "a PathRecord to a GID nobody has: $(head -c 300 "$T/pr.none")"

t_step "(c) bad requests"
sac $HA guidinfo set "$LA" 4 1=0x0002c903000abcd2 --expect 0x0300
sac $HA guidinfo set 0xbff0 0 1=0x0002c903000abcd2 --expect 0x0300
sac $HA guidinfo set "$LA" 0 0=0x0002c903000abcd2 --expect 0x0200
sac $HA guidinfo delete "$LA" 0 0 --expect 0x0200
sac $HB guidinfo set "$LB" 0 1=$ALIAS
want=$(printf 'status 0x0000 0x%016x 0x%016x' "$GB" 0)
grep -q "$want" "$T/sac.out" || t_fail "a duplicate alias was taken: $(tail -n 1 "$T/sac.out")"

t_step "(d) Delete GUID1"
sac $HA guidinfo delete "$LA" 0 1
want=$(printf 'status 0x0000 0x%016x 0x%016x 0x%016x' "$GA" 0 $ASSIGNED)
grep -q "$want" "$T/sac.out" || t_fail "Delete answered: $(tail -n 1 "$T/sac.out")"
! path_to $ALIAS "$T/pr.gone" && ! grep -q dlid "$T/pr.gone" ||
	t_fail "a PathRecord by a deleted alias: $(head -c 300 "$T/pr.gone")"
path_to $ASSIGNED "$T/pr.kept" && t_field_eq "$T/pr.kept" dlid "$LA" ||
	t_fail "the other alias went too: $(head -c 300 "$T/pr.kept")"
t_judge_ok

# sequence OUT: (e)'s requests on a fresh fabric, answers with the LIDs left out into OUT
sequence() {
	local out=$1 la lb
	sim_stop
	sim_start "$NET"
	if [ "$SM" = opensm ]; then
		sm_start # its configuration: $T/osm.conf
	else
		sm_start -F "$T/ibsmd.conf"
	fi
	sm_wait_up 60
	sim_run ibnetdiscover >"$T/ibnd.$SM" || t_fail "ibnetdiscover failed"
	la=$("$PYTHON" "$MCTOOL" lid "$T/ibnd.$SM" $HA) && lb=$("$PYTHON" "$MCTOOL" lid "$T/ibnd.$SM" $HB) ||
		t_fail "no LIDs"
	: >"$T/sac.out"
	sac $HA guidinfo set "$la" 0 1=$ALIAS 2=0
	sac $HA guidinfo get "$la" 0
	sac $HA guidinfo set "$la" 4 1=0x0002c903000abcd2 --expect 0x0300
	sac $HA guidinfo set 0xbff0 0 1=0x0002c903000abcd2 --expect 0x0300
	sac $HA guidinfo set "$la" 0 0=0x0002c903000abcd2 --expect 0x0200
	sac $HA guidinfo delete "$la" 0 0 --expect 0x0200
	sac $HB guidinfo set "$lb" 0 1=$ALIAS
	sac $HA guidinfo delete "$la" 0 3
	sac $HA guidinfo delete "$la" 0 1
	sac $HA guidinfo set "$la" 0 1=0
	sac $HA guidinfo delete "$la" 0 2
	sac $HA guidinfo set "$la" 0 2=0
	sed 's/ lid [0-9]* / /' "$T/sac.out" >"$out"
	path_to $ASSIGNED "$T/pr.$SM" || t_fail "$SM: saquery -p by alias GID failed"
	[ "$(field "$T/pr.$SM" dlid)" = "$la" ] && echo "path dgid $(field "$T/pr.$SM" dgid)" >>"$out" ||
		t_fail "$SM: PathRecord by alias GID: dlid $(field "$T/pr.$SM" dlid), want $la"
	sm_stop
}

t_step "(e) the same requests to ibsmd and to OpenSM 3.3.23"
command -v opensm >/dev/null || t_skip "opensm missing: (a)-(d) passed"
sequence "$T/seq.ibsmd"
printf 'force_log_flush TRUE\nsm_assigned_guid 0x42\n' >"$T/osm.conf"
SM=opensm
sequence "$T/seq.opensm"
SM=ibsmd
diff "$T/seq.opensm" "$T/seq.ibsmd" >"$T/seq.diff" ||
	t_fail "answers differ from OpenSM's (< OpenSM, > ibsmd): $(cat "$T/seq.diff")"
t_info "$(wc -l <"$T/seq.ibsmd") answers, all as OpenSM's"
t_info "ok"
