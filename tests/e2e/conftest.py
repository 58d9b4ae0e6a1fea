"""Fixtures for the end-to-end tests of the controller on the test cluster.

The controller runs as a process inside the cluster's network namespace
(so a test can kill it, restart it, point it at the fault proxy, or run
two of them), with the admin kubeconfig, watching only the test's
namespace. Runner pods run from the project image, as on a real cluster.
"""
import os
import signal
import subprocess
import sys
import time

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "tests", "cluster"))
import sbcluster as sb  # noqa: E402

CONTROLLER = os.path.join(ROOT, "bin", "storagebench-controller")
CRD = os.path.join(ROOT, "manifests", "crd", "storagebench.io_benchmarkruns.yaml")

RUNNER_RBAC = """
apiVersion: v1
kind: ServiceAccount
metadata: {name: storagebench-runner}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata: {name: storagebench-runner}
rules:
- apiGroups: [""]
  resources: [configmaps]
  verbs: [create, get]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: storagebench-runner}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: Role, name: storagebench-runner}
subjects: [{kind: ServiceAccount, name: storagebench-runner}]
"""

_port = [18090]


class Controller:
    """A storagebench-controller process; .log holds what it printed."""

    def __init__(self, ns, kubeconfig=sb.KUBECONFIG, extra=(), name="c"):
        _port[0] += 1
        self.port = _port[0]
        self.logpath = f"/tmp/sb-e2e-{ns}-{name}-{self.port}.log"
        cmd = [CONTROLLER, f"--kubeconfig={kubeconfig}", f"--namespace={ns}",
               f"--metrics-bind-address=127.0.0.1:{self.port}", f"--runner-image={sb.IMAGE}",
               *extra]
        self._log = open(self.logpath, "w")
        env = dict(os.environ, POD_NAMESPACE=ns)
        self.proc = subprocess.Popen(sb._prefix() + cmd, stdout=self._log, stderr=subprocess.STDOUT,
                                     env=env)

    @property
    def log(self):
        with open(self.logpath) as f:
            return f.read()

    def metrics(self):
        import urllib.request
        with urllib.request.urlopen(f"http://127.0.0.1:{self.port}/metrics", timeout=5) as r:
            return r.read().decode()

    def kill(self):
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL)
            self.proc.wait(timeout=10)

    def stop(self):
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.kill()
        self._log.close()


@pytest.fixture(scope="session")
def cluster():
    sb.require_cluster()
    if not os.access(CONTROLLER, os.X_OK):
        pytest.fail(f"{CONTROLLER} is missing: make all")
    sb.kubectl("apply", "-f", CRD)

    def established():
        crd = sb.kubectl_json("get", "crd", "benchmarkruns.storagebench.io")
        conds = (crd.get("status") or {}).get("conditions") or []
        return any(c["type"] == "Established" and c["status"] == "True" for c in conds)
    sb.wait_for(established, timeout=30, what="the BenchmarkRun CRD Established")
    return sb


@pytest.fixture
def ns(cluster):
    with sb.namespace("e2e") as name:
        sb.apply(RUNNER_RBAC, namespace=name)
        yield name


@pytest.fixture
def controller(ns):
    started = []

    def start(**kw):
        c = Controller(ns, **kw)
        started.append(c)
        return c

    c = start()
    c.start = start
    yield c
    for x in started:
        x.stop()


def br(ns, name):
    return sb.kubectl_json("-n", ns, "get", "benchmarkrun", name)


def wait_phase(ns, name, phases=("Succeeded", "Failed"), timeout=180):
    def check():
        st = br(ns, name).get("status") or {}
        return st if st.get("phase") in phases else None
    return sb.wait_for(check, timeout=timeout, interval=1, what=f"run {name} in {phases}")


def results(ns, name):
    """The run's result ConfigMaps: {(class, iteration): parsed result.json}."""
    import json
    cms = sb.kubectl_json("-n", ns, "get", "configmap", "-l",
                          f"storagebench.io/run={name},app.kubernetes.io/component=result")
    out = {}
    for cm in cms["items"]:
        a = cm["metadata"]["annotations"]
        key = (a["storagebench.io/class-name"], int(cm["metadata"]["labels"]["storagebench.io/iteration"]))
        assert key not in out, f"two results for {key}"
        out[key] = json.loads(cm["data"]["result.json"])
    return out


def events(ns, name):
    ev = sb.kubectl_json("-n", ns, "get", "events", "--field-selector",
                         f"involvedObject.name={name}")
    return [(e["reason"], e["message"]) for e in ev["items"]]
