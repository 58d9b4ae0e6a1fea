#!/usr/bin/env bash
# The tree's own structure checks, and proof that breaking each one fails
# the check: every tests/layers/test_*.sh but the contracts' (their own
# suite): the layers' link and include rule (test_layers.sh), no circle
# between files (test_circles.sh), and the layout checks. Their cases are
# printed as they come; the last line adds up their count lines.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
count='^[0-9]+ passed, [0-9]+ failed, [0-9]+ skipped$'
out=$(mktemp)
counts=$(mktemp)
trap 'rm -f "$out" "$counts"' EXIT
for t in tests/layers/test_*.sh; do
	case "$t" in */test_contracts.sh) continue ;; esac
	bash "$t" >"$out" 2>&1
	rc=$?
	grep -vE "$count" "$out"
	line=$(grep -E "$count" "$out" | tail -n 1)
	if [ -z "$line" ]; then
		echo "FAIL $t: exited $rc without a count line"
		line="0 passed, 1 failed, 0 skipped"
	elif [ $rc -ne 0 ] && [[ $line == *" 0 failed"* ]]; then
		echo "FAIL $t: exited $rc"
		line="${line%%,*}, 1 failed, 0 skipped"
	fi
	echo "$line" >>"$counts"
done
awk '{ p += $1; f += $3; s += $5 } END { printf "%d passed, %d failed, %d skipped\n", p, f, s; exit f > 0 }' "$counts"
