"""The chart without a cluster: helm lint --strict, and helm template output
checked object by object (RBAC rules against the documented table,
security contexts, images, names, labels, values switches)."""
import os
import re
import subprocess
import sys

import pytest
import yaml

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "tools"))
from pss import restricted_violations  # noqa: E402  (tests/tools/pss.py, shared with tests/e2e)

from conftest import (CHART, ROOT, VALUES_FILES, VERSION, args_of, by_kind, container, deployment,
                      helm, one, render)

# ---------------------------------------------------------------- RBAC table
# The least-privilege set (docs/getting-started.md lists the same). Each
# rule: (apiGroups, resources, verbs, resourceNames).
STORAGECLASS_RULES = [
    (("storage.k8s.io",), ("storageclasses",), ("get", "list", "watch"), ()),
    # spec.lifecycle's snapshots: which VolumeSnapshotClass fits a class
    (("snapshot.storage.k8s.io",), ("volumesnapshotclasses",), ("get", "list", "watch"), ()),
]
RUN_RULES = [
    (("storagebench.io",), ("benchmarkruns",), ("get", "list", "watch"), ()),
    (("storagebench.io",), ("benchmarkruns/status",), ("get", "update", "patch"), ()),
    (("",), ("persistentvolumeclaims", "pods"), ("get", "list", "watch", "create", "delete"), ()),
    (("",), ("configmaps",), ("get", "list", "watch", "create"), ()),
    (("",), ("secrets",), ("create",), ()),  # each run's signing key
    (("",), ("secrets",), ("get",), ()),  # an object store's Secret: its consent label
    (("",), ("persistentvolumeclaims",), ("patch",), ()),
    (("snapshot.storage.k8s.io",), ("volumesnapshots",), ("get", "list", "watch", "create", "delete"), ()),
    (("",), ("events",), ("create", "patch"), ()),
    # schedules (docs/schedules.md)
    (("storagebench.io",), ("benchmarkschedules",), ("get", "list", "watch"), ()),
    (("storagebench.io",), ("benchmarkschedules/status",), ("get", "update", "patch"), ()),
    (("storagebench.io",), ("benchmarkruns",), ("create", "delete"), ()),
]
RUNNER_RULES = [
    (("",), ("configmaps",), ("create", "get", "watch"), ()),
]


def lease_rules(lease):
    return [
        (("coordination.k8s.io",), ("leases",), ("get", "update"), (lease,)),
        (("coordination.k8s.io",), ("leases",), ("create",), ()),
    ]


def signing_rules(secret):
    """The one Secret the controller reads: the signing master key, by name."""
    return [
        (("",), ("secrets",), ("get",), (secret,)),
        (("",), ("secrets",), ("create",), ()),
    ]


def norm(rules):
    return sorted((tuple(sorted(r.get("apiGroups", []))), tuple(sorted(r.get("resources", []))),
                   tuple(sorted(r.get("verbs", []))), tuple(sorted(r.get("resourceNames", []))))
                  for r in rules)


def expect(table):
    return sorted(tuple(tuple(sorted(x)) for x in r) for r in table)


def roles(objs, kind="Role"):
    """{(namespace, name): normalised rules}."""
    return {(o["metadata"].get("namespace"), o["metadata"]["name"]): norm(o["rules"])
            for o in by_kind(objs, kind)}


def bindings(objs, kind="RoleBinding"):
    """{(namespace, name): (roleRef kind, roleRef name, [(sa namespace, sa name)])}."""
    return {(o["metadata"].get("namespace"), o["metadata"]["name"]):
            (o["roleRef"]["kind"], o["roleRef"]["name"],
             sorted((s.get("namespace"), s["name"]) for s in o["subjects"] if s["kind"] == "ServiceAccount"))
            for o in by_kind(objs, kind)}


# ---------------------------------------------------------------- lint


@pytest.mark.parametrize("values", VALUES_FILES)
def test_helm_lint_strict(values):
    p = helm("lint", "--strict", CHART, "-f", os.path.join(os.path.dirname(__file__), "values", values),
             "--namespace", "sb-lint", check=False)
    assert p.returncode == 0, p.stdout + p.stderr
    assert "0 chart(s) failed" in p.stdout
    assert "[ERROR]" not in p.stdout and "[WARNING]" not in p.stdout, p.stdout


def test_lint_values_files_cover_the_three_cases():
    assert {"defaults.yaml", "all-options.yaml", "single-namespace.yaml"} <= set(VALUES_FILES)


@pytest.mark.parametrize("values,needle", [
    ({"replicaCount": 2, "leaderElection.enabled": False}, "replicaCount > 1 needs leaderElection"),
    ({"metrics.enabled": False, "metrics.serviceMonitor.enabled": True}, "serviceMonitor.enabled needs metrics.enabled"),
    ({"watchNamespaces": ["Bad_Name"]}, "'Bad_Name' is not a namespace name"),
    ({"watchNamespaces": [f"n{i}" for i in range(17)]}, "at most 16 namespaces"),
    ({"controller.logLevel": "loud"}, "controller.logLevel: 'loud'"),
])
def test_invalid_values_are_refused_with_the_reason(values, needle):
    p = render(values, check=False)
    assert p.returncode != 0
    assert needle in p.stderr, p.stderr


def test_chart_version_is_the_project_version():
    with open(os.path.join(CHART, "Chart.yaml")) as f:
        chart = yaml.safe_load(f)
    assert chart["apiVersion"] == "v2"
    assert chart["appVersion"] == VERSION
    assert re.fullmatch(r"\d+\.\d+\.\d+(-[0-9A-Za-z.-]+)?", chart["version"])


# ---------------------------------------------------------------- RBAC


def test_rbac_default_watches_all_namespaces():
    objs = render()
    # one ClusterRole: StorageClasses + everything a run needs, nothing else
    assert roles(objs, "ClusterRole") == {(None, "sb-storagebench-controller"):
                                          expect(STORAGECLASS_RULES + RUN_RULES)}
    assert bindings(objs, "ClusterRoleBinding") == {
        (None, "sb-storagebench-controller"):
            ("ClusterRole", "sb-storagebench-controller", [("sb-system", "sb-storagebench-controller")])}
    # Roles: the Lease in the release namespace, the runners in the release
    # namespace and "default"
    assert roles(objs) == {
        ("sb-system", "sb-storagebench-leader-election"): expect(lease_rules("sb-storagebench-controller")),
        ("sb-system", "sb-storagebench-signing-key"): expect(signing_rules("sb-storagebench-signing-key")),
        ("sb-system", "sb-storagebench-runner"): expect(RUNNER_RULES),
        ("default", "sb-storagebench-runner"): expect(RUNNER_RULES),
    }
    assert bindings(objs) == {
        ("sb-system", "sb-storagebench-leader-election"):
            ("Role", "sb-storagebench-leader-election", [("sb-system", "sb-storagebench-controller")]),
        ("sb-system", "sb-storagebench-signing-key"):
            ("Role", "sb-storagebench-signing-key", [("sb-system", "sb-storagebench-controller")]),
        ("sb-system", "sb-storagebench-runner"):
            ("Role", "sb-storagebench-runner", [("sb-system", "storagebench-runner")]),
        ("default", "sb-storagebench-runner"):
            ("Role", "sb-storagebench-runner", [("default", "storagebench-runner")]),
    }
    sas = {(o["metadata"]["namespace"], o["metadata"]["name"]) for o in by_kind(objs, "ServiceAccount")}
    assert sas == {("sb-system", "sb-storagebench-controller"), ("sb-system", "storagebench-runner"),
                   ("default", "storagebench-runner")}
    assert not any(a.startswith("--namespace=") for a in args_of(objs))


def test_rbac_single_namespace_uses_roles():
    objs = render(files=["single-namespace.yaml"])
    # cluster-wide only what must be: reading StorageClasses
    assert roles(objs, "ClusterRole") == {(None, "sb-storagebench-controller"): expect(STORAGECLASS_RULES)}
    assert roles(objs) == {
        ("benchmarks", "sb-storagebench-controller"): expect(RUN_RULES),
        ("sb-system", "sb-storagebench-leader-election"): expect(lease_rules("sb-storagebench-controller")),
        ("sb-system", "sb-storagebench-signing-key"): expect(signing_rules("sb-storagebench-signing-key")),
        ("benchmarks", "sb-storagebench-runner"): expect(RUNNER_RULES),
    }
    b = bindings(objs)
    assert b[("benchmarks", "sb-storagebench-controller")] == \
        ("Role", "sb-storagebench-controller", [("sb-system", "sb-storagebench-controller")])
    assert b[("benchmarks", "sb-storagebench-runner")] == \
        ("Role", "sb-storagebench-runner", [("benchmarks", "storagebench-runner")])
    assert "--namespace=benchmarks" in args_of(objs)


def test_rbac_several_namespaces_and_runner_namespaces():
    objs = render({"watchNamespaces": ["team-a", "team-b", "team-a"],
                   "runner.namespaces": ["team-a", "scratch"]})
    r = roles(objs)
    assert {k for k, v in r.items() if v == expect(RUN_RULES)} == \
        {("team-a", "sb-storagebench-controller"), ("team-b", "sb-storagebench-controller")}
    assert {k for k, v in r.items() if v == expect(RUNNER_RULES)} == \
        {("team-a", "sb-storagebench-runner"), ("scratch", "sb-storagebench-runner")}
    assert "--namespace=team-a,team-b" in args_of(objs)
    sas = {(o["metadata"]["namespace"], o["metadata"]["name"]) for o in by_kind(objs, "ServiceAccount")}
    assert ("scratch", "storagebench-runner") in sas and ("team-b", "storagebench-runner") not in sas


def test_runner_namespaces_default_to_the_watch_namespaces():
    objs = render({"watchNamespaces": ["x1", "x2"]})
    assert {o["metadata"]["namespace"] for o in by_kind(objs, "ServiceAccount")
            if o["metadata"]["name"] == "storagebench-runner"} == {"x1", "x2"}


@pytest.mark.parametrize("values", VALUES_FILES)
def test_no_broad_permissions(values):
    for o in render(files=[values]):
        for r in o.get("rules", []) if o["kind"] in ("Role", "ClusterRole") else []:
            for field in ("apiGroups", "resources", "verbs"):
                assert "*" not in r.get(field, []), (o["metadata"]["name"], r)
            assert not {"escalate", "bind", "impersonate", "deletecollection"} & set(r["verbs"]), r
            assert not {"nodes", "persistentvolumes", "serviceaccounts/token", "roles",
                        "clusterroles", "rolebindings", "clusterrolebindings"} & set(r["resources"]), r
            if "secrets" in r["resources"]:
                # the signing keys: create, or get of the one master key by name; get
                # (of a Secret an object store names: its consent label); never list or watch
                assert r["resources"] == ["secrets"], r
                assert r["verbs"] in (["create"], ["get"]), r


def test_rbac_create_false_renders_no_rbac():
    objs = render({"rbac.create": False})
    for kind in ("Role", "ClusterRole", "RoleBinding", "ClusterRoleBinding"):
        assert not by_kind(objs, kind), kind
    assert by_kind(objs, "ServiceAccount")  # the ServiceAccounts still exist


def test_service_account_create_false_uses_the_named_one():
    objs = render({"serviceAccount.create": False, "serviceAccount.name": "mine",
                   "runner.serviceAccount.create": False})
    assert not by_kind(objs, "ServiceAccount")
    assert deployment(objs)["spec"]["template"]["spec"]["serviceAccountName"] == "mine"
    b = bindings(objs, "ClusterRoleBinding")
    assert list(b.values())[0][2] == [("sb-system", "mine")]


# ---------------------------------------------------------------- security


@pytest.mark.parametrize("values", ["defaults.yaml", "single-namespace.yaml"])
def test_controller_passes_the_restricted_pod_security_standard(values):
    objs = render(files=[values])
    spec = deployment(objs)["spec"]["template"]["spec"]
    assert restricted_violations(spec) == []
    # and the documented settings, explicitly
    assert spec["securityContext"] == {"runAsNonRoot": True, "runAsUser": 65532, "runAsGroup": 65532,
                                       "seccompProfile": {"type": "RuntimeDefault"}}
    sc = container(objs)["securityContext"]
    assert sc["allowPrivilegeEscalation"] is False
    assert sc["readOnlyRootFilesystem"] is True
    assert sc["capabilities"] == {"drop": ["ALL"]}
    assert sc.get("privileged") is False


def test_the_restricted_check_catches_host_network():
    # the checker above is not vacuous: hostNetwork (the test cluster's
    # setting) breaks the standard, and so does a root user
    spec = deployment(render({"hostNetwork": True, "podSecurityContext.runAsUser": 0}))["spec"]["template"]["spec"]
    v = restricted_violations(spec)
    assert "hostNetwork is true" in v and "controller: runAsUser 0" in v
    assert spec["dnsPolicy"] == "ClusterFirstWithHostNet"


def test_seccomp_profile_for_the_runner_allows_io_uring_only_what_is_needed():
    import json
    with open(os.path.join(CHART, "files", "seccomp-iouring.json")) as f:
        prof = json.load(f)
    assert prof["defaultAction"] == "SCMP_ACT_ERRNO"
    allowed = {n for s in prof["syscalls"] if s["action"] == "SCMP_ACT_ALLOW" and not s.get("args")
               for n in s["names"]}
    assert {"io_uring_setup", "io_uring_enter", "io_uring_register"} <= allowed
    assert {"read", "write", "pread64", "pwrite64", "fsync", "fdatasync", "openat", "socket",
            "connect", "futex", "mmap", "execve"} <= allowed
    dangerous = {"mount", "umount2", "ptrace", "bpf", "keyctl", "add_key", "request_key", "unshare",
                 "setns", "init_module", "finit_module", "delete_module", "kexec_load",
                 "kexec_file_load", "perf_event_open", "userfaultfd", "reboot", "swapon",
                 "settimeofday", "clock_settime", "pivot_root", "chroot", "acct", "open_by_handle_at",
                 "process_vm_readv", "process_vm_writev"}
    assert not dangerous & {n for s in prof["syscalls"] if s["action"] == "SCMP_ACT_ALLOW" for n in s["names"]}
    clone = [s for s in prof["syscalls"] if "clone" in s["names"]]
    assert len(clone) == 1 and clone[0]["args"][0]["op"] == "SCMP_CMP_MASKED_EQ"
    assert clone[0]["args"][0]["value"] & 0x10000000  # CLONE_NEWUSER is masked out


# ---------------------------------------------------------------- images, names, labels


@pytest.mark.parametrize("values", VALUES_FILES)
def test_images_are_pinned(values):
    objs = render(files=[values])
    images = [c["image"] for o in objs if o["kind"] == "Deployment"
              for c in o["spec"]["template"]["spec"]["containers"]]
    images += [a.split("=", 1)[1] for a in args_of(objs) if a.startswith("--runner-image=")]
    assert len(images) == 2
    for img in images:
        name, _, tag = img.rpartition(":")
        assert name and tag and "/" not in tag, img
        assert tag != "latest", img


def test_image_defaults_and_overrides():
    objs = render()
    assert container(objs)["image"] == f"localhost/storagebench:{VERSION}"
    assert container(objs)["imagePullPolicy"] == "IfNotPresent"
    assert f"--runner-image=localhost/storagebench:{VERSION}" in args_of(objs)
    objs = render({"image.repository": "r.example/sb", "image.tag": "1.2.3", "image.pullPolicy": "Never"})
    assert container(objs)["image"] == "r.example/sb:1.2.3"
    assert container(objs)["imagePullPolicy"] == "Never"
    assert "--runner-image=r.example/sb:1.2.3" in args_of(objs)
    objs = render({"runner.image": "r.example/runner:9"})
    assert "--runner-image=r.example/runner:9" in args_of(objs)


@pytest.mark.parametrize("release,override", [
    ("r" * 53, ""),                 # helm's longest release name
    ("sb", "f" * 80),               # an override longer than a name may be
    ("storagebench", ""),           # release name containing the chart name
])
def test_names_fit_in_63_characters(release, override):
    objs = render({"fullnameOverride": override, "watchNamespaces": ["ns1"]}, release=release)
    for o in objs:
        name = o["metadata"]["name"]
        assert len(name) <= 63, (o["kind"], name)
        assert re.fullmatch(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?", name), name
        for k, v in o["metadata"].get("labels", {}).items():
            assert len(str(v)) <= 63, (k, v)
    if release == "storagebench":
        assert deployment(objs)["metadata"]["name"] == "storagebench-controller"


@pytest.mark.parametrize("values", VALUES_FILES)
def test_labels_and_selectors(values):
    objs = render(files=[values])
    for o in objs:
        labels = o["metadata"].get("labels", {})
        for key in ("helm.sh/chart", "app.kubernetes.io/name", "app.kubernetes.io/instance",
                    "app.kubernetes.io/version", "app.kubernetes.io/managed-by",
                    "app.kubernetes.io/component"):
            assert key in labels, (o["kind"], o["metadata"]["name"], key)
        assert labels["app.kubernetes.io/instance"] == "sb"
        assert o["kind"] in ("ClusterRole", "ClusterRoleBinding") or o["metadata"].get("namespace"), \
            f"{o['kind']} {o['metadata']['name']} has no namespace"
    d = deployment(objs)
    sel = d["spec"]["selector"]["matchLabels"]
    pod_labels = d["spec"]["template"]["metadata"]["labels"]
    assert sel.items() <= pod_labels.items()
    assert sel["app.kubernetes.io/component"] == "controller"
    # runner pods (labelled by the controller) are never selected by the Deployment
    assert "app.kubernetes.io/instance" in sel
    for svc in by_kind(objs, "Service"):
        assert svc["spec"]["selector"].items() <= pod_labels.items()


# ---------------------------------------------------------------- switches


def test_leader_election_on_by_default_and_with_replicas():
    objs = render()
    a = args_of(objs)
    assert "--leader-elect" in a
    assert "--leader-election-namespace=sb-system" in a
    assert "--leader-election-id=sb-storagebench-controller" in a
    lease = one(objs, "Lease")
    assert lease["metadata"]["name"] == "sb-storagebench-controller"
    assert lease["metadata"]["namespace"] == "sb-system"
    assert "spec" not in lease  # the controller fills it in
    assert "--leader-elect" in args_of(render({"replicaCount": 3}))
    assert deployment(render({"replicaCount": 3}))["spec"]["replicas"] == 3


def test_leader_election_off_with_one_replica():
    objs = render({"leaderElection.enabled": False})
    assert not any(a.startswith("--leader-elect") for a in args_of(objs))
    assert not by_kind(objs, "Lease")
    assert not any("leader-election" in o["metadata"]["name"] for o in objs)


def test_metrics_service_probes_and_service_monitor():
    objs = render({"metrics.port": 9100, "metrics.serviceMonitor.enabled": True,
                   "metrics.serviceMonitor.labels": {"release": "prom"}})
    c = container(objs)
    assert "--metrics-bind-address=:9100" in c["args"]
    assert c["ports"] == [{"name": "metrics", "containerPort": 9100, "protocol": "TCP"}]
    assert c["livenessProbe"]["httpGet"] == {"path": "/healthz", "port": "metrics"}
    assert c["readinessProbe"]["httpGet"] == {"path": "/readyz", "port": "metrics"}
    svc = one(objs, "Service")
    assert svc["spec"]["ports"] == [{"name": "metrics", "port": 9100, "targetPort": "metrics", "protocol": "TCP"}]
    sm = one(objs, "ServiceMonitor")
    assert sm["metadata"]["labels"]["release"] == "prom"
    assert sm["spec"]["endpoints"][0]["port"] == "metrics"
    assert sm["spec"]["selector"]["matchLabels"].items() <= \
        deployment(objs)["spec"]["template"]["metadata"]["labels"].items()
    assert not by_kind(render(), "ServiceMonitor")


def test_metrics_disabled():
    objs = render({"metrics.enabled": False})
    c = container(objs)
    assert "--metrics-bind-address=0" in c["args"]
    assert "ports" not in c and "livenessProbe" not in c and "readinessProbe" not in c
    assert not by_kind(objs, "Service")


def test_all_scheduling_and_pod_options_reach_the_pod():
    objs = render(files=["all-options.yaml"])
    spec = deployment(objs)["spec"]["template"]["spec"]
    meta = deployment(objs)["spec"]["template"]["metadata"]
    with open(os.path.join(os.path.dirname(__file__), "values", "all-options.yaml")) as f:
        v = yaml.safe_load(f)
    assert spec["nodeSelector"] == v["nodeSelector"]
    assert spec["tolerations"] == v["tolerations"]
    assert spec["affinity"] == v["affinity"]
    assert spec["priorityClassName"] == v["priorityClassName"]
    assert spec["imagePullSecrets"] == v["imagePullSecrets"]
    assert spec["hostNetwork"] is True
    assert spec["terminationGracePeriodSeconds"] == 60
    assert meta["annotations"] == v["podAnnotations"]
    assert meta["labels"]["team"] == "storage"
    assert spec["serviceAccountName"] == "sb-operator"
    c = spec["containers"][0]
    assert c["resources"] == v["resources"]
    assert {"name": "TZ", "value": "UTC"} in c["env"]
    for a in ("--log-level=debug", "--log-format=json", "--workers=4", "--max-runner-attempts=5"):
        assert a in c["args"]
    assert deployment(objs)["spec"]["strategy"] == v["strategy"]
    runner_sa = [o for o in by_kind(objs, "ServiceAccount") if o["metadata"]["name"] == "storagebench-runner"]
    assert runner_sa and all(o["imagePullSecrets"] == [{"name": "regcred"}] for o in runner_sa)


def test_extra_args_are_appended():
    objs = render({"controller.extraArgs": ["--identity=x"]})
    assert args_of(objs)[-1] == "--identity=x"


# ---------------------------------------------------------------- values.yaml


def test_every_values_key_is_documented():
    """Every key of values.yaml has a comment right above it, or belongs to a
    documented key whose value is an object (podSecurityContext: {...})."""
    with open(os.path.join(CHART, "values.yaml")) as f:
        lines = f.read().splitlines()
    stack = []  # (indent, documented)
    undocumented = []
    prev = ""
    for line in lines:
        m = re.match(r"^(\s*)([A-Za-z][A-Za-z0-9_.-]*):(.*)$", line)
        if m:
            indent = len(m.group(1))
            while stack and stack[-1][0] >= indent:
                stack.pop()
            documented = prev.strip().startswith("#") or any(d for _, d in stack)
            is_leaf = m.group(3).strip() != ""
            if is_leaf and not documented:
                undocumented.append(m.group(2))
            stack.append((indent, documented))
        if line.strip():
            prev = line
    assert undocumented == []


def test_values_yaml_matches_the_chart_defaults_used_in_docs():
    with open(os.path.join(CHART, "values.yaml")) as f:
        v = yaml.safe_load(f)
    assert v["image"] == {"repository": "localhost/storagebench", "tag": "", "pullPolicy": "IfNotPresent"}
    assert v["hostNetwork"] is False
    assert v["watchNamespaces"] == [] and v["runner"]["namespaces"] == []
    assert v["metrics"]["port"] == 8080 and v["metrics"]["serviceMonitor"]["enabled"] is False
    with open(os.path.join(ROOT, "docs", "getting-started.md")) as f:
        gs = f.read()
    for key in ("watchNamespaces", "runner.namespaces", "hostNetwork", "image.repository",
                "leaderElection.enabled", "metrics.serviceMonitor.enabled"):
        assert key in gs, f"docs/getting-started.md does not mention {key}"


def test_yamllint_relaxed():
    files = [os.path.join(CHART, "Chart.yaml"), os.path.join(CHART, "values.yaml"),
             os.path.join(ROOT, "manifests", "install.yaml"), os.path.join(ROOT, "manifests", "examples"),
             os.path.join(os.path.dirname(__file__), "values")]
    p = subprocess.run(["yamllint", "-d", "relaxed", "-f", "parsable"] + files, capture_output=True, text=True)
    assert p.returncode == 0, p.stdout + p.stderr
    errors = [line for line in p.stdout.splitlines() if "[error]" in line]
    assert errors == []


# ---------------------------------------------------------------- the runner policy


def test_runner_policy_defaults_are_the_narrowest():
    a = args_of(render())
    assert "--runner-pod-security=restricted" in a
    assert "--runner-service-account=storagebench-runner" in a
    assert not [x for x in a if x.startswith(("--runner-allow-host-network", "--runner-allowed-",
                                              "--runner-allow-control-plane"))]
    assert not by_kind(render(), "ValidatingAdmissionPolicy")


def test_runner_policy_values_become_the_controllers_flags():
    a = args_of(render({"runnerPolicy.podSecurity": "baseline", "runnerPolicy.allowHostNetwork": True,
                        "runnerPolicy.allowControlPlane": True,
                        "runnerPolicy.allowedImages": ["reg.example.com/storage/", "reg.example.com/fio",
                                                       "reg.example.com/fio"],
                        "runnerPolicy.allowedServiceAccounts": ["bench", "*"],
                        "runner.serviceAccount.name": "sb-runner"}))
    got = [x for x in a if x.startswith("--runner-") and not x.startswith("--runner-image")]
    assert got == ["--runner-service-account=sb-runner", "--runner-pod-security=baseline",
                   "--runner-allow-host-network", "--runner-allow-control-plane",
                   "--runner-allowed-images=reg.example.com/storage/,reg.example.com/fio",
                   "--runner-allowed-service-accounts=bench,*"]


@pytest.mark.parametrize("values,needle", [
    ({"runnerPolicy.podSecurity": "open"}, "runnerPolicy.podSecurity: 'open' is not restricted"),
    ({"runnerPolicy.allowedImages": ["reg/x:1"]}, "runnerPolicy.allowedImages: 'reg/x:1' is not a repository"),
    ({"runnerPolicy.allowedImages": ["reg/*"]}, "runnerPolicy.allowedImages: 'reg/*'"),
    ({"runnerPolicy.allowedServiceAccounts": ["Admin"]}, "runnerPolicy.allowedServiceAccounts: 'Admin'"),
])
def test_runner_policy_values_are_checked(values, needle):
    p = render(values, check=False)
    assert p.returncode != 0 and needle in p.stderr, p.stderr


def crd_schema():
    with open(os.path.join(ROOT, "manifests", "crd", "storagebench.io_benchmarkruns.yaml")) as f:
        crd = yaml.safe_load(f)
    return crd["spec"]["versions"][0]["schema"]["openAPIV3Schema"]


def schema_has(schema, path):
    node = schema
    for part in path:
        props = node.get("properties") or {}
        if part not in props:
            return False
        node = props[part]
    return True


def admission(values=None, kube="1.30.0"):
    objs = render(dict({"runnerPolicy.admission.enabled": True}, **(values or {})),
                  extra=("--kube-version", kube))
    return one(objs, "ValidatingAdmissionPolicy"), one(objs, "ValidatingAdmissionPolicyBinding")


def rule_fields(vap):
    return [v["message"].split(":")[0] for v in vap["spec"]["validations"]]


def test_admission_policy_is_structurally_sound():
    """The ValidatingAdmissionPolicy (Kubernetes >= 1.30; the test cluster is
    1.20 and cannot run it): every field a rule reads exists in the CRD's
    schema, every has() guards what the rule reads next, and the rules
    follow the policy's values, one per field the controller checks."""
    vap, binding = admission()
    assert vap["apiVersion"] == binding["apiVersion"] == "admissionregistration.k8s.io/v1"
    assert vap["spec"]["failurePolicy"] == "Fail"
    rr = vap["spec"]["matchConstraints"]["resourceRules"][0]
    assert (rr["apiGroups"], rr["resources"], sorted(rr["operations"])) == \
        (["storagebench.io"], ["benchmarkruns"], ["CREATE", "UPDATE"])
    assert binding["spec"]["policyName"] == vap["metadata"]["name"]
    assert binding["spec"]["validationActions"] == ["Deny"]
    schema = crd_schema()
    texts = [v["expression"] for v in vap["spec"]["validations"]] + \
        [v["expression"] for v in vap["spec"]["variables"]]
    for t in texts:
        assert t.count("(") == t.count(")") and t.count("[") == t.count("]"), t
        for path in re.findall(r"object\.((?:\w+\.)*\w+)", t):
            parts = path.split(".")
            parts = [p for p in parts if p not in ("startsWith", "endsWith", "all", "exists")]
            assert schema_has(schema, parts), f"{path} is not in the CRD schema"
    for v in vap["spec"]["validations"]:
        field = v["message"].split(":")[0]
        assert schema_has(schema, field.split(".")[:4]), field
        assert v["reason"] == "Forbidden"
    assert rule_fields(vap) == [
        "spec.runner.image", "spec.runner.serviceAccountName", "spec.runner.hostNetwork",
        "spec.runner.containerSecurityContext.privileged",
        "spec.runner.containerSecurityContext.capabilities.add", "spec.runner.seccompProfile.type",
        "spec.runner.containerSecurityContext.allowPrivilegeEscalation",
        "spec.runner.securityContext.runAsUser", "spec.runner.securityContext.runAsNonRoot"]
    caps = vap["spec"]["validations"][4]["expression"]
    assert "['NET_BIND_SERVICE', 'CAP_NET_BIND_SERVICE']" in caps
    assert "'localhost/storagebench:" in vap["spec"]["validations"][0]["expression"]


def test_admission_policy_follows_the_values():
    vap, _ = admission({"runnerPolicy.podSecurity": "baseline", "runnerPolicy.allowHostNetwork": True})
    assert rule_fields(vap) == [
        "spec.runner.image", "spec.runner.serviceAccountName",
        "spec.runner.containerSecurityContext.privileged",
        "spec.runner.containerSecurityContext.capabilities.add", "spec.runner.seccompProfile.type"]
    assert "'SYS_CHROOT', 'CAP_SYS_CHROOT'" in vap["spec"]["validations"][3]["expression"]
    vap, binding = admission({"runnerPolicy.podSecurity": "privileged", "runnerPolicy.allowedServiceAccounts": ["*"],
                              "runnerPolicy.allowedImages": ["reg.example.com/x/"],
                              "runnerPolicy.admission.validationActions": ["Warn", "Audit"],
                              "watchNamespaces": ["team-a"]})
    assert rule_fields(vap) == ["spec.runner.image"]
    assert "['reg.example.com/x/'].exists(" in vap["spec"]["validations"][0]["expression"]
    assert binding["spec"]["validationActions"] == ["Warn", "Audit"]
    assert binding["spec"]["matchResources"]["namespaceSelector"]["matchExpressions"][0]["values"] == ["team-a"]


def test_admission_policy_refuses_older_clusters():
    p = render({"runnerPolicy.admission.enabled": True}, extra=("--kube-version", "1.29.0"), check=False)
    assert p.returncode != 0
    assert "ValidatingAdmissionPolicy needs Kubernetes 1.30 or later; this cluster is v1.29.0" in p.stderr


@pytest.mark.parametrize("spec,level", [
    ({"containers": [{"name": "c"}]}, "baseline"),
    ({"securityContext": {"runAsNonRoot": True, "seccompProfile": {"type": "RuntimeDefault"}},
      "containers": [{"name": "c", "securityContext": {"allowPrivilegeEscalation": False,
                                                       "capabilities": {"drop": ["ALL"]}}}]}, "restricted"),
    ({"securityContext": {"runAsNonRoot": True, "seccompProfile": {"type": "RuntimeDefault"}},
      "containers": [{"name": "c", "securityContext": {"allowPrivilegeEscalation": False,
                                                       "capabilities": {"drop": ["ALL"], "add": ["CHOWN"]}}}]},
     "baseline"),
    ({"containers": [{"name": "c", "securityContext": {"capabilities": {"add": ["SYS_ADMIN"]}}}]}, "privileged"),
    ({"hostIPC": True, "containers": []}, "privileged"),
    ({"volumes": [{"name": "h", "hostPath": {"path": "/"}}], "containers": []}, "privileged"),
    ({"volumes": [{"name": "n", "nfs": {"server": "x", "path": "/"}}], "containers": []}, "baseline"),
    ({"containers": [{"name": "c", "securityContext": {"seccompProfile": {"type": "Unconfined"}}}]}, "privileged"),
    ({"securityContext": {"sysctls": [{"name": "kernel.msgmax", "value": "1"}]}, "containers": []}, "privileged"),
])
def test_the_pss_checker_tells_the_levels_apart(spec, level):
    """tests/tools/pss.py, which the cluster tests trust, is not vacuous."""
    import pss
    assert pss.level(spec) == level
