#!/usr/bin/python3
"""mkoci.py: write single-layer OCI image archives (oci-layout tar) that
`ctr images import` accepts, without a registry, a daemon or buildah.

    mkoci.py pause   OUT.tar PAUSE_BINARY
    mkoci.py test    OUT.tar SBTEST_BINARY
    mkoci.py dyn     OUT.tar VERSION RUNNER_BINARY

`test` is localhost/storagebench-test:1 with the static /sbtest as
entrypoint; `pause` is localhost/pause:3.4.1. The project's image is not
packed here: the cluster runs `make image`'s archive (scripts/build-image.sh).

`dyn` is localhost/storagebench-dyn:VERSION, a test-only image for the
clock fault (tests/cluster/fault.sh clock): the product's runner linked
against the shared libraries (the Makefile's build/rel/bin/storagebench-
runner, which `make vg-bins` builds) at /usr/local/bin/storagebench-runner,
the libraries and the dynamic loader it needs (its ldd closure), the CA
bundle, /etc/passwd with the user storagebench (uid/gid 65532), /tmp, and
image config User 65532:65532, like the product image's. The static runner
of the product image loads no preload, so libfaketime cannot shift its
clock; this one's loader honours LD_PRELOAD. A static binary is refused.

The layer is an uncompressed tar (containerd takes it as is) with fixed
timestamps and owners, so the same inputs give the same digests and
rebuilding takes well under a second. Standard library only.
"""
import io
import os
import re
import subprocess
import sys
import tarfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "scripts"))
from ocilayout import write_archive  # noqa: E402  (scripts/ocilayout.py)

CA_BUNDLE = "/etc/ssl/certs/ca-certificates.crt"
UID = 65532


class Layer:
    """A deterministic tar layer built in memory."""

    def __init__(self):
        self.buf = io.BytesIO()
        self.tar = tarfile.open(fileobj=self.buf, mode="w", format=tarfile.PAX_FORMAT)
        self.dirs = set()

    def _info(self, path, kind, mode, uid=0):
        ti = tarfile.TarInfo(path.lstrip("/"))
        ti.type, ti.mode, ti.uid, ti.gid, ti.mtime = kind, mode, uid, uid, 0
        ti.uname = ti.gname = ""
        return ti

    def dir(self, path, mode=0o755, uid=0):
        path = path.rstrip("/")
        if not path or path in self.dirs:
            return
        self.dir(os.path.dirname(path))
        self.dirs.add(path)
        self.tar.addfile(self._info(path, tarfile.DIRTYPE, mode, uid))

    def data(self, path, data, mode=0o644, uid=0):
        self.dir(os.path.dirname(path))
        ti = self._info(path, tarfile.REGTYPE, mode, uid)
        ti.size = len(data)
        self.tar.addfile(ti, io.BytesIO(data))

    def file(self, path, src, mode=None):
        with open(src, "rb") as f:
            data = f.read()
        if mode is None:
            mode = 0o755 if os.stat(src).st_mode & 0o111 else 0o644
        self.data(path, data, mode)

    def bytes(self):
        self.tar.close()
        return self.buf.getvalue()


def ldd_closure(binary):
    """The shared libraries (paths as the loader finds them, the loader
    included) the dynamically linked binary needs; exits naming the binary
    when it is static or a library is missing."""
    p = subprocess.run(["ldd", binary], capture_output=True, text=True)
    if p.returncode != 0 or "statically linked" in p.stdout:
        raise SystemExit(f"mkoci: {binary}: not a dynamically linked executable "
                         f"({(p.stdout + p.stderr).strip()})")
    libs = set()
    for line in p.stdout.splitlines():
        if "not found" in line:
            raise SystemExit(f"mkoci: {binary}: {line.strip()}")
        m = re.search(r"=>\s*(/\S+)", line) or re.match(r"\s*(/\S+)\s+\(", line)
        if m:
            libs.add(m.group(1))
    if not any(os.path.basename(x).startswith("ld-linux") for x in libs):
        raise SystemExit(f"mkoci: {binary}: ldd names no dynamic loader:\n{p.stdout}")
    return sorted(libs)


def dyn_image(layer, version, runner):
    """localhost/storagebench-dyn:VERSION (see the module's text)."""
    etc_files(layer, True)
    layer.dir("/home/storagebench", 0o755, UID)
    layer.file("/usr/local/bin/storagebench-runner", runner, 0o755)
    for lib in ldd_closure(runner):
        layer.file(lib, os.path.realpath(lib), 0o755)
    layer.file(CA_BUNDLE, os.path.realpath(CA_BUNDLE), 0o644)
    return {"Env": ["PATH=/usr/local/bin:/usr/bin:/bin", "SSL_CERT_FILE=" + CA_BUNDLE],
            "WorkingDir": "/", "User": f"{UID}:{UID}",
            "Cmd": ["/usr/local/bin/storagebench-runner"],
            "Labels": {"org.opencontainers.image.title": "storagebench-dyn",
                       "org.opencontainers.image.description":
                           "test only: storagebench-runner linked against shared libraries "
                           "(the test cluster's clock fault preloads libfaketime into it)",
                       "org.opencontainers.image.version": version}}


def etc_files(layer, with_user):
    passwd = "root:x:0:0:root:/root:/sbin/nologin\n"
    group = "root:x:0:\n"
    if with_user:
        passwd += f"storagebench:x:{UID}:{UID}:storagebench:/home/storagebench:/sbin/nologin\n"
        group += f"storagebench:x:{UID}:\n"
    layer.data("/etc/passwd", passwd.encode())
    layer.data("/etc/group", group.encode())
    layer.data("/etc/nsswitch.conf", b"passwd: files\ngroup: files\nhosts: files\n")
    layer.dir("/tmp", 0o1777)


def main(argv):
    if len(argv) < 3:
        raise SystemExit(__doc__)
    kind, out = argv[0], argv[1]
    layer = Layer()
    env = ["PATH=/usr/local/bin:/usr/bin:/bin"]
    if kind == "pause":
        name = "localhost/pause:3.4.1"
        layer.file("/pause", argv[2], 0o755)
        config = {"Entrypoint": ["/pause"], "Env": env, "WorkingDir": "/"}
    elif kind == "test":
        name = "localhost/storagebench-test:1"
        etc_files(layer, True)
        layer.file("/sbtest", argv[2], 0o755)
        layer.dir("/data")
        config = {"Entrypoint": ["/sbtest"], "Env": env, "WorkingDir": "/"}
    elif kind == "dyn":
        if len(argv) != 4:
            raise SystemExit("usage: mkoci.py dyn OUT.tar VERSION RUNNER_BINARY")
        name = f"localhost/storagebench-dyn:{argv[2]}"
        config = dyn_image(layer, argv[2], argv[3])
    else:
        raise SystemExit(f"mkoci: unknown image kind '{kind}'\n" + __doc__)
    digest, _ = write_archive(out, name, layer.bytes(), config, "2021-01-13T00:00:00Z",
                              "tests/cluster/mkoci.py")
    print(f"{name} {digest} {out}")


if __name__ == "__main__":
    main(sys.argv[1:])
