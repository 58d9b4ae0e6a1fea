"""The fault helpers (tests/cluster/fault.sh, sb.fault): each fault really
happens (the node goes NotReady, containerd stops answering, the API server
refuses connections) and the cluster comes back. Each test restores what it
broke, also when it fails."""
import errno
import socket
import subprocess
import time

import pytest

import sbcluster as sb

# stops kubelets, containerd, a node, the control plane (tests/pytest.ini)
pytestmark = pytest.mark.serial


def victim():
    """The node the node faults hit: the last one."""
    return sb.NODES[-1]


def refused(ip, port):
    s = socket.socket()
    s.settimeout(5)
    try:
        s.connect((ip, port))
        return False
    except OSError as e:
        return e.errno == errno.ECONNREFUSED
    finally:
        s.close()


def test_stopped_kubelet_makes_the_node_not_ready_in_seconds(cluster):
    node = victim()
    name = "kubelet-" + sb.letter(node)
    sb.wait_for(lambda: sb.node_ready(node) == "True", 60, interval=0.5, what=f"{node} Ready")
    t0 = time.monotonic()
    sb.fault("stop", name)
    try:
        assert sb.fault("state", name).strip() == "stopped"
        # kube-controller-manager: --node-monitor-grace-period=10s, leases every 2 s
        sb.wait_for(lambda: sb.node_ready(node) == "Unknown", 45, interval=0.5, what=f"{node} NotReady")
        took = time.monotonic() - t0
        print(f"{node} NotReady {took:.1f} s after its kubelet stopped")
        # the other nodes stay Ready
        for n in sb.NODES:
            if n != node:
                assert sb.node_ready(n) == "True", n
    finally:
        sb.fault("start", name)
    # fault.sh start kubelet-X returns once the node is Ready again
    assert sb.node_ready(node) == "True"


def test_killed_containerd_then_started(ns):
    node = victim()
    name = "containerd-" + sb.letter(node)
    sb.apply(sb.simple_pod("before", ["sleep", "600"], node=node), namespace=ns)
    before = sb.wait_pod_phase("before", ns, ("Running",))
    cid = before["status"]["containerStatuses"][0]["containerID"].split("://", 1)[1]
    sb.fault("kill", name)
    try:
        assert sb.fault("state", name).strip() == "stopped"
        # nothing answers on its socket
        p = subprocess.run(["ctr", "-a", sb.containerd_sock(node), "--timeout", "5s", "version"],
                           capture_output=True, text=True, timeout=30)
        assert p.returncode != 0 and "Server:" not in p.stdout, p.stdout
    finally:
        sb.fault("start", name)
    assert sb.fault("state", name).strip() == "running"
    # the container outlived containerd (its shim kept it), and the node
    # runs new pods
    assert cid in sb.ctr("tasks", "ls", node=node)
    sb.apply(sb.simple_pod("after", ["echo", "after"], node=node), namespace=ns)
    p = sb.wait_pod_done("after", ns)
    assert p["status"]["phase"] == "Succeeded" and sb.logs("after", ns) == "after\n"
    assert sb.pod("before", ns)["status"]["phase"] == "Running"


def test_restarted_node_restarts_its_pods(ns):
    node = victim()
    sb.apply(sb.simple_pod("sleeper", ["sleep", "600"], node=node, restart="Always"), namespace=ns)
    p = sb.wait_pod_phase("sleeper", ns, ("Running",))
    cid = p["status"]["containerStatuses"][0]["containerID"]
    sb.fault("restart-node", sb.letter(node))
    for c in ("containerd", "kubelet", "kube-proxy"):
        assert sb.fault("state", f"{c}-{sb.letter(node)}").strip() == "running"
    assert cid.split("://", 1)[1] not in sb.ctr("tasks", "ls", node=node)

    def restarted():
        p = sb.pod("sleeper", ns)
        cs = (p["status"].get("containerStatuses") or [{}])[0]
        return p if cs.get("containerID") not in (None, cid) and "running" in (cs.get("state") or {}) else None
    p = sb.wait_for(restarted, 90, interval=0.5, what="the sleeper running again in a new container")
    assert p["spec"]["nodeName"] == node
    assert sb.node_ready(node) == "True"


def test_control_plane_stop_refuses_then_comes_back(ns):
    sb.apply({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "kept"}, "data": {"k": "v"}},
             namespace=ns)
    sb.fault("stop-control-plane")
    try:
        assert sb.fault("state", "kube-apiserver").strip() == "stopped"
        assert sb.fault("state", "etcd").strip() == "stopped"
        assert refused(sb.API_IP, 443)
        assert refused("127.0.0.1", 2379)
        with pytest.raises(sb.ClusterError):
            sb.kubectl("get", "--raw", "/readyz", timeout=20)
    finally:
        sb.fault("start-control-plane")
    assert sb.kubectl("get", "--raw", "/readyz").strip() == "ok"
    # etcd kept its data
    assert sb.get(f"/api/v1/namespaces/{ns}/configmaps/kept")["data"] == {"k": "v"}
    # and the nodes are (or soon are again) Ready
    for n in sb.NODES:
        sb.wait_for(lambda n=n: sb.node_ready(n) == "True", 60, interval=0.5, what=f"{n} Ready")
