"""Our counts and byte totals against fio's on the same small jobs (fio 3.33)."""
import json
import os
import subprocess

import pytest

from conftest import FIO, run

pytestmark = pytest.mark.skipif(not FIO, reason="fio is not installed")

JOBS = [
    ["--rw=write", "--bs=4k", "--size=4m", "--fsync=32"],
    ["--rw=write", "--bs=4k", "--size=4m", "--fsync=1"],
    ["--rw=randwrite", "--bs=4k", "--size=2m", "--fdatasync=7"],
    ["--rw=read", "--bs=64k", "--size=4m"],
    ["--rw=randread", "--bs=4k", "--size=2m", "--iodepth=8"],
    ["--rw=randrw", "--bs=8k", "--size=4m", "--rwmixread=70", "--iodepth=4"],
    ["--rw=write", "--bs=16k", "--size=1m", "--numjobs=3", "--group_reporting"],
    ["--rw=read", "--bs=4k", "--size=1m", "--loops=3"],
    ["--rw=write", "--bs=4k", "--size=1m", "--io_size=512k"],
    ["--rw=write", "--bs=4k", "--size=1m", "--nrfiles=4"],
]


def fio(*args):
    p = subprocess.run([FIO, *args], capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr
    # fio prints notes before the JSON document on stdout (fio issue #360)
    return json.loads(p.stdout[p.stdout.index("{"):])


def totals(doc):
    t = {"read_ios": 0, "write_ios": 0, "read_bytes": 0, "write_bytes": 0, "sync": 0}
    for j in doc["jobs"]:
        t["read_ios"] += j["read"]["total_ios"]
        t["write_ios"] += j["write"]["total_ios"]
        t["read_bytes"] += j["read"]["io_bytes"]
        t["write_bytes"] += j["write"]["io_bytes"]
        t["sync"] += j["sync"]["total_ios"]
        t["sync_lat_n"] = t.get("sync_lat_n", 0) + j["sync"]["lat_ns"]["N"]
    return t


@pytest.mark.parametrize("job", JOBS, ids=[" ".join(j) for j in JOBS])
def test_counts_match_fio(tmp, job):
    ours_dir, fio_dir = os.path.join(tmp, "ours"), os.path.join(tmp, "fio")
    os.mkdir(ours_dir)
    os.mkdir(fio_dir)
    common = ["--name=cmp", "--ioengine=io_uring", "--output-format=json", *job]
    r = run(*common, f"--directory={ours_dir}")
    assert r.rc == 0, r
    f = fio(*common, f"--directory={fio_dir}")
    ours, theirs = totals(r.json), totals(f)
    if "randrw" in " ".join(job):
        # the read/write split is random in both: totals must agree, split roughly
        assert ours["read_ios"] + ours["write_ios"] == theirs["read_ios"] + theirs["write_ios"]
        assert ours["read_bytes"] + ours["write_bytes"] == \
            theirs["read_bytes"] + theirs["write_bytes"]
        share = ours["read_ios"] / (ours["read_ios"] + ours["write_ios"])
        assert 0.6 <= share <= 0.8
    else:
        assert ours == theirs
    assert len(r.json["jobs"]) == len(f["jobs"])
