#!/usr/bin/env bash
# get-kube.sh: build the test cluster's Kubernetes v1.20.2 binaries
# (kube-apiserver, kube-controller-manager, kube-scheduler, kubelet,
# kube-proxy) from
# Debian 12's `kubernetes` source package with Debian's Go, once, and cache
# them outside the checkout:
#
#   $SB_KUBE_CACHE (default /var/cache/storagebench/kube-1.20.2)/
#     bin/        the five binaries + .stamp (recipe they were built with)
#     gopath/src/k8s.io/kubernetes   the source tree (GOPATH mode)
#     gocache/    Go build cache (a rebuild after a recipe change: minutes)
#     apt/        deb-src lists derived from the machine's apt sources
#     dl/         the downloaded source package
#     build.log   full output of the last build
#
# kube-proxy joined the set later: a cache whose four other binaries match
# the recipe gets kube-proxy built next to them (a minute or two with the
# Go cache), and the stamp stays what it was, so an older copy of this
# script sharing the cache sees nothing to rebuild.
#
# Idempotent: when the binaries match the recipe it only checks the Debian
# packages (scripts/deps/cluster.list) and exits in about a second. Two
# concurrent runs serialise on a lock; the second finds the cache filled.
# Nothing is written under /etc: deb-src entries are derived at run time
# from /etc/apt/sources.list{,.d/*} into apt/ and apt is pointed there
# (scripts/debsrc.sh, shared with scripts/get-minlibs.sh).
#
# The kubelet is built without any cloud provider: the credential
# provider imports (aws/azure/gcp) are removed from
# cmd/kubelet/app/plugins.go and everything is built with the
# `providerless` tag, so no component ever asks a cloud metadata address.
#
# Exit status: 0 built or cached; 3 cannot build here because a download
# (apt) failed, so the caller may skip; anything else is a real failure.
# Usage: scripts/get-kube.sh [--print-dir] [--quiet]
set -euo pipefail

KVER=1.20.2
DEBVER=1.20.5+really1.20.2-1.1+deb12u1
# Bump when the build recipe changes: the binaries are rebuilt.
RECIPE="v$KVER debian=$DEBVER providerless nocredprov nocloudinfo reflect2-1.0.2 r3"
CACHE=${SB_KUBE_CACHE:-/var/cache/storagebench/kube-$KVER}
BINS=(kubelet kube-apiserver kube-controller-manager kube-scheduler kube-proxy)
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=scripts/debsrc.sh
. "$here/debsrc.sh"
quiet=0

for a in "$@"; do
	case "$a" in
	--print-dir) echo "$CACHE"; exit 0 ;;
	--quiet) quiet=1 ;;
	*) echo "usage: $0 [--print-dir] [--quiet]" >&2; exit 2 ;;
	esac
done

T0=$(date +%s)
step() { [ "$quiet" = 1 ] || printf 'get-kube: [%4ds] %s\n' "$(($(date +%s) - T0))" "$*"; }
die() { printf 'get-kube: [%4ds] error: %s\n' "$(($(date +%s) - T0))" "$1" >&2; exit "${2:-1}"; }

stamp_ok() {
	[ -f "$CACHE/bin/.stamp" ] && [ "$(cat "$CACHE/bin/.stamp")" = "$RECIPE" ] && [ -f "$CACHE/bin/pause.c" ]
}
# missing: the binaries of BINS not in bin/ (one a line)
missing() {
	local b
	for b in "${BINS[@]}"; do [ -x "$CACHE/bin/$b" ] || echo "$b"; done
}
cached() {
	stamp_ok && [ -z "$(missing)" ]
}

# Debian packages this needs, from scripts/deps/cluster.list.
ensure_packages() {
	local wanted missing=() p st
	mapfile -t wanted < <(sed -e 's/#.*//' -e 's/[[:space:]]//g' "$here/deps/cluster.list" | grep -v '^$')
	for p in "${wanted[@]}"; do
		st=$(dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null || true)
		[ "$st" = installed ] || missing+=("$p")
	done
	[ ${#missing[@]} -eq 0 ] && return 0
	[ "$(id -u)" -eq 0 ] || die "missing packages ${missing[*]}; run as root" 1
	step "installing from Debian: ${missing[*]}"
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -q >>"$CACHE/build.log" 2>&1 || true
	apt-get install -y -q --no-install-recommends "${missing[@]}" >>"$CACHE/build.log" 2>&1 ||
		die "apt-get install ${missing[*]} failed (archive unreachable?), see $CACHE/build.log" 3
}

fetch_source() {
	local orig="$CACHE/dl/kubernetes_1.20.5+really$KVER.orig.tar.gz"
	[ -f "$orig" ] && return 0
	local apt="$CACHE/apt"
	step "apt-get update (deb-src lists derived from the machine's sources, under $apt)"
	debsrc_update "$apt" "$CACHE/build.log" || die "no Debian apt sources found to derive deb-src entries from" 3
	step "apt-get source --download-only kubernetes=$DEBVER"
	if ! debsrc_download "$apt" "$CACHE/build.log" "$CACHE/dl" "kubernetes=$DEBVER"; then
		step "pinned version unavailable, trying the archive's current kubernetes source"
		debsrc_download "$apt" "$CACHE/build.log" "$CACHE/dl" kubernetes ||
			die "apt-get source kubernetes failed (archive unreachable?), see $CACHE/build.log" 3
	fi
	[ -f "$orig" ] || die "the source package does not carry upstream v$KVER ($(ls "$CACHE/dl"))" 1
}

prepare_tree() {
	local src="$CACHE/gopath/src/k8s.io"
	local tree="$src/kubernetes"
	if [ -f "$tree/.sb-prepared" ] && [ "$(cat "$tree/.sb-prepared")" = "$RECIPE" ]; then
		return 0
	fi
	step "unpacking the source tree"
	rm -rf "$tree" "$src/kubernetes-$KVER"
	mkdir -p "$src"
	tar xzf "$CACHE/dl/kubernetes_1.20.5+really$KVER.orig.tar.gz" -C "$src"
	mv "$src/kubernetes-$KVER" "$tree"
	step "patching: reflect2 1.0.2 from Debian, credential providers removed from the kubelet"
	# reflect2 1.0.1 (vendored) breaks json-iterator at run time on Go >= 1.18.
	rm -rf "$tree/vendor/github.com/modern-go/reflect2"
	cp -rL /usr/share/gocode/src/github.com/modern-go/reflect2 "$tree/vendor/github.com/modern-go/reflect2"
	rm -f "$tree/vendor/github.com/modern-go/reflect2/go.mod"
	# The kubelet's cloud credential providers ask cloud metadata addresses:
	# their imports go (cmd/kubelet/app/plugins.go, and options/globalflags.go
	# which imports azure and gcp to register their flags).
	local f
	for f in cmd/kubelet/app/plugins.go cmd/kubelet/app/options/globalflags.go; do
		sed -i -E '/"k8s.io\/kubernetes\/pkg\/credentialprovider\/(aws|azure|gcp)"/d' "$tree/$f"
	done
	if grep -rqE '"k8s.io/kubernetes/pkg/credentialprovider/(aws|azure|gcp)"' "$tree/cmd/kubelet"; then
		die "could not remove the credential provider imports from cmd/kubelet" 1
	fi
	# cAdvisor's cloud-info probes (instance type from the aws/gce metadata
	# servers) go too: the node reports an unknown cloud provider.
	sed -i -E '/"github.com\/google\/cadvisor\/utils\/cloudinfo\/(aws|azure|gce)"/d' "$tree/pkg/kubelet/cadvisor/cadvisor_linux.go"
	if grep -q 'cadvisor/utils/cloudinfo/' "$tree/pkg/kubelet/cadvisor/cadvisor_linux.go"; then
		die "could not remove the cAdvisor cloud-info imports from pkg/kubelet/cadvisor/cadvisor_linux.go" 1
	fi
	(
		cd "$tree"
		export GOPATH="$CACHE/gopath" GOCACHE="$CACHE/gocache" GO111MODULE=off CGO_ENABLED=0 GOFLAGS='' GOPROXY=off
		step "building openapi-gen"
		go build -o "$CACHE/openapi-gen" k8s.io/kubernetes/vendor/k8s.io/kube-openapi/cmd/openapi-gen
		step "generating pkg/generated/openapi (not shipped in the tarball)"
		dirs=$({
			find pkg cmd plugin vendor/k8s.io -type f -name '*.go' -not -path 'vendor/k8s.io/code-generator/*' \
				-not -path 'vendor/k8s.io/sample-apiserver/*'
			find staging/src/k8s.io -type f -name '*.go' -not -path 'staging/src/k8s.io/code-generator/*' \
				-not -path 'staging/src/k8s.io/sample-apiserver/*'
		} | xargs grep -l '^// *+k8s:openapi-gen=' | xargs -n1 dirname | sort -u |
			sed -e 's#^staging/src/#vendor/#' -e 's#^#k8s.io/kubernetes/#' | sort -u | paste -sd, -)
		"$CACHE/openapi-gen" --logtostderr -i "$dirs" -p k8s.io/kubernetes/pkg/generated/openapi \
			-O zz_generated.openapi -h hack/boilerplate/boilerplate.generatego.txt \
			-r "$CACHE/openapi-report.txt" >>"$CACHE/build.log" 2>&1
	)
	[ -f "$tree/pkg/generated/openapi/zz_generated.openapi.go" ] || die "openapi-gen produced nothing" 1
	echo "$RECIPE" >"$tree/.sb-prepared"
}

# go_build NAME OUT: go build cmd/NAME of the prepared tree into OUT.
go_build() {
	local tree="$CACHE/gopath/src/k8s.io/kubernetes" ldf="-s -w" p
	for p in k8s.io/kubernetes/vendor/k8s.io/component-base/version k8s.io/kubernetes/vendor/k8s.io/client-go/pkg/version; do
		ldf="$ldf -X $p.gitVersion=v$KVER -X $p.gitMajor=1 -X $p.gitMinor=20 -X $p.gitTreeState=clean"
		ldf="$ldf -X $p.gitCommit=faecb196815e248d3ecfb03c680a4507229c2a56 -X $p.buildDate=2021-01-13T13:20:00Z"
	done
	(cd "$tree" && GOPATH="$CACHE/gopath" GOCACHE="$CACHE/gocache" GO111MODULE=off CGO_ENABLED=0 GOFLAGS='' GOPROXY=off \
		go build -tags providerless -ldflags "$ldf" -o "$2" "k8s.io/kubernetes/cmd/$1") >>"$CACHE/build.log" 2>&1 ||
		die "go build $1 failed, see $CACHE/build.log" 1
}

# build_missing: the recipe's binaries are there but some of BINS are not
# (kube-proxy, added later): build just those, into bin/ in place.
build_missing() {
	local b
	for b in $(missing); do
		step "go build $b (the others are cached)"
		go_build "$b" "$CACHE/bin/$b.new"
		mv "$CACHE/bin/$b.new" "$CACHE/bin/$b"
	done
}

build() {
	local b tree="$CACHE/gopath/src/k8s.io/kubernetes"
	mkdir -p "$CACHE/bin.new"
	for b in "${BINS[@]}"; do
		step "go build $b (the first one takes most of the time)"
		go_build "$b" "$CACHE/bin.new/$b"
	done
	cp "$tree/build/pause/linux/pause.c" "$CACHE/bin.new/pause.c"
	"$CACHE/bin.new/kubelet" --version >>"$CACHE/build.log" 2>&1
	# GOPATH mode records no dependencies: look for the package paths in
	# the function table instead (kept by -s -w).
	if grep -aqE 'credentialprovider/(aws|azure|gcp)|legacy-cloud-providers/(aws|azure|gce)|cadvisor/utils/cloudinfo/(aws|azure|gce)|aws-sdk-go/aws/ec2metadata' "$CACHE/bin.new/kubelet"; then
		die "the kubelet still links a cloud provider" 1
	fi
	echo "$RECIPE" >"$CACHE/bin.new/.stamp"
	rm -rf "${CACHE:?}/bin"
	mv "$CACHE/bin.new" "$CACHE/bin"
}

mkdir -p "$CACHE"
exec 9>"$CACHE/.lock"
if ! flock -n 9; then
	step "another get-kube.sh is running; waiting for it"
	flock 9
fi
: >>"$CACHE/build.log"
ensure_packages
if cached; then
	step "Kubernetes v$KVER binaries cached in $CACHE/bin"
	exit 0
fi
if stamp_ok; then
	step "building $(missing | paste -sd' ') next to the cached binaries (log: $CACHE/build.log)"
	echo "=== $(date -u +%FT%TZ) get-kube.sh $RECIPE: $(missing | paste -sd' ')" >>"$CACHE/build.log"
	prepare_tree
	build_missing
	step "done: $(cd "$CACHE/bin" && echo "${BINS[@]}") in $CACHE/bin"
	exit 0
fi
step "building Kubernetes v$KVER into $CACHE (about 15 minutes on 2 cores the first time; log: $CACHE/build.log)"
echo "=== $(date -u +%FT%TZ) get-kube.sh $RECIPE" >>"$CACHE/build.log"
fetch_source
prepare_tree
build
step "done: $(cd "$CACHE/bin" && echo "${BINS[@]}") in $CACHE/bin ($("$CACHE/bin/kube-apiserver" --version))"
