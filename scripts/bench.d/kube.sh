#!/usr/bin/env bash
# The lib/kube part of `make bench`, against the test cluster (tests/cluster):
# GETs of a ConfigMap per second over one reused connection vs a new
# connection per request (median of alternating rounds, and the ratio), and
# the memory per object cached by the informer. Runs only when the cluster is
# up; otherwise says why and exits 0.
# Usage: bash scripts/bench.d/kube.sh [rounds] [seconds-per-round] [objects]
set -uo pipefail
cd "$(dirname "$0")/../.."
rounds=${1:-5} secs=${2:-3} objects=${3:-1000}
if [ ! -f build/cluster/env ] || [ ! -e /var/run/netns/storagebench ]; then
	echo "kube bench skipped: the test cluster is not up (make cluster-up)"
	exit 0
fi
make -s kube-bench-bin >/dev/null || { echo "kube bench: build failed"; exit 1; }
cmd="tests/cluster/in-netns.sh build/rel/tests/kube/bench_kube $rounds $secs $objects"
echo "command: $cmd  (KUBECONFIG from build/cluster/env)"
SB_LOG_LEVEL=warn $cmd
