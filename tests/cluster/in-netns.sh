#!/usr/bin/env bash
# in-netns.sh CMD...: run CMD inside the test cluster's sealed network
# namespace, with the cluster's environment (build/cluster/env: KUBECONFIG,
# API_URL, PROXY_URL, ...) when the cluster is up. Without CMD: a shell.
# Uses `nsenter --net` (not `ip netns exec`, which remounts /sys and hides
# the cgroup v1 mounts). Needs root.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=tests/cluster/lib.sh
. "$here/lib.sh"
[ -e "$SB_NETNS_PATH" ] || sb_die "network namespace $SB_NETNS does not exist: run make cluster-up"
if [ -f "$SB_OUT/env" ]; then
	# shellcheck source=/dev/null
	. "$SB_OUT/env"
fi
[ $# -gt 0 ] || set -- "${SHELL:-/bin/bash}"
exec nsenter --net="$SB_NETNS_PATH" -- "$@"
