#!/usr/bin/python3
"""provisioner.py: the test cluster's local-directory provisioner
(provisioner name storagebench.io/local-dir). Test infrastructure, the one
part of the cluster that is ours and not Kubernetes'.

Node-aware, the way local-path-provisioner is: the test cluster's nodes
share the machine's file system, and each node's volumes live in its own
subdirectory of the class's path. A StorageClass with `provisioner:
storagebench.io/local-dir` and parameter `path: /some/host/dir` (under
one of the --allowed-root directories) gets:

- for each pending PVC of the class, a PersistentVolume `pvc-<claim uid>`
  pre-bound to the claim: a `local` volume with node affinity
  (kubernetes.io/hostname) to one node. With WaitForFirstConsumer that is
  the node the scheduler picked for the consumer
  (`volume.kubernetes.io/selected-node`, set once it has one); with
  Immediate, the provisioner picks the Ready node holding the fewest of
  its volumes (ties by name). Filesystem mode: the directory
  PATH/<node>/pvc-<uid> (mode 0777). Block mode: a sparse file
  PATH/<node>/pvc-<uid>.img of the requested size attached to a loop
  device, and the PV's `local.path` is that device.
- for each of its PVs that is Released with reclaim policy Delete: the
  directory (or loop device and file) removed, then the PV deleted.
  Retain: left alone.

It lists and watches PVCs and PVs (a change triggers a pass over
everything; a full pass also runs every 5 s), so a claim binds within a
second or so. Talks to the API server with urllib + ssl and its own client
certificate (user storagebench:local-dir-provisioner, ClusterRole of the
same name). Logs one line per action on stderr. Standard library only.
"""
import argparse
import json
import os
import re
import shutil
import ssl
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.parse
import urllib.request

NAME = "storagebench.io/local-dir"
ANN_SELECTED_NODE = "volume.kubernetes.io/selected-node"
ANN_PROVISIONED_BY = "pv.kubernetes.io/provisioned-by"
ANN_LOOP = "storagebench.io/loop-device"
ANN_BACKING = "storagebench.io/backing-path"


def log(msg, **kv):
    fields = " ".join(f"{k}={v}" for k, v in kv.items())
    print(f"{time.strftime('%H:%M:%S')} provisioner: {msg} {fields}".rstrip(), file=sys.stderr, flush=True)


_QTY = re.compile(r"^([0-9.]+)([eE][0-9]+|Ki|Mi|Gi|Ti|Pi|Ei|k|M|G|T|P|E|m)?$")
_MULT = {None: 1, "k": 10**3, "M": 10**6, "G": 10**9, "T": 10**12, "P": 10**15, "E": 10**18,
         "Ki": 2**10, "Mi": 2**20, "Gi": 2**30, "Ti": 2**40, "Pi": 2**50, "Ei": 2**60}


def quantity_bytes(q):
    """Bytes of a Kubernetes quantity ("1Gi", "500M", "1e9", "1500m")."""
    m = _QTY.match(str(q).strip())
    if not m:
        raise ValueError(f"bad quantity '{q}'")
    num, suf = float(m.group(1)), m.group(2)
    if suf == "m":
        return int(num / 1000 + 0.999999)
    if suf and suf[0] in "eE":
        return int(num * 10 ** int(suf[1:]))
    return int(num * _MULT[suf])


class Api:
    """A minimal Kubernetes API client over urllib."""

    def __init__(self, server, ca, cert, key):
        self.server = server.rstrip("/")
        self.ctx = ssl.create_default_context(cafile=ca)
        self.ctx.load_cert_chain(cert, key)

    def call(self, method, path, body=None, ctype="application/json", timeout=30):
        data = json.dumps(body).encode() if body is not None else None
        req = urllib.request.Request(self.server + path, data=data, method=method)
        req.add_header("Accept", "application/json")
        if data is not None:
            req.add_header("Content-Type", ctype)
        try:
            with urllib.request.urlopen(req, context=self.ctx, timeout=timeout) as r:
                return r.status, json.loads(r.read() or b"{}")
        except urllib.error.HTTPError as e:
            try:
                return e.code, json.loads(e.read() or b"{}")
            except ValueError:
                return e.code, {}

    def list(self, path):
        code, obj = self.call("GET", path)
        if code != 200:
            raise RuntimeError(f"GET {path}: {code} {obj.get('message', '')}")
        return obj

    def watch(self, path, rv):
        """Yield watch events until the server ends the stream."""
        q = urllib.parse.urlencode({"watch": "1", "resourceVersion": rv, "timeoutSeconds": "240",
                                    "allowWatchBookmarks": "true"})
        req = urllib.request.Request(f"{self.server}{path}?{q}")
        with urllib.request.urlopen(req, context=self.ctx, timeout=300) as r:
            while True:
                line = r.readline()
                if not line:
                    return
                yield json.loads(line)


class Provisioner:
    def __init__(self, api, allowed_roots):
        self.api = api
        self.roots = [os.path.realpath(r) for r in allowed_roots]
        self.kick = threading.Event()
        self.warned = set()

    # --- helpers
    def allowed(self, path):
        rp = os.path.realpath(path)
        return any(rp == r or rp.startswith(r + "/") for r in self.roots)

    def event(self, pvc, etype, reason, message):
        md = pvc["metadata"]
        ev = {
            "apiVersion": "v1", "kind": "Event",
            "metadata": {"generateName": md["name"] + ".", "namespace": md["namespace"]},
            "involvedObject": {"apiVersion": "v1", "kind": "PersistentVolumeClaim", "name": md["name"],
                               "namespace": md["namespace"], "uid": md["uid"],
                               "resourceVersion": md.get("resourceVersion", "")},
            "reason": reason, "message": message, "type": etype,
            "source": {"component": NAME},
            "firstTimestamp": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
            "lastTimestamp": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
            "count": 1,
        }
        self.api.call("POST", f"/api/v1/namespaces/{md['namespace']}/events", ev)

    # --- the node of a volume
    @staticmethod
    def ready(node):
        conds = (node.get("status") or {}).get("conditions") or []
        return any(c.get("type") == "Ready" and c.get("status") == "True" for c in conds)

    @staticmethod
    def pv_node(pv):
        """The node a PV of ours is pinned to (its nodeAffinity), or None."""
        try:
            for t in pv["spec"]["nodeAffinity"]["required"]["nodeSelectorTerms"]:
                for e in t.get("matchExpressions") or []:
                    if e.get("key") == "kubernetes.io/hostname" and e.get("operator") == "In" and e.get("values"):
                        return e["values"][0]
        except (KeyError, TypeError):
            pass
        return None

    def pick_node(self, nodes, pvs):
        """For an Immediate class: the Ready node with the fewest of our PVs."""
        ready = sorted(n["metadata"]["name"] for n in nodes if self.ready(n))
        if not ready:
            return None
        count = {n: 0 for n in ready}
        for pv in pvs:
            n = self.pv_node(pv)
            if n in count and (pv["metadata"].get("annotations") or {}).get(ANN_PROVISIONED_BY) == NAME:
                count[n] += 1
        return min(ready, key=lambda n: (count[n], n))

    # --- provisioning
    def provision(self, pvc, sc, node):
        md, spec = pvc["metadata"], pvc["spec"]
        key = f"{md['namespace']}/{md['name']}"
        base = (sc.get("parameters") or {}).get("path", "")
        if not base or not os.path.isabs(base) or not self.allowed(base):
            if key not in self.warned:
                self.warned.add(key)
                msg = f"class {sc['metadata']['name']}: parameter path '{base}' is not under {self.roots}"
                log("refused", claim=key, reason=msg)
                self.event(pvc, "Warning", "ProvisioningFailed", msg)
            return
        try:
            size = quantity_bytes(spec["resources"]["requests"]["storage"])
        except (KeyError, ValueError) as e:
            log("refused", claim=key, reason=f"bad storage request: {e}")
            return
        name = "pvc-" + md["uid"]
        mode = spec.get("volumeMode") or "Filesystem"
        base = os.path.join(base, node)
        os.makedirs(base, exist_ok=True)
        ann = {ANN_PROVISIONED_BY: NAME}
        if mode == "Block":
            backing = os.path.join(base, name + ".img")
            with open(backing, "wb") as f:
                f.truncate((size + 511) // 512 * 512)
            try:
                dev = subprocess.run(["losetup", "--find", "--show", backing], check=True,
                                     capture_output=True, text=True).stdout.strip()
            except subprocess.CalledProcessError as e:
                os.unlink(backing)
                log("losetup failed", claim=key, error=e.stderr.strip())
                self.event(pvc, "Warning", "ProvisioningFailed", f"losetup: {e.stderr.strip()}")
                return
            path = dev
            ann[ANN_LOOP] = dev
        else:
            backing = os.path.join(base, name)
            os.makedirs(backing, exist_ok=True)
            os.chmod(backing, 0o777)
            path = backing
        ann[ANN_BACKING] = backing
        pv = {
            "apiVersion": "v1", "kind": "PersistentVolume",
            "metadata": {"name": name, "annotations": ann, "labels": {"storagebench.io/local-dir": "true"}},
            "spec": {
                "capacity": {"storage": spec["resources"]["requests"]["storage"]},
                "accessModes": spec.get("accessModes") or ["ReadWriteOnce"],
                "persistentVolumeReclaimPolicy": sc.get("reclaimPolicy") or "Delete",
                "storageClassName": sc["metadata"]["name"],
                "volumeMode": mode,
                "mountOptions": sc.get("mountOptions") or None,
                "local": {"path": path},
                "nodeAffinity": {"required": {"nodeSelectorTerms": [{"matchExpressions": [
                    {"key": "kubernetes.io/hostname", "operator": "In", "values": [node]}]}]}},
                "claimRef": {"apiVersion": "v1", "kind": "PersistentVolumeClaim", "namespace": md["namespace"],
                             "name": md["name"], "uid": md["uid"]},
            },
        }
        if pv["spec"]["mountOptions"] is None:
            del pv["spec"]["mountOptions"]
        code, obj = self.api.call("POST", "/api/v1/persistentvolumes", pv)
        if code == 409:
            return
        if code != 201:
            log("creating PV failed", claim=key, pv=name, code=code, message=obj.get("message", ""))
            self.release_backing(ann)
            self.event(pvc, "Warning", "ProvisioningFailed", f"creating PV {name}: {obj.get('message', code)}")
            return
        log("provisioned", claim=key, pv=name, node=node, mode=mode, path=path, size=size)
        self.event(pvc, "Normal", "ProvisioningSucceeded", f"Successfully provisioned volume {name} at {path}")

    def release_backing(self, ann):
        backing, dev = ann.get(ANN_BACKING, ""), ann.get(ANN_LOOP, "")
        if not backing or not self.allowed(backing):
            return False
        if dev:
            out = subprocess.run(["losetup", "-n", "-O", "BACK-FILE", dev], capture_output=True, text=True).stdout
            if out.strip().replace(" (deleted)", "") == backing:
                subprocess.run(["losetup", "-d", dev], capture_output=True)
        if os.path.isdir(backing) and not os.path.islink(backing):
            shutil.rmtree(backing, ignore_errors=True)
        elif os.path.lexists(backing):
            os.unlink(backing)
        return True

    def reclaim(self, pv):
        md = pv["metadata"]
        ann = md.get("annotations") or {}
        if pv["spec"].get("persistentVolumeReclaimPolicy") != "Delete":
            return
        self.release_backing(ann)
        code, obj = self.api.call("DELETE", f"/api/v1/persistentvolumes/{md['name']}")
        if code in (200, 202, 404):
            log("deleted", pv=md["name"], path=ann.get(ANN_BACKING, ""))
        else:
            log("deleting PV failed", pv=md["name"], code=code, message=obj.get("message", ""))

    # --- the level-triggered pass
    def reconcile(self):
        scs = {sc["metadata"]["name"]: sc for sc in self.api.list("/apis/storage.k8s.io/v1/storageclasses")["items"]
               if sc.get("provisioner") == NAME}
        pvs = self.api.list("/api/v1/persistentvolumes")["items"]
        pvnames = {pv["metadata"]["name"] for pv in pvs}
        nodes = None
        for pvc in self.api.list("/api/v1/persistentvolumeclaims")["items"]:
            md, spec = pvc["metadata"], pvc["spec"]
            if (pvc.get("status") or {}).get("phase") != "Pending" or spec.get("volumeName"):
                continue
            if md.get("deletionTimestamp"):
                continue
            cls = spec.get("storageClassName") or (md.get("annotations") or {}).get(
                "volume.beta.kubernetes.io/storage-class")
            sc = scs.get(cls)
            if not sc or "pvc-" + md["uid"] in pvnames:
                continue
            if nodes is None:
                nodes = self.api.list("/api/v1/nodes")["items"]
            if sc.get("volumeBindingMode") == "WaitForFirstConsumer":
                node = (md.get("annotations") or {}).get(ANN_SELECTED_NODE)
                if not node or node not in {n["metadata"]["name"] for n in nodes}:
                    continue
            else:
                node = self.pick_node(nodes, pvs)
                if node is None:
                    continue
            self.provision(pvc, sc, node)
            # the next claim's pick sees this one (the PV list is re-read next pass)
            pvs = self.api.list("/api/v1/persistentvolumes")["items"]
        for pv in pvs:
            ann = pv["metadata"].get("annotations") or {}
            if ann.get(ANN_PROVISIONED_BY) != NAME or pv["metadata"].get("deletionTimestamp"):
                continue
            if (pv.get("status") or {}).get("phase") in ("Released", "Failed"):
                self.reclaim(pv)

    def watcher(self, path):
        while True:
            try:
                rv = self.api.list(path)["metadata"]["resourceVersion"]
                self.kick.set()
                for ev in self.api.watch(path, rv):
                    if ev.get("type") == "ERROR":
                        break
                    if ev.get("type") != "BOOKMARK":
                        self.kick.set()
            except Exception as e:  # noqa: BLE001 - keep watching whatever happened
                log("watch restarting", path=path, error=repr(e)[:200])
                time.sleep(1)

    def run(self):
        for path in ("/api/v1/persistentvolumeclaims", "/api/v1/persistentvolumes"):
            threading.Thread(target=self.watcher, args=(path,), daemon=True).start()
        log("started", roots=",".join(self.roots))
        while True:
            self.kick.wait(5)
            self.kick.clear()
            try:
                self.reconcile()
            except Exception as e:  # noqa: BLE001 - the next pass retries
                log("pass failed", error=repr(e)[:300])
                time.sleep(1)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--server", required=True)
    ap.add_argument("--ca", required=True)
    ap.add_argument("--cert", required=True)
    ap.add_argument("--key", required=True)
    ap.add_argument("--allowed-root", action="append",
                    default=None, help="directories class paths must be under (repeatable)")
    a = ap.parse_args()
    roots = a.allowed_root or ["/dev/shm/storagebench-cluster", "/var/tmp/storagebench-cluster"]
    Provisioner(Api(a.server, a.ca, a.cert, a.key), roots).run()


if __name__ == "__main__":
    main()
