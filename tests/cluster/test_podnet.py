"""The pod network: every pod has its own address in its node's pod range
(CNI bridge + host-local), pods talk to pods on other nodes, to Services
(kube-proxy, iptables mode) and to the API server through the `kubernetes`
Service with the mounted token and CA, and nothing gets out."""
import errno
import ipaddress
import os

import pytest

import sbcluster as sb
import sbrun

# one xdist worker runs this module (tests/suites/50-cluster.sh, --dist loadgroup):
# its module-scoped fixture is made once
pytestmark = pytest.mark.xdist_group("cluster-podnet")

PORT = 8080


def node_cidr(node):
    return ipaddress.ip_network(f"10.244.{sb.NODES.index(node) + 1}.0/24")


@pytest.fixture(scope="module")
def net(cluster):
    """An echo server on every node, a Service over all of them and one over
    the last node's only; the RBAC and CRD the in-cluster API test needs."""
    sbrun.install_crd()
    with sb.namespace("podnet") as ns:
        objs = []
        for n in sb.NODES:
            objs.append(sb.simple_pod(f"srv-{sb.letter(n)}", ["serve", str(PORT)], node=n,
                                      labels={"app": "echo", "node": sb.letter(n)}, ports=[PORT]))
        objs.append({"apiVersion": "v1", "kind": "Service", "metadata": {"name": "echo"},
                     "spec": {"selector": {"app": "echo"}, "ports": [{"port": 80, "targetPort": PORT}]}})
        last = sb.letter(sb.NODES[-1])
        objs.append({"apiVersion": "v1", "kind": "Service", "metadata": {"name": "echo-last"},
                     "spec": {"selector": {"app": "echo", "node": last}, "ports": [{"port": 81, "targetPort": PORT}]}})
        objs += [
            {"apiVersion": "v1", "kind": "ServiceAccount", "metadata": {"name": "lister"}},
            {"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "Role", "metadata": {"name": "lister"},
             "rules": [{"apiGroups": ["storagebench.io"], "resources": ["benchmarkruns"], "verbs": ["list"]}]},
            {"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "RoleBinding", "metadata": {"name": "lister"},
             "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": "lister"},
             "subjects": [{"kind": "ServiceAccount", "name": "lister", "namespace": ns}]},
            {"apiVersion": "v1", "kind": "ServiceAccount", "metadata": {"name": "nobody"}},
        ]
        sb.apply(objs, namespace=ns)
        for n in sb.NODES:
            sb.wait_pod_phase(f"srv-{sb.letter(n)}", ns, ("Running",))
        sb.wait_service_account("lister", ns)
        sb.wait_service_account("nobody", ns)
        yield ns


def client(ns, name, args, node=sb.NODE, **kw):
    """Runs a one-shot pod on node; returns (pod, its log)."""
    sb.apply(sb.simple_pod(name, args, node=node, **kw), namespace=ns)
    p = sb.wait_pod_done(name, ns)
    return p, sb.logs(name, ns)


def test_pods_have_their_own_address_in_their_nodes_range(net):
    for n in sb.NODES:
        p = sb.pod(f"srv-{sb.letter(n)}", net)
        assert p["spec"]["nodeName"] == n
        assert not p["spec"].get("hostNetwork")
        ip = ipaddress.ip_address(p["status"]["podIP"])
        assert ip in node_cidr(n), (n, ip)
        assert p["status"]["hostIP"] == sb.NODE_IPS[n]
        assert str(ip) != p["status"]["hostIP"]


def test_pod_to_pod_across_nodes(net):
    target = sb.NODES[-1]
    ip = sb.pod(f"srv-{sb.letter(target)}", net)["status"]["podIP"]
    p, out = client(net, "p2p", ["get", ip, str(PORT)], node=sb.NODE)
    assert p["status"]["phase"] == "Succeeded", out
    assert out == f"hello from srv-{sb.letter(target)}\n"
    if len(sb.NODES) > 1:
        assert p["spec"]["nodeName"] != target


def test_pod_to_service_cluster_ip(net):
    svc = sb.get(f"/api/v1/namespaces/{net}/services/echo-last")
    ip = svc["spec"]["clusterIP"]
    assert ipaddress.ip_address(ip) in ipaddress.ip_network(sb.SERVICE_CIDR)
    ep = sb.wait_for(lambda: (sb.get(f"/api/v1/namespaces/{net}/endpoints/echo-last").get("subsets") or None),
                     30, what="endpoints of echo-last")
    assert [a["nodeName"] for a in ep[0]["addresses"]] == [sb.NODES[-1]]
    p, out = client(net, "p2svc", ["get", ip, "81"], node=sb.NODE)
    assert p["status"]["phase"] == "Succeeded", out
    assert out == f"hello from srv-{sb.letter(sb.NODES[-1])}\n"
    # the Service over every node: answered by one of them
    ip = sb.get(f"/api/v1/namespaces/{net}/services/echo")["spec"]["clusterIP"]
    p, out = client(net, "p2svc-all", ["get", ip, "80"], node=sb.NODES[-1])
    assert p["status"]["phase"] == "Succeeded", out
    assert out.strip() in {f"hello from srv-{sb.letter(n)}" for n in sb.NODES}


def test_pod_to_api_through_the_kubernetes_service(net):
    """A pod's in-cluster configuration (KUBERNETES_SERVICE_HOST=10.96.0.1,
    the mounted token and ca.crt) reaches the API server: the plugin (static,
    bin/ mounted into the project image, which holds only the controller and
    the runner) lists BenchmarkRuns with it (libcurl verifies the serving
    certificate against ca.crt), and a ServiceAccount without the Role is
    refused by RBAC (so the token was read and checked)."""
    cmd = ["/sb/kubectl-storagebench"]
    bin_dir = {"volumes": [{"name": "bin", "hostPath": {"path": os.path.join(sb.ROOT, "bin"), "type": "Directory"}}],
               "mounts": [{"name": "bin", "mountPath": "/sb", "readOnly": True}]}
    p, out = client(net, "api-ok", ["list", "-n", net], image=sb.IMAGE, command=cmd,
                    service_account="lister", node=sb.NODES[-1], **bin_dir)
    assert p["status"]["phase"] == "Succeeded", out
    assert f"No resources found in {net} namespace." in out
    p, out = client(net, "api-denied", ["list", "-n", net], image=sb.IMAGE, command=cmd,
                    service_account="nobody", **bin_dir)
    assert p["status"]["phase"] == "Failed", out
    assert "forbidden" in out.lower() and "cannot list benchmarkruns" in out, out


def test_pods_cannot_get_out(net):
    p, out = client(net, "out", ["get", "192.0.2.1", "80"])
    assert p["status"]["phase"] == "Failed", out
    assert out.strip() in (f"connect: errno {errno.ENETUNREACH} (Network is unreachable)",
                           f"connect: errno {errno.EHOSTUNREACH} (No route to host)"), out
