#!/usr/bin/env bash
# down.sh: stop the test cluster (`make cluster-down`) and put the machine
# back as it was: components stopped by PID in reverse start order (the API
# server before etcd), containers and shims gone, mounts under the state
# dirs unmounted, loop devices of the provisioner detached, the
# /storagebench cgroups removed, the sysctls the kubelet rewrites restored,
# the host paths the kubelet adds removed, the network namespace deleted,
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

# pid_children PID: direct children.
pid_children() {
	cat /proc/"$1"/task/*/children 2>/dev/null | tr ' ' '\n' | grep -v '^$'
}
# alive PID: running (a zombie waiting for its reaper counts as gone: the
# components were reparented when up.sh exited)
alive() {
	local st
	st=$(awk '{print $3}' /proc/"$1"/stat 2>/dev/null) || return 1
	[ -n "$st" ] && [ "$st" != Z ]
}
# wait_gone SECS PID...: wait until all PIDs are gone; 1 if some remain.
wait_gone() {
	local secs=$1 i p left
	shift
	for ((i = 0; i < secs * 10; i++)); do
		left=0
		for p in "$@"; do alive "$p" && left=1; done
		[ $left = 0 ] && return 0
		sleep 0.1
	done
	return 1
}
# stop NAME: SIGTERM the component (the traced process when run under
# strace), then SIGKILL after 15 s.
stop() {
	local n=$1 f=$SB_STATE/run/$1.pid p targets
	[ -f "$f" ] || return 0
	p=$(cat "$f")
	if sb_pid_ours "$p"; then
		targets=$p
		if [ "$(cat /proc/"$p"/comm 2>/dev/null)" = strace ]; then
			targets=$(pid_children "$p" | paste -sd' ')
		fi
		# shellcheck disable=SC2086
		kill -TERM $targets 2>/dev/null
		# shellcheck disable=SC2086
		if ! wait_gone 15 $targets; then
			sb_step "$n did not stop on SIGTERM within 15 s: SIGKILL"
			# shellcheck disable=SC2086
			kill -KILL $targets 2>/dev/null
			# shellcheck disable=SC2086
			wait_gone 5 $targets
		fi
		wait_gone 5 "$p" || kill -KILL "$p" 2>/dev/null
	fi
	rm -f "$f"
	[ "${SB_DOWN_VERBOSE:-0}" = 1 ] && sb_step "stopped $n"
	return 0
}
# shim_pids: containerd shims serving our containerd (by their -address).
shim_pids() {
	local d cmd
	for d in /proc/[0-9]*; do
		cmd=$(tr '\0' ' ' 2>/dev/null <"$d/cmdline") || continue
		case "$cmd" in
		*containerd-shim*"-address $SB_SOCK "*) echo "${d#/proc/}" ;;
		esac
	done
}
# netns_pids: processes still in our network namespace, but not this
# script or its ancestors (down may be run from inside the namespace).
netns_pids() {
	[ -e "$SB_NETNS_PATH" ] || return 0
	local ino d p keep=" " pid=$$
	ino=$(stat -L -c %i "$SB_NETNS_PATH" 2>/dev/null) || return 0
	while [ "$pid" -gt 1 ] 2>/dev/null; do
		keep="$keep$pid "
		pid=$(awk '/^PPid:/ {print $2}' /proc/"$pid"/status 2>/dev/null || echo 0)
	done
	for d in /proc/[0-9]*; do
		p=${d#/proc/}
		[ "$(readlink "$d/ns/net" 2>/dev/null)" = "net:[$ino]" ] || continue
		case "$keep" in *" $p "*) continue ;; esac
		echo "$p"
	done
}
cgroup_pids() {
	cat /sys/fs/cgroup/*/"$SB_CGROUP_ROOT"/cgroup.procs 2>/dev/null
	find /sys/fs/cgroup/*/"$SB_CGROUP_ROOT" -mindepth 1 -name cgroup.procs -exec cat {} + 2>/dev/null
}

stop provisioner
stop faultproxy
stop kubelet
if sb_alive containerd && [ -S "$SB_SOCK" ]; then
	tasks=$(timeout 20 ctr -a "$SB_SOCK" -n k8s.io tasks ls -q 2>/dev/null)
	if [ -n "$tasks" ]; then
		for t in $tasks; do timeout 10 ctr -a "$SB_SOCK" -n k8s.io tasks kill -s SIGKILL "$t" >/dev/null 2>&1; done
		for t in $tasks; do timeout 10 ctr -a "$SB_SOCK" -n k8s.io tasks delete -f "$t" >/dev/null 2>&1; done
	fi
	for c in $(timeout 20 ctr -a "$SB_SOCK" -n k8s.io containers ls -q 2>/dev/null); do
		timeout 10 ctr -a "$SB_SOCK" -n k8s.io containers delete "$c" >/dev/null 2>&1
	done
fi
stop containerd
shims=$(shim_pids | paste -sd' ')
if [ -n "$shims" ]; then
	# shellcheck disable=SC2086
	kill -TERM $shims 2>/dev/null
	# shellcheck disable=SC2086
	wait_gone 5 $shims || kill -KILL $shims 2>/dev/null
fi
stop kube-scheduler
stop kube-controller-manager
stop kube-apiserver
stop etcd

# Whatever is left in our cgroups or namespace (containers whose shim died,
# a shell somebody left in the namespace): SIGKILL, by PID.
left=$( (cgroup_pids; netns_pids) | sort -un | paste -sd' ')
if [ -n "$left" ]; then
	sb_step "killing leftover processes: $(for p in $left; do printf '%s(%s) ' "$p" "$(cat /proc/"$p"/comm 2>/dev/null)"; done)"
	# shellcheck disable=SC2086
	kill -KILL $left 2>/dev/null
	# shellcheck disable=SC2086
	wait_gone 5 $left
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

# Loop devices the provisioner attached (backing files under our dirs).
losetup -l -n -O NAME,BACK-FILE 2>/dev/null | while read -r dev back _; do
	case "$back" in
	"$SB_SHM"/* | "$SB_VARTMP"/*) losetup -d "$dev" 2>/dev/null && echo "detached $dev ($back)" ;;
	esac
done

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

if [ -e "$SB_NETNS_PATH" ]; then
	ip netns del "$SB_NETNS" || sb_step "warning: could not delete network namespace $SB_NETNS"
fi

# Host paths the cluster writes outside its state dirs (the kubelet 1.20's
# hard-coded ones, libcni's cache, /run/netns): what up.sh did not find.
if [ -f "$SB_STATE/run/host-paths.before" ]; then
	mapfile -t before <"$SB_STATE/run/host-paths.before"
	for line in "${before[@]}"; do
		case "$line" in
		"  "*) ;;
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

rest=$( (shim_pids; cgroup_pids; netns_pids) | sort -u | paste -sd' ')
if [ -n "$rest" ]; then
	sb_step "error: processes remain: $rest"
	exit 1
fi
sb_step "cluster down"
