"""The chart's Grafana dashboard and PrometheusRule (docs/schedules.md):
off by default; when on, the dashboard ConfigMap carries the sidecar's
label, its JSON parses, and every query (panels and variables) and every
alert expression names only metrics the controller exports (the "# TYPE"
lines controller/serve/result_metrics.c writes; tests/e2e/test_schedule.py checks
the same names against a real scrape).
"""
import json
import os
import re

from conftest import ROOT, by_kind, need_helm, one, render

METRIC = re.compile(r"\bstoragebench_[a-z0-9_]+")


def exported():
    with open(os.path.join(ROOT, "controller", "serve", "result_metrics.c")) as f:
        src = f.read()
    names = set(re.findall(r"# TYPE (storagebench_[a-z0-9_]+) gauge", src))
    assert len(names) >= 10, names
    return names


def queries(dash):
    out = []
    for p in dash["panels"]:
        for t in p.get("targets") or []:
            out.append(t["expr"])
    for v in dash["templating"]["list"]:
        q = v.get("query")
        if isinstance(q, dict):
            out.append(q["query"])
    return out


def test_off_by_default():
    need_helm()
    objs = render()
    assert not [o for o in by_kind(objs, "ConfigMap") if o["metadata"]["name"].endswith("-dashboard")]
    assert not by_kind(objs, "PrometheusRule")


def test_dashboard_parses_and_queries_exported_metrics():
    need_helm()
    objs = render(files=["all-options.yaml"])
    cm = one(objs, "ConfigMap", name="sb-sbench-controller-dashboard", namespace="monitoring")
    assert cm["metadata"]["labels"]["grafana_dashboard"] == "1"
    assert cm["metadata"]["annotations"]["grafana_folder"] == "Storage"
    dash = json.loads(cm["data"]["storagebench-schedules.json"])
    assert dash["uid"] == "storagebench-schedules"
    qs = queries(dash)
    assert len(qs) >= 10
    names = exported()
    for q in qs:
        used = METRIC.findall(q)
        assert used, f"query names no storagebench metric: {q}"
        for m in used:
            assert m in names, f"{m} (in {q!r}) is not exported by the controller"
    # every panel has a query
    assert all(p.get("targets") for p in dash["panels"])


def test_prometheus_rule_names_exported_metrics():
    need_helm()
    objs = render(files=["all-options.yaml"])
    rule = one(objs, "PrometheusRule")
    assert rule["metadata"]["labels"]["release"] == "prometheus"
    rules = rule["spec"]["groups"][0]["rules"]
    assert {r["alert"] for r in rules} == {"StoragebenchRegression", "StoragebenchScheduleStale"}
    names = exported()
    for r in rules:
        for m in METRIC.findall(r["expr"]):
            assert m in names, f"{m} is not exported"
    assert "86400" in [r for r in rules if r["alert"] == "StoragebenchScheduleStale"][0]["expr"]
    assert "{{ $labels.schedule }}" in rules[0]["annotations"]["summary"]
