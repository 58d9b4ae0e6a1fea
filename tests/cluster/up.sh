#!/usr/bin/env bash
# up.sh: start the test cluster (`make cluster-up`): a control plane and
# $SB_NODES nodes (default 3: storagebench-a, -b, -c in zones a, b, c),
# each in a network namespace of the project's own, linked by a bridge
# that lives in the control plane's namespace; no namespace has a route out.
#   control plane ($SB_NETNS, bridge sbbr0 10.254.254.1/24): etcd
#     127.0.0.1:2379 (data on /dev/shm), kube-apiserver 10.254.254.1:443
#     (the `kubernetes` Service, 10.96.0.1, has it as its endpoint),
#     kube-controller-manager, kube-scheduler, the local-dir provisioner,
#     the fault-injecting proxy (127.0.0.1:16444, control 16445)
#   node X ($SB_NETNS-X, eth0 10.254.254.1X/24, pods 10.244.N.0/24 on the
#     CNI bridge cni0): a private mount namespace (node-ns.sh), containerd,
#     kubelet (:10250), kube-proxy (iptables mode)
# Writes build/cluster/{kubeconfig,kubeconfig-cert,kubeconfig-proxy,ca.crt,env}.
# Already up: says so and does nothing. Half up: brings it down first.
# A failure on the way brings down what was started (SB_KEEP_ON_FAIL=1
# leaves it for inspection); the logs stay in build/cluster/logs/.
#
# Environment: SB_NODES=1|2|3 (default 3); SB_PREFIX and the roots of
# lib.sh for a second instance; SB_TRACE_CONNECT=DIR runs every component
# under `strace -f -e trace=connect` writing DIR/NAME.log
# (tests/cluster/conntrace.py checks them); SB_CLUSTER_VERBOSE=1 prints the
# component logs on failure.
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
	sb_step "the cluster is already up with $SB_NODES node(s) (kubeconfig: $SB_OUT/kubeconfig); nothing to do"
	exit 0
fi
if [ "$state" = partial ]; then
	sb_step "the cluster is half up: bringing it down first"
	SB_LOCK_HELD=1 bash "$here/down.sh"
fi
sb_set_nodes "$SB_NODES_REQUESTED"

for b in kube-apiserver kube-controller-manager kube-scheduler kubelet kube-proxy; do
	[ -x "$SB_KBIN/$b" ] || sb_die "$SB_KBIN/$b missing: run scripts/get-kube.sh (make cluster-kube)"
done
for b in etcd containerd runc ctr nsenter unshare ip iptables strace openssl losetup /usr/lib/cni/bridge \
	/usr/lib/cni/host-local /usr/lib/cni/loopback /usr/lib/cni/portmap; do
	command -v "$b" >/dev/null || sb_die "$b not installed: run scripts/get-kube.sh (it installs scripts/deps/cluster.list)"
done
for i in pause test; do
	[ -f "$SB_OUT/images/$i.oci.tar" ] || sb_die "$SB_OUT/images/$i.oci.tar missing: run tests/cluster/images.sh (make cluster-images)"
done

failed=1
ceph_job=
on_exit() {
	if [ -n "$ceph_job" ]; then
		kill "$ceph_job" 2>/dev/null
		wait "$ceph_job" 2>/dev/null
	fi
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

sb_step "starting the test cluster: $SB_NODES node(s) (state $SB_STATE)"
sb_pki

# --- state directories and the things cluster-down must put back
mkdir -p "$SB_STATE"/{run,logs,seccomp/storagebench,kcm-plugins}
echo "$SB_NODES" >"$SB_STATE/run/nodes"
for l in "${SB_LETTERS[@]}"; do
	mkdir -p "$(sb_node_state "$l")"/{containerd,kubelet,kubelet-plugins,cni/net.d,cni/ipam}
done
mkdir -p "$SB_SHM/fast" "$SB_VARTMP/disk" "$SB_VARTMP/disk-immediate" "$SB_VARTMP/luks" "$SB_OUT/images"
if [ ! -f "$SB_STATE/run/sysctl.saved" ]; then
	for s in "${SB_SYSCTLS[@]}"; do echo "$s=$(sysctl -n "$s")"; done >"$SB_STATE/run/sysctl.saved"
fi
# Paths written outside the state dirs (the mount points of the nodes'
# private directories, the controller-manager's flex-volume dir, iptables'
# lock, ip netns' /run/netns): remember what existed so that cluster-down
# removes only what the cluster added.
SB_MOUNT_POINTS=(/var/lib/kubelet /var/lib/cni)
for d in "${SB_MOUNT_POINTS[@]}" /var/log/pods /var/log/containers /run/containerd /usr/libexec/kubernetes \
	/run/netns /run/xtables.lock; do
	if [ -e "$d" ]; then
		echo "$d existed"
		find "$d" -mindepth 1 -maxdepth 1 2>/dev/null | sed 's/^/  /'
	else
		echo "$d created"
	fi
done >"$SB_STATE/run/host-paths.before"
mkdir -p "${SB_MOUNT_POINTS[@]}"

# --- the sealed network: namespaces, the bridge, the nodes' links and routes
no_default_route() {
	if ip -n "$1" route show default | grep -q .; then
		sb_die "network namespace $1 has a default route: refusing to start"
	fi
}
if [ ! -e "$SB_NETNS_PATH" ]; then
	sb_step "creating network namespace $SB_NETNS (bridge $SB_BRIDGE $SB_API_IP/24, no route out)"
	ip netns add "$SB_NETNS"
fi
ip -n "$SB_NETNS" link set lo up
if ! ip -n "$SB_NETNS" link show "$SB_BRIDGE" >/dev/null 2>&1; then
	ip -n "$SB_NETNS" link add "$SB_BRIDGE" type bridge
fi
ip -n "$SB_NETNS" addr replace "$SB_API_IP/24" dev "$SB_BRIDGE"
ip -n "$SB_NETNS" link set "$SB_BRIDGE" up
for l in "${SB_LETTERS[@]}"; do
	nns=$(sb_node_netns "$l")
	[ -e "/var/run/netns/$nns" ] || ip netns add "$nns"
	ip -n "$nns" link set lo up
	if ! ip -n "$SB_NETNS" link show "veth-$l" >/dev/null 2>&1; then
		ip -n "$SB_NETNS" link add "veth-$l" type veth peer name eth0 netns "$nns"
	fi
	ip -n "$SB_NETNS" link set "veth-$l" master "$SB_BRIDGE" up
	ip -n "$nns" addr replace "$(sb_node_ip "$l")/24" dev eth0
	ip -n "$nns" link set eth0 up
	# the node routes for its pods (the CNI bridge) and Services (kube-proxy)
	nsenter --net="/var/run/netns/$nns" sysctl -q -w net.ipv4.ip_forward=1 net.bridge.bridge-nf-call-iptables=1
	ip -n "$nns" route replace "$SB_SERVICE_CIDR" dev eth0
done
# every namespace knows where each node's pod network is
for l in "${SB_LETTERS[@]}"; do
	ip -n "$SB_NETNS" route replace "$(sb_node_cidr "$l")" via "$(sb_node_ip "$l")"
	for m in "${SB_LETTERS[@]}"; do
		[ "$l" = "$m" ] || ip -n "$(sb_node_netns "$m")" route replace "$(sb_node_cidr "$l")" via "$(sb_node_ip "$l")"
	done
done
no_default_route "$SB_NETNS"
for l in "${SB_LETTERS[@]}"; do no_default_route "$(sb_node_netns "$l")"; done

# --- cgroups: everything the kubelets create lives under /$SB_CGROUP_ROOT/X
for h in /sys/fs/cgroup/*/; do
	[ -d "$h" ] || continue
	for d in "$SB_CGROUP_ROOT" "${SB_LETTERS[@]/#/$SB_CGROUP_ROOT/}"; do
		mkdir -p "$h$d"
		if [ -f "${h}cpuset.cpus" ]; then
			cat "${h}cpuset.cpus" >"$h$d/cpuset.cpus"
			cat "${h}cpuset.mems" >"$h$d/cpuset.mems"
		fi
	done
done

# SB_CEPH=1: the Ceph daemons need only the namespace: they start beside
# Kubernetes (tests/cluster/ceph/up.sh daemons), their Kubernetes side at the end
if [ "${SB_CEPH:-0}" = 1 ]; then
	SB_T0=$SB_T0 bash "$here/ceph/up.sh" daemons &
	ceph_job=$!
fi

# --- configuration files
# subst FILE [X]: FILE with the @...@ placeholders filled (node X's values)
subst() {
	local l=${2:-a} i
	i=$(sb_node_index "$l")
	sed -e "s|@STATE@|$SB_STATE|g" -e "s|@NSTATE@|$(sb_node_state "$l")|g" -e "s|@PKI@|$SB_PKI|g" \
		-e "s|@NODE_IP@|$(sb_node_ip "$l")|g" -e "s|@NODE@|$(sb_node_name "$l")|g" -e "s|@L@|$l|g" \
		-e "s|@CGROUP_ROOT@|$SB_CGROUP_ROOT|g" -e "s|@PAUSE@|$SB_PAUSE_IMAGE|g" \
		-e "s|@POD_CIDR@|$SB_POD_CIDR|g" -e "s|@POD_CIDR_NODE@|$(sb_node_cidr "$l")|g" \
		-e "s|@POD_GW@|10.244.$i.1|g" -e "s|@SHM@|$SB_SHM|g" -e "s|@VARTMP@|$SB_VARTMP|g" \
		-e "s|@RUNTIME@|$here/runtime/runc-wrap.sh|g" "$1"
}
printf 'nameserver 127.0.0.1\noptions timeout:1 attempts:1\n' >"$SB_STATE/resolv.conf"
cp "$here/seccomp/no-iouring.json" "$SB_STATE/seccomp/storagebench/no-iouring.json"
for l in "${SB_LETTERS[@]}"; do
	ns_=$(sb_node_state "$l")
	subst "$here/containerd.toml.in" "$l" >"$ns_/containerd/config.toml"
	subst "$here/kubelet.yaml.in" "$l" >"$ns_/kubelet.yaml"
	subst "$here/kube-proxy.yaml.in" "$l" >"$ns_/kube-proxy.yaml"
	subst "$here/cni/10-sbnet.conflist.in" "$l" >"$ns_/cni/net.d/10-sbnet.conflist"
	sb_kubeconfig "$ns_/kubelet.kubeconfig" "$SB_API_URL" "kubelet-$l" cert
	sb_kubeconfig "$ns_/kube-proxy.kubeconfig" "$SB_API_URL" kube-proxy cert
done
for c in kube-controller-manager kube-scheduler; do
	sb_kubeconfig "$SB_STATE/$c.kubeconfig" "$SB_API_URL" "$c" cert
done
mkdir -p "$SB_OUT"
cp "$SB_PKI/ca.crt" "$SB_OUT/ca.crt"
sb_kubeconfig "$SB_OUT/kubeconfig" "$SB_API_URL" storagebench-admin token
sb_kubeconfig "$SB_OUT/kubeconfig-proxy" "$SB_PROXY_URL" storagebench-admin token
sb_kubeconfig "$SB_OUT/kubeconfig-cert" "$SB_API_URL" admin cert

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

sb_step "starting etcd, kube-apiserver, and per node its mount namespace and containerd"
sb_launch etcd etcd --name storagebench --data-dir "$SB_SHM/etcd" \
	--listen-client-urls http://127.0.0.1:2379 --advertise-client-urls http://127.0.0.1:2379 \
	--listen-peer-urls http://127.0.0.1:2380 --initial-advertise-peer-urls http://127.0.0.1:2380 \
	--initial-cluster storagebench=http://127.0.0.1:2380 --initial-cluster-state new \
	--listen-metrics-urls http://127.0.0.1:2381 --log-level warn --logger zap
# The API server listens on every address of its namespace (the bridge
# address the nodes reach, and loopback) and advertises the bridge
# address: the `kubernetes` Service (10.96.0.1) gets it as its endpoint.
sb_launch kube-apiserver "$SB_KBIN/kube-apiserver" \
	--etcd-servers=http://127.0.0.1:2379 \
	--bind-address=0.0.0.0 --advertise-address="$SB_API_IP" --secure-port=443 --insecure-port=0 \
	--service-cluster-ip-range="$SB_SERVICE_CIDR" \
	--tls-cert-file="$SB_PKI/apiserver.crt" --tls-private-key-file="$SB_PKI/apiserver.key" \
	--client-ca-file="$SB_PKI/ca.crt" --token-auth-file="$SB_PKI/tokens.csv" \
	--authorization-mode=Node,RBAC --enable-admission-plugins=NodeRestriction \
	--service-account-issuer=https://kubernetes.default.svc.cluster.local \
	--service-account-key-file="$SB_PKI/sa.pub" --service-account-signing-key-file="$SB_PKI/sa.key" \
	--kubelet-client-certificate="$SB_PKI/apiserver-kubelet-client.crt" \
	--kubelet-client-key="$SB_PKI/apiserver-kubelet-client.key" \
	--kubelet-certificate-authority="$SB_PKI/ca.crt" --kubelet-preferred-address-types=InternalIP \
	--allow-privileged=true --profiling=false --event-ttl=30m --v=1
for l in "${SB_LETTERS[@]}"; do
	sb_launch "node-$l" unshare --mount --propagation slave -- /bin/sh "$here/node-ns.sh" "$(sb_node_state "$l")"
done
# (the holders need a moment to set up their bind mounts)
node_ns_ready() { grep -q 'mount namespace ready' "$SB_STATE/logs/node-$1.log"; }
for l in "${SB_LETTERS[@]}"; do
	WAIT_ALIVE="node-$l" wait_for "node $l's mount namespace" 10 node_ns_ready "$l"
	sb_launch "containerd-$l" containerd --config "$(sb_node_state "$l")/containerd/config.toml"
done

WAIT_ALIVE="etcd kube-apiserver" wait_for "kube-apiserver" 60 sb_kubectl get --raw /readyz
check_alive etcd kube-apiserver
sb_step "kube-apiserver ready at $SB_API_URL"
subst "$here/manifests/cluster.yaml" | sb_kubectl apply -f - >"$SB_STATE/logs/bootstrap.log"
# the VolumeSnapshot API (its snapshotter is the provisioner's, for Ceph's RBD classes)
sb_kubectl apply -f "$here/manifests/snapshot-crds.yaml" >>"$SB_STATE/logs/bootstrap.log"

# Short node grace periods: a node whose kubelet stops is NotReady within
# about 10 s (the kubelets renew their leases every 2 s).
sb_launch kube-controller-manager "$SB_KBIN/kube-controller-manager" \
	--kubeconfig="$SB_STATE/kube-controller-manager.kubeconfig" \
	--bind-address=127.0.0.1 --secure-port=10257 --port=0 --leader-elect=false \
	--cert-dir="$SB_STATE/kcm-certs" --flex-volume-plugin-dir="$SB_STATE/kcm-plugins" \
	--service-account-private-key-file="$SB_PKI/sa.key" --root-ca-file="$SB_PKI/ca.crt" \
	--use-service-account-credentials=true \
	--cluster-signing-cert-file="$SB_PKI/ca.crt" --cluster-signing-key-file="$SB_PKI/ca.key" \
	--node-monitor-period=2s --node-monitor-grace-period=10s \
	--profiling=false --v=1
sb_launch kube-scheduler "$SB_KBIN/kube-scheduler" \
	--kubeconfig="$SB_STATE/kube-scheduler.kubeconfig" \
	--bind-address=127.0.0.1 --secure-port=10259 --port=0 --leader-elect=false \
	--cert-dir="$SB_STATE/scheduler-certs" --profiling=false --v=1

# images into every node's containerd, the nodes in parallel
import_images() {
	local l=$1 i
	WAIT_ALIVE="containerd-$l" wait_for "containerd-$l" 30 test -S "$(sb_node_sock "$l")"
	WAIT_ALIVE="containerd-$l" wait_for "containerd-$l" 30 sb_ctr -n "$l" version
	for i in pause test project dyn; do
		[ -f "$SB_OUT/images/$i.oci.tar" ] || continue
		sb_ctr -n "$l" images import "$SB_OUT/images/$i.oci.tar" >>"$SB_STATE/logs/images-$l.log" 2>&1 ||
			sb_die "importing $i.oci.tar into containerd-$l failed (see $SB_STATE/logs/images-$l.log)"
	done
}
pids=()
for l in "${SB_LETTERS[@]}"; do
	import_images "$l" &
	pids+=($!)
done
for p in "${pids[@]}"; do wait "$p" || sb_die "containerd or the image import failed"; done
check_alive "${SB_LETTERS[@]/#/containerd-}"
sb_step "containerd up on every node, images imported ($(sb_ctr images ls -q | grep -c '^localhost/') each)"

# SB_CEPH=1: the ceph-fuse the kubelets' cephfs plugin starts reads the
# cluster's Ceph config (logs, sockets under its state; trimmed caches)
kenv=()
[ "${SB_CEPH:-0}" = 1 ] && kenv=(env "CEPH_CONF=$SB_STATE/ceph/ceph.conf")
for l in "${SB_LETTERS[@]}"; do
	ns_=$(sb_node_state "$l")
	sb_launch "kubelet-$l" "${kenv[@]}" "$SB_KBIN/kubelet" --config="$ns_/kubelet.yaml" \
		--kubeconfig="$ns_/kubelet.kubeconfig" --root-dir="$ns_/kubelet" \
		--cert-dir="$ns_/kubelet/pki" --hostname-override="$(sb_node_name "$l")" --node-ip="$(sb_node_ip "$l")" \
		--node-labels="topology.kubernetes.io/zone=$l" \
		--container-runtime=remote --container-runtime-endpoint="unix://$(sb_node_sock "$l")" \
		--pod-infra-container-image="$SB_PAUSE_IMAGE" --seccomp-profile-root="$SB_STATE/seccomp" --v=1
	sb_launch "kube-proxy-$l" "$SB_KBIN/kube-proxy" --config="$ns_/kube-proxy.yaml" --v=1
done

sb_launch provisioner /usr/bin/python3 -u "$here/provisioner.py" --server "$SB_API_URL" \
	--ca "$SB_PKI/ca.crt" --cert "$SB_PKI/provisioner.crt" --key "$SB_PKI/provisioner.key" \
	--allowed-root "$SB_SHM" --allowed-root "$SB_VARTMP" --ceph-state "$SB_STATE/ceph" --cluster-state "$SB_STATE"
sb_launch faultproxy /usr/bin/python3 -u "$here/faultproxy.py" --listen 127.0.0.1:16444 \
	--control 127.0.0.1:16445 --cert "$SB_PKI/faultproxy.crt" --key "$SB_PKI/faultproxy.key" \
	--upstream "$SB_API_URL" --ca "$SB_PKI/ca.crt"

nodes_ready() {
	local want n
	want=$(for l in "${SB_LETTERS[@]}"; do sb_node_name "$l"; done | sort | paste -sd' ')
	n=$(sb_kubectl get nodes -o 'jsonpath={range .items[*]}{.metadata.name}={.status.conditions[?(@.type=="Ready")].status}{"\n"}{end}' |
		sed -n 's/=True$//p' | sort | paste -sd' ')
	[ "$n" = "$want" ]
}
default_sa() {
	sb_kubectl -n default get serviceaccount default -o 'jsonpath={.secrets[0].name}' | grep -q .
}
# the kubernetes Service's endpoint is the API server's advertised address
api_endpoint() {
	[ "$(sb_kubectl -n default get endpoints kubernetes -o 'jsonpath={.subsets[0].addresses[0].ip}')" = "$SB_API_IP" ]
}
WAIT_ALIVE="${SB_COMPONENTS[*]}" wait_for "nodes $(for l in "${SB_LETTERS[@]}"; do sb_node_name "$l"; done | paste -sd' ')" 90 nodes_ready
check_alive "${SB_COMPONENTS[@]}"
sb_step "nodes Ready: $(for l in "${SB_LETTERS[@]}"; do sb_node_name "$l"; done | paste -sd' ')"
wait_for "the default ServiceAccount's token" 30 default_sa
wait_for "the kubernetes Service's endpoint $SB_API_IP" 30 api_endpoint

node_names=$(for l in "${SB_LETTERS[@]}"; do sb_node_name "$l"; done | paste -sd' ')
node_ips=$(for l in "${SB_LETTERS[@]}"; do sb_node_ip "$l"; done | paste -sd' ')
cat >"$SB_OUT/env" <<ENV
# The test cluster, for shells and tests: . $SB_OUT/env
# Everything below is reachable only inside the control plane's network
# namespace: run commands with tests/cluster/in-netns.sh CMD... (or \$NSENTER CMD...).
export SB_PREFIX=$SB_PREFIX
export SB_OUT=$SB_OUT
export KUBECONFIG=$SB_OUT/kubeconfig
export KUBECONFIG_CERT=$SB_OUT/kubeconfig-cert
export KUBECONFIG_PROXY=$SB_OUT/kubeconfig-proxy
export CA_CERT=$SB_OUT/ca.crt
export NETNS=$SB_NETNS
export NSENTER="nsenter --net=$SB_NETNS_PATH --"
export API_URL=$SB_API_URL
export API_IP=$SB_API_IP
export PROXY_URL=$SB_PROXY_URL
export PROXY_CONTROL_URL=$SB_PROXY_CONTROL_URL
export SB_NODES=$SB_NODES
export SB_NODE_NAMES="$node_names"
export SB_NODE_IPS="$node_ips"
export SB_NODE=$SB_NODE
export SB_NODE_IP=$SB_NODE_IP
export SB_SERVICE_CIDR=$SB_SERVICE_CIDR
export SB_POD_CIDR=$SB_POD_CIDR
export SB_KUBERNETES_SVC_IP=$SB_KUBERNETES_SVC_IP
export SB_IMAGE=$SB_IMAGE
export SB_TEST_IMAGE=$SB_TEST_IMAGE
export SB_DYN_IMAGE=$SB_DYN_IMAGE
export SB_STORAGE_CLASSES="fast disk disk-immediate"
export SB_SECCOMP_NO_IOURING=$SB_SECCOMP_NO_IOURING
export SB_STATE=$SB_STATE
export SB_CLUSTER_STATE=$SB_STATE
export SB_CTR="ctr -a $SB_SOCK -n k8s.io"
ENV
# SB_CEPH=1: the Ceph daemons (started above) and their Kubernetes side
if [ -n "$ceph_job" ]; then
	wait "$ceph_job" || { ceph_job=; sb_die "starting Ceph failed (logs in $SB_STATE/logs, $SB_STATE/ceph/log)"; }
	ceph_job=
	SB_T0=$SB_T0 bash "$here/ceph/up.sh" kube
	echo 'export SB_STORAGE_CLASSES="fast disk disk-immediate ssd bulk cephfs"' >>"$SB_OUT/env"
	echo "export SB_CEPH_ENV=$SB_OUT/ceph.env" >>"$SB_OUT/env"
fi
date +%s >"$SB_STATE/run/up"
failed=0
sb_step "cluster up: . $SB_OUT/env; tests/cluster/in-netns.sh kubectl get nodes"
