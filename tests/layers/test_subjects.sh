#!/usr/bin/env bash
# The commit-subject check (scripts/subjects.py, run by make lint): the
# tree's commits after scripts/subjects.base pass; in a scratch repository
# whose exempt history has a long subject, a 72-character subject passes
# (the control, with a two-byte character counted once), a 73-character one
# fails named with its hash, a long merge subject is named too, and a base
# the clone does not have is an error, not a pass. Prints one line per case
# and "N passed, N failed, N skipped".
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
. tests/layers/cases.sh
subjects() { /usr/bin/python3 "$repo/scripts/subjects.py" "$@" >"$tmp/out" 2>&1; }

passes "the tree's commits after scripts/subjects.base pass" /usr/bin/python3 scripts/subjects.py

# the scratch repository: no user configuration, no hooks
export GIT_CONFIG_GLOBAL=/dev/null GIT_CONFIG_NOSYSTEM=1
export GIT_AUTHOR_NAME=t GIT_AUTHOR_EMAIL=t@example.invalid
export GIT_COMMITTER_NAME=t GIT_COMMITTER_EMAIL=t@example.invalid
r=$tmp/r
g() { git -C "$r" "$@" >>"$tmp/git.log" 2>&1; }
n=0
commit() { # $1: subject (each commit adds a file of its own: no conflicts)
	n=$((n + 1))
	echo "$1" >"$r/f$n" && g add "f$n" && g commit -q -m "$1"
}
subject_of() { # $1: length, made of x and, last, one two-byte character
	printf '%*s±' $(($1 - 1)) '' | tr ' ' x
}
mkdir -p "$r" && g init -q -b main
commit "$(subject_of 100)" # exempt history
base=$(git -C "$r" rev-parse HEAD)
commit "$(subject_of 72)"
if subjects --repo "$r" --base "$base" && grep -q 'the 1 commits after' "$tmp/out"; then
	ok "72 characters pass (a two-byte character counts once; the exempt base is long)"
else
	bad "72 characters pass (a two-byte character counts once; the exempt base is long)"
fi

commit "$(subject_of 73)"
long=$(git -C "$r" rev-parse --short=12 HEAD)
if subjects --repo "$r" --base "$base"; then
	bad "a 73-character subject fails"
elif grep -q "^subjects: $long: 73 characters (at most 72): x" "$tmp/out" &&
	grep -q '1 of 2 commits after' "$tmp/out"; then
	ok "a 73-character subject fails, named with its hash"
else
	bad "a 73-character subject fails, named with its hash"
fi

# a merge commit is checked too
g reset -q --hard HEAD~1
g checkout -q -b side && commit "Add a side line" && g checkout -q main && commit "Add a main line"
g merge -q --no-ff side -m "Merge the side branch into main, with a subject that is much too long to be kept"
merge=$(git -C "$r" rev-parse --short=12 HEAD)
if subjects --repo "$r" --base "$base"; then
	bad "a long merge subject fails"
elif grep -q "^subjects: $merge: 80 characters" "$tmp/out" && grep -q '1 of 4 commits after' "$tmp/out"; then
	ok "a long merge subject fails, named with its hash"
else
	bad "a long merge subject fails, named with its hash"
fi

exits_with "a base the clone does not have is an error, not a pass" 2 'is not in' \
	subjects --repo "$r" --base 0123456789abcdef0123456789abcdef01234567

cases_done
