"""fio options of issue 40 against fio 3.33 on the same job and file:
blockalign, rate_process=poisson and the latency_target family, and fio's
own example job files that use them (jesd219.fio,
poisson-rate-submission.fio, latency-profile.fio), with tolerances that do
not depend on the machine's speed."""
import os
import re

import pytest

from conftest import FIO, RELEASE_RUNNER, run
from test_fio_compat import fio, fio_offsets, make_file, our_log

pytestmark = pytest.mark.skipif(not FIO, reason="fio is not installed")

EXAMPLES = "/usr/share/doc/fio/examples"


def example(tmp, name, target, drop=(), extra=()):
    """fio's example job file `name`, pointed at target: filename= replaced,
    options in drop removed (each a key), lines in extra added to every job."""
    src = os.path.join(EXAMPLES, name)
    if not os.path.exists(src):
        pytest.skip(f"{src}: fio-examples is not installed")
    out = []
    with open(src) as f:
        for line in f:
            key = line.strip().split("=", 1)[0]
            if key == "filename":
                line = f"filename={target}\n"
            elif key in drop:
                continue
            out.append(line)
            if line.strip().startswith("[") and line.strip() != "[global]":
                out.extend(x + "\n" for x in extra)
    path = os.path.join(tmp, name)
    with open(path, "w") as f:
        f.writelines(out)
    return path


# --- blockalign -------------------------------------------------------------

def aligned_pair(tmp, *opts):
    """Offsets of the same random job under fio (iolog) and under us (IOPS log)."""
    target = make_file(os.path.join(tmp, "data"))
    common = ["--name=ba", "--rw=randread", "--size=4m", "--io_size=2m", "--ioengine=psync",
              f"--filename={target}", *opts]
    fio(*common, f"--write_iolog={tmp}/fio.iolog", "--output-format=json")
    r = run(*common, f"--write_iops_log={tmp}/ours", "--log_offset=1", "--output-format=json")
    assert r.rc == 0, r
    ours = [row[4] for row in our_log(f"{tmp}/ours_iops.1.log")]
    theirs = [off for off, _ in fio_offsets(f"{tmp}/fio.iolog")]
    assert ours and theirs
    return ours, theirs


def test_blockalign_aligns_random_offsets_as_fio(tmp):
    ours, theirs = aligned_pair(tmp, "--bs=512", "--blockalign=4k")
    assert len(ours) == len(theirs) == 4096
    assert all(off % 4096 == 0 for off in theirs)
    assert all(off % 4096 == 0 for off in ours)
    # both spread over the file's 1024 aligned slots, repeats allowed (no random map)
    for offs in (ours, theirs):
        slots = {off // 4096 for off in offs}
        assert max(slots) >= 1000 and len(slots) >= 900, len(slots)


def test_without_blockalign_small_blocks_are_not_4k_aligned(tmp):
    """The check above can fail: bs=512 alone lands mostly between 4k boundaries."""
    ours, theirs = aligned_pair(tmp, "--bs=512")
    for offs in (ours, theirs):
        assert sum(off % 4096 != 0 for off in offs) > len(offs) // 2


def test_blockalign_with_bssplit_keeps_every_size_aligned(tmp):
    ours, theirs = aligned_pair(tmp, "--bssplit=512/40:4k/40:16k/20", "--ba=4k")
    assert all(off % 4096 == 0 for off in theirs)
    assert all(off % 4096 == 0 for off in ours)


def test_blockalign_bad_values_name_the_option(tmp):
    target = make_file(os.path.join(tmp, "data"), mb=1)
    r = run("--name=x", "--rw=randread", f"--filename={target}", "--size=1m",
            "--direct=1", "--blockalign=1000")
    assert r.rc == 2, r
    assert "blockalign: 1000 is not a multiple of 512" in r.err, r
    r = run("--name=x", "--rw=randread", f"--filename={target}", "--size=1m", "--ba=0")
    assert r.rc == 2 and "ba: '0' is not a size" in r.err, r


# --- rate_process=poisson ---------------------------------------------------

def gaps_cv(times_ms):
    t = sorted(times_ms)
    gaps = [b - a for a, b in zip(t, t[1:])]
    mean = sum(gaps) / len(gaps)
    var = sum((g - mean) ** 2 for g in gaps) / len(gaps)
    return var ** 0.5 / mean


RATE = 200


def rated_pair(tmp, process):
    """fio's poisson-rate-submission.fio at RATE IOPS for 5 s, under fio and under us."""
    target = make_file(os.path.join(tmp, "data"))
    extra = [f"filename={target}", f"rate_iops={RATE}", "runtime=5", "time_based",
             f"rate_process={process}", "size=4m"]
    job = example(tmp, "poisson-rate-submission.fio", target,
                  # io_submit_mode=offload with time_based hangs fio 3.33 itself
                  drop=("rate_iops", "size", "rate_process", "io_submit_mode"), extra=extra)
    theirs = fio(job, "--output-format=json", f"--write_lat_log={tmp}/fio", cwd=tmp)
    r = run(job, "--output-format=json", f"--write_lat_log={tmp}/ours", binary=RELEASE_RUNNER)
    assert r.rc == 0, r
    fio_times = [int(line.split(",")[0]) for line in open(f"{tmp}/fio_lat.1.log")]
    our_times = [row[0] for row in our_log(f"{tmp}/ours_lat.1.log")]
    return theirs["jobs"][0]["read"]["iops"], r.job()["read"]["iops"], fio_times, our_times


def test_poisson_example_rate_and_gaps_match_fio(tmp):
    fio_iops, our_iops, fio_t, our_t = rated_pair(tmp, "poisson")
    assert abs(fio_iops - RATE) <= RATE * 0.1, fio_iops
    assert abs(our_iops - RATE) <= RATE * 0.1, our_iops
    # exponential gaps: coefficient of variation near 1 for both
    assert 0.8 <= gaps_cv(fio_t) <= 1.2, gaps_cv(fio_t)
    assert 0.8 <= gaps_cv(our_t) <= 1.2, gaps_cv(our_t)


def test_linear_rate_gaps_are_regular(tmp):
    """The check above can fail: linear submission spaces I/Os evenly."""
    fio_iops, our_iops, fio_t, our_t = rated_pair(tmp, "linear")
    assert abs(our_iops - RATE) <= RATE * 0.1, our_iops
    assert gaps_cv(fio_t) < 0.5 and gaps_cv(our_t) < 0.5, (gaps_cv(fio_t), gaps_cv(our_t))


def test_rate_process_bad_value_names_the_option(tmp):
    r = run("--name=x", "--rw=randread", "--size=1m", f"--filename={tmp}/f",
            "--rate_iops=10", "--rate_process=bursty", "--parse-only")
    assert r.rc == 2 and "rate_process: 'bursty' is not linear or poisson" in r.err, r
