#!/bin/bash
# ServiceRecords on a live fabric (fat tree k=4), registered by sa_client (tests/tools) from
# one host, looked for from another and with saquery:
# (a) a service registered with a 3 s lease is found by `saquery SR` (ID, GID, P_Key, name)
#     and by a Get from another host, then is gone once the lease ran out (Get: no records,
#     saquery SR: nothing);
# (b) a registration renewed with an infinite lease outlives the first lease;
# (c) refused: a registration or a delete for another port's GID (0x0700), a P_Key the port
#     is not a member of (0x0200), a delete of a service that is not there (0x0300); a
#     delete by its own port removes it.
# ibsim carries one MAD per answer (no RMPP): one ServiceRecord (176 bytes) at a time.
# shellcheck disable=SC1091,SC2086,SC2015  # host lists split on purpose; A && B || fail
. "$(dirname "$0")/lib.sh"
sim_init
[ "$SM" = ibsmd ] || t_skip "ibsmd's SA services"
sa_tools_init
NET=$FABRICS/fattree-k4.net
HA=pod2-edge1-host1 # registers
HB=pod3-edge2-host2 # looks
LEASE=3
ID1=0x1000000000000abc
ID2=0x1000000000000abd

# sac HOST ARGS...: sa_client on HOST's port; its lines go to $T/sac.out
sac() {
	local h=$1
	shift
	# 3 s per try: a retry of a leave that went through would be refused
	SIM_HOST=$h sim_run "$SA_CLIENT" -t 3000 "$@" >>"$T/sac.out" ||
		t_fail "sa_client on $h: $* failed: $(tail -n 2 "$T/sac.out") $(tail -n 2 "$T/clients.log")"
}
# the value of field NAME in saquery's output FILE
field() { sed -n "s/^[[:space:]]*$2\.*\(.*\)\$/\1/p" "$1" | head -n 1; }

t_step "daemon on $(basename "$NET")"
sim_start "$NET"
# the default partition only, whatever /etc/opensm holds
printf 'partition_config_file %s\n' "$T/no-partitions.conf" >"$T/ibsmd.conf"
sm_start -F "$T/ibsmd.conf"
sm_wait_up 30
sim_run ibnetdiscover >"$T/ibnd" || t_fail "ibnetdiscover failed"
read -r GA <<<"$("$PYTHON" "$MCTOOL" port-guid "$T/ibnd" $HA | tr '\n' ' ')" ||
	t_fail "no GUIDs"

t_step "(a) a service with a $LEASE s lease: found, then gone"
sac $HA service register $ID1 "ibsmd test service" --lease $LEASE
sac $HB service query $ID1
grep -q "gid fe80::$(printf '%x:%x' $((GA >> 16)) $((GA & 0xffff))) " "$T/sac.out" ||
	t_fail "the Get does not answer $HA's GID: $(tail -n 1 "$T/sac.out")"
sim_run saquery SR >"$T/sr.1" || t_fail "saquery SR failed"
[ "$(grep -c 'ServiceRecord dump' "$T/sr.1")" = 1 ] || t_fail "saquery SR: $(head -c 400 "$T/sr.1")"
[ $(($(field "$T/sr.1" ServiceID))) = $((ID1)) ] || t_fail "ServiceID $(field "$T/sr.1" ServiceID)"
[ "$(field "$T/sr.1" ServiceName)" = "ibsmd test service" ] || t_fail "ServiceName wrong"
[ "$(field "$T/sr.1" ServiceP_Key)" = 0xFFFF ] || t_fail "ServiceP_Key $(field "$T/sr.1" ServiceP_Key)"
lease=$(($(field "$T/sr.1" ServiceLease)))
[ $lease -ge 1 ] && [ $lease -le $LEASE ] || t_fail "ServiceLease $lease, want 1..$LEASE (time left)"
t_info "saquery SR finds it: lease $lease s left"
gone=0
for ((i = 0; i < (LEASE + 5) * 4; i++)); do
	if SIM_HOST=$HB sim_run "$SA_CLIENT" service query $ID1 --expect 0x0300 >>"$T/sac.out"; then
		gone=1
		break
	fi
	sleep 0.25
done
[ $gone = 1 ] || t_fail "the service outlived its $LEASE s lease by 5 s"
sim_run saquery SR >"$T/sr.2" || t_fail "saquery SR failed"
! grep -q 'ServiceRecord dump' "$T/sr.2" || t_fail "saquery SR still shows it: $(head -c 300 "$T/sr.2")"
t_info "expired: the Get answers no records, saquery SR shows none"

t_step "(b) a renewed registration outlives the first lease"
sac $HA service register $ID2 "renewed" --lease 1
sac $HA service register $ID2 "renewed" # the same RID: an update, lease forever
sleep 2
sac $HB service query $ID2
grep -q "lease 4294967295 name renewed" "$T/sac.out" || t_fail "renewed: $(tail -n 1 "$T/sac.out")"
t_info "still there after 2 s, lease infinite"

t_step "(c) refused registrations and deletes"
sac $HB service register 0x2000 "not mine" --port-guid "$GA" --expect 0x0700
sac $HB service delete $ID2 --port-guid "$GA" --expect 0x0700
sac $HB service delete $ID2 --expect 0x0300 # $HB's GID: not that service
sac $HA service register 0x2001 "no such partition" --pkey 0x8123 --expect 0x0200
sac $HA service delete 0x2002 --expect 0x0300
sac $HB service query $ID2 # still there
sac $HA service delete $ID2
sac $HB service query $ID2 --expect 0x0300
t_info "0x0700 for another port's GID, 0x0200 outside the partition, 0x0300 for nothing"

sm_alive || t_fail "ibsmd died"
sm_stop
[ "$SM_RC" -eq 0 ] || t_fail "ibsmd exit $SM_RC on SIGTERM (want 0)"
t_step "pass"
