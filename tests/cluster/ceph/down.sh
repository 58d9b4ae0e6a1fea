#!/usr/bin/env bash
# ceph/down.sh: stop the test cluster's Ceph (called by ../down.sh, lock
# held, after the kubelets, containers and nodes' mount-namespace holders
# have stopped): the kubelets' ceph-fuse clients, the loop devices on
# rbd-fuse files, the rbd-fuse and the provisioner's CephFS mounts, then
# radosgw, the MDS, the OSDs, mgr, mon. Its state goes with ../down.sh's
# (under $SB_STATE, $SB_SHM, $SB_VARTMP). Safe to run when nothing is up.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=tests/cluster/lib.sh
. "$here/../lib.sh"
# shellcheck source=tests/cluster/ceph/lib.sh
. "$here/lib.sh"

S=$SB_CEPH_STATE
[ -d "$S" ] || exit 0
t0=$(date +%s%N)

# FUSE clients left in the nodes' namespaces (the kubelets' ceph-fuse):
# their mounts vanish with them
pids=()
for l in "${SB_ALL_LETTERS[@]}"; do
	nsp=/var/run/netns/$SB_NETNS-$l
	[ -e "$nsp" ] || continue
	for d in /proc/[0-9]*; do
		case "$(cat "$d/comm" 2>/dev/null)" in ceph-fuse | rbd-fuse) ;; *) continue ;; esac
		sb_pid_ours "${d#/proc/}" "$nsp" && pids+=("${d#/proc/}")
	done
done
if [ ${#pids[@]} -gt 0 ]; then
	kill -KILL "${pids[@]}" 2>/dev/null
	_sb_wait_gone 5 "${pids[@]}"
fi

# loop devices on rbd-fuse files
losetup -l -n -O NAME,BACK-FILE 2>/dev/null | while read -r dev back _; do
	case "$back" in "$S"/*) losetup -d "$dev" 2>/dev/null ;; esac
done
# the rbd-fuse directories (rbd-fuse exits when unmounted) and CephFS
for pass in 1 2; do
	mapfile -t mnts < <(awk '{print $5}' /proc/self/mountinfo | grep -E "^$S/" | sort -r)
	[ ${#mnts[@]} -eq 0 ] && break
	for m in "${mnts[@]}"; do
		umount "$m" 2>/dev/null || { [ $pass = 2 ] && umount -l "$m" 2>/dev/null; }
	done
done
# rbd-fuse / ceph-fuse processes of the provisioner's left in the control plane's namespace
pids=()
for d in /proc/[0-9]*; do
	case "$(cat "$d/comm" 2>/dev/null)" in ceph-fuse | rbd-fuse) ;; *) continue ;; esac
	sb_pid_ours "${d#/proc/}" && pids+=("${d#/proc/}")
done
if [ ${#pids[@]} -gt 0 ]; then
	_sb_wait_gone 3 "${pids[@]}" || kill -KILL "${pids[@]}" 2>/dev/null
fi

# the daemons, clients of the OSDs first; the MDS and radosgw take seconds
# to stop cleanly and their data is deleted anyway
for ((i = ${#SB_CEPH_COMPONENTS[@]} - 1; i >= 0; i--)); do
	c=${SB_CEPH_COMPONENTS[$i]}
	case "$c" in
	ceph-mds | radosgw) sb_stop "$c" KILL ;;
	*) sb_stop "$c" ;;
	esac
done
rm -f "$S/up" "$SB_OUT/ceph.env"
sb_step "ceph: stopped in $((($(date +%s%N) - t0) / 1000000)) ms"
