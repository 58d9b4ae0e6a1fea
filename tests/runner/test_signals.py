"""SIGTERM and SIGINT in every mode (docs/runner.md, "Signals"): the runner
stops issuing I/O, keeps what was complete, marks what was running as
interrupted (never as a result) and exits 128 + the signal (143, 130) within
seconds, not at the end of its runtime. Each test starts a long job and
signals it once a progress line says it is measuring (not after a sleep).
A second signal exiting at once is tests/unit/runner/test_runner_stop.c's case."""
import http.server
import json
import os
import shutil
import signal
import subprocess
import tempfile
import threading
import time

import pytest

from proc import Proc
from s3mock import ACCESS, SECRET, S3Mock

MEASURING = "Measured the first second"  # the runner's debug line once a job measures


@pytest.fixture
def shm():
    """A directory on tmpfs (/dev/shm): fast I/O that does not load the disk."""
    d = tempfile.mkdtemp(prefix="sb-sig-", dir="/dev/shm")
    yield d
    shutil.rmtree(d, ignore_errors=True)


def long_job(directory, *extra):
    return ["--name=t", "--rw=randwrite", "--bs=4k", "--size=4m", "--time_based",
            "--runtime=60", f"--directory={directory}", "--log-level=debug", *extra]


def test_sigterm_json_partial_marked_exit_143(shm):
    p = Proc(long_job(shm, "--output-format=json"))
    p.wait_line(MEASURING)
    rc, secs = p.signal_and_wait(signal.SIGTERM)
    assert rc == 143, p
    assert secs < 10, p
    doc = json.loads(p.out)  # still exactly one document
    assert doc["interrupted"] == "SIGTERM"
    job = doc["jobs"][0]
    assert job["write"]["total_ios"] > 0
    assert 1000 <= job["write"]["runtime"] < 60000  # measured a second, stopped before 60
    assert len(job["storagebench"]["write"]["ios_series"]) >= 1
    assert "Stopped by a signal" in p.err


def test_sigint_text_marked_exit_130(shm):
    p = Proc(long_job(shm))
    p.wait_line(MEASURING)
    rc, secs = p.signal_and_wait(signal.SIGINT)
    assert rc == 130, p
    assert secs < 10, p
    assert "=== interrupted by SIGINT: partial results" in p.out
    assert "write: IOPS=" in p.out  # what ran is printed, as fio does


def report_rows(node):
    """The report's per-workload entries (they carry workload and iterations)."""
    if isinstance(node, dict):
        if "workload" in node and "iterations" in node:
            yield node
        for v in node.values():
            yield from report_rows(v)
    elif isinstance(node, list):
        for v in node:
            yield from report_rows(v)


def test_sigterm_keeps_completed_iterations(shm):
    args = long_job(shm, "--output-format=json", "--iterations=3")
    args[args.index("--runtime=60")] = "--runtime=4"
    p = Proc(args)
    p.wait_line("iteration=2")  # the runner's "Started iteration iteration=2 of=3"
    p.wait_line(MEASURING)
    rc, secs = p.signal_and_wait(signal.SIGTERM)
    assert rc == 143, p
    assert secs < 10, p
    doc = json.loads(p.out)
    runs = doc["runs"]
    # the last run is the interrupted one, every run before it is complete
    assert len(runs) >= 2, p
    assert runs[-1]["interrupted"] == "SIGTERM"
    assert all("interrupted" not in r for r in runs[:-1])
    rows = list(report_rows(doc["report"]))
    assert rows, doc["report"]
    assert all(r["iterations"] == len(runs) - 1 for r in rows), rows


# ---------------------------------------------------------------- pod mode

class FakeAPI:
    """The few ConfigMap calls pod mode makes: GET (nothing is there yet) and
    POST (recorded). Plain HTTP on loopback."""

    def __init__(self):
        self.created = []
        self.lock = threading.Lock()
        api = self

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *a):
                pass

            def _reply(self, code, body):
                data = json.dumps(body).encode()
                self.send_response(code)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def do_GET(self):
                self._reply(404, {"kind": "Status", "apiVersion": "v1", "status": "Failure",
                                  "reason": "NotFound", "code": 404,
                                  "message": f"{self.path} not found"})

            def do_POST(self):
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                with api.lock:
                    api.created.append(body)
                self._reply(201, body)

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    @property
    def url(self):
        return f"http://127.0.0.1:{self.server.server_address[1]}"

    def stop(self):
        self.server.shutdown()
        self.server.server_close()


def can_unshare():
    if os.geteuid() != 0 or not shutil.which("unshare"):
        return False
    p = subprocess.run(["unshare", "--mount", "--propagation", "private", "true"],
                       capture_output=True)
    return p.returncode == 0


def test_pod_sigterm_keeps_recorded_iterations(shm, tmp):
    """Pod mode against a fake API server: the signing key where the pod has it
    (/var/run/secrets/..., on a tmpfs in a private mount namespace)."""
    if not can_unshare():
        pytest.skip("needs root and unshare --mount (the run key's fixed path)")
    api = FakeAPI()
    try:
        key = os.path.join(tmp, "key")
        with open(key, "wb") as f:
            f.write(os.urandom(32))
        kubeconfig = os.path.join(tmp, "kubeconfig")
        with open(kubeconfig, "w") as f:
            f.write(f"""apiVersion: v1
kind: Config
clusters: [{{name: c, cluster: {{server: "{api.url}"}}}}]
users: [{{name: u, user: {{token: t}}}}]
contexts: [{{name: x, context: {{cluster: c, user: u, namespace: ns}}}}]
current-context: x
""")
        term = os.path.join(tmp, "termination-log")
        keydir = "/var/run/secrets/storagebench.io/run-key"
        script = (f"mount -t tmpfs tmpfs /run && mkdir -p {keydir} && "
                  f"cp {key} {keydir}/key && exec \"$@\"")
        env = {"SB_RUN": "r", "SB_RUN_UID": "uid-1", "SB_CLASS": "fast", "SB_NAMESPACE": "ns",
               "SB_POD_NAME": "r-fast-1", "SB_ITERATIONS": "3", "SB_ATTEMPT": "1",
               "SB_TERMINATION_LOG": term, "KUBECONFIG": kubeconfig}
        args = long_job(shm)
        args[args.index("--runtime=60")] = "--runtime=4"
        p = Proc(["pod", *args], env=env,
                 prefix=["unshare", "--mount", "--propagation", "private", "sh", "-c",
                         script, "sh"])
        p.wait_line("Recorded iteration")  # iteration 1 is a result
        p.wait_line(MEASURING)  # iteration 2 is measuring
        rc, secs = p.signal_and_wait(signal.SIGTERM)
        assert rc == 143, p
        assert secs < 10, p
        with open(term) as f:
            msg = f.read()
        # "iteration K interrupted by SIGTERM: not recorded; K-1 iterations recorded, ..."
        assert " interrupted by SIGTERM: not recorded; " in msg, msg
        k = int(msg.split()[1])
        assert k >= 2, msg
        results = [c for c in api.created
                   if c["metadata"]["labels"].get("app.kubernetes.io/component") == "result"]
        recorded = sorted(int(c["metadata"]["labels"]["storagebench.io/iteration"])
                          for c in results)
        assert recorded == list(range(1, k)), (recorded, msg)
        assert f"{k - 1} iterations recorded" in msg
        # what was recorded is a complete iteration, not a partial one
        for c in results:
            doc = json.loads(c["data"]["result.json"])
            assert "interrupted" not in doc
            assert doc["jobs"][0]["write"]["runtime"] >= 3000
        assert f"iteration {k} of 3: interrupted by SIGTERM, partial, not recorded" in p.err
    finally:
        api.stop()


# ---------------------------------------------------------------- s3 mode

def test_s3_sigterm_stops_and_cleans_up():
    m = S3Mock()
    try:
        p = Proc(["s3", "--host", m.host, "--log-level", "warn", "--obj.size", "4KiB",
                  "--concurrent", "2", "--duration", "60s", "--output-format=json", "put"],
                 env={"AWS_ACCESS_KEY_ID": ACCESS, "AWS_SECRET_ACCESS_KEY": SECRET})
        deadline = time.monotonic() + 60
        while m.requests < 10:  # it is measuring: requests reach the server
            assert p.p.poll() is None, p
            assert time.monotonic() < deadline, "no requests within 60 s"
            time.sleep(0.02)
        rc, secs = p.signal_and_wait(signal.SIGTERM)
        assert rc == 143, p
        assert secs < 10, p
        doc = json.loads(p.out)
        assert doc["interrupted"] == "SIGTERM"
        put = [j for j in doc["jobs"] if j["storagebench"]["s3"]["op"] == "PUT"][0]
        assert put["storagebench"]["s3"]["requests"] > 0
        assert m.buckets == {}  # its objects and bucket removed on the way out
    finally:
        m.stop()
