"""The image: the Dockerfile's promises (static checks), scripts/build-image.sh
lint, and, when `make image` has been run (build/image/*.oci.tar exists),
the archive imported into the test cluster and run as a restricted pod."""
import io
import json
import os
import re
import subprocess
import tarfile
import tempfile
import uuid

import pytest

from conftest import ROOT, VERSION, sb

ARCHIVE = os.path.join(ROOT, "build", "image", f"storagebench-{VERSION}.oci.tar")
RUNTIME_LIBS = ["libcurl4", "libjansson4", "libyaml-0-2", "libssl3", "liburing2", "libmicrohttpd12",
                "ca-certificates",
                "tzdata"]  # the zone files of BenchmarkSchedule timeZone (lib/time/tz.c)


def dockerfile():
    with open(os.path.join(ROOT, "Dockerfile")) as f:
        return f.read()


def test_dockerfile_is_multi_stage_debian_slim_non_root():
    text = dockerfile()
    froms = re.findall(r"^FROM\s+(\S+)(?:\s+AS\s+(\S+))?", text, re.M)
    assert len(froms) == 2 and froms[0][1] == "build", froms
    assert re.search(r"^ARG DEBIAN_IMAGE=debian:12-slim$", text, re.M)
    runtime = text.split("\nFROM ${DEBIAN_IMAGE}\n", 1)[1]
    installed = re.search(r"apt-get install -y --no-install-recommends\s+([^&]+)&&", runtime).group(1).split()
    installed = [p for p in installed if p != "\\"]
    assert sorted(installed) == sorted(RUNTIME_LIBS)  # runtime libraries only, no -dev, no compiler
    assert "COPY --from=build /src/bin/ /usr/local/bin/" in runtime
    assert re.search(r"^USER 65532:65532$", runtime, re.M)
    assert "latest" not in text


def test_build_image_script_passes_shellcheck():
    p = subprocess.run(["shellcheck", os.path.join(ROOT, "scripts", "build-image.sh")],
                       capture_output=True, text=True)
    assert p.returncode == 0, p.stdout + p.stderr


def test_build_image_installs_the_same_runtime_packages_as_the_dockerfile():
    with open(os.path.join(ROOT, "scripts", "build-image.sh")) as f:
        script = f.read()
    pkgs = re.search(r"^RUNTIME_PKGS=(\S+)$", script, re.M).group(1).split(",")
    assert sorted(pkgs) == sorted(RUNTIME_LIBS)
    assert "--variant=minbase" in script and "/var/cache/storagebench/image" in script


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


def test_make_image_archive_runs_in_the_cluster():
    if not os.path.exists(ARCHIVE):
        pytest.skip(f"{os.path.relpath(ARCHIVE, ROOT)} not built (make image; about 4 minutes the first time)")
    sb.require_cluster()
    with tarfile.open(ARCHIVE) as t:
        idx = json.load(t.extractfile("index.json"))
        man = json.load(t.extractfile("blobs/sha256/" + idx["manifests"][0]["digest"].split(":")[1]))
        cfg = json.load(t.extractfile("blobs/sha256/" + man["config"]["digest"].split(":")[1]))
    assert idx["manifests"][0]["annotations"]["io.containerd.image.name"] == f"localhost/storagebench:{VERSION}"
    assert cfg["config"]["User"] == "65532:65532"
    name = f"localhost/storagebench-debian-test:{uuid.uuid4().hex[:6]}"
    with tempfile.TemporaryDirectory() as d:
        tmp = os.path.join(d, "image.tar")
        renamed_archive(ARCHIVE, tmp, name)
        sb.ctr("images", "import", tmp, node=sb.NODE)
    try:
        with sb.namespace("sbchart-img") as ns:
            script = ("storagebench-controller --version && storagebench-runner --version && id -u && "
                      "storagebench-runner --name=t --rw=randrw --bs=4k --size=8m --runtime=1s --time_based "
                      "--direct=1 --directory=/scratch --output-format=json >/scratch/out.json && "
                      "grep -c '\"jobname\"' /scratch/out.json")
            pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "img"},
                   "spec": {"restartPolicy": "Never", "automountServiceAccountToken": False,
                            # the archive is imported into the first node's containerd
                            "nodeSelector": {"kubernetes.io/hostname": sb.NODE},
                            "securityContext": {"runAsNonRoot": True, "seccompProfile": {"type": "RuntimeDefault"}},
                            "volumes": [{"name": "scratch", "emptyDir": {}}],
                            "containers": [{"name": "c", "image": name, "imagePullPolicy": "Never",
                                            "command": ["/bin/sh", "-c", script],
                                            "volumeMounts": [{"name": "scratch", "mountPath": "/scratch"}],
                                            "securityContext": {"allowPrivilegeEscalation": False,
                                                                "readOnlyRootFilesystem": True,
                                                                "capabilities": {"drop": ["ALL"]}}}]}}
            sb.apply(pod, namespace=ns)
            p = sb.wait_pod_done("img", ns, timeout=120)
            out = sb.logs("img", ns)
            assert sb.exit_code(p) == 0, out
            lines = out.split()
            assert f"storagebench-controller {VERSION}".split() == lines[0:2]
            assert "65532" in lines and lines[-1] == "1"
    finally:
        sb.ctr("images", "rm", name, check=False, node=sb.NODE)
