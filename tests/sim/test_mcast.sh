#!/bin/bash
# Multicast on a live fabric (fat tree k=4: 20 switches, 16 hosts, many paths), joins and
# leaves sent by sa_client (tests/tools) from the hosts, MCMemberRecord Set/Delete:
# (a) the IPoIB broadcast groups of the partitions with `ipoib` exist from the start
#     (`ibsmctl multicast`, saquery -m), with no member and no MFT entry;
# (b) hosts join the default broadcast group (full members and a send-only one), a group
#     one of them creates, and a partition's broadcast group; the MFTs of every switch
#     (`dump_fts -M`; `ibroute -M` of each switch says the same) carry each group from
#     every member to every receiving member exactly once, to nobody else, over a
#     loop-free tree (mctool.py tree);
# (c) a heavy sweep leaves the MFTs as they are; a switch-to-switch link of a tree goes
#     down (ibsim Unlink): after the sweep the trees reach every member again, without it;
#     a member host's link goes down: it is no member any more, nothing is sent its way;
# (d) bad joins and leaves get the SA status they should (wrong Q_Key, MTU, P_Key, SL; a
#     port outside the partition; a create without its components, send-only, not
#     multicast, in a foreign partition; leaves of bits not held) and change nothing;
# (e) after every member left, the MLIDs' MFT entries are gone on every switch, the
#     created group and its MLID too, the broadcast groups stay;
# (f) 5,000 create / send-only join / partial leave cycles (OpenSM leaked an MLID per
#     cycle), and 5,000 more with every other send-only join a proxy join: as many MLIDs in
#     use as before, MFTs clean, and a new group is created on the lowest MLID and works.
# MC_CYCLES changes the count.
# shellcheck disable=SC1091,SC2086,SC2015  # host lists split on purpose; A && B || fail
. "$(dirname "$0")/lib.sh"
sim_init
[ "$SM" = ibsmd ] || t_skip "ibsmd's multicast view"
sa_tools_init
: "${MC_CYCLES:=5000}"
SAC_RETRIES=0 # requests sent again after sa_client crashed (sac)
NET=$FABRICS/fattree-k4.net
PART=$T/partitions.conf
BCAST=ff12:401b:ffff::ffff:ffff    # IPoIB IPv4 broadcast, default partition
SBCAST=ff12:401b:8010::ffff:ffff   # the same in partition "storage" (0x0010)
G1=ff12:601b:ffff::1:1             # a group a host creates
G2=ff12:601b:ffff::2:2             # one more, after the cycles

# the broadcast group's members: receivers (full) and a send-only one
RECV="pod1-edge1-host1 pod1-edge1-host2 pod2-edge1-host1 pod3-edge2-host2 pod4-edge1-host1"
SENDONLY=pod2-edge2-host1
# G1: created by the first, joined by a full, a non-member (receives) and a send-only one
G1_FULL="pod1-edge2-host1 pod3-edge1-host1"
G1_NON=pod4-edge2-host1
G1_SEND=pod2-edge1-host2
STORAGE="pod1-edge2-host2 pod3-edge1-host2" # the members of partition storage
OUTSIDER=pod4-edge2-host2                   # in the default partition only

mct() { "$PYTHON" "$MCTOOL" "$@"; }
csv() { echo "$*" | tr ' ' ','; }

# sac HOST ARGS...: sa_client on HOST's port; its lines go to $T/sac.out
sac() {
	local h=$1
	shift
	# 3 s per try: a retry of a leave that went through would be refused
	local rc=0
	SIM_HOST=$h sim_client "$SA_CLIENT" -t 3000 "$@" >>"$T/sac.out" || rc=$?
	SAC_RETRIES=$((SAC_RETRIES + SIM_CLIENT_CRASHED))
	# a leave retried after a crash may have gone through the first time
	if [ $rc = 1 ] && [ "$SIM_CLIENT_CRASHED" = 1 ] && [ "$1" = leave ] &&
		tail -n 1 "$T/sac.out" | grep -q 'status 0x0200'; then
		t_info "the leave had gone through before the crash"
		rc=0
	fi
	[ $rc = 0 ] ||
		t_fail "sa_client on $h: $* failed (exit $rc): $(tail -n 2 "$T/sac.out")" \
			"$(tail -n 2 "$T/clients.log")"
}
# the multicast view in $T/mc.json; mc PATH: one member of it
mc_json() { sm_ctl --json multicast >"$T/mc.json" || t_fail "ibsmctl multicast failed"; }
mc() {
	"$PYTHON" -c 'import json, sys
v = json.load(open(sys.argv[1]))["result"]
for k in sys.argv[2].split("."):
    v = v[int(k)] if isinstance(v, list) else v[k]
print(v)' "$T/mc.json" "$1"
}
# the group of MGID in $T/mc.json: "MLID MEMBERS FULL NON SEND_ONLY" (nothing if none)
mc_group() {
	"$PYTHON" -c 'import json, sys
for g in json.load(open(sys.argv[1]))["result"]["groups"]:
    if g["mgid"] == sys.argv[2]:
        print(g["mlid"], g["members"], g["full"], g["non"], g["send_only"])' "$T/mc.json" "$1"
}
# wait until no MFT block is pending (joins and leaves are programmed by a pass of their own)
mft_settle() {
	local i
	for ((i = 0; i < 100; i++)); do
		mc_json
		[ "$(mc mft.clean)" = True ] && return 0
		sleep 0.1
	done
	t_fail "MFTs not clean after 10 s: $(tr -d ' \n' <"$T/mc.json" | grep -o '"mft":{[^}]*}')"
}
# every switch's MFT into FILE: `dump_fts -M` (one process walks the fabric by directed
# route), retried: the diags crash now and then on ibsim
dump_mfts() {
	local f=$1
	for _ in 1 2 3; do
		sim_run dump_fts -M >"$f" && grep -q 'valid mlids dumped' "$f" && return 0
	done
	t_fail "dump_fts -M failed"
}
# the same with `ibroute -M LID` of every switch, LID-routed (5 at a time)
ibroute_mfts() {
	local f=$1 lid i=0 n pids=()
	rm -f "$f".sw.*
	while read -r lid _; do
		i=$((i + 1))
		(for _ in 1 2 3; do
			sim_run ibroute -M "$lid" >"$f.sw.$i" && grep -q 'valid mlids dumped' "$f.sw.$i" &&
				exit 0
		done) &
		pids+=($!)
		# only these: a bare `wait` would wait for ibsim and the SM too
		[ ${#pids[@]} -eq 5 ] && { wait "${pids[@]}"; pids=(); }
	done <"$T/switches"
	[ ${#pids[@]} -eq 0 ] || wait "${pids[@]}"
	: >"$f"
	for ((n = 1; n <= i; n++)); do
		grep -q 'valid mlids dumped' "$f.sw.$n" 2>/dev/null ||
			t_fail "ibroute -M $(sed -n "${n}p" "$T/switches") failed"
		cat "$f.sw.$n" >>"$f"
	done
}
# t_tree MLID RECV SEND: the MFTs carry MLID to every receiver (mctool.py tree);
# t_tree_again: the same on the MFTs t_tree last read
t_tree() {
	dump_mfts "$T/mfts"
	t_tree_again "$@"
}
t_tree_again() {
	local out
	out=$(mct tree "$T/ibnd" "$T/mfts" "$@" 2>&1) || t_fail "$out"
	t_info "$out"
}
# t_mft_mlids WANT: the MLIDs found in the MFTs (space-separated hex, "" for none)
t_mft_mlids() {
	local got
	dump_mfts "$T/mfts"
	got=$(mct mft-mlids "$T/mfts" | tr '\n' ' ' | sed 's/ $//') || t_fail "cannot read the MFTs"
	[ "$got" = "$1" ] || t_fail "MLIDs in the MFTs: '$got', want '$1'"
	t_info "MLIDs in the MFTs: ${got:-none}"
}
hex() { printf '0x%04x' "$1"; }
# sweeps: "HEAVY RUNNING" (heavy sweeps so far, a sweep runs: True/False)
sweeps() {
	sm_ctl --json status | "$PYTHON" -c 'import json, sys
s = json.load(sys.stdin)["result"]["sweeps"]
print(s["heavy"], s["running"])'
}
# sweep_wait N: a heavy sweep past count N ended, and the MFTs settled
sweep_wait() {
	local i h r
	for ((i = 0; i < 100; i++)); do
		read -r h r <<<"$(sweeps)" || t_fail "status failed"
		[ "$h" -gt "$1" ] && [ "$r" = False ] && break
		sleep 0.2
	done
	[ "$h" -gt "$1" ] && [ "$r" = False ] || t_fail "no heavy sweep in 20 s"
	mft_settle
}
# t_tree_until SEC MLID RECV SEND: as t_tree, retried while the SM reacts to a change
t_tree_until() {
	local end=$((SECONDS + $1)) out r
	shift
	while :; do
		read -r _ r <<<"$(sweeps)" || t_fail "status failed"
		if [ "$r" = False ]; then
			mft_settle
			dump_mfts "$T/mfts"
			out=$(mct tree "$T/ibnd" "$T/mfts" "$@" 2>&1) && break
		fi
		[ $SECONDS -lt $end ] || t_fail "${out:-a sweep still runs}"
		sleep 0.5
	done
	t_info "$out"
}

t_step "fabric, partitions with ipoib"
sim_start "$NET"
sim_run ibnetdiscover >"$T/ibnd" || t_fail "ibnetdiscover failed"
read -r S1 S2 <<<"$(mct port-guid "$T/ibnd" $STORAGE | tr '\n' ' ')" || t_fail "no GUIDs"
cat >"$PART" <<EOF
# test_mcast.sh
Default=0x7fff, ipoib : ALL=full ;
storage=0x0010, ipoib : $S1=full, $S2=full ;
EOF
printf 'partition_config_file %s\nsweep_interval 1\n' "$PART" >"$T/ibsmd.conf"
sm_start -F "$T/ibsmd.conf"
sm_wait_up 30
sim_run ibnetdiscover >"$T/ibnd" || t_fail "ibnetdiscover failed"
cp "$T/ibnd" "$T/ibnd0"
mct switch-lids "$T/ibnd" >"$T/switches" || t_fail "no switches"

t_step "(a) the IPoIB broadcast groups exist from the start"
mft_settle
read -r BL bmem _ <<<"$(mc_group $BCAST)"
read -r SL smem _ <<<"$(mc_group $SBCAST)"
[ -n "$BL" ] && [ -n "$SL" ] || t_fail "no broadcast group: $(head -c 600 "$T/mc.json")"
[ "$bmem" = 0 ] && [ "$smem" = 0 ] || t_fail "members before any join: $bmem, $smem"
[ "$(mc count)" = 2 ] || t_fail "$(mc count) groups at start, want 2"
IN_USE0=$(mc mlids_in_use)
t_info "$BCAST on $(hex "$BL"), $SBCAST on $(hex "$SL"), $IN_USE0 MLIDs in use"
sm_ctl multicast >"$T/mc.txt" || t_fail "ibsmctl multicast failed"
grep -Eq "^$BCAST +$(hex "$BL") +0xffff +0x00000b1b " "$T/mc.txt" ||
	t_fail "ibsmctl multicast: no line for $BCAST: $(cat "$T/mc.txt")"
grep -q "^2 groups, 2 MLIDs in use .*MFTs clean: yes" "$T/mc.txt" ||
	t_fail "ibsmctl multicast: $(tail -n 1 "$T/mc.txt")"
sim_run saquery -m >"$T/sq.m" || t_fail "saquery -m failed"
grep -q "MGID\.*$BCAST" "$T/sq.m" || t_fail "saquery -m does not show $BCAST: $(head -c 500 "$T/sq.m")"
grep -qi "Mlid\.*$(hex "$BL")" "$T/sq.m" || t_fail "saquery -m: no Mlid $(hex "$BL")"
SIM_HOST=${STORAGE%% *} sim_run saquery -m >"$T/sq.m2" || t_fail "saquery -m failed"
grep -q "MGID\.*$SBCAST" "$T/sq.m2" || t_fail "saquery -m (storage member): no $SBCAST"
t_mft_mlids ""

t_step "(b) joins: the broadcast group, a created group, a partition's group"
for h in $RECV; do sac "$h" join $BCAST; done
sac $SENDONLY join $BCAST --state sendonly
set -- $G1_FULL
sac "$1" join $G1 --create
sac "$2" join $G1
sac $G1_NON join $G1 --state non
sac $G1_SEND join $G1 --state sendonly
for h in $STORAGE; do sac "$h" join $SBCAST; done
mft_settle
read -r l n f non so <<<"$(mc_group $BCAST)"
[ "$n $f $so" = "6 5 1" ] || t_fail "$BCAST: members/full/send-only $n/$f/$so, want 6/5/1"
read -r G1L n f non so <<<"$(mc_group $G1)"
[ -n "$G1L" ] || t_fail "no group $G1"
[ "$n $f $non $so" = "4 2 1 1" ] || t_fail "$G1: members/full/non/send-only $n/$f/$non/$so"
t_info "$G1 created on $(hex "$G1L")"
t_tree "$BL" "$(csv $RECV)" $SENDONLY
t_tree_again "$G1L" "$(csv $G1_FULL $G1_NON)" $G1_SEND
t_tree_again "$SL" "$(csv $STORAGE)"
mct mft-vs-groups "$T/mfts" "$T/mc.json" >"$T/vs.out" 2>&1 || t_fail "$(cat "$T/vs.out")"
t_info "$(cat "$T/vs.out")"
ibroute_mfts "$T/mfts.ibroute"
out=$(mct mft-same "$T/mfts" "$T/mfts.ibroute" 2>&1) || t_fail "ibroute -M and dump_fts -M: $out"
t_info "ibroute -M of every switch: $out"

t_step "(c) a heavy sweep keeps the MFTs; a tree link and a member go down: the trees follow"
cp "$T/mfts" "$T/mfts.joined"
heavy=$(sm_ctl_get result.sweeps.heavy status) || t_fail "status failed"
sm_ctl sweep >/dev/null || t_fail "sweep failed"
sweep_wait "$heavy"
dump_mfts "$T/mfts"
cmp -s "$T/mfts.joined" "$T/mfts" ||
	t_fail "a heavy sweep changed the MFTs: $(diff "$T/mfts.joined" "$T/mfts" | head -n 6)"
t_info "heavy sweep: MFTs unchanged"
read -r ln lp <<<"$(mct tree-link "$T/ibnd" "$T/mfts" "$G1L")" || t_fail "no tree link"
sim_cmd "Unlink \"$ln\"[$lp]"
sim_run ibnetdiscover >"$T/ibnd" || t_fail "ibnetdiscover failed"
[ "$(grep -c '^\[' "$T/ibnd")" -lt "$(grep -c '^\[' "$T/ibnd0")" ] ||
	t_fail "ibnetdiscover still sees $ln port $lp linked"
# the trap (or the next light sweep) starts a sweep; the trees follow within it
t_tree_until 20 "$G1L" "$(csv $G1_FULL $G1_NON)" $G1_SEND
t_tree_again "$BL" "$(csv $RECV)" $SENDONLY
t_tree_again "$SL" "$(csv $STORAGE)"
# a member's host goes (its only link down): it leaves every group, the MFTs stop sending to it
GONE=pod4-edge1-host1
sim_cmd "Unlink \"$GONE\"[1]"
RECV=${RECV/ $GONE/}
sim_run ibnetdiscover >"$T/ibnd" || t_fail "ibnetdiscover failed"
! grep -q "\"$GONE\"" "$T/ibnd" || t_fail "ibnetdiscover still sees $GONE"
t_tree_until 20 "$BL" "$(csv $RECV)" $SENDONLY
mc_json
read -r l n f _ <<<"$(mc_group $BCAST)"
[ "$n $f" = "5 4" ] || t_fail "$BCAST after $GONE went: members/full $n/$f, want 5/4"

t_step "(d) bad joins and leaves are refused"
mc_json
refused0=$(mc requests.refused)
SAC_RETRIES=0
# bad PARAMS... -- HOST ARGS: sa_client must get the status it expects
bad() {
	local h=$1
	shift
	sac "$h" "$@" || t_fail "$h: $*"
	t_info "$h: $* ok"
}
H=$OUTSIDER
bad $H join $G1 --qkey 0x1234 --expect 0x0200           # Q_Key not the group's
bad $H join $G1 --mtu 5 --expect 0x0200                 # MTU 4096 exactly: the group's is less
bad $H join $G1 --mtu 1 --expect 0x0200                 # MTU 256 exactly
bad $H join $G1 --pkey 0x8010 --expect 0x0200           # another partition's P_Key
bad $H join $G1 --sl 7 --expect 0x0200                  # SL not the group's
bad $H join $G1 --state 0 --expect 0x0200               # no JoinState bit
bad $H join $SBCAST --expect 0x0200                     # not in partition storage
bad $H join ff12:601b:ffff::dead --expect 0x0600        # create without Q_Key, P_Key...
bad $H join ff12:601b:ffff::dead --create --state sendonly --expect 0x0200 # not full
bad $H join fe80::1 --create --expect 0x0200            # not a multicast GID
bad $H join ff12:601b:ffff::beef --create --pkey 0x8010 --expect 0x0200 # not its partition
bad $H leave $G1 --expect 0x0200                        # not a member
bad $G1_NON leave $G1 --state full --expect 0x0200       # a bit it does not hold
bad $G1_NON leave $G1 --state 3 --expect 0x0200          # and one it does
bad $H leave ff12:601b:ffff::dead --expect 0x0200       # no such group
mc_json
refused=$(($(mc requests.refused) - refused0))
# a request sent again after sa_client crashed (sim_client) may be refused twice
[ $refused -ge 15 ] && [ $refused -le $((15 + SAC_RETRIES)) ] ||
	t_fail "$refused refusals counted, want 15 ($SAC_RETRIES requests sent again)"
read -r l n f non so <<<"$(mc_group $G1)"
[ "$l $n $f $non $so" = "$G1L 4 2 1 1" ] || t_fail "$G1 changed by refused requests: $n/$f/$non/$so"
[ "$(mc count)" = 3 ] || t_fail "$(mc count) groups after the refusals, want 3"
sm_alive || t_fail "ibsmd died"

t_step "(e) every member leaves: the MFT entries go"
set -- $G1_FULL
sac $G1_SEND leave $G1 --state sendonly
sac $G1_NON leave $G1 --state non
sac "$2" leave $G1
sac "$1" leave $G1 # the last full member: the group goes
sac $SENDONLY leave $BCAST --state sendonly
for h in $RECV; do sac "$h" leave $BCAST; done
for h in $STORAGE; do sac "$h" leave $SBCAST; done
mft_settle
[ -z "$(mc_group $G1)" ] || t_fail "$G1 still there after its last member left"
read -r l n _ <<<"$(mc_group $BCAST)"
[ "$l $n" = "$BL 0" ] || t_fail "$BCAST: mlid/members $l/$n, want $BL/0 (kept while empty)"
[ "$(mc mlids_in_use)" = "$IN_USE0" ] || t_fail "$(mc mlids_in_use) MLIDs in use"
t_mft_mlids ""
t_info "groups $(mc count), MLIDs in use $(mc mlids_in_use), MFTs empty"

t_step "(f) $MC_CYCLES create / send-only join / partial leave cycles, then with proxy joins"
mc_json
created0=$(mc requests.created)
deleted0=$(mc requests.deleted)
groups0=$(mc count)
sac pod2-edge2-host2 cycles "$MC_CYCLES"
t_info "$(tail -n 1 "$T/sac.out")"
PROXY=$(mct port-guid "$T/ibnd" pod3-edge2-host1) || t_fail "no GUID"
sac pod4-edge1-host2 cycles "$MC_CYCLES" --mgid ff15:5a5b:: --proxy "$PROXY"
t_info "$(tail -n 1 "$T/sac.out") (proxy $PROXY)"
mft_settle
[ "$(mc mlids_in_use)" = "$IN_USE0" ] ||
	t_fail "MLIDs in use $(mc mlids_in_use) after the cycles, $IN_USE0 before: leaked"
[ "$(mc count)" = "$groups0" ] || t_fail "$(mc count) groups, $groups0 before"
c=$(($(mc requests.created) - created0))
d=$(($(mc requests.deleted) - deleted0))
[ $c -eq $((2 * MC_CYCLES)) ] && [ $d -eq $c ] || t_fail "created $c, deleted $d groups"
t_mft_mlids ""
t_info "$c groups created and deleted, $(mc mlids_in_use) MLIDs in use as before"

t_step "a new group after the cycles"
sac pod1-edge2-host1 join $G2 --create
sac pod4-edge2-host1 join $G2
sac pod3-edge1-host2 join $G2 --state non
mft_settle
read -r G2L n _ <<<"$(mc_group $G2)"
[ "$n" = 3 ] || t_fail "$G2: $n members"
# the lowest MLID not held by the two broadcast groups
want=$(( (BL == 0xc000 || SL == 0xc000) ? ((BL == 0xc001 || SL == 0xc001) ? 0xc002 : 0xc001) : 0xc000 ))
[ "$G2L" = $((want)) ] || t_fail "$G2 on $(hex "$G2L"), want the lowest free $(hex $want)"
t_tree "$G2L" pod1-edge2-host1,pod4-edge2-host1,pod3-edge1-host2
sac pod3-edge1-host2 leave $G2 --state non
sac pod4-edge2-host1 leave $G2
sac pod1-edge2-host1 leave $G2
mft_settle
[ -z "$(mc_group $G2)" ] || t_fail "$G2 still there"
t_mft_mlids ""

sm_alive || t_fail "ibsmd died"
sm_stop
[ "$SM_RC" -eq 0 ] || t_fail "ibsmd exit $SM_RC on SIGTERM (want 0)"
t_step "pass"
