#!/usr/bin/env bash
# The layers' rule fails the build when broken (docs/architecture.md
# "Layers"): `make layer-check` passes on the tree; a wrong-direction include
# planted in lib/ code does not compile while the same file compiles with a
# binary's include path; a wrong-direction call planted in the core layer is
# an undefined reference while the same object in the runner's layer links;
# no function is over 120 lines (scripts/funclen.py) and a planted one fails.
# Prints one line per case and "N passed, N failed, N skipped".
set -uo pipefail
cd "$(dirname "$0")/../.."
MAKE=${MAKE:-make}
. tests/layers/cases.sh
cleanup=(build/layer-probe build/rel/tests/layers/planted_include.o)
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

# the function-length rule (scripts/funclen.py): the tree passes; a planted
# 121-line function fails naming file:line:name; 120 lines pass (control)
planted_fn() { # $1: lines brace to brace
	printf 'static int planted_long(int x)\n{\n'
	for ((i = 0; i < $1 - 3; i++)); do printf '\tx += %d;\n' "$i"; done
	printf '\treturn x;\n}\n'
}
if m funclen; then
	ok "funclen passes on the tree"
else
	bad "funclen passes on the tree"
fi
printf '/* planted */\n#include <stdio.h>\n\n' >"$tmp/long.c"
planted_fn 121 >>"$tmp/long.c"
if /usr/bin/python3 scripts/funclen.py "$tmp/long.c" >"$tmp/out" 2>&1; then
	bad "a planted 121-line function fails funclen"
elif grep -q "long.c:5:planted_long: 121 lines (over 120)" "$tmp/out"; then
	ok "a planted 121-line function fails funclen, named with file:line"
else
	bad "a planted 121-line function fails funclen, but not naming it"
fi
planted_fn 120 >"$tmp/fits.c"
if /usr/bin/python3 scripts/funclen.py "$tmp/fits.c" >"$tmp/out" 2>&1; then
	ok "a 120-line function passes funclen (control)"
else
	bad "a 120-line function passes funclen (control)"
fi

cases_done
