"""pytest fixtures for the test cluster's own tests (tests/cluster/test_*.py).

Other test directories use sbcluster directly (see its docstring); the
fixtures below are three lines each to copy.
"""
import os
import sys

import pytest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import sbcluster as sb  # noqa: E402


@pytest.fixture(scope="session")
def cluster():
    """The cluster is up and we run inside its network namespace (else skip)."""
    sb.require_cluster()
    return sb


@pytest.fixture
def ns(cluster):
    """A fresh namespace for one test, deleted afterwards."""
    with sb.namespace("t") as name:
        yield name


@pytest.fixture
def proxy(cluster):
    """The fault proxy's control client, rules and log cleared before and after."""
    with sb.FaultProxy() as fp:
        yield fp
