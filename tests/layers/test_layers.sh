#!/usr/bin/env bash
# The layers' rule fails the build when broken (docs/architecture.md
# "Layers"): `make layer-check` passes on the tree; a wrong-direction include
# planted in lib/ code does not compile while the same file compiles with a
# binary's include path; a wrong-direction call planted in the core layer is
# an undefined reference while the same object in the runner's layer links;
# no function is over 120 lines (scripts/funclen.py) and a planted one fails.
# Prints one line per case and "N passed, N failed, N skipped".
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
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
elif grep -q 'runner/io/run.h' "$tmp/out"; then
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

# The shipped controller links libcurl and libmicrohttpd built from Debian's
# sources with only what it uses (scripts/get-minlibs.sh): neither library is
# a shared dependency, nothing loads the libraries Debian's builds pull in,
# and its curl has what the Kubernetes client needs (--version prints
# curl_version_info). The runner keeps Debian's libcurl: the same check
# finds them there (control).
unused='libgnutls|libp11-kit|libldap|liblber|libsasl2|libgssapi|libkrb5|libk5crypto|libssh2?\.|librtmp|libidn2|libpsl|libbrotli|libzstd|libnettle|libhogweed|libtasn1|libunistring'
if [ -x bin/storagebench-controller ] && [ -x bin/storagebench-runner ]; then
	if ! readelf -d bin/storagebench-controller >"$tmp/out" 2>&1; then
		bad "the controller does not need libcurl or libmicrohttpd as shared libraries"
	elif grep -E '\(NEEDED\).*\[lib(curl|microhttpd)' "$tmp/out" >"$tmp/hit"; then
		cp "$tmp/hit" "$tmp/out"
		bad "the controller does not need libcurl or libmicrohttpd as shared libraries"
	else
		ok "the controller does not need libcurl or libmicrohttpd as shared libraries"
	fi
	if readelf -d bin/storagebench-controller >"$tmp/out" 2>&1 && grep -q '(FLAGS_1).*PIE' "$tmp/out" &&
		grep -q '(RELR) ' "$tmp/out"; then
		ok "the controller is a PIE with packed relative relocations (DT_RELR)"
	else
		bad "the controller is a PIE with packed relative relocations (DT_RELR)"
	fi
	# glibc too is linked in (-static-pie): no program interpreter, no
	# shared library; the runner (dynamic) is the control
	if readelf -lW bin/storagebench-controller >"$tmp/out" 2>&1 && ! grep -q 'INTERP' "$tmp/out" &&
		readelf -d bin/storagebench-controller >"$tmp/out" 2>&1 && ! grep -q '(NEEDED)' "$tmp/out" &&
		readelf -lW bin/storagebench-runner >"$tmp/out" 2>&1 && grep -q 'INTERP' "$tmp/out" &&
		readelf -d bin/storagebench-runner >"$tmp/out" 2>&1 && grep -q '(NEEDED).*\[libc\.so' "$tmp/out"; then
		ok "the controller is static (no loader, no shared library; the runner is not: control)"
	else
		readelf -lWd bin/storagebench-controller 2>&1 | grep -E 'INTERP|NEEDED' >"$tmp/out"
		bad "the controller is static (no loader, no shared library; the runner is not: control)"
	fi
	if ! ldd bin/storagebench-controller >"$tmp/out" 2>&1; then
		bad "the controller loads none of the libraries it does not use"
	elif grep -E "$unused" "$tmp/out" >"$tmp/hit"; then
		cp "$tmp/hit" "$tmp/out"
		bad "the controller loads none of the libraries it does not use"
	else
		ok "the controller loads none of the libraries it does not use"
	fi
	if ldd bin/storagebench-runner >"$tmp/out" 2>&1 && grep -qE 'libgnutls' "$tmp/out" &&
		grep -qE 'libldap' "$tmp/out"; then
		ok "the runner (Debian's libcurl) loads GnuTLS and LDAP: the check sees them (control)"
	else
		bad "the runner (Debian's libcurl) loads GnuTLS and LDAP: the check sees them (control)"
	fi
	if ! bin/storagebench-controller --version >"$tmp/out" 2>&1; then
		bad "the controller's curl: OpenSSL, HTTP/2, zlib, HTTP and HTTPS only"
	elif grep -qE '^libcurl [0-9.]+ ssl=OpenSSL/[0-9.]+ http2=nghttp2/[0-9.]+ zlib=[0-9.]+ protocols=http,https$' "$tmp/out" &&
		grep -qE '^libmicrohttpd [0-9.]+$' "$tmp/out"; then
		ok "the controller's curl: OpenSSL, HTTP/2, zlib, HTTP and HTTPS only"
	else
		bad "the controller's curl: OpenSSL, HTTP/2, zlib, HTTP and HTTPS only"
	fi
	# curl's error texts are kept (CURL_DISABLE_VERBOSE_STRINGS would make
	# every one "Error"): a refused connection on loopback is named
	timeout 60 bin/storagebench-controller --kubeconfig=tests/fixtures/kubeconfig-refused.yaml --metrics-bind-address=0 >"$tmp/out" 2>&1
	if grep -q "transport error (curl: Failed to connect to 127.0.0.1 port 1 .*: Couldn't connect to server)" "$tmp/out"; then
		ok "the controller's curl names a transport error (refused connection)"
	else
		bad "the controller's curl names a transport error (refused connection)"
	fi
else
	echo "bin/storagebench-controller or bin/storagebench-runner missing (make all)" >"$tmp/out"
	bad "the controller links the minimal libcurl and libmicrohttpd"
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
