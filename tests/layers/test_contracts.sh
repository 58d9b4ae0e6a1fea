#!/usr/bin/env bash
# One definition of each contract string (scripts/contract-check.py, run by
# `make lint`): the tree passes; a copy of a label key or an env name
# planted in a binary's code is named with its file, line and the name to
# use; a comment or an unrelated string is not; a single lowercase word is
# not searched for. Prints one line per case and "N passed, N failed, N skipped".
set -uo pipefail
cd "$(dirname "$0")/../.."
. tests/layers/cases.sh
check() { python3 scripts/contract-check.py "$@" >"$tmp/out" 2>&1; }

if check; then ok "the tree spells each contract string only in its header"; else bad "the tree is clean"; fi

# a planted tree: the real headers, one binary file with copies
mkdir -p "$tmp/t/lib/core" "$tmp/t/controller"
cp lib/core/labels.h "$tmp/t/lib/core/"
cat >"$tmp/t/controller/planted.c" <<'C'
/* mentions "storagebench.io/run" in a comment: not a copy */
static const char *a = "storagebench.io/run";
static const char *b = "SB_ITERATIONS";
static const char *c = "ready"; // one lowercase word: not searched
static const char *d = "storagebench.io/runs"; /* a different string */
static const char e = '"';
C
check --root "$tmp/t" controller/planted.c
rc=$?
if [ $rc -eq 1 ] && grep -q '^controller/planted.c:2: "storagebench.io/run" is SB_LABEL_RUN (lib/core/labels.h)' "$tmp/out" &&
	grep -q '^controller/planted.c:3: "SB_ITERATIONS" is SB_ENV_ITERATIONS' "$tmp/out"; then
	ok "a planted label key and env name are named with file, line and the name to use"
else
	bad "a planted label key and env name are named (exit $rc)"
fi
if [ "$(grep -c '^controller/planted.c:' "$tmp/out")" = 2 ]; then
	ok "the comment, the lowercase word and the longer string are not copies"
else
	bad "only the two copies are named"
fi
rm "$tmp/t/lib/core/labels.h"
check --root "$tmp/t" controller/planted.c
if [ $? -eq 2 ] && grep -q "no contract definitions" "$tmp/out"; then
	ok "no header to read is an error, not a pass"
else
	bad "no header to read is an error, not a pass"
fi
cases_done
