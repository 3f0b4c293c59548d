#!/bin/bash
# LIDs survive restarts (demo leaf-spine fabric):
# (a) daemon up, all LIDs recorded, stopped, started again: all LIDs unchanged;
# (b) a FRESH ibsim (no LID anywhere) and the guid2lid of (a) in --cache-dir: LIDs as in (a);
# (c) the same with a guid2lid whose LIDs are handed out in reverse: the SM follows the file;
# (d) OpenSM configures a fresh ibsim first; a FRESH ibsim and OpenSM's guid2lid in the SM's
#     --cache-dir: every LID equals OpenSM's (migration from OpenSM keeps addresses).
. "$(dirname "$0")/lib.sh"
sim_init
NET=$FABRICS/leafspine-4s8l8h.net

t_step "(a) daemon restart"
sim_start "$NET"
sm_start
sm_wait_up 60
lids_snapshot "$T/lids.a1"
sm_stop
[ "$SM_RC" -eq 0 ] || [ "$SM" = opensm ] || t_fail "$SM exit $SM_RC on SIGTERM (want 0)"
[ -s "$T/cache/guid2lid" ] || t_fail "no guid2lid in the cache dir after the daemon ran"
sm_start
sm_wait_up 60
lids_snapshot "$T/lids.a2"
t_lids_same "$T/lids.a1" "$T/lids.a2"
sm_stop
[ "$SM_RC" -eq 0 ] || [ "$SM" = opensm ] || t_fail "$SM exit $SM_RC on SIGTERM (want 0)"
sim_stop
cp "$T/cache/guid2lid" "$T/guid2lid.a"

t_step "(b) fresh fabric, guid2lid from (a)"
sim_start "$NET"
sm_once
[ "$SM_RC" -eq 0 ] || t_fail "$SM -o exit $SM_RC"
lids_snapshot "$T/lids.b"
t_lids_same "$T/lids.a1" "$T/lids.b"
sim_stop

t_step "(c) fresh fabric, guid2lid with the LIDs reversed"
sim_clear_cache
"$PYTHON" "$SIMTOOL" guid2lid-reverse "$T/guid2lid.a" >"$T/cache/guid2lid" || t_fail "guid2lid-reverse"
"$PYTHON" "$SIMTOOL" guid2lid "$T/cache/guid2lid" | sort >"$T/lids.c.want"
sim_start "$NET"
sm_once
[ "$SM_RC" -eq 0 ] || t_fail "$SM -o exit $SM_RC"
lids_snapshot "$T/lids.c"
t_lids_same "$T/lids.c.want" "$T/lids.c"
sim_stop

t_step "(d) from OpenSM's guid2lid"
if ! command -v opensm >/dev/null; then
	t_info "opensm not installed: (d) skipped"
else
	sim_start "$NET"
	opensm_once "$T/osmref" || t_fail "opensm -o (reference) failed"
	lids_snapshot "$T/lids.osm"
	sim_stop
	sim_clear_cache
	cp "$T/osmref/guid2lid" "$T/cache/guid2lid" || t_fail "OpenSM wrote no guid2lid"
	sim_start "$NET"
	sm_once
	[ "$SM_RC" -eq 0 ] || t_fail "$SM -o exit $SM_RC"
	lids_snapshot "$T/lids.d"
	t_lids_same "$T/lids.osm" "$T/lids.d"
	sim_stop
fi
t_step "pass"
