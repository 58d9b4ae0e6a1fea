#!/usr/bin/env bash
# Cluster suite: everything that needs the real test cluster (issue 3).
#  1. scripts/get-kube.sh (builds Kubernetes once, ~6-15 min; cached after;
#     under tests/run-suites.sh already started in the background with the
#     Ceph packages' install, tests/prereq.sh: waited for here)
#  2. tests/cluster/images.sh (pause, test and project images)
#  3. cluster-up with every component's connect() traced (a running cluster
#     is restarted, so that the trace covers a whole cycle)
#  4. inside the network namespace: pytest over each of the directories
#     below that exist and hold test_*.py (one process each), then every executable
#     build/asan/tests/kube/test_* (C programs printing ok/FAIL/skip lines
#     and a count line), with KUBECONFIG etc. from build/cluster/env
#  5. cluster-down (always, by trap; SB_KEEP_CLUSTER=1 keeps it up), then
#     the connect() trace of the whole cycle and "nothing left behind" are
#     checked as two more cases
# Ends with "N passed, N failed, N skipped". When the cluster cannot be
# built here (not root, or the Debian archive unreachable: checked by
# downloading one package with apt, through apt's own configuration) every
# case is reported skipped with the reason, never passed. On a machine that
# could run it (root, archive reachable) the suite never skips as a whole:
# a missing tool or a failed download there is a failure, so CI cannot go
# green with the cluster tests silently not run.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
root=$PWD
# the suite runs the three-node cluster with its Ceph (tests/cluster/ceph:
# classes ssd, bulk, cephfs and S3), whatever SB_NODES/SB_CEPH the caller has
export SB_NODES=3 SB_CEPH=1

# pytest directories run against the cluster (those that exist).
PYTEST_DIRS=(tests/cluster tests/kube tests/controller tests/e2e tests/chart tests/plugin)
# C test programs (built by the client team's make target).
C_TESTS_GLOB="build/asan/tests/kube/test_*"
C_TEST_TIMEOUT=${SB_C_TEST_TIMEOUT:-600}
PYTEST_TIMEOUT=${SB_PYTEST_TIMEOUT:-1800}
TRACE=$root/build/cluster/trace
# every pytest step lists its slowest cases (setup, call and teardown apart),
# so that a CI log says where the suite's time goes
DURATIONS=(--durations="${SB_DURATIONS:-25}" --durations-min=5)

dirs=()
for d in "${PYTEST_DIRS[@]}"; do
	[ -d "$d" ] && [ -n "$(find "$d" -name 'test_*.py' -print -quit)" ] && dirs+=("$d")
done
ctests=()
for t in $C_TESTS_GLOB; do
	if [ ! -f "$t" ] || [ ! -x "$t" ]; then continue; fi
	case "$t" in *.o | *.d | *.c) continue ;; esac
	ctests+=("$t")
done

p=0 f=0 s=0
# Number of cases that would run: for the skip line.
planned() {
	local n=0 d k
	for d in "${dirs[@]}"; do
		k=$(/usr/bin/python3 -m pytest -c tests/pytest.ini --collect-only -q "$d" 2>/dev/null | grep -c '::')
		n=$((n + ${k:-0}))
	done
	echo $((n + ${#ctests[@]} + 2))
}
skip_all() {
	echo "skip cluster: $1"
	echo "0 passed, 0 failed, $(planned) skipped"
	exit 0
}
fail_setup() {
	echo "FAIL cluster/$1: $2"
	echo "0 passed, 1 failed, $(($(planned) - 1)) skipped"
	exit 1
}
# archive_reachable: 0 when apt can download a package from the machine's
# Debian archive now (one small .deb into a temporary directory).
archive_reachable() {
	local tmp ok=1
	tmp=$(mktemp -d) || return 1
	chmod 0777 "$tmp" # apt's download sandbox user writes there
	if ! apt-get download --print-uris base-files 2>/dev/null | grep -q "'"; then
		timeout 300 apt-get -q update >/dev/null 2>&1 || true
	fi
	(cd "$tmp" && timeout 120 apt-get -q download base-files >/dev/null 2>&1) &&
		ls "$tmp"/base-files_*.deb >/dev/null 2>&1 && ok=0
	rm -rf "$tmp"
	return $ok
}
# A whole-suite skip for a reason other than "not root": only when the
# archive is unreachable (nothing could be installed or built); otherwise
# a failure naming what is wrong.
skip_or_fail() {
	if archive_reachable; then
		fail_setup "$1" "$2 (root, and the Debian archive is reachable: this machine can run the cluster suite, so it must)"
	fi
	skip_all "$2 (the Debian archive is unreachable from here)"
}

[ "$(id -u)" -eq 0 ] || skip_all "needs root (network namespace, mounts, cgroups, loop devices)"
[ -x /usr/bin/python3 ] || skip_or_fail python3 "no /usr/bin/python3 (make deps installs it)"

echo "--- building Kubernetes v1.20.2 (cached after the first time)"
# started in the background by tests/run-suites.sh (tests/prereq.sh): its
# exit status is get-kube.sh's (its log's tail printed when not 0); then
# get-kube.sh again, which finds the cache filled (a second)
rc=0
if [ -n "${SB_PREREQ_DIR:-}" ]; then
	bash tests/prereq.sh wait kube
	rc=$?
fi
if [ $rc -eq 0 ]; then
	bash scripts/get-kube.sh
	rc=$?
fi
case $rc in
0) ;;
3) skip_or_fail get-kube "cannot build Kubernetes here: a download from the Debian archive failed (see scripts/get-kube.sh output)" ;;
*) fail_setup get-kube "scripts/get-kube.sh exited $rc" ;;
esac
/usr/bin/python3 -c 'import pytest' 2>/dev/null || skip_or_fail pytest "python3-pytest is not installed (make deps installs it)"

if [ -n "${SB_PREREQ_DIR:-}" ]; then
	bash tests/prereq.sh wait ceph-packages ||
		fail_setup ceph-packages "installing scripts/deps/optional/ceph.list in the background failed (its log's tail above)"
fi

echo "--- images"
bash tests/cluster/images.sh all || fail_setup images "tests/cluster/images.sh failed"

cleanup() {
	if [ "${SB_KEEP_CLUSTER:-0}" = 1 ]; then
		echo "--- SB_KEEP_CLUSTER=1: the cluster stays up (make cluster-down)"
	else
		bash tests/cluster/down.sh
	fi
}
if [ -e /var/run/netns/storagebench ] || [ -d /var/lib/storagebench/cluster/run ]; then
	echo "--- a cluster is running: restarting it with connect() tracing"
	bash tests/cluster/down.sh
fi
rm -rf "$TRACE"
# host paths a cluster writes outside its state dirs: as they were after the test
HOST_PATHS=(/var/lib/kubelet /var/log/pods /var/log/containers /usr/libexec/kubernetes /var/lib/cni
	/run/containerd /run/netns /etc/cni /opt/cni /var/lib/containerd /etc/kubernetes)
host_paths() { ls -d "${HOST_PATHS[@]}" 2>/dev/null; }
paths_before=$(host_paths)
# what the nodes must never write on the host (containerd 1.6's shim
# sockets: each node has a /run of its own), and the files in /tmp a run
# left (test logs go to build/): both compared after cluster-down
run_containerd() { find /run/containerd 2>/dev/null | sort; }
rc_before=$(run_containerd)
tmp_marker=$(mktemp -p "$root/build" .cluster-suite-start.XXXXXX)
tmp_left() { find /tmp -maxdepth 1 -name 'sb-*' -newer "$tmp_marker" 2>/dev/null | sort | head -n 20; }
echo "--- cluster-up (connect() traced into build/cluster/trace)"
trap cleanup EXIT
trap 'exit 130' INT TERM HUP
SB_TRACE_CONNECT=$TRACE SB_CLUSTER_VERBOSE=1 bash tests/cluster/up.sh || fail_setup up "cluster-up failed"

# Skip reasons that mean "the cluster (or a tool the suite installs) is not
# there": with the cluster up they say a test did not run that could have.
UNRUN_SKIPS="no test cluster|the test cluster is not up|not inside the cluster's network namespace|helm (is )?not installed"
# unrun_skips NAME OUTPUT: one failure when OUTPUT has such a skip.
unrun_skips() {
	local lines
	lines=$(echo "$2" | grep -E '^(skip |SKIPPED )' | grep -E "$UNRUN_SKIPS")
	[ -n "$lines" ] || return 0
	echo "FAIL $1: skipped although the cluster is up:"
	echo "$lines" | head -n 5
	f=$((f + 1))
}

# add_counts OUTPUT: add the output's last count line; 1 if there is none.
add_counts() {
	local line a b c
	line=$(echo "$1" | grep -E '^[0-9]+ passed, [0-9]+ failed, [0-9]+ skipped$' | tail -n 1)
	[ -n "$line" ] || return 1
	read -r a _ b _ c _ <<<"$(echo "$line" | tr -d ',')"
	p=$((p + a)) f=$((f + b)) s=$((s + c))
	LAST_FAILED=$b
}

# run_pytest WHAT ARGS...: one pytest process inside the namespace, its
# count line added, a failure when it has none or exits non-zero alone.
# NONE_OK=1 run_pytest ...: exit 5 (no test selected: a directory without
# serial tests) is not a failure.
run_pytest() {
	local what=$1 out rc
	shift
	echo "--- pytest $what (inside the network namespace)"
	out=$(SB_TRACE_CONNECT=$TRACE timeout "$PYTEST_TIMEOUT" tests/cluster/in-netns.sh \
		/usr/bin/python3 -m pytest -c tests/pytest.ini "${DURATIONS[@]}" "$@" 2>&1)
	rc=$?
	count_pytest "$what" "$out" "$rc"
}
# start_pytest FILE ARGS...: the same pytest in the background, its output
# into FILE and its exit status into FILE.rc; finish_pytest WHAT FILE waits
# for it and counts it as run_pytest does.
start_pytest() {
	local file=$1
	shift
	(
		SB_TRACE_CONNECT=$TRACE timeout "$PYTEST_TIMEOUT" tests/cluster/in-netns.sh \
			/usr/bin/python3 -m pytest -c tests/pytest.ini "${DURATIONS[@]}" "$@" >"$file" 2>&1
		echo $? >"$file.rc"
	) &
	BG_PID=$!
}
finish_pytest() {
	local what=$1 file=$2 rc
	wait "$BG_PID"
	rc=$(cat "$file.rc" 2>/dev/null || echo 1)
	echo "--- pytest $what (inside the network namespace, beside the step before)"
	count_pytest "$what" "$(cat "$file")" "$rc"
	rm -f "$file" "$file.rc"
}
# count_pytest WHAT OUTPUT RC: prints OUTPUT and adds its count line.
count_pytest() {
	local what=$1 out=$2 rc=$3
	echo "$out" | grep -vE '^[0-9]+ passed, [0-9]+ failed, [0-9]+ skipped$'
	if ! add_counts "$out"; then
		echo "FAIL $what: pytest exited $rc without a count line"
		f=$((f + 1))
	elif [ "$rc" -ne 0 ] && [ "$LAST_FAILED" -eq 0 ] && ! { [ "$rc" -eq 5 ] && [ "${NONE_OK:-0}" = 1 ]; }; then
		echo "FAIL $what: pytest exited $rc"
		f=$((f + 1))
	fi
	unrun_skips "$what" "$out"
}

# Directories whose tests each work in a namespace of their own and mostly
# wait for pods: SB_PARALLEL_WORKERS pytest-xdist processes (default 2) run
# them, then the ones marked "serial" (tests/pytest.ini) run alone.
# --dist loadgroup: a test marked xdist_group("x") runs on the same worker
# as the others of its group, in file order (a module-scoped fixture made
# once, a chart release its tests build on); the rest go to whichever
# worker is free (docs/testing.md "What runs in parallel").
PARALLEL_DIRS=" tests/cluster tests/e2e tests/chart "
WORKERS=${SB_PARALLEL_WORKERS:-2}
# BESIDE_E2E: a directory whose parallel step runs at the same time as
# tests/e2e's (its own pytest process and workers): tests/chart's tests wait
# for their own release or only render templates, and e2e's parallel step
# (about 6 minutes, mostly waiting for pods) hides its 3. Its serial step,
# if any, comes after e2e's. SB_BESIDE_E2E= (empty) runs it in its turn.
BESIDE_E2E=${SB_BESIDE_E2E-tests/chart}
beside=""
if [ -n "$BESIDE_E2E" ] && [ "$WORKERS" -gt 1 ] && [[ " ${dirs[*]} " == *" tests/e2e "* ]] &&
	[[ " ${dirs[*]} " == *" $BESIDE_E2E "* ]]; then
	beside=$BESIDE_E2E
fi
# One pytest process per directory: their conftest.py modules would
# collide in one session (each directory imports its own "conftest").
for d in "${dirs[@]}"; do
	[ "$d" = "$beside" ] && continue # run with tests/e2e
	if [[ "$PARALLEL_DIRS" == *" $d "* ]] && [ "$WORKERS" -gt 1 ]; then
		/usr/bin/python3 -c 'import xdist' 2>/dev/null ||
			fail_setup xdist "python3-pytest-xdist is not installed (make deps installs it)"
		if [ "$d" = tests/e2e ] && [ -n "$beside" ]; then
			beside_out=$(mktemp)
			echo "--- pytest $beside (not serial, $WORKERS processes) started beside $d"
			start_pytest "$beside_out" -m "not serial" -n "$WORKERS" --dist loadgroup "$beside"
		fi
		run_pytest "$d (not serial, $WORKERS processes)" -m "not serial" -n "$WORKERS" --dist loadgroup "$d"
		if [ "$d" = tests/e2e ] && [ -n "$beside" ]; then
			finish_pytest "$beside (not serial, $WORKERS processes)" "$beside_out"
		fi
		NONE_OK=1 run_pytest "$d (serial)" -m serial "$d"
		if [ "$d" = tests/e2e ] && [ -n "$beside" ]; then
			NONE_OK=1 run_pytest "$beside (serial)" -m serial "$beside"
		fi
	else
		run_pytest "$d" "$d"
	fi
done

for t in "${ctests[@]}"; do
	echo "--- $t (inside the network namespace)"
	out=$(ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0} \
		UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1} \
		timeout "$C_TEST_TIMEOUT" tests/cluster/in-netns.sh "$t" 2>&1)
	rc=$?
	echo "$out" | grep -vE '^[0-9]+ passed, [0-9]+ failed, [0-9]+ skipped$'
	if ! add_counts "$out"; then
		echo "FAIL $(basename "$t"): exited $rc without a count line"
		f=$((f + 1))
	elif [ $rc -ne 0 ] && [ "$LAST_FAILED" -eq 0 ]; then
		echo "FAIL $(basename "$t"): exited $rc"
		f=$((f + 1))
	fi
	unrun_skips "$(basename "$t")" "$out"
done

trap - EXIT
if [ "${SB_KEEP_CLUSTER:-0}" = 1 ]; then
	cleanup
	echo "skip cluster/connect-trace: the cluster was kept up (SB_KEEP_CLUSTER=1)"
	echo "skip cluster/down-leaves-nothing: the cluster was kept up"
	s=$((s + 2))
else
	echo "--- cluster-down"
	if bash tests/cluster/down.sh; then
		# this cluster's processes: those naming its state, PKI or shm paths
		# (another cluster on the machine, with paths of its own, is not ours)
		ours="${SB_STATE:-/var/lib/storagebench/cluster}|${SB_PKI:-/var/lib/storagebench/pki}|${SB_SHM:-/dev/shm/storagebench-cluster}|${SB_VARTMP:-/var/tmp/storagebench-cluster}"
		left=$(for c in kube-apiserver kube-controller kube-scheduler kubelet kube-proxy etcd containerd containerd-shim; do
			pgrep -a -x "$c" | grep -E -- "$ours"
		done)
		paths_after=$(host_paths)
		rc_new=$(comm -13 <(echo "$rc_before") <(run_containerd) | head -n 20)
		tmp_new=$(tmp_left)
		if [ -z "$left" ] && [ ! -e /var/run/netns/storagebench ] && ! ls -d /var/run/netns/storagebench-? >/dev/null 2>&1 &&
			! grep -q /var/lib/storagebench /proc/mounts &&
			! ls -d /sys/fs/cgroup/*/storagebench >/dev/null 2>&1 && [ "$paths_before" = "$paths_after" ] &&
			[ -z "$rc_new" ] && [ -z "$tmp_new" ] &&
			[ ! -e /var/lib/storagebench/cluster ] && ! losetup -l -n -O BACK-FILE | grep -qE 'storagebench-cluster|/var/lib/storagebench/'; then
			echo "ok cluster/down-leaves-nothing"
			p=$((p + 1))
		else
			echo "FAIL cluster/down-leaves-nothing: processes [$left] host paths before [$paths_before] after [$paths_after]" \
				"new in /run/containerd [$rc_new] new in /tmp [$tmp_new]"
			f=$((f + 1))
		fi
	else
		echo "FAIL cluster/down-leaves-nothing: cluster-down failed"
		f=$((f + 1))
	fi
	echo "--- connect() of every component over the whole cycle"
	if /usr/bin/python3 tests/cluster/conntrace.py "$TRACE"; then
		echo "ok cluster/connect-trace"
		p=$((p + 1))
	else
		echo "FAIL cluster/connect-trace"
		f=$((f + 1))
	fi
fi
rm -f "$tmp_marker"
echo "$p passed, $f failed, $s skipped"
[ $f -eq 0 ]
