"""luks.py: LUKS-encrypted volumes for the test cluster's provisioner
(tests/cluster/provisioner.py, class parameter `encryption: luks`, the class
`luks`): the reference cloud page's third disk (local / RBD / LUKS).

This kernel has no device mapper (no /dev/mapper/control, CONFIG_MD is not
set), so dm-crypt cannot open the volume. The container is a real LUKS1
volume all the same, made by Debian's cryptsetup (aes-xts-plain64, 512-bit
key, sha256), in a sparse file in the node's directory of the class's path;
QEMU's storage daemon (Debian's qemu-storage-daemon, its `luks` block
driver, the same cipher in user space) opens it and exports the decrypted
view through FUSE as a file, which a loop device (--direct-io=on) turns into
the block device the PV names: the kubelet makes ext4 on it and mounts it,
as it would a /dev/mapper device. Everything that reaches the file on disk
is ciphertext (tests/cluster/test_luks.py looks).

Per volume, in the node's directory: pvc-<uid>.luks (the LUKS container),
pvc-<uid>.key (the passphrase, mode 0600: the test world's key store),
pvc-<uid>.plain (the FUSE export), pvc-<uid>.qsd.pid. make() returns the PV
annotations that release() needs to undo it all.
"""
import os
import secrets
import signal
import subprocess
import time

QSD = "/usr/bin/qemu-storage-daemon"
CRYPTSETUP = "/usr/sbin/cryptsetup"
ANN_LUKS = "storagebench.io/luks-container"
ANN_QSD_PID = "storagebench.io/luks-qsd-pidfile"
HEADER = 2 << 20  # a LUKS1 header with a 512-bit key: payload at sector 4096


def _run(cmd, what, timeout=120):
    r = subprocess.run(cmd, capture_output=True, text=True, cwd="/", timeout=timeout)
    if r.returncode != 0:
        raise RuntimeError(f"{what}: {' '.join(cmd)}: exit {r.returncode}: {(r.stderr or r.stdout).strip()[-300:]}")
    return r.stdout


def paths(directory, name):
    base = os.path.join(directory, name)
    return {"container": base + ".luks", "key": base + ".key", "plain": base + ".plain",
            "pid": base + ".qsd.pid"}


def make(directory, name, size):
    """A LUKS volume of size bytes (the decrypted size) exported as a file;
    returns (annotations, the export's path). Raises RuntimeError/OSError,
    having undone what it did."""
    for tool in (QSD, CRYPTSETUP):
        if not os.access(tool, os.X_OK):
            raise RuntimeError(f"{tool} is not installed (scripts/deps/cluster.list)")
    p = paths(directory, name)
    ann = {ANN_LUKS: p["container"], ANN_QSD_PID: p["pid"]}
    try:
        fd = os.open(p["key"], os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "w") as f:
            f.write(secrets.token_hex(32))
        with open(p["container"], "wb") as f:
            f.truncate(size + HEADER)
        # few PBKDF2 iterations: the key is random, and a volume is made in well under a second
        _run([CRYPTSETUP, "luksFormat", "--batch-mode", "--type", "luks1", "--cipher", "aes-xts-plain64",
              "--key-size", "512", "--hash", "sha256", "--pbkdf-force-iterations", "1000",
              "--key-file", p["key"], p["container"]], "cryptsetup luksFormat")
        open(p["plain"], "w").close()
        _run([QSD, "--daemonize", "--pidfile", p["pid"],
              "--object", f"secret,id=key0,file={p['key']}",
              "--blockdev", f"driver=file,node-name=disk0,filename={p['container']},cache.direct=on",
              "--blockdev", "driver=luks,node-name=luks0,file=disk0,key-secret=key0",
              "--export", f"type=fuse,id=exp0,node-name=luks0,mountpoint={p['plain']},writable=on"],
             "qemu-storage-daemon")
        for _ in range(100):
            if os.path.ismount(p["plain"]) or os.path.getsize(p["plain"]) == size:
                break
            time.sleep(0.05)
        if os.path.getsize(p["plain"]) != size:
            raise RuntimeError(f"the LUKS export {p['plain']} is {os.path.getsize(p['plain'])} bytes, not {size}")
        return ann, p["plain"]
    except Exception:
        release(ann)
        raise


def _qsd_pid(p):
    """The daemon's pid when the pid file names a qemu-storage-daemon of this volume."""
    try:
        with open(p["pid"]) as f:
            pid = int(f.read().strip())
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            cmd = f.read().decode(errors="replace")
    except (OSError, ValueError):
        return None
    return pid if "qemu-storage-daemon" in cmd and p["plain"] in cmd else None


def release(ann):
    """Stops the daemon (its FUSE export goes with it) and removes the files;
    True when nothing of the volume is left. The loop device on the export
    must be detached first."""
    container = ann.get(ANN_LUKS, "")
    if not container.endswith(".luks"):
        return True
    p = paths(os.path.dirname(container), os.path.basename(container)[:-len(".luks")])
    pid = _qsd_pid(p)
    if pid:
        os.kill(pid, signal.SIGTERM)
        for _ in range(100):
            if not os.path.exists(f"/proc/{pid}"):
                break
            time.sleep(0.05)
        else:
            os.kill(pid, signal.SIGKILL)
    if os.path.ismount(p["plain"]):
        subprocess.run(["umount", p["plain"]], capture_output=True)
    if os.path.ismount(p["plain"]):
        return False
    for f in p.values():
        try:
            os.unlink(f)
        except FileNotFoundError:
            pass
    return True
