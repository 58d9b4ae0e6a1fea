"""A saturation sweep (spec.sweep.pods, docs/distributed.md) on the
three-node test cluster: the steps 1, 2, 3 runner pods per class run one
after another as runs of their own, and the sweeping run's report has the
curve (the sweep section, recomputed here from each step's own report),
the table in report.txt and report.md, and the SVG panel."""
import json

import pytest

import sbcluster as sb
from sbrun import wait_phase

SWEEP = """
apiVersion: storagebench.io/v1alpha1
kind: BenchmarkRun
metadata: {name: %(name)s}
spec:
  storageClasses: [fast]
  iterations: 2
  volume: {size: 64Mi}
  workloads:
  - {name: rr, rw: randread, bs: 4k, iodepth: 8, runtime: 2s, timeBased: true}
  timeouts: {barrier: 2m}
  sweep: {pods: [1, 2, 3]}
  runner:
    imagePullPolicy: Never
"""


def report_of(ns, name):
    return sb.kubectl_json("-n", ns, "get", "configmap", f"{name}-report")["data"]


def test_sweep_one_two_three_pods(ns, controller):
    sb.apply(SWEEP % {"name": "sat"}, namespace=ns)
    st = wait_phase(ns, "sat", timeout=900)
    assert st["phase"] == "Succeeded", st
    assert st["progress"] == "3/3" and st["report"] == "sat-report", st
    # each step: a run of its own, owned by the sweep, with its pods
    steps = {}
    for pods in (1, 2, 3):
        run = sb.kubectl_json("-n", ns, "get", "benchmarkrun", f"sat-p{pods}")
        assert run["spec"]["runner"]["pods"] == pods
        assert "sweep" not in run["spec"]
        owner = run["metadata"]["ownerReferences"][0]
        assert owner["kind"] == "BenchmarkRun" and owner["name"] == "sat"
        assert run["status"]["phase"] == "Succeeded", run["status"]
        steps[pods] = json.loads(report_of(ns, f"sat-p{pods}")["report.json"])
    # one after another: a step starts after the one before it completed
    times = [sb.kubectl_json("-n", ns, "get", "benchmarkrun", f"sat-p{p}") for p in (1, 2, 3)]
    for a, b in zip(times, times[1:]):
        assert a["status"]["completionTime"] <= b["metadata"]["creationTimestamp"]
    data = report_of(ns, "sat")
    rep = json.loads(data["report.json"])
    sw = rep["sweep"]
    assert sw["parameter"] == "pods" and sw["values"] == [1, 2, 3]
    curve = [p for p in sw["curve"] if (p["target"], p["workload"]) == ("fast", "rr")]
    assert [p["value"] for p in curve] == [1, 2, 3]
    for p in curve:
        res = next(r for r in steps[p["value"]]["results"]
                   if (r["target"], r["workload"]) == ("fast", "rr"))
        samples = res["metrics"]["read-iops"]["samples"]
        assert p["iterations"] == len(samples) == 2
        assert p["iops"]["mean"] == pytest.approx(sum(samples) / len(samples), rel=1e-9)
        assert p["iops"]["mean"] > 0
        assert p["lat-p99"] == res["merged"]["read"]["p99"]
    # the table and the panel
    assert "Saturation sweep over pods: 1, 2, 3" in data["report.txt"]
    assert "| fast | rr | 3 | 2 |" in data["report.md"]
    assert 'data-panel="sweep"' in data["report.svg"]
    assert 'data-panel="sweep"' in data["report-sweep.svg"]
