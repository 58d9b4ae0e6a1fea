"""Fixtures for the runner's command-line tests.

The runner under test is the sanitizer build (build/asan/bin/storagebench-runner)
unless SB_RUNNER names another binary; tests of times and rates use the
release build (bin/storagebench-runner, or SB_RELEASE_RUNNER). Every test works in its own
temporary directory under /tmp (a real filesystem, so O_DIRECT works).
"""
import json
import os
import shutil
import subprocess

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

RUNNER = os.environ.get("SB_RUNNER", os.path.join(ROOT, "build/asan/bin/storagebench-runner"))
# Tests that measure time or rates run the release build: the sanitizers
# slow each I/O by an amount that depends on the machine, not on the runner.
RELEASE_RUNNER = os.environ.get("SB_RELEASE_RUNNER",
                                os.path.join(ROOT, "bin/storagebench-runner"))
NO_IOURING = os.path.join(ROOT, "build/tests/tools/no-iouring")
FIO = shutil.which("fio")


class Result:
    def __init__(self, proc):
        self.rc = proc.returncode
        self.out = proc.stdout
        self.err = proc.stderr
        self._json = None

    @property
    def json(self):
        if self._json is None:
            self._json = json.loads(self.out)
        return self._json

    def job(self, i=0):
        return self.json["jobs"][i]

    def __repr__(self):
        return f"rc={self.rc}\nstdout:\n{self.out[-3000:]}\nstderr:\n{self.err[-3000:]}"


def run(*args, prefix=(), timeout=120, env=None, binary=None):
    e = dict(os.environ)
    e.setdefault("ASAN_OPTIONS", "detect_leaks=1")
    if env:
        e.update(env)
    cmd = list(prefix) + [binary or RUNNER] + [str(a) for a in args]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=e)
    return Result(proc)


@pytest.fixture
def tmp(tmp_path_factory):
    d = tmp_path_factory.mktemp("sbrun", numbered=True)
    yield str(d)
    shutil.rmtree(str(d), ignore_errors=True)


@pytest.fixture(scope="session", autouse=True)
def runner_built():
    if not os.access(RUNNER, os.X_OK):
        pytest.fail(f"runner binary {RUNNER} is missing: run 'make asan' first")
    if not os.access(RELEASE_RUNNER, os.X_OK):
        pytest.fail(f"runner binary {RELEASE_RUNNER} is missing: run 'make all' first")


@pytest.fixture
def loopdev(tmp):
    """A 32 MiB loop device over a file in tmp (skips where losetup cannot run)."""
    backing = os.path.join(tmp, "loop.img")
    with open(backing, "wb") as f:
        f.truncate(32 << 20)
    p = subprocess.run(["losetup", "--find", "--show", backing], capture_output=True, text=True)
    if p.returncode != 0:
        pytest.skip(f"no loop device here: {p.stderr.strip()}")
    dev = p.stdout.strip()
    yield dev
    subprocess.run(["losetup", "-d", dev], check=False)
