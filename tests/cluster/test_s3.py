"""The runner's S3 benchmark (storagebench-runner s3) against the test
cluster's radosgw (SB_CEPH=1): every operation, the prepare phase,
multipart, the bucket removed afterwards, counts checked against the
server's own view (radosgw-admin bucket stats), 403 with wrong keys, and
radosgw stopped in the middle of a run giving counted errors.

The runner runs inside the cluster's network namespace (radosgw listens
only there). Skipped when the cluster runs without Ceph; with SB_CEPH=1 a
missing Ceph is a failure."""
import json
import os
import subprocess
import time
import uuid

import pytest

import sbcluster as sb

CEPH_ENV = os.path.join(sb.OUT, "ceph.env")
# one xdist worker runs these, with test_ceph.py's radosgw tests, in file
# order (tests/suites/50-cluster.sh, --dist loadgroup): no bucket is made
# while test_wrong_keys_403 compares the list, no request is sent while
# test_radosgw_stopped_mid_run_counts_errors has radosgw stopped
pytestmark = pytest.mark.xdist_group("cluster-radosgw")
RUNNER = os.environ.get("SB_RUNNER", os.path.join(sb.ROOT, "build/asan/bin/storagebench-runner"))


@pytest.fixture(scope="module")
def ceph(cluster):
    if not os.path.exists(CEPH_ENV):
        if os.environ.get("SB_CEPH") == "1":
            pytest.fail(f"SB_CEPH=1 but the cluster has no Ceph ({CEPH_ENV} missing)")
        pytest.skip("the cluster runs without Ceph (SB_CEPH=1 make cluster-up)")
    if not os.access(RUNNER, os.X_OK):
        pytest.fail(f"{RUNNER} missing: make asan")
    return sb.read_env(CEPH_ENV, missing_ok=False)


def admin(e, *args, check=True):
    """radosgw-admin inside the namespace, with the cluster's config."""
    p = subprocess.run(sb.NSENTER + ["radosgw-admin", "-c", e["CEPH_CONF"]] + list(args),
                       capture_output=True, text=True, timeout=120, cwd="/")
    if check and p.returncode != 0:
        raise sb.ClusterError(f"radosgw-admin {' '.join(args)}: {p.stderr.strip()[-800:]}")
    return p


def buckets(e):
    return set(json.loads(admin(e, "bucket", "list").stdout))


def bucket_stats(e, name):
    """(objects, bytes) as radosgw counts them."""
    st = json.loads(admin(e, "bucket", "stats", "--bucket", name).stdout)
    main = st.get("usage", {}).get("rgw.main", {})
    return main.get("num_objects", 0), main.get("size", 0)


def s3(e, *args, secret=None, popen=False):
    host = e["S3_ENDPOINT"].split("//", 1)[1]
    cmd = ["env", f"AWS_ACCESS_KEY_ID={e['AWS_ACCESS_KEY_ID']}",
           f"AWS_SECRET_ACCESS_KEY={secret or e['AWS_SECRET_ACCESS_KEY']}",
           "ASAN_OPTIONS=detect_leaks=1",
           RUNNER, "s3", "--host", host, "--log-level", "warn", "--output-format=json"]
    cmd += [str(a) for a in args]
    if popen:
        return subprocess.Popen(sb.NSENTER + cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                text=True, cwd="/")
    return subprocess.run(sb.NSENTER + cmd, capture_output=True, text=True, timeout=300, cwd="/")


def ops(doc):
    return {j["storagebench"]["s3"]["op"]: j["storagebench"]["s3"] for j in doc["jobs"]}


def unique():
    return "sbt-" + uuid.uuid4().hex[:12]


def test_put_counts_match_radosgw(ceph):
    name = unique()
    try:
        p = s3(ceph, "--bucket", name, "--obj.size", "64KiB", "--concurrent", "4",
               "--duration", "3s", "--keep-data", "put")
        assert p.returncode == 0, p.stderr
        doc = json.loads(p.stdout)
        put = ops(doc)["PUT"]
        assert put["errors"] == 0 and put["objects"] > 0
        # the server's own view: as many objects and bytes as the runner counted
        assert bucket_stats(ceph, name) == (put["objects"], put["bytes"])
        assert put["bytes"] == put["objects"] * 65536
        # a second run on the bucket, which now holds data, is refused
        p = s3(ceph, "--bucket", name, "--obj.size", "1KiB", "--duration", "1s", "put")
        assert p.returncode == 1 and f"bucket '{name}' is not empty" in p.stderr, p.stderr
        assert bucket_stats(ceph, name)[0] == put["objects"]
    finally:
        admin(ceph, "bucket", "rm", "--bucket", name, "--purge-objects", check=False)


@pytest.mark.parametrize("op", ["get", "stat", "list", "delete", "mixed"])
def test_operations_prepare_and_cleanup(ceph, op):
    before = buckets(ceph)
    p = s3(ceph, "--obj.size", "4KiB", "--objects", "60", "--concurrent", "3",
           "--duration", "2s", "--max-keys", "8", op)
    assert p.returncode == 0, p.stderr
    doc = json.loads(p.stdout)
    assert doc["s3"]["prepared"] == 60
    got = ops(doc)
    want = {"GET", "STAT", "PUT", "DELETE"} if op == "mixed" else {op.upper()}
    assert set(got) == want
    for k, x in got.items():
        assert x["errors"] == 0 and x["requests"] > 0, (k, x)
        assert x["req_ns"]["N"] == x["requests"]
    if op == "get":
        assert got["GET"]["bytes"] == got["GET"]["objects"] * 4096
        assert 0 < got["GET"]["ttfb_ns"]["mean"] <= got["GET"]["req_ns"]["mean"]
    if op == "delete":
        assert got["DELETE"]["objects"] == 60
    if op == "list":
        assert got["LIST"]["objects"] >= 20   # a worker's prefix holds 20 keys, 3 pages
    # the run's bucket and every object are gone, nothing else touched
    assert doc["s3"]["bucket_created"] and doc["s3"]["bucket_removed"]
    assert doc["s3"]["bucket"] not in buckets(ceph)
    assert buckets(ceph) == before


def test_multipart_put(ceph):
    name = unique()
    try:
        p = s3(ceph, "--bucket", name, "--obj.size", "12MiB", "--part.size", "5MiB",
               "--multipart-threshold", "8MiB", "--concurrent", "2", "--duration", "2s",
               "--keep-data", "put")
        assert p.returncode == 0, p.stderr
        put = ops(json.loads(p.stdout))["PUT"]
        assert put["errors"] == 0 and put["objects"] >= 1
        assert bucket_stats(ceph, name) == (put["objects"], put["objects"] * (12 << 20))
        # radosgw's multipart objects carry an ETag with the part count
        lst = json.loads(admin(ceph, "bucket", "list", "--bucket", name).stdout)
        assert lst and all(o["meta"]["etag"].endswith("-3") for o in lst), lst[:1]
    finally:
        admin(ceph, "bucket", "rm", "--bucket", name, "--purge-objects", check=False)


def test_wrong_keys_403(ceph):
    before = buckets(ceph)
    p = s3(ceph, "--obj.size", "1KiB", "--duration", "1s", "put", secret="not-the-secret")
    assert p.returncode == 1
    assert "access denied" in p.stderr and "403" in p.stderr, p.stderr
    assert "not-the-secret" not in p.stderr + p.stdout
    assert buckets(ceph) == before


def test_radosgw_stopped_mid_run_counts_errors(ceph):
    """radosgw stopped while the run goes on: the failed requests are counted
    (no response: status 0), the run keeps going and finishes once it is back."""
    name = unique()
    proc = s3(ceph, "--bucket", name, "--obj.size", "4KiB", "--concurrent", "2",
              "--duration", "40s", "put", popen=True)
    try:
        # the run is under way once its first objects are in the bucket
        sb.wait_for(lambda: name in buckets(ceph) and bucket_stats(ceph, name)[0] > 0,
                    timeout=60, what="the run's first objects")
        try:
            sb.fault("stop", "radosgw")
            time.sleep(1)  # requests fail while it is down; how many does not matter
        finally:
            sb.fault("start", "radosgw")
        out, err = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
        admin(ceph, "bucket", "rm", "--bucket", name, "--purge-objects", check=False)
    assert proc.returncode == 1, err          # failed requests: exit 1, results printed
    put = ops(json.loads(out))["PUT"]
    assert put["errors"] > 0 and put["objects"] > 0, put
    assert put["errors_by_status"].get("0", 0) > 0, put["errors_by_status"]
    assert sum(put["errors_by_status"].values()) == put["errors"]
    assert put["requests"] == put["objects"] + put["errors"]
