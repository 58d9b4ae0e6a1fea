#!/usr/bin/env bash
# build-image.sh: `make image`. The project's container image as an OCI
# image index of two platforms, linux/amd64 and linux/arm64, written
# without a registry, a container engine, a base image or a download:
#
#   build/image/storagebench-$VERSION.oci.tar, named localhost/storagebench:$VERSION
#   (`ctr images import`, `podman load`, `skopeo copy oci-archive:...` and
#   `buildah pull oci-archive:...` accept it)
#
# Each platform's image is two gzip layers and nothing else (the distroless
# idea: no shell, no package manager, no C library, no loader):
#   1. shared by both platforms (one blob): /etc/passwd and /etc/group (root
#      and storagebench, uid/gid 65532), /etc/nsswitch.conf (files, dns: the
#      resolvers built into the static glibc), /etc/ssl/certs/ca-certificates.crt
#      (the CA certificates of the machine's ca-certificates package, as
#      update-ca-certificates bundles them), /usr/share/zoneinfo (the zone
#      files of the machine's tzdata package, which BenchmarkSchedule
#      timeZone reads, lib/time/tz.c; without right/, whose leap-second
#      zones lib/time/tz.c does not take), /tmp, /home/storagebench;
#   2. the platform's storagebench-controller and storagebench-runner in
#      /usr/local/bin, static (the Makefile's static_bin), stripped:
#      bin/ (amd64) and build/arm64rel/bin/ (arm64, cross-built).
# Image config: User 65532:65532, Cmd the controller; timestamps are the
# commit's (SOURCE_DATE_EPOCH, else HEAD's commit time), so the same tree
# gives the same digests.
#
# Then a smoke test of the image's own files, unpacked: each binary's
# --version, the amd64 ones in a chroot of the image as user 65532 (when
# root), the arm64 ones under qemu-aarch64; the file list (SB_IMAGE_LIST,
# default build/image/files-<arch>.txt) holds no shell and no program but
# the two.
#
# The package files are checked against dpkg's md5sums first (a CA or zone
# file edited on this machine is not shipped). Needs: the four binaries
# (make image builds them), ca-certificates and tzdata (scripts/deps/build.list),
# qemu-user (scripts/deps/arm64.list). Environment: SB_IMAGE_NAME, SB_IMAGE_OUT.
#
# --arch=amd64|arm64: that platform only. --rootfs=DIR: no archive; DIR
# becomes the image's root, the layers unpacked (the Dockerfile copies it
# onto scratch; a platform that is not the machine's is not started there).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
archs=(amd64 arm64) rootfs=
for a in "$@"; do
	case "$a" in
	--arch=amd64 | --arch=arm64) archs=("${a#--arch=}") ;;
	--rootfs=?*) rootfs=${a#--rootfs=} ;;
	*) echo "usage: $0 [--arch=amd64|arm64] [--rootfs=DIR]" >&2; exit 2 ;;
	esac
done
[ -z "$rootfs" ] || [ ${#archs[@]} = 1 ] || { echo "$0: --rootfs needs --arch" >&2; exit 2; }

VERSION=$(cat VERSION)
NAME=${SB_IMAGE_NAME:-localhost/storagebench:$VERSION}
OUT=${SB_IMAGE_OUT:-$root/build/image/storagebench-$VERSION.oci.tar}
LISTS=$(dirname "$OUT")
UID_GID=65532
T0=$(date +%s%N)

say() { printf 'image: %s\n' "$*"; }
die() { printf 'image: error: %s\n' "$*" >&2; exit 1; }

declare -A bindir=([amd64]=bin [arm64]=build/arm64rel/bin)
declare -A strip_tool=([amd64]=strip [arm64]=aarch64-linux-gnu-strip)
host=$(dpkg --print-architecture)
for a in "${archs[@]}"; do
	for b in storagebench-controller storagebench-runner; do
		[ -x "${bindir[$a]}/$b" ] || die "${bindir[$a]}/$b is missing: make image builds it"
	done
	command -v "${strip_tool[$a]}" >/dev/null || die "${strip_tool[$a]} is missing (make deps)"
done
if [ -z "$rootfs" ] && [ "$host" != arm64 ] && [[ " ${archs[*]} " == *" arm64 "* ]]; then
	command -v qemu-aarch64 >/dev/null || die "qemu-aarch64 is missing (qemu-user, scripts/deps/arm64.list: make deps)"
fi
for p in ca-certificates tzdata; do
	[ "$(dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null)" = installed ] ||
		die "the package $p is not installed (scripts/deps/build.list: make deps)"
	bad=$(dpkg --verify "$p" 2>&1 | grep -v ' c /etc/' || true)
	[ -z "$bad" ] || die "files of $p differ from the package (dpkg --verify $p): $bad"
done

work=$(mktemp -d /var/tmp/sb-image.XXXXXX)
trap 'rm -rf "$work"' EXIT
for a in "${archs[@]}"; do
	mkdir -p "$work/bin-$a"
	for b in storagebench-controller storagebench-runner; do
		"${strip_tool[$a]}" -o "$work/bin-$a/$b" "${bindir[$a]}/$b"
	done
done
# the package files the shared layer takes (paths as dpkg lists them)
dpkg -L ca-certificates | grep -E '^/usr/share/ca-certificates/mozilla/.+\.crt$' | sort >"$work/ca.list"
dpkg -L tzdata | grep -E '^/usr/share/zoneinfo/' | grep -vE '^/usr/share/zoneinfo/(right(/|$)|localtime$)' |
	sort >"$work/tz.list"
[ -s "$work/ca.list" ] || die "the ca-certificates package lists no certificate"
grep -qx /usr/share/zoneinfo/Etc/UTC "$work/tz.list" || die "the tzdata package has no Etc/UTC"
epoch=${SOURCE_DATE_EPOCH:-$(git log -1 --format=%ct 2>/dev/null || echo 0)}
[ -n "$rootfs" ] || mkdir -p "$LISTS"

dest=$OUT
[ -z "$rootfs" ] || dest=- # the layers only
{ SB_SCRIPTS=$root/scripts /usr/bin/python3 - "$work" "$dest" "$NAME" "$VERSION" "$UID_GID" "$epoch" \
	"$(dpkg-query -W -f='${Version}' ca-certificates)" "$(dpkg-query -W -f='${Version}' tzdata)" "${archs[@]}" <<'PY'
import datetime, io, os, stat, sys, tarfile
sys.path.insert(0, os.environ["SB_SCRIPTS"])
from ocilayout import write_index_archive  # scripts/ocilayout.py

work, out, name, version, uid, epoch, ca_ver, tz_ver = sys.argv[1:9]
archs = sys.argv[9:]
uid, epoch = int(uid), int(epoch)


class Layer:
    """A deterministic layer tar: entries in path order, fixed times and owners."""

    def __init__(self):
        self.entries = {}

    def _add(self, path, kind, mode, data=b"", link="", owner=0):
        parent = os.path.dirname(path)
        if parent and parent not in self.entries:
            self._add(parent, tarfile.DIRTYPE, 0o755)
        self.entries[path] = (kind, mode, data, link, owner)

    def dir(self, path, mode=0o755, owner=0):
        self._add(path, tarfile.DIRTYPE, mode, owner=owner)

    def data(self, path, data, mode=0o644):
        self._add(path, tarfile.REGTYPE, mode, data)

    def file(self, path, src, mode=0o644):
        with open(src, "rb") as f:
            self.data(path, f.read(), mode)

    def symlink(self, path, target):
        self._add(path, tarfile.SYMTYPE, 0o777, link=target)

    def bytes(self):
        buf = io.BytesIO()
        with tarfile.open(fileobj=buf, mode="w", format=tarfile.PAX_FORMAT) as t:
            for path in sorted(self.entries):
                kind, mode, data, link, owner = self.entries[path]
                ti = tarfile.TarInfo(path)
                ti.type, ti.mode, ti.uid, ti.gid, ti.mtime = kind, mode, owner, owner, epoch
                ti.uname = ti.gname = ""
                ti.linkname = link
                ti.size = len(data) if kind == tarfile.REGTYPE else 0
                t.addfile(ti, io.BytesIO(data) if kind == tarfile.REGTYPE else None)
        return buf.getvalue()


def lines(p):
    with open(os.path.join(work, p)) as f:
        return [x.rstrip("\n") for x in f if x.strip()]


base = Layer()
base.data("etc/passwd", ("root:x:0:0:root:/root:/sbin/nologin\n"
                         f"storagebench:x:{uid}:{uid}:storagebench:/home/storagebench:/sbin/nologin\n").encode())
base.data("etc/group", f"root:x:0:\nstoragebench:x:{uid}:\n".encode())
base.data("etc/nsswitch.conf", b"passwd: files\ngroup: files\nhosts: files dns\n")
# update-ca-certificates: each certificate of /etc/ca-certificates.conf's
# list (the package's, all of them) appended in order, PEM text as is
bundle = b""
for crt in lines("ca.list"):
    with open(crt, "rb") as f:
        pem = f.read()
    bundle += pem if pem.endswith(b"\n") else pem + b"\n"
base.data("etc/ssl/certs/ca-certificates.crt", bundle)
zdir = "/usr/share/zoneinfo"
for p in lines("tz.list"):
    rel = p.lstrip("/")
    st = os.lstat(p)
    if stat.S_ISLNK(st.st_mode):
        target = os.readlink(p)
        real = os.path.normpath(os.path.join(os.path.dirname(p), target))
        if not real.startswith(zdir + "/") or real.startswith(zdir + "/right/"):
            raise SystemExit(f"image: {p} points out of the zone files ({target})")
        base.symlink(rel, target)
    elif stat.S_ISDIR(st.st_mode):
        base.dir(rel)
    elif stat.S_ISREG(st.st_mode):
        base.file(rel, p)
base.dir("tmp", 0o1777)
base.dir("home/storagebench", 0o755, uid)
base_tar = base.bytes()

plats = {"amd64": {"architecture": "amd64", "os": "linux"},
         "arm64": {"architecture": "arm64", "os": "linux", "variant": "v8"}}
created = datetime.datetime.fromtimestamp(epoch, datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
labels = {"org.opencontainers.image.title": "storagebench",
          "org.opencontainers.image.description":
              "Kubernetes storage benchmarks: storagebench-controller and storagebench-runner",
          "org.opencontainers.image.version": version,
          "org.opencontainers.image.licenses": "MIT",
          "io.storagebench.image.ca-certificates": ca_ver,
          "io.storagebench.image.tzdata": tz_ver}
images = []
for arch in archs:
    plat = plats[arch]
    top = Layer()
    for b in ("storagebench-controller", "storagebench-runner"):
        top.file("usr/local/bin/" + b, os.path.join(work, f"bin-{arch}", b), 0o755)
    bins = top.bytes()
    with open(os.path.join(work, f"layers-{arch}.tar"), "wb") as f:
        f.write(base_tar + bins)  # for the smoke test (two tars, read one after the other)
    images.append({"platform": plat, "layers": [base_tar, bins], "config": {
        "User": f"{uid}:{uid}", "WorkingDir": "/",
        "Env": ["PATH=/usr/local/bin", "SSL_CERT_FILE=/etc/ssl/certs/ca-certificates.crt"],
        "Cmd": ["/usr/local/bin/storagebench-controller"], "Labels": labels}})
if out == "-":  # --rootfs: the layers only
    sys.exit(0)
idig, sizes = write_index_archive(out, name, images, created, "scripts/build-image.sh",
                                  annotations={"org.opencontainers.image.version": version})
for plat, mdig, gz, raw in sizes:
    print(f"{plat['architecture']} {mdig} {gz} {raw}")
print(f"index {idig}")
PY
} >"$work/sizes" || die "writing the archive failed"

# smoke test: the image's own files, unpacked
for a in "${archs[@]}"; do
	d=${rootfs:-$work/check-$a}
	rm -rf "$d"
	mkdir -p "$d"
	tar --numeric-owner -C "$d" -xf "$work/layers-$a.tar" --ignore-zeros
	list=$LISTS/files-$a.txt
	[ -z "$rootfs" ] || list=$work/files-$a.txt
	(cd "$d" && find . -mindepth 1 -printf '%y %m %U:%G %p\n' | sed 's# \./# /#' | sort -k4) >"$list"
	# no shell, no program but the two: no other executable file
	progs=$(cd "$d" && find . -type f -perm /111 | sed 's#^\.##' | sort | paste -sd' ' -)
	[ "$progs" = "/usr/local/bin/storagebench-controller /usr/local/bin/storagebench-runner" ] ||
		die "$a: the image's programs are $progs"
	for sh in /bin/sh /bin/bash /usr/bin/sh /bin/busybox; do
		if [ -e "$d$sh" ] || [ -L "$d$sh" ]; then die "$a: the image has $sh"; fi
	done
	for b in storagebench-controller storagebench-runner; do
		if [ -n "$rootfs" ] && [ "$a" != "$host" ]; then
			continue # a foreign platform's programs are not started in a --rootfs build
		# stdout only: without /proc (a chroot) or binfmt (qemu-user) the
		# controller's re-exec with glibc's tunables fails, with a warning
		elif [ "$a" = arm64 ] && [ "$host" != arm64 ]; then
			v=$(qemu-aarch64 "$d/usr/local/bin/$b" --version 2>"$work/err") ||
				die "$a $b --version under qemu: $v $(cat "$work/err")"
		elif [ "$(id -u)" -eq 0 ] && [ "$a" = "$host" ]; then
			v=$(chroot --userspec=$UID_GID:$UID_GID "$d" "/usr/local/bin/$b" --version 2>"$work/err") ||
				die "$a $b does not start in the image: $v $(cat "$work/err")"
		else
			v=$("$d/usr/local/bin/$b" --version 2>"$work/err") || die "$a $b --version: $v $(cat "$work/err")"
		fi
		[[ "$v" == "$b $VERSION"* ]] || die "$a $b --version says: $v"
	done
	file_kind=$(od -An -tx1 -j18 -N2 "$d/usr/local/bin/storagebench-runner" | tr -d ' \n')
	case "$a:$file_kind" in amd64:3e00 | arm64:b700) ;; *) die "$a: the runner's ELF machine is $file_kind" ;; esac
done
if [ -n "$rootfs" ]; then
	say "wrote the ${archs[*]} image's root in $rootfs ($(wc -l <"$list") entries)"
	exit 0
fi

mb() { awk -v b="$1" 'BEGIN { printf "%.1f MB", b / 1e6 }'; }
ms=$((($(date +%s%N) - T0) / 1000000))
say "built $NAME ($(grep '^index ' "$work/sizes" | cut -d' ' -f2)) in $((ms / 1000)).$((ms % 1000 / 100)) s: $OUT ($(mb "$(stat -c %s "$OUT")"))"
while read -r a _ gz raw; do
	[ "$a" = index ] || say "linux/$a: $(mb "$gz") compressed, $(mb "$raw") uncompressed"
done <"$work/sizes"
say "$(wc -l <"$list") entries per platform (the lists: $LISTS/files-<arch>.txt); each binary's --version run from the image's files"
say "load it: ctr -n k8s.io images import $OUT | podman load -i $OUT | skopeo copy --all oci-archive:$OUT docker://REGISTRY/storagebench:$VERSION"
