#!/bin/sh
# node-ns.sh NODE_STATE: the holder of a node's private mount namespace
# (started by up.sh under `unshare --mount --propagation slave`, inside the
# node's network namespace). The kubelet 1.20 writes a few host paths
# whatever its --root-dir says (/var/lib/kubelet/device-plugins), and it
# cleans up /var/log/pods and /var/log/containers entries of pods it does
# not know; libcni caches under /var/lib/cni. Three kubelets on one machine
# would trip over each other there, so in the node's mount namespace those
# paths are the node's own directories:
#   /var/log             a small tmpfs of this namespace holding pods/ and
#                        containers/, bind mounts of the node's directories
#                        (mount points nobody outside can remove)
#   /var/lib/kubelet, /var/lib/cni   bind mounts of the node's directories
#                        (on empty host directories up.sh makes)
#   /run                 a tmpfs of this namespace: containerd 1.6's shims put
#                        their sockets in /run/containerd/s whatever its
#                        state directory says, and iptables its lock in
#                        /run/xtables.lock; with a /run of its own the node
#                        leaves neither on the host (nor shares them with
#                        another cluster's nodes)
# The node's containerd, kubelet and kube-proxy are started in this
# namespace (nsenter --mount=/proc/PID/ns/mnt); mounts made here (volumes,
# pod network namespaces, container root file systems) stay here and vanish
# with it. Then it sleeps until cluster-down.
set -eu
st=$1
mount -t tmpfs -o mode=0755,size=1m sb-node-varlog /var/log
mount -t tmpfs -o mode=0755,size=16m sb-node-run /run
mkdir -p /run/lock
for p in /var/log/pods:var-log-pods /var/log/containers:var-log-containers \
	/var/lib/kubelet:var-lib-kubelet /var/lib/cni:var-lib-cni; do
	mkdir -p "$st/${p#*:}" "${p%%:*}"
	mount --bind "$st/${p#*:}" "${p%%:*}"
done
echo "node-ns: mount namespace ready for $st"
exec sleep infinity
