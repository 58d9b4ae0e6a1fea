"""The controller end to end on the real test cluster, driven with kubectl."""
import json
import re
import statistics
import time

import pytest

from conftest import br, events, results, sb, small, wait_phase

def test_happy_path_two_classes(ns, controller):
    sb.apply(small("happy"), namespace=ns)
    st = wait_phase(ns, "happy", timeout=240)
    assert st["phase"] == "Succeeded", st
    assert st["progress"] == "4/4"
    cond = st["conditions"][0]
    assert (cond["type"], cond["status"], cond["reason"]) == ("Succeeded", "True", "Completed")
    assert [c["phase"] for c in st["classes"]] == ["Succeeded", "Succeeded"]
    assert all(c["engine"].startswith("io_uring") for c in st["classes"])

    # the report's means and stddevs are the ones we compute from the results
    res = results(ns, "happy")
    assert sorted(res) == [("disk", 1), ("disk", 2), ("fast", 1), ("fast", 2)]
    cm = sb.kubectl_json("-n", ns, "get", "configmap", "happy-report")
    assert st["report"] == "happy-report"
    report = json.loads(cm["data"]["report.json"])
    got = {(r["target"], r["workload"]): r["metrics"] for r in report["results"]}
    for cls in ("fast", "disk"):
        for wl, d in (("rr", "read"), ("sw", "write")):
            samples = []
            for it in (1, 2):
                job = next(j for j in res[(cls, it)]["jobs"] if j["jobname"] == wl)
                samples.append(job[d]["iops"])
            m = got[(cls, wl)][f"{d}-iops"]
            assert m["n"] == 2
            assert m["mean"] == pytest.approx(statistics.mean(samples), rel=1e-9)
            assert m["stddev"] == pytest.approx(statistics.stdev(samples), rel=1e-9)
            summ = [s for s in st["summary"] if (s["class"], s["workload"], s["metric"]) ==
                    (cls, wl, f"{d}-iops")]
            assert len(summ) == 1 and summ[0]["mean"] == pytest.approx(m["mean"], rel=1e-9)
    txt = cm["data"]["report.txt"]
    assert "fast: rr: " in txt and "read IOPS on average with a standard deviation of" in txt
    assert "over 2 iterations" in txt
    for key in ("report.md", "report.csv", "report.svg"):
        assert key in cm["data"]
    # one chart per family (here IOPS only: both workloads lead with IOPS)
    import xml.etree.ElementTree as ET
    ET.fromstring(cm["data"]["report.svg"])
    # cleanup Always: volumes and runner pods are gone, results and report stay
    sb.wait_for(lambda: not sb.kubectl_json("-n", ns, "get", "pvc,pods", "-l",
                                            "storagebench.io/run=happy")["items"],
                timeout=60, what="cleanup")
    reasons = {r for r, _ in events(ns, "happy")}
    assert {"StartedClass", "CreatedVolume", "CreatedRunner", "IterationsRecorded",
            "ReportWritten", "RunSucceeded"} <= reasons
    # each recorded iteration counted once (a pass from a stale cache must not
    # count the same iterations again)
    # (waited for: the pass that wrote the last status counts right after the write)
    seen = []
    sb.wait_for(lambda: seen.append(metric_value(controller.metrics(),
                                                 "storagebench_iterations_completed_total"))
                or seen[-1] is not None and seen[-1] >= 4, timeout=30, what="iteration count")
    assert seen[-1] == 4, seen
    # kubectl get shows the printer columns
    out = sb.kubectl("-n", ns, "get", "br", "happy")
    assert "Succeeded" in out and "4/4" in out and "fast,disk" in out
    # deleting the run removes its ConfigMaps through garbage collection
    sb.kubectl("-n", ns, "delete", "br", "happy")
    sb.wait_for(lambda: not sb.kubectl_json("-n", ns, "get", "configmap", "-l",
                                            "storagebench.io/run=happy")["items"],
                timeout=90, what="garbage collection of the results")


def test_unknown_storage_class_fails_that_class_only(ns, controller):
    sb.apply(small("unknown", classes=("nope", "fast"), iterations=1), namespace=ns)
    st = wait_phase(ns, "unknown", timeout=180)
    assert st["phase"] == "Failed"
    cls = {c["name"]: c for c in st["classes"]}
    assert cls["nope"]["phase"] == "Failed"
    assert cls["nope"]["reason"] == "StorageClassNotFound"
    assert "storage class 'nope' does not exist" in cls["nope"]["message"]
    assert cls["fast"]["phase"] == "Succeeded"
    assert st["conditions"][0]["reason"] == "StorageClassNotFound"
    # what was measured is still reported
    assert st["report"] == "unknown-report"
    assert any(s["class"] == "fast" for s in st["summary"])


@pytest.mark.parametrize("field,value,needle", [
    ("fioJob", '"[x]\\nrw=read\\nbs=4q\\n"', "spec.fioJob:3: bs: '4q' is not a block size"),
    ("fioJob", '"[x]\\nrw=read\\nfilename=/etc/passwd\\n"', "filename is set by the runner"),
    ("runtime", '"soon"', None),  # the CRD's pattern refuses it: kubectl apply fails
    ("iterations", "0", None),
    ("workloads", '[{"name": "w", "rw": "read", "timeBased": true}]', "time_based: needs runtime"),
    ("size", '"20g"', "spec.size: 20g is larger than spec.volume.size"),
])
def test_invalid_spec(ns, controller, field, value, needle):
    manifest = {"apiVersion": "storagebench.io/v1alpha1", "kind": "BenchmarkRun",
                "metadata": {"name": "bad"},
                "spec": {"storageClasses": ["fast"], "volume": {"size": "64Mi"},
                         field: json.loads(value)}}
    p = sb.kubectl("-n", ns, "apply", "-f", "-", input=json.dumps(manifest), check=False)
    if needle is None:
        assert p.returncode != 0, "the CRD schema should refuse it"
        assert f"spec.{field}" in p.stderr
        return
    assert p.returncode == 0, p.stderr
    st = wait_phase(ns, "bad", phases=("Failed",), timeout=60)
    assert st["conditions"][0]["reason"] == "InvalidSpec"
    assert needle in st["message"], st["message"]
    assert ("InvalidSpec", st["message"]) in events(ns, "bad")
    assert not sb.kubectl_json("-n", ns, "get", "pvc")["items"]


def test_pvc_never_binding_times_out(ns, controller):
    sb.apply("""
apiVersion: storage.k8s.io/v1
kind: StorageClass
metadata: {name: e2e-nobind}
provisioner: example.com/nobody-provisions-this
volumeBindingMode: Immediate
""")
    try:
        sb.apply(small("nobind", classes=("e2e-nobind",), iterations=1,
                       extra="  timeouts: {pvcBind: 8s}"), namespace=ns)
        st = wait_phase(ns, "nobind", timeout=90)
        assert st["phase"] == "Failed"
        c = st["classes"][0]
        assert c["reason"] == "VolumeBindTimeout"
        assert "not bound within 8s" in c["message"]
        assert "report" not in st  # nothing was measured
    finally:
        sb.kubectl("delete", "storageclass", "e2e-nobind", check=False)


# The two tests that stop a runner pod after its first result need it still
# running when the delete lands: 3 iterations left of two workloads of this
# length each (30 s), so slow kubectl calls on a loaded machine cannot let
# the pod finish first and leave nothing for a second attempt (at 2 s, 12 s
# left, it finished first twice at load 30).
RESUME_RUNTIME = "5s"


def _first_result(ns, name):
    sb.wait_for(lambda: results(ns, name), timeout=120, interval=0.5, what="a first result")


def test_runner_pod_killed_mid_run_resumes(ns, controller):
    sb.apply(small("killed", classes=("fast",), iterations=4, runtime=RESUME_RUNTIME),
             namespace=ns)
    _first_result(ns, "killed")
    sb.kubectl("-n", ns, "delete", "pod", "killed-fast-1", "--grace-period=0", "--force",
               check=False)
    st = wait_phase(ns, "killed", timeout=240)
    assert st["phase"] == "Succeeded", st
    c = st["classes"][0]
    assert c["attempts"] == 2
    res = results(ns, "killed")
    assert sorted(res) == [("fast", i) for i in (1, 2, 3, 4)]  # none lost, none twice
    pods = {r["context"]["pod"] for r in res.values()}
    assert pods == {"killed-fast-1", "killed-fast-2"}
    assert any(r == "CreatedRunner" and "attempt 2" in m for r, m in events(ns, "killed"))



def test_runner_pod_deleted_gracefully_stops_at_once(ns, controller):
    """A runner pod deleted with a grace period (as a drain or a user does) gets
    SIGTERM: the runner (PID 1 of its container) stops its I/O, records nothing
    of the interrupted iteration and exits, so the pod is gone long before a
    10-minute grace period ends (a runner that ignored SIGTERM would hold it
    that long); the next attempt runs what is left, nothing lost or twice."""
    sb.apply(small("graceful", classes=("fast",), iterations=4, runtime=RESUME_RUNTIME),
             namespace=ns)
    _first_result(ns, "graceful")
    t0 = time.monotonic()
    sb.kubectl("-n", ns, "delete", "pod", "graceful-fast-1", "--grace-period=600",
               "--wait=false")
    sb.wait_for(lambda: not sb.kubectl_json("-n", ns, "get", "pods", "--field-selector",
                                            "metadata.name=graceful-fast-1")["items"],
                timeout=300, what="the gracefully deleted runner pod gone")
    assert time.monotonic() - t0 < 300  # far below the 600 s grace period
    st = wait_phase(ns, "graceful", timeout=240)
    assert st["phase"] == "Succeeded", st
    assert st["classes"][0]["attempts"] == 2
    res = results(ns, "graceful")
    assert sorted(res) == [("fast", i) for i in (1, 2, 3, 4)]  # none lost, none twice

def test_controller_restart_mid_run(ns, controller):
    sb.apply(small("restart", classes=("fast",), iterations=4, runtime="2s"), namespace=ns)
    _first_result(ns, "restart")
    controller.kill()
    time.sleep(3)
    c2 = controller.start(name="c2")
    st = wait_phase(ns, "restart", timeout=240)
    assert st["phase"] == "Succeeded", st
    assert st["classes"][0]["attempts"] == 1  # the runner pod went on meanwhile
    assert sorted(results(ns, "restart")) == [("fast", i) for i in (1, 2, 3, 4)]
    assert "Synced caches" in c2.log


def metric_value(text, name):
    """The value of an unlabelled sample in Prometheus text (None if absent)."""
    m = re.search(rf"^{re.escape(name)} ([0-9.e+]+)$", text, re.M)
    return float(m.group(1)) if m else None


def after(log, i, pred):
    """Whether an entry after index i of the proxy log satisfies pred."""
    return any(pred(e) for e in log[i + 1:])


def test_api_errors_injected(ns, controller):
    controller.stop()
    # a fault proxy of its own: not serial
    with sb.PrivateFaultProxy() as fp:
        # rules first: the controller's watches start as soon as it does.
        # 5 x 500 on status writes: the first try and the client's 4 retries,
        # so the controller itself sees the failure; then a conflict; a
        # ConfigMap watch answered 410; pod watches cut
        fp.add(method="PATCH", path=r"/benchmarkruns/.*/status", action="status", status=500,
               count=5)
        fp.add(method="PATCH", path=r"/benchmarkruns/.*/status", action="status", status=409,
               body={"kind": "Status", "apiVersion": "v1", "status": "Failure",
                     "reason": "Conflict", "message": "injected conflict", "code": 409},
               count=1)
        fp.add(method="GET", path=r"/configmaps\?.*watch=(1|true)", action="status", status=410,
               count=1)
        fp.add(method="GET", path=r"/pods\?.*watch=(1|true)", action="cut_watch", after_ms=500,
               count=2)
        c = controller.start(name="proxied", kubeconfig=fp.kubeconfig)
        sb.apply(small("faults", classes=("fast",), iterations=2), namespace=ns)
        st = wait_phase(ns, "faults", timeout=240)
        assert st["phase"] == "Succeeded", st
        assert sorted(results(ns, "faults")) == [("fast", 1), ("fast", 2)]
        seen = fp.log()
        status_patch = [i for i, e in enumerate(seen)
                        if e["method"] == "PATCH" and "/status" in e["path"]]
        codes = [seen[i]["status"] for i in status_patch]
        # the client retried the 500s (5 tries), the 409 came next, and the
        # controller wrote its status after both (a forwarded PATCH later)
        assert codes[:6] == [500] * 5 + [409], codes
        assert any(seen[i]["action"] == "forward" for i in status_patch[6:]), codes
        # the ConfigMap informer listed again after the 410; the pod watch
        # was opened again after each cut
        gone = next(i for i, e in enumerate(seen) if e["status"] == 410)
        assert after(seen, gone, lambda e: e["method"] == "GET" and "/configmaps" in e["path"]
                     and "watch=" not in e["path"]), "no relist after the 410"
        cuts = [i for i, e in enumerate(seen) if e["action"] == "cut_watch"]
        assert len(cuts) == 2, cuts
        assert after(seen, cuts[-1], lambda e: "/pods" in e["path"] and "watch=" in e["path"])
        # the controller's own account of the failed status write: its warning,
        # the reconcile it failed and requeued, and its counters
        log = c.log
        assert re.search(r"Failed to update status.*faults", log), log[-3000:]
        assert re.search(r"Reconcile failed, retrying.*faults", log), log[-3000:]
        m = c.metrics()
        assert metric_value(m, "storagebench_api_errors_total") >= 1, m
        errs = re.search(r'^storagebench_reconcile_total\{result="error"\} ([0-9]+)$', m, re.M)
        assert errs and int(errs.group(1)) >= 1, m


@pytest.mark.serial  # lease renewals on time: no other test loading the machine
def test_two_replicas_only_leader_acts(ns, controller):
    controller.stop()
    a = controller.start(name="a", extra=("--leader-elect", "--identity=replica-a"))
    sb.wait_for(lambda: "Started leading" in a.log, timeout=30, what="a leads")
    b = controller.start(name="b", extra=("--leader-elect", "--identity=replica-b"))
    sb.wait_for(lambda: "Synced caches" in b.log, timeout=30, what="b synced")
    sb.apply(small("leader", classes=("fast",), iterations=1), namespace=ns)
    st = wait_phase(ns, "leader", timeout=180)
    assert st["phase"] == "Succeeded"
    assert "Started leading" not in b.log
    assert "created runner pod" not in b.log.lower() and "Created" not in b.log
    assert "storagebench_leader 1" in a.metrics()
    assert "storagebench_leader 0" in b.metrics()
    lease = sb.kubectl_json("-n", ns, "get", "lease", "storagebench-controller")
    assert lease["spec"]["holderIdentity"] == "replica-a"
    # the leader stops: the other takes over and finishes a new run
    a.stop()
    sb.wait_for(lambda: "Started leading" in b.log, timeout=30, what="b takes over")
    sb.apply(small("leader2", classes=("fast",), iterations=1), namespace=ns)
    st = wait_phase(ns, "leader2", timeout=180)
    assert st["phase"] == "Succeeded"


def test_io_uring_blocked_falls_back_to_psync(ns, controller):
    extra = """    seccompProfile: {type: Localhost, localhostProfile: %s}""" % sb.SECCOMP_NO_IOURING
    manifest = small("noring", classes=("fast",), iterations=1).rstrip() + "\n" + extra + "\n"
    sb.apply(manifest, namespace=ns)
    st = wait_phase(ns, "noring", timeout=180)
    assert st["phase"] == "Succeeded", st
    assert st["classes"][0]["engine"] == "psync (fallback)"
    res = results(ns, "noring")[("fast", 1)]
    eng = res["jobs"][0]["engine"]
    assert eng["ran"] == "psync"
    assert "io_uring_setup failed: Operation not permitted" in eng["reason"]
    txt = sb.kubectl_json("-n", ns, "get", "configmap", "noring-report")["data"]["report.txt"]
    assert "engine: psync" in txt


def test_baseline_comparison(ns, controller):
    sb.apply(small("base", classes=("fast",), iterations=2), namespace=ns)
    assert wait_phase(ns, "base", timeout=180)["phase"] == "Succeeded"
    sb.apply(small("cur", classes=("fast",), iterations=2, extra="  baseline: base"),
             namespace=ns)
    sb.apply(small("orphan", classes=("fast",), iterations=1, extra="  baseline: nothere"),
             namespace=ns)
    assert wait_phase(ns, "cur", timeout=180)["phase"] == "Succeeded"
    data = sb.kubectl_json("-n", ns, "get", "configmap", "cur-report")["data"]
    cmp = json.loads(data["compare.json"])
    assert cmp["baseline"] == "base" and cmp["current"] == "cur"
    m = cmp["results"][0]["metrics"]["read-iops"]
    assert m["verdict"] in ("significant", "not significant")
    assert m["p"] is None or 0 <= m["p"] <= 1
    assert "fast: rr: " in data["compare.txt"] and "(p=" in data["compare.txt"]
    assert "compared with the baseline" in data["report.txt"]
    assert any(r == "ComparedWithBaseline" for r, _ in events(ns, "cur"))
    # a missing baseline is a warning; the run still reports
    st = wait_phase(ns, "orphan", timeout=180)
    assert st["phase"] == "Succeeded"
    assert any(r == "BaselineNotFound" and "nothere" in msg for r, msg in events(ns, "orphan"))


def test_forbidden_create_is_reported_not_counted(ns, controller):
    # no runner ServiceAccount yet: the API refuses the pod (403)
    sb.kubectl("-n", ns, "delete", "serviceaccount", "storagebench-runner")
    sb.apply(small("nosa", classes=("fast",), iterations=1), namespace=ns)

    def forbidden():
        st = br(ns, "nosa").get("status") or {}
        c = (st.get("classes") or [{}])[0]
        return st if c.get("reason") == "Forbidden" else None
    st = sb.wait_for(forbidden, timeout=60, interval=1, what="a Forbidden reason")
    c = st["classes"][0]
    assert "cannot create the runner pod" in c["message"]
    assert "storagebench-runner" in c["message"]  # the API's own words name the account
    assert c["attempts"] == 0  # a pod that never existed is not an attempt
    assert st["conditions"][0]["reason"] == "Forbidden"
    assert st["phase"] in ("Pending", "Running")
    assert sum(1 for r, _ in events(ns, "nosa") if r == "Forbidden") == 1
    # fixed: the run goes on by itself
    sb.apply("apiVersion: v1\nkind: ServiceAccount\nmetadata: {name: storagebench-runner}\n",
             namespace=ns)
    st = wait_phase(ns, "nosa", timeout=180)
    assert st["phase"] == "Succeeded", st
    assert st["classes"][0]["attempts"] == 1
    assert sum(1 for r, _ in events(ns, "nosa") if r == "RunSucceeded") == 1


def test_block_volume(ns, controller):
    manifest = small("blk", classes=("fast",), iterations=1).replace(
        "volume: {size: 64Mi}", "volume: {size: 64Mi, volumeMode: Block}")
    # the loop device node belongs to root: root needs the baseline runner policy
    controller.stop()
    controller.start(extra=["--runner-pod-security=baseline"])
    manifest = manifest.rstrip() + "\n    securityContext: {runAsUser: 0}\n"
    sb.apply(manifest, namespace=ns)
    st = wait_phase(ns, "blk", timeout=180)
    assert st["phase"] == "Succeeded", st
    res = results(ns, "blk")[("fast", 1)]
    job = next(j for j in res["jobs"] if j["jobname"] == "sw")
    assert job["job options"]["filename"] == "/dev/storagebench"
    assert job["write"]["io_bytes"] > 0


def test_runner_pods_in_the_pod_network_on_their_volumes_nodes(ns, controller):
    """Default runner settings (no hostNetwork): the runner pods reach the
    API through the `kubernetes` Service from their own pod addresses, and
    each ran on the node that holds its volume (the PV's node affinity)."""
    import ipaddress
    sb.apply(small("podnet", classes=("fast", "disk"), iterations=1, cleanup="Never"), namespace=ns)
    st = wait_phase(ns, "podnet", timeout=240)
    assert st["phase"] == "Succeeded", st
    pods = sb.kubectl_json("-n", ns, "get", "pods", "-l", "storagebench.io/run=podnet")["items"]
    assert len(pods) >= 2
    classes = set()
    for p in pods:
        name = p["metadata"]["name"]
        assert not p["spec"].get("hostNetwork"), name
        ip = ipaddress.ip_address(p["status"]["podIP"])
        assert ip in ipaddress.ip_network(sb.POD_CIDR) and str(ip) != p["status"]["hostIP"], name
        claims = [v["persistentVolumeClaim"]["claimName"] for v in p["spec"]["volumes"]
                  if v.get("persistentVolumeClaim")]
        assert len(claims) == 1, name
        pvc = sb.pvc(claims[0], ns)
        classes.add(pvc["spec"]["storageClassName"])
        pv = sb.get(f"/api/v1/persistentvolumes/{pvc['spec']['volumeName']}")
        term = pv["spec"]["nodeAffinity"]["required"]["nodeSelectorTerms"][0]["matchExpressions"][0]
        assert term["key"] == "kubernetes.io/hostname" and term["values"] == [p["spec"]["nodeName"]], name
    assert classes == {"fast", "disk"}
    assert len(results(ns, "podnet")) == 2
