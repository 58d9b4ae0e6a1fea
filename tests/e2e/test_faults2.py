"""More rows of the fault table (docs/reliability.md, issue 15): etcd alone
restarted during a run, the controller killed while it writes the report
(the moment held by the fault proxy, not raced), a runner OOM-killed, and
100 invalid or hostile objects applied at once beside a valid run."""
import json
import re
import time

import pytest

from conftest import br, events, results, sb, small, wait_phase

RESULT = "app.kubernetes.io/component=result"
REPORT = "app.kubernetes.io/component=report"


def _first_result(ns, name):
    sb.wait_for(lambda: results(ns, name), timeout=180, interval=0.5, what="a first result")


def _reports(ns, name):
    return sb.kubectl_json("-n", ns, "get", "configmap", "-l",
                           f"storagebench.io/run={name},{REPORT}")["items"]


def _report_doc(ns, name):
    return json.loads(sb.kubectl_json("-n", ns, "get", "configmap", f"{name}-report")
                      ["data"]["report.json"])


def _readyz():
    """The API server's /readyz?verbose: (HTTP status, text)."""
    return sb.api("GET", "/readyz?verbose", raw=True)


def _ended_with_every_iteration(ns, name, iterations):
    """The run Succeeded with every iteration once, one report built from all
    of them, owned by the run."""
    st = wait_phase(ns, name, timeout=300)
    assert st["phase"] == "Succeeded", st
    assert st["classes"][0]["iterationsDone"] == iterations, st["classes"]
    assert st["report"] == f"{name}-report", st
    # results() fails on two results of one iteration
    assert sorted(results(ns, name)) == [("fast", i) for i in range(1, iterations + 1)]
    reps = _reports(ns, name)
    assert [r["metadata"]["name"] for r in reps] == [f"{name}-report"], reps
    uid = br(ns, name)["metadata"]["uid"]
    assert [o["uid"] for o in reps[0]["metadata"]["ownerReferences"]] == [uid]
    ns_ = {m["n"] for r in _report_doc(ns, name)["results"] for m in r["metrics"].values()}
    assert ns_ == {iterations}, ns_
    return st


@pytest.mark.serial  # stops etcd under every other test
def test_etcd_alone_restarted_mid_run(ns, controller):
    """etcd stopped (the API server stays up and answers errors or waits),
    then started again with its data: the run goes on and ends with every
    iteration and one report."""
    sb.apply(small("etcd", classes=("fast",), iterations=4, runtime="2s"), namespace=ns)
    _first_result(ns, "etcd")
    sb.fault("stop", "etcd")
    try:
        # the API server has noticed (its etcd readiness check fails) ...
        def etcd_down():
            code, text = _readyz()
            return code != 200 and "[-]etcd failed" in text
        sb.wait_for(etcd_down, timeout=60, interval=0.5, what="the API server reporting etcd down")
        time.sleep(10)  # ... and stays without it this long: the fault's length
        assert controller.proc.poll() is None, "the controller exited without etcd"
    finally:
        sb.fault("start", "etcd")
    sb.wait_for(lambda: _readyz()[0] == 200, timeout=120, interval=0.5,
                what="the API server ready again")
    st = _ended_with_every_iteration(ns, "etcd", 4)
    print("attempts:", st["classes"][0]["attempts"], "events:", events(ns, "etcd"))
    assert controller.proc.poll() is None
    reasons = [r for r, _ in events(ns, "etcd")]
    assert reasons.count("RunSucceeded") == 1, reasons
    assert reasons.count("ReportWritten") == 1, reasons


@pytest.mark.parametrize("when", ["request", "response"])
def test_controller_killed_while_it_writes_the_report(ns, controller, when):
    """The controller's create of the report ConfigMap is held by the fault
    proxy (request: never reaches the API server; response: created there,
    the answer never reaches the controller), the controller is SIGKILLed
    while it waits, a new one is started: one report, Succeeded, every
    iteration."""
    controller.stop()
    with sb.PrivateFaultProxy() as fp:  # its own: not serial
        fp.add(method="POST", path=rf"/namespaces/{ns}/configmaps(\?|$)",
               body_match=r'"name": *"rep-report"', action="hold", when=when, timeout_ms=120000)
        c1 = controller.start(name="c1", kubeconfig=fp.kubeconfig)
        sb.apply(small("rep", classes=("fast",), iterations=2), namespace=ns)

        def entry(action):
            return next((e for e in fp.log() if e["action"] == action), None)
        sb.wait_for(lambda: entry("held"), timeout=240, interval=0.2,
                    what="the controller's create of the report held")
        # every iteration is recorded; the status does not say so yet
        assert sorted(results(ns, "rep")) == [("fast", 1), ("fast", 2)]
        assert (br(ns, "rep").get("status") or {}).get("phase") != "Succeeded"
        c1.kill()
        sb.wait_for(lambda: entry("dropped"), timeout=30, interval=0.2,
                    what="the held exchange dropped with its client")
        there = sb.api("GET", f"/api/v1/namespaces/{ns}/configmaps/rep-report")[0] == 200
        assert there == (when == "response"), there
        assert (br(ns, "rep").get("status") or {}).get("phase") != "Succeeded"
        c2 = controller.start(name="c2")
        st = _ended_with_every_iteration(ns, "rep", 2)
    assert st["classes"][0]["attempts"] == 1
    written = [m for r, m in events(ns, "rep") if r == "ReportWritten"]
    if when == "request":
        # the new controller wrote it
        assert written == ["report written to configmap rep-report (2 iterations)"], written
    assert [r for r, _ in events(ns, "rep")].count("RunSucceeded") == 1
    assert c2.proc.poll() is None


OOM = """
apiVersion: storagebench.io/v1alpha1
kind: BenchmarkRun
metadata: {name: oom}
spec:
  storageClasses: [fast]
  iterations: 1
  volume: {size: 64Mi}
  cleanup: Never
  workloads:
  # 16 buffers of 16 MiB, allocated and filled before the first I/O
  - {name: big, rw: write, bs: 16m, iodepth: 16, size: 32m}
  runner:
    imagePullPolicy: Never
    resources: {requests: {memory: 24Mi}, limits: {memory: 24Mi}}
"""


def test_runner_oom_killed_says_so(ns, controller):
    """A runner whose job needs more memory than its limit: the kubelet's
    cgroup kills it, and the user reads OOMKilled in the class status and
    the events."""
    sb.apply(OOM, namespace=ns)
    st = wait_phase(ns, "oom", timeout=300)
    assert st["phase"] == "Failed", st
    c = st["classes"][0]
    assert c["iterationsDone"] == 0
    print("class message:", c["message"])
    assert "OOMKilled" in c["message"], c
    assert "over its memory limit (spec.runner.resources.limits.memory)" in c["message"], c
    assert "\n" not in c["message"], c  # one line, not the pod's log tail
    assert "OOMKilled" in st["message"], st["message"]
    # the kubelet enforced the limit: the container's own record says so
    pods = sb.kubectl_json("-n", ns, "get", "pods", "-l", "storagebench.io/run=oom")["items"]
    terms = [cs["state"].get("terminated") or {} for p in pods
             for cs in (p["status"].get("containerStatuses") or [])]
    assert terms and all(t.get("reason") == "OOMKilled" and t.get("exitCode") == 137
                         for t in terms), terms
    # not retried up to --max-runner-attempts: the same job would be killed
    # at the same limit; one pod, one attempt, no RunnerRestarted
    assert len(pods) == 1 and c["attempts"] == 1, (c, [p["metadata"]["name"] for p in pods])
    assert "not retried" in c["message"] and pods[0]["metadata"]["name"] in c["message"], c
    reasons = [r for r, _ in events(ns, "oom")]
    assert "RunnerRestarted" not in reasons, reasons
    failed = [m for r, m in events(ns, "oom") if r == "RunnerFailed"]
    assert len(failed) == 1 and "OOMKilled" in failed[0], failed


# CRD-valid specs the controller refuses, each with the field its message names
INVALID = [
    ({"workloads": [{"name": "w", "rw": "read", "size": "1g"}]}, "spec.workloads[0].size"),
    ({"fioJob": "[x]\nrw=read\nbs=4q\n"}, "spec.fioJob:3: bs: '4q' is not a block size"),
    ({"fioJob": "[x]\nrw=read\nfilename=/etc/passwd\n"}, "spec.fioJob: job 'x': filename"),
    ({"size": "20g"}, "spec.size: 20g is larger than spec.volume.size"),
    ({"workloads": [{"name": "w", "rw": "read", "timeBased": True}]},
     "time_based: needs runtime"),
]
RUN_LABELS = {"app.kubernetes.io/managed-by": "storagebench-controller"}


def _cm(name, labels, data):
    return {"apiVersion": "v1", "kind": "ConfigMap",
            "metadata": {"name": name, "labels": dict(RUN_LABELS, **labels)}, "data": data}


def _hostile_objects():
    """100 objects: 40 runs the controller must refuse, 40 result ConfigMaps
    of garbage with run labels (half with the valid run's, some over the
    result size limit), 20 report-like ConfigMaps of garbage. (Results under
    the valid run's own names are test_reliability.py's forged-result tests:
    created here they would race its runner.)"""
    objs, expect = [], {}
    for i in range(40):
        spec, needle = INVALID[i % len(INVALID)]
        name = f"bad-{i}"
        objs.append({"apiVersion": "storagebench.io/v1alpha1", "kind": "BenchmarkRun",
                     "metadata": {"name": name},
                     "spec": dict({"storageClasses": ["fast"], "volume": {"size": "64Mi"}},
                                  **spec)})
        expect[name] = needle
    garbage = ["not json", "null", "[]", '{"jobs": "x"}', '{"jobs": [{"jobname": 1}]}',
               "[" * 5000, '{"jobs": [], "context": {"run": "valid", "class": "fast"}}',
               "x" * (950 * 1024)]
    for i in range(40):
        run = "valid" if i < 20 else f"bad-{i}"
        it = str(1 + i % 2)
        objs.append(_cm(f"junk-{i}", {"app.kubernetes.io/component": "result", "storagebench.io/run": run,
                               "storagebench.io/class": "fast", "storagebench.io/iteration": it},
                        {"result.json": garbage[i % len(garbage)]}))
    for i in range(20):
        run = "valid" if i < 10 else f"bad-{i}"
        objs.append(_cm(f"fake-report-{i}",
                        {"app.kubernetes.io/component": "report", "storagebench.io/run": run},
                        {"report.json": garbage[i % len(garbage)], "report.txt": "forged"}))
    assert len(objs) == 100
    return objs, expect


def _rss(controller):
    m = re.search(r"^process_resident_memory_bytes (\S+)$", controller.metrics(), re.M)
    assert m, "process_resident_memory_bytes not in /metrics"
    return float(m.group(1))


def test_hundred_hostile_objects_at_once(ns, controller):
    sb.wait_for(lambda: "Synced caches" in controller.log, timeout=60, what="the controller synced")
    before = _rss(controller)
    sb.apply(small("valid", classes=("fast",), iterations=2, runtime="2s"), namespace=ns)
    sb.wait_for(lambda: sb.kubectl_json("-n", ns, "get", "pods", "-l",
                                        "storagebench.io/run=valid")["items"],
                timeout=120, interval=0.3, what="the valid run's runner pod")
    objs, expect = _hostile_objects()
    # create, not apply: some are larger than apply's last-applied annotation allows
    sb.kubectl("-n", ns, "create", "-f", "-", timeout=300,
               input=json.dumps({"apiVersion": "v1", "kind": "List", "items": objs}))
    st = wait_phase(ns, "valid", timeout=300)
    assert st["phase"] == "Succeeded", st
    assert st["classes"][0]["iterationsDone"] == 2
    report = _report_doc(ns, "valid")
    assert {m["n"] for r in report["results"] for m in r["metrics"].values()} == {2}

    def all_refused():
        runs = sb.kubectl_json("-n", ns, "get", "benchmarkruns")["items"]
        got = {r["metadata"]["name"]: r.get("status") or {} for r in runs}
        return got if all(got.get(n, {}).get("phase") == "Failed" for n in expect) else None
    got = sb.wait_for(all_refused, timeout=300, interval=1, what="every invalid run Failed")
    for name, needle in expect.items():
        s = got[name]
        assert s["conditions"][0]["reason"] == "InvalidSpec", (name, s)
        assert needle in s["message"], (name, needle, s["message"])
    assert not sb.kubectl_json("-n", ns, "get", "pvc", "-l", "storagebench.io/run!=valid")["items"]
    # the garbage is left as it was, and the controller is still serving
    assert sb.kubectl_json("-n", ns, "get", "configmap", "junk-0")["data"] == {
        "result.json": "not json"}
    assert controller.proc.poll() is None
    after = _rss(controller)
    print(f"controller RSS before {before / 2**20:.1f} MiB, after {after / 2**20:.1f} MiB")
    assert after - before < 64 * 2**20, (before, after)
