"""manifests/examples/lifecycle.yaml as it is: spec.lifecycle on the test
cluster's ssd-xfs (an RBD class that can expand and, with the
VolumeSnapshotClass ceph-rbd, snapshot: tests/cluster/resizer.py and
snapshotter.py) and fast-delayed (a local class that can do neither).

Every duration the controller reports for ssd-xfs (provision, attach,
resize, snapshot, restore, snapshot_delete, delete, restore_delete, each
volume of each iteration) is recomputed here from watch events of our own
(claims, pods, VolumeSnapshots in the namespace, PVs), with the same
definition as docs/reports.md's table, and must agree within TOLERANCE_S:
the two clocks start at the same event except where the controller starts
its clock at its own call (created, deleted: before or just after the
request) and we at the event the call causes. Needs the cluster's Ceph
(SB_CEPH=1)."""
import json
import os
import threading

import pytest

from conftest import sb, wait_phase
from test_lifecycle_resize import field, watch_events

TOLERANCE_S = 1.5
SIZE = 320 * 2**20
PHASES = ("provision", "attach", "resize", "snapshot", "restore", "snapshot_delete", "delete", "restore_delete")
GROUP = "/apis/snapshot.storage.k8s.io/v1"


def first(events, kind, name, pred, after=0.0):
    """The receipt time of the first event of kind/name at or after `after` for which pred holds."""
    for t, typ, o, k in events:
        if k == kind and t >= after and field(o, "metadata", "name") == name and pred(typ, o):
            return t
    raise AssertionError(f"no {kind} {name} event as expected")


def is_quantity(q, n):
    return q in (str(n), f"{n // 2**20}Mi")


def claim_moments(ev, name, wffc=True):
    """provision-like and delete-like durations of claim `name`, as (provision, delete)."""
    start = first(ev, "pvc", name, lambda _, o: field(o, "metadata", "annotations",
                                                      "volume.kubernetes.io/selected-node")) if wffc \
        else first(ev, "pvc", name, lambda typ, _: typ == "ADDED")
    bound = first(ev, "pvc", name, lambda _, o: field(o, "status", "phase") == "Bound")
    pv = next(field(o, "spec", "volumeName") for _, _, o, k in ev
              if k == "pvc" and field(o, "metadata", "name") == name and field(o, "spec", "volumeName"))
    deleted = first(ev, "pvc", name, lambda typ, o: field(o, "metadata", "deletionTimestamp") or typ == "DELETED")
    gone = first(ev, "pv", pv, lambda typ, _: typ == "DELETED")
    return bound - start, gone - deleted


def ours(ev, vol):
    """Each phase of volume entry vol (the controller's lifecycle.json) from our own events."""
    c, r = vol["name"], vol["restored"]
    out = {}
    out["provision"], out["delete"] = claim_moments(ev, c)
    out["restore"], out["restore_delete"] = claim_moments(ev, r)
    bound = first(ev, "pvc", c, lambda _, o: field(o, "status", "phase") == "Bound")
    on_node = first(ev, "pod", c, lambda _, o: field(o, "spec", "nodeName"))
    running = first(ev, "pod", c, lambda _, o: any("running" in (s.get("state") or {})
                                                   for s in field(o, "status", "containerStatuses") or []))
    out["attach"] = running - max(on_node, bound)
    asked = first(ev, "pvc", c, lambda _, o: is_quantity(field(o, "spec", "resources", "requests", "storage"),
                                                         2 * SIZE))
    out["resize"] = first(ev, "pvc", c, lambda _, o: is_quantity(field(o, "status", "capacity", "storage"),
                                                                 2 * SIZE), after=asked) - asked
    s = vol["snapshot"]
    made = first(ev, "vs", s, lambda typ, _: typ == "ADDED")
    out["snapshot"] = first(ev, "vs", s, lambda _, o: field(o, "status", "readyToUse") is True) - made
    out["snapshot_delete"] = first(ev, "vs", s, lambda typ, _: typ == "DELETED") - \
        first(ev, "vs", s, lambda typ, o: field(o, "metadata", "deletionTimestamp") or typ == "DELETED")
    return out


def lifecycle_docs(ns, run, cls):
    cms = sb.kubectl_json("-n", ns, "get", "configmap", "-l",
                          f"storagebench.io/run={run},app.kubernetes.io/component=lifecycle")["items"]
    return [json.loads(cm["data"]["lifecycle.json"]) for cm in cms
            if cm["metadata"]["annotations"]["storagebench.io/class-name"] == cls]


def test_lifecycle_example_measures_every_phase_as_our_watch_sees_it(ns, controller):
    if not os.path.exists(os.path.join(sb.OUT, "ceph.env")):
        pytest.skip("the cluster runs without Ceph (SB_CEPH=1 make cluster-up)")
    with open(os.path.join(sb.ROOT, "manifests", "examples", "lifecycle.yaml")) as f:
        example = f.read()
    ev, stop, ready = [], threading.Event(), []
    for path, kind in ((f"/api/v1/namespaces/{ns}/persistentvolumeclaims", "pvc"),
                       (f"/api/v1/namespaces/{ns}/pods", "pod"), ("/api/v1/persistentvolumes", "pv"),
                       (f"{GROUP}/namespaces/{ns}/volumesnapshots", "vs")):
        ready.append(threading.Event())
        threading.Thread(target=watch_events, args=(path, ev, stop, kind, ready[-1]), daemon=True).start()
    # our watches are open before the run exists
    sb.wait_for(lambda: all(r.is_set() for r in ready), timeout=30, what="our four watches open")
    sb.apply(example, namespace=ns)
    st = wait_phase(ns, "lifecycle", timeout=1200)
    stop.set()
    assert st["phase"] == "Succeeded", (st, controller.log[-3000:])
    report = json.loads(sb.kubectl_json("-n", ns, "get", "configmap", "lifecycle-report")["data"]["report.json"])
    rows = {(e["target"], e["phase"]): e for e in report["lifecycle"]}
    assert not [e for e in report["lifecycle"] if e["phase"] == "error"], report["lifecycle"]

    # ssd-xfs: every phase measured, for each of the 2 iterations x (1 + 2) volumes
    for phase in PHASES:
        assert rows[("ssd-xfs", phase)]["n"] == 6, rows.get(("ssd-xfs", phase))
    # fast-delayed: what it cannot do is skipped, with the reason
    assert "allowVolumeExpansion" in rows[("fast-delayed", "resize")]["skipped"]
    assert rows[("fast-delayed", "snapshot")]["skipped"] == (
        "VolumeSnapshotClass ceph-rbd (spec.lifecycle.volumeSnapshotClass) is for driver "
        "storagebench.io/ceph, not storagebench.io/local-dir (class fast-delayed's provisioner)")
    assert ("fast-delayed", "restore") not in rows and rows[("fast-delayed", "provision")]["n"] == 6

    # each of the controller's samples, recomputed from our own events
    docs = lifecycle_docs(ns, "lifecycle", "ssd-xfs")
    assert sorted(d["iteration"] for d in docs) == [1, 2]
    compared = []
    for d in docs:
        assert d["volumeSnapshotClass"] == "ceph-rbd" and "snapshot" not in d["skipped"], d
        for vol in d["volumes"]:
            mine = ours(ev, vol)
            for phase in PHASES:
                theirs = vol[f"{phase}_ns"] / 1e9
                compared.append((vol["name"], phase, round(theirs, 3), round(mine[phase], 3)))
                assert abs(theirs - mine[phase]) <= TOLERANCE_S, compared[-1]
    assert len(compared) == 6 * len(PHASES)

    # what the measurement made: labelled and owned as its claims, restored from the snapshot
    run_uid = sb.kubectl_json("-n", ns, "get", "br", "lifecycle")["metadata"]["uid"]
    snaps = [o for _, typ, o, k in ev if k == "vs" and typ == "ADDED"]
    assert len(snaps) == 6
    for o in snaps:
        md = o["metadata"]
        assert md["labels"]["app.kubernetes.io/component"] == "lifecycle"
        assert md["labels"]["storagebench.io/run"] == "lifecycle"
        assert md["ownerReferences"][0]["uid"] == run_uid and md["ownerReferences"][0]["kind"] == "BenchmarkRun"
        assert o["spec"] == {"source": {"persistentVolumeClaimName": md["name"]}, "volumeSnapshotClassName": "ceph-rbd"}
    restored = {field(o, "metadata", "name"): o for _, typ, o, k in ev
                if k == "pvc" and typ == "ADDED" and field(o, "spec", "dataSource")}
    assert len(restored) == 6
    for name, o in restored.items():
        assert o["spec"]["dataSource"] == {"apiGroup": "snapshot.storage.k8s.io", "kind": "VolumeSnapshot",
                                           "name": name[:-2]}
        assert o["metadata"]["ownerReferences"][0]["uid"] == run_uid
        # asked for the snapshot's restoreSize: the source after its resize
        assert is_quantity(o["spec"]["resources"]["requests"]["storage"], 2 * SIZE), o["spec"]
    # nothing of the measurement is left behind
    left = sb.kubectl_json("-n", ns, "get", "pvc,pods,volumesnapshots", "-l", "app.kubernetes.io/component=lifecycle")
    assert left["items"] == []
    # the figures (docs/reports.md quotes them: pytest -s shows this)
    txt = sb.kubectl_json("-n", ns, "get", "configmap", "lifecycle-report")["data"]["report.txt"]
    print(txt[txt.index("=== volume lifecycle"):txt.index("\n\n", txt.index("=== volume lifecycle"))])
