"""A BenchmarkRun with a storage class and an object store (the test
cluster's radosgw, SB_CEPH=1) side by side: three iterations, each
workload of both targets in the report with its mean and deviation, the
object store's per-run buckets removed; wrong keys end the run with a
condition naming the target. Skipped when the cluster runs without Ceph."""
import base64
import json
import os

import pytest

from conftest import results, sb, wait_phase

CEPH_ENV = os.path.join(sb.OUT, "ceph.env")

RUN = """
apiVersion: storagebench.io/v1alpha1
kind: BenchmarkRun
metadata: {name: %(name)s}
spec:
  storageClasses: [fast]
  iterations: %(iterations)d
  volume: {size: 64Mi}
  workloads:
  - {name: rr, rw: randread, bs: 4k, iodepth: 8, runtime: 1s, timeBased: true}
  objectStores:
  - name: rgw
    endpoint: %(endpoint)s
    secretRef: {name: s3keys}
  objectWorkloads:
  - {name: put-64k, benchmark: put, objectSize: 64KiB, concurrent: 2, duration: 2s}
  - {name: get-64k, benchmark: get, objectSize: 64KiB, objects: 20, concurrent: 2, duration: 2s}
  runner:
    imagePullPolicy: Never
"""


@pytest.fixture
def s3keys(ns):
    if not os.path.exists(CEPH_ENV):
        if os.environ.get("SB_CEPH") == "1":
            pytest.fail(f"SB_CEPH=1 but the cluster has no Ceph ({CEPH_ENV} missing)")
        pytest.skip("the cluster runs without Ceph (SB_CEPH=1 make cluster-up)")
    sec = sb.get("/api/v1/namespaces/default/secrets/ceph-s3")
    d = {k: base64.b64decode(v).decode() for k, v in sec["data"].items()}

    def make(secret=None, consent=True):
        sb.kubectl("-n", ns, "delete", "secret", "s3keys", "--ignore-not-found")
        sb.kubectl("-n", ns, "create", "secret", "generic", "s3keys",
                   f"--from-literal=AWS_ACCESS_KEY_ID={d['AWS_ACCESS_KEY_ID']}",
                   f"--from-literal=AWS_SECRET_ACCESS_KEY={secret or d['AWS_SECRET_ACCESS_KEY']}")
        if consent:  # its owner lends it to benchmark runs (docs/security.md)
            sb.kubectl("-n", ns, "label", "secret", "s3keys", "storagebench.io/credentials=true")
    make()
    make.endpoint = d["endpoint"]
    make.env = sb.read_env(CEPH_ENV, missing_ok=False)
    return make


def rgw_buckets(e):
    p = sb.run(["radosgw-admin", "-c", e["CEPH_CONF"], "bucket", "list"])
    return set(json.loads(p.stdout))


def test_storage_class_and_object_store_side_by_side(ns, controller, s3keys):
    before = rgw_buckets(s3keys.env)
    sb.apply(RUN % {"name": "both", "iterations": 3, "endpoint": s3keys.endpoint}, namespace=ns)
    st = wait_phase(ns, "both", timeout=400)
    assert st["phase"] == "Succeeded", st
    assert st["progress"] == "6/6"
    res = results(ns, "both")
    assert sorted(res) == [("fast", 1), ("fast", 2), ("fast", 3), ("rgw", 1), ("rgw", 2),
                           ("rgw", 3)]
    for it in (1, 2, 3):
        jobs = {j["jobname"]: j for j in res[("rgw", it)]["jobs"]}
        assert set(jobs) == {"put-64k", "get-64k"}
        for j in jobs.values():
            assert j["storagebench"]["s3"]["errors"] == 0
            assert j["storagebench"]["s3"]["requests"] > 0
    cm = sb.kubectl_json("-n", ns, "get", "configmap", "both-report")
    report = json.loads(cm["data"]["report.json"])
    assert set(report["targets"]) == {"fast", "rgw"}
    got = {(r["target"], r["workload"]): r for r in report["results"]}
    assert set(got) == {("fast", "rr"), ("rgw", "put-64k"), ("rgw", "get-64k")}
    assert got[("fast", "rr")]["metrics"]["read-iops"]["n"] == 3
    put, get = got[("rgw", "put-64k")], got[("rgw", "get-64k")]
    assert put["metrics"]["write-iops"]["n"] == 3 and put["metrics"]["write-iops"]["mean"] > 0
    assert get["metrics"]["read-iops"]["n"] == 3 and get["metrics"]["read-bw"]["mean"] > 0
    assert get["metrics"]["ttfb-p50"]["n"] == 3
    assert (get["rw"], get["bs"], get["iodepth"]) == ("s3-get", "65536", 2)
    assert get["metrics"]["errors"]["n"] == 3 and get["metrics"]["errors"]["mean"] == 0
    txt = cm["data"]["report.txt"]
    assert "fast: rr: " in txt and "rgw: get-64k: GET 64 KiB x 2: " in txt and "TTFB p50" in txt
    # the block table has fast, the object table rgw (docs/s3.md "In the report")
    block, objects = txt.split("\n=== object storage\n")
    assert "\nfast " in block and "\nrgw " not in block
    assert "\nrgw    | get-64k  | GET       | 64 KiB      | 2 " in objects, objects
    # every per-run bucket is gone from radosgw
    assert rgw_buckets(s3keys.env) == before


def test_wrong_keys_condition_names_the_target(ns, controller, s3keys):
    s3keys(secret="not-the-secret")
    sb.apply(RUN % {"name": "badkeys", "iterations": 1, "endpoint": s3keys.endpoint},
             namespace=ns)
    st = wait_phase(ns, "badkeys", timeout=300)
    assert st["phase"] == "Failed", st
    cond = st["conditions"][0]
    assert "rgw: " in cond["message"] and "access denied" in cond["message"], cond
    assert "not-the-secret" not in json.dumps(st)
    # the storage class ran all the same
    assert [c["phase"] for c in st["classes"]] == ["Succeeded", "Failed"]


def test_secret_without_consent_is_refused_by_name(ns, controller, s3keys):
    """A Secret that never said it is for benchmarks lends no keys: the run is
    refused before anything is created, naming the field and the Secret."""
    s3keys(consent=False)
    sb.apply(RUN % {"name": "noconsent", "iterations": 1, "endpoint": s3keys.endpoint},
             namespace=ns)
    st = wait_phase(ns, "noconsent", timeout=120)
    assert st["phase"] == "Failed", st
    assert st["conditions"][0]["reason"] == "InvalidSpec", st
    assert ("spec.objectStores[0].secretRef.name: Secret 's3keys' does not lend its keys"
            in st["message"]), st
    assert "storagebench.io/credentials=true" in st["message"], st
    pods = sb.kubectl("-n", ns, "get", "pods", "-l", "storagebench.io/run=noconsent",
                      "-o", "name")
    assert pods.strip() == "", pods
