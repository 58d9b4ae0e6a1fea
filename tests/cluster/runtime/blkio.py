#!/usr/bin/python3
"""blkio.py CONFIG.JSON FAULTFILE: a read-IOPS limit on a pod's container
(called by runc-wrap.sh for `runc create` while a node has a read-iops
fault): the test world's "slower storage class", a real block-layer
throttle outside the workload's own options.

FAULTFILE holds one line "NAMESPACE MAJOR:MINOR IOPS": containers of pods in
NAMESPACE (the CRI annotation io.kubernetes.cri.sandbox-namespace) get
linux.resources.blockIO.throttleReadIOPSDevice for that device, which runc
writes to the container's blkio.throttle.read_iops_device (cgroup v1: the
limit applies to the container's own cgroup, so it is set there, not on a
parent). Other namespaces' containers and every sandbox are left as they
are, so tests beside it are not slowed. The annotation
storagebench.test/read-iops records the limit. Standard library only; exit
status 1 with the reason on stderr when the bundle cannot be edited."""
import re
import sys

import bundle


def patch(cfg, ns, major, minor, iops):
    ann = cfg.setdefault("annotations", {})
    if ann.get("io.kubernetes.cri.container-type") == "sandbox":
        return False
    if ann.get("io.kubernetes.cri.sandbox-namespace") != ns:
        return False
    bio = cfg.setdefault("linux", {}).setdefault("resources", {}).setdefault("blockIO", {})
    rules = [r for r in bio.get("throttleReadIOPSDevice") or []
             if (r.get("major"), r.get("minor")) != (major, minor)]
    rules.append({"major": major, "minor": minor, "rate": iops})
    bio["throttleReadIOPSDevice"] = rules
    ann["storagebench.test/read-iops"] = f"{major}:{minor} {iops}"
    return True


def main():
    if len(sys.argv) != 3:
        sys.exit(f"usage: blkio.py CONFIG.JSON FAULTFILE (got {sys.argv[1:]})")
    try:
        with open(sys.argv[2]) as f:
            line = f.read().strip()
    except OSError as e:
        sys.exit(f"blkio.py: {e}")
    m = re.fullmatch(r"(\S+) ([0-9]+):([0-9]+) ([0-9]+)", line)
    if not m:
        sys.exit(f"blkio.py: {sys.argv[2]}: '{line}' is not 'NAMESPACE MAJOR:MINOR IOPS'")
    ns, major, minor, iops = m.group(1), int(m.group(2)), int(m.group(3)), int(m.group(4))
    bundle.edit(sys.argv[1], lambda cfg: patch(cfg, ns, major, minor, iops), "blkio")


if __name__ == "__main__":
    main()
