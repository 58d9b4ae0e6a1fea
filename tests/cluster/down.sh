#!/usr/bin/env bash
# down.sh: stop the test cluster (`make cluster-down`) and put the machine
# back as it was: components stopped by PID in reverse start order (the API
# server before etcd), containers and shims gone, mounts under the state
# dirs unmounted (a node's own mounts vanish with its private mount
# namespace), loop devices of the provisioner detached, the /storagebench
# cgroups removed, the sysctls the kubelet rewrites restored, the host
# paths the cluster added removed, the network namespaces deleted,
# the state removed. The component logs are kept in build/cluster/logs/.
# Safe to run at any time, any number of times, also after a half-failed
# start or test. The PKI (/var/lib/storagebench/pki) is kept; see
# `make cluster-clean`.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=tests/cluster/lib.sh
. "$here/lib.sh"

[ "$(id -u)" -eq 0 ] || sb_die "needs root"
if [ "${SB_LOCK_HELD:-0}" != 1 ]; then
	mkdir -p "$(dirname "$SB_LOCK")"
	exec 8>"$SB_LOCK"
	if ! flock -w 120 8; then
		sb_step "warning: $SB_LOCK still held after 120 s (a hung cluster-up?): going on without it"
	fi
fi

if [ "$(sb_up_state)" = down ] && [ ! -d "$SB_SHM" ] && [ ! -d "$SB_VARTMP" ]; then
	sb_step "the cluster is not running; nothing to do"
	exit 0
fi
sb_step "bringing the test cluster down"

# netns_pids: processes still in our network namespaces (control plane
# and nodes), but not this script or its ancestors (down may be run from
# inside the namespace).
netns_pids() {
	local inos=" " ino d p keep=" " pid=$$ l
	for p in "$SB_NETNS_PATH" "${SB_ALL_LETTERS[@]/#//var/run/netns/$SB_NETNS-}"; do
		[ -e "$p" ] || continue
		ino=$(stat -L -c %i "$p" 2>/dev/null) && inos="${inos}net:[$ino] "
	done
	[ "$inos" != " " ] || return 0
	while [ "$pid" -gt 1 ] 2>/dev/null; do
		keep="$keep$pid "
		pid=$(awk '/^PPid:/ {print $2}' /proc/"$pid"/status 2>/dev/null || echo 0)
	done
	for d in /proc/[0-9]*; do
		p=${d#/proc/}
		l=$(readlink "$d/ns/net" 2>/dev/null) || continue
		case "$inos" in *" $l "*) ;; *) continue ;; esac
		case "$keep" in *" $p "*) continue ;; esac
		echo "$p"
	done
}
cgroup_pids() {
	cat /sys/fs/cgroup/*/"$SB_CGROUP_ROOT"/cgroup.procs 2>/dev/null
	find /sys/fs/cgroup/*/"$SB_CGROUP_ROOT" -mindepth 1 -name cgroup.procs -exec cat {} + 2>/dev/null
}
all_shim_pids() {
	local l
	for l in "${SB_ALL_LETTERS[@]}"; do sb_shim_pids "$l"; done
}

sb_stop provisioner
sb_stop faultproxy
for l in "${SB_LETTERS[@]}"; do
	sb_stop "netem-$l" # fault.sh netem's delay (its rules go with the namespace)
	sb_stop "kube-proxy-$l"
	sb_stop "kubelet-$l"
done
for l in "${SB_LETTERS[@]}"; do
	sb_kill_containers "$l"
	sb_stop "containerd-$l"
done
shims=$(all_shim_pids | paste -sd' ')
if [ -n "$shims" ]; then
	# shellcheck disable=SC2086
	kill -KILL $shims 2>/dev/null
	# shellcheck disable=SC2086
	_sb_wait_gone 5 $shims
fi
for l in "${SB_LETTERS[@]}"; do sb_stop "node-$l"; done
# SB_CEPH=1's Ceph (tests/cluster/ceph), once nothing on the nodes uses it
bash "$here/ceph/down.sh"
sb_stop kube-scheduler
sb_stop kube-controller-manager
sb_stop kube-apiserver
sb_stop etcd

# Whatever is left in our cgroups or namespaces (containers whose shim died,
# a shell somebody left in a namespace): SIGKILL, by PID.
left=$( (cgroup_pids; netns_pids) | sort -un | paste -sd' ')
if [ -n "$left" ]; then
	sb_step "killing leftover processes: $(for p in $left; do printf '%s(%s) ' "$p" "$(cat /proc/"$p"/comm 2>/dev/null)"; done)"
	# shellcheck disable=SC2086
	kill -KILL $left 2>/dev/null
	# shellcheck disable=SC2086
	_sb_wait_gone 5 $left
fi

# Mounts under our directories, deepest first.
for pass in 1 2 3; do
	mapfile -t mnts < <(awk '{print $5}' /proc/self/mountinfo |
		grep -E "^($SB_STATE|$SB_SHM|$SB_VARTMP)(/|$)" | sort -r)
	[ ${#mnts[@]} -eq 0 ] && break
	for m in "${mnts[@]}"; do
		umount "$m" 2>/dev/null || { [ $pass = 3 ] && umount -l "$m" 2>/dev/null; }
	done
done

# Loop devices the provisioner attached (backing files under our dirs). A
# device whose filesystem is still mounted in a node's mount namespace that
# the kernel is tearing down (its processes were just killed) is only marked
# to detach on its last close (autoclear): wait for that, up to 10 s.
our_loops() {
	losetup -l -n -O NAME,BACK-FILE 2>/dev/null | while read -r dev back _; do
		case "$back" in
		"$SB_SHM"/* | "$SB_VARTMP"/*) echo "$dev $back" ;;
		esac
	done
}
our_loops | while read -r dev back; do
	losetup -d "$dev" 2>/dev/null && echo "detached $dev ($back)"
done
for _ in $(seq 100); do
	loops=$(our_loops)
	[ -z "$loops" ] && break
	while read -r dev _; do losetup -d "$dev" 2>/dev/null; done <<<"$loops"
	sleep 0.1
done
[ -n "$(our_loops)" ] && sb_step "warning: loop devices still attached: $(our_loops | tr '\n' ' ')"

# cgroups, deepest first.
for h in /sys/fs/cgroup/*/"$SB_CGROUP_ROOT"; do
	[ -d "$h" ] || continue
	find "$h" -depth -type d -exec rmdir {} + 2>/dev/null
	[ -d "$h" ] && sb_step "warning: could not remove cgroup $h"
done

# sysctls
if [ -f "$SB_STATE/run/sysctl.saved" ]; then
	while IFS= read -r kv; do
		[ -n "$kv" ] && sysctl -q -w "$kv" >/dev/null
	done <"$SB_STATE/run/sysctl.saved"
fi

for n in "${SB_ALL_LETTERS[@]/#/$SB_NETNS-}" "$SB_NETNS"; do
	if [ -e "/var/run/netns/$n" ]; then
		ip netns del "$n" || sb_step "warning: could not delete network namespace $n"
	fi
done

# Host paths the cluster writes outside its state dirs (the kubelet 1.20's
# hard-coded ones, libcni's cache, /run/netns): what up.sh did not find.
if [ -f "$SB_STATE/run/host-paths.before" ]; then
	mapfile -t before <"$SB_STATE/run/host-paths.before"
	for line in "${before[@]}"; do
		case "$line" in
		"  "*) ;;
		/var/lib/kubelet" "* | /var/log/pods" "* | /var/log/containers" "* | /var/lib/cni" "*)
			# the nodes' mount points: another cluster instance may have its
			# nodes' directories mounted there (removing the directory would
			# detach them), so it goes only when empty and mounted nowhere
			if [ "${line##* }" = created ]; then
				d=${line% *}
				if [ -d "$d" ] && [ -z "$(ls -A "$d" 2>/dev/null)" ] &&
					! cat /proc/[0-9]*/mountinfo 2>/dev/null | awk -v d="$d" '$5 == d {f = 1} END {exit !f}'; then
					rmdir "$d" 2>/dev/null
				fi
			fi
			;;
		/run/netns" "* | /run/containerd" "*)
			# shared with others: only empty directories go, never entries
			if [ "${line##* }" = created ]; then
				d=${line% *}
				# ip netns makes /run/netns a mount of itself
				if [ -d "$d" ] && [ -z "$(ls -A "$d" 2>/dev/null)" ] && mountpoint -q "$d"; then
					umount "$d" 2>/dev/null
				fi
				find "$d" -depth -type d -empty -delete 2>/dev/null
			fi
			;;
		*" created") rm -rf "${line% created}" ;;
		*" existed")
			cur=${line% existed}
			for e in "$cur"/*; do
				[ -e "$e" ] || [ -L "$e" ] || continue
				printf '%s\n' "${before[@]}" | grep -qxF "  $e" || rm -rf "$e"
			done
			;;
		esac
	done
fi

if [ -d "$SB_STATE/logs" ]; then
	rm -rf "$SB_OUT/logs"
	mkdir -p "$SB_OUT"
	cp -r "$SB_STATE/logs" "$SB_OUT/logs"
fi
if awk '{print $5}' /proc/self/mountinfo | grep -qE "^($SB_STATE|$SB_SHM|$SB_VARTMP)(/|$)"; then
	sb_step "error: mounts remain under $SB_STATE, $SB_SHM or $SB_VARTMP: not removing them"
	exit 1
fi
rm -rf "$SB_STATE" "$SB_SHM" "$SB_VARTMP"
rm -f "$SB_OUT/env"

rest=$( (all_shim_pids; cgroup_pids; netns_pids) | sort -u | paste -sd' ')
if [ -n "$rest" ]; then
	sb_step "error: processes remain: $rest"
	exit 1
fi
sb_step "cluster down"
