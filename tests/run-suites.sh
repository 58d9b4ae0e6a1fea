#!/usr/bin/env bash
# Runs the test suites in tests/suites/ (NN-name.sh, in order) or only the
# ones named on the command line (by name without number, e.g. "unit").
# Each suite prints its own cases and ends with a line
#   N passed, N failed, N skipped
# This script echoes everything, adds up those lines, and ends with the
# total in the same form. A suite that exits non-zero without such a line
# counts as one failure. Exit status: 0 only when nothing failed.
set -uo pipefail
cd "$(dirname "$0")/.."
total_p=0 total_f=0 total_s=0
failed_suites=()
for s in tests/suites/*.sh; do
	name=$(basename "$s" .sh)
	name=${name#[0-9][0-9]-}
	if [ $# -gt 0 ]; then
		want=0
		for a in "$@"; do [ "$a" = "$name" ] && want=1; done
		[ $want = 1 ] || continue
	fi
	echo "=== suite $name"
	log=$(mktemp)
	bash "$s" 2>&1 | tee "$log"
	rc=${PIPESTATUS[0]}
	line=$(grep -E '^[0-9]+ passed, [0-9]+ failed, [0-9]+ skipped$' "$log" | tail -n 1)
	rm -f "$log"
	if [ -n "$line" ]; then
		read -r p _ f _ sk _ <<<"$(echo "$line" | tr -d ',')"
	else
		p=0 f=0 sk=0
	fi
	if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
		echo "suite $name exited with status $rc without reporting a failure: counted as one"
		f=1
	fi
	[ "$f" -gt 0 ] && failed_suites+=("$name")
	total_p=$((total_p + p)) total_f=$((total_f + f)) total_s=$((total_s + sk))
	echo "=== suite $name: $p passed, $f failed, $sk skipped"
done
[ ${#failed_suites[@]} -gt 0 ] && echo "failing suites: ${failed_suites[*]}"
echo "$total_p passed, $total_f failed, $total_s skipped"
[ "$total_f" -eq 0 ]
