#!/usr/bin/env bash
# prereq.sh: the slow one-time preparations of the image and cluster suites,
# run in the background while the offline suites run (tests/run-suites.sh
# starts them; docs/testing.md "A fresh machine"):
#
#   kube            scripts/get-kube.sh: Kubernetes v1.20.2 built from Debian's
#                   source package (6-9 min on 2 cores the first time, ~1 s cached)
#   arm64-libs      scripts/get-minlibs.sh --arch=arm64: libcurl and
#                   libmicrohttpd cross-built from Debian's sources, and Debian's
#                   arm64 -dev packages, which the image's arm64 binaries link
#                   (1.5-2 min the first time, cached; not a make, which would
#                   read the .d files the foreground build is writing)
#   ceph-packages   the Debian packages of scripts/deps/optional/ceph.list, which
#                   tests/cluster/ceph/up.sh would install on the first SB_CEPH=1 start
#
# Usage:
#   prereq.sh start JOB...  start each JOB in the background, in a process group
#                           of its own, niced (SB_PREREQ_NICE, default 10): the
#                           suites in the foreground go first, the build takes
#                           the CPU they leave. Output in $DIR/JOB.log, exit
#                           status in $DIR/JOB.rc when it ends.
#   prereq.sh wait JOB      wait until JOB has ended (a lock the job holds while
#                           it runs: no polling) and exit with its status; when
#                           that is not 0, the log's last lines are printed. A job
#                           that was not started: exit 0 at once (the caller does
#                           the work itself). A job that ended without writing
#                           its status (killed): exit 1.
#   prereq.sh stop          stop the jobs still running (SIGTERM to their process
#                           groups); tests/run-suites.sh calls it on its way out.
# $SB_PREREQ_DIR: the state directory (default build/prereq). Only
# tests/run-suites.sh exports it, so a suite run on its own does its
# preparation itself, as before.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
root=$PWD
DIR=${SB_PREREQ_DIR:-$root/build/prereq}
NICE=${SB_PREREQ_NICE:-10}
TAIL=${SB_PREREQ_TAIL:-30}

# job_cmd JOB: the command of JOB (bash -c text), or nothing for an unknown JOB.
# SB_PREREQ_TEST_CMD (tests/prereq/test_prereq.sh only): every known JOB runs
# that instead, with $JOB set.
job_cmd() {
	if [ -n "${SB_PREREQ_TEST_CMD:-}" ] && [[ " kube arm64-libs ceph-packages " == *" $1 "* ]]; then
		echo "JOB=$1; ${SB_PREREQ_TEST_CMD}"
		return 0
	fi
	case "$1" in
	kube) echo "bash scripts/get-kube.sh" ;;
	arm64-libs) echo "bash scripts/get-minlibs.sh --arch=arm64" ;;
	ceph-packages) echo "bash tests/prereq.sh install-list scripts/deps/optional/ceph.list" ;;
	esac
}

# install-list FILE: apt-get install what FILE lists and is not installed
# (the way tests/cluster/ceph/up.sh does, which then finds it all there).
install_list() {
	local wanted missing=() p
	mapfile -t wanted < <(sed -e 's/#.*//' -e 's/[[:space:]]//g' "$1" | grep -v '^$')
	for p in "${wanted[@]}"; do
		[ "$(dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null || true)" = installed ] ||
			missing+=("$p")
	done
	if [ ${#missing[@]} -eq 0 ]; then
		echo "prereq: all ${#wanted[@]} packages of $1 present"
		return 0
	fi
	echo "prereq: installing ${#missing[@]} packages of $1: ${missing[*]}"
	export DEBIAN_FRONTEND=noninteractive
	apt-get install -y -q --no-install-recommends "${missing[@]}" || {
		apt-get update -q || true
		apt-get install -y -q --no-install-recommends "${missing[@]}"
	}
}

start() {
	local job cmd
	mkdir -p "$DIR" || return 1
	for job in "$@"; do
		cmd=$(job_cmd "$job")
		[ -n "$cmd" ] || { echo "prereq: unknown job $job" >&2; return 2; }
		# The lock is taken here, before the job exists, and handed down to
		# it (fd 8): a wait right after start already finds it held.
		exec 8>"$DIR/$job.lock"
		if ! flock -n 8; then
			exec 8>&-
			echo "prereq: $job is already running ($DIR/$job.lock)" >&2
			return 1
		fi
		rm -f "$DIR/$job.rc" "$DIR/$job.pid"
		# setsid: a process group of its own, which stop can end whole
		# shellcheck disable=SC2016 # expanded by the job's own shell
		setsid nice -n "$NICE" bash -c '
			job=$1 cmd=$2 dir=$3
			t0=$(date +%s)
			echo "prereq: $job: started $(date -u +%FT%TZ): $cmd"
			bash -c "$cmd"
			rc=$?
			echo "prereq: $job: ended $(date -u +%FT%TZ), exit status $rc, $(($(date +%s) - t0)) s"
			echo "$rc" >"$dir/$job.rc"
			exit "$rc"' prereq "$job" "$cmd" "$DIR" >"$DIR/$job.log" 2>&1 8>&8 </dev/null &
		echo $! >"$DIR/$job.pid"
		exec 8>&-
		echo "prereq: $job started in the background ($cmd; log $DIR/$job.log)"
	done
}

wait_job() {
	local job=$1 t0 rc
	[ -f "$DIR/$job.pid" ] || return 0
	t0=$(date +%s)
	flock "$DIR/$job.lock" true
	if [ ! -f "$DIR/$job.rc" ]; then
		echo "prereq: $job ended without an exit status (killed?); the last lines of $DIR/$job.log:"
		tail -n "$TAIL" "$DIR/$job.log" | sed 's/^/  | /'
		return 1
	fi
	rc=$(cat "$DIR/$job.rc")
	if [ "$rc" != 0 ]; then
		echo "prereq: $job failed (exit status $rc); the last lines of $DIR/$job.log:"
		tail -n "$TAIL" "$DIR/$job.log" | sed 's/^/  | /'
		return "$rc"
	fi
	echo "prereq: $job done in the background ($(grep -o '[0-9]* s$' "$DIR/$job.log" | tail -n 1); waited $(($(date +%s) - t0)) s for it)"
	return 0
}

stop() {
	local f pid job
	for f in "$DIR"/*.pid; do
		[ -f "$f" ] || continue
		job=$(basename "$f" .pid)
		pid=$(cat "$f")
		# still running: its lock is held
		if ! flock -n "$DIR/$job.lock" true; then
			echo "prereq: stopping $job (process group $pid)"
			kill -TERM -- "-$pid" 2>/dev/null
		fi
	done
	return 0
}

case "${1:-}" in
start)
	shift
	start "$@"
	;;
wait)
	[ $# -eq 2 ] || { echo "usage: $0 wait JOB" >&2; exit 2; }
	wait_job "$2"
	;;
stop) stop ;;
install-list)
	[ $# -eq 2 ] || { echo "usage: $0 install-list FILE" >&2; exit 2; }
	install_list "$2"
	;;
*)
	echo "usage: $0 start JOB... | wait JOB | stop  (JOB: kube arm64-libs ceph-packages)" >&2
	exit 2
	;;
esac
