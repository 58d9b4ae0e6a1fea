"""The local-dir provisioner's real filesystems (class parameters fsType
and fsSize): the class `small` gives a claim of 64Mi an ext4 of 8 MiB on a
loop device, which fills up (ENOSPC in the runner); deleting the claim
detaches the device and removes its file; a bad parameter is refused with
an event naming it."""
import json
import os
import subprocess

import pytest

import sbcluster as sb

FS_SIZE = 8 * 1024 * 1024


def claim_events(ns, claim):
    evs = sb.get(f"/api/v1/namespaces/{ns}/events?fieldSelector=involvedObject.name={claim}")["items"]
    return [(e["reason"], e["message"]) for e in evs]


def runner_json(pod):
    """The runner's JSON document (its stdout), from the kubelet's CRI log
    file, where each line is tagged with its stream."""
    md = pod["metadata"]
    path = os.path.join(sb.STATE, "nodes", sb.letter(pod["spec"]["nodeName"]), "var-log-pods",
                        f"{md['namespace']}_{md['name']}_{md['uid']}", "c", "0.log")
    out = []
    with open(path) as f:
        for line in f:
            parts = line.rstrip("\n").split(" ", 3)
            if len(parts) == 4 and parts[1] == "stdout":
                out.append(parts[3] + ("\n" if parts[2] == "F" else ""))
    return json.loads("".join(out))


@pytest.fixture
def ns(cluster):
    with sb.namespace("small") as name:
        yield name


def test_small_class_is_an_8mib_ext4_that_fills_up(ns):
    pod = sb.simple_pod("fill", ["--name=fill", "--rw=write", "--bs=1M", "--size=32M",
                                 "--directory=/data", "--output-format=json"],
                        image=sb.IMAGE, command=["/usr/local/bin/storagebench-runner"],
                        volumes=[{"name": "d", "persistentVolumeClaim": {"claimName": "full"}}],
                        mounts=[{"name": "d", "mountPath": "/data"}])
    pod["spec"].setdefault("securityContext", {}).update(runAsUser=65532, fsGroup=65532)
    sb.apply([sb.pvc_manifest("full", "small", size="64Mi"), pod], namespace=ns)
    claim = sb.wait_pvc_bound("full", ns, timeout=120)
    assert claim["status"]["capacity"]["storage"] == "64Mi"  # what the claim asked
    pv = sb.get(f"/api/v1/persistentvolumes/{claim['spec']['volumeName']}")
    dev, fs = pv["spec"]["local"]["path"], pv["spec"]["local"].get("fsType")
    assert dev.startswith("/dev/loop") and fs == "ext4", pv["spec"]["local"]
    back = subprocess.run(["losetup", "-n", "-O", "BACK-FILE", dev], capture_output=True,
                          text=True).stdout.strip()
    node = claim["metadata"]["annotations"]["volume.kubernetes.io/selected-node"]
    assert back.endswith(f"/small/{node}/{pv['metadata']['name']}.img"), back
    assert os.stat(back).st_size == FS_SIZE  # the filesystem's size, not the claim's
    # the runner fills it: ENOSPC, and no more than 8 MiB written
    p = sb.wait_pod_done("fill", ns, timeout=180)
    assert p["status"]["phase"] == "Failed" and sb.exit_code(p) == 1, sb.logs("fill", ns)[-2000:]
    job = runner_json(p)["jobs"][0]
    assert job["error"] == 28, job.get("storagebench", {}).get("errors")
    assert "No space left on device" in job["storagebench"]["errors"]["message"]
    assert job["write"]["io_bytes"] <= FS_SIZE
    # released: the loop device detached and its file removed
    sb.kubectl("-n", ns, "delete", "pod", "fill", "--wait=true")
    sb.kubectl("-n", ns, "delete", "pvc", "full", "--wait=true")
    sb.wait_for(lambda: not os.path.exists(back), timeout=60, what=f"{back} removed")
    out = subprocess.run(["losetup", "-n", "-O", "BACK-FILE", dev], capture_output=True,
                         text=True).stdout
    assert back not in out, out


def test_bad_fs_parameters_are_refused_with_an_event(ns):
    base = sb.get("/apis/storage.k8s.io/v1/storageclasses/small")["parameters"]["path"].rsplit("/", 1)[0]
    made = []
    try:
        for name, params in ((f"xfs-{ns}", {"fsType": "xfs"}),
                             (f"nofs-{ns}", {"fsSize": "8Mi"}),
                             (f"badsize-{ns}", {"fsType": "ext4", "fsSize": "lots"})):
            sb.apply([{"apiVersion": "storage.k8s.io/v1", "kind": "StorageClass",
                       "metadata": {"name": name, "labels": {"storagebench.io/test-cluster": "true"}},
                       "provisioner": sb.PROVISIONER,
                       "parameters": dict(params, path=f"{base}/{name}"),
                       "reclaimPolicy": "Delete", "volumeBindingMode": "Immediate"}])
            made.append(name)
            sb.apply([sb.pvc_manifest(name, name)], namespace=ns)
        for name, needle in ((f"xfs-{ns}", "parameter fsType 'xfs' is not ext4"),
                             (f"nofs-{ns}", "parameter fsSize needs fsType: ext4"),
                             (f"badsize-{ns}", "bad quantity 'lots'")):
            evs = sb.wait_for(lambda: [m for r, m in claim_events(ns, name) if r == "ProvisioningFailed"],
                              timeout=60, what=f"the refusal of {name}")
            assert f"class {name}: " in evs[0] and needle in evs[0], evs
            assert sb.pvc(name, ns)["status"]["phase"] == "Pending"
    finally:
        for name in made:
            sb.kubectl("delete", "storageclass", name, "--ignore-not-found")
