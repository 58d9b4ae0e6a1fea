"""The chart's Grafana dashboard and PrometheusRule (docs/schedules.md):
off by default; when on, the dashboard ConfigMap carries the sidecar's
label, its JSON parses, every query (panels and variables) and every alert
expression names only families controller/serve/result_metrics.c writes and
is PromQL that promtool parses, and the rules pass `promtool check rules`
and `promtool test rules` (the alerts' labels, annotations and timing).
tests/e2e/test_schedule.py evaluates every one of them against a real
Prometheus scraping the controller after a scheduled regression.
"""
import json
import os
import re
import subprocess

import pytest
import yaml

from conftest import ROOT, by_kind, need_helm, one, render

METRIC = re.compile(r"\bstoragebench_[a-z0-9_]+")
PROMTOOL = "/usr/bin/promtool"


def exported():
    """The families controller/serve/result_metrics.c can write: per scope
    (schedule, run) the figures' table (base name, _stddev, unit suffix) and
    the verdict and time families it names by hand."""
    with open(os.path.join(ROOT, "controller", "serve", "result_metrics.c")) as f:
        src = f.read()
    names = set()
    figs = re.findall(r'\{(?:"[^"]*"|NULL),\s*"(\w+)",\s*"(\w*)"', src)
    assert len(figs) >= 15, figs
    fixed = re.findall(r'head\(o, (?:scope|"schedule"), "(\w+)"', src)
    assert "regressed" in fixed and "iterations" in fixed, fixed
    for scope in ("schedule", "run"):
        for base, unit in figs:
            for sd in ("", "_stddev"):
                names.add(f"storagebench_{scope}_{base}{sd}{'_' + unit if unit else ''}")
        for w in fixed:
            names.add(f"storagebench_{scope}_{w}")
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


def variables_as_promql(dash):
    """The variables' label_values(EXPR, LABEL) as the PromQL Grafana runs for them."""
    out = []
    for v in dash["templating"]["list"]:
        q = v.get("query")
        if isinstance(q, dict):
            m = re.fullmatch(r"label_values\((.*), *(\w+)\)", q["query"])
            assert m, q
            out.append(f"count by ({m.group(2)}) ({m.group(1)})")
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


def test_dashboard_queries_are_promql(tmp_path):
    """Each panel's query and each variable's (as the PromQL Grafana runs),
    as recording rules: promtool parses them all."""
    with open(os.path.join(ROOT, "charts", "storagebench", "files", "grafana-dashboard.json")) as f:
        dash = json.load(f)
    need_promtool()
    exprs = [t["expr"] for p in dash["panels"] for t in p["targets"]] + variables_as_promql(dash)
    rules = [{"record": f"dashboard:query{i}", "expr": e.replace("$namespace", "ns")
              .replace("$schedule", "s")} for i, e in enumerate(exprs)]
    path = tmp_path / "dash.yaml"
    path.write_text(yaml.safe_dump({"groups": [{"name": "dashboard", "rules": rules}]}))
    p = subprocess.run([PROMTOOL, "check", "rules", str(path)], capture_output=True, text=True,
                       timeout=60)
    assert p.returncode == 0, p.stdout + p.stderr
    assert f"SUCCESS: {len(rules)} rules found" in p.stdout, p.stdout


def rule_file(tmp_path, **values):
    objs = render(values={"prometheusRule.enabled": True,
                          **{f"prometheusRule.{k}": v for k, v in values.items()}})
    rule = one(objs, "PrometheusRule")
    path = tmp_path / "rules.yaml"
    path.write_text(yaml.safe_dump({"groups": rule["spec"]["groups"]}))
    return path


def need_promtool():
    if not os.access(PROMTOOL, os.X_OK):
        pytest.fail(f"{PROMTOOL} is missing: make deps installs prometheus (scripts/deps/chart.list)")


def test_prometheus_rule_passes_promtool_check(tmp_path):
    need_helm()
    need_promtool()
    path = rule_file(tmp_path)
    p = subprocess.run([PROMTOOL, "check", "rules", str(path)], capture_output=True, text=True,
                       timeout=60)
    assert p.returncode == 0, p.stdout + p.stderr
    assert "SUCCESS: 2 rules found" in p.stdout, p.stdout


RULE_TESTS = """
rule_files: [rules.yaml]
evaluation_interval: 1m
tests:
  # a schedule regressed from the 3rd minute on, another never: one alert
  - interval: 1m
    input_series:
      - series: 'storagebench_schedule_regressed{namespace="a",schedule="nightly",instance="c1"}'
        values: '0 0 1 1 1'
      - series: 'storagebench_schedule_regressed{namespace="a",schedule="weekly",instance="c1"}'
        values: '0 0 0 0 0'
    alert_rule_test:
      - eval_time: 1m
        alertname: StoragebenchRegression
        exp_alerts: []
      - eval_time: 3m
        alertname: StoragebenchRegression
        exp_alerts:
          - exp_labels: {severity: warning, namespace: a, schedule: nightly}
            exp_annotations:
              summary: "Storage benchmark a/nightly regressed"
              description: "The newest successful run of BenchmarkSchedule nightly is Regressed against its baseline (the runs it pools, or its pinned run) and stays so until a run is back within the threshold; see the Regressed condition and status.regressedSince: kubectl -n a describe benchmarkschedule nightly"
  # no success since time 0: stale after the threshold (2 days), not before
  - interval: 1h
    input_series:
      - series: 'storagebench_schedule_last_success_timestamp_seconds{namespace="a",schedule="nightly",instance="c1"}'
        values: '0x80'
    alert_rule_test:
      - eval_time: 47h
        alertname: StoragebenchScheduleStale
        exp_alerts: []
      - eval_time: 49h
        alertname: StoragebenchScheduleStale
        exp_alerts:
          - exp_labels: {severity: warning, namespace: a, schedule: nightly, instance: c1}
            exp_annotations:
              summary: "Storage benchmark a/nightly has not succeeded lately"
"""


def test_prometheus_rule_passes_promtool_unit_tests(tmp_path):
    """promtool test rules: the regression alert fires for the regressed
    schedule only, with its labels and annotations; the stale alert after
    staleAfterSeconds and not before."""
    need_helm()
    need_promtool()
    rule_file(tmp_path)
    (tmp_path / "tests.yaml").write_text(RULE_TESTS)
    p = subprocess.run([PROMTOOL, "test", "rules", "tests.yaml"], cwd=tmp_path,
                       capture_output=True, text=True, timeout=60)
    assert p.returncode == 0, p.stdout + p.stderr
    assert "SUCCESS" in p.stdout


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
