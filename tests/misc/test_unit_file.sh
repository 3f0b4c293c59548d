#!/bin/bash
# The systemd unit and the installation:
# (a) conf/ibsmd.service as built: every @...@ replaced, the directives ibsmd
#     relies on (Type=notify, reload by SIGHUP, watchdog, its directories,
#     the hardening), ordered before the targets OpenSM's unit is (the
#     network needs an SM: IPoIB), a start timeout (READY=1 comes in every
#     state, never infinity), comments naming the configured sysconfdir (not
#     a hard-coded /etc), and ibsmd accepts the options of its ExecStart;
# (b) systemd-analyze verify is clean on it (no word about ibsmd.service),
#     with ExecStart pointing at the built ibsmd and Documentation= resolved
#     from the built man pages;
# (c) make install DESTDIR=...: ibsmd in sbin, ibsmctl in bin, the man pages
#     in their sections, the unit with ExecStart = the installed ibsmd (which
#     verifies too), the default configuration, which loads; a second install
#     keeps a changed configuration, uninstall removes only an unchanged one.
# Exit 0 pass, 1 fail, 77 skip (no systemd-analyze).
set -u
top_srcdir=${top_srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
top_builddir=${top_builddir:-$top_srcdir}

command -v systemd-analyze >/dev/null || { echo "SKIP: systemd-analyze not installed"; exit 77; }

fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
step() { echo "== $*"; }

T=$(mktemp -d "${TMPDIR:-/tmp}/ibsmd-service.XXXXXX") || exit 1
trap 'rm -rf "$T"' EXIT

UNIT=$top_builddir/conf/ibsmd.service
IBSMD=$top_builddir/ibsmd
[ -f "$UNIT" ] || { echo "FAIL: $UNIT not built"; exit 1; }
[ -x "$IBSMD" ] || { echo "FAIL: $IBSMD not built"; exit 1; }

# value of the last KEY= line of a unit
unit_get() { sed -n "s/^$2=//p" "$1" | tail -n 1; }

# systemd-analyze verify on a copy of unit $1 whose ExecStart program is $2,
# man pages from the man tree $3
verify() {
	local unit=$1 exe=$2 manroot=$3 dir out rc
	dir=$(mktemp -d "$T/verify.XXXXXX")
	sed "s|^ExecStart=[^ ]*|ExecStart=$exe|" "$unit" >"$dir/ibsmd.service"
	out=$(cd "$dir" && MANPATH=$manroot systemd-analyze verify "$dir/ibsmd.service" 2>&1)
	rc=$?
	[ -z "$out" ] || printf '%s\n' "$out"
	[ $rc -eq 0 ] || fail "systemd-analyze verify $unit (ExecStart $exe): exit $rc"
	# clean: nothing said about our unit (the host's other units may have their say)
	if printf '%s\n' "$out" | grep -q 'ibsmd\.service'; then fail "verify: not clean"; fi
	# man pages it could not find are errors too, whatever the exit status
	if printf '%s\n' "$out" | grep -q "Command 'man"; then fail "verify: man pages not found"; fi
}

step "(a) the unit as built"
if grep -n '@[A-Za-z_]*@' "$UNIT"; then fail "unit: unsubstituted @...@"; fi
for want in 'Type=notify' 'RuntimeDirectory=ibsmd' 'CacheDirectory=ibsmd' 'LogsDirectory=ibsmd' \
	'ProtectSystem=strict' 'ProtectHome=yes' 'NoNewPrivileges=yes' 'PrivateTmp=yes' \
	'DevicePolicy=closed'; do
	grep -qx "$want" "$UNIT" || fail "unit: no line $want"
done
grep -q '^DeviceAllow=char-infiniband_mad ' "$UNIT" || fail "unit: no DeviceAllow for the umad devices"
grep -q '^WatchdogSec=[1-9]' "$UNIT" || fail "unit: no WatchdogSec"
grep -q '^ExecReload=.*kill -HUP \$MAINPID' "$UNIT" || fail "unit: ExecReload does not send SIGHUP"
# ordered as OpenSM's unit: before the network (IPoIB ports stay down without an SM)
before=" $(unit_get "$UNIT" Before) "
for t in network.target remote-fs-pre.target; do
	[[ $before == *" $t "* ]] || fail "unit: not Before=$t (OpenSM's unit is)"
done
for f in /lib/systemd/system/opensm.service /usr/lib/systemd/system/opensm.service; do
	[ -f "$f" ] || continue
	for t in $(unit_get "$f" Before); do
		[[ $before == *" $t "* ]] || fail "unit: $f is Before=$t, ibsmd.service is not"
	done
	break
done
tss=$(unit_get "$UNIT" TimeoutStartSec)
[[ $tss =~ ^[1-9][0-9]*$ ]] || fail "unit: TimeoutStartSec=$tss (READY=1 comes in every state)"
# the comments name the configured paths: sysconfdir as the Makefile expands it
mk_var() { sed -n "s/^$1 = //p" "$top_builddir/Makefile" | head -n 1; }
prefix=$(mk_var prefix)
sysconfdir=$(mk_var sysconfdir)
sysconfdir=${sysconfdir//\$\{prefix\}/$prefix}
sysconfdir=${sysconfdir//\$(prefix)/$prefix}
grep -q "^#.*$sysconfdir/ibsmd/ibsmd.conf" "$UNIT" ||
	fail "unit: the comments do not name $sysconfdir/ibsmd/ibsmd.conf"
if [ "$sysconfdir" != /etc ] && grep -nE '(^|[^[:alnum:]_./-])/etc/ibsmd' "$UNIT"; then
	fail "unit: /etc/ibsmd named, configured sysconfdir is $sysconfdir"
fi
exec_start=$(unit_get "$UNIT" ExecStart)
prog=${exec_start%% *}
case $prog in
/*/ibsmd) ;;
*) fail "unit: ExecStart=$exec_start: not an absolute path to ibsmd" ;;
esac
args=${exec_start#"$prog"}
# the unit's options with the defaults for the rest: does ibsmd take them?
# shellcheck disable=SC2086
# (--check-config checks the routing engines too: the built plug-ins, not yet installed)
PLUGINS="--plugin-dir $top_builddir/plugins/routing/.libs"
out=$("$IBSMD" $args -F /dev/null $PLUGINS --check-config 2>&1) ||
	fail "ibsmd rejects the unit's options ($args): $out"

step "(b) systemd-analyze verify on the built unit"
mkdir -p "$T/man/man1" "$T/man/man5" "$T/man/man8"
for p in ibsmd.8 ibsmd.conf.5 ibsmctl.1; do
	src=$top_builddir/man/$p
	[ -f "$src" ] || src=$top_srcdir/man/$p
	[ -f "$src" ] || { fail "man page $p not built"; continue; }
	cp "$src" "$T/man/man${p##*.}/$p"
done
verify "$UNIT" "$(cd "$top_builddir" && pwd)/ibsmd" "$T/man"

step "(c) make install DESTDIR"
D=$T/inst
mk() { env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -C "$top_builddir" "$@" >>"$T/make.log" 2>&1; }
if ! mk install DESTDIR="$D"; then
	tail -n 30 "$T/make.log"
	fail "make install DESTDIR=$D failed"
else
	# where things went, found rather than assumed (any --prefix)
	find_one() { find "$D" -path "$1" \( -type f -o -type l \) | head -n 1; }
	sbin=$(find_one '*/sbin/ibsmd')
	bin=$(find_one '*/bin/ibsmctl')
	unit=$(find_one '*/systemd/system/ibsmd.service')
	conf=$(find_one '*/ibsmd/ibsmd.conf')
	m8=$(find_one '*/man8/ibsmd.8')
	m5=$(find_one '*/man5/ibsmd.conf.5')
	m1=$(find_one '*/man1/ibsmctl.1')
	for v in sbin bin unit conf m8 m5 m1; do
		[ -n "${!v}" ] || fail "install: no $v in $D"
	done
	[ -n "$sbin" ] && { [ -x "$sbin" ] || fail "install: $sbin not executable"; }
	[ -n "$bin" ] && { [ -x "$bin" ] || fail "install: $bin not executable"; }
	if [ -n "$sbin" ] && [ -n "$unit" ]; then
		want=${sbin#"$D"}
		got=$(unit_get "$unit" ExecStart)
		[ "${got%% *}" = "$want" ] || fail "installed unit: ExecStart=$got, ibsmd is at $want"
		[ -n "$m8" ] && verify "$unit" "$sbin" "$(dirname "$(dirname "$m8")")"
	fi
	if [ -n "$conf" ]; then
		cmp -s "$conf" "$top_builddir/conf/ibsmd.conf" ||
			fail "installed $conf differs from conf/ibsmd.conf"
		n=$(grep -c '^[a-z]' "$conf")
		nkeys=$(grep -c '^K(' "$top_srcdir/lib/conf/conf_keys.def")
		[ "$n" -eq "$nkeys" ] || fail "installed $conf: $n keys, conf_keys.def has $nkeys"
		# shellcheck disable=SC2086
		out=$("$IBSMD" -F "$conf" $PLUGINS --check-config 2>&1) || fail "ibsmd rejects $conf: $out"

		step "(c) a changed configuration survives install and uninstall"
		echo "sm_priority 7" >>"$conf"
		cp "$conf" "$T/changed.conf"
		mk install DESTDIR="$D" || fail "second make install failed"
		cmp -s "$conf" "$T/changed.conf" || fail "make install replaced a changed $conf"
		mk uninstall DESTDIR="$D" || fail "make uninstall failed"
		[ -f "$conf" ] || fail "make uninstall removed a changed $conf"
		[ -z "$(find_one '*/sbin/ibsmd')" ] || fail "make uninstall left ibsmd"
		rm -f "$conf"
		mk install DESTDIR="$D" || fail "third make install failed"
		cmp -s "$conf" "$top_builddir/conf/ibsmd.conf" || fail "no default $conf after a fresh install"
		mk uninstall DESTDIR="$D" || fail "second make uninstall failed"
		[ ! -e "$conf" ] || fail "make uninstall left an unchanged $conf"
		left=$(find "$D" -type f)
		[ -z "$left" ] || fail "make uninstall left files:"$'\n'"$left"
	fi
fi

if [ "$fails" -ne 0 ]; then
	echo "$fails failure(s)"
	exit 1
fi
echo "ok"
exit 0
