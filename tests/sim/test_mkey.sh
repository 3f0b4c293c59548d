#!/bin/bash
# M_Keys (fat tree k=4):
# (a) `ibsmd -o` with m_key set and protection level 2 brings the fabric up (judge ok) and
#     writes guid2mkey in OpenSM's format: one entry per port that holds a key (switch
#     port 0, CA ports), each with the configured key;
# (b) ibsmd restarted with the same cache dir keeps managing the fabric: no SMP refused, a
#     heavy sweep is clean, a link taken down changes LFTs and the judge is ok again;
# (c) a second ibsmd with an empty cache dir and no key: `-o` ends (no hang) and the daemon
#     shows the M_Key counters in `ibsmctl counters`; what they hold depends on ibsim: when
#     it keeps and checks M_Keys, the refused SMPs are counted and the subnet is not up;
#     ibsim 0.10 keeps none (its PortInfo Set ignores the M_Key, every SMP is answered), so
#     nothing is refused there. The checks by the spec run in tests/unit/test_mkey.
. "$(dirname "$0")/lib.sh"
[ "${SM:-ibsmd}" = ibsmd ] || { echo "SKIP: ibsmd's M_Key counters and guid2mkey" >&2; exit 77; }
sim_init
NET=$FABRICS/fattree-k4.net
KEY=0x00000000cafe1234
printf 'm_key %s\nm_key_protection_level 2\nm_key_lease_period 60\n' "$KEY" >"$T/mkey.conf"

# counters.mkey.NAME of the daemon
mkey_counter() { sm_ctl_get "result.mkey.$1" counters; }

t_step "(a) ibsmd -o with m_key $KEY, protection level 2"
sim_start "$NET"
sm_once -F "$T/mkey.conf"
[ "$SM_RC" -eq 0 ] || t_fail "ibsmd -o exit $SM_RC with an m_key"
t_judge_ok
[ -s "$T/cache/guid2mkey" ] || t_fail "no guid2mkey in the cache dir"
n=$(grep -c '^0x' "$T/cache/guid2mkey")
[ "$n" -eq 36 ] || t_fail "guid2mkey has $n entries, want 36 (20 switches, 16 CA ports)"
bad=$(awk -v k="$(printf '0x%016x' "$KEY")" '/^0x/ && (NF != 2 || $2 != k)' "$T/cache/guid2mkey")
[ -z "$bad" ] || t_fail "guid2mkey entries without the key: $bad"
# OpenSM's reader wants an empty line after every entry
[ "$(grep -c '^$' "$T/cache/guid2mkey")" -eq 36 ] || t_fail "guid2mkey is not in OpenSM's format"
mode=$(stat -c %a "$T/cache/guid2mkey")
[ "$mode" = 600 ] || t_fail "guid2mkey has mode $mode: keys readable by others"
t_info "guid2mkey: $n ports, all $KEY, mode 600"
# does this ibsim keep M_Keys? (0.10 does not: PortInfo shows 0 whatever was set)
sim_run smpquery -K -D portinfo 0 >"$T/pi.local" 2>>"$T/clients.log" ||
	sim_run smpquery -D portinfo 0 >"$T/pi.local" || t_fail "smpquery portinfo failed"
if grep -Eqi "^Mkey:\.*$KEY|^Mkey:\.*0x0*cafe1234" "$T/pi.local"; then
	ENFORCED=1
	t_info "ibsim keeps M_Keys: the SM's port holds $KEY"
else
	ENFORCED=0
	t_info "ibsim keeps no M_Key ($(grep -i '^Mkey:' "$T/pi.local" | tr -s '.')):" \
		"nothing is refused on it"
fi

t_step "(b) the daemon, restarted on the same cache dir, keeps managing the fabric"
sm_start -F "$T/mkey.conf"
sm_wait_up 60
[ "$(mkey_counter refused)" -eq 0 ] || t_fail "SMPs refused with the right key"
[ "$(mkey_counter known_ports)" -eq 36 ] ||
	t_fail "the daemon knows $(mkey_counter known_ports) keys"
heavy=$(sm_ctl_get result.sweeps.heavy status)
sm_ctl sweep heavy >/dev/null || t_fail "ibsmctl sweep heavy failed"
for ((i = 0; i < 100; i++)); do
	[ "$(sm_ctl_get result.sweeps.heavy status)" -gt "$heavy" ] && ! sm_ctl status --json |
		grep -q "\"running\": *true" && break
	sleep 0.1
done
[ "$(sm_ctl_get result.sweeps.heavy status)" -gt "$heavy" ] || t_fail "no heavy sweep"
[ "$(sm_ctl_get result.sweeps.last_heavy_ok status)" = True ] ||
	t_fail "heavy sweep not clean: $(sm_ctl_get result.sweeps.last_heavy_reason status 2>&1)"
blocks=$(sm_ctl_get result.sweeps.lft_blocks_sent counters)
sim_cmd 'Unlink "pod1-agg1"[3]'   # an aggregation-core link: routes move
for ((i = 0; i < 100; i++)); do
	[ "$(sm_ctl_get result.sweeps.lft_blocks_sent counters)" -gt "$blocks" ] && break
	sleep 0.1
done
[ "$(sm_ctl_get result.sweeps.lft_blocks_sent counters)" -gt "$blocks" ] ||
	t_fail "no LFT block written after the link went down"
t_judge_until 30 "the link went down"
[ "$(mkey_counter refused)" -eq 0 ] || t_fail "SMPs refused with the right key"
t_info "LFT blocks $blocks -> $(sm_ctl_get result.sweeps.lft_blocks_sent counters)," \
	"nothing refused"
sm_stop
[ "$SM_RC" -eq 0 ] || t_fail "ibsmd exit $SM_RC on SIGTERM (want 0)"

t_step "(c) a second ibsmd: empty cache dir, no key"
mkdir -p "$T/cache2"
sm_once --cache-dir "$T/cache2" --dump_files_dir "$T/cache2"
[ "$SM_RC" -lt 124 ] || t_fail "ibsmd -o without the key ended with $SM_RC (hang or crash)"
if [ $ENFORCED = 1 ]; then
	[ "$SM_RC" -ne 0 ] || t_fail "ibsmd -o without the key says the subnet is up"
else
	[ "$SM_RC" -eq 0 ] || t_fail "ibsmd -o exit $SM_RC (ibsim checks no key)"
fi
sm_start --cache-dir "$T/cache2" --dump_files_dir "$T/cache2"
for ((i = 0; i < 100; i++)); do
	[ -S "$SM_SOCK" ] && [ "$(sm_ctl_get result.sweeps.heavy status 2>/dev/null)" -ge 1 ] &&
		! sm_ctl status --json | grep -q "\"running\": *true" && break
	sm_alive || t_fail "ibsmd without the key died"
	sleep 0.1
done
sm_ctl counters >"$T/counters.txt" || t_fail "ibsmctl counters failed"
grep -q "M_Keys" "$T/counters.txt" || t_fail "no M_Keys section in ibsmctl counters"
refused=$(mkey_counter refused) unanswered=$(mkey_counter unanswered)
t_info "without the key: refused $refused, unanswered $unanswered," \
	"bad m_key traps $(mkey_counter bad_mkey_traps)"
if [ $ENFORCED = 1 ]; then
	[ $((refused + unanswered)) -gt 0 ] || t_fail "ibsim checks keys but nothing was refused"
else
	[ "$refused" -eq 0 ] || t_fail "refused SMPs on an ibsim that checks no key"
fi
sm_ctl status >/dev/null || t_fail "the daemon without the key does not answer"
sm_stop
[ "$SM_RC" -eq 0 ] || t_fail "ibsmd exit $SM_RC on SIGTERM (want 0)"
sim_stop
