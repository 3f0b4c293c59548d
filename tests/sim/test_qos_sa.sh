#!/bin/bash
# What the SA answers under a QoS policy, ibsmd against OpenSM 3.3.23: the same fresh ibsim
# fabric, the same opensm.conf (qos TRUE, qos_policy_file, partition_config_file), the SM as
# a daemon, once OpenSM, once ibsmd; then the same PathRecord queries (`saquery -p`), each
# matched by another rule of the policy, the IPoIB broadcast groups (`saquery -g`) and
# MCMemberRecord joins (tests/tools/sa_client), and every field of every answer compared.
# A difference is listed as "QUERY FIELD: OpenSM X, ibsmd Y" (e.g. "pr_dst_guid sl: OpenSM
# 0x2, ibsmd 0x0"); every phase runs, then the test fails naming the phases. QOS_OPENSM_ONLY=1
# runs the OpenSM half alone (the expectations about OpenSM's answers still hold).
#
# The policy (below) has port groups by port GUID (Storage: H4), port name (Compute:
# "H2/P1"), partition (StoragePart: partition "storage" 0x8001 of partitions.conf, H3 and
# H4) and node type (Switches); qos-levels with SL, mtu-limit, rate-limit, packet-life;
# qos-match-rules by qos-class, destination, source, pkey, service-id; qos-ulps (default,
# any target-port-guid, ipoib by pkey). The queries (from H1, the SM's host, by LIDs) and
# the rule each should meet, first match wins, then qos-ulps, then DEFAULT:
#   pr_default   H1->H2                      no rule                 DEFAULT (sl 1)
#   pr_dst_guid  H1->H4                      destination Storage     ToStorage (sl 2, mtu 1024,
#                                                                    2.5 Gb/s, life 12)
#   pr_src_name  H2->H1                      source Compute          FromCompute (sl 3, life 16)
#   pr_pkey      H4->H3 --pkey 0x8001        pkey 0x8001             ByPkey (sl 4)
#   pr_sid       H1->H2 --service_id 0x1010  service-id range        BySid (sl 5, mtu 512)
#   pr_class     H1->H2 --qos_class 4        qos-class 4             ByClass (sl 6, 2.5 Gb/s)
#   pr_src_part  H3->H1                      source StoragePart      ByPart (sl 7)
#   pr_lvl_pkey  H4->H3                      source and destination  InPart (sl 12, the
#                                            StoragePart             level's P_Key: OpenSM
#                                                                    answers 0x0001, full bit
#                                                                    off; ibsmd 0x8001, below)
#   pr_dst_sw    H1->S2                      destination Switches    ToSwitch (sl 8, life 20)
#   pr_ulp_tguid H1->H3                      qos-ulps target guid    sl 9
#   pr_ulp_ipoib H1->H2 --pkey 0x7fff        qos-ulps ipoib          sl 11
#   pr_sl_bad    H1->H4 --sl 0               ToStorage has sl 2      no record (OpenSM ERR 1F1F)
#   pr_sl_same   H1->H4 --sl 2               answered, but Reversible 0: the way back
#                                            H4->H1 meets ByPart (sl 7), OpenSM ERR 1F1F
#   pr_mtu_over  H1->H4 --mtu 4 (2048)       above the level's 1024  (as OpenSM)
#   pr_rate_over H1->H4 --rate 3 (10 Gb/s)   above the level's 2.5   (as OpenSM)
# Pairs asked without a P_Key share one partition only (the Default), so the record's
# P_Key is the same whichever common P_Key an SM would pick. Left out of the comparison:
# DLID and SLID (the SMs may number ports otherwise), the P_Key of pr_lvl_pkey (OpenSM 3.3.23
# answers a level's P_Key without the membership bit, a limited member's key, unlike every
# other PathRecord it answers; ibsmd answers the source port's own P_Key, full bit and all, as
# without a policy: ibsmd-qos-policy(5) says so; checked below), ServiceID and QoSClass (OpenSM 3.3.23
# answers 0 in both even when the request has them, ibsmd echoes them (lib/sa/path.c): a
# difference that predates QoS, not this test's); every other field saquery prints is
# compared, and saquery's exit status (0 for an empty answer too, so a query that timed out
# shows as a difference, not as "no record").
# Multicast: the IPoIB broadcast groups of both partitions (saquery -g from H3, a member of
# both: the SA shows a requester only its partitions' groups; MGID, MTU, P_Key, rate, SL;
# the MLID left out) and sa_client joins that create IPoIB groups, which must match their
# broadcast group: with the broadcast group's SL, as an IPoIB client joins (@PKEY below),
# with SL 5 (refused, 0x0200 "SL mismatch: query 5 group 0"), in partition 0x8001 from H3
# (status, Q_Key, P_Key, MTU, rate, SL; not the MLID, nor JoinState and Scope: OpenSM
# answers a create with Scope 0, ibsmd with the MGID's, a difference that predates QoS).
# The SLs are not compared but checked on each side: OpenSM 3.3.23 leaves the partitions'
# SL 0 whatever the policy; ibsmd gives a partition named by match rules' P_Keys the SL of
# the last such rule's level, as later OpenSM versions do (ERR AC15): 0x8001 SL 10 and
# 0x7fff SL 11 from the qos-ulps ipoib lines (ibsmd-qos-policy(5), MULTICAST).
# A bad policy at start (a syntax error on line 34): OpenSM logs "ERR AC05: Syntax error
# (line 34:14)" and "ERR AC03: Failed parsing QoS policy file", runs on without any policy
# (SL 0, the requested SL taken); the same PathRecords are compared, and ibsmd's log must
# name the file and line (BAD:34).
# ibsim has no RMPP: every query here is answered by one record in one MAD.
# shellcheck disable=SC1091,SC2086,SC2015 # lists split on purpose; A && B || fail
. "$(dirname "$0")/lib.sh"
sim_init
command -v opensm >/dev/null || t_skip "opensm not installed"
sa_tools_init
# shellcheck disable=SC2034 # read by lib.sh
SIM_TIMEOUT=20 # a client that does not answer in 20 s has failed here
# SM=opensm (the harness checked with OpenSM alone) runs the OpenSM half only
[ "$SM" = opensm ] && QOS_OPENSM_ONLY=1

NET=$T/qossa.net
cat >"$NET" <<'EOF'
Hca	1 "H1"
[1]	"S1"[1]

Hca	1 "H2"
[1]	"S1"[2]

Hca	1 "H3"
[1]	"S2"[1]

Hca	1 "H4"
[1]	"S2"[2]

Switch	4 "S1" # "S1" enhanced port 0
[1]	"H1"[1]
[2]	"H2"[1]
[3]	"S2"[3]

Switch	4 "S2" # "S2" base port 0
[1]	"H3"[1]
[2]	"H4"[1]
[3]	"S1"[3]
EOF
# the port GUIDs ibsim gives H1..H4 (CA GUIDs from 0x100000, each CA node+port GUIDs)
G_H3=0x100005
G_H4=0x100007

PART=$T/partitions.conf
cat >"$PART" <<EOF
Default=0x7fff, ipoib : ALL=full;
storage=0x8001, ipoib : $G_H3=full, $G_H4=full;
EOF

POLICY=$T/qos-policy.conf
cat >"$POLICY" <<EOF
port-groups
    port-group
        name: Storage
        port-guid: $G_H4
    end-port-group
    port-group
        name: Compute
        port-name: H2/P1
    end-port-group
    port-group
        name: StoragePart
        partition: storage
    end-port-group
    port-group
        name: Switches
        node-type: SWITCH
    end-port-group
end-port-groups

qos-levels
    qos-level
        name: DEFAULT
        sl: 1
    end-qos-level
    qos-level
        name: ToStorage
        sl: 2
        mtu-limit: 3
        rate-limit: 2
        packet-life: 12
    end-qos-level
    qos-level
        name: FromCompute
        sl: 3
        packet-life: 16
    end-qos-level
    qos-level
        name: ByPkey
        sl: 4
        pkey: 0x8001
    end-qos-level
    qos-level
        name: BySid
        sl: 5
        mtu-limit: 2
    end-qos-level
    qos-level
        name: ByClass
        sl: 6
        rate-limit: 2
    end-qos-level
    qos-level
        name: ByPart
        sl: 7
    end-qos-level
    qos-level
        name: InPart
        sl: 12
        pkey: 0x8001
    end-qos-level
    qos-level
        name: ToSwitch
        sl: 8
        packet-life: 20
    end-qos-level
end-qos-levels

qos-ulps
    default : 0
    any, target-port-guid $G_H3 : 9
    ipoib, pkey 0x8001 : 10
    ipoib : 11
end-qos-ulps

qos-match-rules
    qos-match-rule
        qos-class: 4
        qos-level-name: ByClass
    end-qos-match-rule
    qos-match-rule
        destination: Storage
        qos-level-name: ToStorage
    end-qos-match-rule
    qos-match-rule
        source: Compute
        qos-level-name: FromCompute
    end-qos-match-rule
    qos-match-rule
        pkey: 0x8001
        qos-level-name: ByPkey
    end-qos-match-rule
    qos-match-rule
        service-id: 0x1000-0x10ff
        qos-level-name: BySid
    end-qos-match-rule
    qos-match-rule
        source: StoragePart
        destination: StoragePart
        qos-level-name: InPart
    end-qos-match-rule
    qos-match-rule
        source: StoragePart
        qos-level-name: ByPart
    end-qos-match-rule
    qos-match-rule
        destination: Switches
        qos-level-name: ToSwitch
    end-qos-match-rule
end-qos-match-rules
EOF
# the same with a syntax error on line 34 ("sl x3"), and a misspelt keyword further on
BAD=$T/bad-policy.conf
sed 's/^        sl: 3$/        sl: x3/; s/name: ByPkey/nam ByPkey/' "$POLICY" >"$BAD"
[ "$(sed -n 34p "$BAD")" = "        sl: x3" ] || t_fail "the bad policy's error is not on line 34"

# the queries: NAME SRC DST [saquery options]; SRC and DST node names
PR_QUERIES='
pr_default H1 H2
pr_dst_guid H1 H4
pr_src_name H2 H1
pr_pkey H4 H3 --pkey 0x8001
pr_sid H1 H2 --service_id 0x1010
pr_class H1 H2 --qos_class 4
pr_src_part H3 H1
pr_lvl_pkey H4 H3
pr_dst_sw H1 S2
pr_ulp_tguid H1 H3
pr_ulp_ipoib H1 H2 --pkey 0x7fff
pr_sl_bad H1 H4 --sl 0
pr_sl_same H1 H4 --sl 2
pr_mtu_over H1 H4 --mtu 4
pr_rate_over H1 H4 --rate 3
'
# under the bad policy (no policy at all for OpenSM)
BAD_QUERIES='
bad_default H1 H2
bad_dst_guid H1 H4
bad_sl H1 H4 --sl 2
'
# MCMemberRecord joins: NAME HOST MGID [sa_client join options]
JOINS='
join_plain H1 ff12:601b:ffff::1:2 --create --sl @ffff
join_sl H1 ff12:601b:ffff::1:3 --create --sl 5
join_part H3 ff12:601b:8001::1:4 --create --pkey 0x8001 --sl @8001
'

# norm_pr NAME FILE: "NAME field value" per field of a saquery PathRecord dump ("NAME
# record none" when there is none), DLID, SLID, ServiceID and QoSClass left out (above)
norm_pr() {
	awk -v q="$1" '
		/PathRecord dump/ { n++; next }
		/^[ \t]+[a-z_0-9]+\.+/ { l = $0; sub(/^[ \t]+/, "", l); f = l; sub(/\..*/, "", f)
			v = l; sub(/^[a-z_0-9]+\.+/, "", v)
			if (f ~ /^(dlid|slid|service_id|qos_class)$/) next
			if (q == "pr_lvl_pkey" && f == "pkey") next
			print q " " f " " v }
		END { print q " record " (n ? (n > 1 ? "x" n : "present") : "none") }' "$2"
}

# norm_groups FILE: "MGID field value" per field of saquery -g, the MLID left out
norm_groups() {
	awk '/group dump/ { g = ""; next }
		/^[ \t]+[A-Za-z]+\.+/ { l = $0; sub(/^[ \t]+/, "", l); f = l; sub(/\..*/, "", f)
			v = l; sub(/^[A-Za-z]+\.+/, "", v)
			if (f == "MGID") { g = v; next }
			if (f != "Mlid") print "group " g " " f " " v }' "$1" | sort
}

# norm_join NAME FILE: sa_client's answer line as "NAME key value": status, Q_Key, P_Key,
# MTU, rate, SL (not the MLID, JoinState, Scope: see above)
norm_join() {
	awk -v q="$1" '{ for (i = 1; i < NF; i++) if ($i ~ /^(status|qkey|pkey|mtu|rate|sl)$/) {
			print q " " $i " " $(i + 1); i++ } }' "$2"
}

# pr_all NAME QUERIES OUT: every query of the list, answers normalised into OUT
pr_all() {
	local out=$2 name src dst opts rc raw=$T/sq.out
	while read -r name src dst opts; do
		[ -n "$name" ] || continue
		# shellcheck disable=SC2086 # options split on purpose
		rc=0
		sim_run saquery -t 2000 -p --src-to-dst "$(lid_of $src):$(lid_of $dst)" $opts >"$raw" ||
			rc=$?
		echo "$name saquery_exit $rc" >>"$out"
		norm_pr "$name" "$raw" >>"$out"
		[ "$name" != pr_lvl_pkey ] || cp "$raw" "$out.lvl_pkey"
	done <<<"$1"
}

# bcast_sl PKEY MCFILE: the SL of partition PKEY's IPv4 broadcast group in a norm_groups reading
bcast_sl() {
	awk -v g="ff12:401b:$1::ffff:ffff" '$1 == "group" && $2 == g && $3 == "SL" { print $4 }' "$2"
}

# mc_all OUT: the broadcast groups, then the joins (@PKEY: that broadcast group's SL); the
# SL lines go to OUT.sl, not compared between the SMs (above)
mc_all() {
	local out=$1 name host mgid opts raw=$T/mc.out p
	SIM_HOST=H3 sim_run saquery -t 2000 -g >"$raw" ||
		t_fail "saquery -g failed: $(tail -2 "$T/clients.log")"
	norm_groups "$raw" >"$out.all"
	while read -r name host mgid opts; do
		[ -n "$name" ] || continue
		for p in ffff 8001; do
			opts=${opts//@$p/$(bcast_sl $p "$out.all")}
		done
		# shellcheck disable=SC2086 # options split on purpose
		# exit 1 when the status is not 0: the status is what is compared
		SIM_HOST=$host sim_client "$SA_CLIENT" -t 2000 join "$mgid" $opts >"$raw" || [ $? = 1 ] ||
			t_fail "sa_client join $mgid $opts failed: $(tail -2 "$T/clients.log")"
		norm_join "$name" "$raw" >>"$out.all"
	done <<<"$JOINS"
	grep -Ei '^[^ ]+ [^ ]+ sl |^join_[a-z]+ sl ' "$out.all" >"${out%.txt}sl.txt"
	grep -Eiv '^[^ ]+ [^ ]+ sl |^join_[a-z]+ sl ' "$out.all" >>"$out"
}

# daemon_up WHICH POLICYFILE: fresh ibsim, empty cache, WHICH (opensm|ibsmd) as a daemon
# with the policy, up; LIDs from ibnetdiscover in $T/ibnd (lid_of)
daemon_up() {
	local which=$1 policy=$2
	sm_stop
	sim_stop
	sim_clear_cache
	printf 'force_log_flush TRUE\nqos TRUE\nqos_policy_file %s\npartition_config_file %s\n' \
		"$policy" "$PART" >"$T/osm.conf"
	sim_start "$NET"
	SM=$which sm_start -F "$T/osm.conf"
	SM=$which sm_wait_up 60
	sim_run ibnetdiscover >"$T/ibnd" || t_fail "ibnetdiscover failed"
}

# phase WHICH: the policy phase with WHICH, answers in $T/WHICH-policy.txt, $T/WHICH-mc.txt
phase() {
	local w=$1 tag=$1
	[ "$w" = opensm ] && tag=osm
	t_step "policy: $w"
	daemon_up "$w" "$POLICY"
	: >"$T/$tag-policy.txt"
	: >"$T/$tag-mc.txt"
	pr_all "$PR_QUERIES" "$T/$tag-policy.txt"
	mc_all "$T/$tag-mc.txt"
	cp "$SM_LOG" "$T/$tag-policy.smlog"
	t_step "bad policy at start: $w"
	daemon_up "$w" "$BAD"
	: >"$T/$tag-bad.txt"
	pr_all "$BAD_QUERIES" "$T/$tag-bad.txt"
	cp "$SM_LOG" "$T/$tag-bad.smlog"
	sm_alive || t_fail "$w died under the bad policy"
	sm_stop
}

phase opensm
grep -q 'Loading QoS policy file' "$T/osm-policy.smlog" && ! grep -q 'ERR AC' "$T/osm-policy.smlog" ||
	t_fail "OpenSM did not load the policy cleanly: $(grep 'ERR AC' "$T/osm-policy.smlog")"
ref_expect policy "pr_default sl 0x1" "pr_dst_guid sl 0x2" "pr_dst_guid mtu 0x83" \
	"pr_dst_guid rate 0x82" "pr_dst_guid pkt_life 0x8C" "pr_src_name sl 0x3" \
	"pr_pkey sl 0x4" "pr_sid sl 0x5" "pr_sid mtu 0x82" "pr_class sl 0x6" "pr_class rate 0x82" \
	"pr_src_part sl 0x7" "pr_lvl_pkey sl 0xC" "pr_dst_sw sl 0x8" "pr_ulp_tguid sl 0x9" "pr_ulp_ipoib sl 0xB" \
	"pr_sl_bad record none" "pr_sl_same sl 0x2" "pr_sl_same num_path_revers 0x0" \
	"pr_mtu_over record none" "pr_rate_over record none" "pr_dst_sw pkt_life 0x94"
ref_expect mc "join_plain status 0x0000" "join_sl status 0x0200" "join_part status 0x0000"
ref_expect mcsl "group ff12:401b:8001::ffff:ffff SL 0x0" "group ff12:401b:ffff::ffff:ffff SL 0x0" \
	"join_plain sl 0" "join_part sl 0"
ref_expect bad "bad_default sl 0x0" "bad_sl sl 0x2"
grep -q 'ERR AC05: Syntax error (line 34:' "$T/osm-bad.smlog" && grep -q 'ERR AC03' "$T/osm-bad.smlog" ||
	t_fail "OpenSM did not report the bad policy as expected: $(grep 'ERR AC' "$T/osm-bad.smlog")"
if [ "${QOS_OPENSM_ONLY:-0}" != 1 ]; then
	phase ibsmd
	ref_compare policy
	grep -Eq '^[[:space:]]*pkey\.+0x0*1$' "$T/osm-policy.txt.lvl_pkey" ||
		t_fail "pr_lvl_pkey: OpenSM's P_Key is not 0x1: $(grep pkey "$T/osm-policy.txt.lvl_pkey")"
	grep -Eq '^[[:space:]]*pkey\.+0x8001$' "$T/ibsmd-policy.txt.lvl_pkey" ||
		t_fail "pr_lvl_pkey: ibsmd's P_Key is not 0x8001: $(grep pkey "$T/ibsmd-policy.txt.lvl_pkey")"
	ref_compare mc
	for l in "group ff12:401b:8001::ffff:ffff SL 0xA" "group ff12:401b:ffff::ffff:ffff SL 0xB" \
		"join_plain sl 11" "join_part sl 10"; do
		grep -qxF "$l" "$T/ibsmd-mcsl.txt" ||
			t_fail "ibsmd's multicast SLs under the policy: no line '$l' in: $(cat "$T/ibsmd-mcsl.txt")"
	done
	ref_compare bad
	if ! grep -q "$(basename "$BAD"):34" "$T/ibsmd-bad.smlog"; then
		t_info "ibsmd's log does not name $(basename "$BAD"):34 (the syntax error)" >&2
		REF_FAILED+=" bad-policy-message"
	fi
fi
[ -z "$REF_FAILED" ] || t_fail "ibsmd's SA answers under QoS differ from OpenSM's in:$REF_FAILED (above)"
t_info "ok"
