#!/usr/bin/env bash
# The layers' rule fails the build when broken (docs/architecture.md
# "Layers"): `make layer-check` passes on the tree; a wrong-direction include
# planted in lib/ code does not compile while the same file compiles with a
# binary's include path; a wrong-direction call planted in the core layer is
# an undefined reference while the same object in the runner's layer links.
# Prints one line per case and "N passed, N failed, N skipped".
set -uo pipefail
cd "$(dirname "$0")/../.."
MAKE=${MAKE:-make}
p=0 f=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp" build/layer-probe build/rel/tests/layers/planted_include.o' EXIT
ok() { echo "PASS $1"; p=$((p + 1)); }
bad() {
	echo "FAIL $1"
	sed 's/^/    /' "$tmp/out" | tail -n 20
	f=$((f + 1))
}
m() { $MAKE -s --no-print-directory "$@" >"$tmp/out" 2>&1; }

if m layer-check LAYER_CHECK_DIR="$tmp/clean"; then
	ok "layer-check passes on the tree"
else
	bad "layer-check passes on the tree"
fi

# planted include: lib/'s include path does not reach runner/
if m build/layer-probe/planted_include.o; then
	bad "an include of runner/ from lib/ code compiled"
elif grep -q 'runner/run.h' "$tmp/out"; then
	ok "an include of runner/ from lib/ code fails to compile"
else
	bad "an include of runner/ from lib/ code failed, but not on the include"
fi
if m build/rel/tests/layers/planted_include.o; then
	ok "the same include compiles with the binaries' include path (control)"
else
	bad "the same include compiles with the binaries' include path (control)"
fi

# planted call: core may use nothing, the runner may use fiojob
if ! m build/layer-probe/planted_call.o; then
	bad "the planted call compiles as lib/ code"
else
	if m layer-check LAYER_CHECK_DIR="$tmp/core" LAYER_PLANT_core=build/layer-probe/planted_call.o; then
		bad "a call from core into fiojob linked"
	elif grep -q "undefined reference to .sb_job_opts_init" "$tmp/out"; then
		ok "a call from core into fiojob is an undefined reference"
	else
		bad "a call from core into fiojob failed, but not on the call"
	fi
	if m layer-check LAYER_CHECK_DIR="$tmp/runner" LAYER_PLANT_runner=build/layer-probe/planted_call.o; then
		ok "the same call from the runner's layer links (control)"
	else
		bad "the same call from the runner's layer links (control)"
	fi
fi

# the binaries link only their own system libraries
if [ -x bin/storagebench-runner ]; then
	if readelf -d bin/storagebench-runner | grep -q 'libmicrohttpd'; then
		echo "libmicrohttpd" >"$tmp/out"
		bad "the runner does not link libmicrohttpd"
	else
		ok "the runner does not link libmicrohttpd"
	fi
else
	echo "bin/storagebench-runner missing (make all)" >"$tmp/out"
	bad "the runner does not link libmicrohttpd"
fi

echo "$p passed, $f failed, 0 skipped"
[ $f -eq 0 ]
