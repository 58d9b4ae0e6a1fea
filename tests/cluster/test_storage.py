"""The local-dir provisioner: classes fast and disk bind with a consumer
(WaitForFirstConsumer), Block mode gets a loop device the pod sees as a
block device, Immediate binds without a pod, an unknown class stays
Pending, and a released volume is deleted with its directory."""
import os
import subprocess
import time

import pytest

import sbcluster as sb

# one xdist worker runs this module (tests/suites/50-cluster.sh, --dist loadgroup):
# its module-scoped fixture is made once
pytestmark = pytest.mark.xdist_group("cluster-storage")

SIZE = 64 * 1024 * 1024


@pytest.fixture(scope="module")
def vols(cluster):
    """One namespace with claims of every kind and their consumer pods,
    created together so the cluster works on them in parallel."""
    with sb.namespace("storage") as ns:
        objs = [
            sb.pvc_manifest("fast", sb.FAST),
            sb.pvc_manifest("disk", sb.DISK),
            sb.pvc_manifest("block", sb.FAST, mode="Block"),
            sb.pvc_manifest("immediate", sb.IMMEDIATE),
            sb.pvc_manifest("unknown", "no-such-class"),
            sb.pvc_manifest("waiting", sb.DISK),  # WaitForFirstConsumer, no consumer
            sb.pvc_manifest("default", None),  # no class: the default class (disk)
        ]
        for name in ("fast", "disk"):
            objs.append(sb.simple_pod(f"use-{name}", ["write", "/data/hello", f"hello {name}"],
                                      volumes=[{"name": "d", "persistentVolumeClaim": {"claimName": name}}],
                                      mounts=[{"name": "d", "mountPath": "/data"}], run_as_user=65532))
        objs.append(sb.simple_pod("use-block", ["blkrw", "/dev/xvdb"],
                                  volumes=[{"name": "d", "persistentVolumeClaim": {"claimName": "block"}}],
                                  devices=[{"name": "d", "devicePath": "/dev/xvdb"}]))
        objs.append(sb.simple_pod("stat-block", ["stat", "/dev/xvdb"],
                                  volumes=[{"name": "d", "persistentVolumeClaim": {"claimName": "block2"}}],
                                  devices=[{"name": "d", "devicePath": "/dev/xvdb"}]))
        objs.append(sb.pvc_manifest("block2", sb.DISK, size="32Mi", mode="Block"))
        sb.apply(objs, namespace=ns)
        yield ns


def pv_of(ns, claim):
    c = sb.wait_pvc_bound(claim, ns)
    return sb.get(f"/api/v1/persistentvolumes/{c['spec']['volumeName']}")


@pytest.mark.parametrize("cls", ["fast", "disk"])
def test_class_binds_with_consumer(vols, cls):
    p = sb.wait_pod_done(f"use-{cls}", vols)
    assert p["status"]["phase"] == "Succeeded", sb.logs(f"use-{cls}", vols)
    pv = pv_of(vols, cls)
    assert pv["spec"]["storageClassName"] == cls
    assert pv["spec"]["persistentVolumeReclaimPolicy"] == "Delete"
    # the volume is on the node the scheduler picked for the pod, in that
    # node's directory of the class
    claim = sb.pvc(cls, vols)
    node = claim["metadata"]["annotations"]["volume.kubernetes.io/selected-node"]
    assert node in sb.NODES
    assert p["spec"]["nodeName"] == node
    terms = pv["spec"]["nodeAffinity"]["required"]["nodeSelectorTerms"]
    assert terms[0]["matchExpressions"][0] == {"key": "kubernetes.io/hostname", "operator": "In", "values": [node]}
    path = pv["spec"]["local"]["path"]
    assert path.startswith("/dev/shm/" if cls == "fast" else "/var/tmp/")
    assert os.path.basename(os.path.dirname(path)) == node
    # what the pod (uid 65532) wrote is in the class's host directory
    with open(os.path.join(path, "hello")) as f:
        assert f.read() == f"hello {cls}"
    assert os.stat(os.path.join(path, "hello")).st_uid == 65532


def test_default_class_is_disk(vols):
    # DefaultStorageClass admission gives a claim without a class "disk"
    assert sb.pvc("default", vols)["spec"]["storageClassName"] == sb.DISK


def test_block_mode_pod_sees_block_device(vols):
    p = sb.wait_pod_done("use-block", vols)
    assert p["status"]["phase"] == "Succeeded", sb.logs("use-block", vols)
    assert "blkrw ok" in sb.logs("use-block", vols)
    pv = pv_of(vols, "block")
    assert pv["spec"]["volumeMode"] == "Block"
    dev = pv["spec"]["local"]["path"]
    assert dev.startswith("/dev/loop")
    back = subprocess.run(["losetup", "-n", "-O", "BACK-FILE", dev], capture_output=True, text=True).stdout.strip()
    assert back.startswith("/dev/shm/") and back.endswith(".img")
    assert os.path.getsize(back) == SIZE
    sb.wait_pod_done("stat-block", vols)
    assert sb.logs("stat-block", vols).strip() == f"block {32 * 1024 * 1024}"


def test_immediate_binds_without_pod(vols):
    pv = pv_of(vols, "immediate")
    assert pv["spec"]["storageClassName"] == sb.IMMEDIATE
    assert os.path.isdir(pv["spec"]["local"]["path"])
    # the provisioner picked a node and pinned the volume to it
    node = pv["spec"]["nodeAffinity"]["required"]["nodeSelectorTerms"][0]["matchExpressions"][0]["values"][0]
    assert node in sb.NODES
    assert os.path.basename(os.path.dirname(pv["spec"]["local"]["path"])) == node


def test_unknown_class_and_unconsumed_claim_stay_pending(vols):
    # by now the others have bound; give the provisioner a few more passes
    sb.wait_pvc_bound("immediate", vols)
    time.sleep(3)
    for name in ("unknown", "waiting", "default"):
        c = sb.pvc(name, vols)
        assert c["status"]["phase"] == "Pending", name
        assert not c["spec"].get("volumeName"), name
    pvs = sb.get("/api/v1/persistentvolumes")["items"]
    claims = {(pv["spec"].get("claimRef") or {}).get("name") for pv in pvs
              if (pv["spec"].get("claimRef") or {}).get("namespace") == vols}
    assert not claims & {"unknown", "waiting", "default"}


def test_released_volume_is_deleted(vols):
    pv_dir = pv_of(vols, "fast")
    pv_blk = pv_of(vols, "block")
    loop = pv_blk["spec"]["local"]["path"]
    backing = pv_blk["metadata"]["annotations"]["storagebench.io/backing-path"]
    for p in ("use-fast", "use-block"):
        sb.delete("pod", p, vols, wait=True)
    sb.delete("pvc", "fast", vols)
    sb.delete("pvc", "block", vols)
    for pv in (pv_dir, pv_blk):
        sb.wait_for(lambda pv=pv: sb.get(f"/api/v1/persistentvolumes/{pv['metadata']['name']}") is None,
                    60, what=f"PV {pv['metadata']['name']} deleted")
    assert not os.path.exists(pv_dir["spec"]["local"]["path"])
    assert not os.path.exists(backing)
    out = subprocess.run(["losetup", "-n", "-O", "BACK-FILE", loop], capture_output=True, text=True).stdout
    assert backing not in out


def test_volume_follows_the_pod_to_its_node(ns):
    """WaitForFirstConsumer: a pod that must run on the last node gets its
    volume created on that node (selected-node, PV node affinity, the
    node's directory)."""
    node = sb.NODES[-1]
    sb.apply([sb.pvc_manifest("pinned", sb.FAST),
              sb.simple_pod("pinned", ["write", "/data/x", "on " + node], node=node,
                            volumes=[{"name": "d", "persistentVolumeClaim": {"claimName": "pinned"}}],
                            mounts=[{"name": "d", "mountPath": "/data"}])], namespace=ns)
    p = sb.wait_pod_done("pinned", ns)
    assert p["status"]["phase"] == "Succeeded", sb.logs("pinned", ns)
    assert p["spec"]["nodeName"] == node
    pv = pv_of(ns, "pinned")
    assert sb.pvc("pinned", ns)["metadata"]["annotations"]["volume.kubernetes.io/selected-node"] == node
    values = pv["spec"]["nodeAffinity"]["required"]["nodeSelectorTerms"][0]["matchExpressions"][0]["values"]
    assert values == [node]
    with open(os.path.join(pv["spec"]["local"]["path"], "x")) as f:
        assert f.read() == "on " + node
