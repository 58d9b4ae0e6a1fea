#!/usr/bin/env bash
# make bench: runs every scripts/bench.d/*.sh in order. Each prints its own
# table with the command that produced it. Benchmarks are not tests: they
# print figures (medians and ratios), they do not pass or fail on speed.
set -uo pipefail
cd "$(dirname "$0")/.."
rc=0
for b in scripts/bench.d/*.sh; do
	[ -e "$b" ] || continue
	echo "=== bench $(basename "$b" .sh)"
	bash "$b" || rc=1
	echo
done
exit $rc
