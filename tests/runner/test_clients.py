"""--clients=N: N processes run the same jobs together on this host and their
per-second series are merged as a distributed run merges its pods
(docs/runner.md "Several processes", docs/distributed.md). The tests
recompute the aggregate from each client's own result."""
import json
import os
import shutil
import signal
import tempfile

import pytest

from conftest import run
from proc import Proc


@pytest.fixture
def shm():
    d = tempfile.mkdtemp(prefix="sb-cl-", dir="/dev/shm")
    yield d
    shutil.rmtree(d, ignore_errors=True)


def series(job, d, key):
    return job["storagebench"][d][key]


def test_aggregate_is_the_sum_of_the_clients_series(shm):
    r = run("--clients=3", "--name=w", "--rw=randwrite", "--bs=4k", "--size=8m",
            "--time_based", "--runtime=3", f"--directory={shm}", "--output-format=json")
    assert r.rc == 0, r
    doc = r.json
    c = doc["clients"]
    assert c["count"] == 3 and c["failed"] == [] and len(c["results"]) == 3
    own = [res["jobs"][0] for res in c["results"]]
    assert [res["context"]["client"] for res in c["results"]] == [1, 2, 3]
    assert len({res["context"]["pid"] for res in c["results"]}) == 3
    # each client on its own file, named as fio names clones
    assert sorted(f for f in os.listdir(shm)) == ["w.0.0", "w.1.0", "w.2.0"]

    merged = doc["jobs"][0]
    assert merged["jobname"] == "w"
    # by time: the window starts at the latest client's start; each client's
    # interval nearest to it first, as many as every client has from there
    starts = [j["storagebench"]["series_start_ns"] for j in own]
    t0 = max(starts)
    first = [(t0 - s + 500_000_000) // 1_000_000_000 for s in starts]
    w = min(len(series(j, "write", "ios_series")) - f for j, f in zip(own, first))
    assert w >= 2
    ios = [sum(series(j, "write", "ios_series")[f + i] for j, f in zip(own, first))
           for i in range(w)]
    by = [sum(series(j, "write", "bytes_series")[f + i] for j, f in zip(own, first))
          for i in range(w)]
    assert series(merged, "write", "ios_series") == ios
    assert series(merged, "write", "bytes_series") == by
    # the aggregate rate is over the seconds every client measured, not a sum of averages
    assert merged["write"]["iops"] == pytest.approx(sum(ios) / w, rel=1e-9)
    assert merged["write"]["bw_bytes"] == round(sum(by) / w)
    mi = merged["storagebench"]["merge"]
    assert mi["write"] == {"window": "series", "seconds": w, "latency": "window"}
    assert mi["alignment"] == "time" and mi["start_ns"] == t0
    # counts and latency of the same seconds: the clients' per-interval histograms added
    assert merged["write"]["total_ios"] == sum(ios)
    hist = {}
    for j, f in zip(own, first):
        for iv in series(j, "write", "clat_hist_series")[f:f + w]:
            b = 0
            for k in range(0, len(iv), 2):
                b += iv[k]
                hist[b] = hist.get(b, 0) + iv[k + 1]
    assert {b: n for b, n in series(merged, "write", "clat_hist")} == hist
    assert sum(hist.values()) == sum(ios)
    clat = sum(sum(series(j, "write", "clat_sum_series")[f:f + w]) for j, f in zip(own, first))
    assert merged["write"]["clat_ns"]["mean"] == pytest.approx(clat / sum(ios), rel=1e-9)
    # start skew: the latest minus the earliest start of the clients
    starts = [res["context"]["start"]["actual_ns"] for res in c["results"]]
    assert all(s > 0 for s in starts)
    assert c["skew_ms"] == pytest.approx((max(starts) - min(starts)) / 1e6)
    # one row per client with its rates over the same window: they add up to the aggregate
    rows = [row for row in c["rows"] if row["workload"] == "w"]
    assert [row["client"] for row in rows] == [1, 2, 3]
    for row, j, f in zip(rows, own, first):
        assert row["write-iops"] == pytest.approx(sum(series(j, "write", "ios_series")[f:f + w]) / w)
        assert row["write-bw"] == pytest.approx(sum(series(j, "write", "bytes_series")[f:f + w]) / w)
    assert sum(row["write-iops"] for row in rows) == pytest.approx(merged["write"]["iops"])


def test_text_output_aggregate_and_rows(shm):
    r = run("--clients=2", "--name=w", "--rw=randread", "--bs=4k", "--size=2m",
            "--time_based", "--runtime=2", f"--directory={shm}")
    assert r.rc == 0, r
    assert r.out.startswith("=== 2 clients (processes), start skew ")
    assert "w: aggregate over the " in r.out
    for label in ("all", "client 1", "client 2"):
        assert f"\n  {label} " in r.out, r.out


def test_shared_file_with_offset_increment(shm):
    """filename= is shared by the clients; offset_increment places them as fio's clones."""
    f = os.path.join(shm, "shared")
    r = run("--clients=2", "--name=s", "--rw=write", "--bs=64k", "--size=2m",
            "--offset_increment=2m", f"--filename={f}", "--output-format=json")
    assert r.rc == 0, r
    assert os.path.getsize(f) == 4 << 20  # client 1 wrote [0, 2m), client 2 [2m, 4m)
    assert r.json["jobs"][0]["write"]["io_bytes"] == 4 << 20


def test_a_failing_client_is_named(shm):
    # client 2's file (clone 1 of job w) cannot be a file: a directory is in the way
    os.mkdir(os.path.join(shm, "w.1.0"))
    r = run("--clients=3", "--name=w", "--rw=write", "--bs=4k", "--size=1m",
            f"--directory={shm}", "--output-format=json")
    assert r.rc != 0, r
    assert r.rc == 2  # the job cannot run there: a usage error, as without --clients
    assert "client 2 (pid " in r.err and "failed" in r.err, r.err
    assert "w.1.0" in r.err and "is not a regular file" in r.err
    failed = r.json["clients"]["failed"]
    assert [x["client"] for x in failed] == [2] and failed[0]["status"] == 2
    # the others ran
    others = [res for res in r.json["clients"]["results"] if res["context"]["client"] != 2]
    assert all(res["jobs"][0]["write"]["io_bytes"] == 1 << 20 for res in others)


def test_sigterm_stops_every_client(shm):
    p = Proc(["--clients=2", "--name=t", "--rw=randwrite", "--bs=4k", "--size=4m",
              "--time_based", "--runtime=60", f"--directory={shm}", "--log-level=debug",
              "--output-format=json"])
    p.wait_line("Measured the first second")
    rc, secs = p.signal_and_wait(signal.SIGTERM)
    assert rc == 143, p
    assert secs < 10, p
    doc = json.loads(p.out)
    assert doc["interrupted"] == "SIGTERM"
    assert doc["clients"]["failed"] == []  # stopped with the rest, not failed
    assert all(res["interrupted"] == "SIGTERM" for res in doc["clients"]["results"])


def test_iterations_summarise_the_merged_results(shm):
    r = run("--clients=2", "--iterations=2", "--name=w", "--rw=randwrite", "--bs=4k",
            "--size=2m", "--time_based", "--runtime=1", f"--directory={shm}",
            "--output-format=json")
    assert r.rc == 0, r
    assert len(r.json["runs"]) == 2
    assert all(run_doc["clients"]["count"] == 2 for run_doc in r.json["runs"])
    rows = []

    def walk(n):
        if isinstance(n, dict):
            if "workload" in n and "iterations" in n:
                rows.append(n)
            for v in n.values():
                walk(v)
        elif isinstance(n, list):
            for v in n:
                walk(v)
    walk(r.json["report"])
    assert rows and all(x["iterations"] == 2 for x in rows), r.json["report"]


@pytest.mark.parametrize("value", ["0", "65", "x", ""])
def test_bad_count_is_refused(value):
    r = run(f"--clients={value}", "--name=w", "--rw=read", "--size=1m")
    assert r.rc == 2, r
    assert "--clients: " in r.err and "is not an integer from 1 to 64" in r.err, r.err


def test_a_client_missing_the_barrier_fails_the_iteration(shm):
    """Client 2 is stopped (SIGSTOP) inside job group 1 of iteration 2, so it never
    reaches the barrier of group 2: after --barrier-timeout the iteration fails naming
    it, the client is killed, and iteration 1 is kept."""
    p = Proc(["--clients=2", "--iterations=2", "--barrier-timeout=2s", "--log-level=debug",
              "--output-format=json", f"--directory={shm}",
              "--name=a", "--rw=randwrite", "--bs=4k", "--size=2m", "--time_based",
              "--runtime=6",
              "--name=b", "--stonewall", "--rw=write", "--bs=64k", "--size=1m"])
    try:
        for _ in range(2):  # the clients of iteration 1, then of iteration 2
            line = p.wait_line("Started a client client=2 ")
        pid = int(line.split("pid=")[1].split()[0])
        # client 2's own clone (1) of job a has measured a second: it is past the
        # barrier of group 1 and inside the 6 s of group 1
        p.wait_line("Measured the first second job=a clone=1")
        os.kill(pid, signal.SIGSTOP)
        rc = p.wait(timeout=120)
    finally:
        p.kill()
    assert rc == 1, p
    want = ("client 2 (pid %d) failed: did not reach the start barrier of job group 2 of 2 "
            "within 2s (1 of 2 clients ready)" % pid)
    assert want in p.err, p.err
    doc = json.loads(p.out)
    runs = doc["runs"]
    assert len(runs) == 2
    # iteration 1: complete, both workloads merged
    assert runs[0]["clients"]["failed"] == []
    assert [j["jobname"] for j in runs[0]["jobs"]] == ["a", "b"]
    # iteration 2: client 2 named, killed; client 1 called off at the barrier
    failed = {f["client"]: f for f in runs[1]["clients"]["failed"]}
    assert failed[2]["pid"] == pid
    assert failed[2]["reason"].startswith("did not reach the start barrier of job group 2")
    assert failed[2]["status"] == 128 + signal.SIGKILL
    assert "called off" in failed[1]["reason"]
    assert runs[1]["jobs"] == []
    # the summary has iteration 1 only
    assert doc["report"], doc
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)  # reaped


@pytest.mark.parametrize("value", ["0", "x", "", "-1s"])
def test_bad_barrier_timeout_is_refused(value):
    r = run("--clients=2", f"--barrier-timeout={value}", "--name=w", "--rw=read", "--size=1m")
    assert r.rc == 2, r
    assert f"--barrier-timeout: '{value}' is not a duration above 0" in r.err, r.err
