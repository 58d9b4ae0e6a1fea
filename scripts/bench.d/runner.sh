#!/usr/bin/env bash
# Our runner against fio on the same jobs, alternating (see bench_runner.py).
set -euo pipefail
cd "$(dirname "$0")/../.."
exec /usr/bin/python3 scripts/bench_runner.py "$@"
