"""resizer.py: volume expansion for the test cluster's provisioner
(tests/cluster/provisioner.py), for classes with allowVolumeExpansion: true
(`ssd-xfs`): what the external-resizer sidecar and the kubelet do for a CSI
driver, through the real API.

The API server's admission lets a bound claim of such a class ask for more;
kube-controller-manager's expand controller finds no in-tree plugin for the
`local` PV and leaves the claim to an external resizer (its ExternalExpanding
event). Then, per claim whose request exceeds its PV's capacity:

  controller part (external-resizer): condition Resizing; the volume grown
  (RBD: `rbd resize`; a loop-backed file: truncate), the loop device told
  (`losetup -c`); the PV's spec.capacity set to the request; Filesystem:
  condition FileSystemResizePending ("Waiting for user to (re-)start a pod
  to finish file system resize of volume on node."), Block: done.
  node part (kubelet): once the volume is mounted on its node (in that
  node's mount namespace) the filesystem grown online (xfs_growfs); then the
  claim's status.capacity set to the PV's and the conditions dropped.

Events on the claim as those components post them: Resizing,
FileSystemResizeRequired, FileSystemResizeSuccessful, VolumeResizeSuccessful,
VolumeResizeFailed. ext4 cannot be grown online here (EXT4_IOC_RESIZE_FS
needs CAP_SYS_RESOURCE, which this machine's root lacks): expandable classes
use xfs, whose growfs needs CAP_SYS_ADMIN only. A PV annotated
storagebench.io/grow-fs (a volume restored from a smaller snapshot) gets its
filesystem grown the same way at its first mount.
"""
import datetime
import os
import subprocess

ANN_GROW_FS = "storagebench.io/grow-fs"
FS_PENDING_MSG = "Waiting for user to (re-)start a pod to finish file system resize of volume on node."


def now_rfc3339():
    return datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def condition(kind, message=""):
    c = {"type": kind, "status": "True", "lastProbeTime": None, "lastTransitionTime": now_rfc3339()}
    if message:
        c["message"] = message
    return c


def mount_of(holder_pid, dev):
    """Where dev is mounted in the mount namespace of holder_pid (a node's), or None."""
    try:
        with open(f"/proc/{holder_pid}/mountinfo") as f:
            for line in f:
                left, _, right = line.partition(" - ")
                fields = right.split()
                if len(fields) >= 2 and fields[1] == dev:
                    return left.split()[4]
    except OSError:
        pass
    return None


class Resizer:
    def __init__(self, prov, cluster_state):
        self.p = prov
        self.state = cluster_state

    def holder(self, node):
        """The pid of the holder of node's mount namespace (node-X of up.sh)."""
        if not self.state or not node or "-" not in node:
            return None
        try:
            with open(os.path.join(self.state, "run", f"node-{node.rsplit('-', 1)[1]}.pid")) as f:
                return int(f.read().strip())
        except (OSError, ValueError):
            return None

    def patch_status(self, pvc, status):
        md = pvc["metadata"]
        return self.p.api.call("PATCH", f"/api/v1/namespaces/{md['namespace']}/persistentvolumeclaims/{md['name']}"
                               "/status", {"status": status}, ctype="application/merge-patch+json")

    def run(self, pvcs, pvs, scs, quantity_bytes):
        """One pass over the bound claims of expandable classes."""
        byname = {pv["metadata"]["name"]: pv for pv in pvs}
        for pvc in pvcs:
            spec, st = pvc["spec"], pvc.get("status") or {}
            sc = scs.get(spec.get("storageClassName") or "")
            pv = byname.get(spec.get("volumeName") or "")
            if st.get("phase") != "Bound" or not sc or not pv or pv["metadata"].get("deletionTimestamp"):
                continue
            ann = pv["metadata"].get("annotations") or {}
            try:
                want = quantity_bytes(spec["resources"]["requests"]["storage"])
                cap = quantity_bytes(pv["spec"]["capacity"]["storage"])
            except (KeyError, ValueError):
                continue
            pending = any(c.get("type") == "FileSystemResizePending" for c in st.get("conditions") or [])
            try:
                if want > cap and sc.get("allowVolumeExpansion"):
                    self.controller_expand(pvc, pv, spec["resources"]["requests"]["storage"], want)
                elif pending or ann.get(ANN_GROW_FS):
                    self.node_expand(pvc, pv)
            except (RuntimeError, OSError, subprocess.SubprocessError) as e:
                self.p.event(pvc, "Warning", "VolumeResizeFailed", str(e)[:500])

    def controller_expand(self, pvc, pv, quantity, want):
        md = pvc["metadata"]
        self.patch_status(pvc, {"conditions": [condition("Resizing")]})
        self.p.event(pvc, "Normal", "Resizing", f"External resizer is resizing volume {pv['metadata']['name']}")
        self.p.grow_backing(pv, want)
        code, obj = self.p.api.call("PATCH", f"/api/v1/persistentvolumes/{pv['metadata']['name']}",
                                    {"spec": {"capacity": {"storage": quantity}}},
                                    ctype="application/merge-patch+json")
        if code != 200:
            raise RuntimeError(f"updating PV {pv['metadata']['name']}'s capacity: {obj.get('message', code)}")
        pv = obj
        key = f"{md['namespace']}/{md['name']}"
        if (pv["spec"].get("volumeMode") or "Filesystem") == "Block":
            self.patch_status(pvc, {"capacity": {"storage": quantity}, "conditions": None})
            self.p.event(pvc, "Normal", "VolumeResizeSuccessful", "Resize volume succeeded")
            self.p.log("resized", claim=key, size=want, mode="Block")
            return
        self.patch_status(pvc, {"conditions": [condition("FileSystemResizePending", FS_PENDING_MSG)]})
        self.p.event(pvc, "Normal", "FileSystemResizeRequired", "Require file system resize of volume on node")
        self.p.log("resized the volume, the filesystem next", claim=key, size=want)
        self.node_expand(pvc, pv)

    def node_expand(self, pvc, pv):
        md = pvc["metadata"]
        ann = pv["metadata"].get("annotations") or {}
        dev = (pv["spec"].get("local") or {}).get("path", "")
        fs = (pv["spec"].get("local") or {}).get("fsType", "")
        holder = self.holder(self.p.pv_node(pv))
        mnt = mount_of(holder, dev) if holder and dev.startswith("/dev/loop") else None
        if not mnt:
            return  # as the kubelet: at the volume's next mount
        enter = ["nsenter", f"--mount=/proc/{holder}/ns/mnt", "--"]
        if fs == "xfs":
            cmd = enter + ["xfs_growfs", mnt]
        elif fs == "ext4":
            cmd = enter + ["resize2fs", dev]
        else:
            raise RuntimeError(f"volume {pv['metadata']['name']}: cannot grow a filesystem of type '{fs}'")
        r = subprocess.run(cmd, capture_output=True, text=True, cwd="/", timeout=120)
        if r.returncode != 0:
            raise RuntimeError(f"MountVolume.NodeExpandVolume failed for volume {pv['metadata']['name']}: "
                               f"{' '.join(cmd[3:])}: {(r.stderr or r.stdout).strip()[-300:]}")
        if ann.get(ANN_GROW_FS):
            self.p.api.call("PATCH", f"/api/v1/persistentvolumes/{pv['metadata']['name']}",
                            {"metadata": {"annotations": {ANN_GROW_FS: None}}}, ctype="application/merge-patch+json")
        self.patch_status(pvc, {"capacity": {"storage": pv["spec"]["capacity"]["storage"]}, "conditions": None})
        self.p.event(pvc, "Normal", "FileSystemResizeSuccessful",
                     f"MountVolume.NodeExpandVolume succeeded for volume {pv['metadata']['name']}")
        self.p.log("resized the filesystem", claim=f"{md['namespace']}/{md['name']}",
                   size=pv["spec"]["capacity"]["storage"], mount=mnt)
