"""Shared pytest configuration for every Python test suite of storagebench.

Each suite ends with the project's count line, "N passed, N failed, N
skipped", which tests/run-suites.sh adds up. Errors in fixtures count as
failures; skips print their reason (pytest -rs).
"""
import os

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def pytest_terminal_summary(terminalreporter, exitstatus, config):
    st = terminalreporter.stats
    passed = len([r for r in st.get("passed", []) if getattr(r, "when", "call") == "call"])
    failed = len(st.get("failed", [])) + len(st.get("error", []))
    skipped = len(st.get("skipped", []))
    terminalreporter.write_line(f"{passed} passed, {failed} failed, {skipped} skipped")


def pytest_addoption(parser):
    parser.addoption("--sb-reverse", action="store_true", default=False,
                     help="run the collected tests in reverse order")


def pytest_collection_modifyitems(session, config, items):
    if config.getoption("--sb-reverse") or os.environ.get("SB_TEST_REVERSE") == "1":
        items.reverse()
