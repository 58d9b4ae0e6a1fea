"""The class luks (tests/cluster/luks.py): a real LUKS1 container made by
cryptsetup in a file on the node's disk directory, opened in user space by
qemu-storage-daemon (this kernel has no device mapper), ext4 on a loop
device over the decrypted view. A pod's data reaches the container as
ciphertext, a second pod reads it back, and deleting the claim stops the
daemon and removes every file."""
import os
import secrets
import subprocess

import pytest

import resizer
import sbcluster as sb

ANN_LUKS = "storagebench.io/luks-container"
MNT = [{"name": "d", "mountPath": "/data"}]


def vol(name):
    return {"name": "d", "persistentVolumeClaim": {"claimName": name}}


def holder(node):
    with open(os.path.join(sb.STATE, "run", f"node-{sb.letter(node)}.pid")) as f:
        return int(f.read())


def test_luks_volume_is_encrypted_on_disk_and_read_back(ns):
    marker = "storagebench-luks-" + secrets.token_hex(8)
    sb.apply([sb.pvc_manifest("enc", "luks", size="64Mi"),
              sb.simple_pod("w", ["write", "/data/m", marker], volumes=[vol("enc")], mounts=MNT)], namespace=ns)
    p = sb.wait_pod_done("w", ns, timeout=180)
    assert sb.exit_code(p) == 0, sb.logs("w", ns)
    node = p["spec"]["nodeName"]
    sb.apply([sb.simple_pod("r", ["cat", "/data/m"], volumes=[vol("enc")], mounts=MNT, node=node)], namespace=ns)
    r = sb.wait_pod_done("r", ns, timeout=180)
    assert sb.exit_code(r) == 0 and marker in sb.logs("r", ns)

    pv = sb.get(f"/api/v1/persistentvolumes/{sb.pvc('enc', ns)['spec']['volumeName']}")
    container = pv["metadata"]["annotations"][ANN_LUKS]
    dev = pv["spec"]["local"]["path"]
    assert pv["spec"]["local"]["fsType"] == "ext4" and dev.startswith("/dev/loop")
    path = sb.get("/apis/storage.k8s.io/v1/storageclasses/luks")["parameters"]["path"]
    assert container.startswith(f"{path}/{node}/")
    # a LUKS volume, as cryptsetup (not only our own code) reads its header
    dump = subprocess.run(["cryptsetup", "luksDump", container], capture_output=True, text=True, check=True).stdout
    assert "Version:" in dump and "aes" in dump and "xts-plain64" in dump, dump
    # once no pod uses it, the kubelet has unmounted it (its data written out):
    # the marker is in the decrypted view and not in the file on disk
    sb.kubectl("-n", ns, "delete", "pod", "w", "r", "--wait=true")
    sb.wait_for(lambda: resizer.mount_of(holder(node), dev) is None, timeout=120, what="the volume unmounted")
    plain = container[:-len(".luks")] + ".plain"
    with open(plain, "rb") as f:
        assert marker.encode() in f.read()
    with open(container, "rb") as f:
        raw = f.read()
    assert marker.encode() not in raw
    assert raw.count(b"\0") < len(raw)  # written, not a sparse hole

    # deleting the claim: loop device, daemon, FUSE export and files gone
    sb.kubectl("-n", ns, "delete", "pvc", "enc", "--wait=true")
    sb.wait_for(lambda: sb.get(f"/api/v1/persistentvolumes/{pv['metadata']['name']}") is None, timeout=120,
                what="the PV deleted")
    base = container[:-len(".luks")]
    assert not any(os.path.exists(base + ext) for ext in (".luks", ".key", ".plain", ".qsd.pid"))
    assert base not in subprocess.run(["ps", "-eo", "args"], capture_output=True, text=True).stdout
    assert plain not in subprocess.run(["losetup", "-l", "-n", "-O", "BACK-FILE"], capture_output=True,
                                       text=True).stdout


@pytest.mark.parametrize("params, msg", [
    ({"encryption": "aes"}, "parameter encryption 'aes' is not luks"),
    ({"encryption": "luks"}, "encryption: luks needs fsType: ext4"),
])
def test_bad_encryption_parameters_are_refused_naming_them(ns, params, msg):
    cls = f"luks-bad-{ns}"
    path = sb.get("/apis/storage.k8s.io/v1/storageclasses/luks")["parameters"]["path"]
    sc = {"apiVersion": "storage.k8s.io/v1", "kind": "StorageClass", "metadata": {"name": cls},
          "provisioner": sb.PROVISIONER, "volumeBindingMode": "Immediate",
          "parameters": dict({"path": path}, **params)}
    sb.apply([sc])
    try:
        sb.apply([sb.pvc_manifest("bad", cls, size="16Mi")], namespace=ns)
        sb.wait_for(lambda: any(msg in (e.get("message") or "") for e in sb.kubectl_json(
            "-n", ns, "get", "events", "--field-selector", "involvedObject.name=bad")["items"]),
            timeout=60, what=f"a ProvisioningFailed event saying {msg!r}")
        assert sb.pvc("bad", ns)["status"]["phase"] == "Pending"
    finally:
        sb.kubectl("-n", ns, "delete", "pvc", "bad", "--wait=false")
        sb.kubectl("delete", "storageclass", cls, "--wait=false")
