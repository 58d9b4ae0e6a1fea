#!/usr/bin/env bash
# up.sh: start the test cluster (`make cluster-up`). Everything runs inside
# the network namespace "storagebench" this script creates (loopback, plus a
# veth pair with both ends inside, one of them 10.254.254.1/32 for the
# node address; no route out):
#   etcd 127.0.0.1:2379 (data on /dev/shm), kube-apiserver 127.0.2.1:443,
#   containerd (socket under the state dir), kube-controller-manager,
#   kube-scheduler, kubelet (10.254.254.1:10250), the local-dir provisioner
#   and the fault-injecting proxy (127.0.0.1:16444, control 16445).
# Writes build/cluster/{kubeconfig,kubeconfig-cert,kubeconfig-proxy,ca.crt,env}.
# Already up: says so and does nothing. Half up: brings it down first.
# A failure on the way brings down what was started (SB_KEEP_ON_FAIL=1
# leaves it for inspection); the logs stay in build/cluster/logs/.
#
# Environment: SB_TRACE_CONNECT=DIR runs every component under
# `strace -f -e trace=connect` writing DIR/NAME.log (tests/cluster/conntrace.py
# checks them); SB_CLUSTER_VERBOSE=1 prints the component logs on failure.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=tests/cluster/lib.sh
. "$here/lib.sh"
# shellcheck source=tests/cluster/pki.sh
. "$here/pki.sh"

[ "$(id -u)" -eq 0 ] || sb_die "the test cluster needs root (network namespace, mounts, cgroups)"
mkdir -p "$(dirname "$SB_LOCK")"
exec 8>"$SB_LOCK"
flock -w 300 8 || sb_die "$SB_LOCK held for 300 s by another cluster-up/down"

state=$(sb_up_state)
if [ "$state" = up ]; then
	sb_step "the cluster is already up (kubeconfig: $SB_OUT/kubeconfig); nothing to do"
	exit 0
fi
if [ "$state" = partial ]; then
	sb_step "the cluster is half up: bringing it down first"
	SB_LOCK_HELD=1 bash "$here/down.sh"
fi

for b in kube-apiserver kube-controller-manager kube-scheduler kubelet; do
	[ -x "$SB_KBIN/$b" ] || sb_die "$SB_KBIN/$b missing: run scripts/get-kube.sh (make cluster-kube)"
done
for b in etcd containerd runc ctr nsenter ip strace openssl losetup; do
	command -v "$b" >/dev/null || sb_die "$b not installed: run scripts/get-kube.sh (it installs scripts/deps/cluster.list)"
done
for i in pause test; do
	[ -f "$SB_OUT/images/$i.oci.tar" ] || sb_die "$SB_OUT/images/$i.oci.tar missing: run tests/cluster/images.sh (make cluster-images)"
done

failed=1
on_exit() {
	if [ $failed = 1 ]; then
		sb_step "cluster-up failed; logs in $SB_STATE/logs (copied to $SB_OUT/logs)"
		if [ "${SB_CLUSTER_VERBOSE:-0}" = 1 ]; then
			for f in "$SB_STATE"/logs/*.log; do
				[ -f "$f" ] || continue
				echo "----- $(basename "$f") (last 30 lines)"
				tail -n 30 "$f"
			done
		fi
		if [ "${SB_KEEP_ON_FAIL:-0}" != 1 ]; then
			SB_LOCK_HELD=1 bash "$here/down.sh" || true
		fi
	fi
}
trap on_exit EXIT
trap 'exit 130' INT TERM HUP

sb_step "starting the test cluster (state $SB_STATE)"
sb_pki

# --- state directories and the things cluster-down must put back
mkdir -p "$SB_STATE"/{run,logs,etcd,kubelet,kubelet-plugins,seccomp/storagebench,cni/bin,cni/net.d,containerd}
mkdir -p "$SB_SHM/fast" "$SB_VARTMP/disk" "$SB_VARTMP/disk-immediate" "$SB_OUT/images"
if [ ! -f "$SB_STATE/run/sysctl.saved" ]; then
	for s in "${SB_SYSCTLS[@]}"; do echo "$s=$(sysctl -n "$s")"; done >"$SB_STATE/run/sysctl.saved"
fi
# Paths written outside the state dirs (the kubelet 1.20 ignores --root-dir
# for some, the controller-manager creates the flex-volume dir, libcni
# caches in /var/lib/cni, ip netns uses /run/netns): remember what existed
# so that cluster-down removes only what the cluster added.
for d in /var/lib/kubelet /var/log/pods /var/log/containers /run/containerd /usr/libexec/kubernetes \
	/var/lib/cni /run/netns; do
	if [ -e "$d" ]; then
		echo "$d existed"
		find "$d" -mindepth 1 -maxdepth 1 2>/dev/null | sed 's/^/  /'
	else
		echo "$d created"
	fi
done >"$SB_STATE/run/host-paths.before"

# --- the sealed network namespace
if [ ! -e "$SB_NETNS_PATH" ]; then
	sb_step "creating network namespace $SB_NETNS (lo, veth sb0/sb1 with $SB_NODE_IP/32, no route out)"
	ip netns add "$SB_NETNS"
fi
ip -n "$SB_NETNS" link set lo up
if ! ip -n "$SB_NETNS" link show sb0 >/dev/null 2>&1; then
	ip -n "$SB_NETNS" link add sb0 type veth peer name sb1
fi
ip -n "$SB_NETNS" addr replace "$SB_NODE_IP/32" dev sb0
ip -n "$SB_NETNS" link set sb1 up
ip -n "$SB_NETNS" link set sb0 up
if ip -n "$SB_NETNS" route show default | grep -q .; then
	sb_die "network namespace $SB_NETNS has a default route: refusing to start"
fi

# --- cgroups: everything the kubelet creates lives under /storagebench
for h in /sys/fs/cgroup/*/; do
	[ -d "$h" ] || continue
	mkdir -p "$h$SB_CGROUP_ROOT"
	if [ -f "${h}cpuset.cpus" ]; then
		cat "${h}cpuset.cpus" >"$h$SB_CGROUP_ROOT/cpuset.cpus"
		cat "${h}cpuset.mems" >"$h$SB_CGROUP_ROOT/cpuset.mems"
	fi
done

# --- configuration files
subst() {
	sed -e "s|@STATE@|$SB_STATE|g" -e "s|@PKI@|$SB_PKI|g" -e "s|@NODE_IP@|$SB_NODE_IP|g" \
		-e "s|@CGROUP_ROOT@|$SB_CGROUP_ROOT|g" -e "s|@PAUSE@|$SB_PAUSE_IMAGE|g" \
		-e "s|@SHM@|$SB_SHM|g" -e "s|@VARTMP@|$SB_VARTMP|g" "$1"
}
subst "$here/containerd.toml.in" >"$SB_STATE/containerd/config.toml"
subst "$here/kubelet.yaml.in" >"$SB_STATE/kubelet.yaml"
printf 'nameserver 127.0.0.1\noptions timeout:1 attempts:1\n' >"$SB_STATE/resolv.conf"
cp "$here/cni/nsdummy" "$here/cni/loopback" "$SB_STATE/cni/bin/"
cp "$here/cni/10-nsdummy.conflist" "$SB_STATE/cni/net.d/"
cp "$here/seccomp/no-iouring.json" "$SB_STATE/seccomp/storagebench/no-iouring.json"
for c in kube-controller-manager kube-scheduler kubelet; do
	sb_kubeconfig "$SB_STATE/$c.kubeconfig" "$SB_API_URL" "$c" cert
done
mkdir -p "$SB_OUT"
cp "$SB_PKI/ca.crt" "$SB_OUT/ca.crt"
sb_kubeconfig "$SB_OUT/kubeconfig" "$SB_API_URL" storagebench-admin token
sb_kubeconfig "$SB_OUT/kubeconfig-proxy" "$SB_PROXY_URL" storagebench-admin token
sb_kubeconfig "$SB_OUT/kubeconfig-cert" "$SB_API_URL" admin cert

# --- launching
# launch NAME CMD...: start CMD in the namespace, in its own session, log
# to logs/NAME.log, pid in run/NAME.pid (the strace process when tracing).
launch() {
	local n=$1
	shift
	if [ -n "${SB_TRACE_CONNECT:-}" ]; then
		mkdir -p "$SB_TRACE_CONNECT"
		set -- strace -f -qq --seccomp-bpf -e trace=connect -o "$SB_TRACE_CONNECT/$n.log" "$@"
	fi
	# (fd 8, the cluster lock, must not leak into the long-running processes)
	AWS_EC2_METADATA_DISABLED=true nsenter --net="$SB_NETNS_PATH" -- setsid "$@" \
		</dev/null >>"$SB_STATE/logs/$n.log" 2>&1 8>&- &
	echo $! >"$SB_STATE/run/$n.pid"
}
# wait_for WHAT SECONDS CMD...: poll CMD every 0.2 s; give up at once
# when a component named in $WAIT_ALIVE has exited.
wait_for() {
	local what=$1 secs=$2 i c
	shift 2
	for ((i = 0; i < secs * 5; i++)); do
		"$@" >/dev/null 2>&1 && return 0
		for c in ${WAIT_ALIVE:-}; do
			sb_alive "$c" || sb_die "$c exited while waiting for $what; last lines of its log:
$(tail -n 20 "$SB_STATE/logs/$c.log")"
		done
		sleep 0.2
	done
	sb_die "$what not ready after ${secs}s"
}
check_alive() {
	local c
	for c in "$@"; do
		sb_alive "$c" || sb_die "$c exited; last lines of its log:
$(tail -n 20 "$SB_STATE/logs/$c.log")"
	done
}

sb_step "starting etcd, kube-apiserver and containerd"
# The kubernetes Service gets ClusterIP 127.0.2.1, where the API server
# listens, so in-cluster configuration works for hostNetwork pods. Its
# Endpoints cannot be written (loopback addresses are invalid there), hence
# --endpoint-reconciler-type=none: no Endpoints, and no error every 10 s.
launch etcd etcd --name storagebench --data-dir "$SB_SHM/etcd" \
	--listen-client-urls http://127.0.0.1:2379 --advertise-client-urls http://127.0.0.1:2379 \
	--listen-peer-urls http://127.0.0.1:2380 --initial-advertise-peer-urls http://127.0.0.1:2380 \
	--initial-cluster storagebench=http://127.0.0.1:2380 --initial-cluster-state new \
	--listen-metrics-urls http://127.0.0.1:2381 --log-level warn --logger zap
launch kube-apiserver "$SB_KBIN/kube-apiserver" \
	--etcd-servers=http://127.0.0.1:2379 \
	--bind-address="$SB_API_IP" --advertise-address="$SB_API_IP" --secure-port=443 --insecure-port=0 \
	--service-cluster-ip-range=127.0.2.0/24 --endpoint-reconciler-type=none \
	--tls-cert-file="$SB_PKI/apiserver.crt" --tls-private-key-file="$SB_PKI/apiserver.key" \
	--client-ca-file="$SB_PKI/ca.crt" --token-auth-file="$SB_PKI/tokens.csv" \
	--authorization-mode=Node,RBAC --enable-admission-plugins=NodeRestriction \
	--service-account-issuer=https://kubernetes.default.svc.cluster.local \
	--service-account-key-file="$SB_PKI/sa.pub" --service-account-signing-key-file="$SB_PKI/sa.key" \
	--kubelet-client-certificate="$SB_PKI/apiserver-kubelet-client.crt" \
	--kubelet-client-key="$SB_PKI/apiserver-kubelet-client.key" \
	--kubelet-certificate-authority="$SB_PKI/ca.crt" --kubelet-preferred-address-types=InternalIP \
	--allow-privileged=true --profiling=false --event-ttl=30m --v=1
NSDUMMY_LOG=$SB_STATE/logs/nsdummy.log launch containerd containerd --config "$SB_STATE/containerd/config.toml"

WAIT_ALIVE="etcd kube-apiserver containerd" wait_for "kube-apiserver" 60 sb_kubectl get --raw /readyz
check_alive etcd kube-apiserver
sb_step "kube-apiserver ready at $SB_API_URL"
subst "$here/manifests/cluster.yaml" | sb_kubectl apply -f - >"$SB_STATE/logs/bootstrap.log"

launch kube-controller-manager "$SB_KBIN/kube-controller-manager" \
	--kubeconfig="$SB_STATE/kube-controller-manager.kubeconfig" \
	--bind-address=127.0.0.1 --secure-port=10257 --port=0 --leader-elect=false \
	--cert-dir="$SB_STATE/kcm-certs" --flex-volume-plugin-dir="$SB_STATE/kubelet-plugins" \
	--service-account-private-key-file="$SB_PKI/sa.key" --root-ca-file="$SB_PKI/ca.crt" \
	--use-service-account-credentials=true \
	--cluster-signing-cert-file="$SB_PKI/ca.crt" --cluster-signing-key-file="$SB_PKI/ca.key" \
	--profiling=false --v=1
launch kube-scheduler "$SB_KBIN/kube-scheduler" \
	--kubeconfig="$SB_STATE/kube-scheduler.kubeconfig" \
	--bind-address=127.0.0.1 --secure-port=10259 --port=0 --leader-elect=false \
	--cert-dir="$SB_STATE/scheduler-certs" --profiling=false --v=1

WAIT_ALIVE=containerd wait_for containerd 30 test -S "$SB_SOCK"
WAIT_ALIVE=containerd wait_for containerd 30 sb_ctr version
check_alive containerd
for i in pause test project; do
	[ -f "$SB_OUT/images/$i.oci.tar" ] || continue
	sb_ctr images import "$SB_OUT/images/$i.oci.tar" >>"$SB_STATE/logs/images.log" 2>&1 ||
		sb_die "importing $i.oci.tar into containerd failed (see $SB_STATE/logs/images.log)"
done
sb_step "containerd up, images imported ($(sb_ctr images ls -q | grep -c '^localhost/'))"

launch kubelet "$SB_KBIN/kubelet" --config="$SB_STATE/kubelet.yaml" \
	--kubeconfig="$SB_STATE/kubelet.kubeconfig" --root-dir="$SB_STATE/kubelet" \
	--cert-dir="$SB_STATE/kubelet/pki" --hostname-override="$SB_NODE" --node-ip="$SB_NODE_IP" \
	--container-runtime=remote --container-runtime-endpoint="unix://$SB_SOCK" \
	--pod-infra-container-image="$SB_PAUSE_IMAGE" --seccomp-profile-root="$SB_STATE/seccomp" --v=1

launch provisioner /usr/bin/python3 -u "$here/provisioner.py" --server "$SB_API_URL" \
	--ca "$SB_PKI/ca.crt" --cert "$SB_PKI/provisioner.crt" --key "$SB_PKI/provisioner.key" \
	--node "$SB_NODE" --allowed-root "$SB_SHM" --allowed-root "$SB_VARTMP"
launch faultproxy /usr/bin/python3 -u "$here/faultproxy.py" --listen 127.0.0.1:16444 \
	--control 127.0.0.1:16445 --cert "$SB_PKI/faultproxy.crt" --key "$SB_PKI/faultproxy.key" \
	--upstream "$SB_API_URL" --ca "$SB_PKI/ca.crt"

node_ready() {
	[ "$(sb_kubectl get node "$SB_NODE" -o 'jsonpath={.status.conditions[?(@.type=="Ready")].status}')" = True ]
}
default_sa() {
	sb_kubectl -n default get serviceaccount default -o 'jsonpath={.secrets[0].name}' | grep -q .
}
WAIT_ALIVE="${SB_COMPONENTS[*]}" wait_for "node $SB_NODE" 90 node_ready
check_alive "${SB_COMPONENTS[@]}"
sb_step "node $SB_NODE Ready"
wait_for "the default ServiceAccount's token" 30 default_sa

cat >"$SB_OUT/env" <<ENV
# The test cluster, for shells and tests: . build/cluster/env
# Everything below is reachable only inside the network namespace:
# run commands with tests/cluster/in-netns.sh CMD... (or \$NSENTER CMD...).
export KUBECONFIG=$SB_OUT/kubeconfig
export KUBECONFIG_CERT=$SB_OUT/kubeconfig-cert
export KUBECONFIG_PROXY=$SB_OUT/kubeconfig-proxy
export CA_CERT=$SB_OUT/ca.crt
export NETNS=$SB_NETNS
export NSENTER="nsenter --net=$SB_NETNS_PATH --"
export API_URL=$SB_API_URL
export PROXY_URL=$SB_PROXY_URL
export PROXY_CONTROL_URL=$SB_PROXY_CONTROL_URL
export SB_NODE=$SB_NODE
export SB_NODE_IP=$SB_NODE_IP
export SB_IMAGE=$SB_IMAGE
export SB_TEST_IMAGE=$SB_TEST_IMAGE
export SB_STORAGE_CLASSES="fast disk disk-immediate"
export SB_SECCOMP_NO_IOURING=$SB_SECCOMP_NO_IOURING
export SB_CLUSTER_STATE=$SB_STATE
export SB_CTR="ctr -a $SB_SOCK -n k8s.io"
ENV
date +%s >"$SB_STATE/run/up"
failed=0
sb_step "cluster up: . $SB_OUT/env; tests/cluster/in-netns.sh kubectl get nodes"
