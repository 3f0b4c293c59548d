#!/bin/bash
# ibsmd --check-config on the corpus of opensm.conf variants in tests/conf:
# (a) its output, line by line, is the NAME.check committed next to each
#     NAME.conf, and it exits 0 exactly when that says "ibsmd would start";
# (b) with --strict-config, every file with a warning or an error is
#     refused (exit 1, "would not start"), a clean one still passes;
# (c) a start with --strict-config (-o, no fabric needed to refuse) stops
#     before touching a port, naming the warnings.
# Exit 0 pass, 1 fail.
set -u
top_srcdir=${top_srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
top_builddir=${top_builddir:-$top_srcdir}

IBSMD=$top_builddir/ibsmd
PLUGINS=$top_builddir/plugins/routing/.libs
[ -x "$IBSMD" ] || { echo "FAIL: $IBSMD not built"; exit 1; }

fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

T=$(mktemp -d "${TMPDIR:-/tmp}/ibsmd-checkconf.XXXXXX") || exit 1
trap 'rm -rf "$T"' EXIT

# paths in the messages are as given: run from the corpus with relative names
cd "$top_srcdir/tests/conf" || exit 1
n=0
for conf in *.conf; do
	name=${conf%.conf}
	n=$((n + 1))
	timeout 30 "$IBSMD" -F "$conf" --plugin-dir "$PLUGINS" --check-config \
		>"$T/$name.out" 2>"$T/$name.err"
	rc=$?
	if ! diff -u "$name.check" "$T/$name.out"; then
		fail "$conf: --check-config output differs from $name.check"
	fi
	want=1
	tail -n 1 "$name.check" | grep -q ': ibsmd would start$' && want=0
	[ "$rc" = "$want" ] || fail "$conf: --check-config exit $rc, want $want"

	# strict: any warning or error refuses
	timeout 30 "$IBSMD" -F "$conf" --plugin-dir "$PLUGINS" --check-config --strict-config \
		>"$T/$name.strict" 2>/dev/null
	rc=$?
	if tail -n 1 "$name.check" | grep -q ': 0 errors, 0 warnings: ibsmd would start$'; then
		[ "$rc" = 0 ] || fail "$conf: --strict-config refuses a clean file"
	else
		[ "$rc" = 1 ] || fail "$conf: --strict-config exit $rc, want 1"
		tail -n 1 "$T/$name.strict" | grep -q 'ibsmd would not start' ||
			fail "$conf: --strict-config: $(tail -n 1 "$T/$name.strict")"
		# the findings are the same, only the verdict changes
		diff <(head -n -1 "$name.check") <(head -n -1 "$T/$name.strict") >/dev/null ||
			fail "$conf: --strict-config reports other findings"
	fi
done
[ "$n" -ge 10 ] || fail "only $n files in the corpus"

# strict_config in the file itself does what the flag does
printf 'strict_config TRUE\nsm_priorty 1\n' >"$T/strict.conf"
out=$(timeout 30 "$IBSMD" -F "$T/strict.conf" --plugin-dir "$PLUGINS" --check-config 2>/dev/null)
[ $? = 1 ] || fail "strict_config TRUE in the file: not refused"
echo "$out" | tail -n 1 | grep -q 'would not start (strict_config)$' || fail "strict: $out"

# a real start refuses before opening a port, and says why
out=$(timeout 30 "$IBSMD" -F misspelt.conf --plugin-dir "$PLUGINS" --strict-config -o \
	--socket "$T/sock" --cache-dir "$T" 2>&1)
rc=$?
[ "$rc" = 1 ] || fail "start with --strict-config: exit $rc"
echo "$out" | grep -q "misspelt.conf:2: unknown key 'sm_priorty' (did you mean 'sm_priority'?)" ||
	fail "start with --strict-config does not name the warning: $out"
echo "$out" | grep -q 'warnings in the configuration and strict_config, not starting' ||
	fail "start with --strict-config: $out"

# the files the SM reads later are read at a start too: a refused start
# names their warnings as --check-config does, and the replaced OpenSM keys
for name in sm-files replaced; do
	out=$(timeout 30 "$IBSMD" -F $name.conf --plugin-dir "$PLUGINS" --strict-config -o \
		--socket "$T/sock" --cache-dir "$T" 2>&1)
	[ $? = 1 ] || fail "start with --strict-config and $name.conf: not refused"
	grep '^warning: ' "$name.check" | sed 's/^warning: //' | while IFS= read -r w; do
		printf '%s\n' "$out" | grep -qF -- "$w" || echo "$w"
	done >"$T/$name.missing"
	[ -s "$T/$name.missing" ] &&
		fail "start with $name.conf does not say: $(cat "$T/$name.missing")"
done

# a file named explicitly and missing is a line; the same file at the
# key's default is silent, as in OpenSM
(cd "$T" && printf 'prefix_routes_file /etc/opensm/prefix-routes.conf\n' >default.conf &&
	timeout 30 "$IBSMD" -F default.conf --plugin-dir "$PLUGINS" --check-config) >"$T/default.out"
if [ -e /etc/opensm/prefix-routes.conf ]; then
	echo "SKIP: /etc/opensm/prefix-routes.conf exists here"
else
	tail -n 1 "$T/default.out" | grep -q ': 0 errors, 0 warnings: ibsmd would start$' ||
		fail "a missing default prefix_routes_file: $(cat "$T/default.out")"
fi

[ "$fails" = 0 ] && echo "PASS: $n files" && exit 0
exit 1
