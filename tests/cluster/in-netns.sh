#!/usr/bin/env bash
# in-netns.sh [--node X] CMD...: run CMD inside the test cluster's sealed
# control-plane network namespace (or, with --node X, inside node X's
# network and mount namespaces, where its kubelet, containerd and
# kube-proxy run), with the cluster's environment ($SB_OUT/env: KUBECONFIG,
# API_URL, PROXY_URL, ...) when the cluster is up. Without CMD: a shell.
# Uses `nsenter --net` (not `ip netns exec`, which remounts /sys and hides
# the cgroup v1 mounts). Needs root.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=tests/cluster/lib.sh
. "$here/lib.sh"
enter=(nsenter --net="$SB_NETNS_PATH")
if [ "${1:-}" = --node ]; then
	[ -n "${2:-}" ] || sb_die "--node needs a node letter (${SB_LETTERS[*]})"
	sb_alive "node-$2" || sb_die "node $2 is not running"
	enter=(nsenter --net="/var/run/netns/$(sb_node_netns "$2")" --mount="/proc/$(cat "$SB_STATE/run/node-$2.pid")/ns/mnt")
	shift 2
fi
[ -e "$SB_NETNS_PATH" ] || sb_die "network namespace $SB_NETNS does not exist: run make cluster-up"
if [ -f "$SB_OUT/env" ]; then
	# shellcheck source=/dev/null
	. "$SB_OUT/env"
fi
[ $# -gt 0 ] || set -- "${SHELL:-/bin/bash}"
exec "${enter[@]}" -- "$@"
