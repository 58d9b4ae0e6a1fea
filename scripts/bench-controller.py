#!/usr/bin/env python3
"""bench-controller: the controller at scale on the test cluster (issue 16).

Usage (inside the cluster's network namespace; `make bench-controller` does
that with SB_PREFIX honoured):
    tests/cluster/in-netns.sh /usr/bin/python3 scripts/bench-controller.py \
        [--runs N=1000] [--real M=20] [--controller PATH] [--json FILE]

First, the API server's own pace: N runs created with no controller
watching (a run cannot be terminal before it exists, so runs/s is at most
that). Then starts the controller as the e2e tests do (a process in the cluster's
network namespace watching one fresh namespace, metrics on loopback), then:
  1. idle: RSS once the informers synced;
  2. real: M real short runs alone (class "fast", 2 iterations of two 1 s
     workloads): their duration, the API requests by verb and per iteration;
  3. mixed: N fail-fast runs (each names a missing storage class) and M real
     runs created at once (8 client threads, each run carrying kubectl's
     last-applied-configuration annotation as `kubectl apply` leaves it):
     runs/s from the first create to the last fail-fast run terminal, the
     real runs' duration beside the first phase's, RSS peak and with every
     run finished, API requests by verb, and per fail-fast run (the
     phase's less phase 2's, the same M real runs alone); then "settled":
     RSS once the last runs' pods and PVCs are deleted and no reconcile ran
     for 2 s (the controller holding 1,000+ finished runs with nothing
     left to do; "all finished" is 1 s after the last run ended, while the
     cleanup of the last real runs is still going);
  4. delete: every run deleted; RSS once the caches are empty.
RSS is sampled every 0.2 s from /proc/<pid>/status (VmRSS) and compared with
the controller's process_resident_memory_bytes; API requests come from the
controller's storagebench_api_requests_total{verb}. CPU: the controller's,
kube-apiserver's and etcd's utime+stime (/proc/<pid>/stat; the two servers
found in this cluster's network namespace) over the ceiling's creates and
over the mixed phase (to the last fail-fast run terminal, and to the end):
the controller's CPU ms per fail-fast run next to the API server's per
request, i.e. each one's runs/s per core. Prints a table and the
command; --json writes the figures. The bench itself polls (the controller
under test is watch-driven: that is what the API counts show).
"""
import argparse
import concurrent.futures
import http.client
import json
import os
import re
import subprocess
import sys
import threading
import time
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "tests", "cluster"))
import sbcluster as sb  # noqa: E402
import sbrun  # noqa: E402

MISSING_CLASS = "bench-missing-class"
VERBS = ("get", "list", "watch", "create", "update", "patch", "delete")
TERMINAL = ("Succeeded", "Failed")


def run_obj(name, classes, iterations=2, runtime="1s"):
    """A BenchmarkRun as sbrun.small() writes it, as a dict."""
    spec = {"storageClasses": list(classes), "iterations": iterations,
            "volume": {"size": "64Mi"}, "cleanup": "Always",
            "workloads": [
                {"name": "rr", "rw": "randread", "bs": "4k", "iodepth": 8, "runtime": runtime,
                 "timeBased": True},
                {"name": "sw", "rw": "write", "bs": "64k", "iodepth": 4, "runtime": runtime,
                 "timeBased": True}],
            "runner": {"imagePullPolicy": "Never"}}
    obj = {"apiVersion": "storagebench.io/v1alpha1", "kind": "BenchmarkRun",
           "metadata": {"name": name}, "spec": spec}
    # what `kubectl apply` leaves on the object
    obj["metadata"]["annotations"] = {
        "kubectl.kubernetes.io/last-applied-configuration": json.dumps(obj) + "\n"}
    return obj


class Controller:
    """The controller under test, as tests/cluster/sbrun.Controller starts it."""

    def __init__(self, binary, ns, port, extra=()):
        self.port = port
        self.logpath = sb.log_path(f"bench-controller-{ns}.log")
        self._log = open(self.logpath, "w")
        cmd = [binary, f"--kubeconfig={sb.KUBECONFIG}", f"--namespace={ns}",
               f"--metrics-bind-address=127.0.0.1:{port}", f"--runner-image={sb.IMAGE}"] + list(extra)
        # nsenter execs the controller: the pid is the controller's
        self.proc = subprocess.Popen(sb._prefix() + cmd, stdout=self._log,
                                     stderr=subprocess.STDOUT)

    def metrics_text(self):
        with urllib.request.urlopen(f"http://127.0.0.1:{self.port}/metrics", timeout=10) as r:
            return r.read().decode()

    def metrics(self):
        """{name or name{labels}: value}."""
        out = {}
        for line in self.metrics_text().splitlines():
            if line and not line.startswith("#"):
                k, _, v = line.rpartition(" ")
                out[k] = float(v)
        return out

    def rss(self, field="VmRSS"):
        """VmRSS (or RssAnon, RssFile) in bytes."""
        with open(f"/proc/{self.proc.pid}/status") as f:
            m = re.search(r"^%s:\s+(\d+) kB" % field, f.read(), re.M)
        return int(m.group(1)) * 1024

    def anon(self):
        return self.rss("RssAnon")

    def ready(self):
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{self.port}/readyz", timeout=5) as r:
                return r.status == 200
        except OSError:
            return False

    def stop(self):
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self._log.close()


CLK_TCK = os.sysconf("SC_CLK_TCK")


def cpu_s(pid):
    """pid's CPU seconds so far (utime + stime of every thread)."""
    with open(f"/proc/{pid}/stat") as f:
        rest = f.read().rpartition(")")[2].split()
    return (int(rest[11]) + int(rest[12])) / CLK_TCK  # fields 14 and 15


def server_pid(name):
    """The pid of this cluster's component NAME (kube-apiserver, etcd): the
    process named NAME in the cluster's network namespace, from its pid file
    (tests/cluster/lib.sh writes run/NAME.pid; the process itself or, under
    strace, its child) or else from /proc. None when not found."""
    try:
        want = os.stat(sb.NETNS_PATH).st_ino
    except OSError:
        return None

    def ours(pid):
        try:
            with open(f"/proc/{pid}/comm") as f:
                comm = f.read().strip()
            return comm == name[:15] and os.stat(f"/proc/{pid}/ns/net").st_ino == want
        except OSError:
            return False
    try:
        with open(os.path.join(sb.STATE, "run", name + ".pid")) as f:
            first = [f.read().strip()]
    except OSError:
        first = []
    for pid in first + sorted(p for p in os.listdir("/proc") if p.isdigit()):
        if pid and ours(pid):
            return int(pid)
    return None


class Cpu:
    """CPU seconds of the controller and the two servers, read together."""

    def __init__(self, controller_pid):
        self.pids = {"controller": controller_pid, "apiserver": server_pid("kube-apiserver"),
                     "etcd": server_pid("etcd")}

    def read(self):
        out = {}
        for k, pid in self.pids.items():
            try:
                out[k] = cpu_s(pid) if pid else None
            except OSError:
                out[k] = None
        return out


def cpu_diff(a, b):
    return {k: (b[k] - a[k] if a[k] is not None and b[k] is not None else None) for k in a}


def api_counts(m):
    return {v: int(m.get(f'storagebench_api_requests_total{{verb="{v}"}}', 0)) for v in VERBS}


def diff(a, b):
    return {k: b[k] - a[k] for k in a}


def phases(m):
    return {p: int(m.get(f'storagebench_runs{{phase="{p}"}}', 0))
            for p in ("Pending", "Running", "Succeeded", "Failed")}


def informer(m, ns, resource):
    return int(m.get(f'storagebench_informer_objects{{resource="{resource}",namespace="{ns}"}}',
                     -1))


class Sampler:
    """Samples the controller's RSS every 0.2 s in a thread; peak and last."""

    def __init__(self, c):
        self.c, self.peak, self.n = c, 0, 0
        self._stop = threading.Event()
        self._t = threading.Thread(target=self._loop, daemon=True)
        self._t.start()

    def _loop(self):
        while not self._stop.is_set():
            try:
                r = self.c.rss()
            except OSError:
                return
            self.peak, self.n = max(self.peak, r), self.n + 1
            self._stop.wait(0.2)

    def stop(self):
        self._stop.set()
        self._t.join()
        return self.peak


class KeepAlive(threading.local):
    """One HTTPS connection to the API server per thread, kept open (as a
    client-go or libcurl client does): with a TLS handshake per request
    (urllib) the bench's own Python client, not the API server, set the
    pace of the creates."""

    def __init__(self):
        super().__init__()
        self.conn = None
        self.token = sb.admin_token()

    def post(self, path, obj):
        body = json.dumps(obj).encode()
        for attempt in (1, 2):
            if self.conn is None:
                self.conn = http.client.HTTPSConnection(sb.API_IP, 443, context=sb._ssl(),
                                                        timeout=60)
            try:
                self.conn.request("POST", path, body, {
                    "Authorization": "Bearer " + self.token, "Accept": "application/json",
                    "Content-Type": "application/json"})
                r = self.conn.getresponse()
                return r.status, r.read().decode()
            except (OSError, http.client.HTTPException):
                # the server closed an idle connection: one more try on a new one
                self.conn.close()
                self.conn = None
                if attempt == 2:
                    raise


def create_all(ns, objs, threads=8, resource="benchmarkruns"):
    """Creates objs with threads concurrent keep-alive clients; raises on any
    failure."""
    if resource == "benchmarkruns":
        path = f"/apis/storagebench.io/v1alpha1/namespaces/{ns}/benchmarkruns"
    else:
        path = f"/api/v1/namespaces/{ns}/{resource}"
    client = KeepAlive()

    def one(o):
        code, body = client.post(path, o)
        if code != 201:
            raise sb.ClusterError(f"creating {o['metadata']['name']}: {code} {body[:300]}")
    with concurrent.futures.ThreadPoolExecutor(threads) as ex:
        list(ex.map(one, objs))


def api_ceiling(n, log):
    """The API server's pace for this bench's client with no controller
    running: N runs created in a namespace no controller watches (a
    fail-fast run cannot end sooner than its create), then deleted.
    Returns creates/s."""
    cpu = Cpu(None)
    with sb.namespace("bench-ceiling") as ns:
        objs = [run_obj(f"fail-{i}", [MISSING_CLASS]) for i in range(n)]
        t0, c0 = time.monotonic(), cpu.read()
        create_all(ns, objs)
        dt, c1 = time.monotonic() - t0, cpu.read()
        sb.kubectl("-n", ns, "delete", "benchmarkruns", "--all", "--wait=false", timeout=600)
    log(f"API ceiling: {n} runs created in {dt:.1f} s with no controller: {n / dt:.1f}/s")
    used = cpu_diff(c0, c1)
    del used["controller"]
    return (n / dt if dt > 0 else 0.0), used


def wait_until(c, cond, timeout, what, interval=0.2):
    """Polls the controller's metrics until cond(metrics) is true; returns
    (metrics, monotonic time it was seen)."""
    deadline = time.monotonic() + timeout
    while True:
        m = c.metrics()
        if cond(m):
            return m, time.monotonic()
        if time.monotonic() > deadline:
            raise sb.ClusterError(f"timed out after {timeout}s waiting for {what}: "
                                  f"phases {phases(m)}")
        time.sleep(interval)


def reconciles(m):
    return sum(v for k, v in m.items() if k.startswith("storagebench_reconcile_total"))


def settle(c, ns, timeout):
    """Waits until the controller caches no pod or PVC of ns and ran no
    reconcile for 2 s; returns the metrics then."""
    m, _ = wait_until(c, lambda x: informer(x, ns, "pods") == 0 and
                      informer(x, ns, "persistentvolumeclaims") == 0, timeout,
                      "the finished runs' pods and PVCs deleted")
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        before = reconciles(m)
        time.sleep(2)
        m = c.metrics()
        if reconciles(m) == before:
            return m
    raise sb.ClusterError(f"the controller still reconciling {timeout}s after every run ended")


def run_durations(ns, names):
    """Seconds from each run's creation to its completionTime (median, max)."""
    items = sb.kubectl_json("-n", ns, "get", "benchmarkruns")["items"]
    want, d = set(names), []
    for it in items:
        if it["metadata"]["name"] not in want:
            continue
        st = it.get("status") or {}
        t0 = sb_time(it["metadata"]["creationTimestamp"])
        t1 = sb_time(st.get("completionTime")) if st.get("completionTime") else None
        if t1 is not None:
            d.append(t1 - t0)
    d.sort()
    return (d[len(d) // 2] if d else None), (d[-1] if d else None), len(d)


def sb_time(s):
    return time.mktime(time.strptime(s, "%Y-%m-%dT%H:%M:%SZ"))


def smaps_summary(pid):
    """The controller's resident KiB by mapping (/proc/<pid>/smaps): a list of
    (kind, Rss, Anonymous) with kind the mapped file's base name or the
    kernel's name for the mapping ([heap], [stack], anonymous), largest first."""
    rows, cur = {}, None
    with open(f"/proc/{pid}/smaps") as f:
        for line in f:
            head = line.split()
            if re.match(r"^[0-9a-f]+-[0-9a-f]+ ", line):
                name = head[5] if len(head) > 5 else "anonymous"
                cur = rows.setdefault(os.path.basename(name) if name.startswith("/") else name,
                                      [0, 0])
            elif cur is not None and head[0] in ("Rss:", "Anonymous:"):
                cur[0 if head[0] == "Rss:" else 1] += int(head[1])
    return sorted(((k, v[0], v[1]) for k, v in rows.items()), key=lambda r: -r[1])


def bench(n=1000, m=20, binary=sbrun.CONTROLLER, timeout=900, log=print, extra=()):
    """Runs the four phases; returns the figures (a dict)."""
    sbrun.install_crd()
    out = {"runs": n, "real": m, "controller": binary, "extra": list(extra)}
    out["ceiling_per_s"], out["ceiling_cpu_s"] = api_ceiling(n, log)
    with sb.namespace("bench") as ns:
        sb.apply(sbrun.RUNNER_RBAC, namespace=ns)
        # a ConfigMap the controller does not own: it must never be cached
        sb.apply({"apiVersion": "v1", "kind": "ConfigMap",
                  "metadata": {"name": "foreign", "labels": {"app": "someone-else"}},
                  "data": {"x": "y" * 512}}, namespace=ns)
        c = Controller(binary, ns, 18600 + os.getpid() % 300, extra)
        try:
            sb.wait_for(c.ready, timeout=60, what="the controller ready")
            time.sleep(2)
            m0 = c.metrics()
            out["rss_idle"] = c.rss()
            out["anon_idle"] = c.anon()
            out["rss_idle_metric"] = int(m0["process_resident_memory_bytes"])
            out["smaps_idle"] = smaps_summary(c.proc.pid)
            out["foreign_cached"] = informer(m0, ns, "configmaps")
            log(f"idle: RSS {out['rss_idle'] / 2**20:.1f} MiB, foreign ConfigMap cached: "
                f"{out['foreign_cached']} ConfigMaps in the cache")

            # phase 1: the real runs alone
            names1 = [f"real-solo-{i}" for i in range(m)]
            t0 = time.monotonic()
            create_all(ns, [run_obj(x, [sb.FAST]) for x in names1])
            m1, t1 = wait_until(c, lambda x: phases(x)["Succeeded"] + phases(x)["Failed"] >= m,
                                timeout, "the real runs")
            out["solo"] = {"seconds": t1 - t0, "phases": phases(m1),
                           "api": diff(api_counts(m0), api_counts(m1)),
                           "iterations": int(m1["storagebench_iterations_completed_total"]
                                             - m0["storagebench_iterations_completed_total"])}
            # the iterations the runs did (each real run: one class, 2 iterations);
            # "iterations" above is the controller's counter, which can count one twice
            out["solo"]["iterations_done"] = 2 * out["solo"]["phases"]["Succeeded"]
            out["solo"]["median_run_s"], out["solo"]["max_run_s"], _ = run_durations(ns, names1)
            log(f"real alone: {m} runs in {t1 - t0:.1f} s, {out['solo']['iterations']} "
                f"iterations, API {out['solo']['api']}")

            # phase 2: N fail-fast + M real at once
            names2 = [f"real-mixed-{i}" for i in range(m)]
            objs = [run_obj(f"fail-{i}", [MISSING_CLASS]) for i in range(n)]
            objs += [run_obj(x, [sb.FAST]) for x in names2]
            s = Sampler(c)
            cpu = Cpu(c.proc.pid)
            ta, ca = time.monotonic(), cpu.read()
            create_all(ns, objs)
            tc = time.monotonic()
            m2f, tf = wait_until(c, lambda x: phases(x)["Failed"] - phases(m1)["Failed"] >= n,
                                 timeout, "the fail-fast runs")
            cf = cpu.read()
            m2, t2 = wait_until(
                c, lambda x: phases(x)["Succeeded"] + phases(x)["Failed"] >= 2 * m + n,
                timeout, "every run")
            c2 = cpu.read()
            time.sleep(1)
            m2 = c.metrics()
            out["rss_peak"] = s.stop()
            out["rss_finished"] = c.rss()
            out["anon_finished"] = c.anon()
            out["smaps_finished"] = smaps_summary(c.proc.pid)
            # settled: the last runs' cleanup done (their pods and PVCs gone
            # from the caches) and no reconcile for 2 s: what a controller
            # with 1,020 finished runs holds once it has nothing left to do
            ts0 = time.monotonic()
            settled_m = settle(c, ns, timeout)
            out["settle_s"] = time.monotonic() - ts0
            out["rss_settled"] = c.rss()
            out["anon_settled"] = c.anon()
            out["smaps_settled"] = smaps_summary(c.proc.pid)
            out["informer_settled"] = {r: informer(settled_m, ns, r) for r in
                                       ("benchmarkruns", "pods", "configmaps",
                                        "persistentvolumeclaims")}
            it2 = int(m2["storagebench_iterations_completed_total"]
                      - m1["storagebench_iterations_completed_total"])
            out["mixed"] = {"create_s": tc - ta, "failfast_s": tf - ta,
                            "runs_per_s": n / (tf - ta) if tf > ta else 0.0,
                            "all_s": t2 - ta, "phases": phases(m2),
                            "api": diff(api_counts(m1), api_counts(m2)), "iterations": it2,
                            "informer": {r: informer(m2, ns, r) for r in
                                         ("benchmarkruns", "pods", "configmaps",
                                          "persistentvolumeclaims")}}
            out["mixed"]["median_run_s"], out["mixed"]["max_run_s"], _ = run_durations(ns,
                                                                                       names2)
            out["mixed"]["cpu_failfast_s"] = cpu_diff(ca, cf)
            out["mixed"]["cpu_all_s"] = cpu_diff(ca, c2)
            out["mixed"]["api_failfast"] = diff(api_counts(m1), api_counts(m2f))
            out["mixed"]["cpu"] = cpu_per_run(out, n, m)
            # the mixed phase's requests are the fail-fast runs' and the real runs': the
            # same M real runs alone (phase 1) take out the latter
            out["mixed"]["per_failfast"] = {
                v: round((out["mixed"]["api"][v] - out["solo"]["api"][v]) / n, 2) if n else 0.0
                for v in VERBS}
            log(f"mixed: {n} fail-fast in {tf - ta:.1f} s ({out['mixed']['runs_per_s']:.1f} "
                f"runs/s; creates took {tc - ta:.1f} s), all {n + m} in {t2 - ta:.1f} s, "
                f"RSS peak {out['rss_peak'] / 2**20:.1f} MiB, finished "
                f"{out['rss_finished'] / 2**20:.1f} MiB")

            # phase 3: delete everything
            td = time.monotonic()
            sb.kubectl("-n", ns, "delete", "benchmarkruns", "--all", "--wait=false",
                       timeout=600)
            m3, t3 = wait_until(c, lambda x: informer(x, ns, "benchmarkruns") == 0 and
                                informer(x, ns, "pods") == 0 and
                                informer(x, ns, "configmaps") == 0, timeout,
                                "the caches empty after delete")
            time.sleep(2)
            m3 = c.metrics()
            out["delete_s"] = t3 - td
            out["rss_deleted"] = c.rss()
            out["anon_deleted"] = c.anon()
            out["smaps_deleted"] = smaps_summary(c.proc.pid)
            out["trims"] = int(m3.get("storagebench_malloc_trims_total", 0))
            out["api_total"] = api_counts(m3)
            out["requests_total_metric"] = sum(out["api_total"].values())
            out["foreign_cached_end"] = informer(m3, ns, "configmaps")
            log(f"deleted in {t3 - td:.1f} s: RSS {out['rss_deleted'] / 2**20:.1f} MiB, "
                f"{out['trims']} trims")
        finally:
            c.stop()
    return out


def cpu_per_run(r, n, m):
    """Up to the last fail-fast run terminal: the controller's CPU ms per
    fail-fast run (the real runs' work in that time included), the API
    server's and etcd's CPU ms per request (the bench's creates and the
    controller's requests; the kubelet's, scheduler's... are few beside
    them) and per fail-fast run, and the runs/s one core of each would
    serve at that cost. None where a process was not found."""
    mixed = r["mixed"]
    used = mixed["cpu_failfast_s"]
    reqs = n + m + sum(mixed["api_failfast"].values())
    out = {"requests": reqs}
    for k in ("controller", "apiserver", "etcd"):
        v = used.get(k)
        out[f"{k}_ms_per_run"] = 1000 * v / n if v is not None and n else None
        out[f"{k}_runs_per_core_s"] = (n / v) if v else None
    for k in ("apiserver", "etcd"):
        v = used.get(k)
        out[f"{k}_ms_per_request"] = 1000 * v / reqs if v is not None and reqs else None
    cc = r.get("ceiling_cpu_s") or {}
    out["apiserver_ms_per_create_alone"] = (1000 * cc["apiserver"] / n
                                            if cc.get("apiserver") is not None and n else None)
    return out


def ms(v):
    return "n/a" if v is None else f"{v:.2f}"


def per_core(v):
    return "n/a" if v is None else f"{v:.0f}"


def table(r, cmd):
    mib = 2 ** 20
    solo, mixed = r["solo"], r["mixed"]
    cpu = mixed["cpu"]
    done = solo["iterations_done"]
    per_it = sum(solo["api"].values()) / done if done else 0
    lines = [
        f"command: {cmd}",
        f"controller: {r['controller']} {' '.join(r['extra'])}; {r['runs']} fail-fast + "
        f"{r['real']} real runs",
        f"  RSS idle {r['rss_idle'] / mib:.1f} MiB, peak {r['rss_peak'] / mib:.1f} MiB, "
        f"all finished {r['rss_finished'] / mib:.1f} MiB, after delete "
        f"{r['rss_deleted'] / mib:.1f} MiB",
        f"  of which heap and stacks (RssAnon): idle {r['anon_idle'] / mib:.1f} MiB, all "
        f"finished {r['anon_finished'] / mib:.1f} MiB, after delete "
        f"{r['anon_deleted'] / mib:.1f} MiB",
        f"  settled with all finished ({r['settle_s']:.1f} s later: cleanup done, no reconcile "
        f"for 2 s; cached {r['informer_settled']}): RSS {r['rss_settled'] / mib:.1f} MiB, "
        f"RssAnon {r['anon_settled'] / mib:.1f} MiB",
        f"  fail-fast: {r['runs']} runs terminal {mixed['failfast_s']:.1f} s after the first "
        f"create: {mixed['runs_per_s']:.1f} runs/s (creating them took "
        f"{mixed['create_s']:.1f} s); the same {r['runs']} creates with no controller: "
        f"{r['ceiling_per_s']:.1f}/s",
        f"  real runs: median {solo['median_run_s']} s alone, {mixed['median_run_s']} s beside "
        f"the fail-fast runs (max {solo['max_run_s']} / {mixed['max_run_s']} s)",
        f"  API requests, real runs alone: {solo['api']} = {sum(solo['api'].values())} for "
        f"{done} iterations: {per_it:.1f} per iteration (the controller's "
        f"iterations counter said {solo['iterations']})",
        f"  API requests, mixed: {mixed['api']} = {sum(mixed['api'].values())}: "
        f"{sum(mixed['api'].values()) / (r['runs'] + r['real']):.1f} per run",
        f"  CPU to the last fail-fast run terminal (s): {mixed['cpu_failfast_s']}; to the end: "
        f"{mixed['cpu_all_s']}",
        f"  CPU ms per fail-fast run: controller {ms(cpu['controller_ms_per_run'])} "
        f"({per_core(cpu['controller_runs_per_core_s'])} runs/s per core), API server "
        f"{ms(cpu['apiserver_ms_per_run'])} ({per_core(cpu['apiserver_runs_per_core_s'])} "
        f"runs/s per core), etcd {ms(cpu['etcd_ms_per_run'])}",
        f"  CPU ms per API request ({cpu['requests']} requests: the creates and the "
        f"controller's): API server {ms(cpu['apiserver_ms_per_request'])}, etcd "
        f"{ms(cpu['etcd_ms_per_request'])}; API server per create with no controller "
        f"{ms(cpu['apiserver_ms_per_create_alone'])}",
        f"  API requests per fail-fast run, by verb (the mixed phase's less the real runs' "
        f"alone): {mixed['per_failfast']} = {sum(mixed['per_failfast'].values()):.2f}",
        f"  delete: caches empty {r['delete_s']:.1f} s after kubectl delete, "
        f"{r['trims']} malloc_trim",
        "  resident KiB by mapping, Rss (of which anonymous) idle / all finished / settled / "
        "after delete:",
    ]
    phases3 = [{k: (rss, anon) for k, rss, anon in r[f"smaps_{p}"]}
               for p in ("idle", "finished", "settled", "deleted")]
    for kind, _, _ in r["smaps_finished"][:12]:
        cells = [f"{ph[kind][0]} ({ph[kind][1]})" if kind in ph else "-" for ph in phases3]
        lines.append(f"    {kind}: {' / '.join(cells)}")
    return "\n".join(lines)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--runs", type=int, default=1000, help="fail-fast runs (default 1000)")
    ap.add_argument("--real", type=int, default=20, help="real short runs (default 20)")
    ap.add_argument("--controller", default=sbrun.CONTROLLER, help="controller binary")
    ap.add_argument("--timeout", type=int, default=900)
    ap.add_argument("--controller-arg", action="append", default=[],
                    help="one more controller flag, e.g. --controller-arg=--workers=4 (repeatable)")
    ap.add_argument("--json", help="write the figures here")
    a = ap.parse_args()
    if not sb.cluster_up():
        print("bench-controller: the test cluster is not up (make cluster-up)", file=sys.stderr)
        return 2
    r = bench(a.runs, a.real, a.controller, a.timeout,
              log=lambda s: print(s, file=sys.stderr, flush=True), extra=a.controller_arg)
    cmd = " ".join(["scripts/bench-controller.py"] + sys.argv[1:])
    print(table(r, cmd))
    if a.json:
        with open(a.json, "w") as f:
            json.dump(r, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
