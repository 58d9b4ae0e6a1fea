"""The documentation of issue 6: docs/benchmarkrun.md is generated from the
CRD and does not drift; the hand-written pages keep the commands and the
topics users look for; their local links resolve."""
import os
import re
import subprocess
import tempfile

import pytest
import yaml

from conftest import CRD, ROOT

GEN = os.path.join(ROOT, "scripts", "gen-crd-docs.py")
DOCS = os.path.join(ROOT, "docs")
PAGES = ["getting-started.md", "benchmarkrun.md", "architecture.md", "troubleshooting.md", "security.md"]


def read(name):
    with open(os.path.join(DOCS, name)) as f:
        return f.read()


def test_benchmarkrun_md_is_generated_from_the_crd():
    p = subprocess.run(["/usr/bin/python3", GEN, "--check"], capture_output=True, text=True)
    assert p.returncode == 0, "docs/benchmarkrun.md is out of date (make crd-docs):\n" + p.stdout[-3000:]


def test_the_drift_check_fails_on_a_stale_page():
    text = read("benchmarkrun.md").replace("How many times every workload runs", "How often workloads run")
    with tempfile.NamedTemporaryFile("w", suffix=".md") as f:
        f.write(text)
        f.flush()
        p = subprocess.run(["/usr/bin/python3", GEN, "--check", f"--file={f.name}"], capture_output=True, text=True)
    assert p.returncode == 1
    assert "+| `iterations`" in p.stdout and "make crd-docs" in p.stderr


def schema_paths(s, path=""):
    """Every (section, field) of the CRD schema, as the page names them."""
    out = []
    if s.get("type") == "array":
        return schema_paths(s.get("items", {}), path + "[]")
    for name, sub in (s.get("properties") or {}).items():
        if not path and name in ("apiVersion", "kind", "metadata"):
            continue
        out.append((path, name, sub))
        out += schema_paths(sub, f"{path}.{name}" if path else name)
    return out


def test_benchmarkrun_md_has_every_field_with_its_description_and_default():
    with open(CRD) as f:
        schema = yaml.safe_load(f)["spec"]["versions"][0]["schema"]["openAPIV3Schema"]
    page = read("benchmarkrun.md")
    sections = dict(re.findall(r"^### `([^`]+)`\n(.*?)(?=^### |^## |\Z)", page, re.M | re.S))
    missing = []
    for section, name, sub in schema_paths(schema):
        if section == "":
            if f"### `{name}`" not in page:
                missing.append(name)
            continue
        rows = [r for r in sections.get(section, "").splitlines() if r.startswith(f"| `{name}` |")]
        if len(rows) != 1:
            missing.append(f"{section}.{name}")
            continue
        cells = [c.strip() for c in re.split(r"(?<!\\)\|", rows[0])[1:-1]]
        desc = " ".join(str(sub.get("description", "")).split())
        if desc and desc.replace("|", "\\|") not in cells[4]:
            missing.append(f"{section}.{name}: description")
        if not cells[4]:
            missing.append(f"{section}.{name}: no description at all")
        if "default" in sub and str(sub["default"]).lower() not in cells[2].lower() and sub["default"] != {}:
            missing.append(f"{section}.{name}: default")
    assert missing == []
    for ex in sorted(os.listdir(os.path.join(ROOT, "manifests", "examples"))):
        assert f"### `manifests/examples/{ex}`" in page


@pytest.mark.parametrize("page,needles", [
    ("getting-started.md", [
        "helm install storagebench charts/storagebench", "kubectl apply -f manifests/install.yaml",
        "make image", "docker build", "kubectl get br", "kubectl wait --for=condition=Succeeded br/",
        "-o jsonpath='{.data.report\\.txt}'", "kubectl apply -f charts/storagebench/crds/",
        "never upgrades", "helm uninstall", "seccomp-iouring.json", "restricted", "watchNamespaces"]),
    ("troubleshooting.md", [
        "Pending", "WaitForFirstConsumer", "VolumeBindTimeout", "psync (fallback)", "io_uring",
        "ENOSPC", "half", "timeouts.iteration", "kubectl describe br", "RunnerFailed",
        "termination message", "InvalidSpec", "Forbidden", "kubectl logs"]),
    ("security.md", [
        "runnerPolicy.podSecurity", "--runner-pod-security", "allowHostNetwork", "allowedImages",
        "allowedServiceAccounts", "InvalidSpec", "restricted", "baseline", "privileged", "provenance",
        "ValidatingAdmissionPolicy", "1.30", "manifests/admission-policy.yaml", "storagebench-runner"]),
    ("architecture.md", [
        "informer", "work queue", "controller/run/plan.c", "runner/mode/pod.c", "<run>-<class>-<iteration>",
        "<run>-report", "report.svg", "ownerReferences", "garbage", "level-triggered", "Lease",
        "never overwritten", "AlreadyExists"]),
])
def test_pages_cover_their_topics(page, needles):
    text = read(page)
    missing = [n for n in needles if n not in text]
    assert missing == []


@pytest.mark.parametrize("page", PAGES)
def test_local_links_resolve(page):
    text = re.sub(r"```.*?```", "", read(page), flags=re.S)
    text = re.sub(r"`[^`\n]*`", "", text)  # code spans hold regexes, not links
    broken = []
    for target in re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", text):
        if re.match(r"[a-z]+://", target):
            continue
        if not os.path.exists(os.path.normpath(os.path.join(DOCS, os.path.dirname(page), target))):
            broken.append(target)
    assert broken == []


def test_architecture_has_a_diagram():
    text = read("architecture.md")
    blocks = re.findall(r"```(?:text)?\n(.*?)```", text, re.S)
    assert any(b.count("\n") >= 10 and ("-->" in b or "──" in b or "->" in b) for b in blocks)
