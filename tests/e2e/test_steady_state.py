"""Issue 21 on the real test cluster: a workload that runs until steady (at
most maxRuntime) and what the report says about it; fio log files of a
fioJob carried in the result ConfigMap."""
import json

from conftest import results, sb, small, wait_phase

WORKLOADS = """  workloads:
  - {name: rr, rw: randread, bs: 4k, iodepth: 8, runtime: %(runtime)s, timeBased: true}
  - {name: sw, rw: write, bs: 64k, iodepth: 4, runtime: %(runtime)s, timeBased: true}
"""


def with_workloads(name, text, **kw):
    """small()'s run with its workloads replaced by text (indent 2)."""
    y = small(name, **kw)
    old = WORKLOADS % {"runtime": kw.get("runtime", "1s")}
    assert old in y, "tests/cluster/sbrun.py SMALL changed: update this test"
    return y.replace(old, text)


def test_run_until_steady_at_most_max_runtime(ns, controller):
    # steady at once (every second within 90% of the mean) versus never (slope 0%)
    wl = """  workloads:
  - name: steady
    rw: randread
    bs: 4k
    steadyState: {criterion: "iops:90%", window: 2s, maxRuntime: 30s}
  - name: never
    rw: randread
    bs: 4k
    steadyState: {criterion: "iops_slope:0%", window: 2s, maxRuntime: 3s}
"""
    sb.apply(with_workloads("steady", wl, classes=("fast",), iterations=2), namespace=ns)
    st = wait_phase(ns, "steady", timeout=240)
    assert st["phase"] == "Succeeded", st
    res = results(ns, "steady")
    assert sorted(res) == [("fast", 1), ("fast", 2)]
    for (_, it), doc in res.items():
        jobs = {j["jobname"]: j for j in doc["jobs"]}
        s, n = jobs["steady"], jobs["never"]
        assert s["job options"]["steadystate"] == "iops:90%"
        assert s["steadystate"]["attained"] == 1 and s["steadystate"]["duration"] == 2
        assert s["storagebench"]["steadystate"]["attained"] is True
        assert s["job_runtime"] < 15000, "stopped when steady, long before maxRuntime"
        assert n["steadystate"]["attained"] == 0
        assert n["job_runtime"] >= 2900, "ran for its maxRuntime"
    cm = sb.kubectl_json("-n", ns, "get", "configmap", "steady-report")
    txt = cm["data"]["report.txt"]
    assert "fast: steady: steady state reached in 2 of 2 iterations, after " in txt, txt
    assert ("fast: never: steady state reached in 0 of 2 iterations; every one ran for the "
            "workload's maxRuntime.") in txt, txt
    summ = {(s["workload"], s["metric"]): s for s in st["summary"]}
    assert summ[("steady", "steady")]["mean"] == 100 and summ[("never", "steady")]["mean"] == 0
    after = summ[("steady", "steady-after")]
    assert after["unit"] == "s" and 0 < after["min"] <= after["mean"] < 15
    assert ("never", "steady-after") not in summ


def test_fio_log_files_travel_in_the_result(ns, controller):
    job = ("[global]\\nrw=randread\\nbs=4k\\nruntime=2s\\ntime_based\\n"
           "[logged]\\nwrite_iops_log=io\\nwrite_lat_log=io\\nlog_avg_msec=500\\n")
    wl = f'  fioJob: "{job}"\n'
    sb.apply(with_workloads("logs", wl, classes=("fast",), iterations=1), namespace=ns)
    st = wait_phase(ns, "logs", timeout=240)
    assert st["phase"] == "Succeeded", st
    doc = results(ns, "logs")[("fast", 1)]
    files = doc["logs"]["files"]
    assert sorted(files) == ["io_clat.1.log", "io_iops.1.log", "io_lat.1.log", "io_slat.1.log"]
    rows = [line.split(", ") for line in files["io_iops.1.log"].splitlines()]
    assert [r[0] for r in rows[:3]] == ["500", "1000", "1500"]
    assert all(len(r) == 5 and r[2] == "0" and int(r[1]) > 0 for r in rows)
    assert doc["logs"]["truncated"] == []
    json.dumps(doc)  # the whole result is one JSON document
