"""BenchmarkSchedule on the test cluster (docs/schedules.md).

The schedules' time is driven through the controller's test-only
--test-clock-file: the test writes "now" into the file and pokes the
schedule (an annotation) so the controller looks again; no test waits for
the wall clock to reach a minute boundary.
"""
import calendar
import json
import os
import re
import shutil
import subprocess
import time

import pytest

import yaml

from conftest import Controller, br, events, sb, wait_phase  # noqa: F401
from prometheus import Prometheus

HERE = os.path.dirname(os.path.abspath(__file__))
PLUGIN = os.path.join(sb.ROOT, "bin", "kubectl-storagebench")
HELM = shutil.which("helm") or "/usr/local/bin/helm"
SCHED_CRD = os.path.join(sb.ROOT, "manifests", "crd", "storagebench.io_benchmarkschedules.yaml")

SCHEDULE = """
apiVersion: storagebench.io/v1alpha1
kind: BenchmarkSchedule
metadata: {name: %(name)s}
spec:
  schedule: "* * * * *"
  successfulRunsHistoryLimit: 3
  regressionThresholdPercent: %(threshold)s
  runTemplate:
    metadata:
      labels: {team: storage}
    spec:
      storageClasses: [fast]
      iterations: 2
      volume: {size: 64Mi}
      workloads:
      - {name: rr, rw: randread, bs: 4k, iodepth: 8, runtime: 1s, timeBased: true%(rate)s}
      runner:
        imagePullPolicy: Never
"""


def schedule(name, threshold=10, rate=""):
    return SCHEDULE % {"name": name, "threshold": threshold, "rate": rate}


@pytest.fixture(scope="module")
def sched_crd(cluster):
    sb.kubectl("apply", "-f", SCHED_CRD)

    def established():
        crd = sb.kubectl_json("get", "crd", "benchmarkschedules.storagebench.io")
        conds = (crd.get("status") or {}).get("conditions") or []
        return any(c["type"] == "Established" and c["status"] == "True" for c in conds)
    sb.wait_for(established, timeout=30, what="the BenchmarkSchedule CRD Established")


@pytest.fixture
def clock(tmp_path):
    path = tmp_path / "now"

    class Clock:
        file = str(path)

        def set(self, t):
            # atomically: the controller never reads a half-written file
            tmp = path.with_suffix(".tmp")
            tmp.write_text(f"{int(t)}\n")
            os.replace(tmp, path)
    return Clock()


def bs(ns, name):
    return sb.kubectl_json("-n", ns, "get", "benchmarkschedule", name)


def runs_of(ns, name):
    items = sb.kubectl_json("-n", ns, "get", "benchmarkruns", "-l",
                            f"storagebench.io/schedule={name}")["items"]
    return sorted(items, key=lambda r: r["metadata"]["annotations"]["storagebench.io/scheduled-at"])


def first_activation(ns, name):
    """The first minute boundary after the schedule's creation (seconds)."""
    created = bs(ns, name)["metadata"]["creationTimestamp"]
    c = calendar.timegm(time.strptime(created, "%Y-%m-%dT%H:%M:%SZ"))
    return (c // 60 + 1) * 60


def poke(ns, name, n):
    sb.kubectl("-n", ns, "annotate", "--overwrite", "benchmarkschedule", name, f"test/poke={n}")


def step_and_wait_run(ns, name, clock, t, want_runs_made, made):
    """Moves the schedule's clock to t, pokes it, waits for the new run and
    its end; returns the run object."""
    clock.set(t)
    poke(ns, name, int(t))

    def new_run():
        for r in runs_of(ns, name):
            if r["metadata"]["name"] not in made:
                return r
        return None
    run = sb.wait_for(new_run, timeout=60, interval=1, what=f"run {want_runs_made} of {name}")
    made.append(run["metadata"]["name"])
    st = wait_phase(ns, run["metadata"]["name"], timeout=240)
    assert st["phase"] == "Succeeded", st
    return br(ns, run["metadata"]["name"])


def test_schedule_every_minute_keeps_three_each_compared(ns, sched_crd, clock):
    """manifests/examples/schedule.yaml as it is, named "every"."""
    clock.set(time.time() - 3600)  # before the schedule exists: nothing is due
    c = Controller(ns, extra=[f"--test-clock-file={clock.file}"], name="sched")
    try:
        with open(os.path.join(sb.ROOT, "manifests", "examples", "schedule.yaml")) as f:
            example = f.read()
        assert "name: every-minute\n" in example
        sb.apply(example.replace("name: every-minute\n", "name: every\n"), namespace=ns)
        t = first_activation(ns, "every")
        made, judged = [], {}
        assert not runs_of(ns, "every")  # its clock is before the first activation
        for k in range(4):
            run = step_and_wait_run(ns, "every", clock, t + 60 * k, k + 1, made)
            # owned by the schedule, labelled, annotated with its activation
            md = run["metadata"]
            assert md["labels"]["storagebench.io/schedule"] == "every"
            assert md["labels"]["team"] == "storage"
            assert md["ownerReferences"][0]["kind"] == "BenchmarkSchedule"
            assert md["annotations"]["storagebench.io/scheduled-at"] == time.strftime(
                "%Y-%m-%dT%H:%M:%SZ", time.gmtime(t + 60 * k))
            # each run's baseline is the newest earlier run that did not regress
            # (pooled with the others before it), and its report compares with it
            if k == 0:
                assert "baseline" not in run["spec"]
            else:
                # the previous run was judged before this one was made (it still exists)
                prev = regressed(br(ns, made[k - 1]).get("status"))
                assert (prev is None) == (k == 1), made[k - 1]  # the first has no baseline
                judged[made[k - 1]] = bool(prev) and prev["status"] == "True"
                kept = [n for n in made[:k] if not judged[n]]
                assert run["spec"]["baseline"] == kept[-1], (made, kept)
                pooled = md["annotations"].get("storagebench.io/baseline-runs")
                assert pooled is None if len(kept) == 1 else pooled == ",".join(kept[::-1])
                data = sb.kubectl_json("-n", ns, "get", "configmap",
                                       f"{md['name']}-report")["data"]
                cmp = json.loads(data["compare.json"])
                assert cmp["baseline"] == kept[-1]
                assert cmp.get("baseline_runs", [kept[-1]]) == kept[::-1]
        # history: the three newest successful runs are kept, the oldest deleted
        clock.set(t + 60 * 3 + 10)
        poke(ns, "every", "final")

        def pruned():
            names = [r["metadata"]["name"] for r in runs_of(ns, "every")
                     if not r["metadata"].get("deletionTimestamp")]
            return names if names == made[1:] else None
        sb.wait_for(pruned, timeout=60, interval=1, what="the oldest run pruned")
        st = bs(ns, "every")["status"]
        assert st["lastSuccessfulRun"] == made[-1]
        assert st["lastScheduleTime"] == time.strftime("%Y-%m-%dT%H:%M:%SZ",
                                                       time.gmtime(t + 180))
        assert st["nextScheduleTime"] == time.strftime("%Y-%m-%dT%H:%M:%SZ",
                                                       time.gmtime(t + 240))
        reasons = [r for r, _ in events(ns, "every")]
        assert reasons.count("RunCreated") == 4
        # kubectl storagebench history: the kept runs, newest first, with the trend
        p = subprocess.run(sb._prefix() + [PLUGIN, "history", "every", "-n", ns,
                                           f"--kubeconfig={sb.KUBECONFIG}"],
                           capture_output=True, text=True, timeout=60)
        assert p.returncode == 0, p.stderr
        lines = p.stdout.splitlines()
        assert lines[0].split() == ["RUN", "ACTIVATION", "PHASE", "CLASS", "WORKLOAD", "METRIC",
                                    "MEAN", "STDDEV", "CHANGE", "TREND", "REGRESSED"]
        order = []
        for ln in lines[1:]:
            if ln.split()[0] not in order:
                order.append(ln.split()[0])
        assert order == list(reversed(made[1:]))
        # per run: randread's read-iops and write's write-iops
        assert len(lines) == 1 + 2 * 3
        assert all(" Succeeded " in ln for ln in lines[1:])
        assert sum(" randread " in ln and " read-iops " in ln for ln in lines) == 3
        assert sum(" write " in ln and " write-iops " in ln for ln in lines) == 3
        # each row but those of the oldest run kept has a change against the previous run
        assert all(re.search(r" [+-]\d+\.\d% +(better|worse|same) ", ln) for ln in lines[1:5])
        p = subprocess.run(sb._prefix() + [PLUGIN, "history", "nothere", "-n", ns,
                                           f"--kubeconfig={sb.KUBECONFIG}"],
                           capture_output=True, text=True, timeout=60)
        assert p.returncode == 1
        assert f"benchmarkschedule 'nothere' not found in namespace '{ns}'" in p.stderr
    finally:
        c.stop()


def test_missed_activations_one_catch_up_run(ns, sched_crd, clock):
    clock.set(time.time() - 3600)
    c = Controller(ns, extra=[f"--test-clock-file={clock.file}"], name="sched")
    try:
        sb.apply(schedule("late"), namespace=ns)
        t = first_activation(ns, "late")
        made = []
        step_and_wait_run(ns, "late", clock, t, 1, made)
    finally:
        c.stop()
    # the controller is down for ten activations
    clock.set(t + 600 + 5)
    c = Controller(ns, extra=[f"--test-clock-file={clock.file}"], name="sched2")
    try:
        def two():
            rs = runs_of(ns, "late")
            return rs if len(rs) >= 2 else None
        rs = sb.wait_for(two, timeout=60, interval=1, what="the catch-up run")
        assert len(rs) == 2
        assert rs[1]["metadata"]["annotations"]["storagebench.io/scheduled-at"] == \
            time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(t + 600))
        assert any(r == "MissedSchedules" and "9 earlier activations were missed" in m
                   for r, m in events(ns, "late"))
        # still exactly one catch-up run a little later
        poke(ns, "late", "again")
        time.sleep(2)
        assert len(runs_of(ns, "late")) == 2
    finally:
        c.stop()


def test_invalid_schedule_is_a_condition(ns, sched_crd, controller):
    bad = schedule("bad").replace('"* * * * *"', '"61 * * * *"')
    sb.apply(bad, namespace=ns)

    def cond():
        st = bs(ns, "bad").get("status") or {}
        for c in st.get("conditions") or []:
            if c["type"] == "InvalidSpec":
                return c
        return None
    c = sb.wait_for(cond, timeout=30, interval=1, what="InvalidSpec on the schedule")
    assert c["status"] == "True"
    assert c["message"] == "spec.schedule: minute: '61' is above the maximum 59"
    assert any(r == "InvalidSpec" for r, _ in events(ns, "bad"))


CLASS_THROTTLED = """
apiVersion: storagebench.io/v1alpha1
kind: BenchmarkSchedule
metadata: {name: %(name)s}
spec:
  schedule: "*/5 * * * *"
  regressionThresholdPercent: 20
  runTemplate:
    spec:
      storageClasses: [%(cls)s]
      iterations: 3
      volume: {size: 64Mi}%(lifecycle)s
      fioJob: |
        [global]
        direct=%(direct)s
        size=16m
        runtime=2s
        time_based=1
        [rr]
        rw=randread
        bs=4k
        iodepth=%(iodepth)s
        rate_iops=1000
        [sw]
        rw=write
        bs=4k
        rate_iops=200
        steadystate=iops:20%%
        ss_dur=1s
      runner:
        imagePullPolicy: Never
"""


def throttle_schedule(name, iodepth, cls="disk", lifecycle=True):
    """Reads capped at 1,000 and writes at 200 IOPS (so their spread does not
    depend on how busy the machine is), on cls; with lifecycle timings."""
    return CLASS_THROTTLED % {
        "name": name, "iodepth": iodepth, "cls": cls, "direct": 1 if cls == "disk" else 0,
        "lifecycle": "\n      lifecycle: {iterations: 1, volumes: 1}" if lifecycle else ""}


def class_device(cls):
    """The whole block device (major, minor) under a local-dir class's volumes."""
    sc = sb.kubectl_json("get", "storageclass", cls)
    st = os.stat(sc["parameters"]["path"])
    dev = f"/sys/dev/block/{os.major(st.st_dev)}:{os.minor(st.st_dev)}"
    if os.path.exists(os.path.join(dev, "partition")):
        dev = os.path.dirname(os.path.realpath(dev))
    with open(os.path.join(dev, "dev")) as f:
        major, minor = f.read().strip().split(":")
    return int(major), int(minor)


class ReadThrottle:
    """The class's block device limited to `iops` reads per second for the
    containers of the namespace's pods created while it is set, on every node
    (tests/cluster/runtime/blkio.py): a slower storage class, the workload
    left as it is."""

    def __init__(self, ns, cls):
        self.ns, self.dev = ns, class_device(cls)
        self.paths = [os.path.join(sb.STATE, "nodes", sb.letter(n), "faults", "read-iops")
                      for n in sb.NODES]

    def set(self, iops):
        for p in self.paths:
            os.makedirs(os.path.dirname(p), exist_ok=True)
            with open(p + ".new", "w") as f:
                f.write(f"{self.ns} {self.dev[0]}:{self.dev[1]} {iops}\n")
            os.replace(p + ".new", p)

    def clear(self):
        for p in self.paths:
            if os.path.exists(p):
                os.remove(p)


def regressed(obj_status):
    for cnd in (obj_status or {}).get("conditions") or []:
        if cnd["type"] == "Regressed":
            return cnd
    return None


def run_verdict(ns, name):
    return sb.wait_for(lambda: regressed(br(ns, name).get("status")), timeout=30, interval=1,
                       what=f"Regressed on {name}")


def mean_of(ns, name, workload, metric):
    for e in br(ns, name)["status"]["summary"]:
        if e["workload"] == workload and e["metric"] == metric:
            return e["mean"]
    raise AssertionError(f"{name}: no {workload} {metric}")


def dashboard_queries(ns, sched):
    """Every PromQL expression of the chart's Grafana dashboard (panels, and
    the variables' label_values as the count by the label Grafana lists),
    with its variables set to this schedule."""
    with open(os.path.join(sb.ROOT, "charts", "storagebench", "files",
                           "grafana-dashboard.json")) as f:
        dash = json.load(f)
    out = []
    for p in dash["panels"]:
        for t in p["targets"]:
            out.append((p["title"], t["expr"]))
    for v in dash["templating"]["list"]:
        q = v.get("query")
        if isinstance(q, dict):
            m = re.fullmatch(r"label_values\((.*), *(\w+)\)", q["query"])
            assert m, q
            out.append((f"variable {v['name']}", f"count by ({m.group(2)}) ({m.group(1)})"))
    return [(t, e.replace("$namespace", ns).replace("$schedule", sched)) for t, e in out]


def chart_rules(path, **values):
    """The chart's PrometheusRule, rendered by helm, as a Prometheus rule file."""
    args = [HELM, "template", "sb", os.path.join(sb.ROOT, "charts", "storagebench"),
            "--set", "prometheusRule.enabled=true"]
    for k, v in values.items():
        args += ["--set", f"prometheusRule.{k}={v}"]
    p = subprocess.run(args, capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr
    rule = [d for d in yaml.safe_load_all(p.stdout) if d and d["kind"] == "PrometheusRule"][0]
    with open(path, "w") as f:
        yaml.safe_dump({"groups": rule["spec"]["groups"]}, f)
    return rule["spec"]["groups"]


def keys(series, *labels):
    return sorted(tuple(s["metric"].get(k, "") for k in labels) for s in series)


def test_throttled_class_is_regressed_until_back_and_in_prometheus(ns, sched_crd, clock, tmp_path):
    """A class throttled (a real block-device limit, tests/cluster/runtime/
    blkio.py) from 1,000 to 100 read IOPS for three runs: each of the three is
    Regressed (the second and third against the same baseline, "regressed
    since" the first slow run), the first run back clears it; a changed
    iodepth is "not comparable". Two replicas behind leader election are
    scraped by a real Prometheus: every result series exists once; after the
    regression every query of the dashboard and every rule returns the
    series expected, and the alert fires (then resolves)."""
    clock.set(time.time() - 3600)
    thr = ReadThrottle(ns, "disk")
    rules = str(tmp_path / "rules.yaml")
    groups = chart_rules(rules)
    reps = [Controller(ns, extra=[f"--test-clock-file={clock.file}", "--leader-elect",
                                  f"--identity=replica-{x}"], name=f"thr-{x}") for x in "ab"]
    try:
        with Prometheus([f"127.0.0.1:{c.port}" for c in reps], rules=rules) as prom:
            sb.apply(throttle_schedule("thr", 8), namespace=ns)
            t = first_activation(ns, "thr")
            made = []
            first = step_and_wait_run(ns, "thr", clock, t + 240, 1, made)
            assert regressed(first.get("status")) is None  # no baseline yet
            assert 950 <= mean_of(ns, made[0], "rr", "read-iops") <= 1050
            thr.set(100)
            for k in (2, 3, 4):
                step_and_wait_run(ns, "thr", clock, t + 240 + 300 * (k - 1), k, made)
                assert mean_of(ns, made[-1], "rr", "read-iops") <= 110
                rc = run_verdict(ns, made[-1])
                assert rc["status"] == "True", rc
                assert " beyond 20%: disk/rr read-iops -" in rc["message"], rc
                if k > 2:
                    assert f"regressed since run {made[1]}" in rc["message"], rc
                    poke(ns, "thr", f"v{k}")
                    st = sb.wait_for(lambda: (bs(ns, "thr").get("status") or {})
                                     .get("regressedSinceRun"), timeout=30, interval=1,
                                     what="regressedSinceRun")
                    assert st == made[1]
                    # the slow runs never enter the baseline
                    assert bs(ns, "thr")["status"]["baselineRuns"] == [made[0]]
                if k == 2:
                    check_prometheus(prom, ns, reps, groups)
            thr.clear()
            step_and_wait_run(ns, "thr", clock, t + 240 + 300 * 4, 5, made)
            rc = run_verdict(ns, made[-1])
            assert rc["status"] == "False", rc
            poke(ns, "thr", "back")
            sb.wait_for(lambda: "regressedSinceRun" not in (bs(ns, "thr").get("status") or {}),
                        timeout=30, interval=1, what="the schedule no longer regressed")
            sel = f'namespace="{ns}",schedule="thr"'
            prom.wait(lambda: prom.query(f"storagebench_schedule_regressed{{{sel}}} == 0"),
                      what="regressed 0 in Prometheus")
            prom.wait(lambda: not prom.query(f'ALERTS{{alertname="StoragebenchRegression",{sel}}}'),
                      what="the alert resolved")
            # the template's iodepth changes: another workload, never "regressed"
            sb.apply(throttle_schedule("thr", 16), namespace=ns)
            step_and_wait_run(ns, "thr", clock, t + 240 + 300 * 5, 6, made)
            rc = run_verdict(ns, made[-1])
            assert rc["status"] == "False", rc
            assert "not comparable (another workload): disk/rr (iodepth 8 -> 16)" in rc["message"]
    finally:
        thr.clear()
        for c in reps:
            c.stop()


def check_prometheus(prom, ns, reps, groups):
    """After a scheduled regression: the series once each, every dashboard
    and rule expression answered as expected, the alert firing."""
    sel = f'namespace="{ns}",schedule="thr"'
    prom.wait(lambda: prom.query(f"storagebench_schedule_regressed{{{sel}}} == 1"),
              what="the regression in Prometheus")
    assert len(prom.targets_up()) == 2
    # one replica leads: only its scrape has the results
    lead = prom.query("storagebench_leader == 1")
    assert len(lead) == 1, lead
    per_series = prom.query(
        'count by (__name__, namespace, schedule, class, workload, op, statistic, phase, '
        f'metric, verdict) ({{__name__=~"storagebench_schedule_.+",{sel}}})')
    assert len(per_series) >= 20, per_series
    assert all(s["value"][1] == "1" for s in per_series), [s for s in per_series
                                                            if s["value"][1] != "1"]
    # every dashboard query, and what it must return
    none = {"Object store time to first byte (p50)", "Object store failed requests per iteration"}
    for title, expr in dashboard_queries(ns, "thr"):
        got = prom.query(expr)
        if title in none:
            assert got == [], (title, expr, got)  # no object store in this schedule
            continue
        assert got, (title, expr)
        for s in got:
            assert s["metric"].get("namespace", ns) == ns, (title, s)
        if title.startswith("Read IOPS") or title == "Read bandwidth":
            assert keys(got, "class", "workload") == [("disk", "rr")], (title, got)
        if title == "Changes against the baseline (%)":
            m = {(s["metric"]["metric"], s["metric"]["verdict"]): float(s["value"][1]) for s in got}
            assert m[("read-iops", "regression")] < -80, m
        if title == "Regressed schedules":
            assert [s["value"][1] for s in got] == ["1"]
        if title == "Volume lifecycle (mean)":
            assert {s["metric"]["phase"] for s in got} >= {"provision", "attach", "delete"}, got
        if title == "Steady state reached (share of iterations)":
            assert keys(got, "workload") == [("sw",)], got
    # every rule's expression: the regression alert's series, and the stale
    # one's once its threshold is below the time since the last success
    for r in groups[0]["rules"]:
        got = prom.query(r["expr"])
        if r["alert"] == "StoragebenchRegression":
            assert keys(got, "namespace", "schedule") == [(ns, "thr")], got
        elif r["alert"] == "StoragebenchScheduleStale":
            assert not [s for s in got if s["metric"]["namespace"] == ns], got
            stale = re.sub(r">\s*\S+$", "> -86400", r["expr"])
            got = prom.query(stale)
            assert keys(got, "namespace", "schedule") == [(ns, "thr")], (stale, got)
        else:
            raise AssertionError(f"a rule the test does not know: {r['alert']}")
    prom.wait(lambda: prom.query(
        f'ALERTS{{alertname="StoragebenchRegression",alertstate="firing",{sel}}}'),
        what="StoragebenchRegression firing")


def test_run_is_made_from_the_schedule_as_it_is_now(ns, sched_crd, clock):
    """The cause of the injected regression that read Regressed=False: the
    run of an activation was made from the controller's cached copy of the
    schedule, which may lag a template change the API server already has
    (the test changed the template, then moved the clock; a schedule
    reconcile in between, woken by the previous run's last updates, saw the
    new time and the old template: two runs at 1000 IOPS, "no significant
    change"). Here the lag is made certain: the controller's watch of
    schedules is held by a fault proxy, so its cache keeps the first
    template; the template changes, the clock moves, a change of the first
    run wakes the schedule. The run made must be of the new template (or
    none until the cache has it), never of the old one."""
    sb.apply(throttle_schedule("lag", 8, cls="fast", lifecycle=False), namespace=ns)
    t = first_activation(ns, "lag")
    clock.set(t + 240)
    with sb.PrivateFaultProxy() as fp:
        # the schedules watch is held for 45 s (its list passes): the cache
        # has the schedule as it is now and sees no change until then
        fp.add(method="GET", path=r"/benchmarkschedules\?(.*&)?watch=1", action="hold",
               timeout_ms=45000, count=1)
        c = Controller(ns, kubeconfig=fp.kubeconfig,
                       extra=[f"--test-clock-file={clock.file}"], name="lag")
        try:
            def first():
                rs = runs_of(ns, "lag")
                return rs[0] if rs else None
            r1 = sb.wait_for(first, timeout=60, interval=1, what="the first run")
            st = wait_phase(ns, r1["metadata"]["name"], timeout=240)
            assert st["phase"] == "Succeeded", st
            assert "iodepth=8\n" in r1["spec"]["fioJob"]
            held = [e for e in fp.log() if e.get("action") == "held"]
            assert held, fp.log()
            # the template changes while the controller cannot see it
            sb.apply(throttle_schedule("lag", 16, cls="fast", lifecycle=False), namespace=ns)
            clock.set(t + 540)
            # a change of the first run wakes the schedule (its cache is stale)
            sb.kubectl("-n", ns, "annotate", "--overwrite", "benchmarkrun",
                       r1["metadata"]["name"], "test/wake=1")
            # still held: the cache had the old template when the schedule woke
            assert not [e for e in fp.log() if e.get("action") == "hold"], fp.log()

            def second():
                rs = runs_of(ns, "lag")
                return rs[1] if len(rs) > 1 else None
            r2 = sb.wait_for(second, timeout=60, interval=1, what="the second run")
            assert "iodepth=16\n" in r2["spec"]["fioJob"], r2["spec"]["fioJob"]
        finally:
            c.stop()
