"""The image suite (tests/suites/45-image.sh): `make image` run once for
the session (the `built` fixture), then its archive read back with
scripts/ocilayout.py."""
import os
import subprocess
import sys
import time

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "scripts"))
import ocilayout  # noqa: E402

with open(os.path.join(ROOT, "VERSION")) as _f:
    VERSION = _f.read().strip()
ARCHIVE = os.path.join(ROOT, "build", "image", f"storagebench-{VERSION}.oci.tar")


@pytest.fixture(scope="session")
def built():
    """make image, once: (exit status, output, seconds)."""
    t0 = time.monotonic()
    p = subprocess.run(["make", "--no-print-directory", "-j2", "image"], cwd=ROOT,
                       capture_output=True, text=True)
    return p.returncode, p.stdout + p.stderr, time.monotonic() - t0


@pytest.fixture(scope="session")
def images(built):
    """The archive's images by architecture (ocilayout.read_index_archive)."""
    rc, out, _ = built
    if rc != 0:
        pytest.fail(f"make image failed:\n{out[-3000:]}")
    return {im["platform"]["architecture"]: im for im in ocilayout.read_index_archive(ARCHIVE)}
