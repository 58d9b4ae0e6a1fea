#!/usr/bin/env bash
# The container image (make image, scripts/build-image.sh: an OCI image
# index of linux/amd64 and linux/arm64 from the static binaries, a CA
# bundle and the zone files; no base image, nothing downloaded), checked
# from its archive (tests/image): the file list, no shell, the size, the
# binaries starting (arm64 under qemu), the same bytes when packed again,
# the Dockerfile's root the same layout. The cluster suite then runs the
# image as the chart's controller and as a restricted pod (tests/chart).
# The arm64 binaries' libraries may be in the making in the background
# (tests/prereq.sh job arm64-libs, started by tests/run-suites.sh): waited
# for first; when that failed, this fails with its log's tail.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
if [ -n "${SB_PREREQ_DIR:-}" ] && ! out=$(bash tests/prereq.sh wait arm64-libs 2>&1); then
	echo "$out"
	echo "FAIL image/build: the arm64 libraries, built in the background, failed (scripts/get-minlibs.sh --arch=arm64)"
	echo "0 passed, 1 failed, 0 skipped"
	exit 1
fi
[ -n "${out:-}" ] && echo "$out"
exec /usr/bin/python3 -m pytest -c tests/pytest.ini -q -s tests/image "$@"
