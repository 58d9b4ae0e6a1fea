#!/usr/bin/env bash
# The circle check (scripts/circles.py, `make circles` in `make lint`): the
# tree passes with its allowlist; in a scratch tree, two small objects that
# call each other are named with both files and the functions that tie
# them, a global defined in one file and used back by the file it calls
# (no header between them: only the objects' symbols show it) is named
# with the global, two headers that include each other's types are named
# by the includes; the same pair calling one way only passes (the
# control); an allowed circle passes, and an allowed circle that does not
# exist is an error naming its line. Prints one line per case and
# "N passed, N failed, N skipped".
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
MAKE=${MAKE:-make}
. tests/layers/cases.sh
circles() { /usr/bin/python3 "$repo/scripts/circles.py" "$@" >"$tmp/out" 2>&1; }

passes "make circles passes on the tree (its allowlist matches)" $MAKE -s --no-print-directory circles

# plant DIR: a scratch tree with DIR/{left,right}.c and their headers
# (the caller writes the sources), compiled as the Makefile does (-MMD)
t=$tmp/t
build() {
	local s o
	for s in $(cd "$t" && find lib runner -name '*.c'); do
		o=$t/build/rel/${s%.c}.o
		mkdir -p "$(dirname "$o")"
		(cd "$t" && cc -std=c11 -Wall -Werror -Ilib -I. -MMD -MP -c -o "$o" "$s") || return 1
	done
}
reset() { rm -rf "$t" && mkdir -p "$t/lib/pair" "$t/runner/g"; }
# planted_circle NAME LINE...: the plant compiles, the check fails, and
# its output holds each LINE (whole)
planted_circle() {
	local name=$1 l
	shift
	if ! build >"$tmp/out" 2>&1; then
		bad "$name (the plant compiles)"
		return
	fi
	if circles --root "$t" --allow /dev/null; then
		bad "$name"
		return
	fi
	for l in "$@"; do
		if ! grep -qxF -- "$l" "$tmp/out"; then
			bad "$name (no line '$l')"
			return
		fi
	done
	ok "$name"
}

# 1. two objects that call each other
reset
printf 'void left_fn(void);\n' >"$t/lib/pair/left.h"
printf 'void right_fn(void);\n' >"$t/lib/pair/right.h"
cat >"$t/lib/pair/left.c" <<'C'
#include "pair/left.h"
#include "pair/right.h"
void left_fn(void) { right_fn(); }
C
cat >"$t/lib/pair/right.c" <<'C'
#include "pair/left.h"
#include "pair/right.h"
void right_fn(void) { left_fn(); }
C
planted_circle "two objects that call each other are a circle, named with the functions" \
	"circle of 2 files: lib/pair/left.c, lib/pair/right.c" \
	"  lib/pair/left.c -> lib/pair/right.c: right_fn, #include lib/pair/right.h" \
	"  lib/pair/right.c -> lib/pair/left.c: left_fn, #include lib/pair/left.h"

# 2. an allowlist naming that circle: it passes; one naming a circle that
# is not there fails, naming its line
printf '# planted\nlib/pair/left.c\n\tlib/pair/right.c\n' >"$tmp/allow"
if circles --root "$t" --allow "$tmp/allow" && grep -q '1 allowed' "$tmp/out"; then
	ok "an allowed circle (an entry over two lines) passes"
else
	bad "an allowed circle (an entry over two lines) passes"
fi
printf 'lib/pair/left.c lib/pair/right.c\nlib/pair/left.c lib/pair/gone.c\n' >"$tmp/allow"
if circles --root "$t" --allow "$tmp/allow"; then
	bad "an allowed circle that does not exist is an error"
elif grep -q 'allow:2: the allowed circle lib/pair/gone.c lib/pair/left.c does not exist' "$tmp/out" &&
	! grep -q '^circle of' "$tmp/out"; then
	ok "an allowed circle that does not exist is an error naming its line"
else
	bad "an allowed circle that does not exist is an error naming its line"
fi

# 3. the control: the same pair, right.c no longer calling back
cat >"$t/lib/pair/right.c" <<'C'
#include "pair/right.h"
void right_fn(void) { }
C
if ! build >"$tmp/out" 2>&1; then
	bad "a pair calling one way passes (control; the plant compiles)"
elif circles --root "$t" --allow /dev/null && grep -q '^circles: no circle between 2 files' "$tmp/out"; then
	ok "the same pair calling one way only passes (control)"
else
	bad "the same pair calling one way only passes (control)"
fi

# 4. a global used back, no header between the two files: only nm sees it
reset
cat >"$t/runner/g/count.c" <<'C'
void report_now(void);
unsigned long planted_count;
void count_one(void) { planted_count++; report_now(); }
C
cat >"$t/runner/g/report.c" <<'C'
#include <stdio.h>
extern unsigned long planted_count;
void report_now(void);
void report_now(void) { printf("%lu\n", planted_count); }
C
planted_circle "a global used back by the file it calls is a circle, named with the global" \
	"circle of 2 files: runner/g/count.c, runner/g/report.c" \
	"  runner/g/count.c -> runner/g/report.c: report_now" \
	"  runner/g/report.c -> runner/g/count.c: planted_count"

# 5. headers that use each other's types: only the includes tie them
reset
printf 'struct left { int n; };\n' >"$t/lib/pair/left.h"
printf 'struct right { int n; };\n' >"$t/lib/pair/right.h"
printf '#include "pair/left.h"\n#include "pair/right.h"\nint left_n(struct right *r);\nint left_n(struct right *r) { return r->n; }\n' >"$t/lib/pair/left.c"
printf '#include "pair/left.h"\n#include "pair/right.h"\nint right_n(struct left *l);\nint right_n(struct left *l) { return l->n; }\n' >"$t/lib/pair/right.c"
planted_circle "files compiled with each other's headers are a circle, named by the includes" \
	"  lib/pair/left.c -> lib/pair/right.c: #include lib/pair/right.h" \
	"  lib/pair/right.c -> lib/pair/left.c: #include lib/pair/left.h"

# 6. a source without its object is an error, not a pass
rm "$t/build/rel/lib/pair/right.o"
exits_with "a source without its object is an error, not a pass" 2 \
	'no object or dependency file .* for: lib/pair/right.c' circles --root "$t" --allow /dev/null

cases_done
