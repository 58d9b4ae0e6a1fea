"""The runner's S3 benchmark (storagebench-runner s3) against an in-memory S3
server that checks every request's SigV4 signature and payload hash
(s3mock.py): each operation, prepare, multipart, bucket safety and cleanup,
403, a server that goes away, the warp YAML run file, the JSON result.

The radosgw of the test cluster runs the same operations in
tests/cluster/test_s3.py.
"""
import hashlib
import json
import math
import os
import re
import subprocess
import zlib

import pytest

from conftest import run
from s3mock import ACCESS, SECRET, S3Mock, signed_request

HERE = os.path.dirname(os.path.abspath(__file__))
SEED_FILES = os.path.join(HERE, "..", "fixtures", "warp")

KEYS = {"AWS_ACCESS_KEY_ID": ACCESS, "AWS_SECRET_ACCESS_KEY": SECRET}


@pytest.fixture
def s3():
    m = S3Mock()
    yield m
    m.stop()


def s3run(mock, *args, env=None, host=None):
    e = dict(KEYS)
    if env is not None:
        e = env
    base = ["s3", "--host", host or mock.host, "--log-level", "warn"]
    return run(*base, *args, env=e, timeout=120)


def jobs_by_op(r):
    return {j["storagebench"]["s3"]["op"]: j for j in r.json["jobs"]}


def whole_segments(span_s, seg_s=1.0):
    """warp's cut: segments of seg_s from the span's start, each ending before its end."""
    return max(0, math.ceil(span_s / seg_s) - 1)


def test_put_signed_counts_match_server(s3):
    r = s3run(s3, "--obj.size", "10KiB", "--concurrent", "3", "--duration", "1s",
              "--keep-data", "--output-format=json", "put")
    assert r.rc == 0, r
    assert s3.bad_signatures == 0
    put = jobs_by_op(r)["PUT"]
    x = put["storagebench"]["s3"]
    assert x["errors"] == 0 and x["requests"] > 0
    # the server's own view: every counted PUT is an object of the right size
    bucket = r.json["s3"]["bucket"]
    objs = s3.buckets[bucket]
    assert len(objs) == x["objects"] == put["write"]["total_ios"]
    assert all(len(v) == 10240 for v in objs.values())
    assert x["bytes"] == sum(len(v) for v in objs.values())
    assert put["read"]["total_ios"] == 0
    # one connection per worker (reused), plus the bucket's own
    assert s3.connections <= 3 + 1, s3.connections


def test_new_bucket_removed_with_its_objects(s3):
    r = s3run(s3, "--obj.size", "1KiB", "--objects", "50", "--concurrent", "2",
              "--duration", "1s", "--output-format=json", "get")
    assert r.rc == 0, r
    assert r.json["s3"]["bucket_created"] and r.json["s3"]["bucket_removed"]
    assert r.json["s3"]["prepared"] == 50
    assert r.json["s3"]["cleaned"] == 50
    assert s3.buckets == {}


@pytest.mark.parametrize("op", ["get", "stat", "list", "delete"])
def test_prepared_operations(s3, op):
    r = s3run(s3, "--obj.size", "2KiB", "--objects", "40", "--concurrent", "2",
              "--duration", "1s", "--max-keys", "7", "--output-format=json", op)
    assert r.rc == 0, r
    j = jobs_by_op(r)[op.upper()]
    x = j["storagebench"]["s3"]
    assert x["errors"] == 0 and x["requests"] > 0, x
    assert r.json["s3"]["prepared"] == 40
    if op == "get":
        assert x["bytes"] == x["objects"] * 2048
        assert j["read"]["io_bytes"] == x["bytes"]
        assert x["ttfb_ns"]["N"] == x["requests"]
        assert x["ttfb_ns"]["mean"] <= x["req_ns"]["mean"]
    if op == "delete":
        # warp's delete: every prepared object once, then the run ends
        assert x["objects"] == 40
        assert r.json["s3"]["cleaned"] == 0
    if op == "list":
        # each worker lists its own prefix (20 keys) in pages of 7
        assert x["objects"] >= 20
    assert s3.buckets == {}
    assert s3.bad_signatures == 0


def test_mixed_distribution(s3):
    r = s3run(s3, "--obj.size", "1KiB", "--objects", "100", "--concurrent", "4",
              "--duration", "2s", "--output-format=json", "mixed")
    assert r.rc == 0, r
    ops = jobs_by_op(r)
    assert set(ops) == {"GET", "PUT", "DELETE", "STAT"}
    n = {k: v["storagebench"]["s3"]["requests"] for k, v in ops.items()}
    total = sum(n.values())
    assert total > 200, n
    # warp's default 45/30/15/10, within a wide band
    assert n["GET"] > n["STAT"] > n["PUT"] > n["DELETE"] * 0.9, n
    assert abs(n["GET"] / total - 0.45) < 0.1, n
    # the bucket's final count is prepared + puts - deletes
    cleaned = r.json["s3"]["cleaned"]
    assert cleaned == 100 + n["PUT"] - n["DELETE"]


def test_multipart_above_threshold(s3):
    r = s3run(s3, "--obj.size", "11MiB", "--part.size", "5MiB", "--multipart-threshold",
              "8MiB", "--concurrent", "1", "--duration", "1s", "--keep-data",
              "--output-format=json", "put")
    assert r.rc == 0, r
    x = jobs_by_op(r)["PUT"]["storagebench"]["s3"]
    assert x["objects"] >= 1 and x["errors"] == 0
    assert s3.multipart_completed == x["objects"]
    objs = s3.buckets[r.json["s3"]["bucket"]]
    assert all(len(v) == 11 << 20 for v in objs.values())


def test_random_sizes_in_range(s3):
    r = s3run(s3, "--obj.size", "1KiB-8KiB", "--concurrent", "2", "--duration", "1s",
              "--keep-data", "--output-format=json", "put")
    assert r.rc == 0, r
    sizes = [len(v) for v in s3.buckets[r.json["s3"]["bucket"]].values()]
    assert len(sizes) > 10
    assert min(sizes) >= 1024 and max(sizes) <= 8192
    assert len(set(sizes)) > 1
    assert s3.bad_signatures == 0  # each size hashed on its own


def test_put_content_unique_and_incompressible(s3):
    """Every object has content of its own (warp generates each anew): no two
    ETags (MD5s) are equal and none compresses."""
    r = s3run(s3, "--obj.size", "64KiB", "--concurrent", "3", "--duration", "1s",
              "--keep-data", "--output-format=json", "put")
    assert r.rc == 0, r
    objs = s3.buckets[r.json["s3"]["bucket"]]
    assert len(objs) > 20, len(objs)
    etags = {hashlib.md5(v).hexdigest() for v in objs.values()}
    assert len(etags) == len(objs)
    for v in list(objs.values())[:50]:
        assert len(zlib.compress(v, 9)) >= len(v)
    # nor do two objects share their first bytes (one buffer, shifted, would)
    assert len({v[:64] for v in objs.values()}) == len(objs)


def test_multipart_parts_unique(s3):
    r = s3run(s3, "--obj.size", "11MiB", "--part.size", "5MiB", "--multipart-threshold",
              "8MiB", "--concurrent", "2", "--duration", "1s", "--keep-data",
              "--output-format=json", "put")
    assert r.rc == 0, r
    parts = list(s3.parts.values())
    assert len(parts) >= 3, len(parts)
    assert len({hashlib.md5(p).hexdigest() for p in parts}) == len(parts)
    assert len(zlib.compress(parts[0][:1 << 20], 9)) >= 1 << 20


def test_randsize_is_warps_distribution(s3):
    """--obj.randsize: warp's log2-scale sizes up to --obj.size, mean about
    0.18 x it (uniform sizes would average 0.5 x); tests/unit/runner/test_s3.c
    checks the mean over 10,000 draws."""
    r = s3run(s3, "--obj.size", "64KiB", "--obj.randsize", "--concurrent", "3",
              "--duration", "2s", "--keep-data", "--output-format=json", "put")
    assert r.rc == 0, r
    sizes = [len(v) for v in s3.buckets[r.json["s3"]["bucket"]].values()]
    assert len(sizes) > 100, len(sizes)
    assert min(sizes) >= 1 and max(sizes) <= 65536
    assert sum(sizes) / len(sizes) < 0.3 * 65536, sum(sizes) / len(sizes)
    assert sum(1 for x in sizes if x < 65536 / 8) > len(sizes) / 2
    assert jobs_by_op(r)["PUT"]["job options"]["bs"] == "1-65536"
    r = s3run(s3, "--obj.size", "200", "--obj.randsize", "put")
    assert r.rc == 2 and "at least 256 bytes" in r.err, r


def check_payload_hashes(mock, args, default_kind, flag, flag_kind):
    """PUTs with args sign default_kind, with --payload-hash flag flag_kind."""
    r = s3run(mock, *args)
    assert r.rc == 0, r
    assert set(mock.payload_hashes) == {default_kind}
    mock.payload_hashes.clear()
    r = s3run(mock, "--payload-hash", flag, *args)
    assert r.rc == 0, r
    assert set(mock.payload_hashes) == {flag_kind}
    assert mock.bad_signatures == 0


def test_payload_hash_over_http(s3):
    """Over http the body's SHA-256 is signed; --payload-hash unsigned sends
    UNSIGNED-PAYLOAD (the mock, as S3, accepts both)."""
    check_payload_hashes(s3, ["--obj.size", "4KiB", "--concurrent", "1", "--duration", "1s",
                              "put"], "sha256", "unsigned", "UNSIGNED-PAYLOAD")


def test_warps_disable_sha256_payload(s3, tmp):
    """warp's --disable-sha256-payload (and io.disable-sha256-payload in a
    run file) sends UNSIGNED-PAYLOAD over http, where the default signs the
    body's SHA-256; a flag after it can undo it."""
    args = ["--obj.size", "4KiB", "--concurrent", "1", "--duration", "1s"]
    s3.payload_hashes.clear()
    r = s3run(s3, "--disable-sha256-payload", *args, "put")
    assert r.rc == 0, r
    assert set(s3.payload_hashes) == {"UNSIGNED-PAYLOAD"}
    p = write(tmp, "unsigned.yaml", "warp:\n  api: v1\n  benchmark: put\n  io:\n"
              "    disable-sha256-payload: true\n")
    s3.payload_hashes.clear()
    r = s3run(s3, "run", p, *args)
    assert r.rc == 0, r
    assert set(s3.payload_hashes) == {"UNSIGNED-PAYLOAD"}
    s3.payload_hashes.clear()
    r = s3run(s3, "run", p, *args, "--disable-sha256-payload=false")
    assert r.rc == 0, r
    assert set(s3.payload_hashes) == {"sha256"}
    assert s3.bad_signatures == 0


def test_autoterm_ends_a_stable_run(s3):
    """warp's --autoterm: once the last 7 of 25 segments hold within the
    percentage (here 100 %, any steady rate) for --autoterm.dur, the run ends."""
    r = s3run(s3, "--obj.size", "1KiB", "--concurrent", "2", "--duration", "60s",
              "--autoterm", "--autoterm.dur", "1s", "--autoterm.pct", "100",
              "--output-format=json", "put")
    assert r.rc == 0, r
    assert r.json["s3"]["autoterm"] is True
    assert r.json["s3"]["runtime_us"] < 30e6, r.json["s3"]
    # not before 1 s x 25 / 7 of analysed time
    assert jobs_by_op(r)["PUT"]["storagebench"]["s3"]["analysed_us"] > 3.5e6
    r = s3run(s3, "--obj.size", "1KiB", "--concurrent", "2", "--duration", "2s",
              "--autoterm", "--autoterm.dur", "1s", "put")
    assert r.rc == 0, r
    assert "Autoterm" not in r.out  # too short to be judged: ran to its duration


def test_keys_with_xml_references_listed_and_removed(s3):
    """Keys with '&' come back from a listing as '&amp;': decoded, so the
    list benchmark counts them and the cleanup deletes them."""
    r = s3run(s3, "--prefix", "a&b<c>/", "--obj.size", "1KiB", "--objects", "30",
              "--concurrent", "2", "--duration", "1s", "--output-format=json", "list")
    assert r.rc == 0, r
    x = jobs_by_op(r)["LIST"]["storagebench"]["s3"]
    assert x["errors"] == 0 and x["objects"] >= 15, x
    assert r.json["s3"]["cleaned"] == 30 and r.json["s3"]["bucket_removed"]
    assert s3.buckets == {}


def test_region_names_the_bucket_location():
    """Another region than us-east-1 signs with it and creates the bucket with
    it as the LocationConstraint (S3 refuses the bucket otherwise)."""
    m = S3Mock(region="eu-west-1")
    try:
        r = s3run(m, "--region", "eu-west-1", "--obj.size", "1KiB", "--objects", "10",
                  "--concurrent", "1", "--duration", "1s", "--output-format=json", "get")
        assert r.rc == 0, r
        assert m.locations == ["eu-west-1"]
        assert r.json["s3"]["bucket_removed"] and m.buckets == {}
        # us-east-1 credentials against it: the signature's scope is wrong
        r = s3run(m, "--obj.size", "1KiB", "--duration", "1s", "put")
        assert r.rc == 1 and "access denied" in r.err, r
    finally:
        m.stop()


def test_us_east_1_sends_no_location(s3):
    r = s3run(s3, "--obj.size", "1KiB", "--concurrent", "1", "--duration", "1s", "put")
    assert r.rc == 0, r
    assert s3.locations == [None]
    r = s3run(s3, "--region", "eu<1>", "put")
    assert r.rc == 2 and "--region: 'eu<1>' is not a region name" in r.err, r


def test_virtual_host_style(s3):
    r = s3run(s3, "--lookup", "dns", "--obj.size", "1KiB", "--objects", "10",
              "--concurrent", "1", "--duration", "1s", "--output-format=json", "get",
              host=f"localhost:{s3.port}")
    assert r.rc == 0, r
    assert r.json["s3"]["path_style"] is False
    assert jobs_by_op(r)["GET"]["storagebench"]["s3"]["errors"] == 0
    assert s3.buckets == {}


def test_given_bucket_not_empty_refused(s3):
    # two keys: the one-key listing that checks is truncated, with a token
    # longer than a few bytes (radosgw's are)
    held = {"data.bin": b"x" * 10, "more-data.bin": b"y"}
    s3.buckets["precious"] = dict(held)
    r = s3run(s3, "--bucket", "precious", "--obj.size", "1KiB", "--duration", "1s", "put")
    assert r.rc == 1, r
    assert "bucket 'precious' is not empty" in r.err, r
    assert s3.buckets["precious"] == held


def test_given_empty_bucket_kept_and_emptied(s3):
    s3.buckets["mine"] = {}
    r = s3run(s3, "--bucket", "mine", "--obj.size", "1KiB", "--concurrent", "2",
              "--duration", "1s", "--output-format=json", "put")
    assert r.rc == 0, r
    assert not r.json["s3"]["bucket_created"]
    assert s3.buckets == {"mine": {}}


def test_wrong_keys_403(s3):
    env = {"AWS_ACCESS_KEY_ID": ACCESS, "AWS_SECRET_ACCESS_KEY": "wrong"}
    r = s3run(s3, "--obj.size", "1KiB", "--duration", "1s", "put", env=env)
    assert r.rc == 1, r
    assert "access denied" in r.err and "403" in r.err and "SignatureDoesNotMatch" in r.err
    assert "wrong" not in r.err.replace("wrong keys", "")  # the secret is never printed
    assert s3.buckets == {}


def test_unreachable_endpoint_named(s3):
    s3.stop()
    r = s3run(s3, "--obj.size", "1KiB", "--duration", "1s", "put")
    assert r.rc == 1, r
    assert f"http://{s3.host}" in r.err and "unreachable" in r.err


def test_tls_failure_named(s3):
    # the mock speaks plain HTTP: a TLS handshake with it fails
    r = s3run(s3, "--tls", "--obj.size", "1KiB", "--duration", "1s", "put")
    assert r.rc == 1, r
    assert f"https://{s3.host}" in r.err and "TLS failure" in r.err, r


def test_http_errors_counted_per_status(s3):
    s3.force_status = 503
    r = s3run(s3, "--obj.size", "1KiB", "--concurrent", "2", "--duration", "1s",
              "--output-format=json", "put")
    assert r.rc == 1, r
    x = jobs_by_op(r)["PUT"]["storagebench"]["s3"]
    assert x["errors"] == x["requests"] > 0
    assert x["errors_by_status"] == {"503": x["errors"]}
    assert "503" in x["first_error"]
    s3.force_status = None


def test_text_summary_like_warp(s3):
    r = s3run(s3, "--obj.size", "4KiB", "--objects", "20", "--concurrent", "2",
              "--duration", "3s", "get")
    assert r.rc == 0, r
    out = r.out
    assert "Report: GET. Concurrency: 2. Ran:" in out
    assert " * Average: " in out and "obj/s" in out
    for k in ("Avg:", "Best:", "25th:", "Median:", "75th:", "90th:", "99th:", "Worst:",
              "StdDev:"):
        assert k in out.split(" * Reqs:")[1].split("\n")[0]
    assert " * TTFB: Avg:" in out
    # warp's analysis: the span when both workers ran, cut into whole seconds
    ran = float(re.search(r"Ran: ([0-9.]+)s", out).group(1))
    assert 1.0 < ran < 3.0, out
    n = int(re.search(r"Throughput, split into (\d+) x 1s:", out).group(1))
    assert n == whole_segments(ran), out
    for k in (" * Fastest:", " * 50% Median:", " * Slowest:"):
        assert k in out


def test_json_aggregates_like_block_results(s3, tmp):
    """The JSON's jobs are fio-shaped: per-second series, histogram, rates."""
    r = s3run(s3, "--obj.size", "1KiB", "--objects", "20", "--concurrent", "2",
              "--duration", "3s", "--label", "s3-get-1k", "--output-format=json", "get")
    assert r.rc == 0, r
    j = r.json["jobs"][0]
    assert j["jobname"] == "s3-get-1k"
    sb = j["storagebench"]
    assert sb["interval_ms"] == 1000
    x = sb["s3"]
    assert x["analysis"] == "active"
    assert len(sb["read"]["ios_series"]) == whole_segments(x["analysed_us"] / 1e6) >= 1
    # rates over the analysed span
    assert abs(j["read"]["iops"] - x["ops"]) < 0.01 * x["ops"] + 1, (j["read"]["iops"], x)
    assert sum(c for _, c in sb["read"]["clat_hist"]) == j["read"]["total_ios"]
    assert j["read"]["iops"] > 0 and j["read"]["bw_bytes"] > 0
    assert j["read"]["clat_ns"]["percentile"]["50.000000"] > 0


def test_credentials_required_and_never_printed(s3):
    r = s3run(s3, "--obj.size", "1KiB", "put", env={})
    assert r.rc == 2, r
    assert "no credentials" in r.err
    r = s3run(s3, "--secret-key", "", "put", env={})
    assert r.rc == 2 and "--secret-key: is empty" in r.err


@pytest.mark.parametrize("args,msg", [
    (["--obj.size", "0", "put"], "--obj.size: '0' is not a size above 0"),
    (["--concurrent", "x", "put"], "--concurrent: 'x' is not a number"),
    (["--duration", "soon", "put"], "--duration: 'soon' is not a duration"),
    (["--bucket", "Bad_Name", "put"], "--bucket: 'Bad_Name' is not a bucket name"),
    (["--lookup", "auto", "put"], "--lookup: 'auto' is not one of path, dns"),
    (["--host", "a:1,,b:2", "put"], "--host: 'a:1,,b:2' has an empty host in its list"),
    (["--host", "h{1...3}:9000", "put"], "uses warp's {1...N} expansion, which is not supported"),
    (["--host", ",".join(f"h{i}:1" for i in range(17)), "put"], "names more than 16 hosts"),
    (["--batch", "0", "delete"], "--batch: '0' is not a number in 1..1000"),
    (["--batch", "1001", "delete"], "--batch: '1001' is not a number in 1..1000"),
    (["--batch", "10", "get"], "--batch: only the delete benchmark deletes in batches (this is get)"),
    (["--get-distrib", "50", "mixed"], "they add up to 105, not 100"),
    (["--warp-client", "a:7761", "put"], "--warp-client: unknown or unsupported option"),
    (["zap"], "'zap' is not a supported benchmark"),
    ([], "no benchmark"),
])
def test_bad_flags_named(s3, args, msg):
    r = s3run(s3, *args)
    assert r.rc == 2, r
    assert msg in r.err, r


def write(tmp, name, text):
    p = os.path.join(tmp, name)
    with open(p, "w") as f:
        f.write(text)
    return p


SEED_DELETE = """\
warp:
  api: v1
  benchmark: delete
  host: rgw.nbg.nsc.noris.cloud
  access-key: <your-credentials>
  secret-key: <your-credentials>
  warp-client:
    - 192.168.0.99:7761
    - 192.168.0.201:7761
  bucket: benchmark
  duration: 5m
  concurrent: 150
  objects: 100000
  obj:
    size: 1KB
  tls: true
"""


@pytest.mark.parametrize("bench", ["delete", "get", "put", "list"])
def test_parse_only_seed_run_files(tmp, bench):
    p = write(tmp, f"{bench}.yaml", SEED_DELETE.replace("benchmark: delete",
                                                        f"benchmark: {bench}"))
    r = run("--parse-only", p)
    assert r.rc == 0, r
    assert f"{bench} benchmark parsed" in r.err
    assert "warp-client" in r.err  # named: accepted, ignored, with the reason


def test_parse_only_names_unsupported_key(tmp):
    p = write(tmp, "bad.yaml", SEED_DELETE.replace("  tls: true\n",
                                                   "  tls: true\n  md5: true\n"))
    r = run("--parse-only", p)
    assert r.rc == 2, r
    assert "bad.yaml:17: md5: not supported" in r.err, r


def test_parse_only_bad_value_has_line(tmp):
    p = write(tmp, "bad.yaml", SEED_DELETE.replace("size: 1KB", "size: lots"))
    r = run("--parse-only", p)
    assert r.rc == 2, r
    assert "bad.yaml:15" in r.err and "--obj.size: 'lots'" in r.err


def test_parse_only_not_warp(tmp):
    p = write(tmp, "x.yaml", "apiVersion: v1\nkind: Pod\n")
    r = run("--parse-only", p)
    assert r.rc == 2 and "not a warp run file" in r.err, r
    p = write(tmp, "y.yaml", "warp:\n  benchmark: get\n  host: h\n")
    r = run("--parse-only", p)
    assert r.rc == 2 and "warp.api: missing" in r.err, r


def test_run_file_runs_with_flags_overriding(s3, tmp):
    p = write(tmp, "get.yaml", f"""\
warp:
  api: v1
  benchmark: get
  host: 192.0.2.1:9
  duration: 5m
  concurrent: 2
  objects: 10
  obj:
    size: 1KiB
""")
    r = run("s3", "--log-level", "warn", "run", p, "--host", s3.host, "--duration", "1s",
            "--output-format=json", env=KEYS)
    assert r.rc == 0, r
    x = jobs_by_op(r)["GET"]["storagebench"]["s3"]
    assert x["concurrent"] == 2 and x["obj_size"] == "1024"
    assert r.json["s3"]["prepared"] == 10


def test_nested_warp_sections(tmp):
    p = write(tmp, "nested.yaml", """\
warp:
  api: v1
  benchmark: mixed
  remote:
    host: 127.0.0.1:9000
    region: eu-1
  params:
    duration: 1m30s
    concurrent: 8
    obj:
      size: 4KiB
    distribution:
      get: 40
      stat: 30
      put: 20
      delete: 10
""")
    r = run("s3", "--parse-only", "run", p)
    assert r.rc == 0, r


def test_iterations_summary_mean_stddev(s3):
    """--iterations: each iteration a new bucket; the report aggregates each
    operation over them (the same lib/stats/aggregate as block results)."""
    r = s3run(s3, "--obj.size", "1KiB", "--objects", "20", "--concurrent", "2",
              "--duration", "1s", "--iterations", "3", "--target", "mock",
              "--output-format=json", "mixed")
    assert r.rc == 0, r
    assert len(r.json["runs"]) == 3
    buckets = {d["s3"]["bucket"] for d in r.json["runs"]}
    assert len(buckets) == 3 and s3.buckets == {}
    rep = r.json["report"]
    assert rep["targets"] == ["mock"]
    cells = {x["workload"]: x for x in rep["results"]}
    assert set(cells) == {"s3-get", "s3-put", "s3-delete", "s3-stat"}
    get = cells["s3-get"]
    assert get["rw"] == "s3-get" and get["bs"] == "1024" and get["iodepth"] == 2
    iops = get["metrics"]["read-iops"]
    assert iops["n"] == 3 and iops["mean"] > 0 and "stddev" in iops
    assert get["metrics"]["ttfb-p50"]["n"] == 3
    assert cells["s3-put"]["metrics"]["write-iops"]["n"] == 3
    # the text summary: one row per operation
    r = s3run(s3, "--obj.size", "1KiB", "--objects", "10", "--concurrent", "1",
              "--duration", "1s", "--iterations", "2", "--target", "mock", "get")
    assert r.rc == 0, r
    assert "=== summary over 2 iterations" in r.out
    # in object words and units, and the object table (no block table)
    assert "mock: s3-get: GET 1 KiB x 1: " in r.out and " ops/s on average" in r.out, r
    assert ", TTFB p50 " in r.out and "read IOPS" not in r.out
    table = r.out.split("\n=== object storage\n")[1].splitlines()
    assert table[0].startswith("target | workload | operation | object size | concurrency")
    assert table[2].startswith("mock   | s3-get   | GET       | 1 KiB       | 1 ")


@pytest.fixture
def tls_s3(tmp):
    """The S3 server on https with a throw-away self-signed certificate."""
    cert, key = os.path.join(tmp, "cert.pem"), os.path.join(tmp, "key.pem")
    p = subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1",
                        "-subj", "/CN=localhost", "-addext",
                        "subjectAltName=IP:127.0.0.1,DNS:localhost",
                        "-keyout", key, "-out", cert], capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    m = S3Mock(tls=(cert, key))
    yield m, cert
    m.stop()


def test_payload_unsigned_over_tls_by_default(tls_s3):
    """Over https the body goes as UNSIGNED-PAYLOAD (TLS protects it, as the
    AWS SDKs sign); --payload-hash sha256 signs its hash anyway."""
    m, cert = tls_s3
    check_payload_hashes(m, ["--tls", "--cacert", cert, "--obj.size", "4KiB", "--concurrent",
                             "1", "--duration", "1s", "put"],
                         "UNSIGNED-PAYLOAD", "sha256", "sha256")


def test_tls_verified_by_default(tls_s3):
    m, cert = tls_s3
    args = ["--tls", "--obj.size", "1KiB", "--concurrent", "1", "--duration", "1s",
            "--output-format=json", "put"]
    # a certificate nobody vouches for is refused, and nothing is written
    r = s3run(m, *args)
    assert r.rc == 1 and "TLS failure" in r.err and f"https://{m.host}" in r.err, r
    assert m.buckets == {}
    # with its CA the run goes through, over https
    r = s3run(m, "--cacert", cert, *args)
    assert r.rc == 0, r
    assert r.json["s3"]["tls"] is True
    assert jobs_by_op(r)["PUT"]["storagebench"]["s3"]["objects"] > 0
    # --insecure skips the check
    r = s3run(m, "--insecure", *args)
    assert r.rc == 0, r
    assert m.buckets == {} and m.bad_signatures == 0


# ---- warp's multi-object delete (delete --batch) ----

def test_delete_batch_counts_objects_and_requests(s3):
    r = s3run(s3, "--obj.size", "1KiB", "--objects", "250", "--concurrent", "2",
              "--batch", "100", "--duration", "30s", "--output-format=json", "delete")
    assert r.rc == 0, r
    d = jobs_by_op(r)["DELETE"]
    x = d["storagebench"]["s3"]
    # every prepared object once, in DeleteObjects requests of at most 100 keys
    assert x["objects"] == 250 and x["requests"] == 3 and x["errors"] == 0, x
    assert sorted(s3.multi_deletes) == [50, 100, 100]
    assert s3.deletes == 0
    assert d["read"]["total_ios"] == 3            # requests
    assert x["req_ns"]["N"] == 3
    # objects per second: 250 objects, not 3 requests; 3 requests of 2 workers
    # leave no span when both were active: the whole range is analysed
    assert x["analysis"] == "whole run"
    span_s = x["analysed_us"] / 1e6
    assert abs(x["ops"] - 250 / span_s) < 1e-3 * max(1.0, x["ops"]), (x["ops"], span_s)
    assert r.json["s3"]["cleaned"] == 0 and s3.buckets == {}
    assert s3.bad_signatures == 0


def test_delete_batch_default_is_warps_100(s3):
    r = s3run(s3, "--obj.size", "1KiB", "--objects", "150", "--concurrent", "1",
              "--duration", "30s", "--output-format=json", "delete")
    assert r.rc == 0, r
    assert s3.multi_deletes == [100, 50] and s3.deletes == 0
    assert jobs_by_op(r)["DELETE"]["storagebench"]["s3"]["objects"] == 150


def test_delete_batch_1_is_one_delete_per_object(s3):
    r = s3run(s3, "--obj.size", "1KiB", "--objects", "30", "--concurrent", "2",
              "--batch", "1", "--duration", "30s", "--output-format=json", "delete")
    assert r.rc == 0, r
    x = jobs_by_op(r)["DELETE"]["storagebench"]["s3"]
    assert x["objects"] == x["requests"] == 30
    assert s3.deletes == 30 and s3.multi_deletes == []
    assert s3.buckets == {}


def test_delete_batch_refused_key_is_a_failed_request(s3):
    # one worker: object names are 0/<id>.obj; the first batch holds 0/5.obj
    s3.deny_delete = {"0/5.obj"}
    r = s3run(s3, "--obj.size", "1KiB", "--objects", "20", "--concurrent", "1",
              "--batch", "10", "--duration", "30s", "--output-format=json", "delete")
    assert r.rc == 1, r
    x = jobs_by_op(r)["DELETE"]["storagebench"]["s3"]
    assert x["requests"] == 2 and x["errors"] == 1 and x["objects"] == 10, x
    assert x["errors_by_status"] == {"200": 1}
    assert "1 of 10 keys not deleted (first: 0/5.obj: AccessDenied)" in x["first_error"]
    # the cleanup cannot remove it either, and says so; nothing else is left
    assert "removing the benchmark's objects" in r.err, r
    assert [set(v) for v in s3.buckets.values()] == [{"0/5.obj"}]


def test_delete_batch_from_run_file(s3, tmp):
    p = write(tmp, "delete.yaml", f"""\
warp:
  api: v1
  benchmark: delete
  host: {s3.host}
  objects: 60
  concurrent: 2
  duration: 30s
  obj:
    size: 1KiB
  params:
    batch: 25
""")
    r = run("s3", "--log-level", "warn", "run", p, "--output-format=json", env=KEYS)
    assert r.rc == 0, r
    assert sorted(s3.multi_deletes) == [10, 25, 25]
    assert jobs_by_op(r)["DELETE"]["storagebench"]["s3"]["objects"] == 60


def test_parse_only_batch_outside_delete_named(tmp):
    p = write(tmp, "get.yaml", SEED_DELETE.replace("benchmark: delete", "benchmark: get")
              .replace("  tls: true\n", "  tls: true\n  batch: 10\n"))
    r = run("--parse-only", p)
    assert r.rc == 2, r
    assert "--batch: only the delete benchmark deletes in batches" in r.err, r


# ---- the mock checks a multi-object delete as radosgw does ----

def _delete_xml(keys, quiet=False):
    body = "<Delete>" + ("<Quiet>true</Quiet>" if quiet else "")
    body += "".join(f"<Object><Key>{k}</Key></Object>" for k in keys) + "</Delete>"
    return body.encode()


def _md5(body):
    import base64
    import hashlib
    return base64.b64encode(hashlib.md5(body).digest()).decode()


def test_mock_multi_delete_checks(s3):
    import base64
    import hashlib
    s3.buckets["b"] = {f"k{i}": b"x" for i in range(3)}
    body = _delete_xml(["k0"])
    # no digest, a wrong one, a wrong checksum: refused, nothing deleted
    assert signed_request(s3, "POST", "/b", "delete=", body)[0] == 400
    st, out = signed_request(s3, "POST", "/b", "delete=", body, {"Content-MD5": _md5(b"x")})
    assert st == 400 and b"InvalidDigest" in out
    st, out = signed_request(s3, "POST", "/b", "delete=", body,
                             {"x-amz-checksum-sha256": base64.b64encode(b"0" * 32).decode()})
    assert st == 400 and b"BadDigest" in out
    assert set(s3.buckets["b"]) == {"k0", "k1", "k2"}
    # malformed documents
    for bad in (b"<Delete><Object><Key>k0</Key></Object>", b"<Remove/>", b"<Delete></Delete>",
                _delete_xml([f"x{i}" for i in range(1001)])):
        st, out = signed_request(s3, "POST", "/b", "delete=", bad, {"Content-MD5": _md5(bad)})
        assert st == 400 and b"MalformedXML" in out, (bad[:40], out)
    assert s3.multi_deletes == []
    # an x-amz-checksum instead of Content-MD5, not quiet: the deleted keys are listed
    st, out = signed_request(s3, "POST", "/b", "delete=", body, {
        "x-amz-checksum-sha256": base64.b64encode(hashlib.sha256(body).digest()).decode()})
    assert st == 200 and b"<Deleted><Key>k0</Key></Deleted>" in out, out
    # quiet: only errors listed
    s3.deny_delete = {"k2"}
    body = _delete_xml(["k1", "k2"], quiet=True)
    st, out = signed_request(s3, "POST", "/b", "delete=", body, {"Content-MD5": _md5(body)})
    assert st == 200 and b"<Deleted>" not in out and b"<Key>k2</Key><Code>AccessDenied" in out
    assert s3.buckets["b"] == {"k2": b"x"} and s3.multi_deletes == [1, 2]


# ---- several hosts (warp's --host a:1,b:2, one request after the other on each) ----

@pytest.fixture
def two_s3():
    a = S3Mock()
    b = S3Mock(share=a)
    yield a, b
    a.stop()
    b.stop()


def test_several_hosts_round_robin(two_s3):
    a, b = two_s3
    r = s3run(a, "--obj.size", "1KiB", "--objects", "40", "--concurrent", "2",
              "--duration", "1s", "--output-format=json", "get", host=f"{a.host},{b.host}")
    assert r.rc == 0, r
    x = jobs_by_op(r)["GET"]["storagebench"]["s3"]
    assert x["errors"] == 0 and x["requests"] > 20, x
    # every worker takes the hosts in turn: the two endpoints share the requests,
    # apart from one per worker and the bucket's own (create, cleanup: on one host)
    total = a.requests + b.requests
    assert total >= x["requests"] + 40
    assert abs(a.requests - b.requests) <= 2 + 6, (a.requests, b.requests)
    assert a.connections >= 1 and b.connections >= 1
    assert a.bad_signatures == b.bad_signatures == 0   # each request signed for its host
    assert r.json["s3"]["endpoint"] == f"{a.host},{b.host}"
    assert a.buckets == {}                                # one store: cleaned up through both


def test_several_hosts_one_down_named(two_s3):
    a, b = two_s3
    b.stop()
    r = s3run(a, "--obj.size", "1KiB", "--objects", "20", "--concurrent", "2",
              "--duration", "1s", "get", host=f"{a.host},{b.host}")
    assert r.rc == 1, r
    # the prepare phase's requests to the stopped host fail: that host is named
    assert "preparing 20 objects" in r.err and str(b.port) in r.err, r
    assert a.buckets == {}
