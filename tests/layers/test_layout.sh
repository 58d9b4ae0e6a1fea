#!/usr/bin/env bash
# The layout check (scripts/layout.py, `make layout` in `make lint`): the
# tree passes with its allowlist; in a scratch tree, a header whose guard
# does not name its path is named with the guard it should have, and the
# right guard passes (the control); a source folder without a README.md or
# a main header is named, and one line of README.md, or a main header whose
# first comment names the concern, passes; a listed item that is in place
# is an error naming its line; --fix-guards rewrites a guard. Prints one
# line per case and "N passed, N failed, N skipped".
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
. tests/layers/cases.sh
layout() { /usr/bin/python3 "$repo/scripts/layout.py" "$@" >"$tmp/out" 2>&1; }

passes "the tree passes (its allowlist matches)" /usr/bin/python3 scripts/layout.py

t=$tmp/t
mkdir -p "$t/lib/widget" "$t/runner/gear"
echo 'Widgets: the planted folder of this test.' >"$t/lib/widget/README.md"
header() { # $1: path under $t, $2: guard
	printf '/* SPDX-License-Identifier: MIT */\n/*\n * %s, planted.\n */\n#ifndef %s\n#define %s\n\nint planted(void);\n\n#endif\n' \
		"$1" "$2" "$2" >"$t/$1"
}
header lib/widget/widget.h SB_WIDGET_H
header runner/gear/gear.h SB_RUNNER_GEAR_GEAR_H
if layout --root "$t" --allow /dev/null; then
	bad "a guard that does not name its path fails"
elif grep -qx 'layout: lib/widget/widget.h:5: include guard SB_WIDGET_H, not SB_LIB_WIDGET_WIDGET_H (its path)' "$tmp/out" &&
	[ "$(grep -c '^layout: ' "$tmp/out")" = 1 ]; then
	ok "a guard that does not name its path fails, named with the right one"
else
	bad "a guard that does not name its path fails, named with the right one"
fi

layout --root "$t" --fix-guards lib
if grep -q '^#ifndef SB_LIB_WIDGET_WIDGET_H$' "$t/lib/widget/widget.h" &&
	grep -q '^#define SB_LIB_WIDGET_WIDGET_H$' "$t/lib/widget/widget.h" &&
	layout --root "$t" --allow /dev/null; then
	ok "--fix-guards rewrites it; the right guards and a README.md and a main header pass (control)"
else
	bad "--fix-guards rewrites it; the right guards and a README.md and a main header pass (control)"
fi

# a folder that names nothing: no README.md, no main header
printf 'int x;\n' >"$t/runner/gear/teeth.c"
mkdir -p "$t/runner/bare"
printf 'int y;\n' >"$t/runner/bare/bare.c"
if layout --root "$t" --allow /dev/null; then
	bad "a source folder that names no concern fails"
elif grep -q '^layout: runner/bare: no README.md' "$tmp/out" && ! grep -q 'runner/gear:' "$tmp/out"; then
	ok "a source folder that names no concern fails, named (one with a main header passes)"
else
	bad "a source folder that names no concern fails, named (one with a main header passes)"
fi
: >"$t/runner/bare/README.md"
if ! layout --root "$t" --allow /dev/null && grep -q 'runner/bare/README.md: its first line is empty' "$tmp/out"; then
	ok "an empty README.md fails"
else
	bad "an empty README.md fails"
fi

# the allowlist: a listed fault passes; a listed item in place is an error
printf 'runner/bare\n' >"$tmp/allow"
if layout --root "$t" --allow "$tmp/allow"; then
	ok "a listed fault passes"
else
	bad "a listed fault passes"
fi
printf 'runner/bare\nlib/widget/widget.h\n' >"$tmp/allow"
if layout --root "$t" --allow "$tmp/allow"; then
	bad "a listed item that is in place is an error"
elif grep -q 'allow:2: lib/widget/widget.h is in place (or gone): remove the line' "$tmp/out"; then
	ok "a listed item that is in place is an error naming its line"
else
	bad "a listed item that is in place is an error naming its line"
fi

cases_done
