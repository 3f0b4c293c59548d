#!/bin/bash
# OpenSM's QoS policy file (qos TRUE, qos_policy_file; lib/policy/qos_policy.c) on the fat
# tree k=4: saquery PathRecords between hosts matched by different rules carry the SL, MTU
# limit, rate limit and packet lifetime of their level: by destination port name, by
# destination port GUID, by service ID (--service_id), by QoS class (--qos_class), by P_Key
# (--pkey, a qos-ulps rule after the match rules), the default level otherwise; an SL asked
# for must be the level's. The same options are OpenSM's (-Q -Y), so SM=opensm runs the same
# checks against OpenSM 3.3.23. With ibsmd, then: a reload with a bad policy keeps the one in
# force (and says so), a reload with a changed one takes it.
. "$(dirname "$0")/lib.sh"
sim_init
command -v saquery >/dev/null || t_skip "saquery missing (infiniband-diags)"
NET=$FABRICS/fattree-k4.net
A=pod1-edge1-host1 # where the clients run (SIM_HOST)
B=pod3-edge2-host2 # storage, by port name
C=pod1-edge1-host2 # the default level, unless the request says otherwise
D=pod2-edge1-host1 # by port GUID

# the first port GUID of node $1 as ibnetdiscover shows it
guid_of_node() {
	awk -v n="\"$1\"" '$1 == "Ca" && index($0, n) { ca = 1; next }
		ca && /^\[1\]/ { match($0, /\([0-9a-fA-F]+\)/); print "0x" substr($0, RSTART + 1, RLENGTH - 2); exit }
		/^$/ { ca = 0 }' "$T/ibnd.pre"
}

policy() { # the policy with D's port GUID $1 and B's level SL $2
	cat <<EOF
# test_qos_policy.sh
port-groups
    port-group
        name: storage
        use: by port name
        port-name: $B/P1
    end-port-group
    port-group
        name: special
        port-guid: $1
    end-port-group
end-port-groups
qos-setup
    sl2vl-tables
        sl2vl-scope
            group: storage
            sl2vl-table: 0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,7
        end-sl2vl-scope
    end-sl2vl-tables
end-qos-setup
qos-levels
    qos-level
        name: DEFAULT
        sl: 0
    end-qos-level
    qos-level
        name: storage
        sl: $2
        mtu-limit: 3
        rate-limit: 2
        packet-life: 12
    end-qos-level
    qos-level
        name: special
        sl: 5
    end-qos-level
    qos-level
        name: service
        sl: 6
    end-qos-level
    qos-level
        name: class4
        sl: 7
        mtu-limit: 2
    end-qos-level
end-qos-levels
qos-match-rules
    qos-match-rule
        service-id: 0x1234-0x1240
        qos-level-name: service
    end-qos-match-rule
    qos-match-rule
        qos-class: 4
        qos-level-name: class4
    end-qos-match-rule
    qos-match-rule
        destination: storage
        qos-level-name: storage
    end-qos-match-rule
    qos-match-rule
        destination: special
        qos-level-name: special
    end-qos-match-rule
end-qos-match-rules
qos-ulps
    ipoib : 2
end-qos-ulps
EOF
}

# saquery ARGS > $T/NAME.sq; N PathRecords expected
sq() {
	local name=$1 n=$2 got
	shift 2
	sim_run saquery "$@" >"$T/$name.sq"
	got=$(grep -c "PathRecord dump" "$T/$name.sq")
	[ "$got" -eq "$n" ] || t_fail "saquery $*: $got records, want $n: $(head -c 600 "$T/$name.sq")"
}

# the GUID of D before the SM starts: ibnetdiscover works on an unconfigured fabric too
sim_start "$NET"
sim_run ibnetdiscover >"$T/ibnd.pre" || t_fail "ibnetdiscover failed"
GD=$(guid_of_node "$D")
[ -n "$GD" ] || t_fail "no port GUID for $D"
POL=$T/qos-policy.conf
policy "$GD" 3 >"$POL"
sim_stop
SM_ARGS="${SM_ARGS:-} -Q -Y $POL"
sm_daemon_up "$NET" 60
declare -A LID
for n in $A $B $C $D; do LID[$n]=$(lid_of "$n"); done
a=${LID[$A]} b=${LID[$B]} c=${LID[$C]} d=${LID[$D]}
t_info "LIDs: A=$a B=$b C=$c D=$d; D's port GUID $GD"

# the record of $T/$1.sq has SL $2, MTU code $3, rate code $4, lifetime $5
want_rec() {
	t_field_eq "$T/$1.sq" sl "$2"
	t_field_eq "$T/$1.sq" mtu $((0x80 | $3))
	t_field_eq "$T/$1.sq" rate $((0x80 | $4))
	t_field_eq "$T/$1.sq" pkt_life $((0x80 | $5))
}

t_step "the default level: the path's own values"
sq plain 1 PR --src-to-dst "$a:$c"
want_rec plain 0 4 3 18

t_step "destination by port name: SL 3, MTU 1024, 2.5 Gb/s, lifetime 12"
sq storage 1 PR --src-to-dst "$a:$b"
want_rec storage 3 3 2 12
t_field_eq "$T/storage.sq" num_path_revers 0x80 # the way back: DEFAULT
sq storage.back 1 PR --src-to-dst "$b:$a"
t_field_eq "$T/storage.back.sq" sl 0
sq storage.sl 0 PR --src-to-dst "$a:$b" --sl 1 # not the level's SL
sq storage.sl3 1 PR --src-to-dst "$a:$b" --sl 3
t_field_eq "$T/storage.sl3.sq" num_path_revers 0 # SL 3 is not DEFAULT's, the way back
sq storage.mtu 0 PR --src-to-dst "$a:$b" --mtu 0x84 # exactly 2048: above the limit

t_step "destination by port GUID: SL 5"
sq special 1 PR --src-to-dst "$a:$d"
t_field_eq "$T/special.sq" sl 5
t_field_eq "$T/special.sq" mtu 0x84

t_step "by service ID, QoS class and P_Key"
sq sid 1 PR --src-to-dst "$a:$c" --service_id 0x1236
t_field_eq "$T/sid.sq" sl 6
sq sid.out 1 PR --src-to-dst "$a:$c" --service_id 0x1241
t_field_eq "$T/sid.out.sq" sl 0
sq class 1 PR --src-to-dst "$a:$c" --qos_class 4
t_field_eq "$T/class.sq" sl 7
t_field_eq "$T/class.sq" mtu 0x82
sq class.b 1 PR --src-to-dst "$a:$b" --qos_class 4 # the rules' order: class4 first
t_field_eq "$T/class.b.sq" sl 7
sq pkey 1 PR --src-to-dst "$a:$c" --pkey 0x7fff
t_field_eq "$T/pkey.sq" sl 2
sq pkey.full 1 PR --src-to-dst "$a:$c" --pkey 0xffff # the low 15 bits count
t_field_eq "$T/pkey.full.sq" sl 2
sq pkey.b 1 PR --src-to-dst "$a:$b" --pkey 0xffff # match rules before qos-ulps
t_field_eq "$T/pkey.b.sq" sl 3

if [ "$SM" = ibsmd ]; then
	t_step "reload with a bad policy: the one in force stays"
	grep -q "qos-setup (0 vlarb-scopes, 1 sl2vl-scopes) parsed and ignored" "$SM_LOG" ||
		t_fail "no line saying qos-setup is ignored"
	cp "$POL" "$T/good.conf"
	printf 'qos-levels\n  qos-level\n    name: DEFAULT\n    sl: 99\n  end-qos-level\nend-qos-levels\n' >"$POL"
	sm_ctl reload >>"$T/clients.log" 2>&1 || t_fail "ibsmctl reload failed"
	wait_log "$SM_LOG" "qos-policy.conf:4: sl: illegal SL value 99" 10
	wait_log "$SM_LOG" "qos policy .* not taken \(2 errors\): the previous policy stays in force" 10
	sq kept 1 PR --src-to-dst "$a:$b"
	t_field_eq "$T/kept.sq" sl 3

	t_step "reload with a changed policy: taken"
	policy "$GD" 4 >"$POL"
	n0=$(grep -c "qos policy .*qos-policy.conf loaded" "$SM_LOG")
	sm_ctl reload >>"$T/clients.log" 2>&1 || t_fail "ibsmctl reload failed"
	for ((i = 0; i < 100; i++)); do
		[ "$(grep -c "qos policy .*qos-policy.conf loaded" "$SM_LOG")" -gt "$n0" ] && break
		sleep 0.1
	done
	[ "$i" -lt 100 ] || t_fail "the changed policy was not loaded: $(tail -n 5 "$SM_LOG")"
	sq changed 1 PR --src-to-dst "$a:$b"
	t_field_eq "$T/changed.sq" sl 4
fi
sm_alive || t_fail "$SM died"
sm_stop
t_step "pass"
