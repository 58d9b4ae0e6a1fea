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
import subprocess
import time

import pytest

from conftest import Controller, br, events, sb, wait_phase  # noqa: F401

HERE = os.path.dirname(os.path.abspath(__file__))
PLUGIN = os.path.join(sb.ROOT, "bin", "kubectl-storagebench")
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
        made = []
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
            # each run's baseline is the previous run, and its report compares with it
            if k == 0:
                assert "baseline" not in run["spec"]
            else:
                assert run["spec"]["baseline"] == made[k - 1]
                data = sb.kubectl_json("-n", ns, "get", "configmap",
                                       f"{md['name']}-report")["data"]
                assert json.loads(data["compare.json"])["baseline"] == made[k - 1]
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


THROTTLED = """
apiVersion: storagebench.io/v1alpha1
kind: BenchmarkSchedule
metadata: {name: %(name)s}
spec:
  schedule: "*/5 * * * *"
  regressionThresholdPercent: 20
  runTemplate:
    spec:
      storageClasses: [fast]
      iterations: 3
      volume: {size: 64Mi}
      fioJob: |
        [rr]
        rw=randread
        bs=4k
        size=16m
        runtime=1s
        time_based=1
        %(rate)s
      runner:
        imagePullPolicy: Never
"""


def test_injected_regression_is_a_condition_event_and_metric(ns, sched_crd, clock):
    clock.set(time.time() - 3600)
    c = Controller(ns, extra=[f"--test-clock-file={clock.file}"], name="sched")
    try:
        # both runs rate-limited, so their spread does not depend on how busy
        # the machine is: unthrottled 1 s iterations on a loaded machine had a
        # CV near 50%, and with 3 iterations Welch's test then missed p < 0.05
        sb.apply(THROTTLED % {"name": "thr", "rate": "rate_iops=1000"}, namespace=ns)
        t = first_activation(ns, "thr")
        made = []
        first = step_and_wait_run(ns, "thr", clock, t + 240, 1, made)
        # the class gets slower: the next run is throttled to 100 IOPS (from 1000)
        sb.apply(THROTTLED % {"name": "thr", "rate": "rate_iops=100"}, namespace=ns)
        second = step_and_wait_run(ns, "thr", clock, t + 540, 2, made)
        assert second["spec"]["baseline"] == first["metadata"]["name"]

        def regressed(obj_status):
            for cnd in (obj_status or {}).get("conditions") or []:
                if cnd["type"] == "Regressed":
                    return cnd
            return None
        rc = sb.wait_for(lambda: regressed(br(ns, made[1]).get("status")), timeout=30,
                         interval=1, what="Regressed on the run")
        assert rc["status"] == "True" and rc["reason"] == "SlowerThanBaseline"
        assert " beyond 20%: fast/rr read-iops -" in rc["message"]
        assert any(r == "Regressed" and "read-iops" in m for r, m in events(ns, made[1]))
        # the schedule carries it too, with its own Warning event
        poke(ns, "thr", "verdict")
        sc = sb.wait_for(lambda: regressed(bs(ns, "thr").get("status")), timeout=30,
                         interval=1, what="Regressed on the schedule")
        assert sc["status"] == "True" and sc["message"].startswith(f"run {made[1]}: ")
        assert any(r == "Regressed" for r, _ in events(ns, "thr"))
        # the first run had no baseline: no verdict
        assert regressed(br(ns, made[0]).get("status")) is None
        # the metrics: the newest run's figures and the verdict, per schedule
        text = c.metrics()
        sel = f'namespace="{ns}",schedule="thr"'
        assert f"storagebench_schedule_regressed{{{sel}}} 1\n" in text
        m = re.search(r"^storagebench_schedule_change_percent\{" + re.escape(sel) +
                      r',class="fast",workload="rr",metric="read-iops",verdict="regression"\} (\S+)$',
                      text, re.M)
        assert m and float(m.group(1)) < -20
        m = re.search(r"^storagebench_schedule_result_mean\{" + re.escape(sel) +
                      r',class="fast",workload="rr",metric="read-iops",unit="IOPS"\} (\S+)$',
                      text, re.M)
        assert m and float(m.group(1)) <= 110  # the throttled run's figures (100 IOPS)
        assert made[1] not in text  # no run names in a schedule's series
        # every metric the chart's dashboard and alerts query is in the scrape
        exported = set(re.findall(r"^# TYPE (\S+) ", text, re.M))
        with open(os.path.join(sb.ROOT, "charts", "storagebench", "files",
                               "grafana-dashboard.json")) as f:
            dash = f.read()
        json.loads(dash)
        with open(os.path.join(sb.ROOT, "charts", "storagebench", "templates",
                               "prometheusrule.yaml")) as f:
            rules = f.read()
        used = set(re.findall(r"\bstoragebench_[a-z0-9_]+", dash + rules))
        assert used and used <= exported, used - exported
    finally:
        c.stop()


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
    sb.apply(THROTTLED % {"name": "lag", "rate": "rate_iops=1000"}, namespace=ns)
    t = first_activation(ns, "lag")
    clock.set(t + 240)
    with sb.PrivateFaultProxy() as fp:
        # the schedules watch is held for 20 s (its list passes): the cache
        # has the schedule as it is now and sees no change until then
        fp.add(method="GET", path=r"/benchmarkschedules\?(.*&)?watch=1", action="hold",
               timeout_ms=20000, count=1)
        c = Controller(ns, kubeconfig=fp.kubeconfig,
                       extra=[f"--test-clock-file={clock.file}"], name="lag")
        try:
            def first():
                rs = runs_of(ns, "lag")
                return rs[0] if rs else None
            r1 = sb.wait_for(first, timeout=60, interval=1, what="the first run")
            st = wait_phase(ns, r1["metadata"]["name"], timeout=240)
            assert st["phase"] == "Succeeded", st
            assert "rate_iops=1000" in r1["spec"]["fioJob"]
            held = [e for e in fp.log() if e.get("action") == "held"]
            assert held, fp.log()
            # the template changes while the controller cannot see it
            sb.apply(THROTTLED % {"name": "lag", "rate": "rate_iops=100"}, namespace=ns)
            clock.set(t + 540)
            # a change of the first run wakes the schedule (its cache is stale)
            sb.kubectl("-n", ns, "annotate", "--overwrite", "benchmarkrun",
                       r1["metadata"]["name"], "test/wake=1")

            def second():
                rs = runs_of(ns, "lag")
                return rs[1] if len(rs) > 1 else None
            r2 = sb.wait_for(second, timeout=60, interval=1, what="the second run")
            assert "rate_iops=100\n" in r2["spec"]["fioJob"], r2["spec"]["fioJob"]
        finally:
            c.stop()
