#!/usr/bin/env bash
# images.sh [pause|test|project|dyn|all]... [--import]: build the test
# cluster's images as OCI archives in build/cluster/images/ (no registry)
# and, with --import and the cluster up, import them into its containerd.
#   pause.oci.tar    localhost/pause:3.4.1 (build/pause/linux/pause.c of the
#                    Kubernetes tree, static)
#   test.oci.tar     localhost/storagebench-test:1 (tests/cluster/images/sbtest.c, static)
#   project.oci.tar  localhost/storagebench:$(cat VERSION): the project's
#                    image exactly as `make image` builds it
#                    (build/image/storagebench-$VERSION.oci.tar, linked here;
#                    scripts/build-image.sh), so the chart and every pod of
#                    the suite run what is shipped
#   dyn.oci.tar      localhost/storagebench-dyn:$(cat VERSION), test only:
#                    the same runner sources linked against the shared
#                    libraries (the Makefile's build/rel/bin/storagebench-runner,
#                    stripped), their ldd closure, CA bundle, user 65532
#                    (mkoci.py dyn). The clock fault (fault.sh clock) shifts
#                    only dynamically linked programs: the product's static
#                    runner ignores the preload, this one does not
# pause and test are rebuilt only when their source changed; project runs
# make image and dyn makes its runner (each rebuilt when its sources
# changed, the archive packed again: seconds). Default: all.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=tests/cluster/lib.sh
. "$here/lib.sh"

what=() import=0
for a in "$@"; do
	case "$a" in
	--import) import=1 ;;
	pause | test | project | dyn) what+=("$a") ;;
	all) what+=(pause test project dyn) ;;
	*) echo "usage: $0 [pause|test|project|dyn|all]... [--import]" >&2; exit 2 ;;
	esac
done
[ ${#what[@]} -gt 0 ] || what=(pause test project dyn)
img=$SB_OUT/images
mkdir -p "$img"

newer() { # newer OUT SRC...: OUT missing or older than a SRC
	local o=$1 s
	shift
	[ -f "$o" ] || return 0
	for s in "$@"; do [ "$s" -nt "$o" ] && return 0; done
	return 1
}

for w in "${what[@]}"; do
	case "$w" in
	pause)
		src=$SB_KBIN/pause.c
		[ -f "$src" ] || sb_die "$src missing: run scripts/get-kube.sh"
		if newer "$img/pause.oci.tar" "$src" "$here/mkoci.py" "$SB_ROOT/scripts/ocilayout.py"; then
			gcc -Os -Wall -static -DVERSION=v3.4.1 -o "$img/pause" "$src"
			strip "$img/pause"
			/usr/bin/python3 "$here/mkoci.py" pause "$img/pause.oci.tar" "$img/pause" >/dev/null
			sb_step "built $SB_PAUSE_IMAGE"
		fi
		;;
	test)
		src=$here/images/sbtest.c
		if newer "$img/test.oci.tar" "$src" "$here/mkoci.py" "$SB_ROOT/scripts/ocilayout.py"; then
			gcc -Os -Wall -Wextra -static -o "$img/sbtest" "$src"
			strip "$img/sbtest"
			/usr/bin/python3 "$here/mkoci.py" test "$img/test.oci.tar" "$img/sbtest" >/dev/null
			sb_step "built $SB_TEST_IMAGE"
		fi
		;;
	project)
		archive=$SB_ROOT/build/image/storagebench-$SB_VERSION.oci.tar
		if ! make -C "$SB_ROOT" --no-print-directory -j2 image >"$img/project.log" 2>&1; then
			tail -n 20 "$img/project.log" >&2
			sb_die "make image failed (the log: $img/project.log)"
		fi
		ln -f "$archive" "$img/project.oci.tar" 2>/dev/null || cp "$archive" "$img/project.oci.tar"
		sb_step "$SB_IMAGE: make image's $(basename "$archive") ($(grep -o 'linux/amd64: .*' "$img/project.log" | head -n 1))"
		;;
	dyn)
		runner=build/rel/bin/storagebench-runner
		if ! make -C "$SB_ROOT" --no-print-directory -j2 "$runner" >"$img/dyn.log" 2>&1; then
			tail -n 20 "$img/dyn.log" >&2
			sb_die "make $runner failed (the log: $img/dyn.log)"
		fi
		strip -o "$img/storagebench-runner-dyn" "$SB_ROOT/$runner"
		/usr/bin/python3 "$here/mkoci.py" dyn "$img/dyn.oci.tar" "$SB_VERSION" "$img/storagebench-runner-dyn" \
			>>"$img/dyn.log" || sb_die "mkoci.py dyn failed"
		sb_step "$SB_DYN_IMAGE: $runner, dynamically linked ($(($(stat -c %s "$img/dyn.oci.tar") / 1000000)) MB, test only)"
		;;
	esac
done

if [ $import = 1 ]; then
	if [ "$(sb_up_state)" != up ]; then
		sb_step "the cluster is not up: images will be imported by cluster-up"
		exit 0
	fi
	for l in "${SB_LETTERS[@]}"; do
		for w in "${what[@]}"; do
			sb_ctr -n "$l" images import "$img/$w.oci.tar" >/dev/null || sb_die "ctr import $w.oci.tar into node $l failed"
		done
	done
	sb_step "imported into every node's containerd (${SB_LETTERS[*]}): ${what[*]}"
fi
