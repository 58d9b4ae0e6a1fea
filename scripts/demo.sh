#!/usr/bin/env bash
# The demo. Until the controller lands: the runner's built-in "quick"
# profile (the wiki's six tests), 3 iterations, short runtimes, on two local
# directories (memory under /dev/shm, disk under /tmp), then the mean and
# standard deviation summary of each.
set -euo pipefail
cd "$(dirname "$0")/.."
runner=bin/storagebench-runner
[ -x "$runner" ] || make all
work=$(mktemp -d /tmp/storagebench-demo.XXXXXX)
shm=$(mktemp -d /dev/shm/storagebench-demo.XXXXXX)
trap 'rm -rf "$work" "$shm"' EXIT
for target in "$shm:memory" "$work:disk"; do
	dir=${target%%:*} label=${target##*:}
	echo "=== quick profile on $label ($dir): 3 iterations, 2 s per workload"
	"$runner" --profile=quick --iterations=3 --runtime=2s --size=64m \
		--directory="$dir" --label="$label" --log-level=warn |
		sed -n '/^=== summary/,$p'
	echo
done
