"""fio compatibility, second round (issue 21): each option against fio 3.33
on the same small job, with real I/O on files under /tmp.

Offsets are compared through the logs each tool writes: fio's iolog
(write_iolog, one line per I/O with its offset) and our fio-format IOPS log
with log_offset=1 (one line per I/O: time, 1, ddir, bs, offset, prio).
"""
import collections
import json
import math
import os
import subprocess

import pytest

from conftest import FIO, run

pytestmark = pytest.mark.skipif(not FIO, reason="fio is not installed")

BS = 4096
FILE_MB = 4
NBLK = FILE_MB * 1024 * 1024 // BS


def fio(*args, cwd=None, ok=True):
    p = subprocess.run([FIO, *[str(a) for a in args]], capture_output=True, text=True,
                       timeout=180, cwd=cwd)
    if ok:
        assert p.returncode == 0, p.stdout + p.stderr
    out = p.stdout
    return json.loads(out[out.index("{"):]) if "{" in out else None


def make_file(path, mb=FILE_MB):
    with open(path, "wb") as f:
        f.write(os.urandom(mb * 1024 * 1024))
    return path


def fio_offsets(iolog, ddir="read"):
    """Offsets of the I/Os in a fio version 3 iolog."""
    offs = []
    with open(iolog) as f:
        for line in f:
            p = line.split()
            if len(p) == 5 and p[2] == ddir:
                offs.append((int(p[3]), int(p[4])))
    return offs


def our_log(path):
    """Rows of one of our fio-format logs, as lists of ints."""
    with open(path) as f:
        return [[int(x) for x in line.split(",")] for line in f if line.strip()]


def block_counts(offsets):
    return collections.Counter(off // BS for off in offsets)


def hot_shares(counts, top):
    n = sum(counts.values())
    ordered = sorted(counts.values(), reverse=True)
    return ordered[0] / n, sum(ordered[:top]) / n


def skewed_pair(tmp, dist, ios=20480):
    """Block counts of the same skewed random-read job under fio and under us."""
    target = make_file(os.path.join(tmp, "data"))
    common = ["--name=skew", "--rw=randread", f"--bs={BS}", f"--size={FILE_MB}m",
              f"--io_size={ios * BS}", f"--random_distribution={dist}",
              "--ioengine=psync", f"--filename={target}"]
    fio(*common, f"--write_iolog={tmp}/fio.iolog", "--output-format=json")
    r = run(*common, f"--write_iops_log={tmp}/ours", "--log_offset=1", "--output-format=json")
    assert r.rc == 0, r
    assert r.job()["read"]["total_ios"] == ios
    ours = block_counts(row[4] for row in our_log(f"{tmp}/ours_iops.1.log"))
    theirs = block_counts(off for off, _ in fio_offsets(f"{tmp}/fio.iolog"))
    assert sum(ours.values()) == sum(theirs.values()) == ios
    return ours, theirs


# (distribution, tolerance of the hottest block's share, of the top 10% of blocks' share)
DISTS = [("zipf:1.2", 0.03, 0.03), ("zipf:0.8", 0.02, 0.03), ("pareto:0.2", 0.04, 0.04),
         ("normal:10", 0.004, 0.04), ("zoned:60/10:30/20:8/30:2/40", 0.004, 0.02)]


@pytest.mark.parametrize("dist,tol1,tol10", DISTS, ids=[d[0] for d in DISTS])
def test_distribution_hot_share_matches_fio(tmp, dist, tol1, tol10):
    ours, theirs = skewed_pair(tmp, dist)
    o1, o10 = hot_shares(ours, NBLK // 10)
    t1, t10 = hot_shares(theirs, NBLK // 10)
    assert abs(o1 - t1) <= tol1, (dist, o1, t1)
    assert abs(o10 - t10) <= tol10, (dist, o10, t10)


def gray_zipf_cdf(k, n, theta):
    """P(rank <= k) of the Zipf generator fio uses (Gray et al. 1994)."""
    zetan = sum(i ** -theta for i in range(1, n + 1))
    zeta2 = 1 + 0.5 ** theta
    if k == 1:
        return 1 / zetan
    eta = (1 - (2 / n) ** (1 - theta)) / (1 - zeta2 / zetan)
    return max(zeta2 / zetan, min(1.0, ((k / n) ** (1 - theta) - 1 + eta) / eta))


def test_zipf_histogram_matches_expected_frequencies(tmp):
    """zipf:1.2: the hottest blocks' shares are the generator's rank probabilities."""
    target = make_file(os.path.join(tmp, "data"))
    ios = 40960
    r = run("--name=z", "--rw=randread", f"--bs={BS}", f"--size={FILE_MB}m",
            f"--io_size={ios * BS}", "--random_distribution=zipf:1.2", "--ioengine=psync",
            f"--filename={target}", f"--write_iops_log={tmp}/z", "--log_offset=1")
    assert r.rc == 0, r
    counts = sorted(block_counts(row[4] for row in our_log(f"{tmp}/z_iops.1.log")).values(),
                    reverse=True)
    exact = sum(i ** -1.2 for i in range(1, NBLK + 1))
    # ranks 1 and 2 are exact Zipf: k^-theta / zeta(n, theta)
    for k in (1, 2):
        expect = ios * k ** -1.2 / exact
        assert abs(counts[k - 1] - expect) < 5 * math.sqrt(expect), (k, counts[k - 1], expect)
    # the top 1, 10, 100 blocks together, against the generator's distribution
    for top in (10, 100):
        expect = ios * gray_zipf_cdf(top, NBLK, 1.2)
        sd = math.sqrt(expect * (1 - expect / ios))
        assert abs(sum(counts[:top]) - expect) < 5 * sd + 0.01 * ios, (top, expect)


def test_zoned_shares_per_zone(tmp):
    target = make_file(os.path.join(tmp, "data"))
    ios = 20000
    r = run("--name=z", "--rw=randread", f"--bs={BS}", f"--size={FILE_MB}m",
            f"--io_size={ios * BS}", "--random_distribution=zoned:60/10:30/20:10/",
            "--ioengine=psync", f"--filename={target}", f"--write_iops_log={tmp}/z",
            "--log_offset=1")
    assert r.rc == 0, r
    offs = [row[4] for row in our_log(f"{tmp}/z_iops.1.log")]
    size = FILE_MB * 1024 * 1024
    z1 = sum(o < size * 0.1 for o in offs) / ios
    z2 = sum(size * 0.1 <= o < size * 0.3 for o in offs) / ios
    assert abs(z1 - 0.6) < 0.02 and abs(z2 - 0.3) < 0.02, (z1, z2)


def test_zoned_abs_and_errors_name_the_field(tmp):
    target = make_file(os.path.join(tmp, "data"))
    r = run("--name=z", "--rw=randread", f"--size={FILE_MB}m", "--io_size=4m",
            "--random_distribution=zoned_abs=50/1m:50/3m", "--ioengine=psync",
            f"--filename={target}", f"--write_iops_log={tmp}/z", "--log_offset=1")
    assert r.rc == 0, r
    offs = [row[4] for row in our_log(f"{tmp}/z_iops.1.log")]
    share = sum(o < 1024 * 1024 for o in offs) / len(offs)
    assert abs(share - 0.5) < 0.05, share
    for bad, text in [("zipf:1", "theta"), ("zoned:60/10:30/20", "not 100"),
                      ("pareto:2", "pareto h"), ("lognormal:1", "is not random")]:
        r = run("--name=z", "--rw=randread", "--size=1m", f"--random_distribution={bad}",
                "--parse-only")
        assert r.rc == 2 and "random_distribution" in r.err and text in r.err, (bad, r)


def block_sizes_pair(tmp, *opts):
    target = make_file(os.path.join(tmp, "data"), 16)
    common = ["--name=bs", f"--filename={target}", "--size=16m", "--ioengine=psync", *opts]
    f = fio(*common, f"--write_iolog={tmp}/fio.iolog", "--output-format=json")
    r = run(*common, f"--write_iops_log={tmp}/ours", "--output-format=json")
    assert r.rc == 0, r
    ours = collections.Counter(row[3] for row in our_log(f"{tmp}/ours_iops.1.log"))
    theirs = collections.Counter(ln for _, ln in fio_offsets(f"{tmp}/fio.iolog"))
    # fio may let the last I/O of a norandommap job run past size (by < one block)
    assert 0 <= f["jobs"][0]["read"]["io_bytes"] - r.job()["read"]["io_bytes"] < 16384
    return ours, theirs


@pytest.mark.parametrize("opts", [["--rw=read", "--bsrange=4k-16k"],
                                  ["--rw=randread", "--bsrange=4k-16k", "--norandommap"],
                                  ["--rw=randread", "--bsrange=4k-16k"]],
                         ids=["seq", "random-norandommap", "random-map"])
def test_block_size_ranges_match_fio(tmp, opts):
    """Sizes are multiples of the smallest; the random map shortens I/Os as fio's does."""
    ours, theirs = block_sizes_pair(tmp, *opts)
    assert set(ours) == set(theirs) == {4096, 8192, 12288, 16384}
    n_o, n_t = sum(ours.values()), sum(theirs.values())
    for size in ours:
        assert abs(ours[size] / n_o - theirs[size] / n_t) < 0.04, (size, ours, theirs)


@pytest.mark.parametrize("bs", ["8k,32k", "8k-32k"])
def test_bs_per_direction_lists_as_fio(tmp, bs):
    """fio 3.33 reads bs=8k-32k as bs=8k,32k (not a range): we do too, and say so."""
    common = ["--name=b", "--rw=randrw", f"--bs={bs}", "--size=1m", "--ioengine=null",
              "--output-format=json"]
    f = fio(*common, f"--filename={tmp}/fio")["jobs"][0]
    r = run(*common, f"--filename={tmp}/ours")
    assert r.rc == 0, r
    j = r.job()
    for job in (j, f):
        assert job["read"]["io_bytes"] == 8192 * job["read"]["total_ios"] > 0
        assert job["write"]["io_bytes"] == 32768 * job["write"]["total_ios"] > 0
    if "-" in bs:
        assert "use bsrange=8k-32k" in r.err, r


@pytest.mark.parametrize("rw", ["trim", "randtrim", "trimwrite"])
def test_trim_on_a_file_punches_holes(tmp, rw):
    target = make_file(os.path.join(tmp, "data"))
    r = run("--name=t", f"--rw={rw}", "--bs=64k", f"--size={FILE_MB}m", f"--filename={target}",
            "--output-format=json")
    assert r.rc == 0, r
    j = r.job()
    assert j["trim"]["total_ios"] == FILE_MB * 16
    assert j["trim"]["io_bytes"] == FILE_MB * 1024 * 1024
    st = os.stat(target)
    assert st.st_size == FILE_MB * 1024 * 1024
    if rw == "trimwrite":
        assert j["write"]["total_ios"] == FILE_MB * 16
        assert st.st_blocks * 512 == FILE_MB * 1024 * 1024
    else:
        assert st.st_blocks == 0, "every block was punched out"


def test_trim_where_unsupported_is_refused(tmp):
    """ramfs cannot punch holes: a clear refusal naming the file (exit 2)."""
    mnt = os.path.join(tmp, "ramfs")
    os.mkdir(mnt)
    if subprocess.run(["mount", "-t", "ramfs", "ramfs", mnt]).returncode != 0:
        pytest.skip("cannot mount ramfs (needs root)")
    try:
        r = run("--name=t", "--rw=trim", "--size=1m", f"--directory={mnt}")
        assert r.rc == 2, r
        assert "rw=trim" in r.err and "cannot be trimmed" in r.err and "punch" in r.err, r
    finally:
        subprocess.run(["umount", mnt])


def test_trim_on_a_block_device_matches_fio(loopdev):
    common = ["--name=t", "--bs=64k", "--size=2m", f"--filename={loopdev}",
              "--output-format=json", "--ioengine=psync"]
    for rw in ("trim", "randtrim", "trimwrite"):
        f = fio(*common, f"--rw={rw}")["jobs"][0]
        r = run(*common, f"--rw={rw}")
        assert r.rc == 0, r
        o = r.job()
        for d in ("trim", "write", "read"):
            assert o[d]["total_ios"] == f[d]["total_ios"], (rw, d)
            assert o[d]["io_bytes"] == f[d]["io_bytes"], (rw, d)


@pytest.mark.parametrize("pattern", ["0xdeadface", '0xdeadface"ab"-12', "12", "300",
                                     "-12", '"hello"'])
def test_buffer_pattern_bytes_match_fio(tmp, pattern):
    ours, theirs = os.path.join(tmp, "ours"), os.path.join(tmp, "fio")
    common = ["--name=p", "--rw=write", "--bs=4k", "--size=64k", f"--buffer_pattern={pattern}"]
    fio(*common, f"--filename={theirs}")
    r = run(*common, f"--filename={ours}")
    assert r.rc == 0, r
    with open(ours, "rb") as a, open(theirs, "rb") as b:
        assert a.read() == b.read()


def test_verify_pattern_checks_and_catches_corruption(tmp):
    target = os.path.join(tmp, "data")
    common = ["--name=v", "--bs=4k", "--size=64k", f"--filename={target}",
              "--verify_pattern=0xff00aa", "--output-format=json"]
    r = run(*common, "--rw=write")
    assert r.rc == 0, r
    assert r.job()["storagebench"]["verify"] == {"checked": 16, "mismatches": 0,
                                                 "bad_offsets": []}
    with open(target, "rb") as f:
        data = f.read()
    # as fio: the pattern starts afresh in every block
    assert data == (b"\xff\x00\xaa" * 1366)[:4096] * 16
    with open(target, "r+b") as f:
        f.seek(5 * 4096 + 100)
        f.write(b"\x01")
    r = run(*common, "--rw=write", "--verify_only")
    assert r.rc == 1, r
    v = r.job()["storagebench"]["verify"]
    assert v["mismatches"] == 1 and v["bad_offsets"] == [5 * 4096], v


def test_steadystate_matches_fio(tmp):
    """ss=iops:50% at a steady 1000 IOPS: both attain it early and report fio's block."""
    common = ["--name=ss", "--rw=read", "--ioengine=null", "--size=16m", "--time_based",
              "--runtime=30", "--ss=iops:50%", "--ss_dur=3", "--ss_ramp=1",
              "--rate_iops=1000", "--output-format=json"]
    f = fio(*common, f"--filename={tmp}/fio")["jobs"][0]
    r = run(*common, f"--filename={tmp}/ours")
    assert r.rc == 0, r
    o = r.job()
    fs, os_ = f["steadystate"], o["steadystate"]
    assert set(os_) == set(fs) and set(os_["data"]) == set(fs["data"])
    assert os_["ss"] == fs["ss"] == "iops:50.000000%"
    assert os_["duration"] == fs["duration"] == 3
    assert os_["attained"] == fs["attained"] == 1
    assert len(os_["data"]["iops"]) == len(fs["data"]["iops"]) == 3
    assert abs(os_["data"]["iops_mean"] - fs["data"]["iops_mean"]) <= 50
    # stopped once steady: ramp 1 s + 3 s window, far before the 30 s runtime
    assert o["job_runtime"] < 10000 and f["job_runtime"] < 10000
    assert o["storagebench"]["steadystate"]["attained"] is True


def test_steadystate_not_attained_runs_to_the_limit(tmp):
    r = run("--name=ss", "--rw=read", "--ioengine=null", "--size=16m", "--time_based",
            "--runtime=3", "--ss=iops_slope:0%", "--ss_dur=10", f"--filename={tmp}/f",
            "--output-format=json")
    assert r.rc == 0, r
    o = r.job()
    assert o["steadystate"]["attained"] == 0
    assert o["storagebench"]["steadystate"] == {"attained": False, "attained_ms": 0}
    assert o["job_runtime"] >= 2900


def test_log_files_match_fio_columns_and_counts(tmp):
    target = make_file(os.path.join(tmp, "data"))
    common = ["--name=l", "--rw=randread", "--bs=4k", "--size=4m", "--io_size=1m",
              "--ioengine=psync", f"--filename={target}"]
    fio(*common, "--write_bw_log=fio", "--write_lat_log=fio", "--write_iops_log=fio",
        "--output-format=json", cwd=tmp)
    r = run(*common, "--write_bw_log=ours", "--write_lat_log=ours", "--write_iops_log=ours",
            f"--output={tmp}/out.json", "--output-format=json")
    assert r.rc == 0, r
    for kind in ("bw", "iops", "lat", "clat", "slat"):
        theirs = our_log(f"{tmp}/fio_{kind}.1.log")
        ours = our_log(f"{tmp}/ours_{kind}.1.log")  # next to --output
        assert len(ours) == len(theirs), kind
        if ours:
            assert len(ours[0]) == len(theirs[0]) == 5, kind
            assert {row[3] for row in ours} == {4096} and {row[2] for row in ours} == {0}
    assert all(row[1] == 1 for row in our_log(f"{tmp}/ours_iops.1.log"))
    # per-I/O bandwidth is bytes * 10^6 / clat (ns), as fio's
    bw, clat = our_log(f"{tmp}/ours_bw.1.log"), our_log(f"{tmp}/ours_clat.1.log")
    assert all(b[1] == 4096 * 10**6 // c[1] for b, c in zip(bw, clat) if c[1])


def test_averaged_logs_match_fio(tmp):
    target = make_file(os.path.join(tmp, "data"))
    common = ["--name=l", "--rw=randread", "--bs=4k", "--size=4m", "--ioengine=psync",
              f"--filename={target}", "--time_based", "--runtime=3", "--rate_iops=400",
              "--log_avg_msec=500", "--log_offset=1"]
    fio(*common, "--write_bw_log=fio", "--write_iops_log=fio", "--output-format=json", cwd=tmp)
    r = run(*common, f"--write_bw_log={tmp}/ours", f"--write_iops_log={tmp}/ours")
    assert r.rc == 0, r
    for kind, expect in (("iops", 400), ("bw", 1600)):
        ours, theirs = our_log(f"{tmp}/ours_{kind}.1.log"), our_log(f"{tmp}/fio_{kind}.1.log")
        assert abs(len(ours) - len(theirs)) <= 1 and len(ours) >= 5, (kind, ours, theirs)
        assert [row[0] for row in ours[:5]] == [500, 1000, 1500, 2000, 2500]
        assert all(len(row) == 6 and row[3] == 0 and row[4] == 0 for row in ours)
        mid = [row[1] for row in ours[1:-1]]
        assert all(abs(v - expect) <= expect * 0.1 for v in mid), (kind, mid)


def files_touched(directory, prefix):
    names = sorted(n for n in os.listdir(directory) if n.startswith(prefix))
    return [os.stat(os.path.join(directory, n)).st_blocks > 0 for n in names]


@pytest.mark.parametrize("fst,expect", [("sequential", [True, False, False, False]),
                                        ("roundrobin", [True] * 4), ("random", [True] * 4)])
def test_file_service_type_matches_fio(tmp, fst, expect):
    ours, theirs = os.path.join(tmp, "ours"), os.path.join(tmp, "fio")
    os.mkdir(ours)
    os.mkdir(theirs)
    common = ["--name=f", "--rw=write", "--bs=4k", "--size=4m", "--nrfiles=4", "--io_size=1m",
              "--fallocate=none", f"--file_service_type={fst}"]
    fio(*common, f"--directory={theirs}")
    r = run(*common, f"--directory={ours}")
    assert r.rc == 0, r
    assert files_touched(ours, "f.") == files_touched(theirs, "f.") == expect


def test_offset_and_size_percent_with_several_files(tmp):
    a = make_file(os.path.join(tmp, "a"), 4)
    b = make_file(os.path.join(tmp, "b"), 8)
    common = ["--name=o", "--rw=read", f"--filename={a}:{b}", "--offset=50%", "--size=50%",
              "--ioengine=psync", "--output-format=json"]
    f = fio(*common, f"--write_iolog={tmp}/fio.iolog")["jobs"][0]
    r = run(*common, f"--write_iops_log={tmp}/ours", "--log_offset=1")
    assert r.rc == 0, r
    assert r.job()["read"]["io_bytes"] == f["read"]["io_bytes"] == 6 * 1024 * 1024
    offs = [row[4] for row in our_log(f"{tmp}/ours_iops.1.log")]
    assert min(offs) == 2 * 1024 * 1024 and max(offs) == 8 * 1024 * 1024 - 4096


def offsets_of(tmp, name, *opts):
    target = os.path.join(tmp, "data")
    if not os.path.exists(target):
        make_file(target)
    r = run(f"--name={name}", "--rw=randread", "--bs=4k", f"--size={FILE_MB}m",
            "--ioengine=psync", f"--filename={target}", f"--write_iops_log={tmp}/{name}",
            "--log_offset=1", *opts)
    assert r.rc == 0, r
    return [row[4] for row in our_log(f"{tmp}/{name}_iops.1.log")]


def test_norandommap_randrepeat_and_lfsr(tmp):
    mapped = offsets_of(tmp, "m")
    assert len(set(mapped)) == len(mapped) == NBLK, "the random map touches each block once"
    free = offsets_of(tmp, "n", "--norandommap")
    assert len(free) == NBLK and len(set(free)) < NBLK * 0.75, "repeats without the map"
    lfsr = offsets_of(tmp, "l", "--norandommap", "--random_generator=lfsr")
    assert len(set(lfsr)) == NBLK, "lfsr never repeats a block within a pass"
    assert offsets_of(tmp, "r1") == offsets_of(tmp, "r2"), "randrepeat=1: the same order"
    assert offsets_of(tmp, "s1", "--randrepeat=0") != offsets_of(tmp, "s2", "--randrepeat=0")
