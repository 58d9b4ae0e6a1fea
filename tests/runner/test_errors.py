"""Bad input and failing storage: clear errors, right exit codes, nothing lost."""
import json
import os
import subprocess

import pytest

from conftest import run


def test_unaligned_direct_io_is_usage_error(tmp):
    r = run("--name=u", "--rw=read", "--bs=1000", "--size=1m", "--direct=1",
            f"--directory={tmp}")
    assert r.rc == 2, r
    assert "bs: 1000 is not a multiple of" in r.out + r.err
    assert "logical block size" in r.out + r.err


def test_missing_directory_is_usage_error(tmp):
    missing = os.path.join(tmp, "nope", "deeper")
    r = run("--name=m", "--rw=write", "--size=1m", f"--directory={missing}",
            "--output-format=json")
    assert r.rc == 2, r
    j = r.job()  # still one JSON document with the job's error
    assert "nope" in j["storagebench"]["errors"]["message"]
    assert j["error"] != 0


@pytest.fixture
def small_tmpfs(tmp):
    mnt = os.path.join(tmp, "small")
    os.mkdir(mnt)
    p = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=2m", "tmpfs", mnt],
                       capture_output=True, text=True)
    if p.returncode != 0:
        pytest.skip(f"cannot mount a small tmpfs: {p.stderr.strip()}")
    yield mnt
    # an io_uring ring is torn down by the kernel after the runner exits, and
    # holds its files until then: the mount may still be busy for a moment.
    # A lazy unmount detaches it now either way (freed when the ring is).
    if subprocess.run(["umount", mnt], capture_output=True).returncode != 0:
        subprocess.run(["umount", "--lazy", mnt], check=True)


def test_full_disk_counts_enospc_and_keeps_other_results(tmp, small_tmpfs):
    job = os.path.join(tmp, "two.fio")
    with open(job, "w") as f:
        f.write(f"""[global]
rw=write
bs=64k
fallocate=none
[fills]
directory={small_tmpfs}
size=8m
[fine]
directory={tmp}
size=1m
""")
    r = run(job, "--output-format=json")
    assert r.rc == 1, r
    jobs = {j["jobname"]: j for j in r.json["jobs"]}
    assert jobs["fills"]["error"] == 28  # ENOSPC
    assert jobs["fills"]["storagebench"]["errors"]["enospc"] >= 1
    assert "No space left on device" in jobs["fills"]["storagebench"]["errors"]["message"]
    # what was written before the disk filled up is reported
    assert 0 < jobs["fills"]["write"]["io_bytes"] <= 2 << 20
    assert jobs["fine"]["error"] == 0
    assert jobs["fine"]["write"]["io_bytes"] == 1 << 20
    # the text output shows the error and the other job's results
    r = run(job)
    assert r.rc == 1
    assert "err=28" in r.out and "No space left on device" in r.out
    assert "fine: (groupid=0, jobs=1): err= 0" in r.out


def test_verify_catches_corrupted_block(tmp):
    path = os.path.join(tmp, "vfile")
    args = ["--name=v", "--rw=randwrite", "--bs=4k", "--size=1m", f"--filename={path}",
            "--verify=crc32c"]
    r = run(*args, "--do_verify=0", "--output-format=json")
    assert r.rc == 0, r
    with open(path, "r+b") as f:  # corrupt one block between write and read
        f.seek(37 * 4096 + 100)
        f.write(b"corrupted!")
    r = run(*args, "--verify_only=1", "--output-format=json")
    assert r.rc == 1, r
    v = r.job()["storagebench"]["verify"]
    assert v["mismatches"] == 1 and v["checked"] == 256
    assert v["bad_offsets"] == [37 * 4096]
    assert "offset=151552" in r.err and "crc32c checksum mismatch" in r.err


def test_size_percent_of_free_space(tmp, small_tmpfs):
    r = run("--name=p", "--rw=write", "--bs=4k", "--size=50%", f"--directory={small_tmpfs}",
            "--output-format=json")
    assert r.rc == 0, r
    got = r.job()["write"]["io_bytes"]
    assert 900 << 10 <= got <= 1 << 20, got


def test_job_file_line_in_error(tmp):
    job = os.path.join(tmp, "e.fio")
    with open(job, "w") as f:
        f.write("[global]\nsize=1m\n\n[x]\nrw=sideways\n")
    r = run(job)
    assert r.rc == 2
    assert f"{job}:5: rw: 'sideways' is not one of" in r.err
