"""The provisioner's test knobs (StorageClass annotations, provisioner.py):
a per-class provisioning delay, an injected failure rate, and a bad value
refused with an event naming the annotation.

Times are taken from a watch on the claim (the moment the scheduler's
selected-node annotation arrives, the moment the claim is Bound), not by
polling; the watch is open before the claim is created. The delay is a
lower bound: the claim cannot bind before it, however fast or slow the
machine; nothing here asserts an upper bound that a slow machine could miss."""
import json
import threading
import time
import urllib.parse
import urllib.request

import pytest

import sbcluster as sb

ANN_DELAY = "storagebench.test/provision-delay"
ANN_RATE = "storagebench.test/provision-failure-rate"
SELECTED = "volume.kubernetes.io/selected-node"


def open_watch(ns, name, timeout=90):
    """A watch on the claim, open (the server has answered) when this returns."""
    q = urllib.parse.urlencode({"watch": "1", "fieldSelector": f"metadata.name={name}",
                                "timeoutSeconds": str(timeout)})
    req = urllib.request.Request(f"{sb.API_URL}/api/v1/namespaces/{ns}/persistentvolumeclaims?{q}")
    req.add_header("Authorization", "Bearer " + sb.admin_token())
    return urllib.request.urlopen(req, context=sb._ssl(), timeout=timeout + 10)


def claim_times(ns, name, r):
    """Monotonic times at which the claim first had a selected node and
    first was Bound, from the watch stream r."""
    selected = bound = None
    with r:
        while bound is None:
            line = r.readline()
            if not line:
                break
            now = time.monotonic()
            obj = json.loads(line)["object"]
            if selected is None and SELECTED in (obj["metadata"].get("annotations") or {}):
                selected = now
            if (obj.get("status") or {}).get("phase") == "Bound":
                bound = now
    if selected is None or bound is None:
        raise sb.ClusterError(f"claim {ns}/{name}: selected={selected} bound={bound}")
    return bound - selected


def class_manifest(name, annotations):
    fast = sb.get(f"/apis/storage.k8s.io/v1/storageclasses/{sb.FAST}")
    base = fast["parameters"]["path"].rsplit("/", 1)[0]
    return {"apiVersion": "storage.k8s.io/v1", "kind": "StorageClass",
            "metadata": {"name": name, "labels": {"storagebench.io/test-cluster": "true"},
                         "annotations": annotations},
            "provisioner": sb.PROVISIONER,
            "parameters": {"path": f"{base}/{name}"},
            "reclaimPolicy": "Delete", "volumeBindingMode": "Immediate"}


@pytest.fixture
def test_class(cluster):
    made = []

    def make(name, annotations):
        sb.apply([class_manifest(name, annotations)])
        made.append(name)
        return name

    yield make
    for name in made:
        sb.delete("storageclass", name)


def consumer(name):
    return sb.simple_pod(f"use-{name}", ["write", "/data/hello", "hello"],
                         volumes=[{"name": "d", "persistentVolumeClaim": {"claimName": name}}],
                         mounts=[{"name": "d", "mountPath": "/data"}], run_as_user=65532)


def bind_time(ns, claim, cls):
    """Applies a claim of class cls and its consumer; selected-node -> Bound, seconds."""
    out = {}
    r = open_watch(ns, claim)  # open before the claim exists: every change of it is seen

    def w():
        try:
            out["t"] = claim_times(ns, claim, r)
        except Exception as e:  # noqa: BLE001 - reported below
            out["e"] = e

    t = threading.Thread(target=w)
    t.start()
    sb.apply([sb.pvc_manifest(claim, cls), consumer(claim)], namespace=ns)
    t.join(120)
    if "e" in out:
        raise out["e"]
    return out["t"]


def test_delayed_class_binds_no_sooner_than_its_delay(ns):
    # Only the lower bound: how much later than the delay a claim binds, or
    # whether the plain class binds sooner, depends on the machine's speed.
    delayed = bind_time(ns, "delayed", sb.FAST_DELAYED)
    bind_time(ns, "plain", sb.FAST)  # the same steps without the knob bind too
    assert delayed >= 0.5, f"bound {delayed:.3f}s after its node was picked, before the 500ms delay"
    pv = sb.get(f"/api/v1/persistentvolumes/{sb.pvc('delayed', ns)['spec']['volumeName']}")
    assert pv["spec"]["storageClassName"] == sb.FAST_DELAYED


def claim_events(ns, claim):
    evs = sb.get(f"/api/v1/namespaces/{ns}/events?fieldSelector=involvedObject.name={claim}")["items"]
    return [(e["reason"], e["message"]) for e in evs]


def test_failure_rate_one_keeps_failing_with_an_event(ns, test_class):
    cls = test_class(f"always-fails-{ns}", {ANN_RATE: "1"})
    sb.apply([sb.pvc_manifest("doomed", cls)], namespace=ns)
    evs = sb.wait_for(lambda: [m for r, m in claim_events(ns, "doomed")
                               if r == "ProvisioningFailed" and "attempt 2" in m], timeout=60,
                      what="a second injected failure")
    assert ANN_RATE in evs[0]
    assert sb.pvc("doomed", ns)["status"]["phase"] == "Pending"


def test_failure_rate_zero_and_bad_value(ns, test_class):
    ok = test_class(f"never-fails-{ns}", {ANN_RATE: "0", ANN_DELAY: "0s"})
    bad = test_class(f"bad-delay-{ns}", {ANN_DELAY: "soon"})
    sb.apply([sb.pvc_manifest("fine", ok), sb.pvc_manifest("refused", bad)], namespace=ns)
    sb.wait_pvc_bound("fine", ns)
    evs = sb.wait_for(lambda: [m for r, m in claim_events(ns, "refused") if r == "ProvisioningFailed"],
                      timeout=60, what="the refusal event")
    assert ANN_DELAY in evs[0] and "'soon' is not a duration" in evs[0], evs
    assert sb.pvc("refused", ns)["status"]["phase"] == "Pending"
    assert not [m for r, m in claim_events(ns, "fine") if r == "ProvisioningFailed"]
