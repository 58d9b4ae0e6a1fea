"""sbrun: BenchmarkRuns on the test cluster, for the controller's and the
plugin's tests (tests/e2e, tests/plugin): the CRD, the runner RBAC of a
namespace, a small BenchmarkRun, a storagebench-controller process, and
reading a run's status, results and events. Builds on sbcluster.
"""
import json
import os
import signal
import subprocess
import time
import urllib.request

import sbcluster as sb

CONTROLLER = os.path.join(sb.ROOT, "bin", "storagebench-controller")
CRD = os.path.join(sb.ROOT, "manifests", "crd", "storagebench.io_benchmarkruns.yaml")

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
  verbs: [create, get, watch]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: storagebench-runner}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: Role, name: storagebench-runner}
subjects: [{kind: ServiceAccount, name: storagebench-runner}]
"""

SMALL = """
apiVersion: storagebench.io/v1alpha1
kind: BenchmarkRun
metadata: {name: %(name)s}
spec:
  storageClasses: %(classes)s
  iterations: %(iterations)d
  volume: {size: 64Mi}
  cleanup: %(cleanup)s
  workloads:
  - {name: rr, rw: randread, bs: 4k, iodepth: 8, runtime: %(runtime)s, timeBased: true}
  - {name: sw, rw: write, bs: 64k, iodepth: 4, runtime: %(runtime)s, timeBased: true}
  runner:
    imagePullPolicy: Never
%(extra)s
"""


def small(name, classes=("fast", "disk"), iterations=2, runtime="1s", cleanup="Always", extra=""):
    """A small BenchmarkRun (two 1 s workloads, a 64Mi volume) as YAML.
    extra is appended at the end of spec.runner (indent 4) or of spec
    (indent 2)."""
    return SMALL % {"name": name, "classes": json.dumps(list(classes)), "iterations": iterations,
                    "runtime": runtime, "cleanup": cleanup, "extra": extra}


SCHEDULE_CRD = os.path.join(sb.ROOT, "manifests", "crd", "storagebench.io_benchmarkschedules.yaml")


def install_crd():
    """Applies the CRDs the chart installs (BenchmarkRun, BenchmarkSchedule)
    and waits until they are Established: without the schedule CRD the
    controller's schedule informer keeps retrying its list, so what a test
    counts would depend on whether an earlier test installed it."""
    for path, name in ((CRD, "benchmarkruns"), (SCHEDULE_CRD, "benchmarkschedules")):
        # two test processes may apply it at once: one create loses
        # (AlreadyExists) and the next apply patches what the other made
        for attempt in range(3):
            try:
                sb.kubectl("apply", "-f", path)
                break
            except sb.ClusterError:
                if attempt == 2:
                    raise
                time.sleep(1)

        def established(name=name):
            crd = sb.kubectl_json("get", "crd", f"{name}.storagebench.io")
            conds = (crd.get("status") or {}).get("conditions") or []
            return any(c["type"] == "Established" and c["status"] == "True" for c in conds)
        sb.wait_for(established, timeout=30, what=f"the {name} CRD Established")


class Controller:
    """A storagebench-controller process inside the cluster's namespace,
    watching one namespace, with its log in a file (.log) and its metrics on
    a loopback port."""

    # metrics ports: a range per pytest-xdist worker (gw0, gw1, ...), so two
    # test processes never pick the same one
    _worker = os.environ.get("PYTEST_XDIST_WORKER", "gw")[2:]
    _next_port = [18100 + 1000 * (int(_worker) + 1 if _worker.isdigit() else 0) + os.getpid() % 500]

    def __init__(self, ns, kubeconfig=sb.KUBECONFIG, extra=(), name="c"):
        Controller._next_port[0] += 1
        self.port = Controller._next_port[0]
        self.logpath = sb.log_path(f"controller-{ns}-{name}-{self.port}.log")
        cmd = [CONTROLLER, f"--kubeconfig={kubeconfig}", f"--namespace={ns}",
               f"--metrics-bind-address=127.0.0.1:{self.port}", f"--runner-image={sb.IMAGE}",
               *extra]
        self._log = open(self.logpath, "w")
        self.proc = subprocess.Popen(sb._prefix() + cmd, stdout=self._log, stderr=subprocess.STDOUT,
                                     env=dict(os.environ, POD_NAMESPACE=ns))

    @property
    def log(self):
        with open(self.logpath) as f:
            return f.read()

    def metrics(self):
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
        if not self._log.closed:
            self._log.close()


def br(ns, name):
    return sb.kubectl_json("-n", ns, "get", "benchmarkrun", name)


def wait_phase(ns, name, phases=("Succeeded", "Failed"), timeout=180):
    """Waits until the run's status.phase is one of phases; returns the status."""
    def check():
        st = br(ns, name).get("status") or {}
        return st if st.get("phase") in phases else None
    return sb.wait_for(check, timeout=timeout, interval=1, what=f"run {name} in {phases}")


def results(ns, name):
    """The run's result ConfigMaps: {(class, iteration): parsed result.json}."""
    cms = sb.kubectl_json("-n", ns, "get", "configmap", "-l",
                          f"storagebench.io/run={name},app.kubernetes.io/component=result")
    out = {}
    for cm in cms["items"]:
        a = cm["metadata"]["annotations"]
        key = (a["storagebench.io/class-name"],
               int(cm["metadata"]["labels"]["storagebench.io/iteration"]))
        assert key not in out, f"two results for {key}"
        out[key] = json.loads(cm["data"]["result.json"])
    return out


def events(ns, name):
    """(reason, message) of the events about the run."""
    ev = sb.kubectl_json("-n", ns, "get", "events", "--field-selector",
                         f"involvedObject.name={name}")
    return [(e["reason"], e["message"]) for e in ev["items"]]
