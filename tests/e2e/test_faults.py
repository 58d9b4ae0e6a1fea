"""Faults during a run (the fault table of docs/reliability.md): the
control plane stopped mid-run."""
import time

import pytest

from conftest import events, sb, small, wait_phase

# stops the API server every other test talks to (tests/pytest.ini)
pytestmark = pytest.mark.serial


def test_api_server_down_20s_mid_run(ns, controller):
    sb.apply(small("apidown", classes=("fast",), iterations=4, runtime="2s"), namespace=ns)
    sb.wait_for(lambda: sb.kubectl_json("-n", ns, "get", "configmap", "-l",
                                        "storagebench.io/run=apidown,"
                                        "app.kubernetes.io/component=result")["items"],
                timeout=120, interval=0.5, what="a first result")
    sb.fault("stop-control-plane")
    try:
        time.sleep(20)  # the fault's length, not a wait for a condition
        assert controller.proc.poll() is None, "the controller exited without the API"
    finally:
        sb.fault("start-control-plane")
    st = wait_phase(ns, "apidown", timeout=300)
    assert st["phase"] == "Succeeded", st
    assert st["classes"][0]["iterationsDone"] == 4
    assert controller.proc.poll() is None
    reasons = [r for r, _ in events(ns, "apidown")]
    assert reasons.count("RunSucceeded") == 1 and "ReportWritten" in reasons
