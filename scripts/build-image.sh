#!/usr/bin/env bash
# build-image.sh: `make image`. Builds the image the Dockerfile describes
# without pulling anything and without a container engine:
#
#   1. a Debian 12 (bookworm) root filesystem from Debian's archive with
#      debootstrap --variant=minbase (what debian:12-slim is made of) plus
#      the runtime libraries (libcurl4 libjansson4 libyaml-0-2 libssl3
#      liburing2 libmicrohttpd12 ca-certificates tzdata), security updates applied,
#      documentation and apt lists removed; cached as a tarball under
#      /var/cache/storagebench/image/ so reruns take seconds
#      (SB_IMAGE_REFRESH=1 rebuilds it);
#   2. bin/storagebench-* in /usr/local/bin, user storagebench (65532);
#   3. an OCI image archive (one gzip layer, config User 65532:65532) at
#      build/image/storagebench-$VERSION.oci.tar, named
#      localhost/storagebench:$VERSION, which `ctr images import`,
#      `podman load`, `skopeo copy oci-archive:...` and `buildah pull
#      oci-archive:...` accept;
#   4. a smoke test: both binaries print their version in a chroot of the
#      image as user 65532 (so the runtime libraries are complete).
#
# Needs root (debootstrap, chroot). Installs debootstrap from Debian when
# missing (scripts/deps/test.list has it, for the image suite).
# --rootfs-only: step 1 alone (no binaries needed), so the root can be built
# while other work goes on (tests/prereq.sh); concurrent builds of the same
# root wait for each other (a lock in the cache).
# Environment: SB_IMAGE_NAME, SB_IMAGE_OUT, SB_IMAGE_CACHE, SB_IMAGE_MIRROR,
# SB_IMAGE_REFRESH=1.
set -euo pipefail
rootfs_only=0
case "${1:-}" in
--rootfs-only) rootfs_only=1 ;;
"") ;;
*) echo "usage: $0 [--rootfs-only]" >&2; exit 2 ;;
esac
cd "$(dirname "$0")/.."
root=$PWD

VERSION=$(cat VERSION)
NAME=${SB_IMAGE_NAME:-localhost/storagebench:$VERSION}
OUT=${SB_IMAGE_OUT:-$root/build/image/storagebench-$VERSION.oci.tar}
CACHE=${SB_IMAGE_CACHE:-/var/cache/storagebench/image}
SUITE=bookworm
RUNTIME_PKGS=libcurl4,libjansson4,libyaml-0-2,libssl3,liburing2,libmicrohttpd12,ca-certificates,tzdata
UID_GID=65532

say() { printf 'image: %s\n' "$*"; }
die() { printf 'image: error: %s\n' "$*" >&2; exit 1; }

[ "$(id -u)" -eq 0 ] || die "needs root (debootstrap and chroot)"
bins=()
for b in storagebench-controller storagebench-runner kubectl-storagebench; do
	[ -x "bin/$b" ] && bins+=("bin/$b")
done
if [ $rootfs_only = 0 ] && { [ ! -x bin/storagebench-controller ] || [ ! -x bin/storagebench-runner ]; }; then
	die "bin/storagebench-controller and bin/storagebench-runner are needed: make all"
fi

# The mirror: the machine's own Debian source (deb822 or one-line format).
mirror=${SB_IMAGE_MIRROR:-}
if [ -z "$mirror" ] && [ -f /etc/apt/sources.list.d/debian.sources ]; then
	mirror=$(awk '/^URIs:/ && $2 !~ /security/ {print $2; exit}' /etc/apt/sources.list.d/debian.sources)
fi
if [ -z "$mirror" ] && [ -f /etc/apt/sources.list ]; then
	mirror=$(awk '$1 == "deb" && $2 !~ /security/ {print $2; exit}' /etc/apt/sources.list)
fi
mirror=${mirror:-http://deb.debian.org/debian}

if ! command -v debootstrap >/dev/null; then
	say "installing debootstrap from Debian"
	export DEBIAN_FRONTEND=noninteractive
	apt-get install -y -q --no-install-recommends debootstrap >/dev/null 2>&1 || {
		apt-get update -q >/dev/null && apt-get install -y -q --no-install-recommends debootstrap >/dev/null
	} || die "could not install debootstrap"
fi

# 1. the cached root filesystem
key=$(printf '%s %s %s' "$SUITE" "$RUNTIME_PKGS" "$mirror" | sha256sum | cut -c1-12)
rootfs_tar=$CACHE/rootfs-$SUITE-$key.tar
mkdir -p "$CACHE" "$(dirname "$OUT")"
work=$(mktemp -d /var/tmp/sb-image.XXXXXX)
cleanup() {
	# never leave a mount behind, then remove the scratch tree
	for m in "$work/rootfs/proc" "$work/rootfs/dev"; do
		mountpoint -q "$m" 2>/dev/null && umount -l "$m"
	done
	rm -rf "$work"
}
trap cleanup EXIT
exec 9>"$CACHE/.lock-$key"
if ! flock -n 9; then
	say "another build of this root filesystem is running; waiting for it"
	flock 9
fi

if [ ! -f "$rootfs_tar" ] || [ "${SB_IMAGE_REFRESH:-0}" = 1 ]; then
	say "debootstrap --variant=minbase $SUITE from $mirror (once; cached in $rootfs_tar)"
	t0=$(date +%s)
	debootstrap --variant=minbase --include="$RUNTIME_PKGS" "$SUITE" "$work/rootfs" "$mirror" \
		>"$work/debootstrap.log" 2>&1 || {
		tail -n 20 "$work/debootstrap.log" >&2
		die "debootstrap failed (log above)"
	}
	# security and point-release updates, as debian:12-slim has them
	sources=/etc/apt/sources.list.d/debian.sources
	if [ -f "$sources" ]; then
		cp "$sources" "$work/rootfs/etc/apt/sources.list.d/debian.sources"
		rm -f "$work/rootfs/etc/apt/sources.list"
	fi
	mount -t proc proc "$work/rootfs/proc"
	mount --bind /dev "$work/rootfs/dev"
	if chroot "$work/rootfs" apt-get update -q >>"$work/debootstrap.log" 2>&1 &&
		chroot "$work/rootfs" env DEBIAN_FRONTEND=noninteractive apt-get -y -q upgrade \
			>>"$work/debootstrap.log" 2>&1; then
		say "security updates applied"
	else
		say "warning: apt-get upgrade in the image failed; the image has the $SUITE release packages"
	fi
	umount -l "$work/rootfs/dev" "$work/rootfs/proc"
	# what debian:12-slim leaves out: documentation, man pages, apt's lists and caches
	chroot "$work/rootfs" apt-get clean >/dev/null 2>&1 || true
	rm -rf "$work/rootfs"/var/lib/apt/lists/* "$work/rootfs"/var/cache/apt/*.bin \
		"$work/rootfs"/var/cache/debconf/*-old "$work/rootfs"/var/log/* \
		"$work/rootfs"/usr/share/doc/* "$work/rootfs"/usr/share/man/* \
		"$work/rootfs"/usr/share/info/* "$work/rootfs"/usr/share/locale/* \
		"$work/rootfs"/tmp/* "$work/rootfs"/root/.bash_history
	tar --numeric-owner --xattrs -C "$work/rootfs" -cf "$rootfs_tar.tmp" .
	mv "$rootfs_tar.tmp" "$rootfs_tar"
	rm -rf "$work/rootfs"
	say "root filesystem built in $(($(date +%s) - t0)) s"
else
	say "root filesystem from the cache ($rootfs_tar)"
fi
exec 9>&-
[ $rootfs_only = 1 ] && exit 0

# 2 + 3. the layer and the OCI archive
SB_SCRIPTS=$root/scripts /usr/bin/python3 - "$rootfs_tar" "$OUT" "$NAME" "$VERSION" "$UID_GID" "$work/layer.tar" "${bins[@]}" <<'PY'
import io, os, sys, tarfile
sys.path.insert(0, os.environ["SB_SCRIPTS"])
from ocilayout import write_archive  # scripts/ocilayout.py

rootfs, out, name, version, uid = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4], int(sys.argv[5])
layer_copy = sys.argv[6]
bins = sys.argv[7:]
user = f"storagebench:x:{uid}:{uid}:storagebench:/home/storagebench:/usr/sbin/nologin\n"
group = f"storagebench:x:{uid}:\n"

raw = io.BytesIO()
with tarfile.open(rootfs) as src, tarfile.open(fileobj=raw, mode="w", format=tarfile.PAX_FORMAT) as dst:
    for m in src:
        if m.name.startswith("./dev/"):
            continue  # device nodes come from the runtime, not the image
        data = src.extractfile(m).read() if m.isreg() else None
        if m.name in ("./etc/passwd", "./etc/group"):
            text = data.decode()
            add = user if m.name.endswith("passwd") else group
            if add.split(":")[0] + ":" not in text:
                text += add
            data = text.encode()
            m.size = len(data)
        dst.addfile(m, io.BytesIO(data) if data is not None else None)

    def info(path, kind, mode, owner=0, size=0):
        ti = tarfile.TarInfo(path)
        ti.type, ti.mode, ti.uid, ti.gid, ti.size, ti.mtime = kind, mode, owner, owner, size, 0
        return ti
    dst.addfile(info("./home/storagebench", tarfile.DIRTYPE, 0o755, uid))
    for b in bins:
        with open(b, "rb") as f:
            data = f.read()
        dst.addfile(info("./usr/local/bin/" + os.path.basename(b), tarfile.REGTYPE, 0o755,
                         size=len(data)), io.BytesIO(data))
layer = raw.getvalue()
with open(layer_copy, "wb") as f:  # for the smoke test: exactly what the image holds
    f.write(layer)
config = {
    "User": f"{uid}:{uid}", "WorkingDir": "/",
    "Env": ["PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
            "SSL_CERT_FILE=/etc/ssl/certs/ca-certificates.crt"],
    "Cmd": ["/usr/local/bin/storagebench-controller"],
    "Labels": {"org.opencontainers.image.title": "storagebench",
               "org.opencontainers.image.version": version,
               "org.opencontainers.image.base.name": "debian:12-slim (debootstrap minbase)"},
}
mdig, gz_size = write_archive(out, name, layer, config, "1970-01-01T00:00:00Z",
                              "scripts/build-image.sh", compress=True)
print(f"{mdig} {len(layer)} {gz_size}")
PY

# 4. smoke test: the image's own files and libraries, user 65532
mkdir -p "$work/check"
tar --numeric-owner -C "$work/check" -xf "$work/layer.tar"
for b in storagebench-controller storagebench-runner; do
	v=$(chroot --userspec=$UID_GID:$UID_GID "$work/check" "/usr/local/bin/$b" --version 2>&1) ||
		die "$b does not start in the image: $v"
	say "chroot check: $v"
done
# shellcheck disable=SC2016 # expanded by the image's shell
libs=$(chroot "$work/check" /bin/sh -c 'for b in /usr/local/bin/*; do ldd "$b"; done' 2>&1) ||
	die "ldd failed in the image: $libs"
case "$libs" in *"not found"*) die "missing libraries in the image: $(grep 'not found' <<<"$libs")" ;; esac
case "$libs" in *libcurl*liburing* | *liburing*libcurl*) ;; *) die "unexpected ldd output in the image: $libs" ;; esac
[ -s "$work/check/etc/ssl/certs/ca-certificates.crt" ] || die "the image has no CA bundle (ca-certificates)"
grep -q '^storagebench:x:65532:65532:' "$work/check/etc/passwd" || die "the image has no user 65532"

layer_mb=$(du -sm "$work/check" | cut -f1)
say "built $NAME: $OUT ($(du -h "$OUT" | cut -f1) archive, ${layer_mb} MB unpacked)"
say "load it: ctr -n k8s.io images import $OUT | podman load -i $OUT | skopeo copy oci-archive:$OUT docker://REGISTRY/storagebench:$VERSION"
