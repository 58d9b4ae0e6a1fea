"""Real I/O: bytes written, data read back, sync counts, timing, engines."""
import hashlib
import os
import time

import pytest

from conftest import RELEASE_RUNNER, NO_IOURING, run


def test_write_writes_expected_bytes_and_reads_back(tmp):
    path = os.path.join(tmp, "data")
    r = run("--name=w", "--rw=write", "--bs=64k", "--size=4m", f"--filename={path}",
            "--refill_buffers", "--output-format=json")
    assert r.rc == 0, r
    w = r.job()["write"]
    assert w["io_bytes"] == 4 << 20 and w["total_ios"] == 64
    assert os.path.getsize(path) == 4 << 20
    with open(path, "rb") as f:
        data = f.read()
    # refill_buffers: every block is different random data, not zeros
    blocks = {hashlib.sha256(data[i:i + 65536]).hexdigest() for i in range(0, len(data), 65536)}
    assert len(blocks) == 64
    # reading it back with our runner moves the same bytes
    r2 = run("--name=r", "--rw=read", "--bs=64k", "--size=4m", f"--filename={path}",
             "--output-format=json")
    assert r2.rc == 0, r2
    assert r2.job()["read"]["io_bytes"] == 4 << 20
    with open(path, "rb") as f:
        assert f.read() == data  # reads did not touch the data


def test_verify_sha256_checks_every_block(tmp):
    r = run("--name=v", "--rw=randwrite", "--bs=4k", "--size=2m", f"--directory={tmp}",
            "--verify=sha256", "--output-format=json")
    assert r.rc == 0, r
    sb = r.job()["storagebench"]["verify"]
    assert sb["checked"] == 512 and sb["mismatches"] == 0
    assert r.job()["read"]["total_ios"] == 512


@pytest.mark.parametrize("n", [1, 32, 128])
def test_fsync_count_matches_fio_rule(tmp, n):
    # fio issues a sync before the next write after every n writes, so the
    # last one is never followed by a sync: floor((writes - 1) / n)
    writes = 1024
    r = run("--name=f", "--rw=write", "--bs=4k", f"--size={writes * 4}k", f"--fsync={n}",
            f"--directory={tmp}", "--output-format=json")
    assert r.rc == 0, r
    assert r.job()["write"]["total_ios"] == writes
    assert r.job()["sync"]["total_ios"] == (writes - 1) // n
    assert r.job()["sync"]["lat_ns"]["N"] == (writes - 1) // n


def test_fdatasync_counted_as_fio_does(tmp):
    # fio's "sync" section: total_ios counts fsyncs only, lat_ns covers both
    r = run("--name=f", "--rw=randwrite", "--bs=4k", "--size=256k", "--fdatasync=8",
            f"--directory={tmp}", "--output-format=json")
    assert r.rc == 0, r
    assert r.job()["sync"]["total_ios"] == 0
    assert r.job()["sync"]["lat_ns"]["N"] == 63 // 8
    assert r.job()["storagebench"]["syncs"] == {"fsync": 0, "fdatasync": 63 // 8}


def test_time_based_runtime_within_5_percent(tmp):
    # release build (times are the subject); the runner stops issuing once 2 s
    # have passed and counts to the last completion, rounded up to a whole ms:
    # under 2000 only by a completion-to-check gap (scheduling), over it by
    # at most the I/O in flight, however slow the device is today.
    r = run("--name=t", "--rw=randread", "--bs=4k", "--size=8m", "--runtime=2s",
            "--time_based", f"--directory={tmp}", "--output-format=json",
            binary=RELEASE_RUNNER)
    assert r.rc == 0, r
    rt = r.job()["read"]["runtime"]
    assert 1900 <= rt <= 2000 + in_flight_ms(r.job()["read"]), (rt, r.job()["read"]["lat_ns"])
    # per-second samples: two complete seconds
    assert r.job()["read"]["iops_samples"] in (1, 2)


def test_ramp_time_excluded(tmp):
    # with ramp 1s and runtime 1s the measured runtime is ~1s, and the
    # total elapsed ~2s: ramp I/O is done but not counted
    t0 = time.monotonic()
    r = run("--name=t", "--rw=randread", "--bs=4k", "--size=8m", "--runtime=1s",
            "--ramp_time=1s", "--time_based", f"--directory={tmp}", "--output-format=json",
            binary=RELEASE_RUNNER)
    elapsed = time.monotonic() - t0
    assert r.rc == 0, r
    rd = r.job()["read"]
    # about 1 s (plus the I/O in flight), not the 2 s a counted ramp would make
    assert 900 <= rd["runtime"] <= min(1000 + in_flight_ms(rd), 1900), (rd["runtime"], rd["lat_ns"])
    assert elapsed >= 2.0
    # ios over the measured second only: IOPS and count agree with runtime
    assert abs(rd["iops"] - rd["total_ios"] * 1000.0 / rd["runtime"]) < 1


def test_ramp_not_counted_toward_size(tmp):
    # non-time-based: after the ramp the job still does its full size
    r = run("--name=t", "--rw=write", "--bs=4k", "--size=1m", "--ramp_time=200ms",
            "--rate_iops=500", f"--directory={tmp}", "--output-format=json")
    assert r.rc == 0, r
    assert r.job()["write"]["io_bytes"] == 1 << 20


def test_io_uring_and_psync_move_the_same_bytes(tmp):
    counts = {}
    for eng in ("io_uring", "psync"):
        r = run("--name=e", "--rw=randrw", "--bs=4k", "--size=2m", "--iodepth=8",
                f"--ioengine={eng}", f"--directory={tmp}", "--output-format=json")
        assert r.rc == 0, r
        j = r.job()
        counts[eng] = (j["read"]["total_ios"] + j["write"]["total_ios"],
                       j["read"]["io_bytes"] + j["write"]["io_bytes"])
        assert j["engine"]["ran"] == eng
    assert counts["io_uring"] == counts["psync"] == (512, 2 << 20)


def test_fallback_when_io_uring_blocked(tmp):
    r = run("--name=fb", "--rw=randread", "--bs=4k", "--size=1m", "--iodepth=16",
            f"--directory={tmp}", "--output-format=json", prefix=[NO_IOURING])
    if r.rc == 77:
        pytest.skip("cannot install a seccomp filter here")
    assert r.rc == 0, r
    eng = r.job()["engine"]
    assert eng["ran"] == "psync"
    assert "io_uring_setup failed: Operation not permitted" in eng["reason"]
    assert eng["iodepth"] == 1
    assert r.job()["read"]["io_bytes"] == 1 << 20
    assert "Fell back to psync" in r.err
    # the text output says so too
    r = run("--name=fb", "--rw=randread", "--size=256k", f"--directory={tmp}",
            prefix=[NO_IOURING])
    assert "engine=psync (fell back to psync: io_uring_setup failed" in r.out


def test_numjobs_group_reporting_sums(tmp):
    r = run("--name=g", "--rw=write", "--bs=4k", "--size=512k", "--numjobs=3",
            "--group_reporting", f"--directory={tmp}", "--output-format=json")
    assert r.rc == 0, r
    assert len(r.json["jobs"]) == 1
    assert r.job()["write"]["io_bytes"] == 3 * (512 << 10)
    assert r.job()["storagebench"]["jobs"] == 3
    # without group_reporting: one entry per clone, each with its own file
    r = run("--name=g", "--rw=write", "--bs=4k", "--size=512k", "--numjobs=3",
            f"--directory={tmp}", "--output-format=json")
    assert len(r.json["jobs"]) == 3
    assert sorted(os.listdir(tmp)) == ["g.0.0", "g.1.0", "g.2.0"]


def test_read_lays_out_file_with_data(tmp):
    path = os.path.join(tmp, "lay")
    r = run("--name=r", "--rw=randread", "--size=2m", f"--filename={path}", "--direct=1",
            "--output-format=json")
    assert r.rc == 0, r
    st = os.stat(path)
    assert st.st_size == 2 << 20 and st.st_blocks * 512 >= 2 << 20  # no holes
    with open(path, "rb") as f:
        assert f.read(65536) != bytes(65536)
    # a preallocated but never written file is laid out again before reading
    pre = os.path.join(tmp, "pre")
    with open(pre, "wb") as f:
        os.posix_fallocate(f.fileno(), 0, 1 << 20)
    r = run("--name=r", "--rw=read", "--size=1m", f"--filename={pre}", "--output-format=json")
    assert r.rc == 0, r
    with open(pre, "rb") as f:
        assert f.read() != bytes(1 << 20)


def in_flight_ms(d):
    """How far past its deadline a job may end: its slowest I/O (issued just
    before the deadline) plus a scheduling allowance."""
    return d["lat_ns"]["max"] / 1e6 + 250


# The rate limiter paces issue times from the job's start, so late I/Os are
# caught up and only the limit itself bounds the rate from above. With the
# null engine (no device) the rate must be met; with real I/O only never
# exceeded: how fast the disk is today is not the runner's doing.
@pytest.mark.parametrize("engine", ["null", "io_uring"])
def test_rate_iops_limits(tmp, engine):
    r = run("--name=r", f"--ioengine={engine}", "--rw=randread", "--bs=4k", "--size=4m",
            "--rate_iops=200", "--runtime=2s", "--time_based", f"--directory={tmp}",
            "--output-format=json", binary=RELEASE_RUNNER)
    assert r.rc == 0, r
    iops = r.job()["read"]["iops"]
    assert iops <= 215, iops
    if engine == "null":
        assert iops >= 170, iops


def test_latency_percentiles_are_fio_bucket_values(tmp):
    r = run("--name=p", "--rw=randread", "--bs=4k", "--size=4m", f"--directory={tmp}",
            "--percentile_list=50:99", "--output-format=json+")
    assert r.rc == 0, r
    c = r.job()["read"]["clat_ns"]
    assert set(c["percentile"]) == {"50.000000", "99.000000"}
    bins = {int(k): v for k, v in c["bins"].items()}
    assert sum(bins.values()) == r.job()["read"]["total_ios"]
    # percentiles are values of bins, computed as fio does
    total, acc = sum(bins.values()), 0
    for v in sorted(bins):
        acc += bins[v]
        if acc >= 0.5 * total:
            assert c["percentile"]["50.000000"] == v
            break


def test_json_has_fio_fields(tmp):
    r = run("--name=j", "--rw=randwrite", "--bs=4k", "--size=1m", f"--directory={tmp}",
            "--output-format=json")
    j = r.job()
    for k in ("jobname", "groupid", "error", "job options", "read", "write", "trim", "sync",
              "job_runtime", "usr_cpu", "sys_cpu", "ctx", "majf", "minf", "latency_us"):
        assert k in j, k
    for k in ("io_bytes", "io_kbytes", "bw_bytes", "bw", "iops", "runtime", "total_ios",
              "short_ios", "drop_ios", "slat_ns", "clat_ns", "lat_ns", "bw_min", "bw_max",
              "bw_agg", "bw_mean", "bw_dev", "bw_samples", "iops_min", "iops_max",
              "iops_mean", "iops_stddev", "iops_samples"):
        assert k in j["write"], k
    w = j["write"]
    # fio's rule: at least 1 ms after I/O, however fast the job ran
    assert w["runtime"] >= 1, w
    assert w["bw_bytes"] == int(w["io_bytes"] * 1000 / w["runtime"])
    assert w["bw"] == w["bw_bytes"] // 1024


def test_block_device_direct_io(loopdev):
    # a PVC with volumeMode: Block appears as a device: no layout, size = the device
    r = run("--name=b", "--rw=randwrite", "--bs=4k", "--direct=1", f"--filename={loopdev}",
            "--io_size=2m", "--output-format=json")
    assert r.rc == 0, r
    assert r.job()["write"]["io_bytes"] == 2 << 20
    r = run("--name=b", "--rw=randread", "--bs=4k", "--direct=1", f"--filename={loopdev}",
            "--runtime=1s", "--time_based", "--output-format=json")
    assert r.rc == 0, r
    assert r.job()["read"]["total_ios"] > 0
    # unaligned for the device's logical block size: a clear usage error
    r = run("--name=b", "--rw=read", "--bs=1000", "--direct=1", f"--filename={loopdev}")
    assert r.rc == 2, r
    assert f"logical block size of '{loopdev}'" in r.out + r.err
    # beyond the end of the device
    r = run("--name=b", "--rw=read", "--size=64m", f"--filename={loopdev}")
    assert r.rc == 2, r
    assert "beyond the end of" in r.out + r.err


def test_unified_rw_reporting(tmp):
    r = run("--name=u", "--rw=randrw", "--bs=4k", "--size=1m", "--unified_rw_reporting=1",
            f"--directory={tmp}", "--output-format=json")
    assert r.rc == 0, r
    j = r.job()
    assert "mixed" in j and "read" not in j
    assert j["mixed"]["total_ios"] == 256 and j["mixed"]["io_bytes"] == 1 << 20
    assert j["mixed"]["clat_ns"]["N"] == 256


def test_issue8_options_through_a_job_file(tmp):
    # options from published benchmarks, in a job file: all understood and honoured
    job = os.path.join(tmp, "pub.fio")
    with open(job, "w") as f:
        f.write(f"""[global]
directory={tmp}
ioengine=libaio
refill_buffers
verify=0
group_reporting
gtod_reduce=1
kb_base=1000
norandommap
randrepeat=0
invalidate=1
startdelay=100ms
thinktime=50
thinktime_blocks=16
zero_buffers=0
buffer_compress_percentage=50
clat_percentiles=1
lat_percentiles=1
[a]
rw=randwrite
bs=4k
size=1m
offset_increment=1m
filesize=512k
nrfiles=2
numjobs=2
[b]
stonewall
rw=read
bssplit=4k/50:64k/50
size=2m
""")
    r = run(job, "--output-format=json")
    assert r.rc == 0, r
    a, b = r.json["jobs"]
    assert a["jobname"] == "a" and a["storagebench"]["jobs"] == 2
    # as fio 3.33: with filesize, a clone does its files (2 x 512000, kb_base=1000)
    assert a["write"]["io_bytes"] == 2 * 2 * 512000
    assert a["engine"]["asked"] == "libaio" and a["engine"]["ran"] == "io_uring"
    assert a["write"]["clat_ns"]["N"] == 0  # gtod_reduce: no latency
    assert b["read"]["io_bytes"] == 2000000  # size=2m with kb_base=1000, as fio 3.33
    files = sorted(os.listdir(tmp))
    assert "a.0.0" in files and "a.1.1" in files  # nrfiles per clone
    # offset_increment=1m (kb_base=1000): clone 1 starts 1000000 bytes in
    assert os.path.getsize(os.path.join(tmp, "a.1.0")) == 1000000 + 512000


@pytest.mark.parametrize("engine", ["null", "io_uring"])
def test_rate_limits_bandwidth(tmp, engine):
    r = run("--name=r", f"--ioengine={engine}", "--rw=write", "--bs=64k", "--size=8m",
            "--rate=1m", "--runtime=2s", "--time_based", f"--directory={tmp}",
            "--output-format=json", binary=RELEASE_RUNNER)
    assert r.rc == 0, r
    bw = r.job()["write"]["bw_bytes"]
    assert bw <= 1.1 * (1 << 20), bw
    if engine == "null":
        assert bw >= 0.85 * (1 << 20), bw


def _zero_fraction(path):
    with open(path, "rb") as f:
        data = f.read()
    return data.count(0) / len(data)


def test_buffer_contents_options(tmp):
    for opt, lo, hi in (("--zero_buffers", 0.99, 1.0),
                        ("--buffer_compress_percentage=50", 0.45, 0.56),
                        ("--refill_buffers", 0.0, 0.01)):
        path = os.path.join(tmp, "buf")
        if os.path.exists(path):
            os.unlink(path)
        r = run("--name=z", "--rw=write", "--bs=64k", "--size=2m", f"--filename={path}", opt,
                "--fallocate=none")
        assert r.rc == 0, r
        frac = _zero_fraction(path)
        assert lo <= frac <= hi, (opt, frac)


def test_thinktime_and_startdelay(tmp):
    t0 = time.monotonic()
    r = run("--name=t", "--rw=randread", "--bs=4k", "--size=1m", "--io_size=200k",
            "--thinktime=10ms", "--startdelay=500ms", f"--directory={tmp}",
            "--output-format=json")
    elapsed = time.monotonic() - t0
    assert r.rc == 0, r
    ios = r.job()["read"]["total_ios"]
    assert ios == 50
    # 50 I/Os with 10 ms of thinking after each: at least 0.5 s of runtime
    assert r.job()["read"]["runtime"] >= 490
    assert elapsed >= 1.0  # plus the start delay
