"""BenchmarkSchedules run by the chart-installed controller, in the image
`make image` builds: the zone files a timeZone names are read from the
image (/usr/share/zoneinfo), not from the host, as the schedule tests of
tests/e2e (the controller a host process) would. The shipped example
manifests/examples/schedule.yaml (`timeZone: Etc/UTC`, every minute) runs
as it is: its first activation comes at the next minute boundary of the
real clock (the chart's controller has no test clock), so the test waits
for that boundary and then for the run's end, whichever comes, without a
bound on speed beyond the generous timeouts."""
import datetime
import os

import pytest
import yaml

from conftest import EXAMPLES, sb
from test_install import rel, wait_phase  # noqa: F401  (the release fixture: one per module)

pytestmark = pytest.mark.xdist_group("chart-schedule")


def k(*args, **kw):
    return sb.kubectl(*args, **kw)


def bs(rel, name):
    return sb.kubectl_json("-n", rel.run_ns, "get", "benchmarkschedule", name)


def invalid(st):
    return [c for c in st.get("conditions") or [] if c["type"] == "InvalidSpec" and c["status"] == "True"]


def utc(s):
    return datetime.datetime.strptime(s, "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=datetime.timezone.utc)


def test_example_schedule_runs_as_shipped(rel):
    with open(os.path.join(EXAMPLES, "schedule.yaml")) as f:
        text = f.read()
    sched = yaml.safe_load(text)
    assert sched["spec"]["timeZone"] == "Etc/UTC"
    name = sched["metadata"]["name"]
    sb.apply(text, namespace=rel.run_ns)
    try:
        # parsed, its zone read from the image: a next activation, no InvalidSpec
        st = sb.wait_for(lambda: (lambda s: s if s.get("nextScheduleTime") or invalid(s) else None)(
            bs(rel, name).get("status") or {}), timeout=60, interval=1, what=f"{name}'s status")
        assert not invalid(st), st
        first = utc(st["nextScheduleTime"])
        assert first.second == 0 and first - datetime.datetime.now(datetime.timezone.utc) <= datetime.timedelta(
            seconds=61 + 30), st  # the next minute (30 s for clocks apart)

        def made():
            items = sb.kubectl_json("-n", rel.run_ns, "get", "benchmarkruns", "-l",
                                    f"storagebench.io/schedule={name}")["items"]
            return items[0] if items else None
        run = sb.wait_for(made, timeout=180, interval=2, what=f"the first run of {name}")
        assert run["metadata"]["annotations"]["storagebench.io/scheduled-at"] == st["nextScheduleTime"]
        assert run["metadata"]["labels"]["team"] == "storage"
        end = wait_phase(rel, run["metadata"]["name"], timeout=420)
        assert end["phase"] == "Succeeded", end
        st = sb.wait_for(lambda: (lambda s: s if s.get("lastSuccessfulRun") else None)(
            bs(rel, name).get("status") or {}), timeout=60, interval=1, what=f"{name}'s lastSuccessfulRun")
        assert st["lastSuccessfulRun"] == run["metadata"]["name"] and not invalid(st), st
    finally:
        k("-n", rel.run_ns, "delete", "benchmarkschedule", name, "--wait=false", check=False)


def test_time_zone_from_the_image(rel):
    """09:00 every day in Asia/Kolkata (UTC+05:30, no daylight saving) is
    03:30 UTC: the controller found the zone's file in its image. A zone
    that does not exist is InvalidSpec naming the file (control)."""
    manifest = {"apiVersion": "storagebench.io/v1alpha1", "kind": "BenchmarkSchedule",
                "metadata": {"name": "kolkata"},
                "spec": {"schedule": "0 9 * * *", "timeZone": "Asia/Kolkata",
                         "runTemplate": {"spec": {"storageClasses": ["fast"], "iterations": 1,
                                                  "volume": {"size": "64Mi"},
                                                  "workloads": [{"name": "rr", "rw": "randread", "bs": "4k",
                                                                 "runtime": "1s", "timeBased": True}]}}}}
    nowhere = dict(manifest, metadata={"name": "nowhere"},
                   spec=dict(manifest["spec"], timeZone="Mars/Olympus_Mons"))
    sb.apply([manifest, nowhere], namespace=rel.run_ns)
    try:
        t0 = datetime.datetime.now(datetime.timezone.utc)
        st = sb.wait_for(lambda: (lambda s: s if s.get("nextScheduleTime") or invalid(s) else None)(
            bs(rel, "kolkata").get("status") or {}), timeout=60, interval=1, what="kolkata's status")
        assert not invalid(st), st
        nxt = utc(st["nextScheduleTime"])
        assert (nxt.hour, nxt.minute, nxt.second) == (3, 30, 0), st
        assert t0 - datetime.timedelta(seconds=30) < nxt <= t0 + datetime.timedelta(days=1, seconds=30), (t0, st)
        st = sb.wait_for(lambda: (lambda s: s if invalid(s) else None)(bs(rel, "nowhere").get("status") or {}),
                         timeout=60, interval=1, what="nowhere's InvalidSpec")
        msg = invalid(st)[0]["message"]
        assert "time zone 'Mars/Olympus_Mons': unknown zone (no file /usr/share/zoneinfo/Mars/Olympus_Mons)" in msg, st
        assert "nextScheduleTime" not in st
    finally:
        k("-n", rel.run_ns, "delete", "benchmarkschedule", "kolkata", "nowhere", "--wait=false", check=False)
