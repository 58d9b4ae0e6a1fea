#!/usr/bin/env bash
# lib.sh: shared settings and helpers of the test cluster's shell scripts
# (up.sh, down.sh, images.sh, in-netns.sh, status.sh). Sourced, not run.
#
# Layout (override the roots with the environment variables named):
#   $SB_KUBE_CACHE  /var/cache/storagebench/kube-1.20.2  binaries (get-kube.sh)
#   $SB_PREFIX      storagebench: every host-level name below derives from it,
#                   so a second instance (SB_PREFIX=sbdev, say) can run beside
#                   the default one for work on this tooling
#   $SB_PKI         /var/lib/$SB_PREFIX/pki     CA, certificates, keys, admin
#                   token: kept across cluster-down (make cluster-clean
#                   removes them)
#   $SB_STATE       /var/lib/$SB_PREFIX/cluster runtime state: pids, logs,
#                   configs, and per node nodes/<letter>/ (containerd,
#                   kubelet, CNI, the node's private /var/lib/kubelet,
#                   /var/log/pods, /var/log/containers, /var/lib/cni);
#                   removed by cluster-down
#   $SB_SHM         /dev/shm/$SB_PREFIX-cluster  etcd data, class `fast`
#   $SB_VARTMP      /var/tmp/$SB_PREFIX-cluster  classes `disk`, `disk-immediate`
#   $SB_OUT         <checkout>/build/cluster (build/cluster-$SB_PREFIX for
#                   another prefix): kubeconfigs, ca.crt, env, images/, trace/
#   $SB_NETNS       $SB_PREFIX: the control plane's network namespace; node
#                   X's is $SB_NETNS-X
#   $SB_LOCK        /var/lib/$SB_PREFIX/cluster.lock
#   $SB_CGROUP_ROOT $SB_PREFIX: cgroup v1 root; node X's pods under $SB_CGROUP_ROOT/X
#   $SB_NODES       3: number of nodes (1..3; a, b, c); `SB_NODES=1` for quick
#                   local work. A running cluster's count is in $SB_STATE/run/nodes.
#
# Addresses (all inside the project's namespaces, no route out of them):
#   10.254.254.1/24  the control plane (bridge sbbr0 in $SB_NETNS): API server :443
#   10.254.254.1X    node X's eth0 (a=11, b=12, c=13), veth to the bridge
#   10.244.N.0/24    node N's pod network (CNI bridge cni0, gateway 10.244.N.1)
#   10.96.0.0/24     Services (kube-proxy, iptables mode); `kubernetes` = 10.96.0.1
# shellcheck disable=SC2034  # the variables are used by the scripts sourcing this

SB_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
SB_CLUSTER_DIR=$SB_ROOT/tests/cluster
SB_KUBE_CACHE=${SB_KUBE_CACHE:-/var/cache/storagebench/kube-1.20.2}
SB_KBIN=$SB_KUBE_CACHE/bin
SB_PREFIX=${SB_PREFIX:-storagebench}
SB_PKI=${SB_PKI:-/var/lib/$SB_PREFIX/pki}
SB_STATE=${SB_STATE:-/var/lib/$SB_PREFIX/cluster}
SB_SHM=${SB_SHM:-/dev/shm/$SB_PREFIX-cluster}
SB_VARTMP=${SB_VARTMP:-/var/tmp/$SB_PREFIX-cluster}
if [ "$SB_PREFIX" = storagebench ]; then
	SB_OUT=${SB_OUT:-$SB_ROOT/build/cluster}
else
	SB_OUT=${SB_OUT:-$SB_ROOT/build/cluster-$SB_PREFIX}
fi
SB_LOCK=${SB_LOCK:-/var/lib/$SB_PREFIX/cluster.lock}

SB_NETNS=${SB_NETNS:-$SB_PREFIX}
SB_NETNS_PATH=/var/run/netns/$SB_NETNS
SB_CGROUP_ROOT=${SB_CGROUP_ROOT:-$SB_PREFIX}
SB_API_IP=10.254.254.1
SB_API_URL=https://$SB_API_IP:443
SB_SERVICE_CIDR=10.96.0.0/24
SB_KUBERNETES_SVC_IP=10.96.0.1
SB_POD_CIDR=10.244.0.0/16
SB_BRIDGE=sbbr0
SB_PROXY_URL=https://127.0.0.1:16444
SB_PROXY_CONTROL_URL=http://127.0.0.1:16445
SB_VERSION=$(cat "$SB_ROOT/VERSION" 2>/dev/null || echo 0.0.0)
SB_IMAGE=localhost/storagebench:$SB_VERSION
SB_TEST_IMAGE=localhost/storagebench-test:1
SB_DYN_IMAGE=localhost/storagebench-dyn:$SB_VERSION
SB_PAUSE_IMAGE=localhost/pause:3.4.1
SB_SECCOMP_NO_IOURING=storagebench/no-iouring.json
SB_ALL_LETTERS=(a b c)

# The nodes: the running cluster's count, else $SB_NODES (default 3).
SB_NODES_REQUESTED=${SB_NODES:-3}
if [ -f "$SB_STATE/run/nodes" ]; then
	SB_NODES=$(cat "$SB_STATE/run/nodes")
fi
# sb_set_nodes N: SB_NODES, SB_LETTERS and SB_COMPONENTS for N nodes.
sb_set_nodes() {
	case "$1" in
	1 | 2 | 3) ;;
	*)
		echo "cluster: SB_NODES=$1: must be 1, 2 or 3" >&2
		exit 2
		;;
	esac
	SB_NODES=$1
	SB_LETTERS=("${SB_ALL_LETTERS[@]:0:$SB_NODES}")
	# Components, in start order; cluster-down stops them in reverse. Node
	# X has node-X (the holder of its private mount namespace),
	# containerd-X, kubelet-X, kube-proxy-X.
	SB_COMPONENTS=("${SB_CONTROL[@]}")
	local l
	for l in "${SB_LETTERS[@]}"; do
		SB_COMPONENTS+=("node-$l" "containerd-$l" "kubelet-$l" "kube-proxy-$l")
	done
}
SB_CONTROL=(etcd kube-apiserver kube-controller-manager kube-scheduler provisioner faultproxy)
sb_set_nodes "${SB_NODES:-3}"
# per node X: sb_node_name X, sb_node_ip X, sb_node_index X (1..), its
# pod CIDR sb_node_cidr X, its netns and state dir
sb_node_index() {
	local i
	for i in "${!SB_ALL_LETTERS[@]}"; do
		[ "${SB_ALL_LETTERS[$i]}" = "$1" ] && { echo $((i + 1)); return 0; }
	done
	return 1
}
sb_node_name() { echo "storagebench-$1"; }
sb_node_ip() { echo "10.254.254.$((10 + $(sb_node_index "$1")))"; }
sb_node_cidr() { echo "10.244.$(sb_node_index "$1").0/24"; }
sb_node_netns() { echo "$SB_NETNS-$1"; }
sb_node_state() { echo "$SB_STATE/nodes/$1"; }
sb_node_sock() { echo "$SB_STATE/nodes/$1/containerd/containerd.sock"; }
# First node: the names the one-node cluster had (SB_NODE, SB_SOCK).
SB_NODE=$(sb_node_name a)
SB_NODE_IP=$(sb_node_ip a)
SB_SOCK=$(sb_node_sock a)

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

# sb_ns CMD...: run CMD inside the control plane's network namespace.
sb_ns() {
	nsenter --net="$SB_NETNS_PATH" -- "$@"
}

sb_kubectl() {
	sb_ns /usr/bin/kubectl --kubeconfig="$SB_OUT/kubeconfig" "$@"
}

# sb_ctr [-n X] ARGS...: ctr against node X's containerd (default a).
sb_ctr() {
	local l=a
	if [ "${1:-}" = -n ]; then
		l=$2
		shift 2
	fi
	ctr -a "$(sb_node_sock "$l")" -n k8s.io "$@"
}

# sb_netns_of NAME: the network namespace path a component runs in.
sb_netns_of() {
	case "$1" in
	node-? | containerd-? | kubelet-? | kube-proxy-? | netem-?) echo "/var/run/netns/$SB_NETNS-${1: -1}" ;;
	*) echo "$SB_NETNS_PATH" ;;
	esac
}

# sb_pid_ours PID [NETNS_PATH]: PID runs (not a zombie) inside that network
# namespace (default the control plane's), so a stale pid file (after a
# reboot, say) never names another process.
sb_pid_ours() {
	local ino st
	[ -n "$1" ] || return 1
	ino=$(stat -L -c %i "${2:-$SB_NETNS_PATH}" 2>/dev/null) || return 1
	[ "$(readlink "/proc/$1/ns/net" 2>/dev/null)" = "net:[$ino]" ] || return 1
	st=$(awk '{print $3}' "/proc/$1/stat" 2>/dev/null) || return 1
	[ -n "$st" ] && [ "$st" != Z ]
}

# sb_alive NAME: the component's recorded process is running.
sb_alive() {
	local f=$SB_STATE/run/$1.pid
	[ -f "$f" ] || return 1
	sb_pid_ours "$(cat "$f")" "$(sb_netns_of "$1")"
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

# sb_launch NAME CMD...: start component NAME in its network namespace (and,
# for a node's components, the node's mount namespace), in its own session,
# logging to logs/NAME.log, pid in run/NAME.pid (the strace process when
# tracing). The command is kept in run/NAME.cmd so that sb_relaunch NAME
# (the fault helpers) starts it again the same way.
sb_launch() {
	local n=$1
	shift
	# (not the holders of the nodes' mount namespaces: strace would stay
	# outside the namespace that the node's components are started in)
	if [ -n "${SB_TRACE_CONNECT:-}" ] && [[ $n != node-? ]]; then
		mkdir -p "$SB_TRACE_CONNECT"
		# -A: a relaunched component appends to its trace
		set -- strace -f -qq -A --seccomp-bpf -e trace=connect -o "$SB_TRACE_CONNECT/$n.log" "$@"
	fi
	printf '%s\0' "$@" >"$SB_STATE/run/$n.cmd"
	_sb_start "$n"
}
_sb_start() {
	local n=$1 enter cmd h
	enter=(nsenter --net="$(sb_netns_of "$n")")
	case "$n" in
	containerd-? | kubelet-? | kube-proxy-?)
		if ! sb_alive "node-${n: -1}"; then
			sb_die "$n: node-${n: -1} (the node's mount namespace) is not running"
		fi
		h=$(cat "$SB_STATE/run/node-${n: -1}.pid")
		enter+=(--mount="/proc/$h/ns/mnt")
		;;
	esac
	mapfile -d '' -t cmd <"$SB_STATE/run/$n.cmd"
	# (fd 8, the cluster lock, must not leak into the long-running processes)
	AWS_EC2_METADATA_DISABLED=true "${enter[@]}" -- setsid "${cmd[@]}" \
		</dev/null >>"$SB_STATE/logs/$n.log" 2>&1 8>&- &
	local pid=$! ino i
	echo "$pid" >"$SB_STATE/run/$n.pid"
	# Until nsenter has entered the namespace the child is a fork of this
	# shell in the host's network namespace, and sb_alive would call the
	# component dead (on a loaded machine fault.sh said "exited after its
	# start" of a kube-proxy that was running): wait for the entry, or the
	# child's end.
	ino=$(stat -L -c %i "$(sb_netns_of "$n")")
	for ((i = 0; i < 600; i++)); do
		_sb_pid_running "$pid" || break
		[ "$(readlink "/proc/$pid/ns/net" 2>/dev/null)" = "net:[$ino]" ] && break
		sleep 0.05
	done
}
# sb_relaunch NAME: start NAME again with the command of its last launch.
sb_relaunch() {
	[ -f "$SB_STATE/run/$1.cmd" ] || sb_die "$1 was never launched"
	sb_alive "$1" && return 0
	_sb_start "$1"
}

# _sb_wait_gone SECS PID...: wait until all PIDs are gone; 1 if some remain
# (a zombie waiting for its reaper counts as gone).
_sb_pid_running() {
	local st
	st=$(awk '{print $3}' /proc/"$1"/stat 2>/dev/null) || return 1
	[ -n "$st" ] && [ "$st" != Z ]
}
_sb_wait_gone() {
	local secs=$1 i p left
	shift
	for ((i = 0; i < secs * 10; i++)); do
		left=0
		for p in "$@"; do _sb_pid_running "$p" && left=1; done
		[ $left = 0 ] && return 0
		sleep 0.1
	done
	return 1
}
# sb_stop NAME [SIGNAL]: SIGTERM (or SIGNAL) the component (the traced
# process when run under strace), SIGKILL after 15 s; its pid file goes,
# its .cmd stays (sb_relaunch).
sb_stop() {
	local n=$1 sig=${2:-TERM} f=$SB_STATE/run/$1.pid p targets
	[ -f "$f" ] || return 0
	p=$(cat "$f")
	if sb_pid_ours "$p" "$(sb_netns_of "$n")"; then
		targets=$p
		if [ "$(cat /proc/"$p"/comm 2>/dev/null)" = strace ]; then
			targets=$(cat /proc/"$p"/task/*/children 2>/dev/null | tr ' ' '\n' | grep -v '^$' | paste -sd' ') || true
			[ -n "$targets" ] || targets=$p
		fi
		# shellcheck disable=SC2086
		kill -"$sig" $targets 2>/dev/null || true
		# shellcheck disable=SC2086
		if ! _sb_wait_gone 15 $targets; then
			sb_step "$n did not stop on SIG$sig within 15 s: SIGKILL"
			# shellcheck disable=SC2086
			kill -KILL $targets 2>/dev/null || true
			# shellcheck disable=SC2086
			_sb_wait_gone 5 $targets || true
		fi
		_sb_wait_gone 5 "$p" || kill -KILL "$p" 2>/dev/null || true
	fi
	rm -f "$f"
	[ "${SB_DOWN_VERBOSE:-0}" = 1 ] && sb_step "stopped $n"
	return 0
}

# sb_shim_pids X: containerd shims serving node X's containerd.
sb_shim_pids() {
	local d cmd sock
	sock=$(sb_node_sock "$1")
	for d in /proc/[0-9]*; do
		cmd=$(tr '\0' ' ' 2>/dev/null <"$d/cmdline") || continue
		case "$cmd" in
		*containerd-shim*"-address $sock "*) echo "${d#/proc/}" ;;
		esac
	done
}

# sb_kill_containers X: every container of node X gone (tasks killed and
# deleted through its containerd when it answers; then its shims, and what
# is left in the node's pod cgroups, SIGKILLed).
sb_kill_containers() {
	local l=$1 sock tasks t c shims left
	sock=$(sb_node_sock "$l")
	if sb_alive "containerd-$l" && [ -S "$sock" ]; then
		tasks=$(timeout 20 ctr -a "$sock" -n k8s.io tasks ls -q 2>/dev/null) || true
		for t in $tasks; do timeout 10 ctr -a "$sock" -n k8s.io tasks kill -s SIGKILL "$t" >/dev/null 2>&1 || true; done
		for t in $tasks; do timeout 10 ctr -a "$sock" -n k8s.io tasks delete -f "$t" >/dev/null 2>&1 || true; done
		for c in $(timeout 20 ctr -a "$sock" -n k8s.io containers ls -q 2>/dev/null || true); do
			timeout 10 ctr -a "$sock" -n k8s.io containers delete "$c" >/dev/null 2>&1 || true
		done
	fi
	shims=$(sb_shim_pids "$l" | paste -sd' ') || true
	if [ -n "$shims" ]; then
		# shellcheck disable=SC2086
		kill -KILL $shims 2>/dev/null || true
		# shellcheck disable=SC2086
		_sb_wait_gone 5 $shims || true
	fi
	left=$(find /sys/fs/cgroup/*/"$SB_CGROUP_ROOT/$l" -name cgroup.procs -exec cat {} + 2>/dev/null | sort -un | paste -sd' ') || true
	if [ -n "$left" ]; then
		# shellcheck disable=SC2086
		kill -KILL $left 2>/dev/null || true
		# shellcheck disable=SC2086
		_sb_wait_gone 5 $left || true
	fi
	return 0
}
