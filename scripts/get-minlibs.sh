#!/usr/bin/env bash
# get-minlibs.sh: libcurl and libmicrohttpd for the shipped binaries
# (bin/storagebench-controller links both, bin/storagebench-runner libcurl),
# built as static archives from Debian 12's `curl` and `libmicrohttpd`
# source packages (Debian's patches, its security fixes among them, applied)
# with only what the binaries use, once, and cached outside the checkout
# (docs/benchmarks.md "The libraries' floor"), for the machine (amd64) or,
# with --arch=arm64, cross-built for arm64 (the image's second platform,
# scripts/build-image.sh):
#
#   $SB_MINLIBS_CACHE (default /var/cache/storagebench/minlibs-<curl>-<mhd>-<rev>
#   [-arm64]: the Debian versions of libcurl4-openssl-dev and
#   libmicrohttpd-dev, whose headers the project compiles with, and the
#   recipe's revision REV, so that trees of two recipes never rebuild each
#   other's archives)/
#     lib/libcurl.a, lib/libmicrohttpd.a and .stamp (the recipe they were built with)
#     include/    arm64: the two libraries' headers as built
#     sysroot/    arm64: Debian's arm64 -dev packages of the libraries the
#                 binaries link statically (SYSROOT_PKGS: OpenSSL, nghttp2,
#                 zlib, jansson, libyaml, liburing), unpacked with their
#                 static archives only (no .so), .versions names them
#     apt/        deb-src lists derived from the machine's apt sources (scripts/debsrc.sh)
#     apt-arm64/  arm64: the arm64 package lists of the same sources (the
#                 machine's dpkg gets no foreign architecture)
#     dl/         the downloaded source and arm64 packages
#     build.log   full output of the last build
#
# Debian's libcurl4 and libmicrohttpd12 link GnuTLS, Kerberos, LDAP, SASL,
# libssh2, librtmp, libidn2, libpsl, brotli and zstd: 3.6 MiB of resident
# pages in a process that uses none of them, and Kerberos and LDAP have no
# static archives in Debian. Here:
#   curl: HTTP and HTTPS only, OpenSSL, HTTP/2 (nghttp2: the Kubernetes
#     client asks for CURL_HTTP_VERSION_2TLS), zlib (CURLOPT_ACCEPT_ENCODING),
#     the threaded resolver, proxies and basic auth as Debian has them, AWS
#     SigV4 (the runner's S3 client: CURLOPT_AWS_SIGV4, which curl 7.88
#     builds with its "crypto auth", digest auth with it); no other
#     protocol, no LDAP, RTMP, SSH, GSSAPI, IDN, PSL, brotli, zstd, NTLM,
#     cookies, MIME, DoH, HSTS, alt-svc;
#   libmicrohttpd: plain HTTP (controller/serve/httpd.c serves /metrics and the
#     probes without TLS), no GnuTLS, post processor, basic/digest auth,
#     HTTP upgrade or messages.
# Both with Debian's hardening flags (dpkg-buildflags) plus -fPIC
# -ffunction-sections -fdata-sections (the binaries link with
# --gc-sections), no debug information.
#
# Idempotent: when the archives match the recipe it exits at once. Two
# concurrent runs serialise on a lock; the second finds the cache filled.
# Exit status: 0 built or cached; 2 a Debian package the build needs is
# missing and this is not root; 3 a download (apt) failed; 1 a build failed.
# Usage: scripts/get-minlibs.sh [--arch=amd64|arm64] [--print-dir] [--print-libs] [--print-cflags] [--quiet]
#   --print-dir     the cache directory (nothing is built)
#   --print-libs    build if needed, then print the link flags that find the
#                   static archives (-L...; the Makefile names them -l:libX.a)
#   --print-cflags  build if needed, then print the compiler flags that find
#                   the headers (arm64: the built and the sysroot's; amd64:
#                   nothing, the machine's -dev packages)
set -eEuo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=scripts/debsrc.sh
. "$here/debsrc.sh"

# What the build needs (scripts/deps/build.list lists them; arm64.list the
# cross compiler).
NEEDS=(dpkg-dev make gcc pkg-config libssl-dev libnghttp2-dev zlib1g-dev libcurl4-openssl-dev libmicrohttpd-dev)
NEEDS_arm64=(gcc-aarch64-linux-gnu libc6-dev-arm64-cross)
# arm64: Debian's -dev packages whose static archives and headers the
# cross-built curl and the binaries link (scripts/deps/sysroot/arm64.list)
SYSROOT_LIST=$here/deps/sysroot/arm64.list
CURL_CONF=(--disable-shared --enable-static --with-pic --disable-dependency-tracking
	--enable-symbol-hiding --enable-threaded-resolver --with-openssl --with-nghttp2 --with-zlib
	--with-ca-bundle=/etc/ssl/certs/ca-certificates.crt --with-ca-path=/etc/ssl/certs
	--without-brotli --without-zstd --without-libpsl --without-libidn2 --without-librtmp
	--without-libssh2 --without-libssh --without-wolfssh --without-gssapi --without-hyper
	--without-ngtcp2 --without-nghttp3 --without-quiche --without-msh3 --without-libgsasl
	--without-zsh-functions-dir --without-fish-functions-dir
	--disable-ldap --disable-ldaps --disable-rtsp --disable-dict --disable-telnet --disable-tftp
	--disable-pop3 --disable-imap --disable-smb --disable-smtp --disable-gopher --disable-mqtt
	--disable-ftp --disable-file --disable-manual --disable-libcurl-option
	--disable-ntlm --disable-ntlm-wb --disable-tls-srp --disable-unix-sockets --disable-cookies
	--disable-doh --disable-mime --disable-netrc --disable-progress-meter --disable-alt-svc
	--disable-hsts --disable-websockets --disable-get-easy-options)
MHD_CONF=(--disable-shared --enable-static --with-pic --disable-dependency-tracking
	--disable-https --without-gnutls --disable-curl --disable-doc --disable-examples
	--disable-nls --disable-postprocessor --disable-bauth --disable-dauth --disable-httpupgrade
	--disable-messages --disable-heavy-tests)
# Bump it when the recipe changes: the archives are built anew in a cache of their own.
REV=r2
# Symbols of the libraries left out: neither archive may call any of them.
FORBIDDEN='^(gnutls_|ldap_|ber_|gss_|krb5_|libssh2_|ssh_|RTMP_|idn2_|psl_|BrotliDecoder|ZSTD_|sasl_)'

quiet=0
action=build
arch=amd64
for a in "$@"; do
	case "$a" in
	--arch=amd64 | --arch=arm64) arch=${a#--arch=} ;;
	--print-dir) action=dir ;;
	--print-libs) action=libs ;;
	--print-cflags) action=cflags ;;
	--quiet) quiet=1 ;;
	*) echo "usage: $0 [--arch=amd64|arm64] [--print-dir] [--print-libs] [--print-cflags] [--quiet]" >&2; exit 2 ;;
	esac
done
[ "$(dpkg --print-architecture)" = amd64 ] || [ "$arch" = "$(dpkg --print-architecture)" ] ||
	{ echo "get-minlibs: the cross build is from amd64 only" >&2; exit 2; }
# The toolchain of the target: the machine's, or Debian's cross compiler.
if [ "$arch" = arm64 ]; then
	TRIPLET=aarch64-linux-gnu
	CROSS=$TRIPLET-
	NEEDS+=("${NEEDS_arm64[@]}")
else
	TRIPLET=$(gcc -dumpmachine 2>/dev/null || echo x86_64-linux-gnu)
	CROSS=
fi

T0=$(date +%s)
step() { [ "$quiet" = 1 ] || printf 'get-minlibs: [%4ds] %s\n' "$(($(date +%s) - T0))" "$*" >&2; }
die() { printf 'get-minlibs: [%4ds] error: %s\n' "$(($(date +%s) - T0))" "$1" >&2; exit "${2:-1}"; }
trap 'die "line $LINENO of $0 failed${LOG:+, see $LOG}" 1' ERR

debver() { dpkg-query -W -f='${Version}' "$1" 2>/dev/null || true; }
# the packages of the arm64 sysroot, one a line
sysroot_pkgs() { sed -e 's/#.*//' -e 's/[[:space:]]//g' "$SYSROOT_LIST" | grep -v '^$'; }

# where: CACHE, RECIPE, LOG from the installed -dev packages' versions
where() {
	CURL_DEB=$(debver libcurl4-openssl-dev)
	MHD_DEB=$(debver libmicrohttpd-dev)
	local suffix=-$REV
	[ "$arch" = amd64 ] || suffix+=-$arch
	CACHE=${SB_MINLIBS_CACHE:-/var/cache/storagebench/minlibs-${CURL_DEB:-none}-${MHD_DEB:-none}$suffix}
	RECIPE="arch=$arch curl=$CURL_DEB ${CURL_CONF[*]} mhd=$MHD_DEB ${MHD_CONF[*]} $REV"
	[ "$arch" = amd64 ] || RECIPE+=" sysroot=$(sysroot_pkgs | paste -sd, -)"
	SYSROOT=$CACHE/sysroot
	LOG=$CACHE/build.log
}

libs() {
	if [ "$arch" = amd64 ]; then
		echo "-L$CACHE/lib"
	else
		echo "-L$CACHE/lib -L$SYSROOT/usr/lib/$TRIPLET"
	fi
}
cflags() {
	[ "$arch" = amd64 ] ||
		echo "-isystem $CACHE/include -isystem $SYSROOT/usr/include/$TRIPLET -isystem $SYSROOT/usr/include"
}
cached() {
	[ -f "$CACHE/lib/.stamp" ] && [ "$(cat "$CACHE/lib/.stamp")" = "$RECIPE" ] &&
		[ -f "$CACHE/lib/libcurl.a" ] && [ -f "$CACHE/lib/libmicrohttpd.a" ]
}

ensure_packages() {
	local missing=() p
	mapfile -t missing < <(comm -23 <(printf '%s\n' "${NEEDS[@]}" | sort -u) \
		<(dpkg-query -W -f='${Package} ${db:Status-Status}\n' "${NEEDS[@]}" 2>/dev/null |
			awk '$2 == "installed" {sub(/:.*/, "", $1); print $1}' | sort -u))
	[ ${#missing[@]} -eq 0 ] && return 0
	[ "$(id -u)" -eq 0 ] || die "missing Debian packages ${missing[*]}: run scripts/install-deps.sh as root (make deps)" 2
	step "installing from Debian: ${missing[*]}"
	local log
	log=$(mktemp)
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -q >>"$log" 2>&1 || true
	if ! apt-get install -y -q --no-install-recommends "${missing[@]}" >>"$log" 2>&1; then
		tail -n 5 "$log" >&2
		rm -f "$log"
		die "apt-get install ${missing[*]} failed (archive unreachable?)" 3
	fi
	rm -f "$log"
}

# fetch SOURCE VERSION: the source package of exactly the installed -dev
# package's version into dl/ (the headers the project compiles with)
fetch() {
	local dsc="$CACHE/dl/${1}_${2#*:}.dsc"
	[ -f "$dsc" ] && return 0
	if [ ! -f "$CACHE/apt/.updated" ]; then
		step "apt-get update (deb-src lists derived from the machine's sources, under $CACHE/apt)"
		debsrc_update "$CACHE/apt" "$LOG" || die "no Debian apt sources found to derive deb-src entries from" 3
		touch "$CACHE/apt/.updated"
	fi
	step "apt-get source --download-only $1=$2"
	debsrc_download "$CACHE/apt" "$LOG" "$CACHE/dl" "$1=$2" ||
		die "apt-get source $1=$2 failed (archive unreachable, or the version is gone: upgrade the -dev package), see $LOG" 3
	[ -f "$dsc" ] || die "apt-get source $1=$2 brought no $dsc" 1
}

# sysroot: Debian's arm64 -dev packages of SYSROOT_LIST, downloaded with
# apt's own client from the machine's Debian sources (binary entries for
# arm64 in a private directory: nothing under /etc or /var/lib/dpkg is
# changed) and unpacked into $SYSROOT with their static archives only
sysroot() {
	local dir=$CACHE/apt-$arch pkgs=() p
	mapfile -t pkgs < <(sysroot_pkgs)
	mkdir -p "$dir/lists/partial" "$dir/cache/archives/partial" "$dir/parts" "$CACHE/dl/$arch"
	step "apt-get update (the $arch lists of the machine's Debian sources, under $dir)"
	debsrc_derive | sed 's/^deb-src /deb /' >"$dir/parts/debian.list"
	[ -s "$dir/parts/debian.list" ] || die "no Debian apt sources found to derive $arch entries from" 3
	debsrc_apt_opts "$dir"
	local opts=("${debsrc_opts[@]}" -o APT::Architecture="$arch" -o APT::Architectures::="$arch"
		-o Dir::State::status=/dev/null)
	apt-get "${opts[@]}" update -q >>"$LOG" 2>&1 || die "apt-get update of the $arch lists failed, see $LOG" 3
	rm -f "$CACHE/dl/$arch/"*.deb
	step "apt-get download ${pkgs[*]} ($arch)"
	(cd "$CACHE/dl/$arch" && apt-get "${opts[@]}" download "${pkgs[@]/%/:$arch}") >>"$LOG" 2>&1 ||
		die "apt-get download of the $arch packages failed (archive unreachable?), see $LOG" 3
	rm -rf "$SYSROOT.new"
	mkdir -p "$SYSROOT.new"
	for p in "$CACHE/dl/$arch/"*.deb; do
		dpkg-deb -x "$p" "$SYSROOT.new"
		dpkg-deb -f "$p" Package Version | paste -sd' ' - | sed 's/^Package: //; s/ Version: /=/' >>"$SYSROOT.new/.versions"
	done
	# static archives only: a link can never pick a shared library of these
	find "$SYSROOT.new" -name '*.so' -delete
	for p in libssl.a libcrypto.a libnghttp2.a libz.a libjansson.a libyaml.a liburing.a; do
		[ -f "$SYSROOT.new/usr/lib/$TRIPLET/$p" ] || die "the $arch sysroot has no $p (scripts/deps/sysroot/arm64.list)" 1
	done
	rm -rf "$SYSROOT"
	mv "$SYSROOT.new" "$SYSROOT"
}

# unpack SOURCE VERSION DIR: dpkg-source -x (Debian's patches applied)
unpack() {
	rm -rf "$3"
	dpkg-source -q -x "$CACHE/dl/${1}_${2#*:}.dsc" "$3" >>"$LOG" 2>&1 || die "dpkg-source -x $1 failed, see $LOG" 1
}

# run DIR WHAT CMD...: CMD in DIR, output in the log, a failure named
run() {
	local dir=$1 what=$2
	shift 2
	echo "--- $what: $*" >>"$LOG"
	(cd "$dir" && "$@") >>"$LOG" 2>&1 || die "$what failed (in $dir), see $LOG" 1
}

curl_version_of() {
	sed -n 's/^#define LIBCURL_VERSION "\(.*\)"/\1/p' "$1" 2>/dev/null || true
}

# configure DIR WHAT ARGS...: ./configure for the target (a cross build
# finds its libraries in the sysroot through pkg-config and -I/-L)
configure() {
	local dir=$1 what=$2
	shift 2
	if [ "$arch" = amd64 ]; then
		run "$dir" "$what" ./configure "$@" CFLAGS="$CFLAGS" CPPFLAGS="$CPPFLAGS"
		return
	fi
	run "$dir" "$what" env PKG_CONFIG_LIBDIR="$SYSROOT/usr/lib/$TRIPLET/pkgconfig:$SYSROOT/usr/share/pkgconfig" \
		PKG_CONFIG_SYSROOT_DIR="$SYSROOT" PKG_CONFIG=pkg-config \
		./configure --host="$TRIPLET" "$@" CC="${CROSS}gcc" AR="${CROSS}ar" RANLIB="${CROSS}ranlib" \
		CFLAGS="$CFLAGS" CPPFLAGS="$CPPFLAGS -I$SYSROOT/usr/include/$TRIPLET -I$SYSROOT/usr/include" \
		LDFLAGS="-L$SYSROOT/usr/lib/$TRIPLET"
}

build_curl() {
	local src=$CACHE/src/curl
	unpack curl "$CURL_DEB" "$src"
	# Debian's series ends with the patches that make its GnuTLS and NSS
	# flavours (debian/rules pops them for the OpenSSL one): undo them too.
	local p
	for p in 99_nss.patch 90_gnutls.patch; do
		grep -qx "$p" "$src/debian/patches/series" || die "curl's series has no $p: the recipe needs a look" 1
		run "$src" "patch -R $p" patch -R -p1 -s -i "debian/patches/$p"
	done
	step "configure curl $CURL_DEB for $arch (HTTP/HTTPS, OpenSSL, nghttp2, zlib, SigV4)"
	configure "$src" "curl's configure" "${CURL_CONF[@]}"
	step "make curl's lib ($arch)"
	run "$src/lib" "curl's make" make -j2 libcurl.la
	cp "$src/lib/.libs/libcurl.a" "$CACHE/lib.new/"
	local want have
	want=$(curl_version_of "$(pkg-config --variable=includedir libcurl)/curl/curlver.h")
	have=$(curl_version_of "$src/include/curl/curlver.h")
	[ "$want" = "$have" ] || die "the built curl is $have, the headers the project compiles with say $want" 1
	if [ "$arch" != amd64 ]; then
		mkdir -p "$CACHE/include.new/curl"
		cp "$src/include/curl/"*.h "$CACHE/include.new/curl/"
	fi
}

build_mhd() {
	local src=$CACHE/src/libmicrohttpd
	unpack libmicrohttpd "$MHD_DEB" "$src"
	step "configure libmicrohttpd $MHD_DEB for $arch (plain HTTP)"
	configure "$src" "libmicrohttpd's configure" "${MHD_CONF[@]}"
	step "make libmicrohttpd ($arch)"
	run "$src/src/microhttpd" "libmicrohttpd's make" make -j2 libmicrohttpd.la
	cp "$src/src/microhttpd/.libs/libmicrohttpd.a" "$CACHE/lib.new/"
	if [ "$arch" != amd64 ]; then
		mkdir -p "$CACHE/include.new"
		cp "$src/src/include/microhttpd.h" "$CACHE/include.new/"
	fi
}

# The archives call nothing of the libraries left out, and have what the
# binaries need (OpenSSL, nghttp2, zlib, SigV4 in curl).
check_archives() {
	local a bad sym
	for a in libcurl.a libmicrohttpd.a; do
		"${CROSS}nm" -u "$CACHE/lib.new/$a" | awk '{print $2}' | sort -u >"$CACHE/lib.new/$a.undef"
		bad=$(grep -E "$FORBIDDEN" "$CACHE/lib.new/$a.undef" | head -n 5 | paste -sd' ' || true)
		[ -z "$bad" ] || die "$a calls libraries left out: $bad" 1
	done
	for sym in SSL_CTX_new nghttp2_session_callbacks_new inflateInit2_; do
		grep -qx "$sym" "$CACHE/lib.new/libcurl.a.undef" || die "libcurl.a does not call $sym: built without what the client needs" 1
	done
	"${CROSS}nm" --defined-only "$CACHE/lib.new/libcurl.a" >"$CACHE/lib.new/libcurl.a.undef.def" 2>/dev/null
	grep -q ' Curl_output_aws_sigv4$' "$CACHE/lib.new/libcurl.a.undef.def" ||
		die "libcurl.a has no AWS SigV4 (Curl_output_aws_sigv4): the runner's S3 client needs it" 1
	if grep -qE '^(gnutls|gcry)_' "$CACHE/lib.new/libmicrohttpd.a.undef"; then
		die "libmicrohttpd.a calls GnuTLS" 1
	fi
	rm -f "$CACHE/lib.new/"*.undef
}

build() {
	fetch curl "$CURL_DEB"
	fetch libmicrohttpd "$MHD_DEB"
	[ "$arch" = amd64 ] || sysroot
	CFLAGS="$(DEB_HOST_ARCH=$arch dpkg-buildflags --get CFLAGS | sed -E 's/(^| )-g( |$)/ /') -fPIC -ffunction-sections -fdata-sections"
	CPPFLAGS=$(DEB_HOST_ARCH=$arch dpkg-buildflags --get CPPFLAGS)
	rm -rf "$CACHE/lib.new" "$CACHE/include.new"
	mkdir -p "$CACHE/lib.new" "$CACHE/src"
	# the two builds side by side (each configure is one process), a log each
	local rc_curl=0 rc_mhd=0 pid_curl
	: >"$CACHE/build-curl.log"
	: >"$CACHE/build-libmicrohttpd.log"
	LOG=$CACHE/build-curl.log build_curl &
	pid_curl=$!
	LOG=$CACHE/build-libmicrohttpd.log build_mhd &
	wait $! || rc_mhd=$?
	wait "$pid_curl" || rc_curl=$?
	cat "$CACHE/build-curl.log" "$CACHE/build-libmicrohttpd.log" >>"$LOG"
	if [ "$rc_curl" -ne 0 ] || [ "$rc_mhd" -ne 0 ]; then
		die "a build failed (above), see $LOG" 1
	fi
	check_archives
	echo "$RECIPE" >"$CACHE/lib.new/.stamp"
	rm -rf "${CACHE:?}/lib" "${CACHE:?}/include" "${CACHE:?}/src"
	[ ! -d "$CACHE/include.new" ] || mv "$CACHE/include.new" "$CACHE/include"
	mv "$CACHE/lib.new" "$CACHE/lib"
}

if [ "$action" = dir ]; then
	where
	echo "$CACHE"
	exit 0
fi
ensure_packages
where
mkdir -p "$CACHE" || die "cannot create $CACHE (set SB_MINLIBS_CACHE)" 1
exec 9>"$CACHE/.lock"
if ! flock -n 9; then
	step "another get-minlibs.sh is running; waiting for it"
	flock 9
fi
if cached; then
	step "libcurl.a and libmicrohttpd.a ($arch) cached in $CACHE/lib"
else
	: >>"$LOG"
	echo "=== $(date -u +%FT%TZ) get-minlibs.sh $RECIPE" >>"$LOG"
	step "building libcurl and libmicrohttpd ($arch) from Debian's sources into $CACHE (log: $LOG)"
	build
	step "done in $(($(date +%s) - T0)) s: $(cd "$CACHE/lib" && echo libcurl.a libmicrohttpd.a) in $CACHE/lib"
fi
case "$action" in
libs) libs ;;
cflags) cflags ;;
esac
exit 0
