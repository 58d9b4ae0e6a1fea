"""Validity warnings (lib/report/validity.c) end to end: computed by the controller
from the runner pods' results, in the report and in status.warnings, each
with its evidence and fix. Every check is triggered and not triggered in
tests/unit/report/test_validity.c; here the ones the test cluster produces for
real: a blocked io_uring (the no-iouring seccomp profile), buffered I/O on
a small volume, too few iterations; and the same checks silent when the
facts are not there."""
import json

from conftest import sb, small, wait_phase

NO_IOURING = """    seccompProfile: {type: Localhost, localhostProfile: %s}""" % sb.SECCOMP_NO_IOURING


def warnings(st, check):
    return [w for w in st.get("warnings") or [] if w["check"] == check]


def test_warnings_in_status_and_report(ns, controller):
    # buffered (direct: false; the controller's default is direct) on a 64Mi volume,
    # 2 iterations, io_uring refused by seccomp
    manifest = small("suspect", classes=("fast",), iterations=2).replace(
        "timeBased: true}", "timeBased: true, direct: false}").rstrip() + "\n" + NO_IOURING + "\n"
    sb.apply(manifest, namespace=ns)
    st = wait_phase(ns, "suspect", timeout=240)
    assert st["phase"] == "Succeeded", st
    for wl in ("rr", "sw"):
        fb = [w for w in warnings(st, "engine-fallback") if w["workload"] == wl]
        assert len(fb) == 1 and fb[0]["class"] == "fast", st.get("warnings")
        assert "psync ran" in fb[0]["evidence"] and "io_uring_setup" in fb[0]["evidence"]
        assert "seccomp" in fb[0]["fix"]
        pc = [w for w in warnings(st, "page-cache") if w["workload"] == wl]
        assert len(pc) == 1 and "direct=0" in pc[0]["evidence"] and "node memory" in pc[0]["evidence"]
        few = [w for w in warnings(st, "few-iterations") if w["workload"] == wl]
        assert len(few) == 1 and few[0]["evidence"] == "2 iterations"
    cm = sb.kubectl_json("-n", ns, "get", "configmap", "suspect-report")["data"]
    report = json.loads(cm["report.json"])
    assert {(w["check"], w["target"], w["workload"]) for w in report["warnings"]} == \
        {(w["check"], w["class"], w["workload"]) for w in st["warnings"]}
    assert "validity warning" in cm["report.txt"].split("\n\n")[1]
    assert "=== warnings" in cm["report.txt"] and "fast / rr [engine-fallback]" in cm["report.txt"]
    assert "## Warnings" in cm["report.md"]


def test_no_warning_without_the_facts(ns, controller):
    # direct I/O (said, though it is the default), io_uring allowed, 3 iterations: none of
    # those checks speaks
    run = small("sound", classes=("fast",), iterations=3).replace("timeBased: true}",
                                                                "timeBased: true, direct: true}")
    sb.apply(run, namespace=ns)
    st = wait_phase(ns, "sound", timeout=240)
    assert st["phase"] == "Succeeded", st
    for check in ("engine-fallback", "page-cache", "few-iterations", "no-latency", "unwritten-read"):
        assert warnings(st, check) == [], st.get("warnings")
