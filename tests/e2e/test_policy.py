"""The runner policy on the test cluster: what a BenchmarkRun may ask of its
runner pods (docs/security.md). A run asking for a privileged container,
hostNetwork, a foreign image, another ServiceAccount or an added
capability ends InvalidSpec with the field named, and nothing is created;
the same run passes once the controller's flags (the chart's runnerPolicy
values) allow it. Runner pods of the default policy pass the restricted
Pod Security Standard (tests/tools/pss.py, the tests' own reading of it)
and really run as it says (the kernel's view of the runner process).
"""
import json
import os
import sys
import uuid

import pytest
import yaml

from conftest import RUNNER_RBAC, events, sb, small, wait_phase

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "tools"))
import pss  # noqa: E402


def run_manifest(name, runner=None, **kw):
    """A one-class, one-iteration run; runner is merged into spec.runner."""
    doc = yaml.safe_load(small(name, classes=("fast",), iterations=1, **kw))
    doc["spec"].setdefault("runner", {}).update(runner or {})
    return doc


def owned_objects(ns, name):
    """Every PVC, pod and ConfigMap of the run (by label, and the spec ConfigMap by name)."""
    items = sb.kubectl_json("-n", ns, "get", "pvc,pods,configmaps", "-l",
                            f"storagebench.io/run={name}")["items"]
    spec_cm = sb.kubectl("-n", ns, "get", "configmap", f"{name}-spec", "--ignore-not-found",
                         "-o", "name").strip()
    return [f"{i['kind']}/{i['metadata']['name']}" for i in items] + ([spec_cm] if spec_cm else [])


def get_pod(ns, name):
    p = sb.kubectl("-n", ns, "get", "pod", name, "-o", "json", check=False)
    return json.loads(p.stdout) if p.returncode == 0 else None


def expect_refused(ns, name, field):
    st = wait_phase(ns, name, phases=("Failed",), timeout=60)
    cond = st["conditions"][0]
    assert (cond["status"], cond["reason"]) == ("False", "InvalidSpec"), st
    assert st["message"].startswith(f"{field}: "), st["message"]
    assert "not allowed by the runner policy" in st["message"], st["message"]
    assert ("InvalidSpec", st["message"]) in events(ns, name)
    assert owned_objects(ns, name) == []
    return st["message"]


@pytest.fixture
def alias_image():
    """The project image under another repository name (a foreign image
    that runs the same binaries), removed afterwards."""
    repo = f"localhost/sbpolicy-{uuid.uuid4().hex[:6]}/runner"
    ref = f"{repo}:{sb.IMAGE.rsplit(':', 1)[1]}"
    for node in sb.NODES:  # the runner pod may land on any node
        sb.ctr("images", "tag", sb.IMAGE, ref, node=node)
    try:
        yield repo, ref
    finally:
        for node in sb.NODES:
            sb.ctr("images", "rm", ref, check=False, node=node)


def other_service_account(ns, sa):
    sb.apply(RUNNER_RBAC.replace("name: storagebench-runner}", f"name: {sa}}}"), namespace=ns)
    sb.wait_service_account(sa, ns)


CASES = {
    # case: (spec.runner, the field named, the controller flags that allow it)
    "privileged": ({"containerSecurityContext": {"privileged": True}},
                   "spec.runner.containerSecurityContext.privileged", ["--runner-pod-security=privileged"]),
    "hostNetwork": ({"hostNetwork": True}, "spec.runner.hostNetwork", ["--runner-allow-host-network=true"]),
    "capability": ({"containerSecurityContext": {"capabilities": {"add": ["CHOWN"]}}},
                   "spec.runner.containerSecurityContext.capabilities.add[0]",
                   ["--runner-pod-security=baseline"]),
    "image": (None, "spec.runner.image", None),
    "serviceAccount": ({"serviceAccountName": "bench-other"}, "spec.runner.serviceAccountName",
                       ["--runner-allowed-service-accounts=bench-other"]),
}


@pytest.mark.parametrize("case", list(CASES))
def test_refused_then_allowed(ns, controller, case, request):
    runner, field, allow = CASES[case]
    if case == "image":
        repo, ref = request.getfixturevalue("alias_image")
        runner = {"image": ref}
        allow = [f"--runner-allowed-images={repo}"]
    if case == "serviceAccount":
        other_service_account(ns, "bench-other")
    # the fixture's controller runs the default policy
    c = controller
    name = f"pol-{case.lower()}"
    sb.apply(run_manifest(name, runner), namespace=ns)
    msg = expect_refused(ns, name, field)
    for flag in allow:
        # the message tells the admin what to widen
        assert flag.split("=")[0] in msg, msg
    # widened: the same run, applied again, runs to the end
    sb.delete("br", name, namespace=ns)
    c.stop()
    controller.start(extra=allow)
    sb.apply(run_manifest(name, runner), namespace=ns)
    st = wait_phase(ns, name, timeout=180)
    assert st["phase"] == "Succeeded", st
    report = json.loads(sb.kubectl_json("-n", ns, "get", "configmap", f"{name}-report")["data"]["report.json"])
    prov = report["provenance"]
    if case == "image":
        assert prov["runner"]["image"] == ref
        assert prov["policy"]["allowedImages"] == [repo]
    if case == "serviceAccount":
        assert prov["runner"]["serviceAccount"] == "bench-other"
    if case == "privileged":
        assert prov["runner"]["podSecurity"] == "privileged"
        assert prov["runner"]["containerSecurityContext"]["privileged"] is True
        assert prov["policy"]["podSecurity"] == "privileged"
    if case == "capability":
        assert prov["runner"]["podSecurity"] == "baseline"
        assert prov["runner"]["containerSecurityContext"]["capabilities"]["add"] == ["CHOWN"]


def test_free_form_fields_are_checked_field_by_field(ns, controller):
    """A field outside the typed subset is named, not passed on or dropped."""
    sb.apply(run_manifest("pol-selinux", {"securityContext": {"seLinuxOptions": {"type": "spc_t"}}}),
             namespace=ns)
    st = wait_phase(ns, "pol-selinux", phases=("Failed",), timeout=60)
    assert st["conditions"][0]["reason"] == "InvalidSpec"
    assert st["message"].startswith("spec.runner.securityContext.seLinuxOptions: not supported"), st
    assert owned_objects(ns, "pol-selinux") == []
    # privileged where the pod's securityContext has no such field: said, not dropped
    sb.apply(run_manifest("pol-podpriv", {"securityContext": {"privileged": True}}), namespace=ns)
    st = wait_phase(ns, "pol-podpriv", phases=("Failed",), timeout=60)
    assert "spec.runner.securityContext.privileged: a container setting" in st["message"], st


def test_default_runner_pod_is_restricted(ns, controller):
    """The runner pod of a run that asks nothing, as the API server stored
    it, passes the restricted standard, and its runner process runs as the
    pod says (the kernel's view); the report's provenance says so."""
    sb.apply(run_manifest("pol-plain", runtime="4s", cleanup="Never"), namespace=ns)
    pod = sb.wait_for(lambda: (lambda p: p if p and p["status"].get("phase") == "Running" else None)(
        get_pod(ns, "pol-plain-fast-1")),
        timeout=90, interval=0.3, what="the runner pod Running")
    assert pss.violations(pod["spec"], "restricted", pod["metadata"].get("annotations")) == []
    assert pss.level(pod["spec"]) == "restricted"
    assert not pod["spec"].get("hostNetwork")
    sc = pod["spec"]["containers"][0]["securityContext"]
    assert sc["seccompProfile"] == {"type": "RuntimeDefault"}
    assert pod["spec"]["serviceAccountName"] == "storagebench-runner"
    cid = pod["status"]["containerStatuses"][0]["containerID"].split("//")[1]
    tasks = sb.ctr("tasks", "ls", node=pod["spec"]["nodeName"])
    pid = next(line.split()[1] for line in tasks.splitlines() if line.startswith(cid))
    with open(f"/proc/{pid}/status") as f:
        st = dict(line.split(":\t", 1) for line in f.read().splitlines() if ":\t" in line)
    assert st["Uid"].split()[0] == "65532" and st["Gid"].split()[0] == "65532"
    assert int(st["CapEff"], 16) == 0 and int(st["CapBnd"], 16) == 0
    assert st["NoNewPrivs"].strip() == "1"
    assert st["Seccomp"].strip() == "2"  # RuntimeDefault: filtered
    st = wait_phase(ns, "pol-plain", timeout=120)
    assert st["phase"] == "Succeeded", st
    data = sb.kubectl_json("-n", ns, "get", "configmap", "pol-plain-report")["data"]
    assert "\n=== provenance\nrunner: image " + sb.IMAGE + ", ServiceAccount storagebench-runner, uid 65532, " \
        "pod security restricted\n" in data["report.txt"], data["report.txt"]
    prov = json.loads(data["report.json"])["provenance"]
    assert prov["runner"]["from"] == "pod"
    assert prov["runner"]["podSecurity"] == "restricted"
    assert prov["runner"]["securityContext"]["runAsNonRoot"] is True
    assert prov["policy"] == {"podSecurity": "restricted", "allowHostNetwork": False,
                              "runnerImage": sb.IMAGE, "runnerServiceAccount": "storagebench-runner",
                              "allowedImages": [], "allowedServiceAccounts": []}


def test_bad_policy_flags_stop_the_controller(ns, controller):
    c = controller.start(extra=["--runner-pod-security=open"])
    assert c.proc.wait(timeout=20) == 2
    assert "--runner-pod-security: 'open' is not restricted, baseline or privileged" in c.log


@pytest.mark.parametrize("var", ["KUBECONFIG", "LD_PRELOAD", "OPENSSL_CONF", "https_proxy"])
def test_runner_env_that_changes_trust_is_refused(ns, controller, var):
    """spec.runner.env cannot choose what the runner loads, trusts or where it
    connects (issue 34): refused naming the field and the variable, nothing made."""
    name = "pol-env-" + var.lower().replace("_", "-")
    sb.apply(run_manifest(name, {"env": [{"name": "BS", "value": "4k"},
                                         {"name": var, "value": "/tmp/x"}]}), namespace=ns)
    st = wait_phase(ns, name, phases=("Failed",), timeout=60)
    assert st["conditions"][0]["reason"] == "InvalidSpec", st
    assert st["message"].startswith(f"spec.runner.env[1].name: '{var}' is not allowed"), st
    assert owned_objects(ns, name) == []


def test_pattern_file_in_fiojob_is_refused_without_opening_it(ns, controller):
    """The controller never opens a path a spec names (issue 34): a pattern file
    is refused by name, the same answer whether it exists in the controller's
    container or not (no oracle), and a device would not block it."""
    msgs = []
    for i, path in enumerate(["/etc/hostname", "/no/such/file", "/dev/ptmx"]):
        name = f"pol-pattern-{i}"
        doc = run_manifest(name)
        doc["spec"].pop("workloads", None)
        doc["spec"]["fioJob"] = ("[w]\nrw=write\nbs=4k\nsize=1m\n"
                                 f"buffer_pattern='{path}'\n")
        sb.apply(doc, namespace=ns)
        st = wait_phase(ns, name, phases=("Failed",), timeout=60)
        assert st["conditions"][0]["reason"] == "InvalidSpec", st
        assert (f"spec.fioJob:5: buffer_pattern: pattern file '{path}': not allowed here"
                in st["message"]), st
        msgs.append(st["message"].replace(path, "PATH"))
        assert owned_objects(ns, name) == []
    assert len(set(msgs)) == 1, msgs
    # an inline pattern still runs
    doc = run_manifest("pol-pattern-inline")
    doc["spec"].pop("workloads", None)
    doc["spec"]["fioJob"] = "[w]\nrw=write\nbs=4k\nsize=1m\nbuffer_pattern=0xdeadbeef\n"
    sb.apply(doc, namespace=ns)
    st = wait_phase(ns, "pol-pattern-inline", timeout=180)
    assert st["phase"] == "Succeeded", st
