"""fault.sh's clock and link faults (clock X OFFSET, netem X delay/loss):
each is measured where it should show (a runner pod's CLOCK_REALTIME, a
round trip through the node's link, datagrams leaving it), is absent
elsewhere, and is gone after reset. Serial: while a fault is set, every
container created on the node, or every packet leaving it, has it.

The clock fault preloads libfaketime, which only dynamically linked
programs load: its runner pods use the test-only image
localhost/storagebench-dyn:<VERSION> (the runner linked against the shared
libraries), and a control shows that the product image's static runner on
the shifted node reads the machine's clock.

No assertion depends on the machine's speed: a shifted clock is bracketed
by the test's own clock read before the pod was created and after it
ended (plus the offset); a delay is a lower bound on every round trip
(the minimum of several); a loss rate is checked against binomial bounds
many standard deviations wide."""
import json
import os
import re
import socket
import subprocess
import time

import pytest

import sbcluster as sb
import sbrun

pytestmark = [pytest.mark.serial]
LAST = sb.NODES[-1]
LOG_LINE = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z (debug|info|warn|error) ")
FIRST = sb.NODES[0]


@pytest.fixture
def ns():
    with sb.namespace("wf") as n:
        yield n


def runner_clock(ns, name, node, image=sb.DYN_IMAGE):
    """(before, the runner's CLOCK_REALTIME in seconds, after, the pod): a
    runner pod pinned to node, a tiny job whose JSON result carries
    gettimeofday() ("timestamp_ms"). image: the test-only dynamically
    linked runner (the clock fault's preload reaches it), or sb.IMAGE, the
    product's static one (it does not)."""
    pod = sb.simple_pod(name, ["--name=t", "--filename=/data/f", "--size=64k", "--rw=read", "--bs=4k",
                               "--output-format=json"], image=image,
                        command=["/usr/local/bin/storagebench-runner"], node=node,
                        volumes=[{"name": "d", "emptyDir": {}}], mounts=[{"name": "d", "mountPath": "/data"}])
    before = time.time()
    sb.apply([pod], namespace=ns)
    p = sb.wait_pod_done(name, ns, timeout=120)
    after = time.time()
    out = sb.logs(name, ns)
    assert sb.exit_code(p) == 0, out
    # the pod's log holds stdout and stderr as their lines came: the JSON
    # document and the runner's log lines ("<time> info ...") in any order
    doc = json.loads("\n".join(x for x in out.splitlines() if not LOG_LINE.match(x)))
    return before, doc["timestamp_ms"] / 1000.0, after, p


def test_clock_offset_shifts_a_runner_pods_realtime_clock_and_is_undone(ns):
    off = 3600.0
    try:
        sb.fault("clock", LAST, "+1h")
        b, t, a, p = runner_clock(ns, "shifted", LAST)
        # the pod ran between the test's two reads: its clock, less the offset, too
        assert b + off - 1 <= t <= a + off + 1, (b, t, a)
        assert p["spec"]["containers"][0]["image"] == sb.DYN_IMAGE
        # another node's containers keep the machine's clock
        b, t, a, _ = runner_clock(ns, "other-node", FIRST)
        assert b - 1 <= t <= a + 1, (b, t, a)
        # a negative offset below a second
        sb.fault("clock", LAST, "-250ms")
        b, t, a, _ = runner_clock(ns, "small", LAST)
        assert b - 0.25 - 1 <= t <= a - 0.25 + 0.05, (b, t, a)
    finally:
        sb.fault("clock", LAST, "reset")
    b, t, a, _ = runner_clock(ns, "reset", LAST)
    assert b - 1 <= t <= a + 1, (b, t, a)
    # the node's own clock was never touched: its Ready heartbeat is recent
    node = sb.get(f"/api/v1/nodes/{LAST}")
    beat = [c["lastHeartbeatTime"] for c in node["status"]["conditions"] if c["type"] == "Ready"][0]
    assert abs(time.mktime(time.strptime(beat, "%Y-%m-%dT%H:%M:%SZ")) - time.timezone - time.time()) < 120


def test_clock_offset_does_not_shift_the_static_product_runner(ns):
    """The control: the product image's runner is static (no loader, so no
    LD_PRELOAD): on the shifted node, in the same fault window in which the
    dynamically linked runner reads the offset, it reads the machine's
    clock. The clock fault covers the test image, never the product's."""
    off = 3600.0
    try:
        sb.fault("clock", LAST, "+1h")
        b, t, a, _ = runner_clock(ns, "dyn", LAST)
        assert b + off - 1 <= t <= a + off + 1, (b, t, a)
        b, t, a, p = runner_clock(ns, "static", LAST, image=sb.IMAGE)
        assert b - 1 <= t <= a + 1, (b, t, a)
        assert p["spec"]["nodeName"] == LAST
    finally:
        sb.fault("clock", LAST, "reset")


def test_benchmarkrun_with_the_dyn_runner_image_runs_on_the_shifted_clock(ns):
    """What the distributed-run tests build on: a BenchmarkRun whose
    spec.runner.image is the dynamically linked runner image (allowed by
    the controller's policy, --runner-allowed-images), its runner pod on
    the shifted node: the run succeeds, and its result was measured by a
    runner that read the shifted clock."""
    sbrun.install_crd()
    sb.apply(sbrun.RUNNER_RBAC, namespace=ns)
    c = sbrun.Controller(ns, extra=[f"--runner-allowed-images={sb.DYN_REPO}"])
    off = 3600.0
    try:
        sb.fault("clock", LAST, "+1h")
        before = time.time()
        sb.apply(sbrun.small("shifted", classes=(sb.FAST,), iterations=1,
                             extra=f"    image: {sb.DYN_IMAGE}\n"
                                   f"    nodeSelector: {{kubernetes.io/hostname: {LAST}}}"), namespace=ns)
        st = sbrun.wait_phase(ns, "shifted", timeout=240)
        after = time.time()
        assert st["phase"] == "Succeeded", (st, c.log[-3000:])
        res = sbrun.results(ns, "shifted")
        assert list(res) == [(sb.FAST, 1)], res
        t = res[(sb.FAST, 1)]["timestamp_ms"] / 1000.0
        assert before + off - 1 <= t <= after + off + 1, (before, t, after)
    finally:
        sb.fault("clock", LAST, "reset")
        c.stop()


def test_bad_clock_offset_is_refused_naming_it():
    with pytest.raises(sb.ClusterError) as e:
        sb.fault("clock", LAST, "+5 minutes")
    assert "clock offset '+5 minutes'" in str(e.value)
    with pytest.raises(sb.ClusterError) as e:
        sb.fault("clock", LAST, "+5w")
    assert "unit 'w'" in str(e.value)


def connect_times(ip, port, n=15):
    """Seconds each of n TCP connects to ip:port took (SYN to SYN-ACK)."""
    out = []
    for _ in range(n):
        t = time.monotonic()
        socket.create_connection((ip, port), timeout=10).close()
        out.append(time.monotonic() - t)
    return out


def node_ip(name):
    return sb.NODE_IPS[name]


def test_netem_delay_is_on_every_round_trip_through_the_node_and_is_undone():
    delay = 0.05  # wide enough that the undelayed minimum is clearly below it
    try:
        sb.fault("netem", LAST, "delay", "50ms")
        assert sb.fault("netem", LAST, "state").strip().endswith("netem delay 50000us")
        slow = connect_times(node_ip(LAST), 10248)
        assert min(slow) >= delay, slow
        # the other nodes' links are as they were: faster than the delay
        assert min(connect_times(node_ip(FIRST), 10248)) < delay
        # the node still works through the slow link: Ready, its kubelet answers the API
        assert sb.node_ready(LAST) == "True"
    finally:
        sb.fault("netem", LAST, "reset")
    assert sb.fault("netem", LAST, "state").strip() == "none"
    assert min(connect_times(node_ip(LAST), 10248)) < delay
    rules = sb.in_node(LAST, ["iptables-save", "-t", "mangle"]).stdout
    assert "SB-NETEM" not in rules and "NFQUEUE" not in rules, rules
    assert "netem.py" not in subprocess.run(["ps", "-eo", "args"], capture_output=True, text=True).stdout


def datagrams_received(n, port):
    """Sends n UDP datagrams from node LAST to the control plane (this
    process's namespace); returns how many arrived."""
    rx = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    rx.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1 << 22)
    rx.bind((sb.API_IP, port))
    rx.settimeout(2)
    sender = ("import socket,time\ns=socket.socket(socket.AF_INET,socket.SOCK_DGRAM)\n"
              f"for i in range({n}):\n s.sendto(b'x%d' % i, ('{sb.API_IP}', {port}))\n time.sleep(0.001)\n")
    sb.in_node(LAST, ["/usr/bin/python3", "-c", sender])
    got = 0
    try:
        while True:
            rx.recv(64)
            got += 1
    except socket.timeout:
        pass
    finally:
        rx.close()
    return got


def test_netem_loss_drops_about_that_share_and_is_undone():
    n = 400
    port = 17000 + os.getpid() % 500
    try:
        sb.fault("netem", LAST, "loss", "30%")
        got = datagrams_received(n, port)
        # binomial(400, 0.7): mean 280, sd 9.2; these bounds are 8 sd away
        assert 205 <= got <= 355, got
    finally:
        sb.fault("netem", LAST, "reset")
    assert datagrams_received(n, port) == n


def test_bad_netem_arguments_are_refused_naming_them():
    for args, msg in ((["delay", "2"], "netem delay '2'"), (["loss", "0.1"], "netem loss '0.1'"),
                      (["loss", "150%"], "from 0% to 100%"), (["jitter", "1ms"], "'jitter'")):
        with pytest.raises(sb.ClusterError) as e:
            sb.fault("netem", LAST, *args)
        assert msg in str(e.value), (args, str(e.value))
    assert sb.fault("netem", LAST, "state").strip() == "none"
