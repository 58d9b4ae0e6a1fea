"""Every example job file of fio 3.33 (Debian's fio-examples) through
--parse-only: none may crash, every refusal names the file, the line and
the option, and the number accepted may only go up (FLOOR is the count
when this test was written; raise it when more are accepted)."""
import glob
import os

import pytest

from conftest import run

EXAMPLES = "/usr/share/doc/fio/examples"
FLOOR = 18  # issue 21: 13 before, 18 after (random_distribution, bsrange, ss, logs, ...)
FILES = sorted(glob.glob(os.path.join(EXAMPLES, "*.fio")))

pytestmark = pytest.mark.skipif(not FILES, reason="fio-examples is not installed")


def test_fio_examples_parse_and_accepted_count_only_goes_up():
    accepted, refused = [], []
    for path in FILES:
        r = run("--parse-only", path)
        assert r.rc in (0, 2), (path, r)  # never a crash
        if r.rc == 0:
            accepted.append(os.path.basename(path))
            continue
        name = os.path.basename(path)
        assert name in r.err and ":" in r.err, (path, r)
        refused.append(name)
    assert len(FILES) >= 80
    assert len(accepted) >= FLOOR, f"accepted {len(accepted)} < floor {FLOOR}: {refused}"
    # the job files this issue was about are accepted now
    for name in ("ssd-steadystate.fio", "steadystate.fio", "zipf.fio", "rand-zones.fio",
                 "tiobench-example.fio"):
        assert name in accepted, name
