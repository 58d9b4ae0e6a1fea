"""The sealed network namespace, and the connect() trace so far."""
import errno
import os
import socket
import subprocess

import pytest

import sbcluster as sb
import conntrace


def test_namespace_has_no_route_out(cluster):
    routes = subprocess.run(["ip", "-4", "route", "show", "table", "all"], capture_output=True,
                            text=True).stdout
    assert "default" not in routes
    links = subprocess.run(["ip", "-o", "link", "show"], capture_output=True, text=True).stdout
    names = sorted(line.split(": ")[1].split("@")[0] for line in links.splitlines())
    assert names == ["lo", "sb0", "sb1"]
    addrs = subprocess.run(["ip", "-o", "-4", "addr", "show"], capture_output=True, text=True).stdout
    assert f"inet {sb.NODE_IP}/32" in addrs
    # any address outside: unreachable at once (TEST-NET-1 and a cloud metadata address)
    for addr in ("192.0.2.1", "169.254.169.254"):
        s = socket.socket()
        s.settimeout(2)
        with pytest.raises(OSError) as e:
            s.connect((addr, 80))
        s.close()
        assert e.value.errno == errno.ENETUNREACH, addr


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


def test_host_namespace_cannot_reach_the_cluster(cluster):
    """From the machine's own network namespace the API server is not there."""
    outside = _outside_netns()
    if outside is None:
        pytest.skip("no process outside the cluster's namespace among our ancestors")
    probe = ("import socket\ns=socket.socket(); s.settimeout(2)\n"
             "try:\n s.connect(('127.0.2.1', 443)); print('connected')\n"
             "except OSError as e: print('error', e.errno)\n")
    out = subprocess.run(["nsenter", "--net=" + outside, "--", "/usr/bin/python3", "-c", probe],
                         capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip().startswith("error"), out.stdout


def test_connect_trace_so_far(cluster):
    """With SB_TRACE_CONNECT (tests/suites/50-cluster.sh sets it) every
    component's connect() calls up to now; the full cycle, down included,
    is checked by the suite after cluster-down."""
    d = os.environ.get("SB_TRACE_CONNECT")
    if not d or not os.path.isdir(d):
        pytest.skip("the cluster was not started with SB_TRACE_CONNECT")
    summary, bad, n = conntrace.check_dir(d)
    assert n >= 8, summary
    assert not bad, "\n".join(f"{f}: {why}: {line}" for f, why, line in bad[:20])
