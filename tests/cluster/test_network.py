"""The sealed network: the control plane's and the nodes' namespaces have
no route out, the host namespace does not reach the cluster, and the
connect() trace so far holds only the cluster's own addresses."""
import errno
import os
import socket
import subprocess

import pytest

import sbcluster as sb
import conntrace

PROBE = ("import socket, sys\n"
         "for a in sys.argv[1:]:\n"
         " s = socket.socket(); s.settimeout(2)\n"
         " try:\n  s.connect((a, 80)); print(a, 'connected')\n"
         " except OSError as e: print(a, 'errno', e.errno)\n")


def test_control_plane_namespace_has_no_route_out(cluster):
    routes = subprocess.run(["ip", "-4", "route", "show", "table", "all"], capture_output=True,
                            text=True).stdout
    assert "default" not in routes
    links = subprocess.run(["ip", "-o", "link", "show"], capture_output=True, text=True).stdout
    names = sorted(line.split(": ")[1].split("@")[0] for line in links.splitlines())
    assert names == sorted(["lo", "sbbr0"] + [f"veth-{sb.letter(n)}" for n in sb.NODES])
    addrs = subprocess.run(["ip", "-o", "-4", "addr", "show"], capture_output=True, text=True).stdout
    assert f"inet {sb.API_IP}/24" in addrs
    # the pod networks are routed to their nodes, nothing else
    for name, ip in sb.NODE_IPS.items():
        assert f"via {ip}" in routes, name
    # any address outside: unreachable at once (TEST-NET-1 and a cloud metadata address)
    for addr in ("192.0.2.1", "169.254.169.254"):
        s = socket.socket()
        s.settimeout(2)
        with pytest.raises(OSError) as e:
            s.connect((addr, 80))
        s.close()
        assert e.value.errno == errno.ENETUNREACH, addr


@pytest.mark.parametrize("idx", [0, 1, 2])
def test_node_namespace_has_no_route_out(cluster, idx):
    if idx >= len(sb.NODES):
        pytest.skip(f"the cluster has {len(sb.NODES)} node(s)")
    node = sb.NODES[idx]
    routes = sb.in_node(node, ["ip", "-4", "route", "show", "table", "all"]).stdout
    assert "default" not in routes
    addrs = sb.in_node(node, ["ip", "-o", "-4", "addr", "show", "eth0"]).stdout
    assert f"inet {sb.NODE_IPS[node]}/24" in addrs
    out = sb.in_node(node, ["/usr/bin/python3", "-c", PROBE, "192.0.2.1", "169.254.169.254"]).stdout
    assert out.split("\n")[:2] == [f"192.0.2.1 errno {errno.ENETUNREACH}",
                                   f"169.254.169.254 errno {errno.ENETUNREACH}"], out


def _outside_netns():
    """/proc/PID/ns/net of the nearest ancestor outside the cluster's namespace."""
    mine = os.stat("/proc/self/ns/net").st_ino
    pid = os.getppid()
    while pid > 1:
        try:
            if os.stat(f"/proc/{pid}/ns/net").st_ino != mine:
                return f"/proc/{pid}/ns/net"
            with open(f"/proc/{pid}/status") as f:
                pid = int(next(x for x in f if x.startswith("PPid:")).split()[1])
        except (OSError, StopIteration):
            break
    return None


def test_host_namespace_untouched(cluster):
    """The machine's own network namespace has none of the cluster's
    addresses, routes or iptables rules (kube-proxy's and the CNI plugins'
    live in the nodes' namespaces). Nothing is sent from it: a probe there
    could leave the machine by its default route."""
    outside = _outside_netns()
    if outside is None:
        pytest.skip("no process outside the cluster's namespace among our ancestors")

    def host(*cmd):
        p = subprocess.run(["nsenter", "--net=" + outside, "--", *cmd], capture_output=True, text=True)
        assert p.returncode == 0, p.stderr
        return p.stdout
    addrs = host("ip", "-o", "-4", "addr", "show")
    routes = host("ip", "-4", "route", "show", "table", "all")
    for net in ("10.254.254.", "10.244.", "10.96.0."):
        assert net not in addrs and net not in routes, net
    links = host("ip", "-o", "link", "show")
    assert "sbbr0" not in links and "cni0" not in links
    rules = host("iptables-save")
    assert "KUBE-" not in rules and "CNI-" not in rules
    # while a node's namespace has kube-proxy's rules
    assert "KUBE-SERVICES" in sb.in_node(sb.NODE, ["iptables-save"]).stdout


def test_connect_trace_so_far(cluster):
    """With SB_TRACE_CONNECT (tests/suites/50-cluster.sh sets it) every
    component's connect() calls up to now; the full cycle, down included,
    is checked by the suite after cluster-down."""
    d = os.environ.get("SB_TRACE_CONNECT")
    if not d or not os.path.isdir(d):
        pytest.skip("the cluster was not started with SB_TRACE_CONNECT")
    summary, bad, n = conntrace.check_dir(d)
    assert n >= 6 + 3 * len(sb.NODES), summary
    assert not bad, "\n".join(f"{f}: {why}: {line}" for f, why, line in bad[:20])


def test_conntrace_allows_only_the_clusters_networks():
    """The trace check itself (no cluster needed): the cluster's ranges and
    TEST-NET-1 pass, anything else is reported."""
    line = 'connect(3, {sa_family=AF_INET, sin_port=htons(%d), sin_addr=inet_addr("%s")}, 16) = 0'
    for addr in ("127.0.0.1", "10.254.254.1", "10.254.254.13", "10.244.3.7", "10.96.0.1", "192.0.2.1"):
        assert conntrace.check_line(line % (443, addr)) is None, addr
    for addr in ("169.254.169.254", "10.254.255.1", "10.97.0.1", "8.8.8.8", "192.0.3.1"):
        assert conntrace.check_line(line % (80, addr)) == f"{addr}:80", addr
    assert conntrace.check_line('connect(3, {sa_family=AF_UNIX, sun_path="/x"}, 110) = 0') is None
