#!/usr/bin/python3
"""faketime.py CONFIG.JSON OFFSET: preload libfaketime into the OCI
bundle's container process with a CLOCK_REALTIME offset (called by
runc-wrap.sh for `runc create` while a node has a clock fault).

OFFSET is signed seconds ("+3600", "-0.25"). The container gets the host's
libfaketime.so.1 (Debian's libfaketime) bind-mounted read-only at
/.sbfaketime/libfaketime.so.1, LD_PRELOAD naming it (before any preload of
the image's own), FAKETIME=OFFSET and DONT_FAKE_MONOTONIC=1: the process's
time(), gettimeofday() and clock_gettime(CLOCK_REALTIME) are shifted;
CLOCK_MONOTONIC and CLOCK_BOOTTIME are not (a real machine's offset shifts
only its wall clock), nor are statically linked programs, which do not
load preloads. The sandbox (pause) container is left as it is. The
annotation storagebench.test/faketime records the offset. Standard library
only; exit status 1 with the reason on stderr when the bundle cannot be
edited."""
import os
import re
import sys

import bundle

LIB = "/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1"
DEST = "/.sbfaketime/libfaketime.so.1"


def patch(cfg, offset):
    ann = cfg.setdefault("annotations", {})
    if ann.get("io.kubernetes.cri.container-type") == "sandbox":
        return False
    proc = cfg.setdefault("process", {})
    env = [e for e in proc.get("env") or [] if not e.startswith(("FAKETIME=", "DONT_FAKE_MONOTONIC="))]
    pre = [e[len("LD_PRELOAD="):] for e in env if e.startswith("LD_PRELOAD=")]
    env = [e for e in env if not e.startswith("LD_PRELOAD=")]
    env += [f"LD_PRELOAD={DEST}" + (":" + pre[0] if pre and pre[0] else ""), f"FAKETIME={offset}",
            "DONT_FAKE_MONOTONIC=1"]
    proc["env"] = env
    mounts = [m for m in cfg.get("mounts") or [] if m.get("destination") != DEST]
    mounts.append({"destination": DEST, "type": "bind", "source": LIB,
                   "options": ["rbind", "ro", "nosuid", "nodev"]})
    cfg["mounts"] = mounts
    ann["storagebench.test/faketime"] = offset
    return True


def main():
    if len(sys.argv) != 3 or not re.fullmatch(r"[+-][0-9]+(\.[0-9]+)?", sys.argv[2]):
        sys.exit(f"usage: faketime.py CONFIG.JSON [+-]SECONDS (got {sys.argv[1:]})")
    if not os.path.isfile(LIB):
        sys.exit(f"faketime.py: {LIB} missing (Debian's libfaketime is not installed)")
    bundle.edit(sys.argv[1], lambda cfg: patch(cfg, sys.argv[2]), "faketime")


if __name__ == "__main__":
    main()
