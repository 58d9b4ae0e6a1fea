"""Fixtures for the kubectl plugin's tests on the test cluster.

A session creates two namespaces of its own: `main`, watched by a
storagebench-controller process started here (as tests/e2e does), where
small BenchmarkRuns are driven to the end once for every test, and one run
(`slow`) keeps running for the whole session; and `idle`, for a second
namespace in `list -A` (its run has no runner RBAC: a controller watching
every namespace, which the shared cluster may have, fails it; without one
it never starts). The plugin binary is then run against them with the
admin kubeconfig, directly and as `kubectl storagebench` with bin/ on PATH.
"""
import json
import os
import subprocess
import sys
import time

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "tests", "cluster"))
import sbcluster as sb  # noqa: E402

BIN = os.path.join(ROOT, "bin")
# SB_PLUGIN_BIN=build/asan/bin/kubectl-storagebench runs the direct calls
# under AddressSanitizer (a leak makes the exit status 23: the test fails).
PLUGIN = os.path.abspath(os.environ.get("SB_PLUGIN_BIN") or os.path.join(BIN, "kubectl-storagebench"))
VERSION_FILE = os.path.join(ROOT, "VERSION")
from sbrun import CONTROLLER, CRD, RUNNER_RBAC, Controller  # noqa: E402,F401
from sbrun import br  # noqa: E402,F401
from sbrun import small as _small  # noqa: E402
from sbrun import wait_phase as _wait_phase  # noqa: E402


def small(name, classes=("fast",), iterations=2, cleanup="Always", runtime="1s"):
    return _small(name, classes=classes, iterations=iterations, cleanup=cleanup, runtime=runtime)


class Result:
    def __init__(self, p):
        self.rc, self.out, self.err = p.returncode, p.stdout, p.stderr

    def __repr__(self):
        return f"exit {self.rc}\n--- stdout\n{self.out[:3000]}\n--- stderr\n{self.err[:3000]}"


def plugin(*args, via_kubectl=False, kubeconfig=True, env=None, timeout=60):
    """Runs the plugin (or `kubectl storagebench` with bin/ first on PATH);
    returns a Result with rc, out and err."""
    e = dict(os.environ, PATH=BIN + ":" + os.environ.get("PATH", "/usr/bin:/bin"))
    e.pop("KUBECONFIG", None)
    e.update(env or {})
    cmd = [sb.KUBECTL, "storagebench"] if via_kubectl else [PLUGIN]
    cmd += [str(a) for a in args]
    if kubeconfig:
        cmd.append(f"--kubeconfig={sb.KUBECONFIG}")
    p = subprocess.run(sb._prefix() + cmd, capture_output=True, text=True, timeout=timeout, env=e)
    return Result(p)


def wait_phase(ns, name, phases=("Succeeded", "Failed"), timeout=240):
    return _wait_phase(ns, name, phases=phases, timeout=timeout)


def runner_pods(ns, run):
    return sb.kubectl_json("-n", ns, "get", "pods", "-l",
                           f"storagebench.io/run={run},app.kubernetes.io/component=runner")["items"]


class Env:
    """What the session set up: namespaces and the runs' final status."""
    main = idle = None
    status = {}


@pytest.fixture(scope="session")
def env():
    sb.require_cluster()
    for f in (PLUGIN, CONTROLLER):
        if not os.access(f, os.X_OK):
            pytest.fail(f"{f} is missing: make all")
    sb.kubectl("apply", "-f", CRD)
    sb.wait_crd_established("benchmarkruns.storagebench.io")
    with sb.namespace("plugin") as main, sb.namespace("plugin-idle") as idle:
        sb.apply(RUNNER_RBAC, namespace=main)
        ctl = Controller(main)
        try:
            # base and cur: two runs of the same spec to compare; cur keeps
            # its runner pods (cleanup Never) for `logs`; broken fails one
            # class of two (an unknown storage class) and keeps a partial
            # report.
            sb.apply(small("base"), namespace=main)
            sb.apply(small("cur", cleanup="Never"), namespace=main)
            sb.apply(small("broken", classes=("nope", "fast"), iterations=1), namespace=main)
            # slow runs longer than the session: a run that has not finished
            sb.apply(small("slow", iterations=1, runtime="600s"), namespace=main)
            sb.apply(small("waiting"), namespace=idle)
            e = Env()
            e.main, e.idle = main, idle
            e.status = {n: wait_phase(main, n) for n in ("base", "cur", "broken")}
            wait_phase(main, "slow", phases=("Pending", "Running"), timeout=60)
            yield e
        finally:
            ctl.stop()
