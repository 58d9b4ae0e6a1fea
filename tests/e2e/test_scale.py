"""The controller at scale (issue 16): its informers cache only the objects
it owns (a foreign ConfigMap in the namespace never enters the cache, seen
through storagebench_informer_objects; a result ConfigMap enters it without
its data, storagebench_informer_results), /metrics has the process_* gauges,
and the benchmark (scripts/bench-controller.py) runs with a small N and its
accounting adds up. Speed is not asserted: the machine is shared."""
import importlib.util
import os
import re

import pytest

from conftest import HERE, Controller, sb, small, wait_phase

BENCH = os.path.join(os.path.dirname(os.path.dirname(HERE)), "scripts", "bench-controller.py")


def metric(text, name):
    m = re.search(r"^%s (\S+)$" % re.escape(name), text, re.M)
    assert m, f"{name} not in /metrics"
    return float(m.group(1))


def test_foreign_configmap_not_cached(controller, ns):
    sb.apply({"apiVersion": "v1", "kind": "ConfigMap",
              "metadata": {"name": "foreign", "labels": {"app": "someone-else"}},
              "data": {"x": "y"}}, namespace=ns)
    key = f'storagebench_informer_objects{{resource="configmaps",namespace="{ns}"}}'
    sb.wait_for(lambda: "process_resident_memory_bytes" in controller.metrics(), timeout=30,
                what="the controller's metrics")
    # the controller's label without its proof of authorship (issue 34):
    # not cached either; a runner's result (checked by its own MAC) is, so
    # the count can move
    sb.apply({"apiVersion": "v1", "kind": "ConfigMap",
              "metadata": {"name": "labelled", "labels": {
                  "app.kubernetes.io/managed-by": "storagebench-controller"}},
              "data": {"x": "y"}}, namespace=ns)
    sb.apply({"apiVersion": "v1", "kind": "ConfigMap",
              "metadata": {"name": "r-fast-1", "labels": {
                  "app.kubernetes.io/managed-by": "storagebench-controller",
                  "app.kubernetes.io/component": "result", "storagebench.io/run": "r",
                  "storagebench.io/class": "fast", "storagebench.io/iteration": "1"}},
              "data": {"result.json": '{"jobs":[]}'}}, namespace=ns)
    held = f'storagebench_informer_results{{namespace="{ns}",cached="verdict-invalid"}}'
    sb.wait_for(lambda: f"{held} 1\n" in controller.metrics(), timeout=30,
                what="the result ConfigMap in the cache")  # after "labelled" in the watch
    text = controller.metrics()
    assert metric(text, key) == 1  # only the result: "foreign" and "labelled" never were
    assert metric(text, "process_resident_memory_bytes") > 1e6
    assert metric(text, "process_open_fds") > 0
    assert metric(text, 'storagebench_api_requests_total{verb="list"}') >= 5  # 5 informers
    assert metric(text, 'storagebench_api_requests_total{verb="watch"}') >= 5


def test_result_configmap_cached_without_data(controller, ns):
    """A result ConfigMap enters the cache as its verdict, without its data
    (controller/core/resultcache.h): this one is not a run's (no owner), so its
    verdict is invalid; storagebench_informer_results counts what is held."""
    results = 'storagebench_informer_results{namespace="%s",cached="%s"}'

    def serving():  # the metrics server starts once the informers synced
        try:
            return results % (ns, "with-data") in controller.metrics()
        except OSError:
            return False
    sb.wait_for(serving, timeout=30, what="the controller's result metrics")
    sb.apply({"apiVersion": "v1", "kind": "ConfigMap",
              "metadata": {"name": "r-fast-1", "labels": {
                  "app.kubernetes.io/managed-by": "storagebench-controller",
                  "app.kubernetes.io/component": "result",
                  "storagebench.io/run": "r", "storagebench.io/class": "fast",
                  "storagebench.io/iteration": "1"}},
              "data": {"result.json": '{"jobs":[]}' + " " * 4096,
                       "result.json.hmac-sha256": "0" * 64}}, namespace=ns)
    sb.wait_for(lambda: metric(controller.metrics(), results % (ns, "verdict-invalid")) == 1,
                timeout=30, what="the result ConfigMap in the cache")
    text = controller.metrics()
    assert metric(text, results % (ns, "with-data")) == 0
    assert metric(text, results % (ns, "verdict-ok")) == 0


def test_run_cache_deflated(controller, ns):
    """The run cache holds each run as its text deflated against a typical
    run (controller/core/memory.h): a fail-fast run of ~1.5 KB of JSON takes a
    few hundred bytes; deleting the runs gives it all back (0 bytes)."""
    key = f'storagebench_informer_bytes{{resource="benchmarkruns",namespace="{ns}"}}'
    objs = f'storagebench_informer_objects{{resource="benchmarkruns",namespace="{ns}"}}'

    def serving():
        try:
            return key in controller.metrics()
        except OSError:
            return False
    sb.wait_for(serving, timeout=30, what="the controller's cache metrics")
    assert metric(controller.metrics(), key) == 0
    for i in range(3):
        sb.apply(small(f"gone-{i}", classes=("no-such-class",)), namespace=ns)
    for i in range(3):
        wait_phase(ns, f"gone-{i}", phases=("Failed",), timeout=60)
    sb.wait_for(lambda: metric(controller.metrics(), objs) == 3, timeout=30,
                what="three runs in the cache")
    text = controller.metrics()
    n = metric(text, key)
    assert 3 * 50 < n < 3 * 600, f"{n} bytes for 3 runs"
    sb.kubectl("-n", ns, "delete", "benchmarkruns", "--all", "--wait=false")
    sb.wait_for(lambda: metric(controller.metrics(), objs) == 0, timeout=60,
                what="the runs gone from the cache")
    assert metric(controller.metrics(), key) == 0


@pytest.mark.serial  # the benchmark loads the API server on purpose (tests/pytest.ini)
def test_bench_controller_accounting(cluster):
    spec = importlib.util.spec_from_file_location("bench_controller", BENCH)
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    n, m = 50, 2
    r = bench.bench(n=n, m=m, timeout=600, log=lambda s: None)
    table = bench.table(r, "scripts/bench-controller.py --runs 50 --real 2")
    assert "runs/s" in table and "per iteration" in table
    assert r["foreign_cached"] == 0 and r["foreign_cached_end"] == 0
    # phase 1: the real runs alone all succeeded, two iterations each
    assert r["solo"]["phases"]["Succeeded"] == m
    assert r["solo"]["iterations_done"] == 2 * m
    assert r["solo"]["iterations"] >= 2 * m  # the controller's counter
    assert r["solo"]["api"]["create"] > 0 and r["solo"]["api"]["patch"] > 0
    # phase 2: every fail-fast run failed, every real run succeeded
    p = r["mixed"]["phases"]
    assert p["Failed"] == n and p["Succeeded"] == 2 * m
    assert p["Pending"] == 0 and p["Running"] == 0
    assert r["mixed"]["informer"]["benchmarkruns"] == n + 2 * m
    # every run got its status patched at least once
    assert r["mixed"]["api"]["patch"] >= n + m
    # watch-driven: the five informers' watches (runs, PVCs, pods, ConfigMaps,
    # StorageClasses) resumed at most once each while working, not one per run
    # (a watch the API server ends cleanly, as its cache does for a watcher
    # that fell behind a burst, is resumed from its resourceVersion without a
    # LIST: CI5 counted one in the mixed phase, the controller's log had no
    # failed watch and no relist); the only LISTs are the reports' (one per
    # real run: its result ConfigMaps' data, which the cache does not keep); a
    # fail-fast run has no results and lists nothing
    assert r["mixed"]["api"]["watch"] <= 5 and r["solo"]["api"]["watch"] <= 5, r["api_total"]
    assert m <= r["solo"]["api"]["list"] <= 2 * m
    assert m <= r["mixed"]["api"]["list"] <= 2 * m
    # the per-verb counts add up to the total by construction of the metric
    assert r["requests_total_metric"] == sum(r["api_total"].values())
    assert r["api_total"]["create"] >= r["solo"]["api"]["create"] + r["mixed"]["api"]["create"]
    # memory figures were sampled and are consistent
    assert 0 < r["rss_idle"] <= r["rss_peak"]
    assert r["rss_finished"] > 0 and r["rss_deleted"] > 0
    assert r["anon_idle"] < r["rss_idle"]
    # the deletions were followed by at least one malloc_trim
    assert r["trims"] >= 1
    # CPU: the controller's, the API server's and etcd's, found and non-negative; the
    # per-run and per-request figures computed from them (not their speed)
    assert "CPU ms per fail-fast run" in table and "per API request" in table
    for span in ("cpu_failfast_s", "cpu_all_s"):
        used = r["mixed"][span]
        assert set(used) == {"controller", "apiserver", "etcd"}
        assert all(v is not None and v >= 0 for v in used.values()), used
        assert used["controller"] <= r["mixed"]["cpu_all_s"]["controller"]
    assert r["mixed"]["cpu_all_s"]["apiserver"] > 0  # it served every create
    cpu = r["mixed"]["cpu"]
    assert cpu["requests"] >= n + m  # the bench's creates at least
    for k in ("controller_ms_per_run", "apiserver_ms_per_run", "etcd_ms_per_run",
              "apiserver_ms_per_request", "etcd_ms_per_request", "apiserver_ms_per_create_alone"):
        assert cpu[k] is not None and cpu[k] >= 0, (k, cpu)
    assert set(r["ceiling_cpu_s"]) == {"apiserver", "etcd"}
    # per fail-fast run: its requests by verb, the real runs' (phase 1) taken out: its
    # status written and its event sent (the real runs' own counts vary a little)
    pf = r["mixed"]["per_failfast"]
    assert set(pf) == set(bench.VERBS)
    assert pf["patch"] >= 0.5 and pf["create"] >= 0.5
