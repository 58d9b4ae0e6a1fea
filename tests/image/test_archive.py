"""make image's archive (scripts/build-image.sh): an OCI image index of
linux/amd64 and linux/arm64 whose files are the two static binaries, a CA
bundle, the zone files and the user, and nothing else: no shell, no
package manager, no library; each platform at most 12 MB compressed; its
binaries start (arm64 under qemu-aarch64); the same tree packs to the same
bytes; the Dockerfile's root (build-image.sh --rootfs) is the same layout."""
import hashlib
import os
import re
import stat
import subprocess
import tarfile
import tempfile

import pytest

from conftest import ARCHIVE, ROOT, VERSION, ocilayout

BINS = ["storagebench-controller", "storagebench-runner"]
LIMIT = 12 * 1000 * 1000  # bytes, compressed, per platform
ELF_MACHINE = {"amd64": 0x3E, "arm64": 0xB7}
# everything the image may hold besides the zone files (and their directories)
FIXED = {"etc": "d", "etc/passwd": "f", "etc/group": "f", "etc/nsswitch.conf": "f",
         "etc/ssl": "d", "etc/ssl/certs": "d", "etc/ssl/certs/ca-certificates.crt": "f",
         "home": "d", "home/storagebench": "d", "tmp": "d",
         "usr": "d", "usr/local": "d", "usr/local/bin": "d",
         "usr/local/bin/storagebench-controller": "f", "usr/local/bin/storagebench-runner": "f",
         "usr/share": "d", "usr/share/zoneinfo": "d"}


def kind(m):
    return "d" if m.isdir() else "f" if m.isreg() else "l" if m.issym() else "?"


def files(image):
    """path -> TarInfo over the image's layers, bottom first."""
    out = {}
    for layer in image["layers"]:
        for m in layer["members"]:
            out[m.name.rstrip("/")] = m
    return out


def listing(image):
    """The file list as `ls -l` would say it: kind, mode, owner, size, path."""
    rows = []
    for path, m in sorted(files(image).items()):
        rows.append(f"{kind(m)} {stat.filemode(m.mode | {'d': stat.S_IFDIR, 'f': stat.S_IFREG, 'l': stat.S_IFLNK}.get(kind(m), 0))[1:]} "
                    f"{m.uid}:{m.gid} {m.size:>9} /{path}" + (f" -> {m.linkname}" if m.issym() else ""))
    return rows


def test_make_image_builds(built):
    rc, out, secs = built
    assert rc == 0, out[-3000:]
    assert re.search(r"^image: built localhost/storagebench:" + re.escape(VERSION), out, re.M), out[-2000:]
    print(f"make image: {secs:.1f} s")
    print("\n".join(line for line in out.splitlines() if line.startswith("image: ")))


def test_index_has_both_platforms_as_user_65532(images):
    assert sorted(images) == ["amd64", "arm64"]
    assert images["arm64"]["platform"] == {"architecture": "arm64", "os": "linux", "variant": "v8"}
    for arch, im in images.items():
        assert im["name"] == f"localhost/storagebench:{VERSION}"
        cfg = im["config"]
        assert cfg["architecture"] == arch and cfg["os"] == "linux"
        assert cfg["config"]["User"] == "65532:65532"
        assert cfg["config"]["Cmd"] == ["/usr/local/bin/storagebench-controller"]
        assert cfg["config"]["Labels"]["org.opencontainers.image.version"] == VERSION
        assert len(cfg["rootfs"]["diff_ids"]) == len(im["layers"]) == 2
    # the layer of the CA bundle, the zone files and the user is one blob for both
    assert images["amd64"]["layers"][0]["digest"] == images["arm64"]["layers"][0]["digest"]


@pytest.mark.parametrize("arch", ["amd64", "arm64"])
def test_the_files_are_the_two_binaries_ca_bundle_zone_files_and_user(images, arch):
    """Lists the image's files (printed) and holds them to the layout: no
    shell, no other program, no library, no loader."""
    fs = files(images[arch])
    print(f"linux/{arch}: {len(fs)} entries")
    for row in listing(images[arch]):
        if " /usr/share/zoneinfo/" not in row:
            print("  " + row)
    zones = [m for p, m in fs.items() if p.startswith("usr/share/zoneinfo/")]
    print(f"  /usr/share/zoneinfo/: {sum(m.isreg() for m in zones)} files "
          f"({sum(m.size for m in zones if m.isreg())} bytes), {sum(m.issym() for m in zones)} symbolic links, "
          f"{sum(m.isdir() for m in zones)} directories")
    for path, m in fs.items():
        if path in FIXED:
            assert kind(m) == FIXED[path], (path, kind(m))
        else:
            assert path.startswith("usr/share/zoneinfo/"), f"/{path} is not part of the image's layout"
            assert not path.startswith("usr/share/zoneinfo/right"), path
            # zone data: directories, files that are not programs, links within it
            assert m.isdir() or m.issym() or (m.isreg() and not m.mode & 0o111), (path, oct(m.mode))
            if m.issym():
                target = os.path.normpath(os.path.join(os.path.dirname(path), m.linkname))
                assert target.startswith("usr/share/zoneinfo/") and target in fs, (path, m.linkname)
    assert set(FIXED) <= set(fs), sorted(set(FIXED) - set(fs))
    programs = sorted(p for p, m in fs.items() if m.isreg() and m.mode & 0o111)
    assert programs == ["usr/local/bin/" + b for b in BINS]
    for sh in ("bin/sh", "bin/bash", "usr/bin/sh", "bin/busybox", "bin", "usr/bin", "sbin", "lib", "usr/lib"):
        assert sh not in fs, f"the image has /{sh}"
    assert not any(re.search(r"(^|/)lib[^/]*\.so", p) or "ld-linux" in p for p in fs)
    # the user, its home, /tmp
    passwd = ocilayout.image_file(images[arch], "etc/passwd").decode()
    assert "storagebench:x:65532:65532:" in passwd and "/bin/sh" not in passwd
    assert (fs["home/storagebench"].uid, fs["tmp"].mode) == (65532, 0o1777)
    # the zones the schedules read, and the CA bundle the binaries' curl uses
    assert ocilayout.image_file(images[arch], "usr/share/zoneinfo/Etc/UTC")[:4] == b"TZif"
    assert "usr/share/zoneinfo/Europe/Berlin" in fs and "usr/share/zoneinfo/America/New_York" in fs
    bundle = ocilayout.image_file(images[arch], "etc/ssl/certs/ca-certificates.crt").decode()
    assert bundle.count("-----BEGIN CERTIFICATE-----") > 100


@pytest.mark.parametrize("arch", ["amd64", "arm64"])
def test_at_most_12_mb_compressed(images, arch):
    gz = sum(layer["size"] for layer in images[arch]["layers"])
    raw = sum(layer["raw"] for layer in images[arch]["layers"])
    print(f"linux/{arch}: {gz / 1e6:.2f} MB compressed, {raw / 1e6:.2f} MB uncompressed")
    assert gz <= LIMIT


@pytest.mark.parametrize("arch", ["amd64", "arm64"])
def test_binaries_are_static_and_start(images, arch):
    """Each binary is an ELF of its platform with no program interpreter
    (nothing in the image could load one) and prints its version: amd64
    here, arm64 under qemu-aarch64 (qemu-user)."""
    with tempfile.TemporaryDirectory() as d:
        for b in BINS:
            data = ocilayout.image_file(images[arch], "usr/local/bin/" + b)
            assert data[:4] == b"\x7fELF" and int.from_bytes(data[18:20], "little") == ELF_MACHINE[arch], b
            path = os.path.join(d, b)
            with open(path, "wb") as f:
                f.write(data)
            os.chmod(path, 0o755)
            ph = subprocess.run(["readelf", "-lW", path], capture_output=True, text=True)
            assert ph.returncode == 0 and "INTERP" not in ph.stdout, ph.stdout[-1500:]
            cmd = ([path] if arch == "amd64" else ["qemu-aarch64", "-cpu", "neoverse-n1", path]) + ["--version"]
            p = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
            assert p.returncode == 0 and p.stdout.startswith(f"{b} {VERSION}\n"), (cmd, p)


def test_packing_again_gives_the_same_bytes(images):
    with open(ARCHIVE, "rb") as f:
        first = hashlib.sha256(f.read()).hexdigest()
    with tempfile.TemporaryDirectory() as d:
        out = os.path.join(d, "again.oci.tar")
        p = subprocess.run(["bash", "scripts/build-image.sh"], cwd=ROOT, capture_output=True, text=True,
                           env=dict(os.environ, SB_IMAGE_OUT=out))
        assert p.returncode == 0, p.stdout + p.stderr
        with open(out, "rb") as f:
            assert hashlib.sha256(f.read()).hexdigest() == first


def test_dockerfile_root_is_the_same_layout(images):
    """build-image.sh --rootfs (the Dockerfile's build stage) writes the
    amd64 image's files, modes and owners, byte for byte."""
    with tempfile.TemporaryDirectory() as d:
        rootfs = os.path.join(d, "rootfs")
        p = subprocess.run(["bash", "scripts/build-image.sh", "--arch=amd64", f"--rootfs={rootfs}"],
                           cwd=ROOT, capture_output=True, text=True)
        assert p.returncode == 0, p.stdout + p.stderr
        got = {}
        for dirpath, dirs, names in os.walk(rootfs):
            for n in dirs + names:
                full = os.path.join(dirpath, n)
                st = os.lstat(full)
                rel = os.path.relpath(full, rootfs)
                k = "d" if stat.S_ISDIR(st.st_mode) else "l" if stat.S_ISLNK(st.st_mode) else "f"
                got[rel] = (k, stat.S_IMODE(st.st_mode) if k != "l" else 0o777, st.st_uid)
    want = {p: (kind(m), m.mode if not m.issym() else 0o777, m.uid) for p, m in files(images["amd64"]).items()}
    assert got == want


def dockerfile():
    with open(os.path.join(ROOT, "Dockerfile")) as f:
        return f.read()


def deps(name):
    with open(os.path.join(ROOT, "scripts", "deps", name)) as f:
        return {re.sub(r"#.*", "", x).strip() for x in f} - {""}


def test_dockerfile_builds_the_same_image_on_scratch():
    """No Docker engine here: the Dockerfile is held to make image's
    recipe. Its build stage installs the build packages
    (scripts/deps/build.list and the cross compiler of arm64.list), builds
    one platform's binaries and writes the root with build-image.sh
    --rootfs; the runtime stage is that root on scratch, user 65532."""
    text = dockerfile()
    froms = re.findall(r"^FROM\s+(?:--platform=\S+\s+)?(\S+)(?:\s+AS\s+(\S+))?", text, re.M)
    assert froms == [("${DEBIAN_IMAGE}", "build"), ("scratch", "")], froms
    assert re.search(r"^ARG DEBIAN_IMAGE=debian:12-slim$", text, re.M)
    build, runtime = text.split("\nFROM scratch\n", 1)
    installed = set(re.search(r"apt-get install -y --no-install-recommends\s+([^&]+)&&", build).group(1).split()) - {"\\"}
    assert installed == deps("build.list") | {"gcc-aarch64-linux-gnu", "libc6-dev-arm64-cross"}
    assert {"gcc-aarch64-linux-gnu", "libc6-dev-arm64-cross"} <= deps("arm64.list")
    assert "make -j\"$(nproc)\" image-bins-${TARGETARCH}" in build
    assert "bash scripts/build-image.sh --arch=${TARGETARCH} --rootfs=/rootfs" in build
    assert "COPY --from=build /rootfs/ /" in runtime and "RUN " not in runtime
    assert re.search(r"^USER 65532:65532$", runtime, re.M)
    assert 'CMD ["/usr/local/bin/storagebench-controller"]' in runtime
    assert "ENV PATH=/usr/local/bin SSL_CERT_FILE=/etc/ssl/certs/ca-certificates.crt" in runtime
    assert "latest" not in text


def test_build_image_script_passes_shellcheck():
    p = subprocess.run(["shellcheck", "-x", os.path.join(ROOT, "scripts", "build-image.sh"),
                        os.path.join(ROOT, "scripts", "get-minlibs.sh")],
                       capture_output=True, text=True, cwd=ROOT)
    assert p.returncode == 0, p.stdout + p.stderr


def test_image_config_env_matches_the_dockerfile(images):
    env = images["amd64"]["config"]["config"]["Env"]
    assert env == ["PATH=/usr/local/bin", "SSL_CERT_FILE=/etc/ssl/certs/ca-certificates.crt"]
    assert tarfile.is_tarfile(ARCHIVE)
