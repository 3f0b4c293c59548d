#!/bin/bash
# The SA under load (leaf-spine, 76 LIDs): sa_load (tests/tools) from three hosts at once, each
# keeping 16 PathRecord Gets in flight, random pairs of LIDs:
# (a) the LIDs the SA reports (a NodeRecord Get per LID) are every LID on the wire
#     (ibnetdiscover);
# (b) 3 x 5,000 Gets by SLID/DLID, then 3 x 5,000 by SGID/DGID (Reversible, NumbPath, P_Key):
#     every one answered, status 0, the record of the pair asked (sa_load exits 0 only then);
# (c) the SM is still up (ibsmd: its status socket answers).
# No timing is checked: tests/bench/sa measures the rate. SA_LOAD_N changes the count.
# shellcheck disable=SC1091
. "$(dirname "$0")/lib.sh"
sim_init
: "${SA_LOAD:=$top_builddir/tests/tools/sa_load}"
[ -x "$SA_LOAD" ] || t_skip "$SA_LOAD not built"
: "${SA_LOAD_N:=5000}"
NET=$FABRICS/leafspine-4s8l8h.net
HOSTS="leaf2-host1 leaf5-host3 leaf8-host8"

t_step "subnet up"
sim_start "$NET"
sm_start
sm_wait_up 60

t_step "(a) the SA's LIDs"
SIM_HOST=leaf2-host1 sim_client "$SA_LOAD" -w 16 --list-lids >"$T/lids" ||
	t_fail "sa_load --list-lids failed: $(tail -n 3 "$T/clients.log")"
lids_snapshot "$T/lids.wire"
n_sa=$(wc -l <"$T/lids")
n_wire=$(wc -l <"$T/lids.wire")
[ "$n_sa" -eq "$n_wire" ] || t_fail "the SA reports $n_sa LIDs, the wire has $n_wire"
cut -d' ' -f1 "$T/lids" | sort -n >"$T/lids.sa.sorted"
awk '{print $2}' "$T/lids.wire" | sort -n >"$T/lids.wire.sorted"
cmp -s "$T/lids.sa.sorted" "$T/lids.wire.sorted" ||
	t_fail "the SA's LIDs differ from the wire's: $(diff "$T/lids.sa.sorted" \
		"$T/lids.wire.sorted" | head -n 5 | tr '\n' ' ')"
t_info "the SA reports the $n_sa LIDs on the wire"

# load BY: sa_load on every host at once; each must exit 0 (all answered, all right)
load() {
	local by=$1 h pids=() i=0 rc=0 start
	start=$(date +%s.%N | awk '{printf "%.3f", $1 + 0.5}')
	for h in $HOSTS; do
		i=$((i + 1))
		SIM_HOST=$h sim_client "$SA_LOAD" --lids "$T/lids" -w 16 -n "$SA_LOAD_N" --by "$by" \
			--seed "$i" --start-at "$start" -t 5000 >"$T/load.$by.$h" &
		pids+=($!)
	done
	for i in "${!pids[@]}"; do
		wait "${pids[$i]}" || rc=1
	done
	for h in $HOSTS; do
		t_info "$h: $(cat "$T/load.$by.$h")"
	done
	[ $rc -eq 0 ] || t_fail "by $by: not every query was answered right (see above)"
}

t_step "(b) 3 x $SA_LOAD_N PathRecord Gets by LID, then by GID"
load lid
load gid

t_step "(c) the SM lives"
sm_alive || t_fail "$SM died under the load"
if [ "$SM" = ibsmd ]; then
	sm_ctl status >"$T/status.out" || t_fail "ibsmctl status failed after the load"
fi
sm_stop
sim_stop
exit 0
