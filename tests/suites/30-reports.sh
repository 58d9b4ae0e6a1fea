#!/usr/bin/env bash
# Report charts: the golden SVGs (which the unit test test_report_svg keeps
# byte-for-byte equal to the renderer's output) parsed with a real XML
# parser and checked against the fixture reports they were drawn from; and
# the t-test's special functions (lib/stats/stats.c) against scipy on a grid.
set -uo pipefail
cd "$(dirname "$0")/../.."
exec /usr/bin/python3 -m pytest -c tests/pytest.ini -q tests/reports "$@"
