#!/usr/bin/env bash
# arm64 (make test-arm64; tests/arm64/arm64.mk): every C source of the
# project cross-compiled for arm64 with -Werror, and the unit tests that
# need only libc and libm run as arm64 programs under qemu-aarch64 (UBSan
# on), the CRC-32C test with the ARMv8 CRC32 instructions dispatched.
# The tools come from scripts/deps/arm64.list (make deps): when they are
# missing this suite fails, it does not skip.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
CC_ARM64=${ARM64_CC:-aarch64-linux-gnu-gcc}
QEMU=${ARM64_QEMU:-qemu-aarch64}
SYSROOT=${ARM64_SYSROOT:-/usr/aarch64-linux-gnu}
# the emulated CPU: the core of AWS Graviton2 and Ampere Altra (ARMv8.2, CRC32)
CPU=${ARM64_QEMU_CPU:-neoverse-n1}
TIMEOUT=${SB_ARM64_TIMEOUT:-600}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
p=0 f=0 s=0

missing=()
command -v "$CC_ARM64" >/dev/null || missing+=("$CC_ARM64 (gcc-aarch64-linux-gnu)")
command -v "$QEMU" >/dev/null || missing+=("$QEMU (qemu-user)")
[ -e "$SYSROOT/lib/ld-linux-aarch64.so.1" ] || missing+=("$SYSROOT (libc6-dev-arm64-cross)")
if [ ${#missing[@]} -gt 0 ]; then
	echo "FAIL arm64/tools: not installed: ${missing[*]} (scripts/deps/arm64.list: make deps installs them)"
	echo "0 passed, 1 failed, 0 skipped"
	exit 1
fi

# 1. build: every source compiled for arm64, the unit programs linked
start=$(date +%s)
if out=$(make --no-print-directory -j2 arm64-bins 2>&1); then
	echo "ok   arm64/build ($(($(date +%s) - start)) s)"
	p=$((p + 1))
else
	echo "$out" | grep -vE '^  (CC|AR|LD) ' | tail -n 40
	echo "FAIL arm64/build: make arm64-bins failed"
	echo "0 passed, 1 failed, 0 skipped"
	exit 1
fi

# 2. every C source git tracks has an arm64 object at least as new as it
if srcs=$(git ls-files '*.c' 2>/dev/null) && [ -n "$srcs" ]; then
	stale=() n=0
	while IFS= read -r c; do
		o=build/arm64/${c%.c}.o
		n=$((n + 1))
		[ -f "$o" ] && [ ! "$c" -nt "$o" ] || stale+=("$c")
	done <<<"$srcs"
	if [ ${#stale[@]} -eq 0 ]; then
		echo "ok   arm64/compile-every-source ($n files, -Werror)"
		p=$((p + 1))
	else
		echo "FAIL arm64/compile-every-source: no arm64 object for ${stale[*]}"
		f=$((f + 1))
	fi
else
	echo "FAIL arm64/compile-every-source: cannot list the sources (git ls-files)"
	f=$((f + 1))
fi

# 3. the unit programs, as arm64 programs under qemu (the CPU has CRC32:
#    test_crc32c must find the ARMv8 instructions dispatched)
read -r -a bins <<<"$(make --no-print-directory -s arm64-list)"
if [ ${#bins[@]} -eq 0 ]; then
	echo "FAIL arm64/units: make arm64-list names no unit program"
	f=$((f + 1))
fi
for t in "${bins[@]}"; do
	name=$(basename "$t")
	# ELF e_machine (bytes 18-19) 0xb7: AArch64
	if [ "$(od -An -tx1 -j18 -N2 "$t" | tr -d ' \n')" != b700 ]; then
		echo "FAIL arm64/$name: not an AArch64 program"
		f=$((f + 1))
		continue
	fi
	out=$(SB_CRC32C_EXPECT=armv8 timeout "$TIMEOUT" "$QEMU" -cpu "$CPU" -L "$SYSROOT" "$t" 2>&1)
	rc=$?
	echo "$out" | grep -vE '^[0-9]+ passed, [0-9]+ failed, [0-9]+ skipped$' |
		sed -E 's#^(ok   |FAIL |skip )#\1arm64/#'
	line=$(echo "$out" | grep -E '^[0-9]+ passed, [0-9]+ failed, [0-9]+ skipped$' | tail -n 1)
	if [ -z "$line" ]; then
		echo "FAIL arm64/$name: exited $rc without a count line"
		f=$((f + 1))
		continue
	fi
	read -r a _ b _ c _ <<<"$(echo "$line" | tr -d ',')"
	p=$((p + a)) f=$((f + b)) s=$((s + c))
	if [ $rc -ne 0 ] && [ "$b" -eq 0 ]; then
		echo "FAIL arm64/$name: exited $rc"
		f=$((f + 1))
	fi
done
echo "$p passed, $f failed, $s skipped"
[ $f -eq 0 ]
