#!/usr/bin/env bash
# Memcheck: the unit tests built without sanitizers, and the runner on small
# real jobs, under valgrind (see tests/valgrind.sh).
set -uo pipefail
cd "$(dirname "$0")/../.."
exec bash tests/valgrind.sh
