#!/bin/bash
# The man pages: each renders with groff without a single warning; the
# generated ibsmd.conf(5) has an entry for every key of lib/conf/conf_keys.def,
# marked "needs a restart" and "not supported yet" exactly as the table says;
# every option of `ibsmd --help` is an option entry of ibsmd(8); every
# option and command of `ibsmctl help` is an entry of ibsmctl(1).
# Exit 0 pass, 1 fail, 77 skip (no groff).
set -u
top_srcdir=${top_srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
top_builddir=${top_builddir:-$top_srcdir}

command -v groff >/dev/null || { echo "SKIP: groff not installed"; exit 77; }

fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

T=$(mktemp -d "${TMPDIR:-/tmp}/ibsmd-manpages.XXXXXX") || exit 1
trap 'rm -rf "$T"' EXIT

# a page is in the build tree when it is made, else in the source tree
page() {
	if [ -f "$top_builddir/man/$1" ]; then echo "$top_builddir/man/$1"
	elif [ -f "$top_srcdir/man/$1" ]; then echo "$top_srcdir/man/$1"
	else return 1; fi
}

# plain text as a terminal shows it, without bold/underline/colour
render() { groff -man -Tascii -P-c -P-b -P-o -P-u "$1" 2>/dev/null; }

declare -A P
for name in ibsmd.8 ibsmd.conf.5 ibsmctl.1 ibsmd-qos-policy.5; do
	if ! P[$name]=$(page "$name"); then
		fail "$name: not built (looked in $top_builddir/man and $top_srcdir/man)"
		continue
	fi
	f=${P[$name]}
	# -z: no output, -ww: every warning; the default device and the terminal ones
	for dev in "" -Tutf8 -Tascii; do
		out=$(groff -man -ww -z $dev "$f" 2>&1)
		[ -z "$out" ] || fail "$name: groff -man -ww -z $dev warns:"$'\n'"$out"
	done
	if grep -n '@[A-Za-z_]*@' "$f"; then fail "$name: unsubstituted @...@ left"; fi
	head -n 20 "$f" | grep -q '^\.TH ' || fail "$name: no .TH"
	if grep -qE '^\.(Dd|Dt|Sh|Nm)( |$)' "$f"; then fail "$name: mdoc macros, want man(7)"; fi
done

# --- ibsmd.conf(5) against the key table ---
def=$top_srcdir/lib/conf/conf_keys.def
conf5=${P[ibsmd.conf.5]:-}
if [ -n "$conf5" ]; then
	# name reload support, one key a line
	sed -n 's/^K(\([a-z0-9_]*\), *[A-Z0-9]*, *"[^"]*", *[^,]*, *[^,]*, *\([01]\), *\(YES\|NO\),.*/\1 \2 \3/p' \
		"$def" >"$T/keys"
	nkeys=$(grep -c '^K(' "$def")
	[ "$(wc -l <"$T/keys")" -eq "$nkeys" ] ||
		fail "conf_keys.def: parsed $(wc -l <"$T/keys") of $nkeys K() lines (test out of date?)"
	[ "$nkeys" -gt 100 ] || fail "conf_keys.def: only $nkeys keys?"
	# every entry: .TP / .B key / description / .br / attributes
	awk 'prev == ".TP" && /^\.B [a-z0-9_]+$/ { key = $2; n = 0; next }
	     key != "" { n++; if (n == 3) { print key "\t" $0; key = "" } }
	     { prev = $0 }' "$conf5" >"$T/entries"
	while read -r key reload sup; do
		attrs=$(awk -F '\t' -v k="$key" '$1 == k { print $2 }' "$T/entries")
		if [ -z "$attrs" ]; then
			fail "ibsmd.conf.5: no entry for key $key"
			continue
		fi
		[ "$(printf '%s\n' "$attrs" | wc -l)" -eq 1 ] || fail "ibsmd.conf.5: $key listed twice"
		case $reload:$attrs in
		0:*"needs a restart"*|1:*"SIGHUP can change it"*) ;;
		*) fail "ibsmd.conf.5: $key: reload=$reload but: $attrs" ;;
		esac
		case $sup:$attrs in
		NO:*"not supported yet"*) ;;
		YES:*"not supported yet"*) fail "ibsmd.conf.5: $key is supported but: $attrs" ;;
		NO:*) fail "ibsmd.conf.5: $key is not supported but: $attrs" ;;
		esac
	done <"$T/keys"
	extra=$(cut -f1 "$T/entries" | sort | comm -23 - <(cut -d' ' -f1 "$T/keys" | sort))
	[ -z "$extra" ] || fail "ibsmd.conf.5: entries for keys not in conf_keys.def: $extra"
	render "$conf5" >"$T/conf5.txt"
	for sec in NAME SYNOPSIS DESCRIPTION "FILE FORMAT" PRECEDENCE RELOADING KEYS FILES "SEE ALSO"; do
		grep -q "^$sec\$" "$T/conf5.txt" || fail "ibsmd.conf.5: no section $sec"
	done
fi

# option tokens at the start of help lines: "  -F, --config FILE  text" -> -F --config
help_options() {
	awk '/^ +-/ { for (i = 1; i <= NF; i++) { t = $i; sub(/,$/, "", t)
		if (t !~ /^-/) break; print t } }'
}

# is $2 an option in a tag line (indented, starting with options) of rendered page $1?
tagged_option() {
	grep -qE -- "^ +(-[^ ]*, )*$2(,| |\$)" "$1"
}

# --- ibsmd(8) against ibsmd --help ---
ibsmd8=${P[ibsmd.8]:-}
if [ -n "$ibsmd8" ]; then
	render "$ibsmd8" >"$T/ibsmd8.txt"
	"$top_builddir/ibsmd" --help >"$T/ibsmd.help" || fail "ibsmd --help: exit $?"
	help_options <"$T/ibsmd.help" | sort -u >"$T/ibsmd.opts"
	[ "$(wc -l <"$T/ibsmd.opts")" -ge 20 ] || fail "ibsmd --help: only $(wc -l <"$T/ibsmd.opts") options found"
	while read -r opt; do
		tagged_option "$T/ibsmd8.txt" "$opt" || fail "ibsmd.8: no entry for option $opt"
	done <"$T/ibsmd.opts"
	for sec in NAME SYNOPSIS DESCRIPTION OPTIONS SIGNALS FILES SYSTEMD "MIGRATING FROM OPENSM" \
		"EXIT STATUS" "SEE ALSO"; do
		grep -q "^$sec\$" "$T/ibsmd8.txt" || fail "ibsmd.8: no section $sec"
	done
	for sig in SIGHUP SIGUSR1 SIGTERM; do
		grep -qE "^ +$sig" "$T/ibsmd8.txt" || fail "ibsmd.8: no entry for $sig"
	done
fi

# --- ibsmctl(1) against ibsmctl help ---
ctl1=${P[ibsmctl.1]:-}
if [ -n "$ctl1" ]; then
	render "$ctl1" >"$T/ctl1.txt"
	"$top_builddir/ibsmctl" help >"$T/ctl.help" || fail "ibsmctl help: exit $?"
	sed '/^commands:/,$d' "$T/ctl.help" | help_options | sort -u >"$T/ctl.opts"
	[ -s "$T/ctl.opts" ] || fail "ibsmctl help: no options found"
	while read -r opt; do
		tagged_option "$T/ctl1.txt" "$opt" || fail "ibsmctl.1: no entry for option $opt"
	done <"$T/ctl.opts"
	# "  name args   summary" lines after "commands:" (a continuation starts with more blanks)
	sed -n '/^commands:/,/^$/p' "$T/ctl.help" | sed -n 's/^  \([a-z][a-z0-9-]*\).*/\1/p' |
		sort -u >"$T/ctl.cmds"
	[ "$(wc -l <"$T/ctl.cmds")" -ge 4 ] || fail "ibsmctl help: only $(wc -l <"$T/ctl.cmds") commands found"
	# the COMMANDS section, its entries are the lines indented by 7
	sed -n '/^COMMANDS$/,/^[A-Z]/p' "$T/ctl1.txt" >"$T/ctl1.cmds"
	while read -r cmd; do
		grep -qE "^       $cmd( |\$)" "$T/ctl1.cmds" || fail "ibsmctl.1: no entry for command $cmd"
	done <"$T/ctl.cmds"
	for sec in NAME SYNOPSIS DESCRIPTION OPTIONS COMMANDS PROTOCOL "EXIT STATUS" EXAMPLES "SEE ALSO"; do
		grep -q "^$sec\$" "$T/ctl1.txt" || fail "ibsmctl.1: no section $sec"
	done
fi

if [ "$fails" -ne 0 ]; then
	echo "$fails failure(s)"
	exit 1
fi
echo "ok: 3 pages, $(wc -l <"$T/keys" 2>/dev/null || echo 0) keys," \
	"$(wc -l <"$T/ibsmd.opts" 2>/dev/null || echo 0) ibsmd options," \
	"$(wc -l <"$T/ctl.cmds" 2>/dev/null || echo 0) ibsmctl commands"
exit 0
