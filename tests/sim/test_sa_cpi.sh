#!/bin/bash
# ClassPortInfo of the SA (`saquery -c`) compared field by field with OpenSM's on the same
# ibsim fabric (fat tree k=4), both with their defaults. No difference is expected: every
# field (BaseVersion, ClassVersion, CapabilityMask 0x2602, CapabilityMask2 0xB5E8,
# RespTimeValue from transaction_timeout, redirect and trap
# fields) must be equal; then ibsmd with disable_multicast, use_mfttop FALSE and
# transaction_timeout 1000 answers CapabilityMask 0x2402, no bit 3, RespTimeValue 18.
. "$(dirname "$0")/lib.sh"
sim_init
[ "$SM" = ibsmd ] || t_skip "compares ibsmd with OpenSM"
command -v opensm >/dev/null || t_skip "opensm not installed"
command -v saquery >/dev/null || t_skip "saquery missing (infiniband-diags)"
NET=$FABRICS/fattree-k4.net
EXPECTED_CAP2_DIFF=0

# cpi OUT: saquery -c into OUT, as "Field value" lines
cpi() {
	sim_run saquery -c >"$1.raw" || t_fail "saquery -c failed: $(tail -n 3 "$T/clients.log")"
	# "Capability mask 2........0x0000B5E8" -> "Capability_mask_2 0x0000B5E8"
	awk 'match($0, /\.\.+/) { k = substr($0, 1, RSTART - 1); v = substr($0, RSTART + RLENGTH)
		sub(/^[ \t]+/, "", k); gsub(/ /, "_", k); gsub(/ /, "", v); print k, v }' "$1.raw" >"$1"
	[ -s "$1" ] || t_fail "saquery -c printed no fields: $(head -c 300 "$1.raw")"
}
val() { awk -v k="$2" '$1 == k { print $2; exit }' "$1"; }

sim_start "$NET"
printf 'partition_config_file %s\n' "$T/no-partitions.conf" >"$T/common.conf"
t_step "OpenSM's ClassPortInfo"
cp "$T/common.conf" "$T/osm.conf"
printf 'force_log_flush TRUE\n' >>"$T/osm.conf"
SM=opensm sm_start
SM=opensm sm_wait_up 60
cpi "$T/osm.cpi"
SM=opensm sm_stop
t_info "opensm: $(tr '\n' ' ' <"$T/osm.cpi")"

t_step "ibsmd's ClassPortInfo"
sm_start -F "$T/common.conf"
sm_wait_up 60
cpi "$T/ibsmd.cpi"
sm_stop
t_info "ibsmd: $(tr '\n' ' ' <"$T/ibsmd.cpi")"

t_step "field by field"
n=0
while read -r k v; do
	w=$(val "$T/ibsmd.cpi" "$k")
	[ -n "$w" ] || t_fail "ibsmd's answer has no $k"
	n=$((n + 1))
	if [ "$k" = Capability_mask_2 ]; then
		[ $((v ^ w)) -eq $EXPECTED_CAP2_DIFF ] ||
			t_fail "CapabilityMask2: ibsmd $w, OpenSM $v: differ in $(printf 0x%x $((v ^ w))), want $(printf 0x%x $EXPECTED_CAP2_DIFF)"
		[ $((w & EXPECTED_CAP2_DIFF)) -eq 0 ] || t_fail "ibsmd sets bits it does not implement: $w"
		continue
	fi
	[ "$v" = "$w" ] || t_fail "$k: ibsmd '$w', OpenSM '$v'"
done <"$T/osm.cpi"
[ $n -ge 10 ] || t_fail "only $n fields compared"
t_info "$n fields compared: equal but CapabilityMask2 bit 5"

t_step "ibsmd with disable_multicast, use_mfttop FALSE, transaction_timeout 1000"
cp "$T/common.conf" "$T/ibsmd2.conf"
printf 'disable_multicast TRUE\nuse_mfttop FALSE\ntransaction_timeout 1000\n' >>"$T/ibsmd2.conf"
sm_start -F "$T/ibsmd2.conf"
sm_wait_up 60
cpi "$T/ibsmd2.cpi"
sm_stop
[ $(($(val "$T/ibsmd2.cpi" Capability_mask))) -eq $((0x2402)) ] ||
	t_fail "CapabilityMask $(val "$T/ibsmd2.cpi" Capability_mask), want 0x2402"
[ $(($(val "$T/ibsmd2.cpi" Capability_mask_2) & 8)) -eq 0 ] || t_fail "bit 3 without use_mfttop"
[ $(($(val "$T/ibsmd2.cpi" Response_time_value))) -eq 18 ] ||
	t_fail "RespTimeValue $(val "$T/ibsmd2.cpi" Response_time_value), want 18"
t_info "ok"
