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
