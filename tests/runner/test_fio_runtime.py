"""fio's runtime rule on jobs shorter than a millisecond (lib/stats/fiotime.h).

fio 3.33 keeps a direction's runtime in whole milliseconds rounded up from
the microseconds it measured, so a job of a few hundred microseconds
reports runtime 1 and its rate over that millisecond (4 KiB of 4k
randwrite: iops 1000; 64 KiB: iops 16000). Our JSON carries the exact
microseconds (storagebench.runtime_us), so the rule is checked exactly,
whatever the machine's speed; the jobs are small enough that the
sub-millisecond case is the usual one.
"""
import json
import os
import subprocess

import pytest

from conftest import FIO, RELEASE_RUNNER, run

JOBS = [("4k", 1), ("64k", 16)]


def check_rule(w, runtime_us):
    ms = max(1, -(-runtime_us // 1000))
    assert w["runtime"] == ms, (w["runtime"], runtime_us)
    assert w["iops"] == pytest.approx(w["total_ios"] * 1000.0 / ms, rel=1e-9)
    assert w["bw_bytes"] == int(w["io_bytes"] * 1000 / ms)
    assert w["bw"] == w["bw_bytes"] // 1024
    return ms


@pytest.mark.parametrize("binary", ["asan", "release"])
@pytest.mark.parametrize("size,ios", JOBS, ids=[s for s, _ in JOBS])
def test_short_job_runtime_and_rates(tmp, size, ios, binary):
    r = run("--name=j", "--rw=randwrite", "--bs=4k", f"--size={size}", f"--directory={tmp}",
            "--output-format=json", binary=RELEASE_RUNNER if binary == "release" else None)
    assert r.rc == 0, r
    j = r.job()
    w = j["write"]
    assert w["total_ios"] == ios
    us = j["storagebench"]["runtime_us"]
    ms = check_rule(w, us)
    if us < 1000:
        assert (w["runtime"], w["iops"]) == (1, 1000.0 * ios)
    assert j["job_runtime"] == us // 1000
    assert j["read"]["runtime"] == 0 and j["read"]["iops"] == 0
    # the text output divides by the same millisecond
    t = run("--name=j", "--rw=randwrite", "--bs=4k", f"--size={size}", f"--directory={tmp}",
            binary=RELEASE_RUNNER)
    assert t.rc == 0, t
    assert "msec)" in t.out and "/0msec" not in t.out and "run=0-" not in t.out, t.out
    assert ms >= 1


def test_null_engine_job_is_never_zero(tmp):
    # no real I/O at all: microseconds, still 1 ms and a finite rate
    r = run("--name=n", "--ioengine=null", "--rw=randwrite", "--bs=4k", "--size=4k",
            f"--directory={tmp}", "--output-format=json", binary=RELEASE_RUNNER)
    assert r.rc == 0, r
    w = r.job()["write"]
    check_rule(w, r.job()["storagebench"]["runtime_us"])
    assert w["iops"] > 0 and w["bw_bytes"] > 0


@pytest.mark.skipif(not FIO, reason="fio is not installed")
@pytest.mark.parametrize("size,ios", JOBS, ids=[s for s, _ in JOBS])
def test_fio_counts_the_same_way(tmp, size, ios):
    # fio on the same job: its job_runtime is the elapsed ms rounded down, its
    # runtime rounded up, never 0 after I/O; under 1 ms it says 1 and
    # 1000 * ios, which is what we say for the same case above.
    os.mkdir(os.path.join(tmp, "fio"))
    p = subprocess.run([FIO, "--name=j", "--rw=randwrite", "--bs=4k", f"--size={size}",
                        f"--directory={os.path.join(tmp, 'fio')}", "--output-format=json"],
                       capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr
    j = json.loads(p.stdout[p.stdout.index("{"):])["jobs"][0]
    w = j["write"]
    assert w["total_ios"] == ios
    assert j["job_runtime"] <= w["runtime"] <= j["job_runtime"] + 1
    assert w["runtime"] >= 1
    assert w["iops"] == pytest.approx(ios * 1000.0 / w["runtime"], rel=1e-9)
    assert w["bw_bytes"] == int(w["io_bytes"] * 1000 / w["runtime"])
    if j["job_runtime"] == 0:
        assert (w["runtime"], w["iops"]) == (1, 1000.0 * ios)
