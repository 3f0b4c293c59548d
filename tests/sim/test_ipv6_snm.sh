#!/bin/bash
# consolidate_ipv6_snm_req on ibsim, ibsmd against OpenSM 3.3.23 with the same file: IPv6
# solicited-node groups (ff12:601b:ffff::1:ffXX:XXXX) joined from two hosts as IPoIB joins
# them (sa_client, the broadcast group's Q_Key). Each SM must answer the same: the
# solicited-node groups that differ in their last 24 bits share the first one's MLID, each
# is a group of its own (found by its MGID), a group whose byte 11 is not 1 gets
# its own MLID, and the shared MLID stays while one of its groups does.
# Then ibsmd without the key: one MLID per group. MLIDs are compared as "same as the first
# group's" or "another one", not by value.
. "$(dirname "$0")/lib.sh"
sim_init
[ "$SM" = ibsmd ] || t_skip "compares ibsmd with OpenSM"
command -v opensm >/dev/null || t_skip "opensm not installed"
sa_tools_init
NET=$FABRICS/fattree-k4.net
A=pod1-edge1-host1
B=pod3-edge2-host2
SNM1=ff12:601b:ffff::1:ff00:1
SNM2=ff12:601b:ffff::1:ffab:cdef
SNM3=ff12:601b:ffff::1:ff00:3
OTHER=ff12:601b:ffff::2:ff00:2 # byte 11 is 2: no solicited-node MGID

# sac HOST ARGS...: one sa_client request on HOST's port; the answer line in $T/sac.line
sac() {
	local h=$1
	shift
	SIM_HOST=$h sim_client "$SA_CLIENT" -t 3000 "$@" >"$T/sac.line" ||
		t_fail "sa_client on $h: $* failed: $(cat "$T/sac.line") $(tail -n 2 "$T/clients.log")"
}
mlid() { sed -n 's/.* mlid \(0x[0-9a-f]*\).*/\1/p' "$T/sac.line"; }

# run NAME: the joins and leaves on the running SM; "same"/"other" per step into $T/NAME.out
run() {
	local name=$1 out=$T/$1.out first m h g
	: >"$out"
	sac $A join $SNM1 --create
	first=$(mlid)
	[ -n "$first" ] || t_fail "$1: no mlid in $(cat "$T/sac.line")"
	for step in "$B $SNM2" "$A $SNM3" "$B $OTHER"; do
		read -r h g <<<"$step"
		sac "$h" join "$g" --create
		m=$(mlid)
		[ "$m" = "$first" ] && echo "$g same" >>"$out" || echo "$g other" >>"$out"
	done
	# each its own group, on the MLID the join said (saquery -m would list them, but its
	# table needs more than one MAD here)
	for g in $SNM1 $SNM2 $SNM3; do
		sac $A query "$g"
		[ "$(mlid)" = "$first" ] || echo "$g: query says $(cat "$T/sac.line")" >>"$out"
	done
	# the first group goes, the MLID stays with the others
	sac $A leave $SNM1
	sac $A join ff12:601b:ffff::1:ff00:4 --create
	[ "$(mlid)" = "$first" ] && echo "after leave same" >>"$out" || echo "after leave other" >>"$out"
	t_info "$name: $(tr '\n' ';' <"$out")"
}

sim_start "$NET"
printf 'consolidate_ipv6_snm_req TRUE\npartition_config_file %s\n' "$T/no-partitions.conf" \
	>"$T/common.conf"

t_step "OpenSM with consolidate_ipv6_snm_req TRUE"
cp "$T/common.conf" "$T/osm.conf"
printf 'force_log_flush TRUE\n' >>"$T/osm.conf"
SM=opensm sm_start
SM=opensm sm_wait_up 60
run osm
SM=opensm sm_stop

t_step "ibsmd with the same file"
sim_clear_cache
sm_start -F "$T/common.conf"
sm_wait_up 60
run ibsmd
sm_stop
diff "$T/osm.out" "$T/ibsmd.out" >"$T/diff" || t_fail "ibsmd differs from OpenSM: $(cat "$T/diff")"
grep -q "$SNM2 same" "$T/ibsmd.out" || t_fail "no shared MLID: $(cat "$T/ibsmd.out")"

t_step "ibsmd without it: an MLID per group"
printf 'partition_config_file %s\n' "$T/no-partitions.conf" >"$T/plain.conf"
sm_start -F "$T/plain.conf"
sm_wait_up 60
sac $A join $SNM1 --create
first=$(mlid)
sac $B join $SNM2 --create
[ "$(mlid)" != "$first" ] || t_fail "one MLID without consolidate_ipv6_snm_req"
sm_alive || t_fail "ibsmd died"
sm_stop
t_step "pass"
