"""Volume lifecycle timings (spec.lifecycle) on the test cluster.

The class fast-delayed is the class fast with the provisioner's 500 ms
provisioning delay (tests/cluster/provisioner.py, annotation
storagebench.test/provision-delay): its provisioning time must come out at
500 ms or more (the delay is a lower bound: the provisioner starts counting
when it sees the claim, after the scheduler's pick), and no more than a few
seconds above it; the undelayed class is faster by about the delay. The
local-dir classes cannot expand (resize is skipped with the reason) and have
no VolumeSnapshotClass (snapshot skipped with the reason, and no restore
rows)."""
import json

from conftest import br, events, sb, small, wait_phase

DELAY_NS = 500e6
LIFECYCLE = """  lifecycle: {iterations: 2, volumes: 2, concurrent: 2, size: 16Mi}
"""


def lifecycle_rows(report, cls):
    return {e["phase"]: e for e in report["lifecycle"] if e["target"] == cls}


def test_lifecycle_timings_of_a_delayed_and_a_plain_class(ns, controller):
    sb.apply(small("lc", classes=(sb.FAST_DELAYED, sb.FAST), iterations=1, extra=LIFECYCLE),
             namespace=ns)
    st = wait_phase(ns, "lc", timeout=400)
    assert st["phase"] == "Succeeded", (st, controller.log[-3000:])
    report = json.loads(sb.kubectl_json("-n", ns, "get", "configmap", "lc-report")["data"]["report.json"])
    slow, fast = lifecycle_rows(report, sb.FAST_DELAYED), lifecycle_rows(report, sb.FAST)
    n = 2 * (2 + 2)  # iterations x (sequential + concurrent volumes)
    for rows in (slow, fast):
        for phase in ("provision", "attach", "delete"):
            assert rows[phase]["n"] == n, (phase, rows[phase])
            assert len(rows[phase]["samples"]) == n
            assert rows[phase]["min"] <= rows[phase]["p50"] <= rows[phase]["p95"] <= rows[phase]["p99"] \
                <= rows[phase]["max"]
            assert rows[phase]["min"] > 0
        assert "allowVolumeExpansion" in rows["resize"]["skipped"], rows["resize"]
        assert rows["snapshot"]["skipped"].startswith(
            "no VolumeSnapshotClass for driver storagebench.io/local-dir"), rows["snapshot"]
        assert "restore" not in rows and "snapshot_delete" not in rows, rows
    # the known delay: a lower bound for every sample, and not far above it
    assert slow["provision"]["min"] >= DELAY_NS, slow["provision"]
    assert slow["provision"]["mean"] < DELAY_NS + 4e9, slow["provision"]
    # the undelayed class is faster by about the delay (the rest is common to both)
    assert fast["provision"]["p50"] < slow["provision"]["p50"] - 0.4 * DELAY_NS, (fast, slow)

    # the status summary carries the timings as metrics
    summ = {(s["class"], s["metric"]): s for s in st["summary"] if s["workload"] == "lifecycle"}
    for cls in (sb.FAST_DELAYED, sb.FAST):
        for phase in ("provision", "attach", "delete"):
            s = summ[(cls, phase)]
            assert s["unit"] == "ns" and s["n"] == n
            assert s["p95"] == lifecycle_rows(report, cls)[phase]["p95"]
    assert (sb.FAST, "resize") not in summ
    # the report in words and as CSV
    txt = sb.kubectl_json("-n", ns, "get", "configmap", "lc-report")["data"]["report.txt"]
    assert "=== volume lifecycle" in txt
    assert f"{sb.FAST} resize: skipped: class {sb.FAST} does not allow volume expansion" in txt
    csv = sb.kubectl_json("-n", ns, "get", "configmap", "lc-report")["data"]["report.csv"]
    assert f"{sb.FAST_DELAYED},lifecycle,provision,ns,{n}," in csv
    # one result ConfigMap per class and iteration, and the I/O ran after them
    cms = sb.kubectl_json("-n", ns, "get", "configmap", "-l",
                          "storagebench.io/run=lc,app.kubernetes.io/component=lifecycle")["items"]
    assert sorted(cm["metadata"]["name"] for cm in cms) == sorted(
        f"lc-{c}-lc-{i}" for c in (sb.FAST_DELAYED, sb.FAST) for i in (1, 2))
    assert [r for r, _ in events(ns, "lc")].count("LifecycleMeasured") == 4
    # nothing of the measurement is left behind
    left = sb.kubectl_json("-n", ns, "get", "pvc,pods", "-l", "app.kubernetes.io/component=lifecycle")
    assert left["items"] == []


def test_bad_lifecycle_spec_is_refused_naming_the_field(ns, controller):
    sb.apply(small("lcbad", classes=(sb.FAST,), iterations=1,
                   extra="  lifecycle: {volumes: 0, concurrent: 0}\n"), namespace=ns)
    st = wait_phase(ns, "lcbad", phases=("Failed",), timeout=60)
    assert "spec.lifecycle: volumes and concurrent are both 0" in st["message"], st
    assert br(ns, "lcbad")["status"]["conditions"][0]["reason"] == "InvalidSpec"
