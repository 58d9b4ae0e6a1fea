"""What the test cluster's RBD classes do beyond provisioning
(tests/cluster/test_ceph.py): bulk's rate limit (librbd QoS on the pool),
ssd-xfs's volume expansion through the real API (tests/cluster/resizer.py),
and the VolumeSnapshot API: a snapshot that is an RBD snapshot, ready, and
restored into a bound claim that has the data as it was when the snapshot
was taken (tests/cluster/snapshotter.py).

No check depends on the machine's speed: the rate limit is an upper bound
(a slower machine only does fewer I/Os); everything else waits for a state."""
import json

import pytest

import sbcluster as sb
from test_ceph import MNT, as_user, ceph, ceph_cmd, runner_json, runner_pod, vol  # noqa: F401 (fixture)

MIB = 2**20
GROUP = "/apis/snapshot.storage.k8s.io/v1"


def pv_of(claim, ns):
    return sb.get(f"/api/v1/persistentvolumes/{sb.pvc(claim, ns)['spec']['volumeName']}")


def image_of(claim, ns):
    return pv_of(claim, ns)["metadata"]["annotations"]["storagebench.io/rbd-image"]


def events(ns, name):
    """Reasons of the events about an object, in the order they were written.
    firstTimestamp has a one-second grain and the resizer posts several
    events within a second under random generated names, so the API
    server's revision (etcd's, one counter for every write) breaks ties."""
    return [e["reason"] for e in sorted(
        sb.kubectl_json("-n", ns, "get", "events", "--field-selector", f"involvedObject.name={name}")["items"],
        key=lambda e: (e.get("firstTimestamp") or "", int(e["metadata"]["resourceVersion"])))]


def qos(ceph, image):
    rows = json.loads(ceph_cmd(ceph, "rbd", "config", "image", "list", image, "--format", "json"))
    return {r["name"]: (int(r["value"]), r["source"]) for r in rows if r["name"] in (
        "rbd_qos_iops_limit", "rbd_qos_bps_limit")}


def test_bulk_is_rate_limited_and_ssd_is_not(ceph, ns):
    sb.apply([sb.pvc_manifest("b", "bulk", size="128Mi"), sb.pvc_manifest("s", "ssd", size="64Mi"),
              runner_pod("rr", "b", ["--name=rr", "--rw=randread", "--bs=4k", "--iodepth=16", "--size=64M",
                                     "--directory=/data", "--direct=1", "--ramp_time=1s", "--runtime=3s",
                                     "--time_based", "--output-format=json"]),
              as_user(sb.simple_pod("w", ["write", "/data/x", "x"], volumes=[vol("s")], mounts=MNT))],
             namespace=ns)
    p = sb.wait_pod_done("rr", ns, timeout=300)
    assert sb.exit_code(p) == 0, sb.logs("rr", ns)
    assert qos(ceph, image_of("b", ns)) == {"rbd_qos_iops_limit": (500, "pool"),
                                            "rbd_qos_bps_limit": (60 * MIB, "pool")}
    sb.wait_pod_done("w", ns, timeout=300)
    assert qos(ceph, image_of("s", ns)) == {"rbd_qos_iops_limit": (0, "config"), "rbd_qos_bps_limit": (0, "config")}
    # the limit holds: after the ramp (which spends the token bucket's one
    # second of burst) no more than 500 IOPS, with a little for the ticks
    iops = runner_json(p)["jobs"][0]["read"]["iops"]
    assert 0 < iops <= 500 * 1.05, iops


def pvc_status(name, ns):
    st = sb.pvc(name, ns).get("status") or {}
    return st.get("capacity", {}).get("storage"), [c["type"] for c in st.get("conditions") or []]


def test_ssd_xfs_volume_expands_while_mounted(ceph, ns):
    sb.apply([sb.pvc_manifest("x", "ssd-xfs", size="300Mi"), sb.pvc_manifest("tiny", "ssd-xfs", size="16Mi"),
              as_user(sb.simple_pod("hold", ["sleep", "600"], volumes=[vol("x")], mounts=MNT)),
              as_user(sb.simple_pod("t", ["write", "/data/x", "x"], volumes=[vol("tiny")], mounts=MNT))],
             namespace=ns)
    sb.wait_pod_phase("hold", ns, ("Running",), timeout=300)
    assert pvc_status("x", ns) == ("300Mi", [])
    pv = pv_of("x", ns)
    assert pv["spec"]["local"]["fsType"] == "xfs"
    # below mkfs.xfs's minimum: a 300Mi volume, as the claim's capacity says
    assert sb.exit_code(sb.wait_pod_done("t", ns, timeout=300)) == 0
    assert pvc_status("tiny", ns)[0] == "300Mi"

    sb.kubectl("-n", ns, "patch", "pvc", "x", "--type=merge", "-p",
               '{"spec": {"resources": {"requests": {"storage": "600Mi"}}}}')
    sb.wait_for(lambda: pvc_status("x", ns) == ("600Mi", []), timeout=120, what="the claim at 600Mi")
    assert pv_of("x", ns)["spec"]["capacity"]["storage"] == "600Mi"
    ev = events(ns, "x")
    for r in ("Resizing", "FileSystemResizeRequired", "FileSystemResizeSuccessful"):
        assert r in ev, ev
    assert ev.index("Resizing") < ev.index("FileSystemResizeSuccessful")
    # the image and the filesystem the pod has mounted are bigger
    info = json.loads(ceph_cmd(ceph, "rbd", "info", image_of("x", ns), "--format", "json"))
    assert info["size"] == 600 * MIB
    node = sb.get(f"/api/v1/namespaces/{ns}/pods/hold")["spec"]["nodeName"]
    # df exits 1 when any mount of the host is unreachable (a FUSE mount of
    # another cluster instance); the lines it could read are still printed
    df = sb.in_node(node, ["df", "-B1", "--output=size,source"], check=False).stdout
    sizes = [int(line.split()[0]) for line in df.splitlines()[1:] if line.split()[1] == pv["spec"]["local"]["path"]]
    assert sizes and min(sizes) > 400 * MIB, df  # more than the 300Mi it had (less the log)


def test_a_class_without_expansion_refuses_it(ceph, ns):
    sb.apply([sb.pvc_manifest("e", "ssd", size="64Mi"),
              as_user(sb.simple_pod("w", ["write", "/data/x", "x"], volumes=[vol("e")], mounts=MNT))], namespace=ns)
    sb.wait_pod_done("w", ns, timeout=300)
    p = sb.kubectl("-n", ns, "patch", "pvc", "e", "--type=merge", "-p",
                   '{"spec": {"resources": {"requests": {"storage": "128Mi"}}}}', check=False)
    assert p.returncode != 0 and "only dynamically provisioned pvc can be resized and the storageclass that " \
        "provisions the pvc must support resize" in p.stderr, p.stderr


def snapshot(name, claim, cls=None):
    spec = {"source": {"persistentVolumeClaimName": claim}}
    if cls:
        spec["volumeSnapshotClassName"] = cls
    return {"apiVersion": "snapshot.storage.k8s.io/v1", "kind": "VolumeSnapshot", "metadata": {"name": name},
            "spec": spec}


def vs_get(name, ns):
    return sb.get(f"{GROUP}/namespaces/{ns}/volumesnapshots/{name}")


def ready(name, ns):
    v = vs_get(name, ns)
    return v if v and (v.get("status") or {}).get("readyToUse") else None


def restore(name, snap, size="64Mi", cls="ssd"):
    c = sb.pvc_manifest(name, cls, size=size)
    c["spec"]["dataSource"] = {"apiGroup": "snapshot.storage.k8s.io", "kind": "VolumeSnapshot", "name": snap}
    return c


def test_snapshot_is_an_rbd_snapshot_and_restores_the_data_as_it_was(ceph, ns):
    sb.apply([sb.pvc_manifest("src", "ssd", size="64Mi"),
              as_user(sb.simple_pod("w1", ["write", "/data/hello", "before"], volumes=[vol("src")], mounts=MNT))],
             namespace=ns)
    node = sb.wait_pod_done("w1", ns, timeout=300)["spec"]["nodeName"]
    sb.apply([snapshot("snap", "src")], namespace=ns)
    v = sb.wait_for(lambda: ready("snap", ns), timeout=120, what="the snapshot ready")
    image = image_of("src", ns)
    content = sb.get(f"{GROUP}/volumesnapshotcontents/{v['status']['boundVolumeSnapshotContentName']}")
    assert content["spec"]["driver"] == "storagebench.io/ceph"
    assert content["spec"]["volumeSnapshotClassName"] == "ceph-rbd"  # the default class
    assert content["spec"]["volumeSnapshotRef"]["uid"] == v["metadata"]["uid"]
    assert content["status"]["readyToUse"] is True
    assert content["status"]["snapshotHandle"] == f"{image}@snapshot-{v['metadata']['uid']}"
    assert content["status"]["restoreSize"] == 64 * MIB and v["status"]["restoreSize"] == str(64 * MIB)
    snaps = json.loads(ceph_cmd(ceph, "rbd", "snap", "ls", image, "--format", "json"))
    assert [s["name"] for s in snaps] == [f"snapshot-{v['metadata']['uid']}"]
    assert "snapshot.storage.kubernetes.io/volumesnapshot-bound-protection" in v["metadata"]["finalizers"]
    assert "SnapshotReady" in events(ns, "snap")

    # written after the snapshot: not in the restored volume
    sb.apply([as_user(sb.simple_pod("w2", ["write", "/data/hello", "after"], volumes=[vol("src")], mounts=MNT,
                                    node=node))], namespace=ns)
    sb.wait_pod_done("w2", ns, timeout=300)
    sb.apply([restore("copy", "snap"), restore("small", "snap", size="32Mi"),
              as_user(sb.simple_pod("r", ["cat", "/data/hello"], volumes=[vol("copy")], mounts=MNT))], namespace=ns)
    r = sb.wait_pod_done("r", ns, timeout=300)
    assert sb.exit_code(r) == 0 and sb.logs("r", ns).strip() == "before", sb.logs("r", ns)
    assert sb.pvc("copy", ns)["status"]["phase"] == "Bound"
    assert image_of("copy", ns) != image
    # smaller than the snapshot: refused, naming why
    sb.apply([as_user(sb.simple_pod("rs", ["cat", "/data/hello"], volumes=[vol("small")], mounts=MNT))],
             namespace=ns)
    sb.wait_for(lambda: any("restoreSize" in (e.get("message") or "") for e in sb.kubectl_json(
        "-n", ns, "get", "events", "--field-selector", "involvedObject.name=small")["items"]), timeout=120,
        what="a ProvisioningFailed event naming restoreSize")
    assert sb.pvc("small", ns)["status"]["phase"] == "Pending"

    # the source claim deleted while a snapshot of it remains: its image stays
    # until the snapshot goes; deleting the snapshot removes the RBD snapshot,
    # the content, and then the image
    sb.kubectl("-n", ns, "delete", "pod", "w1", "w2", "--wait=true")
    pv_name = sb.pvc("src", ns)["spec"]["volumeName"]
    sb.kubectl("-n", ns, "delete", "pvc", "src", "--wait=true")
    sb.wait_for(lambda: sb.get(f"/api/v1/persistentvolumes/{pv_name}") is None, timeout=120, what="src's PV gone")
    assert image.split("/")[1] in ceph_cmd(ceph, "rbd", "ls", image.split("/")[0])
    sb.kubectl("-n", ns, "delete", "volumesnapshot", "snap", "--wait=true", "--timeout=120s")
    assert sb.get(f"{GROUP}/volumesnapshotcontents/{content['metadata']['name']}") is None
    sb.wait_for(lambda: image.split("/")[1] not in ceph_cmd(ceph, "rbd", "ls", image.split("/")[0]), timeout=60,
                what="the released image removed with its last snapshot")


def test_snapshot_of_a_claim_that_is_not_rbd_fails_with_a_reason(ceph, ns):
    sb.apply([sb.pvc_manifest("f", sb.FAST, size="16Mi"),
              sb.simple_pod("w", ["write", "/data/x", "x"], volumes=[vol("f")], mounts=MNT),
              snapshot("bad", "f", cls="ceph-rbd")], namespace=ns)
    v = sb.wait_for(lambda: (vs_get("bad", ns).get("status") or {}).get("error"), timeout=120,
                    what="the snapshot's error")
    assert "is not a bound RBD volume" in v["message"], v
    assert vs_get("bad", ns)["status"]["readyToUse"] is False
