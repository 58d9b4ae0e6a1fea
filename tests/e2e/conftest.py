"""Fixtures for the end-to-end tests of the controller on the test cluster.

The controller runs as a process inside the cluster's network namespace
(so a test can kill it, restart it, point it at the fault proxy, or run
two of them), with the admin kubeconfig, watching only the test's
namespace. Runner pods run from the project image, as on a real cluster.
The helpers are in tests/cluster/sbrun.py.
"""
import os
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "cluster"))
import sbcluster as sb  # noqa: E402
from sbrun import (CONTROLLER, RUNNER_RBAC, Controller, br, events,  # noqa: E402,F401
                   install_crd, results, small, wait_phase)


@pytest.fixture(scope="session")
def cluster():
    sb.require_cluster()
    if not os.access(CONTROLLER, os.X_OK):
        pytest.fail(f"{CONTROLLER} is missing: make all")
    install_crd()
    return sb


@pytest.fixture
def ns(cluster):
    with sb.namespace("e2e") as name:
        sb.apply(RUNNER_RBAC, namespace=name)
        yield name


@pytest.fixture
def controller(ns):
    started = []

    def start(**kw):
        c = Controller(ns, **kw)
        started.append(c)
        return c

    c = start()
    c.start = start
    yield c
    for x in started:
        x.stop()
