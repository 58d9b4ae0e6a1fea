"""The test cluster's Ceph (SB_CEPH=1, tests/cluster/ceph): the classes ssd
and bulk (RBD images through rbd-fuse and a loop device, local PVs) and
cephfs (a CephFS directory per PV, ReadWriteMany, the kubelets' cephfs
plugin with ceph-fuse) provision, bind, mount, keep data across pods and
nodes and are deleted with their PVs; a full RBD volume gives the runner
ENOSPC, a CephFS volume's quota EDQUOT; radosgw answers pods; the fault helpers stop and start the OSDs,
the MDS and radosgw; the Ceph daemons talk only inside the sealed network.

Skipped when the cluster runs without Ceph; with SB_CEPH=1 in the
environment a missing Ceph is a failure, not a skip."""
import base64
import ipaddress
import json
import os
import re
import subprocess

import pytest

import conntrace
import sbcluster as sb

SIZE = "64Mi"
CEPH_ENV = os.path.join(sb.OUT, "ceph.env")
# Spread over two xdist workers (tests/suites/50-cluster.sh, --dist loadgroup):
# the tests of the RBD/CephFS classes and the MDS stop on one worker, in file
# order (the module-scoped vols made once; nothing mounts CephFS while the MDS
# is stopped); those of radosgw, with tests/cluster/test_s3.py, on one worker
# (no S3 request while radosgw is stopped). Stopping the bulk OSD, which
# holds the data of both (rbd-bulk, cephfs.data, the buckets), runs alone.
CEPH = pytest.mark.xdist_group("cluster-ceph")
RADOSGW = pytest.mark.xdist_group("cluster-radosgw")
COMPONENTS = ("ceph-mon", "ceph-mgr", "ceph-osd-ssd", "ceph-osd-bulk", "ceph-mds", "radosgw")


def ceph_env():
    return sb.read_env(CEPH_ENV, missing_ok=False)


@pytest.fixture(scope="module")
def ceph(cluster):
    """Ceph is up: its env, HEALTH_OK. Skip only when nobody asked for it."""
    if not os.path.exists(CEPH_ENV):
        if os.environ.get("SB_CEPH") == "1":
            pytest.fail(f"SB_CEPH=1 but the cluster has no Ceph ({CEPH_ENV} missing): "
                        "start it with SB_CEPH=1 make cluster-up")
        pytest.skip("the cluster runs without Ceph (SB_CEPH=1 make cluster-up)")
    e = ceph_env()
    sb.wait_for(lambda: ceph_cmd(e, "ceph", "health").strip() == "HEALTH_OK", timeout=120, what="HEALTH_OK")
    return e


def ceph_cmd(e, tool, *args, check=True):
    """A Ceph client command inside the namespace, always with the config."""
    p = subprocess.run(sb.NSENTER + [tool, "-c", e["CEPH_CONF"], "--connect-timeout", "20"] + list(args)
                       if tool == "ceph" else sb.NSENTER + [tool, "-c", e["CEPH_CONF"]] + list(args),
                       capture_output=True, text=True, timeout=120, cwd="/")
    if check and p.returncode != 0:
        raise sb.ClusterError(f"{tool} {' '.join(args)}: exit {p.returncode}: {p.stderr.strip()[-1000:]}")
    return p.stdout


def vol(name):
    return {"name": "d", "persistentVolumeClaim": {"claimName": name}}


MNT = [{"name": "d", "mountPath": "/data"}]


def as_user(pod):
    """The pod runs as 65532 with fsGroup 65532, as the controller's runner
    pods do (the kubelet gives the volume's root to the group)."""
    pod["spec"].setdefault("securityContext", {}).update(runAsUser=65532, fsGroup=65532)
    return pod


def runner_json(pod):
    """The runner's JSON document (its stdout) of a finished pod, read from
    the kubelet's CRI log file, where each line is tagged with its stream:
    `kubectl logs` interleaves the stderr lines with it."""
    md = pod["metadata"]
    path = os.path.join(sb.STATE, "nodes", sb.letter(pod["spec"]["nodeName"]), "var-log-pods",
                        f"{md['namespace']}_{md['name']}_{md['uid']}", "c", "0.log")
    out = []
    with open(path) as f:
        for line in f:
            _, stream, tag, text = line.rstrip("\n").split(" ", 3) if line.count(" ") >= 3 else (0, "", "", "")
            if stream == "stdout":
                out.append(text + ("\n" if tag == "F" else ""))
    return json.loads("".join(out))


def runner_pod(name, claim, args):
    return as_user(sb.simple_pod(name, args, image=sb.IMAGE, command=["/usr/local/bin/storagebench-runner"],
                                 volumes=[vol(claim)], mounts=MNT))


@pytest.fixture(scope="module")
def vols(ceph):
    """Claims of every Ceph class and their first consumers, made together."""
    with sb.namespace("ceph") as ns:
        objs = [
            sb.pvc_manifest("ssd", "ssd", size=SIZE),
            sb.pvc_manifest("bulk", "bulk", size=SIZE),
            sb.pvc_manifest("block", "ssd", size=SIZE, mode="Block"),
            sb.pvc_manifest("shared", "cephfs", size=SIZE, access=("ReadWriteMany",)),
            sb.pvc_manifest("full", "ssd", size=SIZE),
            sb.pvc_manifest("qfull", "cephfs", size=SIZE, access=("ReadWriteMany",)),
        ]
        for c in ("ssd", "bulk"):
            objs.append(as_user(sb.simple_pod(f"w-{c}", ["write", "/data/hello", f"hello {c}"], volumes=[vol(c)],
                                              mounts=MNT)))
        objs.append(sb.simple_pod("w-shared", ["write", "/data/hello", "hello cephfs"], volumes=[vol("shared")],
                                  mounts=MNT, run_as_user=65532, node=sb.NODES[0]))
        objs.append(sb.simple_pod("blk", ["blkrw", "/dev/xvdb"], volumes=[vol("block")],
                                  devices=[{"name": "d", "devicePath": "/dev/xvdb"}]))
        # 128 MiB into a 64 MiB volume
        objs.append(runner_pod("fill", "full", ["--name=fill", "--rw=write", "--bs=1M", "--size=128M",
                                                "--directory=/data", "--output-format=json"]))
        # 128 MiB into a CephFS directory with a 64 MiB quota
        objs.append(runner_pod("qfill", "qfull", ["--name=fill", "--rw=write", "--bs=1M", "--size=128M",
                                                  "--directory=/data", "--output-format=json"]))
        sb.apply(objs, namespace=ns)
        yield ns


def pv_of(ns, claim):
    c = sb.wait_pvc_bound(claim, ns, timeout=120)
    return sb.get(f"/api/v1/persistentvolumes/{c['spec']['volumeName']}")


def done_ok(name, ns, timeout=180):
    p = sb.wait_pod_done(name, ns, timeout=timeout)
    assert p["status"]["phase"] == "Succeeded", (p["status"], sb.logs(name, ns))
    return p


@CEPH
def test_ceph_daemons_run_in_the_sealed_namespace(ceph):
    ino = os.stat(sb.NETNS_PATH).st_ino
    for c in COMPONENTS:
        with open(os.path.join(sb.STATE, "run", c + ".pid")) as f:
            pid = f.read().strip()
        assert os.readlink(f"/proc/{pid}/ns/net") == f"net:[{ino}]", c
    st = json.loads(ceph_cmd(ceph, "ceph", "osd", "tree", "-f", "json"))
    classes = sorted(n.get("device_class") for n in st["nodes"] if n["type"] == "osd")
    assert classes == ["bulk", "ssd"]


@CEPH
@pytest.mark.parametrize("cls", ["ssd", "bulk"])
def test_rbd_class_provisions_binds_mounts(vols, ceph, cls):
    p = done_ok(f"w-{cls}", vols)
    pv = pv_of(vols, cls)
    spec = pv["spec"]
    assert spec["storageClassName"] == cls and spec["volumeMode"] == "Filesystem"
    assert re.fullmatch(r"/dev/loop\d+", spec["local"]["path"]), spec["local"]
    assert spec["local"].get("fsType") == "ext4"
    node = p["spec"]["nodeName"]
    terms = spec["nodeAffinity"]["required"]["nodeSelectorTerms"][0]["matchExpressions"][0]
    assert terms["values"] == [node]
    # an image of the claim's size in the pool of the class
    image = pv["metadata"]["annotations"]["storagebench.io/rbd-image"]
    assert image == f"rbd-{cls}/{pv['metadata']['name']}"
    info = json.loads(ceph_cmd(ceph, "rbd", "--id", "admin", "info", image, "--format", "json"))
    assert info["size"] == 64 * 2**20
    # the data is on the volume: another pod (same node: RWO, local PV) reads it
    sb.apply(sb.simple_pod(f"r-{cls}", ["cat", "/data/hello"], volumes=[vol(cls)], mounts=MNT), namespace=vols)
    done_ok(f"r-{cls}", vols)
    assert sb.logs(f"r-{cls}", vols).strip() == f"hello {cls}"


@CEPH
def test_rbd_block_mode(vols):
    done_ok("blk", vols)
    assert "blkrw ok" in sb.logs("blk", vols)
    pv = pv_of(vols, "block")
    assert pv["spec"]["volumeMode"] == "Block" and "fsType" not in pv["spec"]["local"]


@CEPH
def test_cephfs_rwx_across_nodes(vols, ceph):
    done_ok("w-shared", vols)
    pv = pv_of(vols, "shared")
    spec = pv["spec"]
    assert spec["accessModes"] == ["ReadWriteMany"] and "nodeAffinity" not in spec
    assert spec["cephfs"]["path"] == "/volumes/" + pv["metadata"]["name"]
    assert spec["cephfs"]["secretRef"] == {"name": "ceph-k8sfs", "namespace": "kube-system"}
    # quota of the claim's size on the directory
    d = pv["metadata"]["annotations"]["storagebench.io/cephfs-dir"]
    assert os.getxattr(d, "ceph.quota.max_bytes") == str(64 * 2**20).encode()
    # the last node reads what the first wrote, and writes back, while a
    # pod on the first keeps it mounted
    other = sb.NODES[-1]
    sb.apply([sb.simple_pod("hold", ["sleep", "300"], volumes=[vol("shared")], mounts=MNT, node=sb.NODES[0]),
              sb.simple_pod("r-shared", ["cat", "/data/hello"], volumes=[vol("shared")], mounts=MNT, node=other)],
             namespace=vols)
    done_ok("r-shared", vols)
    assert sb.logs("r-shared", vols).strip() == "hello cephfs"
    assert sb.pod("hold", vols)["spec"]["nodeName"] == sb.NODES[0]
    assert sb.wait_pod_phase("hold", vols, phases=("Running",))["status"]["phase"] == "Running"
    with open(os.path.join(d, "hello")) as f:
        assert f.read().strip() == "hello cephfs"


@CEPH
def test_full_rbd_volume_gives_enospc_in_the_runner(vols):
    p = sb.wait_pod_done("fill", vols, timeout=240)
    out = sb.logs("fill", vols)
    assert p["status"]["phase"] == "Failed" and sb.exit_code(p) == 1, out[-2000:]
    job = runner_json(p)["jobs"][0]
    assert job["error"] == 28, job.get("storagebench", {}).get("errors")
    errs = job["storagebench"]["errors"]
    assert errs["enospc"] >= 1 and "No space left on device" in errs["message"]


@CEPH
def test_cephfs_quota_is_the_claims_size(vols):
    """ceph-fuse enforces the directory's quota: a 128 MiB file does not
    fit a 64 MiB claim (EDQUOT, reported by the runner)."""
    p = sb.wait_pod_done("qfill", vols, timeout=240)
    out = sb.logs("qfill", vols)
    assert p["status"]["phase"] == "Failed" and sb.exit_code(p) == 1, out[-2000:]
    job = runner_json(p)["jobs"][0]
    assert job["error"] == 122, job.get("storagebench", {}).get("errors")
    assert "Disk quota exceeded" in job["storagebench"]["errors"]["message"]


@CEPH
def test_deleted_claims_remove_image_loop_and_directory(ceph):
    with sb.namespace("cephdel") as ns:
        sb.apply([sb.pvc_manifest("r", "bulk", size="32Mi"),
                  sb.pvc_manifest("f", "cephfs", size="32Mi", access=("ReadWriteMany",)),
                  sb.simple_pod("use", ["write", "/data/x", "x"], volumes=[vol("r")], mounts=MNT),
                  sb.simple_pod("usef", ["write", "/data/x", "x"], volumes=[vol("f")], mounts=MNT)], namespace=ns)
        done_ok("use", ns)
        done_ok("usef", ns)
        pvr, pvf = pv_of(ns, "r"), pv_of(ns, "f")
        ann_r, ann_f = pvr["metadata"]["annotations"], pvf["metadata"]["annotations"]
        image, loop = ann_r["storagebench.io/rbd-image"], ann_r["storagebench.io/loop-device"]
        assert image.split("/")[1] in ceph_cmd(ceph, "rbd", "--id", "admin", "ls", "rbd-bulk").split()
        assert os.path.isdir(ann_f["storagebench.io/cephfs-dir"])
        for k, n in (("pod", "use"), ("pod", "usef"), ("pvc", "r"), ("pvc", "f")):
            sb.delete(k, n, namespace=ns)
        for pv in (pvr, pvf):
            sb.wait_for(lambda pv=pv: sb.get(f"/api/v1/persistentvolumes/{pv['metadata']['name']}") is None,
                        timeout=120, what=f"PV {pv['metadata']['name']} deleted")
        assert image.split("/")[1] not in ceph_cmd(ceph, "rbd", "--id", "admin", "ls", "rbd-bulk").split()
        back = subprocess.run(["losetup", "-n", "-O", "BACK-FILE", loop], capture_output=True, text=True).stdout
        assert ann_r["storagebench.io/backing-path"] not in back
        assert not os.path.exists(ann_r["storagebench.io/rbd-fuse-dir"])
        assert not os.path.exists(ann_f["storagebench.io/cephfs-dir"])


def s3_curl(e, method, path, data=None):
    """A SigV4-signed request to radosgw from inside the namespace; (status, body)."""
    cmd = ["curl", "-s", "-m", "20", "-X", method, "-w", "\n%{http_code}",
           "--aws-sigv4", "aws:amz:us-east-1:s3", "--user", f"{e['AWS_ACCESS_KEY_ID']}:{e['AWS_SECRET_ACCESS_KEY']}",
           "-H", "x-amz-content-sha256: UNSIGNED-PAYLOAD", e["endpoint"] + path]
    if data is not None:
        cmd[1:1] = ["--data-binary", "@-"]
    p = sb.run(cmd, input=data, check=False)
    body, _, code = p.stdout.rpartition("\n")
    return int(code or 0), body


@RADOSGW
def test_s3_user_secret_and_radosgw_from_pods(ceph, ns):
    sec = sb.get("/api/v1/namespaces/default/secrets/ceph-s3")
    d = {k: base64.b64decode(v).decode() for k, v in sec["data"].items()}
    assert d["AWS_ACCESS_KEY_ID"] == ceph["AWS_ACCESS_KEY_ID"] and d["endpoint"] == ceph["S3_ENDPOINT"]
    # the keys work: bucket, object, read back
    bucket = "t" + ns.replace("-", "")
    assert s3_curl(d, "PUT", f"/{bucket}")[0] == 200
    assert s3_curl(d, "PUT", f"/{bucket}/obj", data="object data")[0] == 200
    assert s3_curl(d, "GET", f"/{bucket}/obj") == (200, "object data")
    # a pod reaches radosgw, directly and through the Service ceph-s3
    ip = d["endpoint"].split("//")[1].split(":")[0]
    svc = sb.get("/api/v1/namespaces/default/services/ceph-s3")["spec"]["clusterIP"]
    sb.apply([sb.simple_pod("s3", ["get", ip, "7480", "/"]), sb.simple_pod("s3svc", ["get", svc, "80", "/"])],
             namespace=ns)
    for name in ("s3", "s3svc"):
        done_ok(name, ns)
        assert "ListAllMyBucketsResult" in sb.logs(name, ns), sb.logs(name, ns)
    assert s3_curl(d, "DELETE", f"/{bucket}/obj")[0] == 204
    assert s3_curl(d, "DELETE", f"/{bucket}")[0] == 204


def osd_up(e, cls):
    dump = json.loads(ceph_cmd(e, "ceph", "osd", "dump", "-f", "json"))
    return [o["up"] for o in dump["osds"] if o["osd"] == int(e["CEPH_OSD_" + cls.upper()])] == [1]


@pytest.mark.serial  # the bulk OSD holds every Ceph test's data
def test_fault_stop_and_start_an_osd(ceph):
    try:
        sb.fault("stop", "ceph-osd-bulk")
        assert sb.fault("state", "ceph-osd-bulk").strip() == "stopped"
        assert not osd_up(ceph, "bulk")
        assert osd_up(ceph, "ssd")
    finally:
        sb.fault("start", "ceph-osd-bulk")
    assert osd_up(ceph, "bulk")
    sb.wait_for(lambda: ceph_cmd(ceph, "ceph", "health").strip() == "HEALTH_OK", timeout=120, what="HEALTH_OK")


@CEPH
def test_fault_stop_and_start_the_mds(ceph):
    try:
        sb.fault("stop", "ceph-mds")
        assert "up:active" not in ceph_cmd(ceph, "ceph", "mds", "stat")
    finally:
        sb.fault("start", "ceph-mds")
    assert "up:active" in ceph_cmd(ceph, "ceph", "mds", "stat")


@RADOSGW
def test_fault_stop_and_start_radosgw(ceph):
    def code():
        return sb.run(["curl", "-s", "-m", "5", "-o", "/dev/null", "-w", "%{http_code}", ceph["S3_ENDPOINT"] + "/"],
                      check=False).stdout
    try:
        sb.fault("stop", "radosgw")
        assert code() == "000"
    finally:
        sb.fault("start", "radosgw")
    assert code() == "200"


ALLOWED = [ipaddress.ip_network(n) for n in ("127.0.0.0/8", "10.254.254.0/24", "10.244.0.0/16", "0.0.0.0/32")]


@CEPH
def test_ceph_daemons_connect_only_inside(ceph):
    """With SB_TRACE_CONNECT: every connect() of the Ceph daemons so far.
    Always: every TCP socket of the namespace the daemons live in is
    bound to and connected with the sealed network or loopback."""
    d = os.environ.get("SB_TRACE_CONNECT")
    if d and os.path.isdir(d):
        logs = [f for f in os.listdir(d) if f.split(".")[0] in COMPONENTS]
        assert len(logs) == len(COMPONENTS), logs
        bad = []
        for f in logs:
            with open(os.path.join(d, f), errors="replace") as fh:
                bad += [(f, line) for line in fh if conntrace.check_line(line)]
        assert not bad, bad[:20]
    out = sb.run(["ss", "-Htanp"]).stdout
    seen = 0
    for line in out.splitlines():
        if not re.search(r'"(ceph-\w+|radosgw|ceph-fuse|rbd-fuse)"', line):
            continue
        seen += 1
        for addr in line.split()[3:5]:
            host = addr.rsplit(":", 1)[0].strip("[]")
            if host == "*":
                continue
            assert any(ipaddress.ip_address(host) in n for n in ALLOWED), line
    assert seen >= len(COMPONENTS)
