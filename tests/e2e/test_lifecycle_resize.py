"""spec.lifecycle's resize against a class that allows expansion: the test
cluster's ssd-xfs (tests/cluster/resizer.py grows the RBD image, the loop
device and the mounted xfs through the real API). The resize sample the
controller reports is recomputed here from a watch of the claim of our
own: from the event carrying the doubled request to the one carrying the
doubled capacity, through Resizing and FileSystemResizePending in that
order. Needs the cluster's Ceph (SB_CEPH=1)."""
import json
import os
import ssl
import threading
import time
import urllib.request

import pytest

from conftest import sb, small, wait_phase

SIZE = 320 * 2**20
LIFECYCLE = "  lifecycle: {iterations: 1, volumes: 1, concurrent: 0, size: 320Mi}\n"


def watch_events(path, seen, stop, kind=None, ready=None):
    """Appends (receipt time, event type, object[, kind]) for every event of
    the API path's watch (e.g. /api/v1/namespaces/NS/persistentvolumeclaims)
    until stop is set: an independent observer of what the controller times.
    ready (a threading.Event), when given, is set once the watch is open."""
    req = urllib.request.Request(f"{sb.API_URL}{path}?watch=1&timeoutSeconds=1800")
    req.add_header("Authorization", "Bearer " + sb.admin_token())
    with urllib.request.urlopen(req, context=ssl.create_default_context(cafile=sb.CA_CERT), timeout=1900) as r:
        if ready:
            ready.set()
        while not stop.is_set():
            line = r.readline()
            if not line:
                return
            ev = json.loads(line)
            seen.append((time.monotonic(), ev["type"], ev["object"]) + ((kind,) if kind else ()))


def field(obj, *path):
    """obj[path[0]][path[1]]..., None where a key is missing."""
    for p in path:
        obj = (obj or {}).get(p)
    return obj


def test_lifecycle_resize_is_measured_on_an_expandable_class(ns, controller):
    if not os.path.exists(os.path.join(sb.OUT, "ceph.env")):
        pytest.skip("the cluster runs without Ceph (SB_CEPH=1 make cluster-up)")
    seen, stop = [], threading.Event()
    t = threading.Thread(target=watch_events, args=(f"/api/v1/namespaces/{ns}/persistentvolumeclaims", seen, stop),
                         daemon=True)
    t.start()
    sb.apply(small("lcx", classes=("ssd-xfs",), iterations=1, extra=LIFECYCLE), namespace=ns)
    st = wait_phase(ns, "lcx", timeout=600)
    stop.set()
    assert st["phase"] == "Succeeded", (st, controller.log[-3000:])
    report = json.loads(sb.kubectl_json("-n", ns, "get", "configmap", "lcx-report")["data"]["report.json"])
    rows = {e["phase"]: e for e in report["lifecycle"] if e["target"] == "ssd-xfs"}
    assert rows["resize"]["n"] == 1 and "skipped" not in rows["resize"], rows["resize"]
    sample = rows["resize"]["samples"][0] / 1e9

    # the same resize as our own watch saw it
    q = field
    asked = next(t for t, _, o in seen
                 if q(o, "spec", "resources", "requests", "storage") in (str(2 * SIZE), "640Mi"))
    done = next(t for t, _, o in seen
                if t >= asked and q(o, "status", "capacity", "storage") in (str(2 * SIZE), "640Mi"))
    conds = [c["type"] for t, _, o in seen if asked <= t <= done for c in (q(o, "status", "conditions") or [])]
    assert "Resizing" in conds and "FileSystemResizePending" in conds, conds
    assert conds.index("Resizing") < conds.index("FileSystemResizePending")
    ours = done - asked
    # the controller starts its clock just before its patch, we at its event
    assert ours <= sample + 1.0 and sample <= ours + 5.0, (sample, ours)
