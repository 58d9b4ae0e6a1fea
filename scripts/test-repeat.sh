#!/usr/bin/env bash
# test-repeat.sh [N]: runs the timing-sensitive tests N times (default 5)
# and prints, per case, how often it passed, failed and skipped, then the
# flaky cases (failed in some runs, passed in others) and the always
# failing ones. Exit status 0 only when no case failed in any run.
#
# Always: every unit test program (build/asan/tests/unit/*/test_*: the kube
# client's retries and watch idling on the fake clock among them) and the
# runner's command-line tests (tests/runner: runtimes and rates on the
# release build). With the test cluster up (make cluster-up) also the
# lib/kube cluster programs (build/asan/tests/kube/test_*: leader election,
# token rotation, the fault-proxy retries), inside its network namespace;
# SB_REPEAT_CLUSTER=0 leaves them out. SB_REPEAT_SUITES picks among
# "unit runner kube" (default: all three). SB_REPEAT_REVERSE=1 runs every
# other repetition of the pytest suites in reverse order.
# `make test-repeat N=5` builds first, then calls this.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
n=${1:-5}
case $n in '' | *[!0-9]*) echo "test-repeat: N must be a number, not '$n'" >&2; exit 2 ;; esac
[ "$n" -ge 1 ] || { echo "test-repeat: N must be at least 1" >&2; exit 2; }
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
rec=$(mktemp)
trap 'rm -f "$rec"' EXIT

suites=" ${SB_REPEAT_SUITES:-unit runner kube} "
want() { [[ $suites == *" $1 "* ]]; }
cluster=0
if want kube && [ "${SB_REPEAT_CLUSTER:-1}" = 1 ] && [ -f build/cluster/env ] && [ -e /var/run/netns/storagebench ]; then
	cluster=1
fi

# c_cases PROGRAM OUTPUT: "case result" lines from the harness's ok/FAIL/skip
# lines; a program that ended without its count line is one failed case.
c_cases() {
	local name=$1 out=$2
	echo "$out" | sed -nE 's/^ok +([^ ]+).*/\1 pass/p; s/^FAIL +([^ ]+).*/\1 fail/p; s/^skip +([^ ]+).*/\1 skip/p'
	echo "$out" | grep -qE '^[0-9]+ passed, [0-9]+ failed, [0-9]+ skipped$' || echo "$name/(count-line) fail"
}

# py_cases OUTPUT: "case result" lines from pytest -rA's summary.
py_cases() {
	echo "$1" | sed -nE 's/^PASSED ([^ ]+).*/\1 pass/p; s/^(FAILED|ERROR) ([^ ]+).*/\2 fail/p; s/^SKIPPED \[[0-9]+\] ([^:]+:[0-9]+).*/\1 skip/p'
}

for ((i = 1; i <= n; i++)); do
	echo "--- repetition $i of $n"
	for t in build/asan/tests/unit/*/test_*; do
		want unit || break
		if [ ! -x "$t" ] || [ ! -f "$t" ]; then continue; fi
		case "$t" in *.o | *.d) continue ;; esac
		out=$("$t" 2>&1)
		c_cases "$(basename "$t")" "$out" >>"$rec"
	done
	rev=()
	[ "${SB_REPEAT_REVERSE:-0}" = 1 ] && [ $((i % 2)) = 0 ] && rev=(--sb-reverse)
	if want runner; then
		out=$(/usr/bin/python3 -m pytest -c tests/pytest.ini -q -rA "${rev[@]}" tests/runner 2>&1)
		py_cases "$out" >>"$rec"
	fi
	if [ $cluster = 1 ]; then
		for t in build/asan/tests/kube/test_*; do
			if [ ! -x "$t" ] || [ ! -f "$t" ]; then continue; fi
			case "$t" in *.o | *.d) continue ;; esac
			out=$(timeout 600 tests/cluster/in-netns.sh "$t" 2>&1)
			c_cases "$(basename "$t")" "$out" >>"$rec"
		done
	fi
	echo "    $(grep -c ' pass$' "$rec") passed, $(grep -c ' fail$' "$rec") failed so far"
done

echo
want kube && [ $cluster = 0 ] && echo "(the lib/kube cluster programs were left out: the test cluster is not up)"
table=$(awk '
	{ k = $1; seen[k] = 1; c[k, $2]++ }
	END {
		for (k in seen) {
			p = c[k, "pass"] + 0; f = c[k, "fail"] + 0; s = c[k, "skip"] + 0
			printf "%-76s %4d %4d %4d %4d %s\n", k, p + f + s, p, f, s, \
				(f && p) ? "FLAKY" : (f ? "FAILING" : (p ? "" : "SKIPPED"))
		}
	}' "$rec" | sort)
printf "%-76s %4s %4s %4s %4s\n" case runs pass fail skip
echo "$table"
echo
echo "$(echo "$table" | grep -c .) cases x $n repetitions:" \
	"$(echo "$table" | grep -c ' FLAKY$') flaky," \
	"$(echo "$table" | grep -c ' FAILING$') always failing," \
	"$(echo "$table" | grep -c ' SKIPPED$') always skipped"
! grep -q ' fail$' "$rec"
