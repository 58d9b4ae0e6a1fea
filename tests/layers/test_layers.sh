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

# The shipped binaries (the runner, the controller, the plugin) are static
# (the Makefile's static_bin: -static-pie,
# every library linked in) with libcurl and libmicrohttpd built from
# Debian's sources with only what they use (scripts/get-minlibs.sh): no
# program interpreter, no shared library, a PIE with packed relative
# relocations; a plain dynamic link of a stub is the control. Each links
# only its own layers' libraries (the runner has no libmicrohttpd, the
# controller's code is the control), none of the libraries Debian's libcurl
# pulls in (Debian's libcurl.so is the control), and the runner's curl has
# AWS SigV4, which its S3 client signs with.
unused='^(gnutls_|ldap_|ber_|gss_|krb5_|libssh2_|ssh_|RTMP_|idn2_|psl_|BrotliDecoder|ZSTD_|sasl_)'
static_bins=(bin/storagebench-runner bin/storagebench-controller bin/kubectl-storagebench)
have_bins=1
for b in "${static_bins[@]}"; do [ -x "$b" ] || have_bins=0; done
if [ $have_bins = 1 ] && cc -o "$tmp/dynamic" tests/layers/main_stub.c >"$tmp/out" 2>&1; then
	for b in "${static_bins[@]}" "$tmp/dynamic"; do
		readelf -lW "$b" | grep -c 'INTERP' || true
		readelf -d "$b" | grep -c '(NEEDED)' || true
	done >"$tmp/counts" 2>&1
	if [ "$(paste -sd' ' "$tmp/counts")" = "0 0 0 0 0 0 1 1" ]; then
		ok "the runner, the controller and the plugin are static (no loader, no shared library; a dynamic stub is: control)"
	else
		readelf -lWd "${static_bins[@]}" 2>&1 | grep -E 'INTERP|NEEDED|File:' >"$tmp/out"
		bad "the runner, the controller and the plugin are static (no loader, no shared library; a dynamic stub is: control)"
	fi
	relr=0
	for b in "${static_bins[@]}"; do
		readelf -d "$b" >"$tmp/out" 2>&1 && grep -q '(FLAGS_1).*PIE' "$tmp/out" && grep -q '(RELR) ' "$tmp/out" ||
			relr=1
	done
	if [ $relr = 0 ]; then
		ok "the three binaries are PIEs with packed relative relocations (DT_RELR)"
	else
		bad "the three binaries are PIEs with packed relative relocations (DT_RELR)"
	fi
	nm bin/storagebench-runner >"$tmp/runner.nm" 2>&1
	nm bin/storagebench-controller >"$tmp/controller.nm" 2>&1
	if grep -q ' MHD_start_daemon$' "$tmp/runner.nm"; then
		echo "MHD_start_daemon in bin/storagebench-runner" >"$tmp/out"
		bad "the runner does not link libmicrohttpd (the controller does: control)"
	elif grep -q ' T MHD_start_daemon$' "$tmp/controller.nm"; then
		ok "the runner does not link libmicrohttpd (the controller does: control)"
	else
		echo "no MHD_start_daemon in bin/storagebench-controller" >"$tmp/out"
		bad "the runner does not link libmicrohttpd (the controller does: control)"
	fi
	debian_curl=$(pkg-config --variable=libdir libcurl)/libcurl.so
	awk '{print $NF}' "$tmp/runner.nm" "$tmp/controller.nm" | grep -E "$unused" | sort -u | head -n 5 >"$tmp/out"
	if [ -s "$tmp/out" ]; then
		bad "the binaries hold none of the libraries they do not use"
	elif nm -D "$debian_curl" >"$tmp/debian.nm" 2>&1 && awk '{sub(/@.*/, "", $NF); print $NF}' "$tmp/debian.nm" |
		grep -E "$unused" >"$tmp/hit" && grep -qE '^ldap_' "$tmp/hit" && grep -qE '^gss_' "$tmp/hit"; then
		ok "the binaries hold none of the libraries they do not use (Debian's libcurl calls LDAP and GSSAPI: control)"
	else
		echo "no ldap_/gss_ symbol in $debian_curl" >"$tmp/out"
		bad "the binaries hold none of the libraries they do not use (Debian's libcurl calls LDAP and GSSAPI: control)"
	fi
	if grep -q ' Curl_output_aws_sigv4$' "$tmp/runner.nm"; then
		ok "the runner's curl signs AWS SigV4 (its S3 client)"
	else
		echo "no Curl_output_aws_sigv4 in bin/storagebench-runner" >"$tmp/out"
		bad "the runner's curl signs AWS SigV4 (its S3 client)"
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
	[ $have_bins = 1 ] || echo "a binary of ${static_bins[*]} is missing (make all)" >"$tmp/out"
	bad "the shipped binaries link statically"
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
