#!/usr/bin/env bash
# make valgrind: every unit test program (built without sanitizers) and the
# runner on small real jobs, under valgrind's memcheck. Fails on any
# memory error or leak ("definitely" or "indirectly" lost); libcurl's and
# OpenSSL's one-time globals are "still reachable" and allowed.
set -uo pipefail
cd "$(dirname "$0")/.."
command -v valgrind >/dev/null || { echo "valgrind is not installed"; exit 1; }
VG=(valgrind --quiet --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite,indirect
	--show-leak-kinds=definite,indirect --track-fds=no)
fail=0 n=0
for t in build/rel/tests/unit/*/test_*; do
	case "$t" in *.o | *.d) continue ;; esac
	[ -x "$t" ] || continue
	n=$((n + 1))
	if out=$("${VG[@]}" "$t" 2>&1); then
		echo "ok   valgrind $(basename "$t") ($(echo "$out" | tail -n 1))"
	else
		echo "FAIL valgrind $(basename "$t")"
		echo "$out" | tail -n 40
		fail=$((fail + 1))
	fi
done
# the runner linked against the shared libraries (make vg-bins): memcheck
# sees no allocation in the static bin/storagebench-runner
runner=build/rel/bin/storagebench-runner
[ -x "$runner" ] || { echo "FAIL valgrind: $runner missing (make vg-bins)"; echo "0 passed, 1 failed, 0 skipped"; exit 1; }
dir=$(mktemp -d /tmp/sb-vg.XXXXXX)
trap 'rm -rf "$dir"' EXIT
runs=(
	"--name=w --rw=randwrite --bs=4k --size=1m --iodepth=8 --fsync=16 --verify=crc32c"
	"--name=r --rw=randread --bs=4k --size=1m --ioengine=psync --numjobs=2 --group_reporting --output-format=json+"
	"--profile=quick --runtime=300ms --size=8m --numjobs=1 --iterations=2 --report-format=svg"
	"--name=z --rw=randrw --bsrange=4k-16k --size=1m --random_distribution=zipf:1.1 --write_iops_log=$dir/vg --write_lat_log=$dir/vg --log_avg_msec=50 --time_based --runtime=1500ms --ss=iops:90% --ss_dur=1 --output-format=json"
	"--name=t --rw=trimwrite --bs=16k --size=1m --buffer_pattern=0xdeadface --file_service_type=random --nrfiles=2"
	"--clients=2 --name=c --rw=randwrite --bs=4k --size=1m --time_based --runtime=1500ms --output-format=json"
)
for args in "${runs[@]}"; do
	n=$((n + 1))
	# shellcheck disable=SC2086
	if out=$("${VG[@]}" "$runner" $args --directory="$dir" --log-level=warn 2>&1 >/dev/null); then
		echo "ok   valgrind storagebench-runner $args"
	else
		echo "FAIL valgrind storagebench-runner $args"
		echo "$out" | tail -n 40
		fail=$((fail + 1))
	fi
done
echo "$((n - fail)) passed, $fail failed, 0 skipped"
[ $fail -eq 0 ]
