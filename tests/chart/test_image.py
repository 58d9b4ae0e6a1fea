"""The image `make image` builds (build/image/storagebench-<VERSION>.oci.tar,
scripts/build-image.sh; its files, size and Dockerfile are checked by the
image suite, tests/image) imported into the test cluster under a name of
its own and run as a restricted pod: non-root from the image's user,
read-only root filesystem, no capabilities, RuntimeDefault seccomp. The
image has no shell, so each program is its own container."""
import io
import json
import os
import tarfile
import tempfile
import uuid

import pytest

from conftest import ROOT, VERSION, sb

ARCHIVE = os.path.join(ROOT, "build", "image", f"storagebench-{VERSION}.oci.tar")


def renamed_archive(src, dst, name):
    """A copy of the OCI archive whose image is called `name` (so that the
    import does not replace the cluster's own localhost/storagebench)."""
    with tarfile.open(src) as tin, tarfile.open(dst, "w") as tout:
        for m in tin:
            data = tin.extractfile(m).read() if m.isreg() else None
            if m.name == "index.json":
                idx = json.loads(data)
                for man in idx["manifests"]:
                    man["annotations"]["io.containerd.image.name"] = name
                    man["annotations"]["org.opencontainers.image.ref.name"] = name.rsplit(":", 1)[1]
                data = json.dumps(idx, sort_keys=True).encode()
                m.size = len(data)
            tout.addfile(m, io.BytesIO(data) if data is not None else None)


def restricted(name, image, args):
    return {"name": name, "image": image, "imagePullPolicy": "Never", "args": args,
            "volumeMounts": [{"name": "scratch", "mountPath": "/scratch"}],
            "securityContext": {"allowPrivilegeEscalation": False, "readOnlyRootFilesystem": True,
                                "capabilities": {"drop": ["ALL"]}}}


def test_make_image_archive_runs_in_the_cluster():
    if not os.path.exists(ARCHIVE):
        pytest.skip(f"{os.path.relpath(ARCHIVE, ROOT)} not built (make image; the image suite builds it)")
    sb.require_cluster()
    name = f"localhost/storagebench-image-test:{uuid.uuid4().hex[:6]}"
    with tempfile.TemporaryDirectory() as d:
        tmp = os.path.join(d, "image.tar")
        renamed_archive(ARCHIVE, tmp, name)
        sb.ctr("images", "import", tmp, node=sb.NODE)
    try:
        with sb.namespace("sbchart-img") as ns:
            job = ["--name=t", "--rw=randrw", "--bs=4k", "--size=8m", "--runtime=1s", "--time_based",
                   "--direct=1", "--directory=/scratch", "--output-format=json"]
            ctl = restricted("controller", name, ["--version"])
            ctl["command"] = ["/usr/local/bin/storagebench-controller"]
            ver = restricted("runner-version", name, ["--version"])
            ver["command"] = ["/usr/local/bin/storagebench-runner"]
            run = restricted("runner", name, job)
            run["command"] = ["/usr/local/bin/storagebench-runner"]
            pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "img"},
                   "spec": {"restartPolicy": "Never", "automountServiceAccountToken": False,
                            # the archive is imported into the first node's containerd
                            "nodeSelector": {"kubernetes.io/hostname": sb.NODE},
                            # no runAsUser: the image's own user (65532), which runAsNonRoot checks
                            "securityContext": {"runAsNonRoot": True, "seccompProfile": {"type": "RuntimeDefault"}},
                            "volumes": [{"name": "scratch", "emptyDir": {}}],
                            "initContainers": [ctl, ver], "containers": [run]}}
            sb.apply(pod, namespace=ns)
            p = sb.wait_pod_done("img", ns, timeout=120)
            out = sb.logs("img", ns, container="runner")
            assert p["status"]["phase"] == "Succeeded" and sb.exit_code(p, "runner") == 0, out
            assert sb.logs("img", ns, container="controller").startswith(f"storagebench-controller {VERSION}\n")
            assert sb.logs("img", ns, container="runner-version") == f"storagebench-runner {VERSION}\n"
            res = json.loads(out[out.index("{\n"):])  # after the runner's log lines (stderr)
            assert [j["jobname"] for j in res["jobs"]] == ["t"]
            assert res["jobs"][0]["read"]["io_bytes"] > 0 and res["jobs"][0]["write"]["io_bytes"] > 0
    finally:
        sb.ctr("images", "rm", name, check=False, node=sb.NODE)
