"""snapshotter.py: the VolumeSnapshot API (snapshot.storage.k8s.io/v1, the
CRDs in manifests/snapshot-crds.yaml) for the test cluster's RBD classes:
what the snapshot-controller and the csi-snapshotter sidecar do for a CSI
driver, done by the provisioner (tests/cluster/provisioner.py) for its
driver storagebench.io/ceph.

A VolumeSnapshot of a claim of an RBD class (its class, or the default
VolumeSnapshotClass of driver storagebench.io/ceph):
  - the finalizer snapshot.storage.kubernetes.io/volumesnapshot-bound-protection
  - a VolumeSnapshotContent snapcontent-<snapshot uid> (driver, the class's
    deletionPolicy, source.volumeHandle = the RBD image, volumeSnapshotRef,
    finalizer ...volumesnapshotcontent-bound-protection)
  - the RBD snapshot <pool>/<image>@snapshot-<snapshot uid> (`rbd snap
    create`; librbd tells the image's rbd-fuse, which keeps writing
    copy-on-write from then on)
  - the content's status (snapshotHandle, creationTime in ns, restoreSize in
    bytes, readyToUse), then the snapshot's (boundVolumeSnapshotContentName,
    creationTime, restoreSize, readyToUse); events CreatingSnapshot,
    SnapshotCreated, SnapshotReady
A snapshot that cannot be taken gets status.error and readyToUse false
(event SnapshotCreationFailed); the next pass tries again.

Deleting the VolumeSnapshot: its content deleted (deletionPolicy Delete), the
RBD snapshot removed, the content's finalizer then the snapshot's dropped.
Retain keeps the content and the RBD snapshot. An image whose claim is gone
while snapshots of it remain is kept (image-meta storagebench.io/released)
and removed with its last snapshot.

Restoring (a claim whose dataSource is a VolumeSnapshot) is the
provisioner's: see Provisioner.make_rbd.
"""
import json
import time

GROUP = "/apis/snapshot.storage.k8s.io/v1"
FIN_VS = "snapshot.storage.kubernetes.io/volumesnapshot-bound-protection"
FIN_VSC = "snapshot.storage.kubernetes.io/volumesnapshotcontent-bound-protection"
ANN_DEFAULT = "snapshot.storage.kubernetes.io/is-default-class"
META_RELEASED = "storagebench.io/released"


def rfc3339(ns):
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(ns / 1e9))


class Snapshotter:
    def __init__(self, prov, driver):
        self.p = prov
        self.driver = driver
        self.available = True

    # --- API helpers
    def list(self, path):
        code, obj = self.p.api.call("GET", GROUP + path)
        if code == 404:
            return None
        if code != 200:
            raise RuntimeError(f"GET {GROUP}{path}: {code} {obj.get('message', '')}")
        return obj["items"]

    def patch(self, path, body, status=False):
        return self.p.api.call("PATCH", GROUP + path + ("/status" if status else ""), body,
                               ctype="application/merge-patch+json")

    def vs_event(self, vs, etype, reason, msg):
        md = vs["metadata"]
        ev = {"apiVersion": "v1", "kind": "Event",
              "metadata": {"generateName": md["name"] + ".", "namespace": md["namespace"]},
              "involvedObject": {"apiVersion": "snapshot.storage.k8s.io/v1", "kind": "VolumeSnapshot",
                                 "name": md["name"], "namespace": md["namespace"], "uid": md["uid"]},
              "reason": reason, "message": msg, "type": etype, "source": {"component": self.driver},
              "firstTimestamp": rfc3339(time.time_ns()), "lastTimestamp": rfc3339(time.time_ns()), "count": 1}
        self.p.api.call("POST", f"/api/v1/namespaces/{md['namespace']}/events", ev)

    # --- the pass
    def run(self, pvcs, pvs, scs):
        classes = self.list("/volumesnapshotclasses")
        if classes is None:
            self.available = False
            return
        self.available = True
        classes = {c["metadata"]["name"]: c for c in classes if c.get("driver") == self.driver}
        contents = {c["metadata"]["name"]: c for c in self.list("/volumesnapshotcontents")
                    if (c.get("spec") or {}).get("driver") == self.driver}
        snaps = self.list("/volumesnapshots")
        pvc_by = {(c["metadata"]["namespace"], c["metadata"]["name"]): c for c in pvcs}
        pv_by = {pv["metadata"]["name"]: pv for pv in pvs}
        live = set()
        for vs in snaps:
            try:
                name = self.snapshot(vs, classes, contents, pvc_by, pv_by, scs)
                if name:
                    live.add(name)
            except RuntimeError as e:
                self.p.log("snapshot pass failed", snapshot=vs["metadata"]["name"], error=str(e)[:300])
        for name, vsc in contents.items():
            try:
                self.content(vsc, name in live)
            except RuntimeError as e:
                self.p.log("snapshot content pass failed", content=name, error=str(e)[:300])

    def default_class(self, classes):
        d = [c for c in classes.values() if (c["metadata"].get("annotations") or {}).get(ANN_DEFAULT) == "true"]
        return d[0] if len(d) == 1 else None

    def snapshot(self, vs, classes, contents, pvc_by, pv_by, scs):
        """One VolumeSnapshot; returns its content's name when it is ours and live."""
        md, spec = vs["metadata"], vs.get("spec") or {}
        ns = md["namespace"]
        src = (spec.get("source") or {}).get("persistentVolumeClaimName")
        cname = "snapcontent-" + md["uid"]
        path = f"/namespaces/{ns}/volumesnapshots/{md['name']}"
        if md.get("deletionTimestamp"):
            if FIN_VS not in (md.get("finalizers") or []):
                return None
            vsc = contents.get(cname)
            if vsc and vsc["spec"].get("deletionPolicy") == "Delete":
                if not vsc["metadata"].get("deletionTimestamp"):
                    self.p.api.call("DELETE", f"{GROUP}/volumesnapshotcontents/{cname}")
                return None  # the finalizer goes once the content is gone
            self.patch(path, {"metadata": {"finalizers": [f for f in md["finalizers"] if f != FIN_VS]}})
            return None
        pvc = pvc_by.get((ns, src)) if src else None
        cls_name = spec.get("volumeSnapshotClassName")
        cls = classes.get(cls_name) if cls_name else None
        if not cls_name and pvc:
            sc = scs.get(pvc["spec"].get("storageClassName") or "")
            if sc and sc.get("provisioner") == self.driver:
                cls = self.default_class(classes)
        if not cls:
            return None  # another driver's (or no class of ours)
        if not src:
            return self.fail(vs, "pre-provisioned snapshots (source.volumeSnapshotContentName) are not "
                             "supported by the test cluster's snapshotter")
        pv = pv_by.get((pvc or {}).get("spec", {}).get("volumeName") or "")
        image = ((pv or {}).get("metadata", {}).get("annotations") or {}).get("storagebench.io/rbd-image")
        if not pvc or (pvc.get("status") or {}).get("phase") != "Bound" or not image:
            return self.fail(vs, f"claim {src} is not a bound RBD volume of driver {self.driver}")
        if FIN_VS not in (md.get("finalizers") or []):
            self.patch(path, {"metadata": {"finalizers": (md.get("finalizers") or []) + [FIN_VS]}})
        vsc = contents.get(cname)
        if not vsc:
            vsc = self.create_content(vs, cls, cname, image, pv)
        st = vsc.get("status") or {}
        if not st.get("readyToUse"):
            self.vs_event(vs, "Normal", "CreatingSnapshot", f"Waiting for a snapshot {ns}/{md['name']} to be "
                          f"created by the CSI driver.")
            handle = f"{image}@snapshot-{md['uid']}"
            try:
                self.p.ceph("rbd", "snap", "create", handle)
            except RuntimeError as e:
                if "File exists" not in str(e) and "(17)" not in str(e):
                    return self.fail(vs, f"rbd snap create {handle}: {e}")
            info = json.loads(self.p.ceph("rbd", "info", handle, "--format", "json"))
            created = time.time_ns()
            st = {"snapshotHandle": handle, "creationTime": created, "restoreSize": int(info["size"]),
                  "readyToUse": True}
            code, obj = self.patch(f"/volumesnapshotcontents/{cname}", {"status": st}, status=True)
            if code != 200:
                raise RuntimeError(f"content {cname} status: {obj.get('message', code)}")
            self.vs_event(vs, "Normal", "SnapshotCreated", f"Snapshot {ns}/{md['name']} was successfully created "
                          "by the CSI driver.")
        vst = vs.get("status") or {}
        if not vst.get("readyToUse") or vst.get("boundVolumeSnapshotContentName") != cname:
            code, obj = self.patch(path, {"status": {
                "boundVolumeSnapshotContentName": cname, "creationTime": rfc3339(st["creationTime"]),
                "restoreSize": str(st["restoreSize"]), "readyToUse": True, "error": None}}, status=True)
            if code != 200:
                raise RuntimeError(f"snapshot {ns}/{md['name']} status: {obj.get('message', code)}")
            self.vs_event(vs, "Normal", "SnapshotReady", f"Snapshot {ns}/{md['name']} is ready to use.")
            self.p.log("snapshot ready", snapshot=f"{ns}/{md['name']}", handle=st["snapshotHandle"],
                       size=st["restoreSize"])
        return cname

    def fail(self, vs, msg):
        md = vs["metadata"]
        err = (vs.get("status") or {}).get("error") or {}
        if err.get("message") != msg:
            self.patch(f"/namespaces/{md['namespace']}/volumesnapshots/{md['name']}",
                       {"status": {"readyToUse": False, "error": {"message": msg, "time": rfc3339(time.time_ns())}}},
                       status=True)
            self.vs_event(vs, "Warning", "SnapshotCreationFailed", msg)
        return None

    def create_content(self, vs, cls, cname, image, pv):
        md = vs["metadata"]
        body = {"apiVersion": "snapshot.storage.k8s.io/v1", "kind": "VolumeSnapshotContent",
                "metadata": {"name": cname, "finalizers": [FIN_VSC]},
                "spec": {"deletionPolicy": cls.get("deletionPolicy") or "Delete", "driver": self.driver,
                         "source": {"volumeHandle": image}, "volumeSnapshotClassName": cls["metadata"]["name"],
                         "sourceVolumeMode": pv["spec"].get("volumeMode") or "Filesystem",
                         "volumeSnapshotRef": {"apiVersion": "snapshot.storage.k8s.io/v1", "kind": "VolumeSnapshot",
                                               "name": md["name"], "namespace": md["namespace"],
                                               "uid": md["uid"]}}}
        code, obj = self.p.api.call("POST", f"{GROUP}/volumesnapshotcontents", body)
        if code == 409:
            code, obj = self.p.api.call("GET", f"{GROUP}/volumesnapshotcontents/{cname}")
        if code not in (200, 201):
            raise RuntimeError(f"creating content {cname}: {obj.get('message', code)}")
        return obj

    def content(self, vsc, live):
        md, spec = vsc["metadata"], vsc["spec"]
        name = md["name"]
        if md.get("deletionTimestamp"):
            if FIN_VSC not in (md.get("finalizers") or []):
                return
            handle = (vsc.get("status") or {}).get("snapshotHandle")
            if handle and spec.get("deletionPolicy") == "Delete":
                self.remove_snapshot(handle)
            self.patch(f"/volumesnapshotcontents/{name}",
                       {"metadata": {"finalizers": [f for f in md["finalizers"] if f != FIN_VSC]}})
            self.p.log("snapshot deleted", content=name, handle=handle or "-")
            return
        ref = spec.get("volumeSnapshotRef") or {}
        if not live and spec.get("deletionPolicy") == "Delete" and ref.get("namespace"):
            code, vs = self.p.api.call("GET", f"{GROUP}/namespaces/{ref['namespace']}/volumesnapshots/"
                                       f"{ref.get('name', '')}")
            if code == 404 or (code == 200 and vs["metadata"]["uid"] != ref.get("uid")):
                self.p.api.call("DELETE", f"{GROUP}/volumesnapshotcontents/{name}")

    def remove_snapshot(self, handle):
        try:
            self.p.ceph("rbd", "snap", "rm", "--no-progress", handle)
        except RuntimeError as e:
            if "No such file" not in str(e) and "(2)" not in str(e):
                raise
        image = handle.split("@", 1)[0]
        self.p.remove_released_image(image)
