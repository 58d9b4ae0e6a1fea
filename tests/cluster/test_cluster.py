"""The cluster itself: node, components, kubectl, helm, CRDs, in-cluster config."""
import json
import os
import shutil
import ssl
import subprocess
import tempfile
import textwrap
import urllib.request

import pytest

import sbcluster as sb


def test_nodes_ready_with_zones_and_addresses(cluster):
    nodes = {n["metadata"]["name"]: n for n in sb.get("/api/v1/nodes")["items"]}
    assert sorted(nodes) == sorted(sb.NODES)
    assert len(sb.NODES) == int(os.environ.get("SB_NODES", len(sb.NODES)))
    for name, node in nodes.items():
        ready = [c for c in node["status"]["conditions"] if c["type"] == "Ready"]
        assert ready and ready[0]["status"] == "True", name
        assert node["status"]["nodeInfo"]["kubeletVersion"] == "v1.20.2"
        assert node["status"]["nodeInfo"]["kubeProxyVersion"] == "v1.20.2"
        assert node["status"]["nodeInfo"]["containerRuntimeVersion"].startswith("containerd://1.6")
        addrs = {a["type"]: a["address"] for a in node["status"]["addresses"]}
        assert addrs.get("InternalIP") == sb.NODE_IPS[name]
        labels = node["metadata"]["labels"]
        # zones a, b, c: the node's letter
        assert labels[sb.ZONE_LABEL] == sb.letter(name), labels
        assert labels["kubernetes.io/hostname"] == name


def test_components_healthy(cluster):
    code, text = sb.api("GET", "/readyz?verbose", raw=True)
    assert code == 200, text
    ctx = ssl.create_default_context()
    ctx.check_hostname, ctx.verify_mode = False, ssl.CERT_NONE  # their self-signed serving certs
    for port in (10257, 10259):  # controller-manager, scheduler
        with urllib.request.urlopen(f"https://127.0.0.1:{port}/healthz", context=ctx, timeout=5) as r:
            assert r.read() == b"ok"
    for name, ip in sb.NODE_IPS.items():
        with urllib.request.urlopen(f"http://{ip}:10248/healthz", timeout=5) as r:  # kubelet
            assert r.read() == b"ok", name
        with urllib.request.urlopen(f"http://{ip}:10256/healthz", timeout=5) as r:  # kube-proxy
            assert json.loads(r.read())["lastUpdated"], name


def test_kubectl_token_and_cert_kubeconfigs(cluster):
    v = json.loads(sb.kubectl("get", "--raw", "/version"))
    assert v["gitVersion"] == "v1.20.2"
    for kc in (sb.KUBECONFIG, sb.KUBECONFIG_CERT, sb.KUBECONFIG_PROXY):
        out = sb.kubectl("auth", "can-i", "create", "pods", "--all-namespaces", kubeconfig=kc)
        assert out.strip() == "yes", kc
    nodes = sb.kubectl_json("get", "nodes")
    assert sorted(n["metadata"]["name"] for n in nodes["items"]) == sorted(sb.NODES)


def test_storage_classes(cluster):
    scs = {s["metadata"]["name"]: s for s in sb.get("/apis/storage.k8s.io/v1/storageclasses")["items"]}
    for name in sb.CLASSES:
        assert scs[name]["provisioner"] == sb.PROVISIONER
    assert scs[sb.FAST]["parameters"]["path"].startswith("/dev/shm/")
    assert scs[sb.DISK]["parameters"]["path"].startswith("/var/tmp/")
    assert scs[sb.DISK]["metadata"]["annotations"]["storageclass.kubernetes.io/is-default-class"] == "true"


def test_kubernetes_service_has_the_api_server_as_endpoint(cluster):
    """The API server advertises its address in the sealed network: the
    `kubernetes` Service (ClusterIP 10.96.0.1, what pods' in-cluster
    configuration names) has real Endpoints, 10.254.254.1:443."""
    svc = sb.get("/api/v1/namespaces/default/services/kubernetes")
    assert svc["spec"]["clusterIP"] == sb.KUBERNETES_SVC_IP
    assert svc["spec"]["ports"][0]["port"] == 443
    ep = sb.get("/api/v1/namespaces/default/endpoints/kubernetes")
    assert [a["ip"] for a in ep["subsets"][0]["addresses"]] == [sb.API_IP]
    assert [p["port"] for p in ep["subsets"][0]["ports"]] == [443]
    code, v = sb.api("GET", "/version", url=f"https://{sb.API_IP}:443")
    assert code == 200 and v["gitVersion"] == "v1.20.2"


CRD = {
    "apiVersion": "apiextensions.k8s.io/v1",
    "kind": "CustomResourceDefinition",
    "metadata": {"name": "widgets.test.storagebench.io"},
    "spec": {
        "group": "test.storagebench.io",
        "scope": "Namespaced",
        "names": {"plural": "widgets", "singular": "widget", "kind": "Widget"},
        "versions": [{
            "name": "v1", "served": True, "storage": True,
            "subresources": {"status": {}},
            "schema": {"openAPIV3Schema": {"type": "object", "properties": {
                "spec": {"type": "object", "properties": {"size": {"type": "integer", "minimum": 1}}},
                "status": {"type": "object", "x-kubernetes-preserve-unknown-fields": True}}}},
        }],
    },
}


def test_crd_established_and_used(ns):
    sb.apply(CRD)
    try:
        sb.wait_crd_established(CRD["metadata"]["name"])
        sb.apply({"apiVersion": "test.storagebench.io/v1", "kind": "Widget", "metadata": {"name": "w"},
                  "spec": {"size": 3}}, namespace=ns)
        w = sb.kubectl_json("get", "widgets.test.storagebench.io", "w", "-n", ns)
        assert w["spec"]["size"] == 3
        # structural schema validation (no CEL rules in 1.20)
        bad = sb.kubectl("apply", "-n", ns, "-f", "-", check=False, input=json.dumps(
            {"apiVersion": "test.storagebench.io/v1", "kind": "Widget", "metadata": {"name": "bad"},
             "spec": {"size": 0}}))
        assert bad.returncode != 0 and "spec.size" in bad.stderr
        # the status subresource
        code, _ = sb.api("PATCH", f"/apis/test.storagebench.io/v1/namespaces/{ns}/widgets/w/status",
                         body=b'{"status": {"phase": "Done"}}')
        assert code in (200, 415)  # urllib sends application/json: merge patch below
        req = urllib.request.Request(
            f"{sb.API_URL}/apis/test.storagebench.io/v1/namespaces/{ns}/widgets/w/status",
            data=b'{"status": {"phase": "Done"}}', method="PATCH")
        req.add_header("Authorization", "Bearer " + sb.admin_token())
        req.add_header("Content-Type", "application/merge-patch+json")
        with urllib.request.urlopen(req, context=ssl.create_default_context(cafile=sb.CA_CERT)) as r:
            assert json.loads(r.read())["status"]["phase"] == "Done"
    finally:
        sb.delete("crd", CRD["metadata"]["name"])


def test_cel_rules_dropped_by_1_20(cluster):
    """Kubernetes 1.20 has no CEL: the server silently drops
    x-kubernetes-validations from a CRD (docs/testing.md)."""
    crd = json.loads(json.dumps(CRD))
    crd["metadata"]["name"] = "cels.test.storagebench.io"
    crd["spec"]["names"] = {"plural": "cels", "singular": "cel", "kind": "Cel"}
    spec = crd["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["spec"]
    spec["x-kubernetes-validations"] = [{"rule": "self.size > 1"}]
    code, obj = sb.api("POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", crd)
    try:
        assert code == 201, obj
        stored = obj["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["spec"]
        assert "x-kubernetes-validations" not in stored
    finally:
        sb.api("DELETE", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/cels.test.storagebench.io")


CHART = {
    "Chart.yaml": """\
        apiVersion: v2
        name: sbtest
        version: 0.1.0
        appVersion: "1"
        """,
    "values.yaml": """\
        greeting: hello
        """,
    "templates/configmap.yaml": """\
        apiVersion: v1
        kind: ConfigMap
        metadata:
          name: {{ .Release.Name }}-cm
        data:
          greeting: {{ .Values.greeting | quote }}
        """,
}


def test_helm_install_upgrade_uninstall(ns):
    helm = shutil.which("helm")
    if not helm:
        pytest.skip("helm not installed (scripts/deps/helm.sh could not fetch it)")
    assert subprocess.run([helm, "version", "--short"], capture_output=True, text=True).stdout.startswith("v3.")
    with tempfile.TemporaryDirectory() as d:
        for path, text in CHART.items():
            os.makedirs(os.path.dirname(os.path.join(d, "c", path)), exist_ok=True)
            with open(os.path.join(d, "c", path), "w") as f:
                f.write(textwrap.dedent(text))
        env = {"KUBECONFIG": sb.KUBECONFIG, "HELM_CACHE_HOME": d + "/cache", "HELM_CONFIG_HOME": d + "/cfg",
               "HELM_DATA_HOME": d + "/data"}

        def helm_(*args):
            p = sb.run([helm, *args], env_extra=env, check=False)
            assert p.returncode == 0, p.stderr
            return p.stdout
        helm_("install", "rel", os.path.join(d, "c"), "-n", ns, "--wait", "--timeout", "60s")
        cm = sb.get(f"/api/v1/namespaces/{ns}/configmaps/rel-cm")
        assert cm["data"]["greeting"] == "hello"
        helm_("upgrade", "rel", os.path.join(d, "c"), "-n", ns, "--set", "greeting=bye")
        assert sb.get(f"/api/v1/namespaces/{ns}/configmaps/rel-cm")["data"]["greeting"] == "bye"
        releases = json.loads(helm_("list", "-n", ns, "-o", "json"))
        assert [(r["name"], r["status"], r["revision"]) for r in releases] == [("rel", "deployed", "2")]
        helm_("uninstall", "rel", "-n", ns)
        assert sb.get(f"/api/v1/namespaces/{ns}/configmaps/rel-cm") is None
