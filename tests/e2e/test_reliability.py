"""Issue 15 on the test cluster: objects of a run's names that are not the
run's (left by a deleted run of the same name, or foreign), a runner pod
that never starts (spec.runner.startTimeout), forged result ConfigMaps,
and a workload larger than its volume. docs/reliability.md lists them."""
import json
import time

import pytest

from conftest import br, events, sb, small, wait_phase

HOLD = "storagebench.io/test-hold"


def _cm(name, labels=None, owner=None, data=None, finalizers=None):
    md = {"name": name, "labels": labels or {}}
    if owner:
        md["ownerReferences"] = [owner]
    if finalizers:
        md["finalizers"] = finalizers
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": md, "data": data or {"k": "v"}}


def _class_status(ns, name, reason, timeout=60):
    def check():
        st = br(ns, name).get("status") or {}
        c = (st.get("classes") or [{}])[0]
        return st if c.get("reason") == reason else None
    return sb.wait_for(check, timeout=timeout, interval=0.5, what=f"class reason {reason}")


def _owner_uid(ns, kind, name):
    obj = sb.kubectl_json("-n", ns, "get", kind, name)
    return [r["uid"] for r in obj["metadata"].get("ownerReferences") or []]


def test_recreated_run_of_the_same_name_runs(ns, controller):
    """Bug 1 as found: delete a run while its pod runs, apply it again at once."""
    sb.apply(small("again", classes=("fast",), iterations=2, runtime="2s"), namespace=ns)
    sb.wait_for(lambda: sb.kubectl_json("-n", ns, "get", "pods", "-l",
                                        "storagebench.io/run=again")["items"],
                timeout=60, interval=0.3, what="a runner pod")
    old_uid = br(ns, "again")["metadata"]["uid"]
    sb.kubectl("-n", ns, "delete", "br", "again", "--wait=false")
    sb.apply(small("again", classes=("fast",), iterations=2, runtime="2s"), namespace=ns)
    new_uid = br(ns, "again")["metadata"]["uid"]
    assert new_uid != old_uid
    st = wait_phase(ns, "again", timeout=240)
    assert st["phase"] == "Succeeded", st
    assert st["classes"][0]["iterationsDone"] == 2
    # the report and the job file are the new run's
    assert _owner_uid(ns, "configmap", "again-report") == [new_uid]
    assert json.loads(sb.kubectl_json("-n", ns, "get", "configmap", "again-report")
                      ["data"]["report.json"])["results"]


def test_old_object_being_deleted_is_waited_for(ns, controller):
    """An object of the run's name left by an earlier run of that name: the
    controller deletes it and waits (a finalizer holds it here, so the wait
    is seen for certain), then runs once it is gone."""
    gone_run = {"apiVersion": "storagebench.io/v1alpha1", "kind": "BenchmarkRun",
                "name": "held", "uid": "00000000-0000-4000-8000-000000000015"}
    sb.apply(_cm("held-spec", owner=gone_run, finalizers=[HOLD]), namespace=ns)
    try:
        sb.apply(small("held", classes=("fast",), iterations=1), namespace=ns)
        st = _class_status(ns, "held", "WaitingForOldObject")
        c = st["classes"][0]
        # the first pass finds it left by the earlier run and deletes it; a
        # later pass finds it being deleted (held by the finalizer)
        assert "held-spec" in c["message"], c
        assert "left by an earlier run" in c["message"] or "being deleted" in c["message"], c

        def being_deleted():
            s2 = br(ns, "held").get("status") or {}
            c2 = (s2.get("classes") or [{}])[0]
            return s2 if c2.get("reason") == "WaitingForOldObject" and \
                "being deleted" in (c2.get("message") or "") else None
        st = sb.wait_for(being_deleted, timeout=60, interval=0.5,
                         what="the class waiting for held-spec being deleted")
        c = st["classes"][0]
        assert "held-spec" in c["message"], c
        assert c["attempts"] == 0
        assert st["phase"] in ("Pending", "Running")
        # no runner pod while the old job file is there
        assert not sb.kubectl_json("-n", ns, "get", "pods", "-l",
                                   "storagebench.io/run=held")["items"]
        assert sb.kubectl_json("-n", ns, "get", "configmap", "held-spec")["metadata"].get(
            "deletionTimestamp")
    finally:
        sb.kubectl("-n", ns, "patch", "configmap", "held-spec", "--type=merge", "-p",
                   '{"metadata":{"finalizers":null}}', check=False)
    st = wait_phase(ns, "held", timeout=180)
    assert st["phase"] == "Succeeded", st
    assert _owner_uid(ns, "configmap", "held-spec") == [br(ns, "held")["metadata"]["uid"]]


def test_foreign_object_is_reported_by_name(ns, controller):
    sb.apply(_cm("foreign-spec", labels={"team": "someone-else"}), namespace=ns)
    sb.apply(small("foreign", classes=("fast",), iterations=1), namespace=ns)
    st = _class_status(ns, "foreign", "ObjectConflict")
    c = st["classes"][0]
    assert "foreign-spec" in c["message"] and "not this run's" in c["message"], c
    assert st["conditions"][0]["reason"] == "ObjectConflict"
    assert "foreign-spec" in st["message"]
    ev = [m for r, m in events(ns, "foreign") if r == "ObjectConflict"]
    assert len(ev) == 1 and "foreign-spec" in ev[0], ev
    # the foreign object is left as it was
    assert sb.kubectl_json("-n", ns, "get", "configmap", "foreign-spec")["metadata"][
        "labels"] == {"team": "someone-else"}
    # removed by its owner: the run goes on by itself
    sb.kubectl("-n", ns, "delete", "configmap", "foreign-spec")
    st = wait_phase(ns, "foreign", timeout=180)
    assert st["phase"] == "Succeeded", st


def _planted(ns, run, name, component, data):
    """A ConfigMap as anyone with ConfigMap create can make it: the
    controller's labels and the run's ownerReference (its UID is readable
    by whoever reads the run), but not the controller's proof."""
    uid = br(ns, run)["metadata"]["uid"]
    owner = {"apiVersion": "storagebench.io/v1alpha1", "kind": "BenchmarkRun", "name": run,
             "uid": uid, "controller": True}
    cm = _cm(name, owner=owner, data=data, labels={
        "app.kubernetes.io/managed-by": "storagebench-controller",
        "app.kubernetes.io/component": component, "storagebench.io/run": run})
    sb.apply(cm, namespace=ns)


def _not_the_controllers(ns, run, name):
    ev = sb.wait_for(lambda: [m for r, m in events(ns, run) if r == "ObjectConflict"],
                     timeout=120, interval=0.5, what="an ObjectConflict event")
    assert len(ev) == 1 and name in ev[0] and "not the controller's" in ev[0] \
        and "storagebench.io/proof" in ev[0], ev


def test_planted_job_file_with_the_runs_owner_never_runs(ns, controller):
    """Issue 34: <run>-spec planted with the run's ownerReference and the
    controller's labels while the controller is down (a restart, an
    upgrade) is not the run's job file: no runner pod runs it, the run names
    it, and goes on with its own once the planted one is gone."""
    controller.stop()
    sb.apply(small("plspec", classes=("fast",), iterations=1), namespace=ns)
    _planted(ns, "plspec", "plspec-spec", "spec",
             {"jobs.fio": "[planted]\nioengine=null\nrw=randread\nsize=1m\nrate_iops=7\n"
                          "time_based\nruntime=1s\n"})
    controller.start()
    _not_the_controllers(ns, "plspec", "plspec-spec")
    st = br(ns, "plspec")["status"]
    assert st["classes"][0]["reason"] == "ObjectConflict", st
    assert not sb.kubectl_json("-n", ns, "get", "pods", "-l",
                               "storagebench.io/run=plspec")["items"]
    sb.kubectl("-n", ns, "delete", "configmap", "plspec-spec")
    st = wait_phase(ns, "plspec", timeout=180)
    assert st["phase"] == "Succeeded", st
    cm = sb.kubectl_json("-n", ns, "get", "configmap", "plspec-spec")
    assert "planted" not in cm["data"]["jobs.fio"]
    assert len(cm["metadata"]["annotations"]["storagebench.io/proof"]) == 64
    rep = json.loads(sb.kubectl_json("-n", ns, "get", "configmap", "plspec-report")
                     ["data"]["report.json"])
    assert "planted" not in json.dumps(rep)


def test_planted_report_with_the_runs_owner_is_not_kept(ns, controller):
    """Issue 34: <run>-report planted with the run's ownerReference and the
    controller's labels before the run ends: the run never takes its
    figures as its own; it names the ConfigMap, and writes its own report
    once the planted one is removed."""
    controller.stop()
    sb.apply(small("plrep", classes=("fast",), iterations=1), namespace=ns)
    fake = {"name": "plrep", "results": [{"class": "fast", "workload": "planted",
                                           "read_iops": {"mean": 7.3}}]}
    _planted(ns, "plrep", "plrep-report", "report",
             {"report.json": json.dumps(fake), "report.txt": "planted: 7.3 read IOPS"})
    controller.start()
    _not_the_controllers(ns, "plrep", "plrep-report")
    st = br(ns, "plrep")["status"]
    assert st["phase"] != "Succeeded" and not st.get("report"), st
    sb.kubectl("-n", ns, "delete", "configmap", "plrep-report")
    st = wait_phase(ns, "plrep", timeout=180)
    assert st["phase"] == "Succeeded", st
    cm = sb.kubectl_json("-n", ns, "get", "configmap", "plrep-report")
    assert "planted" not in cm["data"]["report.txt"]
    rep = json.loads(cm["data"]["report.json"])
    assert rep["results"] and all(r.get("workload") != "planted" for r in rep["results"])
    assert len(cm["metadata"]["annotations"]["storagebench.io/proof"]) == 64


def test_runner_pod_that_never_starts_fails_within_the_start_timeout(ns, controller):
    controller.stop()
    controller.start(extra=["--runner-allowed-images=localhost/storagebench"])
    sb.apply(small("noimage", classes=("fast",), iterations=1,
                   extra="    image: localhost/storagebench:no-such-tag\n"
                         "    startTimeout: 15s"), namespace=ns)
    # before the timeout the pod's own reason is in the class status
    st = _class_status(ns, "noimage", "RunnerNotStarted", timeout=60)
    assert "ErrImageNeverPull" in st["classes"][0]["message"], st
    st = wait_phase(ns, "noimage", timeout=120)
    assert st["phase"] == "Failed", st
    c = st["classes"][0]
    assert c["reason"] == "RunnerStartTimeout", c
    assert "noimage-fast-1 did not start within 15s" in c["message"], c
    assert "ErrImageNeverPull" in c["message"], c
    assert c["attempts"] == 1  # not retried: a new pod would meet the same
    assert "ErrImageNeverPull" in st["message"]
    ev = [m for r, m in events(ns, "noimage") if r == "RunnerStartTimeout"]
    assert len(ev) == 1 and "ErrImageNeverPull" in ev[0], ev
    # the controller deletes the pod (the kubelet's removal takes its own time)
    sb.wait_for(lambda: all(p["metadata"].get("deletionTimestamp") for p in sb.kubectl_json(
        "-n", ns, "get", "pods", "-l", "storagebench.io/run=noimage")["items"]),
        timeout=30, what="the pod deleted")


def test_forged_results_are_ignored_and_named(ns, controller):
    """Bug 2: result ConfigMaps with the run's labels and names, not written
    by its runner, neither count nor stop the runner from recording."""
    for it in (1, 2):
        sb.apply(_cm(f"forged-fast-{it}", labels={
            "app.kubernetes.io/component": "result", "app.kubernetes.io/managed-by":
            "storagebench-controller", "storagebench.io/run": "forged",
            "storagebench.io/class": "fast", "storagebench.io/iteration": str(it)},
            data={"result.json": "garbage"}), namespace=ns)
    sb.apply(small("forged", classes=("fast",), iterations=3, cleanup="Never"), namespace=ns)
    st = wait_phase(ns, "forged", timeout=240)
    assert st["phase"] == "Succeeded", st
    assert st["classes"][0]["iterationsDone"] == 3
    assert st["classes"][0]["attempts"] == 1
    report = json.loads(sb.kubectl_json("-n", ns, "get", "configmap", "forged-report")
                        ["data"]["report.json"])
    ns_ = {m["n"] for r in report["results"] for m in r["metrics"].values()}
    assert ns_ == {3}, ns_
    # the runner named what it ignored, and wrote its results beside them
    sb.wait_pod_done("forged-fast-1", ns)  # the run ends at its last result, the pod just after
    pod = sb.pod("forged-fast-1", ns)
    msg = pod["status"]["containerStatuses"][0]["state"]["terminated"]["message"]
    assert "3 iterations recorded, 0 already present" in msg, msg
    assert "forged-fast-1, forged-fast-2" in msg, msg
    names = {cm["metadata"]["name"] for cm in sb.kubectl_json(
        "-n", ns, "get", "configmap", "-l", "storagebench.io/run=forged")["items"]}
    assert {"forged-fast-1-a1", "forged-fast-2-a1", "forged-fast-3"} <= names, names
    # the forged ones are untouched; the controller named them when it built the report
    assert sb.kubectl_json("-n", ns, "get", "configmap", "forged-fast-1")["data"] == {
        "result.json": "garbage"}
    skipped = " ".join(m for r, m in events(ns, "forged") if r == "InvalidResult")
    assert "forged-fast-1" in skipped and "forged-fast-2" in skipped, skipped


def test_workload_larger_than_its_volume_is_refused(ns, controller):
    """Bug 4: through the API server (the CRD accepts it), the controller refuses."""
    manifest = {"apiVersion": "storagebench.io/v1alpha1", "kind": "BenchmarkRun",
                "metadata": {"name": "toobig"},
                "spec": {"storageClasses": ["fast"], "volume": {"size": "64Mi"},
                         "workloads": [{"name": "w", "rw": "read", "size": "1g"}]}}
    sb.kubectl("-n", ns, "apply", "-f", "-", input=json.dumps(manifest))
    st = wait_phase(ns, "toobig", phases=("Failed",), timeout=60)
    assert st["conditions"][0]["reason"] == "InvalidSpec"
    assert "spec.workloads[0].size" in st["message"], st["message"]
    assert "more than spec.volume.size 64Mi" in st["message"]
    assert not sb.kubectl_json("-n", ns, "get", "pvc")["items"]


def test_start_timeout_out_of_range_is_refused_by_the_crd(ns, controller):
    p = sb.kubectl("-n", ns, "apply", "-f", "-", check=False,
                   input=small("badstart", classes=("fast",), extra="    startTimeout: soon"))
    assert p.returncode != 0 and "spec.runner.startTimeout" in p.stderr


def test_forged_result_with_the_runs_labels_and_owner_is_rejected_by_name(ns, controller):
    """Tamper-evident results: anyone who may create ConfigMaps can copy the
    run's labels and ownerReference (its UID is public); without the run's
    key the MAC cannot match. The run is held back (a foreign object of its
    job file's name) until the forgeries are in place, so none races the runner."""
    sb.apply(_cm("signed-spec"), namespace=ns)
    sb.apply(small("signed", classes=("fast",), iterations=3, cleanup="Never"), namespace=ns)
    _class_status(ns, "signed", "ObjectConflict")
    uid = br(ns, "signed")["metadata"]["uid"]
    owner = {"apiVersion": "storagebench.io/v1alpha1", "kind": "BenchmarkRun", "name": "signed",
             "uid": uid, "controller": True}
    labels = {"app.kubernetes.io/component": "result", "app.kubernetes.io/managed-by":
              "storagebench-controller", "storagebench.io/run": "signed",
              "storagebench.io/class": "fast"}
    doc = {"jobs": [{"jobname": "rr", "read": {"iops": 1e9}}],
           "context": {"run": "signed", "class": "fast", "iteration": 0}}
    for it, mac in ((1, "00" * 32), (2, None)):
        doc["context"]["iteration"] = it
        data = {"result.json": json.dumps(doc)}
        if mac:
            data["result.json.hmac-sha256"] = mac
        sb.apply(_cm(f"signed-fast-{it}", labels=dict(labels, **{"storagebench.io/iteration": str(it)}),
                     owner=owner, data=data), namespace=ns)
    sb.kubectl("-n", ns, "delete", "configmap", "signed-spec")
    st = wait_phase(ns, "signed", timeout=240)
    assert st["phase"] == "Succeeded", st
    assert st["classes"][0]["iterationsDone"] == 3
    report = json.loads(sb.kubectl_json("-n", ns, "get", "configmap", "signed-report")
                        ["data"]["report.json"])
    iops = [r["metrics"]["read-iops"] for r in report["results"] if r["workload"] == "rr"][0]
    assert iops["n"] == 3 and iops["max"] < 1e9, iops  # the genuine iterations only
    skipped = [m for r, m in events(ns, "signed") if r == "InvalidResult"]
    assert any("signed-fast-1" in m and "does not match" in m for m in skipped), skipped
    assert any("signed-fast-2" in m and "missing (not signed" in m for m in skipped), skipped
    sb.wait_pod_done("signed-fast-1", ns)
    msg = sb.pod("signed-fast-1", ns)["status"]["containerStatuses"][0]["state"]["terminated"][
        "message"]
    assert "signed-fast-1, signed-fast-2" in msg, msg
    # the run's key is in a Secret the run owns, mounted into its runner pods only
    secs = [s for s in sb.kubectl_json("-n", ns, "get", "secrets")["items"]
            if s["metadata"]["name"] == f"signed-key-{uid[:8]}"]
    assert secs and secs[0]["metadata"]["ownerReferences"][0]["uid"] == uid
    vols = sb.pod("signed-fast-1", ns)["spec"]["volumes"]
    assert {"secretName": f"signed-key-{uid[:8]}", "defaultMode": 0o444} in [
        v.get("secret") for v in vols]
