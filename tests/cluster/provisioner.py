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
  device, and the PV's `local.path` is that device. With class parameter
  `fsType: ext4` a Filesystem claim gets a real filesystem instead of a
  directory: a sparse file attached to a loop device as for Block, the PV a
  `local` volume on that device with that fsType (the kubelet formats and
  mounts it), so the volume fills up and writes fail with ENOSPC. The file
  is the claim's size, or parameter `fsSize` (a quantity) when given: a
  filesystem smaller than the claim says, for tests of what a full volume
  does that no check of the claim's size can foresee.
- for each of its PVs that is Released with reclaim policy Delete: the
  directory (or loop device and file) removed, then the PV deleted.
  Retain: left alone.

With --ceph-state (the test cluster's Ceph, SB_CEPH=1, tests/cluster/ceph),
it also serves classes with `provisioner: storagebench.io/ceph`, the way a
CSI driver would (no Ceph CSI driver is packaged; the kernel has no rbd,
nbd or ceph module, so everything goes through FUSE):

- parameter `type: rbd`, `pool: P`: an RBD image pvc-<uid> of the claim's
  size in pool P (client.k8srbd), exposed on the node the scheduler picked
  (WaitForFirstConsumer) by rbd-fuse (a directory under
  CEPH_STATE/mnt/rbd/) and a loop device (--direct-io=on, so the FUSE file
  has no second page cache); the PV is a `local` volume on that device
  (Filesystem: fsType ext4, the kubelet formats and mounts it; Block: the
  device) pinned to the node. Reclaim: loop device detached, rbd-fuse
  unmounted, image removed.
- parameter `type: cephfs` (`monitors`, `user`, `secretName`,
  `secretNamespace`): a directory /volumes/pvc-<uid> made through the
  provisioner's own ceph-fuse mount (CEPH_STATE/mnt/cephfs), mode 0777,
  with a quota (ceph.quota.max_bytes, honoured by ceph-fuse) of the
  claim's size; the PV is an in-tree `cephfs` volume (any node, the
  claim's access modes, ReadWriteMany included) that the kubelet mounts
  with ceph-fuse. Reclaim: the directory removed.

Every Ceph command runs here, inside the control plane's network
namespace, with the cluster's config (-c): never without one.

Test knobs per class, StorageClass annotations (mutable, unlike parameters),
so a measured provisioning latency can be checked against a known value:

- `storagebench.test/provision-delay: 500ms` (a duration: ms, s or m; a
  plain number is seconds): a claim of the class is provisioned no sooner
  than that long after the provisioner first saw it provisionable (pending,
  and with WaitForFirstConsumer its node picked). A lower bound: the PV
  is created and bound after it.
- `storagebench.test/provision-failure-rate: "0.25"` (0 to 1): that share of
  attempts fails with a ProvisioningFailed event naming the knob; the claim
  is tried again after the delay (at least 1 s). Which attempts fail is a
  function of the claim's uid and the attempt number, so a run repeats.
A bad value is refused with a ProvisioningFailed event naming the
annotation, and the claim stays Pending.

It lists and watches PVCs and PVs (a change triggers a pass over
everything; a full pass also runs every 5 s), so a claim binds within a
second or so. Talks to the API server with urllib + ssl and its own client
certificate (user storagebench:local-dir-provisioner, ClusterRole of the
same name). Logs one line per action on stderr. Standard library only.
"""
import argparse
import hashlib
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

import luks
from resizer import ANN_GROW_FS, Resizer
from snapshotter import META_RELEASED, Snapshotter

NAME = "storagebench.io/local-dir"
XFS_MIN = 300 * 2**20  # mkfs.xfs (xfsprogs 6.1) makes no smaller filesystem
ANN_SELECTED_NODE = "volume.kubernetes.io/selected-node"
ANN_PROVISIONED_BY = "pv.kubernetes.io/provisioned-by"
ANN_LOOP = "storagebench.io/loop-device"
ANN_BACKING = "storagebench.io/backing-path"
CEPH_NAME = "storagebench.io/ceph"
ANN_RBD_IMAGE = "storagebench.io/rbd-image"
ANN_RBD_MOUNT = "storagebench.io/rbd-fuse-dir"
ANN_CEPHFS_DIR = "storagebench.io/cephfs-dir"
ANN_DELAY = "storagebench.test/provision-delay"
ANN_FAILURE_RATE = "storagebench.test/provision-failure-rate"


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


_DUR = re.compile(r"^([0-9]+(?:\.[0-9]+)?)(ms|s|m)?$")


def duration_s(v):
    """Seconds of "500ms", "1.5s", "2m" or "3" (seconds)."""
    m = _DUR.match(str(v).strip())
    if not m:
        raise ValueError(f"'{v}' is not a duration (e.g. 500ms, 2s)")
    return float(m.group(1)) * {"ms": 0.001, "s": 1, "m": 60, None: 1}[m.group(2)]


def knobs(sc):
    """(delay in seconds, failure rate) of a class; ValueError naming the annotation."""
    ann = sc["metadata"].get("annotations") or {}
    try:
        delay = duration_s(ann.get(ANN_DELAY, "0"))
    except ValueError as e:
        raise ValueError(f"class {sc['metadata']['name']}: annotation {ANN_DELAY}: {e}") from None
    raw = ann.get(ANN_FAILURE_RATE, "0")
    try:
        rate = float(raw)
    except ValueError:
        rate = -1
    if not 0 <= rate <= 1:
        raise ValueError(f"class {sc['metadata']['name']}: annotation {ANN_FAILURE_RATE}: '{raw}' is not "
                         "a number from 0 to 1")
    return delay, rate


def injected_failure(uid, attempt, rate):
    """Whether attempt ATTEMPT on claim UID fails, at RATE (deterministic)."""
    h = int.from_bytes(hashlib.sha256(f"{uid}/{attempt}".encode()).digest()[:8], "big")
    return h / 2**64 < rate


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
    def __init__(self, api, allowed_roots, ceph_state=None, cluster_state=None):
        self.api = api
        self.ceph_state = os.path.realpath(ceph_state) if ceph_state else None
        self.resizer = Resizer(self, cluster_state)
        self.snapshotter = Snapshotter(self, CEPH_NAME)
        self.roots = [os.path.realpath(r) for r in allowed_roots]
        self.kick = threading.Event()
        self.warned = set()
        self.seen = {}  # claim uid -> monotonic time it was first provisionable (this attempt)
        self.attempts = {}  # claim uid -> injected failures so far
        self.armed = set()  # claim uids with a wake-up timer pending

    # --- helpers
    log = staticmethod(log)

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

    # --- test knobs: delay and injected failures
    def due(self, pvc, sc):
        """True when the class's delay has passed for this claim and the
        attempt is not one that fails; else arms a wake-up and says no."""
        uid = pvc["metadata"]["uid"]
        key = f"{pvc['metadata']['namespace']}/{pvc['metadata']['name']}"
        try:
            delay, rate = knobs(sc)
        except ValueError as e:
            if key not in self.warned:
                self.warned.add(key)
                log("refused", claim=key, reason=str(e))
                self.event(pvc, "Warning", "ProvisioningFailed", str(e))
            return False
        now = time.monotonic()
        first = self.seen.setdefault(uid, now)
        left = first + delay - now
        if left > 0:
            if uid not in self.armed:
                self.armed.add(uid)
                t = threading.Timer(left, self.wake, args=(uid,))
                t.daemon = True
                t.start()
            return False
        attempt = self.attempts.get(uid, 0)
        if rate > 0 and injected_failure(uid, attempt, rate):
            self.attempts[uid] = attempt + 1
            # the next attempt comes after the delay again (at least 1 s)
            self.seen[uid] = now + max(0.0, 1.0 - delay)
            msg = f"injected failure ({ANN_FAILURE_RATE}={rate:g}), attempt {attempt + 1}"
            log("failed", claim=key, reason=msg)
            self.event(pvc, "Warning", "ProvisioningFailed", msg)
            return False
        return True

    def wake(self, uid):
        self.armed.discard(uid)
        self.kick.set()

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
        params = sc.get("parameters") or {}
        fs_type = params.get("fsType", "") if mode == "Filesystem" else ""
        try:
            if fs_type not in ("", "ext4"):
                raise ValueError(f"parameter fsType '{fs_type}' is not ext4")
            if params.get("fsSize") and not fs_type:
                raise ValueError("parameter fsSize needs fsType: ext4")
            encryption = params.get("encryption", "")
            if encryption not in ("", "luks"):
                raise ValueError(f"parameter encryption '{encryption}' is not luks")
            if encryption and mode == "Filesystem" and not fs_type:
                raise ValueError("parameter encryption: luks needs fsType: ext4 (or Block claims)")
            # the loop file's size: the filesystem's (fsSize), else the claim's
            img_size = quantity_bytes(params["fsSize"]) if params.get("fsSize") else size
        except ValueError as e:
            if key not in self.warned:
                self.warned.add(key)
                msg = f"class {sc['metadata']['name']}: {e}"
                log("refused", claim=key, reason=msg)
                self.event(pvc, "Warning", "ProvisioningFailed", msg)
            return
        base = os.path.join(base, node)
        os.makedirs(base, exist_ok=True)
        ann = {ANN_PROVISIONED_BY: NAME}
        source = {}
        if mode == "Block" or fs_type:
            # Block: the device itself; fsType: a real filesystem of its own
            # size on it, which the kubelet formats and mounts
            losetup = ["losetup", "--find", "--show"]
            if encryption:
                # a LUKS container; the loop device on its decrypted view (luks.py)
                try:
                    lann, backing = luks.make(base, name, (img_size + 511) // 512 * 512)
                except (RuntimeError, OSError, subprocess.SubprocessError) as e:
                    log("luks failed", claim=key, error=str(e)[:300])
                    self.event(pvc, "Warning", "ProvisioningFailed", str(e)[:500])
                    return
                ann.update(lann)
                losetup.append("--direct-io=on")
            else:
                backing = os.path.join(base, name + ".img")
                with open(backing, "wb") as f:
                    f.truncate((img_size + 511) // 512 * 512)
            try:
                dev = subprocess.run(losetup + [backing], check=True,
                                     capture_output=True, text=True).stdout.strip()
            except subprocess.CalledProcessError as e:
                if encryption:
                    luks.release(ann)
                else:
                    os.unlink(backing)
                log("losetup failed", claim=key, error=e.stderr.strip())
                self.event(pvc, "Warning", "ProvisioningFailed", f"losetup: {e.stderr.strip()}")
                return
            path = dev
            ann[ANN_LOOP] = dev
            if fs_type:
                source["fsType"] = fs_type
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
                "local": dict(source, path=path),
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
        log("provisioned", claim=key, pv=name, node=node, mode=mode, path=path, size=size,
            **({"fs": f"{fs_type}:{img_size}"} if fs_type else {}))
        self.event(pvc, "Normal", "ProvisioningSucceeded", f"Successfully provisioned volume {name} at {path}")

    # --- Ceph (storagebench.io/ceph)
    def ceph(self, *args, user="k8srbd", extra_env=None):
        """Run a Ceph client command with the cluster's config; raises on failure."""
        conf = os.path.join(self.ceph_state, "ceph.conf")
        if not os.path.isfile(conf):
            raise RuntimeError(f"no Ceph config {conf}: is the cluster's Ceph up (SB_CEPH=1)?")
        env = dict(os.environ)
        env["CEPH_ARGS"] = f"--id {user}"
        env.update(extra_env or {})
        cmd = [args[0], "-c", conf] + list(args[1:])
        if args[0] == "rbd-fuse":
            # it daemonises: no pipe may stay open behind it
            with open(os.path.join(self.ceph_state, "log", "rbd-fuse.log"), "ab") as logf:
                rc = subprocess.run(cmd, cwd="/", env=env, stdin=subprocess.DEVNULL, stdout=logf, stderr=logf,
                                    timeout=120).returncode
            if rc != 0:
                raise RuntimeError(f"{' '.join(cmd)}: exit {rc} (see {self.ceph_state}/log/rbd-fuse.log)")
            return ""
        r = subprocess.run(cmd, cwd="/", env=env, capture_output=True, text=True, timeout=120)
        if r.returncode != 0:
            raise RuntimeError(f"{' '.join(cmd)}: exit {r.returncode}: {(r.stderr or r.stdout).strip()[-300:]}")
        return r.stdout

    def provision_ceph(self, pvc, sc, node):
        md, spec = pvc["metadata"], pvc["spec"]
        key = f"{md['namespace']}/{md['name']}"
        params = sc.get("parameters") or {}
        kind = params.get("type", "")
        name = "pvc-" + md["uid"]
        mode = spec.get("volumeMode") or "Filesystem"
        capacity = spec["resources"]["requests"]["storage"]
        pv_mount_options = None
        try:
            if not self.ceph_state:
                raise RuntimeError("the provisioner was started without --ceph-state")
            size = quantity_bytes(spec["resources"]["requests"]["storage"])
            if kind == "rbd":
                if mode not in ("Filesystem", "Block"):
                    raise ValueError(f"volumeMode '{mode}' is not Filesystem or Block")
                fs_type = params.get("fsType", "ext4")
                if fs_type not in ("ext4", "xfs"):
                    raise ValueError(f"class {sc['metadata']['name']}: parameter fsType '{fs_type}' is not ext4 "
                                     "or xfs")
                if mode == "Filesystem" and fs_type == "xfs" and size < XFS_MIN:
                    # mkfs.xfs refuses smaller devices: the volume is bigger than asked, as
                    # a cloud disk with a minimum size is
                    size = XFS_MIN
                    capacity = "300Mi"
                snap = self.restore_source(pvc) if spec.get("dataSource") else None
                ann, source = self.make_rbd(params.get("pool", ""), name, size, snap)
                ann[ANN_PROVISIONED_BY] = CEPH_NAME
                if mode == "Filesystem":
                    source["fsType"] = fs_type
                    if snap and snap[1] < size:
                        ann[ANN_GROW_FS] = "true"
                    if snap and fs_type == "xfs":
                        # a copy has its source's UUID, which XFS refuses to mount twice
                        pv_mount_options = ["nouuid"]
                extra = {"local": source, "nodeAffinity": {"required": {"nodeSelectorTerms": [{"matchExpressions": [
                    {"key": "kubernetes.io/hostname", "operator": "In", "values": [node]}]}]}}}
            elif kind == "cephfs":
                if mode != "Filesystem":
                    raise ValueError(f"volumeMode '{mode}': class type cephfs gives Filesystem volumes only")
                for p in ("monitors", "user", "secretName", "secretNamespace"):
                    if not params.get(p):
                        raise ValueError(f"class {sc['metadata']['name']}: parameter '{p}' is missing")
                d = os.path.join(self.ceph_state, "mnt", "cephfs", "volumes", name)
                if not os.path.ismount(os.path.join(self.ceph_state, "mnt", "cephfs")):
                    raise RuntimeError("the provisioner's CephFS mount is not there")
                os.makedirs(d, exist_ok=True)
                os.chmod(d, 0o777)
                os.setxattr(d, "ceph.quota.max_bytes", str(size).encode())
                ann = {ANN_PROVISIONED_BY: CEPH_NAME, ANN_CEPHFS_DIR: d}
                extra = {"cephfs": {"monitors": params["monitors"].split(","), "path": "/volumes/" + name,
                                    "user": params["user"],
                                    "secretRef": {"name": params["secretName"],
                                                  "namespace": params["secretNamespace"]}}}
            else:
                raise ValueError(f"class {sc['metadata']['name']}: parameter type '{kind}' is not rbd or cephfs")
        except (KeyError, ValueError, RuntimeError, OSError, subprocess.SubprocessError) as e:
            if key not in self.warned:
                self.warned.add(key)
                log("refused", claim=key, reason=str(e))
                self.event(pvc, "Warning", "ProvisioningFailed", str(e)[:500])
            return
        pv = {
            "apiVersion": "v1", "kind": "PersistentVolume",
            "metadata": {"name": name, "annotations": ann, "labels": {"storagebench.io/ceph": "true"}},
            "spec": {
                "capacity": {"storage": capacity},
                "accessModes": spec.get("accessModes") or ["ReadWriteOnce"],
                "persistentVolumeReclaimPolicy": sc.get("reclaimPolicy") or "Delete",
                "storageClassName": sc["metadata"]["name"],
                "volumeMode": mode,
                "claimRef": {"apiVersion": "v1", "kind": "PersistentVolumeClaim", "namespace": md["namespace"],
                             "name": md["name"], "uid": md["uid"]},
                **extra,
            },
        }
        if sc.get("mountOptions") or pv_mount_options:
            pv["spec"]["mountOptions"] = (sc.get("mountOptions") or []) + (pv_mount_options or [])
        code, obj = self.api.call("POST", "/api/v1/persistentvolumes", pv)
        if code == 409:
            return
        if code != 201:
            log("creating PV failed", claim=key, pv=name, code=code, message=obj.get("message", ""))
            self.release_ceph(ann)
            self.event(pvc, "Warning", "ProvisioningFailed", f"creating PV {name}: {obj.get('message', code)}")
            return
        log("provisioned", claim=key, pv=name, node=node or "-", type=kind, mode=mode, size=size)
        self.event(pvc, "Normal", "ProvisioningSucceeded", f"Successfully provisioned {kind} volume {name}")

    def restore_source(self, pvc):
        """(snapshot handle, restore size) of the claim's dataSource, a
        VolumeSnapshot of ours that is ready; ValueError naming what is wrong."""
        ds = pvc["spec"]["dataSource"]
        if ds.get("kind") != "VolumeSnapshot" or ds.get("apiGroup") != "snapshot.storage.k8s.io":
            raise ValueError(f"dataSource {ds.get('apiGroup')}/{ds.get('kind')}: only VolumeSnapshot "
                             "(snapshot.storage.k8s.io) is supported")
        ns = pvc["metadata"]["namespace"]
        code, vs = self.api.call("GET", f"/apis/snapshot.storage.k8s.io/v1/namespaces/{ns}/volumesnapshots/"
                                 f"{ds.get('name', '')}")
        st = (vs.get("status") or {}) if code == 200 else {}
        if not st.get("readyToUse") or not st.get("boundVolumeSnapshotContentName"):
            raise RuntimeError(f"VolumeSnapshot {ns}/{ds.get('name')} is not ready to use (yet)")
        code, vsc = self.api.call("GET", "/apis/snapshot.storage.k8s.io/v1/volumesnapshotcontents/"
                                  f"{st['boundVolumeSnapshotContentName']}")
        cst = (vsc.get("status") or {}) if code == 200 else {}
        if code != 200 or vsc["spec"].get("driver") != CEPH_NAME or not cst.get("snapshotHandle"):
            raise RuntimeError(f"VolumeSnapshot {ns}/{ds.get('name')}: its content is not a snapshot of "
                               f"driver {CEPH_NAME}")
        size = int(cst["restoreSize"])
        want = quantity_bytes(pvc["spec"]["resources"]["requests"]["storage"])
        if want < size:
            raise ValueError(f"the claim asks for {want} bytes, less than the snapshot's restoreSize {size}")
        return cst["snapshotHandle"], size

    def make_rbd(self, pool, name, size, snap=None):
        """An image of SIZE bytes (whole MiB, rounded up) in POOL on a loop
        device, a copy of snapshot snap (handle, size) when given; returns
        (annotations, local volume source)."""
        if pool not in ("rbd-ssd", "rbd-bulk"):
            raise ValueError(f"parameter pool '{pool}' is not rbd-ssd or rbd-bulk")
        mib = max(1, (size + 2**20 - 1) // 2**20)
        image = f"{pool}/{name}"
        ann = {ANN_RBD_IMAGE: image}
        if snap:
            # a full copy: the new volume does not depend on the snapshot or its image
            self.ceph("rbd", "cp", "--no-progress", snap[0], image)
            if mib * 2**20 > snap[1]:
                self.ceph("rbd", "resize", "--no-progress", "--size", f"{mib}M", image)
        else:
            self.ceph("rbd", "create", image, "--size", f"{mib}M", "--image-feature", "layering")
        try:
            d = os.path.join(self.ceph_state, "mnt", "rbd", name)
            os.makedirs(d, exist_ok=True)
            ann[ANN_RBD_MOUNT] = d
            # rbd-fuse has no --id: CEPH_ARGS; it daemonises once mounted
            self.ceph("rbd-fuse", "-p", pool, "-r", name, d, extra_env={"CEPH_ARGS": "--id k8srbd --rbd_cache=false"})
            f = os.path.join(d, name)
            for _ in range(100):
                if os.path.exists(f):
                    break
                time.sleep(0.1)
            else:
                raise RuntimeError(f"rbd-fuse: {f} did not appear")
            r = subprocess.run(["losetup", "--find", "--show", "--direct-io=on", f], capture_output=True, text=True)
            if r.returncode != 0:
                raise RuntimeError(f"losetup {f}: {r.stderr.strip()}")
            ann[ANN_LOOP] = r.stdout.strip()
            ann[ANN_BACKING] = f
            return ann, {"path": ann[ANN_LOOP]}
        except Exception:
            self.release_ceph(ann)
            raise

    def release_ceph(self, ann):
        """Undo make_rbd / the CephFS directory; True when all of it is gone."""
        ok = True
        dev, backing, d = ann.get(ANN_LOOP, ""), ann.get(ANN_BACKING, ""), ann.get(ANN_RBD_MOUNT, "")
        under = (lambda p: p.startswith(self.ceph_state + "/")) if self.ceph_state else (lambda p: False)
        if dev and backing and not self.detach(dev, backing):
            ok = False
        if d and under(d):
            if os.path.ismount(d) and subprocess.run(["umount", d], capture_output=True).returncode != 0:
                ok = False
            else:
                try:
                    os.rmdir(d)
                except OSError:
                    pass
        image = ann.get(ANN_RBD_IMAGE, "")
        if image and ok and self.has_snapshots(image):
            # kept for its snapshots, removed with the last of them (snapshotter.py)
            self.ceph("rbd", "image-meta", "set", image, META_RELEASED, "true")
            image = ""
        if image and ok:
            for _ in range(20):
                try:
                    self.ceph("rbd", "rm", "--no-progress", image)
                    break
                except RuntimeError as e:
                    if "No such file" in str(e) or "(2)" in str(e):
                        break
                    # the rbd-fuse that had it open may still hold its watch
                    time.sleep(0.5)
            else:
                ok = False
        cdir = ann.get(ANN_CEPHFS_DIR, "")
        if cdir and under(cdir) and "/mnt/cephfs/volumes/" in cdir:
            shutil.rmtree(cdir, ignore_errors=True)
            ok = ok and not os.path.exists(cdir)
        return ok

    def has_snapshots(self, image):
        try:
            return bool(json.loads(self.ceph("rbd", "snap", "ls", image, "--format", "json") or "[]"))
        except RuntimeError as e:
            if "No such file" in str(e) or "(2)" in str(e):
                return False
            raise

    def remove_released_image(self, image):
        """Removes image when its claim is gone and it has no snapshot left."""
        try:
            released = self.ceph("rbd", "image-meta", "get", image, META_RELEASED).strip() == "true"
        except RuntimeError:
            return
        if released and not self.has_snapshots(image):
            self.ceph("rbd", "rm", "--no-progress", image)
            log("removed a released image", image=image)

    def grow_backing(self, pv, want):
        """The volume of PV (one of ours) grown to want bytes, its loop device
        told; RuntimeError when this kind of volume cannot grow."""
        ann = pv["metadata"].get("annotations") or {}
        dev = ann.get(ANN_LOOP, "")
        if ann.get(ANN_RBD_IMAGE):
            mib = (want + 2**20 - 1) // 2**20
            self.ceph("rbd", "resize", "--no-progress", "--size", f"{mib}M", ann[ANN_RBD_IMAGE])
        elif dev and ann.get(ANN_BACKING) and not ann.get(luks.ANN_LUKS) and self.allowed(ann[ANN_BACKING]):
            with open(ann[ANN_BACKING], "r+b") as f:
                f.truncate((want + 511) // 512 * 512)
        else:
            raise RuntimeError(f"volume {pv['metadata']['name']} cannot be expanded (not an RBD image or a "
                               "loop-backed file)")
        if dev:
            r = subprocess.run(["losetup", "-c", dev], capture_output=True, text=True)
            if r.returncode != 0:
                raise RuntimeError(f"losetup -c {dev}: {r.stderr.strip()}")

    @staticmethod
    def loop_backs(dev, backing):
        """True while loop device dev is attached to the file backing."""
        out = subprocess.run(["losetup", "-n", "-O", "BACK-FILE", dev], capture_output=True, text=True).stdout
        return out.strip().replace(" (deleted)", "") == backing

    def detach(self, dev, backing):
        """Detaches loop device dev from backing; True once it no longer backs
        it. A device still open (the kubelet unmounts a volume's filesystem on
        its own time, after the claim is gone) is only marked to detach when
        last closed (autoclear): it is False then, and the file stays until a
        later pass sees the device gone."""
        if not self.loop_backs(dev, backing):
            return True
        subprocess.run(["losetup", "-d", dev], capture_output=True)
        return not self.loop_backs(dev, backing)

    def release_backing(self, ann):
        """Removes a local volume's file or directory (after detaching its loop
        device): True when released, False when not ours, None while its loop
        device is still in use (retried next pass)."""
        backing, dev = ann.get(ANN_BACKING, ""), ann.get(ANN_LOOP, "")
        if not backing or not self.allowed(backing):
            return False
        if dev and not self.detach(dev, backing):
            return None
        if ann.get(luks.ANN_LUKS):
            return luks.release(ann)
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
        if ann.get(ANN_PROVISIONED_BY) == CEPH_NAME:
            if not self.release_ceph(ann):
                log("releasing failed, retrying next pass", pv=md["name"])
                return
        elif self.release_backing(ann) is None:
            log("loop device still in use, retrying next pass", pv=md["name"], loop=ann.get(ANN_LOOP, ""))
            return
        code, obj = self.api.call("DELETE", f"/api/v1/persistentvolumes/{md['name']}")
        if code in (200, 202, 404):
            log("deleted", pv=md["name"], path=ann.get(ANN_BACKING, ""))
        else:
            log("deleting PV failed", pv=md["name"], code=code, message=obj.get("message", ""))

    # --- the level-triggered pass
    def reconcile(self):
        scs = {sc["metadata"]["name"]: sc for sc in self.api.list("/apis/storage.k8s.io/v1/storageclasses")["items"]
               if sc.get("provisioner") in (NAME, CEPH_NAME)}
        pvs = self.api.list("/api/v1/persistentvolumes")["items"]
        pvnames = {pv["metadata"]["name"] for pv in pvs}
        nodes = None
        pending = set()
        pvcs = self.api.list("/api/v1/persistentvolumeclaims")["items"]
        for pvc in pvcs:
            md, spec = pvc["metadata"], pvc["spec"]
            if (pvc.get("status") or {}).get("phase") != "Pending" or spec.get("volumeName"):
                continue
            pending.add(md["uid"])
            if md.get("deletionTimestamp"):
                continue
            cls = spec.get("storageClassName") or (md.get("annotations") or {}).get(
                "volume.beta.kubernetes.io/storage-class")
            sc = scs.get(cls)
            if not sc or "pvc-" + md["uid"] in pvnames:
                continue
            if sc.get("provisioner") == CEPH_NAME and (sc.get("parameters") or {}).get("type") == "cephfs":
                if self.due(pvc, sc):
                    self.provision_ceph(pvc, sc, None)
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
            if not self.due(pvc, sc):
                continue
            if sc.get("provisioner") == CEPH_NAME:
                self.provision_ceph(pvc, sc, node)
            else:
                self.provision(pvc, sc, node)
            # the next claim's pick sees this one (the PV list is re-read next pass)
            pvs = self.api.list("/api/v1/persistentvolumes")["items"]
        for d in (self.seen, self.attempts):
            for uid in [u for u in d if u not in pending]:
                del d[uid]
        for pv in pvs:
            ann = pv["metadata"].get("annotations") or {}
            if ann.get(ANN_PROVISIONED_BY) not in (NAME, CEPH_NAME) or pv["metadata"].get("deletionTimestamp"):
                continue
            if (pv.get("status") or {}).get("phase") in ("Released", "Failed"):
                self.reclaim(pv)
        ours = [pv for pv in pvs if (pv["metadata"].get("annotations") or {}).get(ANN_PROVISIONED_BY)
                in (NAME, CEPH_NAME)]
        self.resizer.run(pvcs, ours, scs, quantity_bytes)
        if self.ceph_state and os.path.isfile(os.path.join(self.ceph_state, "ceph.conf")):
            self.snapshotter.run(pvcs, ours, scs)

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
                if ": 404 " in str(e):  # an API not installed (yet): the snapshot CRDs
                    time.sleep(5)
                    continue
                log("watch restarting", path=path, error=repr(e)[:200])
                time.sleep(1)

    def run(self):
        for path in ("/api/v1/persistentvolumeclaims", "/api/v1/persistentvolumes",
                     "/apis/snapshot.storage.k8s.io/v1/volumesnapshots",
                     "/apis/snapshot.storage.k8s.io/v1/volumesnapshotcontents"):
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
    ap.add_argument("--cluster-state", default=None,
                    help="the test cluster's state directory (run/node-X.pid: the nodes' mount namespaces)")
    ap.add_argument("--ceph-state", default=None,
                    help="the test cluster's Ceph state directory (ceph.conf, mnt/): serve storagebench.io/ceph")
    a = ap.parse_args()
    roots = a.allowed_root or ["/dev/shm/storagebench-cluster", "/var/tmp/storagebench-cluster"]
    Provisioner(Api(a.server, a.ca, a.cert, a.key), roots, a.ceph_state, a.cluster_state).run()


if __name__ == "__main__":
    main()
