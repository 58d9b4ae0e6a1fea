#!/usr/bin/env bash
# Unit tests: each build/asan/tests/unit/*/test_* program (AddressSanitizer +
# UBSan) prints one line per case and its own count line; we add them up.
set -uo pipefail
cd "$(dirname "$0")/../.."
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
# the CRC-32C path test_crc32c must find dispatched, known from outside
if [ "$(uname -m)" = x86_64 ] && grep -qw sse4_2 /proc/cpuinfo; then
	export SB_CRC32C_EXPECT=${SB_CRC32C_EXPECT:-sse4.2}
fi
p=0 f=0 s=0
for t in build/asan/tests/unit/*/test_*; do
	[ -x "$t" ] || continue
	case "$t" in *.o | *.d) continue ;; esac
	out=$("$t" 2>&1)
	rc=$?
	echo "$out" | grep -vE '^[0-9]+ passed, [0-9]+ failed, [0-9]+ skipped$'
	line=$(echo "$out" | grep -E '^[0-9]+ passed, [0-9]+ failed, [0-9]+ skipped$' | tail -n 1)
	if [ -z "$line" ]; then
		echo "FAIL $(basename "$t"): exited $rc without a count line"
		f=$((f + 1))
		continue
	fi
	read -r a _ b _ c _ <<<"$(echo "$line" | tr -d ',')"
	p=$((p + a)) f=$((f + b)) s=$((s + c))
	if [ $rc -ne 0 ] && [ "$b" -eq 0 ]; then
		echo "FAIL $(basename "$t"): exited $rc"
		f=$((f + 1))
	fi
done
echo "$p passed, $f failed, $s skipped"
[ $f -eq 0 ]
