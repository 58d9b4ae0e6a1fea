#!/usr/bin/env bash
# lib/kube under valgrind: the kube unit tests, and the cluster tests when the
# test cluster is up (run inside its network namespace). Built without
# sanitizers by `make kube-valgrind-bins` (build/rel/tests/...).
#
# Fails on any memory error and on definitely or indirectly lost blocks.
# "Still reachable" blocks are not leaks: they are libcurl's, OpenSSL's and
# glibc's one-time process globals (curl_global_init, the OpenSSL error and
# provider tables, the dynamic loader), freed only at exit; no suppression
# file is needed for them. Possibly-lost blocks are reported but not fatal:
# glibc's thread stacks (pthread_create's DTV) show up as such while a
# thread exits.
#
# Usage: bash tests/kube/valgrind.sh [unit|cluster]   (default: both)
set -uo pipefail
cd "$(dirname "$0")/../.."
what=${1:-all}
make -s kube-valgrind-bins >/dev/null || { echo "build failed"; exit 1; }
VG=(valgrind -q --leak-check=full --show-leak-kinds=definite,indirect
	--errors-for-leak-kinds=definite,indirect --error-exitcode=99 --track-origins=yes
	--num-callers=30)
p=0 f=0 s=0
run() {
	local out rc line
	out=$("$@" 2>&1)
	rc=$?
	echo "$out" | grep -vE '^[0-9]+ passed, [0-9]+ failed, [0-9]+ skipped$'
	line=$(echo "$out" | grep -E '^[0-9]+ passed, [0-9]+ failed, [0-9]+ skipped$' | tail -n 1)
	if [ -z "$line" ]; then
		echo "FAIL $*: exited $rc without a count line"
		f=$((f + 1))
		return
	fi
	read -r a _ b _ c _ <<<"$(echo "$line" | tr -d ',')"
	p=$((p + a)) f=$((f + b)) s=$((s + c))
	if [ "$rc" -ne 0 ] && [ "$b" -eq 0 ]; then
		echo "FAIL $(basename "${!#}"): valgrind or the program exited $rc"
		f=$((f + 1))
	fi
}
if [ "$what" != cluster ]; then
	for t in build/rel/tests/unit/kube/test_kube_*; do
		case "$t" in *.o | *.d) continue ;; esac
		echo "--- valgrind $t"
		run "${VG[@]}" "$t"
	done
fi
if [ "$what" != unit ]; then
	if [ -f build/cluster/env ] && [ -e /var/run/netns/storagebench ]; then
		for t in build/rel/tests/kube/test_*; do
			case "$t" in *.o | *.d) continue ;; esac
			echo "--- valgrind $t (in the cluster's network namespace)"
			run tests/cluster/in-netns.sh "${VG[@]}" "$t"
		done
	else
		echo "skip cluster tests under valgrind: the test cluster is not up"
	fi
fi
echo "$p passed, $f failed, $s skipped"
[ "$f" -eq 0 ]
