#!/usr/bin/env bash
# The runner through its command line (real I/O on temporary files), with
# the sanitizer build, plus comparisons with fio where fio is installed.
set -uo pipefail
cd "$(dirname "$0")/../.."
exec /usr/bin/python3 -m pytest -c tests/pytest.ini -q tests/runner "$@"
