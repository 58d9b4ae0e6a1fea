#!/usr/bin/env bash
# lib.sh: shared settings and helpers of the test cluster's shell scripts
# (up.sh, down.sh, images.sh, in-netns.sh, status.sh). Sourced, not run.
#
# Layout (override the roots with the environment variables named):
#   $SB_KUBE_CACHE  /var/cache/storagebench/kube-1.20.2  binaries (get-kube.sh)
#   $SB_PKI         /var/lib/storagebench/pki        CA, certificates, keys,
#                   admin token: kept across cluster-down (make cluster-clean
#                   removes them)
#   $SB_STATE       /var/lib/storagebench/cluster    runtime state: pids, logs,
#                   containerd, kubelet, configs; removed by cluster-down
#   $SB_SHM         /dev/shm/storagebench-cluster    etcd data, class `fast`
#   $SB_VARTMP      /var/tmp/storagebench-cluster    class `disk`
#   $SB_OUT         <checkout>/build/cluster         kubeconfigs, ca.crt, env,
#                   images/, trace/
#   $SB_NETNS, $SB_LOCK, $SB_CGROUP_ROOT  the namespace name, lock file and
#                   cgroup root: with the roots above, a second instance for
#                   testing this tooling (not two full clusters: the kubelet
#                   1.20 has host paths it shares, such as
#                   /var/lib/kubelet/device-plugins)
# shellcheck disable=SC2034  # the variables are used by the scripts sourcing this

SB_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
SB_CLUSTER_DIR=$SB_ROOT/tests/cluster
SB_KUBE_CACHE=${SB_KUBE_CACHE:-/var/cache/storagebench/kube-1.20.2}
SB_KBIN=$SB_KUBE_CACHE/bin
SB_PKI=${SB_PKI:-/var/lib/storagebench/pki}
SB_STATE=${SB_STATE:-/var/lib/storagebench/cluster}
SB_SHM=${SB_SHM:-/dev/shm/storagebench-cluster}
SB_VARTMP=${SB_VARTMP:-/var/tmp/storagebench-cluster}
SB_OUT=${SB_OUT:-$SB_ROOT/build/cluster}
SB_LOCK=${SB_LOCK:-/var/lib/storagebench/cluster.lock}

SB_NETNS=${SB_NETNS:-storagebench}
SB_NETNS_PATH=/var/run/netns/$SB_NETNS
SB_NODE_IP=10.254.254.1
SB_NODE=storagebench-node
SB_API_IP=127.0.2.1
SB_API_URL=https://$SB_API_IP:443
SB_PROXY_URL=https://127.0.0.1:16444
SB_PROXY_CONTROL_URL=http://127.0.0.1:16445
SB_CGROUP_ROOT=${SB_CGROUP_ROOT:-storagebench}
SB_SOCK=$SB_STATE/containerd/containerd.sock
SB_VERSION=$(cat "$SB_ROOT/VERSION" 2>/dev/null || echo 0.0.0)
SB_IMAGE=localhost/storagebench:$SB_VERSION
SB_TEST_IMAGE=localhost/storagebench-test:1
SB_PAUSE_IMAGE=localhost/pause:3.4.1
SB_SECCOMP_NO_IOURING=storagebench/no-iouring.json
# Components, in start order; cluster-down stops them in reverse.
SB_COMPONENTS=(etcd kube-apiserver containerd kube-controller-manager kube-scheduler kubelet provisioner faultproxy)
# sysctls the kubelet rewrites at start (restored by cluster-down)
SB_SYSCTLS=(vm.overcommit_memory kernel.panic kernel.panic_on_oops)

SB_T0=${SB_T0:-$(date +%s%N)}
# sb_step MSG: one progress line with the elapsed seconds.
sb_step() {
	local ms=$((($(date +%s%N) - SB_T0) / 1000000))
	printf 'cluster: [%3d.%01ds] %s\n' $((ms / 1000)) $((ms % 1000 / 100)) "$*"
}
sb_die() {
	sb_step "error: $*" >&2
	exit 1
}

# sb_ns CMD...: run CMD inside the cluster's network namespace.
sb_ns() {
	nsenter --net="$SB_NETNS_PATH" -- "$@"
}

sb_kubectl() {
	sb_ns /usr/bin/kubectl --kubeconfig="$SB_OUT/kubeconfig" "$@"
}

sb_ctr() {
	ctr -a "$SB_SOCK" -n k8s.io "$@"
}

# sb_pid_ours PID: PID runs (not a zombie) inside our network namespace,
# so a stale pid file (after a reboot, say) never names another process.
sb_pid_ours() {
	local ino st
	[ -n "$1" ] || return 1
	ino=$(stat -L -c %i "$SB_NETNS_PATH" 2>/dev/null) || return 1
	[ "$(readlink "/proc/$1/ns/net" 2>/dev/null)" = "net:[$ino]" ] || return 1
	st=$(awk '{print $3}' "/proc/$1/stat" 2>/dev/null) || return 1
	[ -n "$st" ] && [ "$st" != Z ]
}

# sb_alive NAME: the component's recorded process is running.
sb_alive() {
	local f=$SB_STATE/run/$1.pid
	[ -f "$f" ] || return 1
	sb_pid_ours "$(cat "$f")"
}

# sb_up_state: prints "up" (every component alive), "down" (none, no
# netns) or "partial".
sb_up_state() {
	local c n=0 alive=0
	for c in "${SB_COMPONENTS[@]}"; do
		n=$((n + 1))
		sb_alive "$c" && alive=$((alive + 1))
	done
	if [ $alive -eq $n ] && [ -f "$SB_STATE/run/up" ]; then
		echo up
	elif [ $alive -eq 0 ] && [ ! -e "$SB_NETNS_PATH" ] && [ ! -d "$SB_STATE/run" ]; then
		echo down
	else
		echo partial
	fi
}
