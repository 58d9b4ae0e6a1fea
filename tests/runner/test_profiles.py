"""Built-in profiles and --iterations: the summary people read."""
import os

from conftest import run


def test_profile_list():
    r = run("--profile=list")
    assert r.rc == 0
    for name in ("storage-cluster", "mixed", "quick", "nvme"):
        assert f"{name}:" in r.out
    assert "write-iops-fsync32" in r.out


def test_unknown_profile():
    r = run("--profile=turbo")
    assert r.rc == 2
    assert "no profile 'turbo'" in r.err


SHORT = ["--runtime=1", "--size=16m", "--ramp_time=0", "--direct=0"]


def test_quick_profile_iterations_summary(tmp):
    r = run("--profile=quick", "--iterations=2", f"--directory={tmp}", "--label=tmpdir",
            "--numjobs=1", *SHORT, timeout=300)
    assert r.rc == 0, r
    assert r.out.count("=== iteration") == 2
    assert "=== summary over 2 iterations" in r.out
    summary = r.out.split("=== summary over 2 iterations")[1]
    # a sentence per workload and a table row for the target
    assert "tmpdir: iops-read: " in summary
    assert "read IOPS on average with a standard deviation of" in summary
    assert "over 2 iterations" in summary
    assert "tmpdir: throughput-write: " in summary and "write bandwidth on average" in summary
    assert "tmpdir: latency-read: " in summary and "mean read latency on average" in summary
    assert "| iops-read (IOPS)" in summary and "| latency-read (mean latency)" in summary
    # one shared test file, removed by nobody but present
    assert os.listdir(tmp) == ["storagebench.testfile"]


def test_iterations_json_report_matches_runs(tmp):
    r = run("--profile=quick", "--iterations=3", f"--directory={tmp}", "--label=t",
            "--output-format=json", "--numjobs=1", *SHORT, timeout=300)
    assert r.rc == 0, r
    doc = r.json
    assert doc["iterations"] == 3 and len(doc["runs"]) == 3
    rep = doc["report"]
    res = {x["workload"]: x for x in rep["results"]}
    assert set(res) == {"iops-write", "iops-read", "throughput-write", "throughput-read",
                        "latency-write", "latency-read"}
    # recompute the mean and sample stddev of read IOPS from the runs
    samples = []
    for run_doc in doc["runs"]:
        for j in run_doc["jobs"]:
            if j["jobname"] == "iops-read":
                samples.append(j["read"]["iops"])
    m = res["iops-read"]["metrics"]["read-iops"]
    mean = sum(samples) / 3
    sd = (sum((x - mean) ** 2 for x in samples) / 2) ** 0.5
    assert abs(m["mean"] - mean) < 1e-6 * max(1, mean)
    assert abs(m["stddev"] - sd) < 1e-6 * max(1, sd)
    assert m["n"] == 3 and sorted(m["samples"]) == sorted(samples)
    assert res["latency-read"]["headline"] == ["read-lat-mean"]
    assert res["throughput-read"]["headline"] == ["read-bw"]


def test_report_formats(tmp):
    for fmt, needle in (("md", "| target"), ("csv", "target,workload,metric,unit,n,mean")):
        r = run("--name=a", "--rw=randread", "--size=1m", f"--directory={tmp}",
                "--iterations=2", f"--report-format={fmt}", "--label=x")
        assert r.rc == 0, r
        assert needle in r.out


def test_report_file_svg(tmp):
    import xml.etree.ElementTree as ET
    path = os.path.join(tmp, "summary.svg")
    r = run("--name=a", "--rw=randread", "--size=1m", f"--directory={tmp}", "--iterations=2",
            f"--report={path}", "--label=x")
    assert r.rc == 0, r
    assert "=== summary" not in r.out  # the summary went to the file
    root = ET.parse(path).getroot()
    assert root.tag.endswith("svg")
    assert "x" in ET.tostring(root, encoding="unicode")
