#!/usr/bin/env bash
# The container image built here without a registry (make image: a Debian
# root filesystem from Debian's archive with debootstrap, the binaries,
# an OCI archive; about 4 minutes the first time, cached afterwards). The
# cluster suite then runs it as a restricted pod (tests/chart/test_image.py).
# Its root filesystem may be in the making in the background
# (tests/prereq.sh, started by tests/run-suites.sh): waited for first; when
# that failed, this fails with its log's tail (or skips, as below, when the
# archive was unreachable).
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
unreachable="failed to (fetch|download)|could not resolve|temporary failure in name resolution"
if [ -n "${SB_PREREQ_DIR:-}" ] && ! out=$(bash tests/prereq.sh wait image-root 2>&1); then
	echo "$out"
	if echo "$out" | grep -qiE "$unreachable"; then
		echo "skip image/build (the Debian archive is unreachable from here)"
		echo "0 passed, 0 failed, 1 skipped"
		exit 0
	fi
	echo "FAIL image/build: the image's root filesystem, built in the background, failed (scripts/build-image.sh --rootfs-only)"
	echo "0 passed, 1 failed, 0 skipped"
	exit 1
fi
[ -n "${out:-}" ] && echo "$out"
if out=$(make --no-print-directory image 2>&1); then
	echo "$out" | tail -n 3
	echo "ok   image/build ($(ls build/image/*.oci.tar 2>/dev/null | head -n 1))"
	echo "1 passed, 0 failed, 0 skipped"
	exit 0
fi
echo "$out" | tail -n 20
if echo "$out" | grep -qiE "$unreachable"; then
	echo "skip image/build (the Debian archive is unreachable from here)"
	echo "0 passed, 0 failed, 1 skipped"
	exit 0
fi
echo "FAIL image/build: make image failed"
echo "0 passed, 1 failed, 0 skipped"
exit 1
