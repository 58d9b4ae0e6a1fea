#!/usr/bin/env bash
# Runs the test suites in tests/suites/ (NN-name.sh, in order) or only the
# ones named on the command line (by name without number, e.g. "unit").
# Each suite prints its own cases and ends with a line
#   N passed, N failed, N skipped
# This script echoes everything, adds up those lines, and ends with the
# total in the same form. A suite that exits non-zero without such a line
# counts as one failure. Exit status: 0 only when nothing failed.
#
# --build (make test): first builds what the suites run (make -jN all asan
# unit-bins vg-bins fuzz-bins, N the number of CPUs); a failed build ends the
# run with status 2.
# The slow one-time preparations of the image and cluster suites (the
# Kubernetes build, the image's arm64 libraries, the Ceph packages: tests/prereq.sh)
# start in the background first, when those suites are selected and we are
# root, and the build and the offline suites run meanwhile; the image and
# cluster suites wait for them, and fail with the log's tail when they failed.
# SB_PREREQ=0: no background preparations (each suite does its own, in turn).
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
build=0
if [ "${1:-}" = --build ]; then
	build=1
	shift
fi
# suites: the selected tests/suites/NN-name.sh, in order
suites=()
for s in tests/suites/*.sh; do
	name=$(basename "$s" .sh)
	name=${name#[0-9][0-9]-}
	if [ $# -gt 0 ]; then
		want=0
		for a in "$@"; do [ "$a" = "$name" ] && want=1; done
		[ $want = 1 ] || continue
	fi
	suites+=("$s")
done
T0=$(date +%s)
# cpu_now: CPU into the variable CPU: the seconds (user + system) of this
# script's waited-for children so far (bash's times, run in this shell, not
# a subshell), which the background preparations are not
cpu_file=$(mktemp)
trap 'rm -f "$cpu_file"' EXIT
cpu_now() {
	times >"$cpu_file"
	CPU=$(tail -n 1 "$cpu_file" | awk '{ t = 0; for (i = 1; i <= 2; i++) { split($i, a, /[ms]/); t += a[1] * 60 + a[2] } printf "%d", t }')
}
jobs=()
if [ "${SB_PREREQ:-1}" != 0 ] && [ "$(id -u)" -eq 0 ]; then
	for s in "${suites[@]}"; do
		case "$s" in
		*-image.sh) jobs+=(arm64-libs) ;;
		*-cluster.sh) jobs+=(kube ceph-packages) ;;
		esac
	done
fi
if [ ${#jobs[@]} -gt 0 ]; then
	export SB_PREREQ_DIR=$PWD/build/prereq
	trap 'rm -f "$cpu_file"; bash tests/prereq.sh stop' EXIT
	trap 'exit 130' INT TERM HUP
	echo "=== background preparations: ${jobs[*]} (tests/prereq.sh; logs in $SB_PREREQ_DIR)"
	bash tests/prereq.sh start "${jobs[@]}" || exit 2
fi
if [ $build = 1 ]; then
	n=$(nproc 2>/dev/null || echo 2)
	echo "=== build: ${MAKE:-make} -j$n all asan unit-bins vg-bins fuzz-bins"
	if ! "${MAKE:-make}" -j"$n" all asan unit-bins vg-bins fuzz-bins; then
		echo "=== build failed"
		exit 2
	fi
	cpu_now
	echo "=== build: done ($(($(date +%s) - T0)) s, $CPU s CPU)"
fi
total_p=0 total_f=0 total_s=0
failed_suites=()
for s in "${suites[@]}"; do
	name=$(basename "$s" .sh)
	name=${name#[0-9][0-9]-}
	cpu_now
	t1=$(date +%s) c1=$CPU
	echo "=== suite $name"
	log=$(mktemp)
	bash "$s" 2>&1 | tee "$log"
	rc=${PIPESTATUS[0]}
	line=$(grep -E '^[0-9]+ passed, [0-9]+ failed, [0-9]+ skipped$' "$log" | tail -n 1)
	rm -f "$log"
	cpu_now
	if [ -n "$line" ]; then
		read -r p _ f _ sk _ <<<"$(echo "$line" | tr -d ',')"
	else
		p=0 f=0 sk=0
	fi
	if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
		echo "suite $name exited with status $rc without reporting a failure: counted as one"
		f=1
	fi
	[ "$f" -gt 0 ] && failed_suites+=("$name")
	total_p=$((total_p + p)) total_f=$((total_f + f)) total_s=$((total_s + sk))
	echo "=== suite $name: $p passed, $f failed, $sk skipped ($(($(date +%s) - t1)) s, $((CPU - c1)) s CPU, at $(($(date +%s) - T0)) s)"
done
[ ${#failed_suites[@]} -gt 0 ] && echo "failing suites: ${failed_suites[*]}"
echo "$total_p passed, $total_f failed, $total_s skipped"
[ "$total_f" -eq 0 ]
