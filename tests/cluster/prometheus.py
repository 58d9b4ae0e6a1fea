"""A real Prometheus in the test world (Debian's `prometheus`, installed by
scripts/deps/chart.list): started inside the cluster's network namespace on
a loopback port of the pytest worker's range, scraping the targets it is
given (the controllers' /metrics, 127.0.0.1:PORT in that namespace) every
second, with the chart's rules loaded when given; its data and log under
build/ (sb.log_path), removed at stop.

    with Prometheus(["127.0.0.1:18101"], rules=path) as prom:
        prom.wait(lambda: prom.query('storagebench_schedule_regressed') or None)
        prom.query('max by (schedule) (storagebench_schedule_regressed)')

query() is an instant query through the HTTP API (/api/v1/query) and
returns its result list; a query Prometheus refuses raises with its error.
Nothing waits on the wall clock but for a scrape to land (polled, bounded).
"""
import json
import os
import shutil
import subprocess
import time
import urllib.error
import urllib.parse
import urllib.request

import sbcluster as sb

PROMETHEUS = "/usr/bin/prometheus"
PROMTOOL = "/usr/bin/promtool"


class PrometheusError(Exception):
    pass


class Prometheus:
    _worker = os.environ.get("PYTEST_XDIST_WORKER", "gw")[2:]
    _next = [19100 + 200 * (int(_worker) + 1 if _worker.isdigit() else 0) + os.getpid() % 100]

    def __init__(self, targets, rules=None, interval="1s", timeout=60):
        if not os.access(PROMETHEUS, os.X_OK):
            raise PrometheusError(f"{PROMETHEUS} is missing: make deps (scripts/deps/chart.list)")
        Prometheus._next[0] += 1
        self.port = Prometheus._next[0]
        self.url = f"http://127.0.0.1:{self.port}"
        self.dir = sb.log_path(f"prometheus-{os.getpid()}-{self.port}")
        os.makedirs(self.dir, exist_ok=True)
        cfg = {
            "global": {"scrape_interval": interval, "evaluation_interval": interval},
            "scrape_configs": [{"job_name": "storagebench", "metrics_path": "/metrics",
                                "static_configs": [{"targets": list(targets)}]}],
        }
        if rules:
            cfg["rule_files"] = [rules]
        self.config = os.path.join(self.dir, "prometheus.yml")
        with open(self.config, "w") as f:
            json.dump(cfg, f)  # JSON is YAML
        self.logpath = os.path.join(self.dir, "prometheus.log")
        self._log = open(self.logpath, "w")
        self.proc = subprocess.Popen(
            sb._prefix() + [PROMETHEUS, f"--config.file={self.config}",
                            f"--storage.tsdb.path={os.path.join(self.dir, 'data')}",
                            f"--web.listen-address=127.0.0.1:{self.port}",
                            "--storage.tsdb.retention.time=1h"],
            stdout=self._log, stderr=subprocess.STDOUT)
        try:
            self.wait(self._ready, timeout=timeout, what="Prometheus ready")
        except Exception:
            self.stop()
            raise

    def _ready(self):
        if self.proc.poll() is not None:
            raise PrometheusError(f"prometheus exited {self.proc.returncode}: {self.log[-2000:]}")
        try:
            with urllib.request.urlopen(self.url + "/-/ready", timeout=2) as r:
                return r.status == 200
        except (OSError, urllib.error.URLError):
            return False

    @property
    def log(self):
        with open(self.logpath) as f:
            return f.read()

    def api(self, path, **params):
        url = f"{self.url}/api/v1/{path}?" + urllib.parse.urlencode(params)
        try:
            with urllib.request.urlopen(url, timeout=10) as r:
                body = json.load(r)
        except urllib.error.HTTPError as e:
            body = json.load(e)
        if body.get("status") != "success":
            raise PrometheusError(f"{path} {params}: {body.get('errorType')}: {body.get('error')}")
        return body["data"]

    def query(self, expr, at=None):
        params = {"query": expr}
        if at is not None:
            params["time"] = f"{at:.3f}"
        return self.api("query", **params)["result"]

    def targets_up(self):
        return [t for t in self.api("targets")["activeTargets"] if t.get("health") == "up"]

    def wait(self, fn, timeout=60, what="condition"):
        return sb.wait_for(fn, timeout=timeout, interval=0.5, what=what)

    def stop(self):
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        if not self._log.closed:
            self._log.close()

    def close(self):
        self.stop()
        shutil.rmtree(os.path.join(self.dir, "data"), ignore_errors=True)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
